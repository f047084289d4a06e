#include "orchestrator/history/history_signatures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/finding/signature_json.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"

#define LAST_SWEEPS HISTORY_LAST_SWEEPS

/* Each case's signatures in sweep order, with the classifier that gave them. */
static const char changes_sql[] =
	"SELECT r.case_name, r.image_ref, r.sig_id, r.classifier_version"
	" FROM results r JOIN " LAST_SWEEPS " s ON s.id = r.sweep"
	" WHERE r.sig_id IS NOT NULL"
	" ORDER BY r.case_name, r.image_ref, s.started_us, r.attempt";

static int untriaged(struct history_db *db, const char *label, int last, cJSON *json,
		     struct strbuf *md, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	cleanup_strbuf struct strbuf rules = STRBUF_INIT;
	size_t n = 0;
	int rc;

	if (history_sql_prepare(db, history_dialect_sql(db, HSQL_UNTRIAGED), &st, err) < 0)
		return -1;
	bind_text(st, 1, label);
	history_bind_int(st, 2, last);
	strbuf_addstr(md, "\n## Untriaged signatures\n\n| signature | outcome | fault class | "
			  "kernel family | evidence | cases | sweeps | first seen | last seen |\n"
			  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	while ((rc = history_step(st)) == HISTORY_ROW) {
		struct signature sig;
		long long cases = history_col_int64(st, 7), sweeps = history_col_int64(st, 8);
		char first[16], lastseen[16];
		cJSON *o;

		signature_init(&sig);
		signature_from_parts(&sig, col(st, 1), col(st, 2), col(st, 3), col(st, 4), col(st, 5),
				     history_col_int(st, 6) != 0);
		if (!signature_set(&sig))
			continue;
		history_day(first, sizeof(first), history_col_int64(st, 9));
		history_day(lastseen, sizeof(lastseen), history_col_int64(st, 10));
		strbuf_addf(md, "| `%s`%s | %s | ", sig.id, sig.partial ? " (partial)" : "", sig.outcome);
		text_markdown_cell(md, sig.fault_class);
		strbuf_addstr(md, " | ");
		text_markdown_cell(md, sig.kernel_family ? sig.kernel_family : "-");
		strbuf_addstr(md, " | ");
		text_markdown_cell(md, sig.evidence ? sig.evidence : "-");
		strbuf_addf(md, " | %lld | %lld | %s | %s |\n", cases, sweeps, first, lastseen);
		strbuf_addf(&rules, "\n`%s`:\n\n```yaml\n", sig.id);
		signature_rule_yaml(&sig, &rules);
		strbuf_addstr(&rules, "```\n");
		if (json) {
			struct strbuf rule = STRBUF_INIT;

			o = cJSON_CreateObject();
			cJSON_AddItemToObject(o, "signature", signature_to_json(&sig));
			cJSON_AddNumberToObject(o, "cases", (double)cases);
			cJSON_AddNumberToObject(o, "sweeps", (double)sweeps);
			cJSON_AddStringToObject(o, "first_seen", first);
			cJSON_AddStringToObject(o, "last_seen", lastseen);
			signature_rule_yaml(&sig, &rule);
			cJSON_AddStringToObject(o, "rule", rule.buf);
			strbuf_release(&rule);
			cJSON_AddItemToArray(json, o);
		}
		signature_release(&sig);
		n++;
	}
	if (rc != HISTORY_DONE)
		return history_sql_error(db, rc, "read", err);
	if (!n)
		strbuf_addstr(md, "\nNone: every failure matched a known issue.\n");
	else
		strbuf_addf(md, "\n### Rules to paste (under `issues:`)\n%s", rules.buf);
	return 0;
}

/* A signature a case had, then another after a classifier version change:
 * old -> new, once per pair. */
static int changes(struct history_db *db, const char *label, int last, cJSON *json,
		   struct strbuf *md, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	cleanup_strbuf struct strbuf seen = STRBUF_INIT, key = STRBUF_INIT;
	cleanup_free char *prev_case = NULL, *prev_sig = NULL;
	int prev_cv = -1, rc;
	size_t n = 0;

	if (history_sql_prepare(db, changes_sql, &st, err) < 0)
		return -1;
	bind_text(st, 1, label);
	history_bind_int(st, 2, last);
	strbuf_addch(&seen, '\n');
	while ((rc = history_step(st)) == HISTORY_ROW) {
		cleanup_free char *cas = xasprintf("%s\x1f%s", col(st, 0), col(st, 1));
		const char *sig = col(st, 2);
		int cv = history_col_int(st, 3);

		if (prev_case && !strcmp(prev_case, cas) && strcmp(prev_sig, sig) && prev_cv != cv) {
			strbuf_reset(&key);
			strbuf_addf(&key, "\n%s>%s\n", prev_sig, sig);
			if (!strstr(seen.buf, key.buf)) {
				strbuf_addstr(&seen, key.buf + 1);
				if (!n++)
					strbuf_addstr(md, "\n## Signatures a classifier version changed\n\n");
				strbuf_addf(md, "* `%s` -> `%s` (classifier %d -> %d)\n", prev_sig, sig,
					    prev_cv, cv);
				if (json) {
					cJSON *o = cJSON_CreateObject();

					cJSON_AddStringToObject(o, "old", prev_sig);
					cJSON_AddStringToObject(o, "new", sig);
					cJSON_AddNumberToObject(o, "old_classifier_version", prev_cv);
					cJSON_AddNumberToObject(o, "new_classifier_version", cv);
					cJSON_AddItemToArray(json, o);
				}
			}
		}
		free(prev_case);
		free(prev_sig);
		prev_case = xstrdup(cas);
		prev_sig = xstrdup(sig);
		prev_cv = cv;
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read", err);
}

int history_signatures_report(struct history_db *db, const char *label, int last, bool json,
			      struct strbuf *out, struct error *err)
{
	cleanup_cjson cJSON *root = json ? cJSON_CreateObject() : NULL;
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	cJSON *sigs = root ? cJSON_AddArrayToObject(root, "untriaged") : NULL;
	cJSON *changed = root ? cJSON_AddArrayToObject(root, "changed") : NULL;

	strbuf_addf(&md, "# Signatures over the last %d sweep(s)%s%s\n", last, label ? " of " : "",
		    label ? label : "");
	if (untriaged(db, label, last, sigs, &md, err) < 0 ||
	    changes(db, label, last, changed, &md, err) < 0)
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
