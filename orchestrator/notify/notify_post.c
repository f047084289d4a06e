#include "orchestrator/notify/notify_post.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/notify/notify.h"

/* Where one delivery stands. */
struct post_state {
	CURL *c;
	struct curl_slist *h;
	char *idem;
	double end;     /* its deadline: NOTIFY_DEADLINE_S after it began, within the total */
	double next_at; /* when its next attempt may begin (after a backoff) */
	bool begun, busy, done;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

static bool prepare(struct notify_post *p, struct post_state *st, size_t i)
{
	st->c = curl_easy_init();
	if (!st->c) {
		snprintf(p->ar.error, sizeof(p->ar.error), "curl_easy_init failed");
		return false;
	}
	st->idem = xasprintf("Idempotency-Key: %s", p->key);
	st->h = curl_slist_append(NULL, "Content-Type: application/json");
	st->h = curl_slist_append(st->h, st->idem);
	curl_easy_setopt(st->c, CURLOPT_URL, p->url);
	curl_easy_setopt(st->c, CURLOPT_HTTPHEADER, st->h);
	curl_easy_setopt(st->c, CURLOPT_POSTFIELDS, p->body);
	curl_easy_setopt(st->c, CURLOPT_POSTFIELDSIZE, (long)strlen(p->body));
	curl_easy_setopt(st->c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(st->c, CURLOPT_ERRORBUFFER, p->ar.error);
	curl_easy_setopt(st->c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(st->c, CURLOPT_CONNECTTIMEOUT, (long)NOTIFY_CONNECT_TIMEOUT_S);
	curl_easy_setopt(st->c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(st->c, CURLOPT_USERAGENT, "hrr-docker-replay-notify");
	curl_easy_setopt(st->c, CURLOPT_PRIVATE, (void *)(uintptr_t)i);
	return true;
}

/* The next attempt of one delivery, or its end when its time ran out. */
static bool begin_attempt(CURLM *m, struct notify_post *p, struct post_state *st, double now)
{
	double left = st->end - now;

	if (left < 1) {
		if (!p->ar.attempts)
			snprintf(p->ar.error, sizeof(p->ar.error),
				 "not attempted: the %d s for all deliveries ran out", NOTIFY_TOTAL_S);
		st->done = true;
		return false;
	}
	curl_easy_setopt(st->c, CURLOPT_TIMEOUT,
			 (long)(left < NOTIFY_ATTEMPT_TIMEOUT_S ? left : NOTIFY_ATTEMPT_TIMEOUT_S));
	p->ar.error[0] = '\0';
	p->ar.attempts++;
	p->ar.http_status = 0;
	curl_multi_add_handle(m, st->c);
	st->busy = true;
	return true;
}

/* An attempt ended: delivered, given up, or another after its backoff. */
static void end_attempt(CURLM *m, struct notify_post *p, struct post_state *st, CURLcode rc)
{
	double now = now_s();
	int a = p->ar.attempts;

	curl_multi_remove_handle(m, st->c);
	st->busy = false;
	if (rc == CURLE_OK)
		curl_easy_getinfo(st->c, CURLINFO_RESPONSE_CODE, &p->ar.http_status);
	else if (!p->ar.error[0])
		snprintf(p->ar.error, sizeof(p->ar.error), "%s", curl_easy_strerror(rc));
	if (rc == CURLE_OK && p->ar.http_status >= 200 && p->ar.http_status < 300) {
		p->ok = true;
		st->done = true;
		return;
	}
	if (!notify_should_retry(rc == CURLE_OK ? p->ar.http_status : 0) || a >= NOTIFY_ATTEMPTS ||
	    st->end - now <= notify_backoff_s(a) + 1) {
		st->done = true;
		return;
	}
	st->next_at = now + notify_backoff_s(a);
}

/* Begins what may begin now: retries whose backoff is over, then new
 * deliveries, while fewer than NOTIFY_PARALLEL transfers run. How many
 * are not done yet. */
static size_t schedule(CURLM *m, struct notify_post *v, struct post_state *st, size_t n,
		       double all_end, size_t *running)
{
	double now = now_s();
	size_t open = 0;

	for (size_t i = 0; i < n; i++) {
		if (st[i].done || st[i].busy)
			continue;
		if (!st[i].begun) {
			if (*running >= NOTIFY_PARALLEL)
				continue;
			st[i].begun = true;
			st[i].end = now + NOTIFY_DEADLINE_S < all_end ? now + NOTIFY_DEADLINE_S : all_end;
			st[i].done = !prepare(&v[i], &st[i], i);
			st[i].next_at = now;
		}
		if (!st[i].done && st[i].next_at <= now && *running < NOTIFY_PARALLEL &&
		    begin_attempt(m, &v[i], &st[i], now))
			(*running)++;
	}
	for (size_t i = 0; i < n; i++)
		open += !st[i].done;
	return open;
}

void notify_post_all(struct notify_post *v, size_t n)
{
	CURLM *m = curl_multi_init();
	struct post_state *st = xcalloc(n ? n : 1, sizeof(*st));
	double all_end = now_s() + NOTIFY_TOTAL_S;
	size_t running = 0;

	for (size_t i = 0; i < n; i++) {
		memset(&v[i].ar, 0, sizeof(v[i].ar));
		v[i].ok = false;
		if (!m)
			snprintf(v[i].ar.error, sizeof(v[i].ar.error), "curl_multi_init failed");
	}
	while (m && schedule(m, v, st, n, all_end, &running)) {
		CURLMsg *msg;
		int still, left;

		curl_multi_perform(m, &still);
		while ((msg = curl_multi_info_read(m, &left))) {
			void *priv = NULL;
			size_t i;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
			i = (size_t)(uintptr_t)priv;
			end_attempt(m, &v[i], &st[i], msg->data.result);
			running--;
		}
		curl_multi_poll(m, NULL, 0, 200, NULL);
	}
	for (size_t i = 0; i < n; i++) {
		if (st[i].busy)
			curl_multi_remove_handle(m, st[i].c);
		if (st[i].c)
			curl_easy_cleanup(st[i].c);
		curl_slist_free_all(st[i].h);
		free(st[i].idem);
	}
	free(st);
	if (m)
		curl_multi_cleanup(m);
}
