/* `history known`: each rule of the known-issues file against the
 * failures of the last sweeps, matched now with the rules as they are (a
 * rule added today counts last week's failures too): how many failures
 * (a case and image in a sweep), cases and sweeps it matches, when it was
 * last seen; the rules that matched nothing ("maybe fixed") and those past
 * their expiry (docs/sweep.md "Known issues"). */
#ifndef HRR_HISTORY_HISTORY_KNOWN_H
#define HRR_HISTORY_HISTORY_KNOWN_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/history/history_db.h"

/* Markdown (or JSON when json) over the last `last` sweeps of label
 * (NULL: any) into out; now decides which rules are expired. */
int history_known_report(struct history_db *db, const struct known_issues *k, const char *label,
			 int last, long long now, bool json, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

/* `history remark`: the failures of the last `last` sweeps of label (NULL:
 * any) marked again with the rules as they are at now, after a rule
 * changed: the history only (the reports regenerated from it, by `sweep
 * --merge` or the site, follow). With dry_run the counts, nothing
 * written. */
struct history_remark {
	size_t failures;          /* attempts with a signature read */
	size_t known, unknown;    /* newly marked, no longer marked */
	size_t other;             /* marked with another issue (or its link or owner changed) */
};
int history_remark(struct history_db *db, const struct known_issues *k, const char *label,
		   int last, long long now, bool dry_run, struct history_remark *out,
		   struct error *err) __attribute__((warn_unused_result));

#endif
