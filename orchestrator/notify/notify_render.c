/* The document a target is sent (docs/sweep.md "Notifications"): the JSON
 * of the notify schema, or the {"text"} chat webhooks take. Pure. */
#include "orchestrator/notify/notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

static void add_clean(cJSON *o, const char *k, const char *v)
{
	cleanup_free char *c = v ? report_clean(v, false) : NULL;

	json_add_str_or_null(o, k, c);
}

/* A path in the sweep folder, or null. */
static void add_path(cJSON *o, const char *k, const char *folder, const char *rel, const char *file)
{
	cleanup_free char *p = rel ? xasprintf("%s/%s/%s", folder, rel, file) : NULL;

	add_clean(o, k, p);
}

static cJSON *signature_json(const struct report_case *c)
{
	cJSON *s;

	if (!c->sig_id)
		return cJSON_CreateNull();
	s = cJSON_CreateObject();
	add_clean(s, "id", c->sig_id);
	add_clean(s, "fault_class", c->fault_class);
	add_clean(s, "kernel_family", c->sig_family);
	return s;
}

static cJSON *known_json(const struct report_case *c)
{
	cJSON *k;

	if (!c->known_id)
		return cJSON_CreateNull();
	k = cJSON_CreateObject();
	add_clean(k, "id", c->known_id);
	add_clean(k, "link", c->known_link);
	add_clean(k, "owner", c->known_owner);
	return k;
}

static cJSON *case_json(const struct notify_doc *d, const struct report_case *c)
{
	cJSON *o = cJSON_CreateObject();

	add_clean(o, "case", c->case_name);
	add_clean(o, "image", c->image);
	add_clean(o, "status", sweep_status_name(c->status));
	add_clean(o, "outcome", c->outcome);
	add_clean(o, "previous_outcome", c->prev_outcome);
	add_clean(o, "fault_class", c->fault_class);
	add_clean(o, "kernel_name", c->kernel);
	cJSON_AddItemToObject(o, "signature", signature_json(c));
	cJSON_AddItemToObject(o, "known", known_json(c));
	add_path(o, "finding", d->folder, c->run_dir, "finding.md");
	return o;
}

/* The alarms by signature: the same fault on 30 cases is one entry. */
static cJSON *signatures_json(const struct notify_doc *d)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < d->n; i++) {
		const struct report_case *c = d->items[i].c;
		size_t cases = 0;
		bool first = true;
		cJSON *s;

		if (d->items[i].kind != NOTIFY_ALARM || !c->sig_id)
			continue;
		for (size_t k = 0; k < d->n; k++) {
			const struct report_case *o = d->items[k].c;

			if (d->items[k].kind != NOTIFY_ALARM || !o->sig_id || strcmp(o->sig_id, c->sig_id))
				continue;
			first = first && k >= i;
			cases++;
		}
		if (!first)
			continue;
		s = signature_json(c);
		cJSON_AddNumberToObject(s, "cases", (double)cases);
		cJSON_AddItemToObject(s, "known", known_json(c));
		cJSON_AddItemToArray(a, s);
	}
	return a;
}

static cJSON *gpu_json(const struct sweep_gpu_note *g)
{
	cJSON *o = cJSON_CreateObject();
	char uid[24];

	snprintf(uid, sizeof(uid), "%llu", g->unique_id);
	add_clean(o, "host", g->host[0] ? g->host : NULL);
	cJSON_AddNumberToObject(o, "gpu", g->gpu);
	add_clean(o, "unique_id", g->unique_id ? uid : NULL);
	cJSON_AddBoolToObject(o, "quarantined", g->quarantined);
	add_clean(o, "reason", g->reason);
	return o;
}

static cJSON *change_json(const struct report_changepoint *cp)
{
	cJSON *o = cJSON_CreateObject();

	add_clean(o, "case", cp->case_name);
	add_clean(o, "image", cp->image);
	add_clean(o, "gfx", cp->gfx && *cp->gfx ? cp->gfx : NULL);
	if (cp->device_id > 0)
		cJSON_AddNumberToObject(o, "device_id", (double)cp->device_id);
	else
		cJSON_AddNullToObject(o, "device_id");
	add_clean(o, "night", cp->sweep);
	cJSON_AddNumberToObject(o, "ratio", cp->ratio);
	cJSON_AddNumberToObject(o, "median_before_ms", cp->median_before);
	cJSON_AddNumberToObject(o, "median_after_ms", cp->median_after);
	cJSON_AddNumberToObject(o, "p", cp->p);
	add_clean(o, "image_id_before", cp->image_id_before);
	add_clean(o, "image_id_after", cp->image_id_after);
	return o;
}

static cJSON *document(const struct notify_doc *d)
{
	cJSON *o = cJSON_CreateObject(), *counts, *al, *re, *gp, *cps;
	cleanup_strbuf struct strbuf key = STRBUF_INIT;
	cleanup_free char *html = xasprintf("%s/report.html", d->folder);
	cleanup_free char *md = xasprintf("%s/summary.md", d->folder);

	notify_key(d, &key);
	cJSON_AddStringToObject(o, "schema", NOTIFY_SCHEMA);
	add_clean(o, "idempotency_key", key.buf);
	add_clean(o, "sweep", d->r->sweep_id);
	add_clean(o, "label", d->r->label);
	add_clean(o, "baseline", d->r->baseline);
	add_clean(o, "state", sweep_state_name(d->r->state));
	cJSON_AddNumberToObject(o, "exit", d->r->exit_code);
	add_clean(o, "report", html);
	add_clean(o, "summary", md);
	counts = cJSON_AddObjectToObject(o, "counts");
	cJSON_AddNumberToObject(counts, "alarms", (double)d->n_alarms);
	cJSON_AddNumberToObject(counts, "recoveries", (double)d->n_recoveries);
	cJSON_AddNumberToObject(counts, "suspect_gpus", (double)d->n_gpus);
	cJSON_AddNumberToObject(counts, "change_points", (double)d->n_changes);
	al = cJSON_AddArrayToObject(o, "alarms");
	re = cJSON_AddArrayToObject(o, "recoveries");
	gp = cJSON_AddArrayToObject(o, "suspect_gpus");
	cps = cJSON_AddArrayToObject(o, "change_points");
	for (size_t i = 0; i < d->n; i++) {
		const struct notify_item *it = &d->items[i];

		if (it->kind == NOTIFY_CHANGE)
			cJSON_AddItemToArray(cps, change_json(it->cp));
		else if (it->kind == NOTIFY_GPU)
			cJSON_AddItemToArray(gp, gpu_json(it->gpu));
		else
			cJSON_AddItemToArray(it->kind == NOTIFY_ALARM ? al : re, case_json(d, it->c));
	}
	cJSON *sigs = signatures_json(d);

	cJSON_AddNumberToObject(counts, "signatures", (double)cJSON_GetArraySize(sigs));
	cJSON_AddItemToObject(o, "signatures", sigs);
	return o;
}

/* At most this many transitions spelled out in a chat message. */
#define SLACK_LINES 20

/* A field from a capture, a log or a rule as Slack's text shows it, and
 * nothing more: cleaned, then '&', '<', '>' escaped as Slack requires (so
 * no "<!channel>" or "<https://…|label>" is parsed), and a word joiner after
 * the '@' of "@channel", "@here" and "@everyone" so none pings a channel. */
static void slack_field(struct strbuf *t, const char *raw)
{
	static const char *const mentions[] = { "channel", "here", "everyone" };
	cleanup_free char *clean = report_clean(raw ? raw : "", false);

	for (const char *s = clean; *s; s++) {
		if (*s == '&')
			strbuf_addstr(t, "&amp;");
		else if (*s == '<')
			strbuf_addstr(t, "&lt;");
		else if (*s == '>')
			strbuf_addstr(t, "&gt;");
		else
			strbuf_addch(t, *s);
		if (*s != '@')
			continue;
		for (size_t m = 0; m < sizeof(mentions) / sizeof(*mentions); m++)
			if (!strncasecmp(s + 1, mentions[m], strlen(mentions[m])))
				strbuf_addstr(t, "\xe2\x81\xa0"); /* U+2060 WORD JOINER */
	}
}

/* "case @ image: before -> now" */
static void slack_case(struct strbuf *t, const struct report_case *c, const char *dash)
{
	slack_field(t, c->case_name);
	strbuf_addstr(t, " @ ");
	slack_field(t, c->image);
	strbuf_addstr(t, ": ");
	slack_field(t, c->prev_outcome ? c->prev_outcome : "-");
	strbuf_addstr(t, " -> ");
	slack_field(t, c->outcome ? c->outcome : dash);
}

/* "GPU-TIME CHANGE case @ image (gfx942): +10.0% from sweep S (median 40.0
 * -> 44.0 ms, p 0.005; image ID A -> B)" */
static void slack_change(struct strbuf *t, const struct report_changepoint *cp)
{
	strbuf_addstr(t, "\nGPU-TIME CHANGE ");
	slack_field(t, cp->case_name);
	strbuf_addstr(t, " @ ");
	slack_field(t, cp->image);
	if (cp->gfx && *cp->gfx) {
		strbuf_addstr(t, " (");
		slack_field(t, cp->gfx);
		strbuf_addch(t, ')');
	}
	strbuf_addf(t, ": %+.1f%% from sweep ", 100 * (cp->ratio - 1));
	slack_field(t, cp->sweep);
	strbuf_addf(t, " (median %.1f -> %.1f ms, p %.2g; image ID ", cp->median_before,
		    cp->median_after, cp->p);
	slack_field(t, cp->image_id_before ? cp->image_id_before : "-");
	strbuf_addstr(t, " -> ");
	slack_field(t, cp->image_id_after ? cp->image_id_after : "-");
	strbuf_addch(t, ')');
}

static void slack_line(struct strbuf *t, const struct notify_item *it)
{
	const struct report_case *c = it->c;

	if (it->kind == NOTIFY_CHANGE) {
		slack_change(t, it->cp);
	} else if (it->kind == NOTIFY_GPU) {
		strbuf_addstr(t, "\nGPU newly suspect: ");
		slack_field(t, it->gpu->host);
		strbuf_addf(t, "%sGPU %d: ", it->gpu->host[0] ? " " : "", it->gpu->gpu);
		slack_field(t, it->gpu->reason);
	} else if (it->kind == NOTIFY_ALARM) {
		strbuf_addf(t, "\nALARM %s ", sweep_status_name(c->status));
		slack_case(t, c, "no replay");
		if (c->fault_class) {
			strbuf_addch(t, ' ');
			slack_field(t, c->fault_class);
		}
		if (c->sig_family) {
			strbuf_addch(t, ' ');
			slack_field(t, c->sig_family);
		}
		if (c->sig_id) {
			strbuf_addf(t, " (%s ", c->known_id ? "known" : "untriaged");
			slack_field(t, c->known_id ? c->known_id : c->sig_id);
			strbuf_addch(t, ')');
		}
	} else {
		strbuf_addstr(t, "\nRECOVERED ");
		slack_case(t, c, "-");
	}
}

static void slack_text(const struct notify_doc *d, struct strbuf *t)
{
	cleanup_strbuf struct strbuf key = STRBUF_INIT;

	notify_key(d, &key);
	strbuf_addstr(t, "hrr-docker-replay sweep ");
	slack_field(t, d->r->sweep_id);
	strbuf_addstr(t, " (label ");
	slack_field(t, d->r->label);
	strbuf_addf(t, "): %zu alarm(s), %zu recover(ies), %zu GPU(s) newly suspect",
		    d->n_alarms, d->n_recoveries, d->n_gpus);
	if (d->n_changes)
		strbuf_addf(t, ", %zu GPU-time change point(s)", d->n_changes);
	for (size_t i = 0; i < d->n && i < SLACK_LINES; i++)
		slack_line(t, &d->items[i]);
	if (d->n > SLACK_LINES)
		strbuf_addf(t, "\n… and %zu more", d->n - SLACK_LINES);
	strbuf_addstr(t, "\nReport: ");
	slack_field(t, d->folder);
	strbuf_addstr(t, "/report.html\nidempotency key ");
	slack_field(t, key.buf);
}

void notify_render(const struct notify_doc *d, enum notify_format f, struct strbuf *out)
{
	cleanup_cjson cJSON *o = NULL;
	cleanup_free char *text = NULL;

	if (f == NOTIFY_FORMAT_SLACK) {
		cleanup_strbuf struct strbuf t = STRBUF_INIT;

		slack_text(d, &t);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "text", t.buf);
	} else {
		o = document(d);
	}
	text = cJSON_PrintUnformatted(o);
	strbuf_addstr(out, text);
}

