/* Every attempt of one sweep, for its report's attempts (JUnit's reruns,
 * a flaky case's note, the final attempt's kind and place). */
#include "orchestrator/history/history_db.h"


#include "common/cleanup.h"
#include "orchestrator/history/history_sql.h"

/* In the results' primary-key order, which is the order of its index:
 * one pass, no sort, and each case's attempts one after the other with
 * its final (highest) attempt last, so the reader needs no table of the
 * sweep's cases to find a case's attempts. */
static const char attempts_sql[] =
	"SELECT case_name, image_ref, attempt, state, outcome, fault_class, kernel, kind, gpus,"
	" gpu_uids, line_host, run_dir, message, finding_md"
	" FROM results WHERE sweep = ?1 ORDER BY case_name, image_ref, attempt";

int history_db_attempts(struct history_db *db, const char *sweep_id, history_attempt_fn fn,
			void *ctx, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db, attempts_sql, &st, err) < 0)
		return -1;
	bind_text(st, 1, sweep_id);
	while ((rc = history_step(st)) == HISTORY_ROW) {
		struct history_attempt_row row = {
			.case_name = col(st, 0), .image = col(st, 1),
			.attempt = history_col_int(st, 2), .state = col(st, 3),
			.outcome = col(st, 4), .fault_class = col(st, 5), .kernel = col(st, 6),
			.kind = col(st, 7), .gpus = col(st, 8), .gpu_uids = col(st, 9),
			.host = col(st, 10), .run_dir = col(st, 11), .message = col(st, 12),
			.finding_md = col(st, 13),
		};

		if (fn(ctx, &row) < 0)
			return error_set(err, ERR_CANCELLED, 0, "attempt listing stopped");
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "attempts", err);
}
