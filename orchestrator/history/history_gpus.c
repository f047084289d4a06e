#include "orchestrator/history/history_gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_sql.h"

/* An attempt fails unless it replayed and passed; hangs and
 * infrastructure results are counted apart. Grouped by `by`. */
#define GPU_SQL(by)                                                                        \
	"SELECT " by ", COUNT(*),"                                                         \
	" SUM(CASE WHEN r.state = 'done' AND r.outcome = 'PASS' THEN 0 ELSE 1 END),"      \
	" SUM(CASE WHEN r.outcome = 'HANG' THEN 1 ELSE 0 END),"                           \
	" SUM(CASE WHEN r.kind = 'infrastructure' THEN 1 ELSE 0 END)"                     \
	" FROM results r JOIN (SELECT id FROM sweeps WHERE ?1 IS NULL OR label = ?1"      \
	"  ORDER BY started_us DESC, id DESC LIMIT ?2) s ON s.id = r.sweep"                \
	" WHERE r.gpu_uids IS NOT NULL AND r.gpu_uids != ''"                               \
	" GROUP BY " by " ORDER BY 3 * 1.0 / COUNT(*) DESC, " by

static void cell(struct strbuf *out, const char *s)
{
	cleanup_free char *c = text_sanitized(s && *s ? s : "-", TEXT_STRIP_ANSI);

	for (const char *p = c; *p; p++) {
		if (*p == '|' || *p == '\\' || *p == '`')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *p);
	}
}

static int one_table(struct history_db *db, const char *label, int last, bool per_gpu,
		     cJSON *json, struct strbuf *md, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int ncol = per_gpu ? 3 : 1, rc;

	if (history_sql_prepare(db, per_gpu ? GPU_SQL("r.gpu_uids, r.host, r.gpus") : GPU_SQL("r.host"), &st,
		    err) < 0)
		return -1;
	bind_text(st, 1, label);
	history_bind_int(st, 2, last);
	strbuf_addstr(md, per_gpu ? "\n## Per GPU\n\n| unique_id | host | ordinal | attempts | "
				    "failed | hangs | infrastructure | failure rate |\n"
				    "| --- | --- | --- | --- | --- | --- | --- | --- |\n"
				  : "\n## Per node\n\n| host | attempts | failed | hangs | "
				    "infrastructure | failure rate |\n| --- | --- | --- | --- | --- | --- |\n");
	while ((rc = history_step(st)) == HISTORY_ROW) {
		long long n = history_col_int64(st, ncol), failed = history_col_int64(st, ncol + 1);
		long long hangs = history_col_int64(st, ncol + 2), infra = history_col_int64(st, ncol + 3);
		double rate = n ? (double)failed / (double)n : 0;
		cJSON *o = json ? cJSON_CreateObject() : NULL;

		for (int c = 0; c < ncol; c++) {
			static const char *const keys[] = { "unique_id", "host", "ordinal" };
			const char *key = per_gpu ? keys[c] : "host";

			strbuf_addstr(md, "| ");
			cell(md, col(st, c));
			strbuf_addch(md, ' ');
			if (o && col(st, c))
				cJSON_AddStringToObject(o, key, col(st, c));
		}
		strbuf_addf(md, "| %lld | %lld | %lld | %lld | %.0f%% |\n", n, failed, hangs, infra,
			    rate * 100);
		if (o) {
			cJSON_AddNumberToObject(o, "attempts", (double)n);
			cJSON_AddNumberToObject(o, "failed", (double)failed);
			cJSON_AddNumberToObject(o, "hangs", (double)hangs);
			cJSON_AddNumberToObject(o, "infrastructure", (double)infra);
			cJSON_AddNumberToObject(o, "failure_rate", rate);
			cJSON_AddItemToArray(json, o);
		}
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read", err);
}

int history_gpus_report(struct history_db *db, const char *label, int last, bool json,
			struct strbuf *out, struct error *err)
{
	cleanup_cjson cJSON *root = json ? cJSON_CreateObject() : NULL;
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	cJSON *gpus = root ? cJSON_AddArrayToObject(root, "gpus") : NULL;
	cJSON *nodes = root ? cJSON_AddArrayToObject(root, "nodes") : NULL;

	strbuf_addf(&md, "# GPUs over the last %d sweep(s)%s%s\n", last, label ? " of " : "",
		    label ? label : "");
	if (one_table(db, label, last, true, gpus, &md, err) < 0 ||
	    one_table(db, label, last, false, nodes, &md, err) < 0)
		return -1;
	if (root) {
		cleanup_free char *t = cJSON_Print(root);

		strbuf_addstr(out, t);
		strbuf_addch(out, '\n');
	} else {
		strbuf_add(out, md.buf, md.len);
	}
	return 0;
}
