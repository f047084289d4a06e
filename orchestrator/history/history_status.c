/* Questions to the history database: the baseline, statuses, trends,
 * pruning. Statuses are computed in SQL from the final attempt of each
 * case (docs/sweep.md "Statuses"). */
#include "orchestrator/history/history_db.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"

int history_db_has_sweep(struct history_db *db, const char *id, bool *known, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db, "SELECT 1 FROM sweeps WHERE id = ?1", &st, err) < 0)
		return -1;
	bind_text(st, 1, id);
	rc = history_step(st);
	*known = rc == HISTORY_ROW;
	return rc == HISTORY_ROW || rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read", err);
}

int history_db_previous(struct history_db *db, const char *label, const char *sweep_id,
			char **baseline, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	*baseline = NULL;
	if (history_sql_prepare(db,
		    "WITH me AS (SELECT started_us, host FROM sweeps WHERE id = ?2)"
		    " SELECT id FROM sweeps WHERE label = ?1 AND state = 'finished' AND id != ?2"
		    " AND started_us <= COALESCE((SELECT started_us FROM me), 1e18)"
		    " AND (host IS NULL OR (SELECT host FROM me) IS NULL"
		    "  OR host = (SELECT host FROM me))"
		    " ORDER BY started_us DESC, id DESC LIMIT 1",
		    &st, err) < 0)
		return -1;
	bind_text(st, 1, label);
	bind_text(st, 2, sweep_id);
	rc = history_step(st);
	if (rc == HISTORY_ROW)
		*baseline = xstrdup(col(st, 0));
	return rc == HISTORY_ROW || rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read", err);
}

/* ?1 = this sweep, ?2 = the baseline (NULL: none). The final attempt of a
 * case is its highest; "failed" counts earlier replays that did not PASS,
 * so an infrastructure error retried by --resume is not flakiness.
 * Each planned case finds its final attempts, in this sweep and in the
 * baseline, and its tries by seeks in the results' primary key: no table
 * of the two sweeps' results is built in memory and searched once per
 * case (that grew the sweep parent by hundreds of bytes a case, in time
 * quadratic in the cases). Only the ORDER BY's sort holds rows, within
 * SQLite's cache size; history_db_statuses_unordered has none. */
#define FINAL_ATTEMPT(alias, sweep, of)                                                        \
	" LEFT JOIN results " alias " ON " alias ".sweep = " sweep                                \
	" AND " alias ".case_name = " of ".case_name AND " alias ".image_ref = " of ".image_ref"   \
	" AND " alias ".attempt = (SELECT MAX(x.attempt) FROM results x WHERE x.sweep = " sweep  \
	"  AND x.case_name = " of ".case_name AND x.image_ref = " of ".image_ref)"
#define TRIES(what)                                                                            \
	"(SELECT " what " FROM results t WHERE t.sweep = ?1 AND t.case_name = p.case_name"        \
	" AND t.image_ref = p.image_ref)"

#define STATUS_SQL                                                                             \
	"SELECT p.case_name, p.image_ref, c.image_id, c.outcome, c.fault_class, c.kernel," \
	"  b.outcome, c.run_dir, c.message, c.gpus, " TRIES("COUNT(*)") ", COALESCE(c.duration, 0)," \
	"  CASE" \
	"   WHEN c.state IS NULL THEN 'missing'" \
	"   WHEN c.state = 'error' THEN 'error'" \
	"   WHEN c.state = 'blocked' THEN 'blocked'" \
	"   WHEN c.state = 'needs-confirm' THEN 'needs-confirm'" \
	"   WHEN c.outcome = 'PASS' AND " \
	TRIES("SUM(CASE WHEN t.state = 'done' AND t.outcome IS DISTINCT FROM 'PASS'" \
	      " THEN 1 ELSE 0 END)") " > 0 THEN 'flaky'" \
	"   WHEN b.state IS NULL OR b.state != 'done' THEN 'new'" \
	"   WHEN c.outcome = 'PASS' AND b.outcome = 'PASS' THEN 'pass'" \
	"   WHEN b.outcome = 'PASS' THEN 'regressed'" \
	"   WHEN c.outcome = 'PASS' THEN 'fixed'" \
	"   WHEN c.outcome IS NOT DISTINCT FROM b.outcome" \
	"    AND c.fault_class IS NOT DISTINCT FROM b.fault_class" \
	"    AND c.kernel IS NOT DISTINCT FROM b.kernel THEN 'still-failing'" \
	"   WHEN c.classifier_version IS DISTINCT FROM b.classifier_version THEN 'reclassified'" \
	"   ELSE 'changed' END," \
	"  p.idx AS ord, c.sig_id, c.sig_family, c.sig_evidence, c.known_id, c.known_link," \
	"  c.known_owner" \
	" FROM planned p" \
	FINAL_ATTEMPT("c", "?1", "p") \
	FINAL_ATTEMPT("b", "?2", "p") \
	" WHERE p.sweep = ?1" \
	" UNION ALL" \
	" SELECT bp.case_name, bp.image_ref, NULL, NULL, NULL, NULL, b.outcome, NULL, NULL, NULL," \
	"  0, 0, 'gone', 1000000000 + bp.idx, NULL, NULL, NULL, NULL, NULL, NULL" \
	" FROM planned bp" \
	FINAL_ATTEMPT("b", "?2", "bp") \
	" WHERE bp.sweep = ?2 AND NOT EXISTS (SELECT 1 FROM planned p WHERE p.sweep = ?1" \
	"  AND p.case_name = bp.case_name AND p.image_ref = bp.image_ref)"

static const char status_sql[] = STATUS_SQL " ORDER BY ord";
static const char status_unordered_sql[] = STATUS_SQL;

static int statuses(struct history_db *db, const char *sql, const char *sweep_id,
		    const char *baseline, history_status_fn fn, void *ctx, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db, sql, &st, err) < 0)
		return -1;
	bind_text(st, 1, sweep_id);
	bind_text(st, 2, baseline);
	while ((rc = history_step(st)) == HISTORY_ROW) {
		int s = sweep_status_parse(col(st, 12));
		struct history_status_row row = {
			.case_name = col(st, 0), .image = col(st, 1), .image_id = col(st, 2),
			.outcome = col(st, 3), .fault_class = col(st, 4), .kernel = col(st, 5),
			.prev_outcome = col(st, 6), .run_dir = col(st, 7), .message = col(st, 8),
			.gpus = col(st, 9), .attempts = history_col_int(st, 10),
			.duration_s = history_col_double(st, 11),
			.status = s < 0 ? ST_ERROR : (enum sweep_status)s,
			.sig_id = col(st, 14), .sig_family = col(st, 15), .sig_evidence = col(st, 16),
			.known_id = col(st, 17), .known_link = col(st, 18), .known_owner = col(st, 19),
			.ord = history_col_int64(st, 13),
		};

		if (fn(ctx, &row) < 0)
			return error_set(err, ERR_CANCELLED, 0, "status listing stopped");
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "statuses", err);
}

int history_db_statuses(struct history_db *db, const char *sweep_id, const char *baseline,
			history_status_fn fn, void *ctx, struct error *err)
{
	return statuses(db, status_sql, sweep_id, baseline, fn, ctx, err);
}

int history_db_statuses_unordered(struct history_db *db, const char *sweep_id,
				  const char *baseline, history_status_fn fn, void *ctx,
				  struct error *err)
{
	return statuses(db, status_unordered_sql, sweep_id, baseline, fn, ctx, err);
}

/* ?1 label (NULL: any), ?2 the last N sweeps, ?3 host (NULL: any): oldest
 * first.
 * "x BETWEEN COALESCE(?, '') AND COALESCE(?, x'')" is "x = ?, or any text
 * when ? is NULL" (text sorts below every blob) in a form the planner
 * serves from an index, which "? IS NULL OR x = ?" is not. */
const char history_trend_sweeps_sql[] =
	"SELECT id, label, started FROM (SELECT id, label, started, started_us FROM sweeps"
	"  WHERE label BETWEEN COALESCE(?1, '') AND COALESCE(?1, x'')"
	"  AND (?3 IS NULL OR host = ?3)"
	"  ORDER BY started_us DESC, id DESC LIMIT ?2) ORDER BY started_us, id";

/* ?1 one of those sweeps, ?2 case (NULL: every case): every attempt, in
 * the order of the index results_trend, which holds all these columns.
 * One sweep at a time, the rows come out in the trend's order with no
 * sort and no lookup in the table; a case's final attempt is its first
 * row (attempt DESC), so there is no subquery per row. */
const char history_trend_results_sql[] =
	"SELECT case_name, image_ref, state, outcome, fault_class, kernel, attempt"
	" FROM results WHERE sweep = ?1"
	" AND case_name BETWEEN COALESCE(?2, '') AND COALESCE(?2, x'')"
	" ORDER BY case_name, image_ref, attempt DESC";

/* The (case, image) last listed, kept past the next step (which frees the
 * statement's text): the rows after it that name it again are its earlier
 * attempts. */
struct trend_last {
	struct strbuf case_name, image;
	bool any;
};

static bool trend_listed(const struct trend_last *l, struct history_stmt *st, int o)
{
	return l->any && !strcmp(l->case_name.buf, col(st, o)) &&
	       !strcmp(l->image.buf, col(st, o + 1));
}

/* A row of st under the sweep's columns, which are read once a sweep; the
 * result's columns from column o on. */
static int trend_emit(struct trend_last *l, const struct history_trend_row *sweep,
		      struct history_stmt *st, int o, history_trend_fn fn, void *ctx,
		      struct error *err)
{
	struct history_trend_row row = *sweep;

	row.case_name = col(st, o);
	row.image = col(st, o + 1);
	row.state = col(st, o + 2);
	row.outcome = col(st, o + 3);
	row.fault_class = col(st, o + 4);
	row.kernel = col(st, o + 5);
	row.attempts = history_col_int(st, o + 6);
	if (fn(ctx, &row) < 0)
		return error_set(err, ERR_CANCELLED, 0, "trend listing stopped");
	strbuf_reset(&l->case_name);
	strbuf_add(&l->case_name, row.case_name, (size_t)history_col_bytes(st, o));
	strbuf_reset(&l->image);
	strbuf_add(&l->image, row.image, (size_t)history_col_bytes(st, o + 1));
	l->any = true;
	return 0;
}

/* The final attempts of sweep sw's current row. */
static int trend_sweep(struct history_db *db, struct history_stmt *sw, struct history_stmt *st,
		       struct trend_last *l, history_trend_fn fn, void *ctx, struct error *err)
{
	/* sw is not stepped until its results are listed: its text stays. */
	const struct history_trend_row sweep = {
		.sweep_id = col(sw, 0), .label = col(sw, 1), .started = history_col_int64(sw, 2),
	};
	int rc;

	history_reset(st);
	bind_text(st, 1, sweep.sweep_id);
	l->any = false;
	while ((rc = history_step(st)) == HISTORY_ROW)
		if (!trend_listed(l, st, 0) && trend_emit(l, &sweep, st, 0, fn, ctx, err) < 0)
			return -1;
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "trend", err);
}

/* One case's trend in one statement: its few rows sorted cost less than
 * a statement a sweep, each a round trip to a PostgreSQL server. The
 * sweeps' order is the sweeps statement's (started_us, then id). */
static int trend_case(struct history_db *db, const char *label, const char *host,
		      const char *case_name, int last, history_trend_fn fn, void *ctx,
		      struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	struct trend_last l = { STRBUF_INIT, STRBUF_INIT, false };
	struct strbuf sql = STRBUF_INIT, sweep_id = STRBUF_INIT;
	int rc = -1;

	strbuf_addf(&sql, "SELECT s.id, s.label, s.started, r.case_name, r.image_ref, r.state,"
			  " r.outcome, r.fault_class, r.kernel, r.attempt FROM (%s) s"
			  " JOIN results r ON r.sweep = s.id AND r.case_name = ?4"
			  " ORDER BY (SELECT x.started_us FROM sweeps x WHERE x.id = s.id), s.id,"
			  " r.image_ref, r.attempt DESC",
		    history_dialect_sql(db, HSQL_TREND_SWEEPS));
	if (history_sql_prepare(db, sql.buf, &st, err) < 0)
		goto out;
	bind_text(st, 1, label);
	history_bind_int(st, 2, last > 0 ? last : -1);
	bind_text(st, 3, host);
	bind_text(st, 4, case_name);
	while ((rc = history_step(st)) == HISTORY_ROW) {
		const struct history_trend_row sweep = {
			.sweep_id = col(st, 0), .label = col(st, 1),
			.started = history_col_int64(st, 2),
		};

		if (strcmp(sweep_id.buf, sweep.sweep_id)) {
			strbuf_reset(&sweep_id);
			strbuf_addstr(&sweep_id, sweep.sweep_id);
			l.any = false;
		}
		if (!trend_listed(&l, st, 3) && trend_emit(&l, &sweep, st, 3, fn, ctx, err) < 0)
			break;
	}
	rc = rc == HISTORY_ROW ? -1 : rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "trend", err);
out:
	strbuf_release(&sql);
	strbuf_release(&sweep_id);
	strbuf_release(&l.case_name);
	strbuf_release(&l.image);
	return rc;
}

/* Both statements read in one transaction (on SQLite the one the open
 * sweeps statement holds, on PostgreSQL history_read_begin's): the trend
 * is one snapshot of the database. */
int history_db_trend(struct history_db *db, const char *label, const char *case_name, int last,
		     history_trend_fn fn, void *ctx, struct error *err)
{
	return history_db_trend_host(db, label, NULL, case_name, last, fn, ctx, err);
}

int history_db_trend_host(struct history_db *db, const char *label, const char *host,
			  const char *case_name, int last, history_trend_fn fn, void *ctx,
			  struct error *err)
{
	cleanup_stmt struct history_stmt *sw = NULL;
	cleanup_stmt struct history_stmt *st = NULL;
	struct trend_last l = { STRBUF_INIT, STRBUF_INIT, false };
	int rc = -1;

	if (case_name)
		return trend_case(db, label, host, case_name, last, fn, ctx, err);
	if (history_read_begin(db, err) < 0)
		goto out;
	if (history_sql_prepare(db, history_dialect_sql(db, HSQL_TREND_SWEEPS), &sw, err) < 0 ||
	    history_sql_prepare(db, history_dialect_sql(db, HSQL_TREND_RESULTS), &st, err) < 0)
		goto out;
	bind_text(sw, 1, label);
	history_bind_int(sw, 2, last > 0 ? last : -1);
	bind_text(sw, 3, host);
	bind_text(st, 2, case_name);
	rc = 0;
	while (rc == 0 && (rc = history_step(sw)) == HISTORY_ROW)
		rc = trend_sweep(db, sw, st, &l, fn, ctx, err);
	if (rc > 0)
		rc = rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "trend", err);
out:
	history_read_end(db);
	strbuf_release(&l.case_name);
	strbuf_release(&l.image);
	return rc;
}

int history_db_prune(struct history_db *db, const char *label, int keep, struct strvec *ids,
		     struct strvec *folders, struct error *err)
{
	return history_db_prune_host(db, label, NULL, keep, ids, folders, err);
}

int history_db_prune_host(struct history_db *db, const char *label, const char *host, int keep,
			  struct strvec *ids, struct strvec *folders, struct error *err)
{
	cleanup_stmt struct history_stmt *sel = NULL;
	cleanup_stmt struct history_stmt *del = NULL;
	int rc;

	if (keep < 0)
		return error_set(err, ERR_USAGE, 0, "prune --keep wants N >= 0");
	if (history_sql_begin(db, err) < 0)
		return -1;
	if (history_sql_prepare(db,
		    "SELECT id, folder FROM (SELECT id, folder, ROW_NUMBER() OVER"
		    " (PARTITION BY label ORDER BY started_us DESC, id DESC) AS n FROM sweeps"
		    "  WHERE (?1 IS NULL OR label = ?1) AND (?3 IS NULL OR host = ?3)) q WHERE n > ?2",
		    &sel, err) < 0 ||
	    history_sql_prepare(db, "DELETE FROM sweeps WHERE id = ?1", &del, err) < 0)
		goto fail;
	bind_text(sel, 1, label);
	history_bind_int(sel, 2, keep);
	bind_text(sel, 3, host);
	while ((rc = history_step(sel)) == HISTORY_ROW) {
		strvec_push(ids, col(sel, 0));
		strvec_push(folders, col(sel, 1) ? col(sel, 1) : "");
		history_reset(del);
		bind_text(del, 1, col(sel, 0));
		if ((rc = history_step(del)) != HISTORY_DONE)
			break;
	}
	if (rc != HISTORY_DONE) {
		history_sql_error(db, rc, "prune", err);
		goto fail;
	}
	return history_sql_exec(db, "COMMIT", err);
fail:
	history_sql_rollback(db);
	return -1;
}
