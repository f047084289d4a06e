/* The results files into the history database (the schema and its
 * migrations are history_db.c's). */
#include "orchestrator/history/history_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_changes.h"
#include "orchestrator/history/history_perf.h"
#include "orchestrator/history/history_perf_stats.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"

/* Order-independent fingerprint of the results (FNV-1a per line, summed):
 * equal when the database already says what the files say. */
struct results_fp {
	size_t n;
	unsigned long long sum;
};

static int fingerprint_add(void *ctx, const struct sweep_results *rs, struct error *err)
{
	struct results_fp *fp = ctx;

	for (size_t i = 0; i < rs->n; i++) {
		cleanup_strbuf struct strbuf line = STRBUF_INIT;
		case_result_to_json(&rs->v[i], &line);
		fp->sum += text_fnv1a64(TEXT_FNV1A64_INIT, line.buf, line.len);
	}
	fp->n += rs->n;
	(void)err;
	return 0;
}

char *history_options_fingerprint(const char *run_options_json)
{
	return xasprintf("fnv1a64:%016llx", text_fnv1a64(TEXT_FNV1A64_INIT, run_options_json,
							 strlen(run_options_json)));
}

/* The stored fingerprint of sweep s (NULL: none). A row under s's id
 * that is another sweep (another host, another start) is refused, never
 * overwritten: many hosts write one server. A sweep id names its host
 * (sweep_id_make), so only ids made before that, or two sweeps of one
 * host in one second with the same 24 random bits, can meet here. */
static int stored_fingerprint(struct history_db *db, const struct history_sweep *s, char **fp,
			      struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	long long started_us = s->started_us ? s->started_us : s->started * 1000000;
	int rc;

	*fp = NULL;
	if (history_sql_prepare(db, "SELECT results_fp, host, started_us FROM sweeps WHERE id = ?1",
				&st, err) < 0)
		return -1;
	bind_text(st, 1, s->id);
	rc = history_step(st);
	if (rc == HISTORY_ROW &&
	    ((col(st, 1) && s->host && strcmp(col(st, 1), s->host)) ||
	     (!history_col_null(st, 2) && history_col_int64(st, 2) != started_us)))
		return error_set(err, ERR_DATA, 0,
				 "history database %s already holds another sweep with the id %s "
				 "(host %s): nothing of this one was imported",
				 db->path, s->id, col(st, 1) ? col(st, 1) : "-");
	if (rc == HISTORY_ROW && col(st, 0))
		*fp = xstrdup(col(st, 0));
	return rc == HISTORY_ROW || rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read", err);
}

static int upsert_sweep(struct history_db *db, const struct history_sweep *s, const char *fp,
			struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db,
		    "INSERT INTO sweeps(id, label, host, started, finished, state, options,"
		    " tool_version, folder, baseline, results_fp, started_us)"
		    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
		    " ON CONFLICT(id) DO UPDATE SET label = ?2, host = ?3, started = ?4,"
		    " finished = ?5, state = ?6, options = ?7, tool_version = ?8, folder = ?9,"
		    " baseline = ?10, results_fp = ?11, started_us = ?12",
		    &st, err) < 0)
		return -1;
	bind_text(st, 1, s->id);
	bind_text(st, 2, s->label);
	bind_text(st, 3, s->host);
	history_bind_int64(st, 4, s->started);
	if (s->finished)
		history_bind_int64(st, 5, s->finished);
	bind_text(st, 6, s->state);
	bind_text(st, 7, s->options);
	bind_text(st, 8, s->tool_version);
	bind_text(st, 9, s->folder);
	bind_text(st, 10, s->baseline);
	bind_text(st, 11, fp);
	history_bind_int64(st, 12, s->started_us ? s->started_us : s->started * 1000000);
	rc = history_step(st);
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "write sweep", err);
}

/* Planned cases go in PLAN_ROWS a statement (one a row was an eighth of
 * an import's statements); a batch ends early before a case its rows
 * already hold, so a later row still replaces an earlier one in turn. */
#define PLAN_ROWS 64

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static size_t plan_batch(const struct history_planned *p, size_t n)
{
	size_t k = 0;

	for (; k < n && k < PLAN_ROWS; k++)
		for (size_t j = 0; j < k; j++)
			if (same_text(p[j].case_name, p[k].case_name) &&
			    same_text(p[j].image, p[k].image))
				return k;
	return k;
}

static int insert_planned(struct history_db *db, const char *id,
			  const struct history_planned *p, size_t n, struct error *err)
{
	cleanup_stmt struct history_stmt *full = NULL;

	for (size_t i = 0, k; i < n; i += k) {
		cleanup_stmt struct history_stmt *part = NULL;
		struct history_stmt *st;
		int rc;

		k = plan_batch(p + i, n - i);
		if ((k != PLAN_ROWS || !full) &&
		    history_dialect_prepare_rows(db, HSQL_PLANNED_HEAD, k, 4,
					     k == PLAN_ROWS ? &full : &part, err) < 0)
			return -1;
		st = k == PLAN_ROWS ? full : part;
		history_reset(st);
		for (size_t j = 0; j < k; j++) {
			bind_text(st, 1 + 4 * (int)j, id);
			history_bind_int64(st, 2 + 4 * (int)j, (long long)(i + j));
			bind_text(st, 3 + 4 * (int)j, p[i + j].case_name);
			bind_text(st, 4 + 4 * (int)j, p[i + j].image);
		}
		if ((rc = history_step(st)) != HISTORY_DONE)
			return history_sql_error(db, rc, "write plan", err);
	}
	return 0;
}

static void gpus_text(const struct case_result *r, struct strbuf *out)
{
	gpu_list_format(out, r->gpus, r->n_gpus);
}

/* Results go in RESULT_ROWS a statement, ended early before a result
 * whose key its rows already hold (a later line replaces an earlier one
 * in turn); each batch's samples (in statements of many rows) and
 * medians after it. */
#define RESULT_ROWS 16
#define RESULT_NCOLS 39

/* r's columns as parameters o + 1 .. o + RESULT_NCOLS. */
static void bind_result(struct history_stmt *st, int o, const struct history_sweep *s,
			const struct case_result *r)
{
	cleanup_strbuf struct strbuf gpus = STRBUF_INIT;

	gpus_text(r, &gpus);
	bind_text(st, o + 1, s->id);
	bind_text(st, o + 2, r->case_name);
	bind_text(st, o + 3, r->image);
	history_bind_int(st, o + 4, r->attempt);
	bind_text(st, o + 5, r->image_id);
	bind_text(st, o + 6, r->archive);
	bind_text(st, o + 7, r->digest);
	bind_text(st, o + 8, gpus.buf);
	bind_text(st, o + 9, case_result_state_name(r->state));
	bind_text(st, o + 10, case_result_outcome_name(r));
	bind_text(st, o + 11, case_result_class_name(r));
	bind_text(st, o + 12, r->kernel);
	history_bind_int64(st, o + 13, r->d2h_checked);
	history_bind_int64(st, o + 14, r->d2h_mismatched);
	history_bind_double(st, o + 15, r->duration_s);
	bind_text(st, o + 16, r->run_dir);
	history_bind_int(st, o + 17, r->classifier_version);
	bind_text(st, o + 18, r->message);
	history_bind_int64(st, o + 19, r->finished);
	bind_text(st, o + 20, s->run_options_fp);
	bind_text(st, o + 21, r->host ? r->host : s->host);
	bind_text(st, o + 22, r->gpu_uids);
	bind_text(st, o + 23, case_result_kind_name(case_result_kind(r)));
	if (signature_set(&r->signature)) {
		bind_text(st, o + 24, r->signature.id);
		bind_text(st, o + 25, r->signature.kernel_family);
		bind_text(st, o + 26, r->signature.evidence);
		bind_text(st, o + 27, r->signature.stop_reason);
		history_bind_int(st, o + 28, r->signature.partial);
	} else {
		for (int c = 24; c <= 28; c++)
			history_bind_null(st, o + c);
	}
	bind_text(st, o + 29, r->known_id);
	bind_text(st, o + 30, r->known_link);
	bind_text(st, o + 31, r->known_owner);
	bind_text(st, o + 32, r->gfx);
	if (r->device_id > 0)
		history_bind_int64(st, o + 33, r->device_id);
	else
		history_bind_null(st, o + 33);
	if (r->perf) {
		history_bind_int(st, o + 34, r->perf->warmup);
		bind_text(st, o + 35, r->perf->note);
	} else {
		history_bind_null(st, o + 34);
		history_bind_null(st, o + 35);
	}
	bind_text(st, o + 36, r->driver);
	bind_text(st, o + 37, r->host);
	bind_text(st, o + 38, r->finding_md);
	bind_text(st, o + 39, r->image_pin);
}

static size_t result_batch(const struct case_result *v, size_t n)
{
	size_t k = 0;

	for (; k < n && k < RESULT_ROWS; k++)
		for (size_t j = 0; j < k; j++)
			if (v[j].attempt == v[k].attempt && same_text(v[j].case_name, v[k].case_name) &&
			    same_text(v[j].image, v[k].image))
				return k;
	return k;
}

static int insert_results(struct history_db *db, const struct history_sweep *s,
			  const struct sweep_results *rs, struct error *err)
{
	cleanup_stmt struct history_stmt *full = NULL;
	cleanup_perf_put struct history_perf_put samples;

	history_perf_put_init(&samples, db);
	for (size_t i = 0, k; i < rs->n; i += k) {
		cleanup_stmt struct history_stmt *part = NULL;
		struct history_stmt *st;
		int rc;

		k = result_batch(rs->v + i, rs->n - i);
		if ((k != RESULT_ROWS || !full) &&
		    history_dialect_prepare_rows(db, HSQL_RESULTS_HEAD, k, RESULT_NCOLS,
					     k == RESULT_ROWS ? &full : &part, err) < 0)
			return -1;
		st = k == RESULT_ROWS ? full : part;
		history_reset(st);
		for (size_t j = 0; j < k; j++)
			bind_result(st, (int)(j * RESULT_NCOLS), s, &rs->v[i + j]);
		if ((rc = history_step(st)) != HISTORY_DONE)
			return history_sql_error(db, rc, "write result", err);
		for (size_t j = 0; j < k; j++)
			if (history_perf_insert(&samples, s->id, &rs->v[i + j], err) < 0)
				return -1;
		if (history_perf_flush(&samples, err) < 0 ||
		    history_perf_stats_insert(db, s->id, rs->v + i, k, err) < 0 ||
		    history_changes_medians_insert(db, s, rs->v + i, k, err) < 0)
			return -1;
	}
	return 0;
}

static int delete_rows(struct history_db *db, const char *table, const char *id,
		       struct error *err)
{
	cleanup_free char *sql = xasprintf("DELETE FROM %s WHERE sweep = ?1", table);
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db, sql, &st, err) < 0)
		return -1;
	bind_text(st, 1, id);
	rc = history_step(st);
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "delete", err);
}

struct insert_ctx {
	struct history_db *db;
	const struct history_sweep *s;
};

static int insert_chunk(void *ctx, const struct sweep_results *rs, struct error *err)
{
	struct insert_ctx *c = ctx;

	return insert_results(c->db, c->s, rs, err);
}

/* Results already in memory, as one chunk. */
static int whole(void *src, history_results_fn fn, void *ctx, struct error *err)
{
	return fn(ctx, src, err);
}

int history_db_import(struct history_db *db, const struct history_sweep *s,
		      const struct history_planned *planned, size_t n_planned,
		      const struct sweep_results *rs, bool *rebuilt, struct error *err)
{
	return history_db_import_each(db, s, planned, n_planned, whole, (void *)rs, rebuilt, err);
}

int history_db_import_each(struct history_db *db, const struct history_sweep *s,
			   const struct history_planned *planned, size_t n_planned,
			   history_results_each_fn each, void *src, bool *rebuilt,
			   struct error *err)
{
	char fp[64];
	cleanup_free char *stored = NULL;
	struct results_fp sum = { 0, 0 };
	struct insert_ctx ins = { db, s };

	/* A first reading for the fingerprint: the rows are replaced only
	 * when the files say something else than the database. */
	if (each(src, fingerprint_add, &sum, err) < 0)
		return -1;
	snprintf(fp, sizeof(fp), "%zu:%016llx:%zu", sum.n, sum.sum, n_planned);
	/* One writer: the immediate transaction takes the write lock now (or
	 * waits the busy timeout), so two sweeps never interleave rows. */
	if (history_sql_begin(db, err) < 0)
		return -1;
	if (stored_fingerprint(db, s, &stored, err) < 0)
		goto fail;
	*rebuilt = !stored || strcmp(stored, fp);
	if (upsert_sweep(db, s, fp, err) < 0)
		goto fail;
	if (!*rebuilt)
		return history_sql_exec(db, "COMMIT", err);
	/* Only writes until the change points: no round trip per row. */
	history_sql_pipeline_begin(db);
	if (delete_rows(db, "planned", s->id, err) < 0 ||
	    delete_rows(db, "results", s->id, err) < 0 ||
	    delete_rows(db, "perf_samples", s->id, err) < 0 ||
	    delete_rows(db, "perf_sample_stats", s->id, err) < 0 ||
	    delete_rows(db, "perf_medians", s->id, err) < 0 ||
	    insert_planned(db, s->id, planned, n_planned, err) < 0 ||
	    each(src, insert_chunk, &ins, err) < 0 || history_sql_pipeline_end(db, err) < 0 ||
	    /* The series' change points, here: the site has no time left
	     * for them (docs/perf.md "Change points"). */
	    history_changes_update(db, s->label, s->id, err) < 0)
		goto fail;
	return history_sql_exec(db, "COMMIT", err);
fail:
	history_sql_rollback(db);
	return -1;
}
