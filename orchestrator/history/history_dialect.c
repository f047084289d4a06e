/* The statements whose SQL differs between SQLite and PostgreSQL
 * (history_dialect.h): SQLite's INSERT OR REPLACE is PostgreSQL's
 * INSERT ... ON CONFLICT DO UPDATE, SQLite's "any text" range (x'' sorts
 * after every text) is a plain test there, SQLite's bare columns of a
 * GROUP BY are aggregates, SQLite's json_each is jsonb's, and a series'
 * last nights, a LATERAL subquery there, are bounded here by its Nth
 * newest night (SQLite has no LATERAL). */
#include "orchestrator/history/history_dialect.h"

#include <stddef.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "orchestrator/history/history_sql.h"

/* A result's insert, and the head and tail of one of many results
 * (history_import.c writes its rows between them). */
#define RESULT_HEAD                                                                        \
	"results(sweep, case_name, image_ref, attempt, image_id,"                          \
	" archive, digest, gpus, state, outcome, fault_class, kernel, d2h_checked,"        \
	" d2h_mismatched, duration, run_dir, classifier_version, message, finished,"       \
	" run_options_fp, host, gpu_uids, kind, sig_id, sig_family, sig_evidence,"         \
	" sig_stop_reason, sig_partial, known_id, known_link, known_owner, gfx,"           \
	" device_id, perf_warmup, perf_note, driver, line_host, finding_md, image_pin)"      \
	" VALUES"
#define RESULT_COLS RESULT_HEAD                                                            \
	"(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"  \
	" ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31,"      \
	" ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39)"

#define EX(c) c " = EXCLUDED." c

#define RESULT_CONFLICT                                                                    \
	" ON CONFLICT(sweep, case_name, image_ref, attempt) DO UPDATE SET "                 \
	EX("image_id") ", " EX("archive") ", " EX("digest") ", " EX("gpus") ", " EX("state") ", " \
	EX("outcome") ", " EX("fault_class") ", " EX("kernel") ", " EX("d2h_checked") ", " \
	EX("d2h_mismatched") ", " EX("duration") ", " EX("run_dir") ", " \
	EX("classifier_version") ", " EX("message") ", " EX("finished") ", " \
	EX("run_options_fp") ", " EX("host") ", " EX("gpu_uids") ", " EX("kind") ", " \
	EX("sig_id") ", " EX("sig_family") ", " EX("sig_evidence") ", " EX("sig_stop_reason") ", " \
	EX("sig_partial") ", " EX("known_id") ", " EX("known_link") ", " EX("known_owner") ", " \
	EX("gfx") ", " EX("device_id") ", " EX("perf_warmup") ", " EX("perf_note") ", " \
	EX("driver") ", " EX("line_host") ", " EX("finding_md") ", " EX("image_pin")

/* A sample's insert, and the head and tail of one for a result's every
 * sample (history_perf.c writes its rows between them). */
#define SAMPLE_HEAD                                                                        \
	"perf_samples(sweep, case_name, image_ref, attempt, idx, kernel_ms, graph_ms,"     \
	" total_ms, wall_ms) VALUES"
#define SAMPLE_COLS SAMPLE_HEAD "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
#define SAMPLE_CONFLICT                                                                    \
	" ON CONFLICT(sweep, case_name, image_ref, attempt, idx) DO UPDATE SET "            \
	EX("kernel_ms") ", " EX("graph_ms") ", " EX("total_ms") ", " EX("wall_ms")

/* An attempt's GPU-time summary (history_perf_stats.c). */
#define STATS_HEAD                                                                         \
	"perf_sample_stats(sweep, case_name, image_ref, attempt, n, zeros, median_ms, lo_ms,"   \
	" hi_ms, measured_median_ms, measured_cv) VALUES"
#define STATS_COLS STATS_HEAD "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
#define STATS_CONFLICT                                                                     \
	" ON CONFLICT(sweep, case_name, image_ref, attempt) DO UPDATE SET " EX("n") ", "     \
	EX("zeros") ", " EX("median_ms") ", " EX("lo_ms") ", " EX("hi_ms") ", "             \
	EX("measured_median_ms") ", " EX("measured_cv")

#define PLANNED_CONFLICT " ON CONFLICT(sweep, case_name, image_ref) DO UPDATE SET " EX("idx")

#define BISECT_COLS                                                                        \
	"bisects(id, good, bad, last_good, first_bad, verdict, answer, folder,"            \
	" run_options_fp, finished) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"

#define MEDIAN_HEAD                                                                        \
	"perf_medians(label, case_name, image_ref, gfx, device_id, started_us, sweep,"    \
	" median_ms) VALUES"
#define MEDIAN_COLS MEDIAN_HEAD "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
#define SERIES_PK "label, case_name, image_ref, gfx, device_id, started_us, sweep"
#define MEDIAN_CONFLICT " ON CONFLICT(" SERIES_PK ") DO UPDATE SET " EX("median_ms")
#define CHANGE_COLS                                                                        \
	"perf_changes(" SERIES_PK ", before_sweep, image_id_before, image_id_after,"      \
	" median_before, median_after, ratio, p, found_sweep)"                              \
	" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
#define ACCEPT_COLS "perf_accepted(label, case_name, started_us, sweep, accepted)"

/* A page of tonight's series, each with its last ?4 nights up to tonight
 * (?3 its start, ?2 its sweep), finished sweeps and tonight's, from its
 * last accepted change on (label ?1); by series, oldest night first. */
#define CP_KEY(m) " " m ".label = ?1 AND " m ".case_name = t.case_name"                   \
	" AND " m ".image_ref = t.image_ref AND " m ".gfx = t.gfx AND " m ".device_id = t.device_id"
#define CP_LIVE(s, m) " JOIN sweeps " s " ON " s ".id = " m ".sweep"                        \
	" AND (" s ".state = 'finished' OR " s ".id = ?2)"
#define CP_ACCEPTED                                                                        \
	"COALESCE((SELECT MAX(a.started_us) FROM perf_accepted a WHERE a.label = ?1"        \
	" AND a.case_name = t.case_name AND a.started_us <= ?3), 0)"
/* The page's series, from ?5..?8 to ?9..?12 (case, image reference, gfx,
 * device_id) in the order history_changes_read.c reads them in (text
 * sorts bytewise on both). On SQLite, t's columns as expressions (+):
 * otherwise it carries the range over to m and reads the page's every
 * series there instead of t's own. */
#define CP_PAGE(p)                                                                         \
	"(" p "t.case_name, " p "t.image_ref, " p "t.gfx, " p "t.device_id)"                \
	" >= (?5, ?6, ?7, ?8) AND (" p "t.case_name, " p "t.image_ref, " p "t.gfx, "        \
	p "t.device_id) <= (?9, ?10, ?11, ?12)"
#define CP_ORDER(m) " ORDER BY t.case_name, t.image_ref, t.gfx, t.device_id, "            \
	m ".started_us, " m ".sweep"

/* SQLite: from the later of the series' Nth newest night and its last
 * accepted change, one bound of m's key range, read once a series. */
static const char cp_nights_lite[] =
	"SELECT t.case_name, t.image_ref, t.gfx, t.device_id, m.sweep, m.started_us, m.median_ms"
	" FROM perf_medians t CROSS JOIN perf_medians m ON" CP_KEY("m") " AND m.started_us <= ?3"
	" AND m.started_us >= MAX(COALESCE((SELECT x.started_us FROM perf_medians x"
	CP_LIVE("y", "x") "  WHERE" CP_KEY("x") " AND x.started_us <= ?3"
	"  ORDER BY x.started_us DESC, x.sweep DESC LIMIT 1 OFFSET ?4 - 1), 0), " CP_ACCEPTED ")"
	CP_LIVE("s", "m") " WHERE t.sweep = ?2 AND t.label = ?1 AND " CP_PAGE("+") CP_ORDER("m");

/* PostgreSQL: the sweeps a night may not be from are read once (a hashed
 * subquery; a join read the sweeps of each night of each series). */
static const char cp_nights_pg[] =
	"SELECT t.case_name, t.image_ref, t.gfx, t.device_id, w.sweep, w.started_us, w.median_ms"
	" FROM perf_medians t CROSS JOIN LATERAL (SELECT m.sweep, m.started_us, m.median_ms"
	"  FROM perf_medians m WHERE" CP_KEY("m") " AND m.started_us <= ?3"
	"  AND m.sweep NOT IN (SELECT id FROM sweeps"
	"   WHERE (state = 'finished' OR id = ?2) IS NOT TRUE)"
	"  AND m.started_us >= " CP_ACCEPTED
	"  ORDER BY m.started_us DESC, m.sweep DESC LIMIT ?4) w"
	" WHERE t.sweep = ?2 AND t.label = ?1 AND " CP_PAGE("") CP_ORDER("w");

static const char *const sql[HSQL_N][HISTORY_N_DIALECTS] = {
	[HSQL_MEDIAN_PUT] = {
		"INSERT OR REPLACE INTO " MEDIAN_COLS,
		"INSERT INTO " MEDIAN_COLS MEDIAN_CONFLICT,
	},
	[HSQL_MEDIANS_HEAD] = { "INSERT OR REPLACE INTO " MEDIAN_HEAD, "INSERT INTO " MEDIAN_HEAD },
	[HSQL_MEDIANS_TAIL] = { "", MEDIAN_CONFLICT },
	[HSQL_CHANGE_PUT] = {
		"INSERT OR REPLACE INTO " CHANGE_COLS,
		"INSERT INTO " CHANGE_COLS " ON CONFLICT(" SERIES_PK ") DO UPDATE SET "
		EX("before_sweep") ", " EX("image_id_before") ", " EX("image_id_after") ", "
		EX("median_before") ", " EX("median_after") ", " EX("ratio") ", " EX("p") ", "
		EX("found_sweep"),
	},
	[HSQL_ACCEPT_PUT] = {
		"INSERT OR REPLACE INTO " ACCEPT_COLS " VALUES(?1, ?2, ?3, ?4, ?5)",
		"INSERT INTO " ACCEPT_COLS " VALUES(?1, ?2, ?3, ?4, ?5)"
		" ON CONFLICT(label, case_name, started_us, sweep) DO UPDATE SET " EX("accepted"),
	},
	[HSQL_CP_NIGHTS] = { cp_nights_lite, cp_nights_pg },
	[HSQL_PLANNED_PUT] = {
		"INSERT OR REPLACE INTO planned VALUES(?1, ?2, ?3, ?4)",
		"INSERT INTO planned VALUES(?1, ?2, ?3, ?4)" PLANNED_CONFLICT,
	},
	[HSQL_PLANNED_HEAD] = { "INSERT OR REPLACE INTO planned VALUES", "INSERT INTO planned VALUES" },
	[HSQL_PLANNED_TAIL] = { "", PLANNED_CONFLICT },
	[HSQL_RESULT_PUT] = {
		"INSERT OR REPLACE INTO " RESULT_COLS, "INSERT INTO " RESULT_COLS RESULT_CONFLICT,
	},
	[HSQL_RESULTS_HEAD] = { "INSERT OR REPLACE INTO " RESULT_HEAD, "INSERT INTO " RESULT_HEAD },
	[HSQL_RESULTS_TAIL] = { "", RESULT_CONFLICT },
	[HSQL_SAMPLE_PUT] = {
		"INSERT OR REPLACE INTO " SAMPLE_COLS,
		"INSERT INTO " SAMPLE_COLS SAMPLE_CONFLICT,
	},
	[HSQL_SAMPLES_HEAD] = { "INSERT OR REPLACE INTO " SAMPLE_HEAD, "INSERT INTO " SAMPLE_HEAD },
	[HSQL_SAMPLES_TAIL] = { "", SAMPLE_CONFLICT },
	[HSQL_SAMPLE_STATS_PUT] = {
		"INSERT OR REPLACE INTO " STATS_COLS,
		"INSERT INTO " STATS_COLS STATS_CONFLICT,
	},
	[HSQL_SAMPLE_STATS_HEAD] = { "INSERT OR REPLACE INTO " STATS_HEAD, "INSERT INTO " STATS_HEAD },
	[HSQL_SAMPLE_STATS_TAIL] = { "", STATS_CONFLICT },
	[HSQL_BISECT_PUT] = {
		"INSERT OR REPLACE INTO " BISECT_COLS,
		"INSERT INTO " BISECT_COLS " ON CONFLICT(id) DO UPDATE SET " EX("good") ", "
		EX("bad") ", " EX("last_good") ", " EX("first_bad") ", " EX("verdict") ", "
		EX("answer") ", " EX("folder") ", " EX("run_options_fp") ", " EX("finished"),
	},
	[HSQL_TREND_SWEEPS] = {
		history_trend_sweeps_sql,
		"SELECT id, label, started FROM (SELECT id, label, started, started_us FROM sweeps"
		"  WHERE (?1::text IS NULL OR label = ?1) AND (?3::text IS NULL OR host = ?3)"
		"  ORDER BY started_us DESC, id DESC LIMIT NULLIF(?2::bigint, -1)) w"
		" ORDER BY started_us, id",
	},
	[HSQL_TREND_RESULTS] = {
		history_trend_results_sql,
		"SELECT case_name, image_ref, state, outcome, fault_class, kernel, attempt"
		" FROM results WHERE sweep = ?1 AND (?2::text IS NULL OR case_name = ?2)"
		" ORDER BY case_name, image_ref, attempt DESC",
	},
	[HSQL_UNTRIAGED] = {
		"SELECT r.sig_id, r.outcome, r.fault_class, r.sig_family, r.sig_evidence,"
		" r.sig_stop_reason, MAX(r.sig_partial), COUNT(DISTINCT r.case_name || char(31) ||"
		" r.image_ref), COUNT(DISTINCT r.sweep), MIN(s.started), MAX(s.started)"
		" FROM results r JOIN " HISTORY_LAST_SWEEPS " s ON s.id = r.sweep"
		" WHERE r.sig_id IS NOT NULL AND r.known_id IS NULL"
		" GROUP BY r.sig_id ORDER BY 8 DESC, 9 DESC, r.sig_id",
		"SELECT r.sig_id, MAX(r.outcome), MAX(r.fault_class), MAX(r.sig_family),"
		" MAX(r.sig_evidence), MAX(r.sig_stop_reason), MAX(r.sig_partial),"
		" COUNT(DISTINCT r.case_name || chr(31) || r.image_ref), COUNT(DISTINCT r.sweep),"
		" MIN(s.started), MAX(s.started)"
		" FROM results r JOIN " HISTORY_LAST_SWEEPS " s ON s.id = r.sweep"
		" WHERE r.sig_id IS NOT NULL AND r.known_id IS NULL"
		" GROUP BY r.sig_id ORDER BY 8 DESC, 9 DESC, r.sig_id",
	},
	[HSQL_SITE_BISECT] = {
		"SELECT json_extract(k.value, '$.case'), b.last_good, b.first_bad FROM bisects b,"
		" json_each(b.answer, '$.first_bad.cases') k"
		" WHERE b.verdict = 'found' AND json_valid(b.answer)"
		/* CASE: a value that is not an object is not JSON text to read. */
		" AND CASE WHEN k.type = 'object' THEN json_type(k.value, '$.case') END = 'text'"
		" ORDER BY b.finished DESC",
		"SELECT k ->> 'case', b.last_good, b.first_bad FROM bisects b,"
		" jsonb_array_elements(COALESCE(b.answer::jsonb #> '{first_bad,cases}', '[]'::jsonb)) k"
		" WHERE b.verdict = 'found' AND jsonb_typeof(k) = 'object'"
		" AND jsonb_typeof(k -> 'case') = 'string'"
		" ORDER BY b.finished DESC",
	},
};

const char *history_dialect_sql(const struct history_db *db, enum history_sql_id id)
{
	return sql[id][db->dialect];
}

int history_dialect_prepare_rows(struct history_db *db, enum history_sql_id head, size_t rows, size_t ncols,
			     struct history_stmt **st, struct error *err)
{
	cleanup_strbuf struct strbuf sql = STRBUF_INIT;

	strbuf_addstr(&sql, history_dialect_sql(db, head));
	for (size_t i = 0; i < rows; i++) {
		strbuf_addstr(&sql, i ? ", (" : "(");
		for (size_t c = 1; c <= ncols; c++)
			strbuf_addf(&sql, "%s?%zu", c > 1 ? ", " : "", i * ncols + c);
		strbuf_addch(&sql, ')');
	}
	strbuf_addstr(&sql, history_dialect_sql(db, head + 1));
	return history_sql_prepare(db, sql.buf, st, err);
}
