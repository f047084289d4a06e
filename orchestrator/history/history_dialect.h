/* The two stores a history lives in, and the statements whose SQL differs
 * between them, one form per dialect (history_dialect.c). Everything else
 * is written once, in SQL both accept. Text sorts bytewise in both (SQLite
 * BINARY, PostgreSQL COLLATE "C" on every text column). */
#ifndef HRR_HISTORY_HISTORY_DIALECT_H
#define HRR_HISTORY_HISTORY_DIALECT_H

#include <stddef.h>

#include "common/error.h"

struct history_db;
struct history_stmt;

/* Each *_HEAD is followed by its *_TAIL (history_dialect_prepare_rows). */
enum history_sql_id {
	HSQL_PLANNED_PUT,  /* ?1 sweep, ?2 idx, ?3 case, ?4 image */
	HSQL_PLANNED_HEAD, /* planned cases, many rows: the insert up to VALUES */
	HSQL_PLANNED_TAIL, /* and after its rows (history_import.c) */
	HSQL_RESULT_PUT,   /* the 39 columns of a result (history_copy.c) */
	HSQL_RESULTS_HEAD, /* many results: the insert up to VALUES */
	HSQL_RESULTS_TAIL, /* and after its rows (history_import.c) */
	HSQL_SAMPLE_PUT,   /* one perf sample (history_copy.c) */
	HSQL_SAMPLES_HEAD, /* a result's perf samples: the insert up to VALUES */
	HSQL_SAMPLES_TAIL, /* and after its rows (history_perf.c) */
	HSQL_SAMPLE_STATS_PUT,  /* an attempt's GPU-time summary (history_copy.c) */
	HSQL_SAMPLE_STATS_HEAD, /* many summaries: the insert up to VALUES */
	HSQL_SAMPLE_STATS_TAIL, /* and after its rows (history_perf_stats.c) */
	HSQL_BISECT_PUT,   /* one bisection's answer (history_reuse.c) */
	HSQL_TREND_SWEEPS, /* history_trend_sweeps_sql */
	HSQL_TREND_RESULTS, /* history_trend_results_sql */
	HSQL_UNTRIAGED,    /* `history signatures`' untriaged ones */
	HSQL_SITE_BISECT,  /* the bisections' cases, newest first (site_query.c) */
	HSQL_MEDIAN_PUT,   /* a night's GPU-time median (history_copy.c) */
	HSQL_MEDIANS_HEAD, /* many medians: the insert up to VALUES */
	HSQL_MEDIANS_TAIL, /* and after its rows (history_changes.c) */
	HSQL_CHANGE_PUT,   /* a change point (history_changes.c) */
	HSQL_ACCEPT_PUT,   /* an accepted change and when (history_changes_query.c) */
	HSQL_CP_NIGHTS,    /* a page of series' nights (history_changes_read.c) */
	HSQL_N
};

/* The statement's SQL in db's dialect. */
const char *history_dialect_sql(const struct history_db *db, enum history_sql_id id);

/* An insert of `rows` rows of ncols parameters each (row i's are
 * ?(i * ncols + 1) ..), between head's SQL and its tail's (the id after
 * it). */
int history_dialect_prepare_rows(struct history_db *db, enum history_sql_id head, size_t rows,
			     size_t ncols, struct history_stmt **st, struct error *err)
	__attribute__((warn_unused_result));

#endif
