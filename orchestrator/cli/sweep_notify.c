#include "orchestrator/cli/sweep_notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/say.h"
#include "common/xalloc.h"
#include "orchestrator/notify/notify_send.h"

static const char *format_name(enum notify_format f)
{
	return f == NOTIFY_FORMAT_SLACK ? "slack" : "json";
}

char *sweep_notify_record(const struct sweep_options *so)
{
	cleanup_cjson cJSON *a = NULL;

	if (!so->notify.n)
		return NULL;
	a = cJSON_CreateArray();
	for (size_t i = 0; i < so->notify.n; i++) {
		cJSON *t = cJSON_CreateObject();

		cJSON_AddStringToObject(t, "url", so->notify.v[i]);
		cJSON_AddStringToObject(t, "format", so->notify_slack ? "slack" : "json");
		cJSON_AddItemToArray(a, t);
	}
	return cJSON_PrintUnformatted(a);
}

/* Each string is its own copy in sn->strings (strvec_push copies), so a
 * target may point at it while the vector grows. */
static void add(struct sweep_notify *sn, const char *url, const char *owner, enum notify_format f)
{
	sn->targets = xrealloc(sn->targets, (sn->n + 1) * sizeof(*sn->targets));
	strvec_push(&sn->strings, url);
	sn->targets[sn->n] = (struct notify_target){ .format = f,
						     .url = sn->strings.v[sn->strings.n - 1] };
	if (owner) {
		strvec_push(&sn->strings, owner);
		sn->targets[sn->n].owner = sn->strings.v[sn->strings.n - 1];
	}
	sn->n++;
}

void sweep_notify_init(struct sweep_notify *sn, const struct sweep_options *so,
		       const char *recorded, const char *folder)
{
	cleanup_cjson cJSON *a = NULL;
	const cJSON *t;

	memset(sn, 0, sizeof(*sn));
	strvec_init(&sn->strings);
	sn->folder = folder;
	if (so->notify.n) {
		for (size_t i = 0; i < so->notify.n; i++)
			add(sn, so->notify.v[i], NULL,
			    so->notify_slack ? NOTIFY_FORMAT_SLACK : NOTIFY_FORMAT_JSON);
		return;
	}
	a = recorded ? cJSON_Parse(recorded) : NULL;
	cJSON_ArrayForEach(t, a) {
		const char *url = json_str(t, "url"), *fmt = json_str(t, "format");

		if (url)
			add(sn, url, json_str(t, "owner"),
			    fmt && !strcmp(fmt, format_name(NOTIFY_FORMAT_SLACK)) ? NOTIFY_FORMAT_SLACK
										 : NOTIFY_FORMAT_JSON);
	}
}

void sweep_notify_add_owners(struct sweep_notify *sn, const struct known_issues *k)
{
	for (size_t i = 0; k && i < k->n_owners; i++)
		for (size_t u = 0; u < k->owners[i].notify.n; u++)
			add(sn, k->owners[i].notify.v[u], k->owners[i].name,
			    k->owners[i].slack ? NOTIFY_FORMAT_SLACK : NOTIFY_FORMAT_JSON);
}

void sweep_notify_after(void *ctx, const struct report *r)
{
	struct sweep_notify *sn = ctx;
	struct notify_report nr;

	if (!sn->n)
		return;
	notify_sweep(sn->targets, sn->n, r, sn->folder, &nr);
	for (size_t i = 0; i < nr.warnings.n; i++)
		say_warning("%s", nr.warnings.v[i]);
	if (nr.delivered)
		fprintf(stderr, "notify: alarms and recoveries delivered to %zu URL(s)\n", nr.delivered);
	notify_report_release(&nr);
}

void sweep_notify_release(struct sweep_notify *sn)
{
	free(sn->targets);
	strvec_clear(&sn->strings);
	memset(sn, 0, sizeof(*sn));
}
