/* The site's pure helpers (docs/sweep.md "The history site"): the CSP hash
 * of its one stylesheet, page names, relative links, kernel families and
 * the per-row statuses of a grid. No I/O. */
#ifndef HRR_REPORT_SITE_TEXT_H
#define HRR_REPORT_SITE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

/* SHA-256 of data as CSP wants it: "sha256-<base64>". None of the chosen
 * libraries exposes SHA-256, and CSP takes no other hash. */
void site_csp_hash(const char *data, size_t len, struct strbuf *out);

/* FNV-1a 64 over the parts (each followed by a 0 byte). */
uint64_t site_fnv(const char *const *parts, size_t n);
/* What the site's manifest keeps of a page to tell a changed one: a
 * 64-bit hash of data, eight bytes at a time. */
uint64_t site_content_hash(const char *data, size_t len);
/* "<prefix>-<16 hex of the FNV of parts>.html": a page's file name from
 * archive-controlled text, never that text itself. */
void site_page_name(const char *prefix, const char *const *parts, size_t n, struct strbuf *out);

/* The href from directory from_dir to target (both absolute, canonical).
 * A first segment with a ':' gets "./" so the link never reads as a
 * scheme. */
void site_relative_href(const char *from_dir, const char *target, struct strbuf *out);
/* A run_dir as the results file says it, fit to join to its sweep folder:
 * relative, no "..", no empty segment, no control byte. */
bool site_run_dir_ok(const char *run_dir);

/* The project's one kernel family (orchestrator/finding/kernel_family.h),
 * or "-" when there is none. Appends to out. */
void site_kernel_family(const char *kernel, struct strbuf *out);

enum site_outcome {
	SO_MISSING, /* no result in that sweep */
	SO_NONE,    /* a result without a replay: blocked, error, needs-confirm */
	SO_PASS, SO_MAF, SO_FAIL, SO_ABORT, SO_HANG, SO_UNKNOWN,
	SO__COUNT
};
enum site_outcome site_outcome_parse(const char *state, const char *outcome);
const char *site_outcome_name(enum site_outcome o); /* "PASS", "none", "missing" */

enum site_status {
	SS_MISSING, SS_NONE, SS_PASS, SS_FIXED, SS_FLAKY, SS_REGRESSED, SS_FAIL,
	SS__COUNT
};
const char *site_status_name(enum site_status s);

/* One grid row's cells, oldest sweep first: regressed = not PASS after a
 * PASS, fixed = PASS after a failure, flaky = PASS on a retry after a
 * failed replay; first[i] marks the row's first failure in the window. */
void site_row_statuses(const enum site_outcome *o, const bool *flaky, size_t n,
		       enum site_status *status, bool *first);

#endif
