/* The POSTs of one sweep's notifications, all at once: libcurl's multi
 * interface runs at most NOTIFY_PARALLEL deliveries together, each under
 * the retry schedule of orchestrator/notify/notify.h, all of them within
 * NOTIFY_TOTAL_S, so several unreachable URLs cost the slowest one's
 * time, not the sum. */
#ifndef HRR_NOTIFY_NOTIFY_POST_H
#define HRR_NOTIFY_NOTIFY_POST_H

#include <stdbool.h>
#include <stddef.h>
#include <curl/curl.h>

/* How one delivery ended. */
struct notify_attempts {
	int attempts;
	long http_status; /* the last answer's, 0: none */
	char error[CURL_ERROR_SIZE];
};

struct notify_post {
	const char *url, *body, *key; /* in: the URL resolved, the document, its key */
	bool ok;                      /* out: a 2xx came */
	struct notify_attempts ar;    /* out */
};

/* Every delivery of v[0..n) made, at most NOTIFY_PARALLEL at a time; one
 * not begun when NOTIFY_TOTAL_S ran out fails without an attempt. */
void notify_post_all(struct notify_post *v, size_t n);

#endif
