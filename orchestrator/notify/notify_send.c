#include "orchestrator/notify/notify_send.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <curl/curl.h>
#include <cjson/cJSON.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/json.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/notify/notify_post.h"

#define RECORD_MAX (16u << 20)

/* The baseline's quarantined and suspect GPUs, from its summary.json in
 * the folder beside this one (sweep folders of a label are siblings). */
static size_t baseline_gpus(const struct report *r, const char *folder,
			    struct sweep_gpu_note *out)
{
	cleanup_free char *parent = xstrdup(folder), *path = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	char *slash = strrchr(parent, '/');
	const cJSON *g;
	size_t n = 0;

	if (!r->baseline || !slash || strchr(r->baseline, '/'))
		return 0;
	*slash = '\0';
	path = xasprintf("%s/%s/summary.json", parent, r->baseline);
	if (fs_read_small_file(path, 64u << 20, &text, ERROR_DISCARD) < 0)
		return 0;
	j = cJSON_Parse(text.buf);
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(j, "suspect_gpus")) {
		const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(g, "gpu");
		const char *uid = json_str(g, "unique_id"), *host = json_str(g, "host");
		struct sweep_gpu_note *o;

		if (n == GPU_MAX || !cJSON_IsNumber(gpu))
			continue;
		o = &out[n++];
		memset(o, 0, sizeof(*o));
		o->gpu = gpu->valueint;
		o->unique_id = uid ? strtoull(uid, NULL, 10) : 0;
		snprintf(o->host, sizeof(o->host), "%s", host ? host : "");
	}
	return n;
}

/* Who a delivery was for: the target as written, its owner and format. */
static void target_id(const struct notify_target *t, char out[20])
{
	unsigned long long h = TEXT_FNV1A64_INIT;
	const char *owner = t->owner ? t->owner : "";

	h = text_fnv1a64(h, t->url, strlen(t->url) + 1);
	h = text_fnv1a64(h, owner, strlen(owner) + 1);
	h = text_fnv1a64(h, &t->format, sizeof(t->format));
	snprintf(out, 20, "%016llx", h);
}

/* The record: {"deliveries": [{"target", "url", "key", "items", "delivered",
 * "attempts", "http_status", "at", "error"?}, ...]}; a fresh one when
 * there is none or it cannot be trusted. */
static cJSON *record_read(const char *folder)
{
	cleanup_free char *path = xasprintf("%s/%s", folder, NOTIFY_RECORD_FILE);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cJSON *j = NULL;

	if (fs_read_private_file(path, RECORD_MAX, &text, ERROR_DISCARD) == 0)
		j = cJSON_Parse(text.buf);
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "deliveries"))) {
		cJSON_Delete(j);
		j = cJSON_CreateObject();
		cJSON_AddArrayToObject(j, "deliveries");
	}
	return j;
}

static void record_sent(const cJSON *rec, const char *tid, struct strvec *sent)
{
	const cJSON *d, *it;

	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(rec, "deliveries")) {
		const char *t = json_str(d, "target");

		if (!t || strcmp(t, tid) || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "delivered")))
			continue;
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(d, "items"))
			if (cJSON_IsString(it))
				strvec_push(sent, it->valuestring);
	}
}

static void record_add(cJSON *rec, const char *tid, const char *shown, const char *key,
		       const struct notify_doc *d, bool ok, const struct notify_attempts *ar)
{
	cJSON *e = cJSON_CreateObject(), *items;

	cJSON_AddStringToObject(e, "target", tid);
	cJSON_AddStringToObject(e, "url", shown);
	cJSON_AddStringToObject(e, "key", key);
	items = cJSON_AddArrayToObject(e, "items");
	for (size_t i = 0; i < d->n; i++)
		cJSON_AddItemToArray(items, cJSON_CreateString(d->items[i].key));
	cJSON_AddBoolToObject(e, "delivered", ok);
	cJSON_AddNumberToObject(e, "attempts", ar->attempts);
	cJSON_AddNumberToObject(e, "http_status", (double)ar->http_status);
	cJSON_AddNumberToObject(e, "at", (double)time(NULL));
	if (!ok)
		cJSON_AddStringToObject(e, "error", ar->error[0] ? ar->error : "refused");
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(rec, "deliveries"), e);
}

/* Why a delivery failed, in one line for the caller to print. */
static void warn_failed(struct notify_report *out, const char *shown, const struct notify_attempts *ar)
{
	cleanup_free char *w = NULL;

	if (ar->http_status)
		w = xasprintf("notify %s: answered HTTP %ld after %d attempt(s); not delivered "
			      "(the sweep's result is unchanged)",
			      shown, ar->http_status, ar->attempts);
	else
		w = xasprintf("notify %s: %s after %d attempt(s); not delivered "
			      "(the sweep's result is unchanged)",
			      shown, ar->error[0] ? ar->error : "no answer", ar->attempts);
	strvec_push(&out->warnings, w);
	out->failed++;
}

/* One target's delivery: what it is sent, and how it went. */
struct delivery {
	struct notify_doc d;
	char tid[20];
	char *shown, *url;
	struct strbuf body, key;
};

/* Target t's document, when it has something new and a URL; false when
 * there is nothing to POST (counted in out). */
static bool prepare(const struct notify_target *t, const struct report *r, const char *folder,
		    const struct sweep_gpu_note *before, size_t n_before, const cJSON *rec,
		    struct delivery *dl, struct notify_report *out)
{
	cleanup_strvec struct strvec sent = STRVEC_INIT;
	struct error err;

	target_id(t, dl->tid);
	record_sent(rec, dl->tid, &sent);
	notify_transitions(r, before, n_before, folder, &dl->d);
	notify_select(&dl->d, t, &sent);
	if (dl->d.n == 0) {
		out->unchanged++;
		return false;
	}
	if (notify_url_resolve(t->url, &dl->url, &err) < 0) {
		cleanup_free char *w = xasprintf("notify %s; not delivered (the sweep's result is unchanged)",
						 err.msg);

		strvec_push(&out->warnings, w);
		out->failed++;
		return false;
	}
	dl->shown = notify_url_shown(t->url);
	strbuf_init(&dl->body, 0);
	strbuf_init(&dl->key, 0);
	notify_key(&dl->d, &dl->key);
	notify_render(&dl->d, t->format, &dl->body);
	return true;
}

/* Every target's document POSTed at once (notify_post_all), then recorded
 * and counted in the targets' order. */
static void deliver(const struct notify_target *targets, size_t n, const struct report *r,
		    const char *folder, cJSON *rec, struct notify_report *out)
{
	struct sweep_gpu_note before[GPU_MAX];
	size_t n_before = baseline_gpus(r, folder, before), k = 0;
	struct delivery *dl = xcalloc(n, sizeof(*dl));
	struct notify_post *posts = xcalloc(n, sizeof(*posts));

	for (size_t i = 0; i < n; i++) {
		if (!prepare(&targets[i], r, folder, before, n_before, rec, &dl[k], out)) {
			notify_doc_release(&dl[k].d);
			free(dl[k].url);
			memset(&dl[k], 0, sizeof(dl[k]));
			continue;
		}
		posts[k] = (struct notify_post){ .url = dl[k].url, .body = dl[k].body.buf,
						 .key = dl[k].key.buf };
		k++;
	}
	notify_post_all(posts, k);
	for (size_t i = 0; i < k; i++) {
		record_add(rec, dl[i].tid, dl[i].shown, dl[i].key.buf, &dl[i].d, posts[i].ok,
			   &posts[i].ar);
		if (posts[i].ok)
			out->delivered++;
		else
			warn_failed(out, dl[i].shown, &posts[i].ar);
		notify_doc_release(&dl[i].d);
		free(dl[i].shown);
		free(dl[i].url);
		strbuf_release(&dl[i].body);
		strbuf_release(&dl[i].key);
	}
	free(posts);
	free(dl);
}

void notify_sweep(const struct notify_target *targets, size_t n, const struct report *r,
		  const char *folder, struct notify_report *out)
{
	cleanup_cjson cJSON *rec = NULL;
	cleanup_free char *path = NULL, *text = NULL;
	struct error err;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->warnings);
	if (!n)
		return;
	rec = record_read(folder);
	deliver(targets, n, r, folder, rec, out);
	if (!out->delivered && !out->failed)
		return;
	path = xasprintf("%s/%s", folder, NOTIFY_RECORD_FILE);
	text = cJSON_Print(rec);
	if (fs_write_atomic(path, text, strlen(text), 0600, &err) < 0) {
		cleanup_free char *w = xasprintf("notify: %s: a resume may announce again", err.msg);

		strvec_push(&out->warnings, w);
	}
}

void notify_report_release(struct notify_report *nr)
{
	strvec_clear(&nr->warnings);
}
