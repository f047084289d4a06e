/* Alarms and recoveries after a sweep (docs/sweep.md "Notifications"):
 * the state transitions of a finished sweep's report — cases that newly
 * fail (alarm), cases that pass again (recover), GPUs newly suspect — as
 * one JSON document POSTed to each target. This header is the pure half:
 * the transitions, the document, the retry schedule, the URL as it may be
 * shown. orchestrator/notify/notify_send.h is the I/O (libcurl, the
 * delivery record in the sweep folder). */
#ifndef HRR_NOTIFY_NOTIFY_H
#define HRR_NOTIFY_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/report/report.h"
#include "orchestrator/sweep/sweep_quarantine.h"

/* What a document's "schema" says; a change that is not an addition
 * raises it. */
#define NOTIFY_SCHEMA "hrr-docker-replay.notify/1"

enum notify_format {
	NOTIFY_FORMAT_JSON,  /* the document of docs/sweep.md */
	NOTIFY_FORMAT_SLACK, /* {"text": ...}: Slack's and Mattermost's incoming webhooks */
};

/* Where a document goes. url is as written: "https://..." or "env:NAME"
 * (the URL is the variable's value when sending, so no secret sits in a
 * file). owner NULL takes every transition; an owner takes only the
 * alarms and recoveries whose known issue has that owner (the known-issues
 * file's per-owner targets). */
struct notify_target {
	const char *url;
	const char *owner;
	enum notify_format format;
};

enum notify_kind { NOTIFY_ALARM, NOTIFY_RECOVER, NOTIFY_GPU, NOTIFY_CHANGE };

/* One transition. For a GPU, case_name is NULL and gpu/unique_id/host/
 * reason say which. Strings point into the report (or the GPU notes). */
struct notify_item {
	enum notify_kind kind;
	const struct report_case *c; /* alarms and recoveries */
	const struct sweep_gpu_note *gpu;
	const struct report_changepoint *cp; /* a GPU-time change point */
	char key[160];               /* "alarm <16 hex>": what a delivery record remembers */
};

struct notify_doc {
	const struct report *r;
	const char *folder;          /* the sweep folder: links to the reports */
	struct notify_item *items;   /* alarms, recoveries, GPUs, then change points */
	size_t n;
	size_t n_alarms, n_recoveries, n_gpus, n_changes;
};

/* The transitions of r: `regressed` and `changed` cases are alarms,
 * `fixed` ones recoveries; each GPU of r's notes that the baseline's
 * notes (before, n_before; the baseline's summary.json) do not name is
 * newly suspect; each of r's GPU-time change points is announced. Pure. */
void notify_transitions(const struct report *r, const struct sweep_gpu_note *before,
			size_t n_before, const char *folder, struct notify_doc *out);
/* Keep only what t takes (its owner) and what sent (keys already
 * delivered to it) does not hold; a doc with n == 0 is not sent. */
void notify_select(struct notify_doc *d, const struct notify_target *t, const struct strvec *sent);
void notify_doc_release(struct notify_doc *d);

/* The idempotency key of d: the sweep and a hash of its transitions'
 * keys, the same however often it is computed. "<sweep>:<16 hex>". */
void notify_key(const struct notify_doc *d, struct strbuf *out);
/* The body POSTed to a target of format f (docs/sweep.md). */
void notify_render(const struct notify_doc *d, enum notify_format f, struct strbuf *out);

/* The retry schedule: a delivery makes at most NOTIFY_ATTEMPTS attempts,
 * each bounded by NOTIFY_ATTEMPT_TIMEOUT_S (NOTIFY_CONNECT_TIMEOUT_S to
 * connect), the whole delivery by NOTIFY_DEADLINE_S. */
#define NOTIFY_ATTEMPTS 4
#define NOTIFY_ATTEMPT_TIMEOUT_S 10
#define NOTIFY_CONNECT_TIMEOUT_S 5
#define NOTIFY_DEADLINE_S 30
/* All of a sweep's deliveries together: at most NOTIFY_PARALLEL at once,
 * all within NOTIFY_TOTAL_S (several unreachable URLs are not waited for
 * in turn). */
#define NOTIFY_PARALLEL 8
#define NOTIFY_TOTAL_S 60
/* Seconds to wait after failed attempt n (1-based) before the next: 1, 2, 4. */
unsigned notify_backoff_s(int attempt);
/* Whether an attempt that ended so is worth another: no answer (a
 * timeout, a refused or broken connection: http_status 0), 408, 429 and
 * 5xx; never a 2xx or another 4xx (the URL or its token is wrong). */
bool notify_should_retry(long http_status);

/* The URL as a message may show it: scheme, host and port, the rest
 * (path, query, user and password: where webhooks keep their token) as
 * "/…"; "env:NAME" as it is. Caller frees. */
char *notify_url_shown(const char *url);
/* A target's URL as written to the URL to POST to (env:NAME read now).
 * ERR_USAGE: the variable is unset or empty. Caller frees. */
int notify_url_resolve(const char *written, char **url, struct error *err)
	__attribute__((warn_unused_result));

#endif
