/* The change points the history holds: listed, accepted, and where a
 * case's series restarts (docs/perf.md "Change points"). */
#include "orchestrator/history/history_changes.h"

#include <time.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"

/* ?1 label, ?2 case, ?3 found (each NULL: any), ?4 skip accepted. */
static const char each_sql[] =
	"SELECT c.label, c.case_name, c.image_ref, c.gfx, c.device_id, c.started_us, c.sweep,"
	" c.before_sweep, c.image_id_before, c.image_id_after, c.median_before,"
	" c.median_after, c.ratio, c.p, c.found_sweep, a.accepted IS NOT NULL"
	" FROM perf_changes c LEFT JOIN perf_accepted a ON a.label = c.label"
	"  AND a.case_name = c.case_name AND a.started_us = c.started_us AND a.sweep = c.sweep"
	" WHERE (?1 IS NULL OR c.label = ?1) AND (?2 IS NULL OR c.case_name = ?2)"
	"  AND (?3 IS NULL OR c.found_sweep = ?3) AND (?4 = 0 OR a.accepted IS NULL)"
	" ORDER BY c.label, c.case_name, c.image_ref, c.gfx, c.device_id, c.started_us";

int history_changes_each(struct history_db *db, const struct history_change_query *q,
			 history_change_fn fn, void *ctx, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db, each_sql, &st, err) < 0)
		return -1;
	bind_text(st, 1, q->label);
	bind_text(st, 2, q->case_name);
	bind_text(st, 3, q->found);
	history_bind_int(st, 4, q->skip_accepted);
	while ((rc = history_step(st)) == HISTORY_ROW) {
		struct history_change_row row = {
			.label = col(st, 0), .case_name = col(st, 1), .image = col(st, 2),
			.gfx = col(st, 3), .device_id = (long)history_col_int64(st, 4),
			.started_us = history_col_int64(st, 5), .sweep = col(st, 6),
			.before_sweep = col(st, 7), .image_id_before = col(st, 8),
			.image_id_after = col(st, 9),
			.median_before = history_col_double(st, 10),
			.median_after = history_col_double(st, 11),
			.ratio = history_col_double(st, 12), .p = history_col_double(st, 13),
			.found_sweep = col(st, 14), .accepted = history_col_int(st, 15),
		};

		if (fn(ctx, &row) < 0)
			return -1;
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read change points", err);
}

static void json_row(cJSON *arr, const struct history_change_row *r)
{
	cJSON *o = cJSON_CreateObject();

	json_add_str(o, "label", r->label, JSON_TEXT);
	json_add_str(o, "case", r->case_name, JSON_TEXT);
	json_add_str(o, "image", r->image, JSON_TEXT);
	json_add_str(o, "gfx", r->gfx && *r->gfx ? r->gfx : NULL, JSON_TEXT);
	if (r->device_id > 0)
		cJSON_AddNumberToObject(o, "device_id", (double)r->device_id);
	else
		cJSON_AddNullToObject(o, "device_id");
	json_add_str(o, "night", r->sweep, JSON_TEXT);
	json_add_str(o, "night_before", r->before_sweep, JSON_TEXT);
	json_add_str(o, "image_id_before", r->image_id_before, JSON_TEXT);
	json_add_str(o, "image_id_after", r->image_id_after, JSON_TEXT);
	cJSON_AddNumberToObject(o, "median_before_ms", r->median_before);
	cJSON_AddNumberToObject(o, "median_after_ms", r->median_after);
	cJSON_AddNumberToObject(o, "ratio", r->ratio);
	cJSON_AddNumberToObject(o, "p", r->p);
	json_add_str(o, "found", r->found_sweep, JSON_TEXT);
	cJSON_AddBoolToObject(o, "accepted", r->accepted);
	cJSON_AddItemToArray(arr, o);
}

/* An image ID shortened as `docker images` does (sha256: and 12 hex). */
static void md_image_id(struct strbuf *out, const char *id)
{
	const char *hex = id && !strncmp(id, "sha256:", 7) ? id + 7 : id;

	if (!hex || !*hex) {
		strbuf_addstr(out, "-");
		return;
	}
	cleanup_free char *shortened = xstrndup(hex, 12);
	text_markdown_cell(out, shortened);
}

static void md_row(struct strbuf *out, const struct history_change_row *r)
{
	strbuf_addstr(out, "| ");
	text_markdown_cell(out, r->sweep);
	strbuf_addstr(out, " | ");
	text_markdown_cell(out, r->case_name);
	strbuf_addstr(out, " | ");
	text_markdown_cell(out, r->image);
	strbuf_addstr(out, " | ");
	text_markdown_cell(out, r->gfx && *r->gfx ? r->gfx : "-");
	if (r->device_id > 0)
		strbuf_addf(out, " %ld", r->device_id);
	strbuf_addf(out, " | %+.1f%% | %.1f → %.1f | ", 100 * (r->ratio - 1), r->median_before,
		    r->median_after);
	md_image_id(out, r->image_id_before);
	strbuf_addstr(out, " → ");
	md_image_id(out, r->image_id_after);
	strbuf_addf(out, " | %.3g | %s |\n", r->p, r->accepted ? "accepted" : "");
}

struct report_ctx {
	cJSON *json;
	struct strbuf *md;
	size_t n;
};

static int report_row(void *ctx, const struct history_change_row *r)
{
	struct report_ctx *c = ctx;

	if (c->json)
		json_row(c->json, r);
	else
		md_row(c->md, r);
	c->n++;
	return 0;
}

int history_changes_report(struct history_db *db, const char *label, const char *case_name,
			   bool json, struct strbuf *out, struct error *err)
{
	struct history_change_query q = { .label = label, .case_name = case_name };
	cleanup_strbuf struct strbuf rows = STRBUF_INIT;
	cleanup_cjson cJSON *arr = json ? cJSON_CreateArray() : NULL;
	struct report_ctx c = { arr, &rows, 0 };
	cleanup_free char *text = NULL;

	if (history_changes_each(db, &q, report_row, &c, err) < 0)
		return -1;
	if (json) {
		text = cJSON_Print(arr);
		strbuf_addf(out, "%s\n", text);
		return 0;
	}
	strbuf_addstr(out, "# GPU-time change points\n\nThe nights each case's GPU kernel time "
			   "moved to a new level (docs/perf.md \"Change points\").\n\n");
	if (!c.n) {
		strbuf_addstr(out, "No change points found.\n");
		return 0;
	}
	strbuf_addstr(out, "| night | case | image | GPU | change | median (ms) | image ID | p |"
			   " accepted |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	strbuf_add(out, rows.buf, rows.len);
	return 0;
}

int history_changes_accept(struct history_db *db, const char *case_name, const char *night,
			   char **label, struct error *err)
{
	cleanup_stmt struct history_stmt *get = NULL, *put = NULL;
	int rc;

	*label = NULL;
	if (history_sql_prepare(db, "SELECT label, COALESCE(started_us, started * 1000000)"
				" FROM sweeps WHERE id = ?1", &get, err) < 0 ||
	    history_sql_prepare(db, history_dialect_sql(db, HSQL_ACCEPT_PUT), &put, err) < 0)
		return -1;
	bind_text(get, 1, night);
	if ((rc = history_step(get)) == HISTORY_DONE)
		return error_set(err, ERR_NOT_FOUND, 0, "no sweep %s in the history", night);
	if (rc != HISTORY_ROW)
		return history_sql_error(db, rc, "read the sweep", err);
	bind_text(put, 1, col(get, 0));
	bind_text(put, 2, case_name);
	history_bind_int64(put, 3, history_col_int64(get, 1));
	bind_text(put, 4, night);
	history_bind_int64(put, 5, (long long)time(NULL));
	if ((rc = history_step(put)) != HISTORY_DONE)
		return history_sql_error(db, rc, "write the accepted change", err);
	*label = xstrdup(col(get, 0));
	return 0;
}

/* A series' key as ?1 label, ?2 case, ?3 image, ?4 gfx, ?5 device_id. */
static void bind_series(struct history_stmt *st, const char *label, const char *case_name,
			const char *image, const char *gfx, long device_id)
{
	bind_text(st, 1, label);
	bind_text(st, 2, case_name);
	bind_text(st, 3, image);
	bind_text(st, 4, gfx ? gfx : "");
	history_bind_int64(st, 5, device_id > 0 ? device_id : -1);
}

/* ?1 label, ?2 case, ?3 image, ?4 gfx, ?5 device_id. */
static const char restart_sql[] =
	"SELECT sweep, started_us FROM ("
	" SELECT sweep, started_us FROM perf_changes WHERE label = ?1 AND case_name = ?2"
	"  AND image_ref = ?3 AND gfx = ?4 AND device_id = ?5"
	" UNION ALL SELECT sweep, started_us FROM perf_accepted WHERE label = ?1"
	"  AND case_name = ?2) AS c"
	" ORDER BY started_us DESC, sweep DESC LIMIT 1";

int history_changes_restart(struct history_db *db, const char *label, const char *case_name,
			    const char *image, const char *gfx, long device_id, char **sweep_id,
			    long long *started_us, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	*sweep_id = NULL;
	*started_us = 0;
	if (history_sql_prepare(db, restart_sql, &st, err) < 0)
		return -1;
	bind_series(st, label, case_name, image, gfx, device_id);
	if ((rc = history_step(st)) == HISTORY_ROW) {
		*sweep_id = xstrdup(col(st, 0));
		*started_us = history_col_int64(st, 1);
		return 0;
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read change points", err);
}

/* ?1 label, ?2 case, ?3 image, ?4 gfx, ?5 device_id, ?6 until (0: no
 * bound), ?7 how many. */
static const char medians_sql[] =
	"SELECT m.median_ms FROM perf_medians m"
	" JOIN sweeps s ON s.id = m.sweep AND s.state = 'finished'"
	" WHERE m.label = ?1 AND m.case_name = ?2 AND m.image_ref = ?3 AND m.gfx = ?4"
	"  AND m.device_id = ?5 AND (?6 = 0 OR m.started_us <= ?6)"
	"  AND m.started_us >= COALESCE((SELECT MAX(started_us) FROM ("
	"   SELECT started_us FROM perf_changes WHERE label = ?1 AND case_name = ?2"
	"    AND image_ref = ?3 AND gfx = ?4 AND device_id = ?5"
	"    AND (?6 = 0 OR started_us <= ?6)"
	"   UNION ALL SELECT started_us FROM perf_accepted WHERE label = ?1"
	"    AND case_name = ?2 AND (?6 = 0 OR started_us <= ?6)) AS c), 0)"
	" ORDER BY m.started_us DESC, m.sweep DESC LIMIT ?7";

int history_changes_medians(struct history_db *db, const char *label, const char *case_name,
			    const char *image, const char *gfx, long device_id, long long until_us,
			    double *out, size_t max, size_t *n, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	*n = 0;
	if (history_sql_prepare(db, medians_sql, &st, err) < 0)
		return -1;
	bind_series(st, label, case_name, image, gfx, device_id);
	history_bind_int64(st, 6, until_us);
	history_bind_int64(st, 7, (long long)max);
	while ((rc = history_step(st)) == HISTORY_ROW && *n < max)
		out[(*n)++] = history_col_double(st, 0);
	return rc == HISTORY_ROW || rc == HISTORY_DONE
		       ? 0 : history_sql_error(db, rc, "read nightly medians", err);
}
