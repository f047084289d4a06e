#include "orchestrator/history/history_reuse.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"

void history_known_release(struct history_known *k)
{
	free(k->outcome);
	free(k->first_outcome);
	free(k->fault_class);
	free(k->kernel);
	free(k->sweep);
	free(k->folder);
	free(k->run_dir);
	free(k->case_name);
	memset(k, 0, sizeof(*k));
}

static char *dup_col(struct history_stmt *st, int i)
{
	return col(st, i) ? xstrdup(col(st, i)) : NULL;
}

int history_db_find_result(struct history_db *db, const char *digest, const char *image_id,
			   const char *run_options_fp, const struct history_reuse_on *on,
			   struct history_known *k, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	memset(k, 0, sizeof(*k));
	if (history_sql_prepare(db,
		    "SELECT r.outcome, f.outcome, r.fault_class, r.kernel, r.sweep, s.folder,"
		    " r.run_dir, r.attempt, r.case_name FROM results r JOIN sweeps s ON s.id = r.sweep"
		    " LEFT JOIN results f ON f.sweep = r.sweep AND f.case_name = r.case_name"
		    "  AND f.image_ref = r.image_ref AND f.attempt = 1"
		    " WHERE r.digest = ?1 AND r.image_id = ?2 AND r.run_options_fp = ?3"
		    /* A fleet's history holds other hosts' GPUs: the same
		     * product only, as perf_medians keys a series. */
		    "  AND (r.gfx = ?4 AND COALESCE(r.device_id, -1) = ?5"
		    "   OR (?4 IS NULL OR r.gfx IS NULL) AND r.host = ?6)"
		    "  AND r.state = 'done' AND r.attempt = (SELECT MAX(attempt) FROM results m"
		    "   WHERE m.sweep = r.sweep AND m.case_name = r.case_name"
		    "   AND m.image_ref = r.image_ref)"
		    " ORDER BY r.finished DESC LIMIT 1",
		    &st, err) < 0)
		return -1;
	bind_text(st, 1, digest);
	bind_text(st, 2, image_id);
	bind_text(st, 3, run_options_fp);
	bind_text(st, 4, on->gfx);
	history_bind_int64(st, 5, on->device_id);
	bind_text(st, 6, on->host);
	rc = history_step(st);
	if (rc == HISTORY_DONE)
		return 0;
	if (rc != HISTORY_ROW)
		return history_sql_error(db, rc, "read", err);
	k->found = true;
	k->outcome = dup_col(st, 0);
	k->first_outcome = dup_col(st, 1);
	k->fault_class = dup_col(st, 2);
	k->kernel = dup_col(st, 3);
	k->sweep = dup_col(st, 4);
	k->folder = dup_col(st, 5);
	k->run_dir = dup_col(st, 6);
	k->attempts = history_col_int(st, 7);
	k->case_name = dup_col(st, 8);
	return 0;
}

int history_db_record_bisect(struct history_db *db, const struct history_bisect *b,
			     struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db, history_dialect_sql(db, HSQL_BISECT_PUT), &st, err) < 0)
		return -1;
	bind_text(st, 1, b->id);
	bind_text(st, 2, b->good);
	bind_text(st, 3, b->bad);
	bind_text(st, 4, b->last_good);
	bind_text(st, 5, b->first_bad);
	bind_text(st, 6, b->verdict);
	bind_text(st, 7, b->answer);
	bind_text(st, 8, b->folder);
	bind_text(st, 9, b->run_options_fp);
	history_bind_int64(st, 10, b->finished);
	rc = history_step(st);
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "write bisection", err);
}
