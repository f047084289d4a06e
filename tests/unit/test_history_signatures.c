/* Schema 5: failure signatures in the history, the partial ones of rows
 * stored before, `history signatures`
 * (orchestrator/history/history_signatures.c) and `history known`
 * (orchestrator/history/history_known.c). */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/history/history_known.h"
#include "orchestrator/history/history_signatures.h"
#include "orchestrator/history/history_sql.h"
#include "tests/support/history_backend.h"
#include "tests/support/preflight_fixtures.h"
#include "tests/support/scratch.h"

static char *root, *dbpath;

static void setup(void)
{
	root = scratch_dir("history-sig");
	cleanup_free char *file = xasprintf("%s/history.sqlite", root);

	dbpath = history_backend_db(file);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(dbpath);
}

TestSuite(history_signatures, .init = setup, .fini = teardown);

static void exec(sqlite3 *h, const char *sql)
{
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(h));
}

Test(history_signatures, rows_stored_before_schema_5_get_a_partial_signature)
{
	struct history_db *db;
	struct error err;
	sqlite3 *h;
	sqlite3_stmt *st;
	struct signature want;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	HISTORY_SQLITE_ONLY(); /* a database an older schema left */
	pft_writef(dbpath, "%s", "");
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	for (int v = 0; v < 4; v++)
		exec(h, history_migrations[v]);
	exec(h, "PRAGMA user_version = 4");
	exec(h, "INSERT INTO sweeps(id, label, started, state) VALUES('s1', 'nightly', 1, 'finished')");
	exec(h, "INSERT INTO results(sweep, case_name, image_ref, attempt, state, outcome, fault_class,"
		" kernel, classifier_version) VALUES('s1', 'c1', 'img', 1, 'done', 'MAF',"
		" 'illegal_memory_access', 'void k<4>(float*)', 3),"
		" ('s1', 'c2', 'img', 1, 'done', 'MAF', 'illegal_memory_access', '_Z1kILi8EEvPf', 3),"
		" ('s1', 'c3', 'img', 1, 'done', 'PASS', 'replay_pass', NULL, 3)");
	sqlite3_close(h);

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	history_db_close(db);

	signature_init(&want);
	signature_make(&want, "MAF", "illegal_memory_access", "k", NULL, NULL, true);
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, "SELECT case_name, sig_id, sig_family, sig_partial FROM"
					" results ORDER BY case_name", -1, &st, NULL), SQLITE_OK);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
		cr_assert_str_eq((const char *)sqlite3_column_text(st, 1), want.id);
		cr_assert_str_eq((const char *)sqlite3_column_text(st, 2), "k");
		cr_assert_eq(sqlite3_column_int(st, 3), 1);
	}
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_null(sqlite3_column_text(st, 1), "a PASS has no signature");
	sqlite3_finalize(st);
	sqlite3_close(h);

	cr_assert_eq(history_db_open_readonly(&db, dbpath, &err), 0, "%s", err.msg);
	cr_assert_eq(history_signatures_report(db, NULL, 10, false, &out, &err), 0, "%s", err.msg);
	history_db_close(db);
	cr_assert(strstr(out.buf, want.id) && strstr(out.buf, "(partial)"), "%s", out.buf);
	cr_assert(strstr(out.buf, "| 2 | 1 |"), "two cases, one sweep: %s", out.buf);
	cr_assert(strstr(out.buf, "      kernel_family: 'k'\n"), "%s", out.buf);
	signature_release(&want);
}

static void result(struct sweep_results *rs, const char *c, const char *kernel, int cv,
		   const char *evidence, const char *known)
{
	struct case_result *r;

	rs->v = xrealloc(rs->v, (rs->n + 1) * sizeof(*rs->v));
	r = &rs->v[rs->n++];
	memset(r, 0, sizeof(*r));
	r->case_name = xstrdup(c);
	r->image = xstrdup("img");
	r->attempt = 1;
	r->state = RESULT_DONE;
	case_result_set_verdict(r, "MAF", "illegal_memory_access");
	r->kernel = xstrdup(kernel);
	r->classifier_version = cv;
	signature_make(&r->signature, "MAF", "illegal_memory_access", kernel, evidence, NULL, false);
	r->known_id = xstrdup_or_null(known);
}

static void import(struct history_db *db, const char *id, long long started,
		   const struct sweep_results *rs)
{
	struct history_planned p[4];
	struct history_sweep s = { .id = id, .label = "nightly", .state = "finished",
				   .started = started, .folder = id };
	struct error err;
	bool rebuilt;

	for (size_t i = 0; i < rs->n; i++)
		p[i] = (struct history_planned){ .case_name = rs->v[i].case_name, .image = "img" };
	cr_assert_eq(history_db_import(db, &s, p, rs->n, rs, &rebuilt, &err), 0, "%s", err.msg);
}

/* Version 5 (issue 40): a memory fault after an EXCEPTION queue abort is a
 * MAF on the memory-fault line, no longer the exception's replay_aborted. */
Test(history_signatures, classifier_version_5_shows_old_to_new)
{
	struct history_db *db;
	struct error err;
	struct sweep_results a = { 0 }, b = { 0 };
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	result(&a, "c1", "void k<1>()", 4,
	       "Callback: Queue 0x1 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL "
	       "operation resulted in a hardware exception. code: 0x1016", NULL);
	import(db, "s1", 1, &a);
	result(&b, "c1", "void k<1>()", FINDING_CLASSIFIER_VERSION,
	       "Device::callbackQueue aborting with error : HSA_STATUS_ERROR_MEMORY_FAULT: Agent "
	       "attempted to access an inaccessible address. code: 0x2b", NULL);
	import(db, "s2", 2, &b);
	cr_assert_eq(history_signatures_report(db, NULL, 10, false, &out, &err), 0, "%s", err.msg);
	cr_assert(strstr(out.buf, "(classifier 4 -> 5)"), "%s", out.buf);
	sweep_results_release(&a);
	sweep_results_release(&b);
	history_db_close(db);
}

Test(history_signatures, unmatched_by_cases_and_a_classifier_change_old_to_new)
{
	struct history_db *db;
	struct error err;
	struct sweep_results a = { 0 }, b = { 0 };
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	result(&a, "c1", "void k<1>()", 3, "Memory access fault by GPU node-1 on address 0x1.", NULL);
	result(&a, "c2", "void k<2>()", 3, "Memory access fault by GPU node-2 on address 0x2.", NULL);
	result(&a, "c3", "void other()", 3, "Memory access fault by GPU node-2 on address 0x2.", "BUG-1");
	import(db, "s1", 1, &a);
	/* The next night a newer classifier reads c1's fault on another line. */
	result(&b, "c1", "void k<1>()", 4, "[HRR] Fatal: thread 1 Event 2 (hipMemcpy) failed", NULL);
	import(db, "s2", 2, &b);
	cr_assert_eq(history_signatures_report(db, NULL, 10, true, &out, &err), 0, "%s", err.msg);
	j = cJSON_Parse(out.buf);
	cr_assert_not_null(j, "%s", out.buf);
	{
		const cJSON *u = cJSON_GetObjectItem(j, "untriaged");
		const cJSON *first = cJSON_GetArrayItem(u, 0), *changed = cJSON_GetObjectItem(j, "changed");

		cr_assert_eq(cJSON_GetArraySize(u), 2, "%s", out.buf);
		cr_assert_eq(cJSON_GetObjectItem(first, "cases")->valueint, 2, "the known one is not listed");
		cr_assert_eq(cJSON_GetArraySize(changed), 1, "%s", out.buf);
		cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(changed, 0), "new_classifier_version")->valueint, 4);
		cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(changed, 0), "old")->valuestring,
				 cJSON_GetObjectItem(cJSON_GetObjectItem(first, "signature"), "id")->valuestring);
	}
	sweep_results_release(&a);
	sweep_results_release(&b);
	history_db_close(db);
}

/* Rules are matched now against what the window holds, first rule first:
 * counts per rule, the ones that matched nothing, the expired one. */
Test(history_signatures, history_known_counts_each_rule_and_names_the_idle_ones)
{
	static const char rules[] = "issues:\n"
				    "  - id: BUG-1\n"
				    "    link: https://bugs.example/1\n"
				    "    owner: gemm-team\n"
				    "    match: {case: c1}\n"
				    "  - id: BUG-2\n"
				    "    link: https://bugs.example/2\n"
				    "    owner: runtime\n"
				    "    match: {kernel_family: 'never*'}\n"
				    "  - id: BUG-3\n"
				    "    link: https://bugs.example/3\n"
				    "    owner: runtime\n"
				    "    expires: 2020-01-01\n"
				    "    match: {outcome: MAF}\n"
				    "  - id: BUG-4\n"
				    "    link: https://bugs.example/4\n"
				    "    owner: runtime\n"
				    "    match: {outcome: MAF}\n";
	struct history_db *db;
	struct known_issues k;
	struct error err;
	sqlite3 *h;
	cleanup_strbuf struct strbuf md = STRBUF_INIT, js = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;

	HISTORY_SQLITE_ONLY(); /* a database an older schema left */
	pft_writef(dbpath, "%s", "");
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	for (int v = 0; v < 4; v++)
		exec(h, history_migrations[v]);
	exec(h, "PRAGMA user_version = 4");
	exec(h, "INSERT INTO sweeps(id, label, started, state) VALUES"
		" ('s1', 'nightly', 1700000000, 'finished'), ('s2', 'nightly', 1700086400, 'finished'),"
		" ('o1', 'other', 1700090000, 'finished')");
	exec(h, "INSERT INTO results(sweep, case_name, image_ref, attempt, state, outcome, fault_class,"
		" kernel, classifier_version) VALUES"
		" ('s1', 'c1', 'img', 1, 'done', 'MAF', 'illegal_memory_access', 'k', 3),"
		" ('s1', 'c1', 'img', 2, 'done', 'MAF', 'illegal_memory_access', 'k', 3),"
		" ('s2', 'c1', 'img', 1, 'done', 'MAF', 'illegal_memory_access', 'k', 3),"
		" ('s2', 'c2', 'img', 1, 'done', 'MAF', 'illegal_memory_access', 'g', 3),"
		" ('s2', 'c3', 'img', 1, 'done', 'PASS', 'replay_pass', NULL, 3),"
		" ('o1', 'c1', 'img', 1, 'done', 'MAF', 'illegal_memory_access', 'k', 3)");
	sqlite3_close(h);
	cr_assert_eq(known_issues_parse("k.yaml", rules, sizeof(rules) - 1, &k, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	cr_assert_eq(history_known_report(db, &k, "nightly", 10, 1800000000, false, &md, &err), 0,
		     "%s", err.msg);
	cr_assert(strstr(md.buf, "| BUG-1 | gemm-team | https://bugs.example/1 | 2 | 1 | 2 | "
				 "2023-11-15 | matching |"), "two sweeps of c1, its retry once: %s",
		  md.buf);
	cr_assert(strstr(md.buf, "| BUG-2 | runtime | https://bugs.example/2 | 0 | 0 | 0 | - | "
				 "maybe fixed |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| BUG-3 | runtime | https://bugs.example/3 | 0 | 0 | 0 | - | "
				 "expired |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| BUG-4 | runtime | https://bugs.example/4 | 1 | 1 | 1 | "
				 "2023-11-15 | matching |"), "c1 went to BUG-1 first: %s", md.buf);
	cr_assert(strstr(md.buf, "2 rule(s) matched no failure"), "%s", md.buf);
	cr_assert_eq(history_known_report(db, &k, NULL, 1, 1800000000, true, &js, &err), 0, "%s",
		     err.msg);
	j = cJSON_Parse(js.buf);
	cr_assert(cJSON_IsArray(j) && cJSON_GetArraySize(j) == 4, "%s", js.buf);
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "failures")->valueint, 1,
		     "the last sweep of any label: other's o1: %s", js.buf);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 1), "state")),
			 "maybe fixed");
	history_db_close(db);
	known_issues_release(&k);
}
