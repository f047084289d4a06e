#include "orchestrator/notify/notify_send.h"

#include <errno.h>
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

struct attempt_result {
	int attempts;
	long http_status; /* the last answer's, 0: none */
	char error[CURL_ERROR_SIZE];
};

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (s > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* One POST per attempt until a 2xx, an answer not worth retrying, the
 * attempts or the deadline run out. */
static bool post(const char *url, const char *body, const char *key, struct attempt_result *ar)
{
	cleanup_free char *idem = xasprintf("Idempotency-Key: %s", key);
	struct curl_slist *h = NULL;
	CURL *c = curl_easy_init();
	double end = now_s() + NOTIFY_DEADLINE_S;
	bool ok = false;

	memset(ar, 0, sizeof(*ar));
	if (!c) {
		snprintf(ar->error, sizeof(ar->error), "curl_easy_init failed");
		return false;
	}
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, idem);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ar->error);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)NOTIFY_CONNECT_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "hrr-docker-replay-notify");
	for (int a = 1; a <= NOTIFY_ATTEMPTS; a++) {
		double left = end - now_s();
		CURLcode rc;

		if (left < 1)
			break;
		curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)(left < NOTIFY_ATTEMPT_TIMEOUT_S
							    ? left : NOTIFY_ATTEMPT_TIMEOUT_S));
		ar->error[0] = '\0';
		ar->attempts = a;
		ar->http_status = 0;
		rc = curl_easy_perform(c);
		if (rc == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &ar->http_status);
		else if (!ar->error[0])
			snprintf(ar->error, sizeof(ar->error), "%s", curl_easy_strerror(rc));
		if (rc == CURLE_OK && ar->http_status >= 200 && ar->http_status < 300) {
			ok = true;
			break;
		}
		if (!notify_should_retry(rc == CURLE_OK ? ar->http_status : 0))
			break;
		if (a < NOTIFY_ATTEMPTS && end - now_s() > notify_backoff_s(a) + 1)
			sleep_s(notify_backoff_s(a));
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return ok;
}

static void record_add(cJSON *rec, const char *tid, const char *shown, const char *key,
		       const struct notify_doc *d, bool ok, const struct attempt_result *ar)
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
static void warn_failed(struct notify_report *out, const char *shown, const struct attempt_result *ar)
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

static void send_one(const struct notify_target *t, const struct report *r, const char *folder,
		     const struct sweep_gpu_note *before, size_t n_before, cJSON *rec,
		     struct notify_report *out)
{
	cleanup_free char *shown = notify_url_shown(t->url), *url = NULL;
	cleanup_strvec struct strvec sent = STRVEC_INIT;
	cleanup_strbuf struct strbuf body = STRBUF_INIT, key = STRBUF_INIT;
	struct notify_doc d;
	struct attempt_result ar;
	struct error err;
	char tid[20];
	bool ok;

	target_id(t, tid);
	record_sent(rec, tid, &sent);
	notify_transitions(r, before, n_before, folder, &d);
	notify_select(&d, t, &sent);
	if (d.n == 0) {
		out->unchanged++;
		notify_doc_release(&d);
		return;
	}
	if (notify_url_resolve(t->url, &url, &err) < 0) {
		cleanup_free char *w = xasprintf("notify %s; not delivered (the sweep's result is unchanged)",
						 err.msg);

		strvec_push(&out->warnings, w);
		out->failed++;
		notify_doc_release(&d);
		return;
	}
	notify_key(&d, &key);
	notify_render(&d, t->format, &body);
	ok = post(url, body.buf, key.buf, &ar);
	record_add(rec, tid, shown, key.buf, &d, ok, &ar);
	if (ok)
		out->delivered++;
	else
		warn_failed(out, shown, &ar);
	notify_doc_release(&d);
}

void notify_sweep(const struct notify_target *targets, size_t n, const struct report *r,
		  const char *folder, struct notify_report *out)
{
	struct sweep_gpu_note before[GPU_MAX];
	size_t n_before;
	cleanup_cjson cJSON *rec = NULL;
	cleanup_free char *path = NULL, *text = NULL;
	struct error err;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->warnings);
	if (!n)
		return;
	n_before = baseline_gpus(r, folder, before);
	rec = record_read(folder);
	for (size_t i = 0; i < n; i++)
		send_one(&targets[i], r, folder, before, n_before, rec, out);
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
