/* One history into another (history_copy.h): each table's rows read from
 * the source and written with the destination's own statements, numbers
 * as the source holds them (a REAL as a double, never its text). */
#include "orchestrator/history/history_copy.h"

#include <string.h>

#include "common/cleanup.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"

/* A table's rows of one sweep (?1), in the column order of its insert. */
struct copy_table {
	const char *select;
	enum history_sql_id put;
	const char *real_cols; /* ",N," for each column read as a double */
	int ncols;
};

static const struct copy_table tables[] = {
	{ "SELECT sweep, idx, case_name, image_ref FROM planned WHERE sweep = ?1",
	  HSQL_PLANNED_PUT, "", 4 },
	{ "SELECT sweep, case_name, image_ref, attempt, image_id, archive, digest, gpus, state,"
	  " outcome, fault_class, kernel, d2h_checked, d2h_mismatched, duration, run_dir,"
	  " classifier_version, message, finished, run_options_fp, host, gpu_uids, kind, sig_id,"
	  " sig_family, sig_evidence, sig_stop_reason, sig_partial, known_id, known_link,"
	  " known_owner, gfx, device_id, perf_warmup, perf_note, driver, line_host, finding_md,"
	  " image_pin FROM results WHERE sweep = ?1",
	  HSQL_RESULT_PUT, ",14,", 39 },
	{ "SELECT sweep, case_name, image_ref, attempt, idx, kernel_ms, graph_ms, total_ms, wall_ms"
	  " FROM perf_samples WHERE sweep = ?1",
	  HSQL_SAMPLE_PUT, ",5,6,7,8,", 9 },
	{ "SELECT sweep, case_name, image_ref, attempt, n, zeros, median_ms, lo_ms, hi_ms,"
	  " measured_median_ms, measured_cv FROM perf_sample_stats WHERE sweep = ?1",
	  HSQL_SAMPLE_STATS_PUT, ",6,7,8,9,10,", 11 },
	{ "SELECT label, case_name, image_ref, gfx, device_id, started_us, sweep, median_ms"
	  " FROM perf_medians WHERE sweep = ?1",
	  HSQL_MEDIAN_PUT, ",7,", 8 },
	{ "SELECT label, case_name, image_ref, gfx, device_id, started_us, sweep, before_sweep,"
	  " image_id_before, image_id_after, median_before, median_after, ratio, p, found_sweep"
	  " FROM perf_changes WHERE sweep = ?1",
	  HSQL_CHANGE_PUT, ",10,11,12,13,", 15 },
	{ "SELECT label, case_name, started_us, sweep, accepted FROM perf_accepted"
	  " WHERE sweep = ?1",
	  HSQL_ACCEPT_PUT, "", 5 },
};

static bool is_real(const char *cols, int c)
{
	char key[16];

	snprintf(key, sizeof(key), ",%d,", c);
	return strstr(cols, key) != NULL;
}

/* The current row of get as the values of put. */
static void bind_row(struct history_stmt *get, struct history_stmt *put, int ncols,
		     const char *real_cols)
{
	history_reset(put);
	for (int c = 0; c < ncols; c++) {
		if (history_col_null(get, c))
			history_bind_null(put, c + 1);
		else if (is_real(real_cols, c))
			history_bind_double(put, c + 1, history_col_double(get, c));
		else
			history_bind_text(put, c + 1, history_col(get, c));
	}
}

static int copy_rows(struct history_db *from, struct history_db *to, const char *select,
		     const char *put_sql, int ncols, const char *real_cols, const char *id,
		     struct error *err)
{
	cleanup_stmt struct history_stmt *get = NULL, *put = NULL;
	int rc;

	if (history_sql_prepare(from, select, &get, err) < 0 ||
	    history_sql_prepare(to, put_sql, &put, err) < 0)
		return -1;
	if (id)
		history_bind_text(get, 1, id);
	while ((rc = history_step(get)) == HISTORY_ROW) {
		bind_row(get, put, ncols, real_cols);
		if ((rc = history_step(put)) != HISTORY_DONE)
			return history_sql_error(to, rc, "copy", err);
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(from, rc, "copy", err);
}

static const char sweep_select[] =
	"SELECT id, label, host, started, finished, state, options, tool_version, folder,"
	" baseline, results_fp, started_us FROM sweeps WHERE id = ?1";
static const char sweep_put[] =
	"INSERT INTO sweeps(id, label, host, started, finished, state, options, tool_version,"
	" folder, baseline, results_fp, started_us)"
	" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
	" ON CONFLICT(id) DO UPDATE SET label = ?2, host = ?3, started = ?4, finished = ?5,"
	" state = ?6, options = ?7, tool_version = ?8, folder = ?9, baseline = ?10,"
	" results_fp = ?11, started_us = ?12";

/* One sweep in one transaction of to: its row, then its rows replaced. */
static int copy_sweep(struct history_db *from, struct history_db *to, const char *id,
		      struct error *err)
{
	static const char *const tabs[] = { "planned", "results", "perf_samples",
					    "perf_sample_stats", "perf_medians",
					    "perf_changes", "perf_accepted" };

	if (history_sql_begin(to, err) < 0)
		return -1;
	if (copy_rows(from, to, sweep_select, sweep_put, 12, "", id, err) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++) {
		cleanup_free char *sql = xasprintf("DELETE FROM %s WHERE sweep = ?1", tabs[i]);
		cleanup_stmt struct history_stmt *del = NULL;
		int rc;

		if (history_sql_prepare(to, sql, &del, err) < 0)
			goto fail;
		history_bind_text(del, 1, id);
		if ((rc = history_step(del)) != HISTORY_DONE) {
			history_sql_error(to, rc, "copy", err);
			goto fail;
		}
	}
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (copy_rows(from, to, tables[i].select, history_dialect_sql(to, tables[i].put),
			      tables[i].ncols, tables[i].real_cols, id, err) < 0)
			goto fail;
	return history_sql_exec(to, "COMMIT", err);
fail:
	history_sql_rollback(to);
	return -1;
}

static int sweep_ids(struct history_db *from, struct strvec *ids, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(from, "SELECT id FROM sweeps ORDER BY started_us, id", &st, err) < 0)
		return -1;
	while ((rc = history_step(st)) == HISTORY_ROW)
		strvec_push(ids, history_col(st, 0));
	return rc == HISTORY_DONE ? 0 : history_sql_error(from, rc, "copy", err);
}

int history_db_copy(struct history_db *from, struct history_db *to, size_t *sweeps,
		    struct error *err)
{
	struct strvec ids = STRVEC_INIT;
	int rc = sweep_ids(from, &ids, err);

	*sweeps = 0;
	for (size_t i = 0; rc == 0 && i < ids.n; i++) {
		rc = copy_sweep(from, to, ids.v[i], err);
		*sweeps += rc == 0;
	}
	strvec_clear(&ids);
	if (rc < 0 || history_sql_begin(to, err) < 0)
		return -1;
	if (copy_rows(from, to, "SELECT id, good, bad, last_good, first_bad, verdict, answer,"
			  " folder, run_options_fp, finished FROM bisects",
		      history_dialect_sql(to, HSQL_BISECT_PUT), 10, "", NULL, err) < 0) {
		history_sql_rollback(to);
		return -1;
	}
	return history_sql_exec(to, "COMMIT", err);
}
