#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_changes.h"
#include "orchestrator/jobs/sweep_finish.h"
#include "orchestrator/perf/perf_fdr.h"
#include "orchestrator/perf/perf_nights.h"
#include "orchestrator/sweep/sweep_end_record.h"
#include "tests/support/preflight_fixtures.h"
#include "tests/support/report_text.h"
#include "tests/support/scratch.h"

static char *root;

static void setup(void)
{
	root = scratch_dir("sweep-report");
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
}

TestSuite(sweep_report, .init = setup, .fini = teardown);

static void meta_two_cases(struct sweep_meta *m, const char *id, long long started)
{
	struct sweep_case *c;

	sweep_meta_init(m);
	m->id = xstrdup(id);
	m->label = xstrdup("nightly");
	m->started = started;
	sweep_meta_add_image(m, "img:1");
	for (int i = 0; i < 2; i++) {
		c = sweep_plan_push(&m->plan);
		c->name = xasprintf("lib/c.hrr/pid-%d", i);
		c->archive = xasprintf("/lib/c.hrr/pid-%d", i);
		c->image = xstrdup("img:1");
	}
}

static void result(const char *folder, const char *name, const char *outcome, int attempt)
{
	struct case_result r = { 0 };
	struct error err;
	cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_RESULTS_FILE);

	r.case_name = (char *)name;
	r.image = "img:1";
	r.state = RESULT_DONE;
	case_result_set_verdict(&r, outcome, NULL);
	r.kernel = strcmp(outcome, "PASS") ? "k<T>" : NULL;
	r.attempt = attempt;
	r.run_dir = "runs/x";
	cr_assert_eq(case_result_append(path, &r, &err), 0, "%s", err.msg);
}

/* Night a: pid-0 passes, pid-1 fails; night b: pid-0 fails, pid-1 gives
 * b1 (its regression, and a still-failing or fixed case). */
static void two_nights(struct sweep_meta *a, struct sweep_meta *b, char **fa, char **fb,
		       const char *b1)
{
	struct error err;

	meta_two_cases(a, "nightly-a", 10);
	meta_two_cases(b, "nightly-b", 20);
	cr_assert_eq(sweep_folder_create(root, a->id, fa, &err), 0);
	cr_assert_eq(sweep_folder_create(root, b->id, fb, &err), 0);
	result(*fa, "lib/c.hrr/pid-0", "PASS", 1);
	result(*fa, "lib/c.hrr/pid-1", "MAF", 1);
	result(*fb, "lib/c.hrr/pid-0", "MAF", 1);
	result(*fb, "lib/c.hrr/pid-1", b1, 1);
}

Test(sweep_report, meta_round_trips_and_done_cases_skip_errors)
{
	struct sweep_meta m, back;
	struct error err;
	cleanup_free char *folder = NULL;
	struct sweep_results rs = { 0 };
	bool done[2];
	int next[2];

	meta_two_cases(&m, "nightly-1", 10);
	m.run_options = xstrdup("{\"timeout_s\":5}");
	m.known_issues = xstrdup("/team/known-issues.yaml");
	m.images[0].id = xstrdup("sha256:abc");
	cr_assert_eq(sweep_folder_create(root, m.id, &folder, &err), 0, "%s", err.msg);
	cr_assert_eq(sweep_meta_write(&m, folder, &err), 0, "%s", err.msg);
	sweep_meta_init(&back);
	cr_assert_eq(sweep_meta_read(&back, folder, &err), 0, "%s", err.msg);
	cr_assert_eq(back.plan.n, 2);
	cr_assert_str_eq(back.run_options, "{\"timeout_s\":5}");
	cr_assert_str_eq(back.known_issues, "/team/known-issues.yaml");
	cr_assert_str_eq(sweep_meta_image(&back, "img:1")->id, "sha256:abc");
	free(folder);
	cr_assert_eq(sweep_folder_find(root, "nightly-1", &folder, &err), 0, "%s", err.msg);
	cr_assert_eq(sweep_folder_find(root, "nope", &folder, &err), -1);

	sweep_results_parse_text(&rs, "{\"case\":\"lib/c.hrr/pid-0\",\"image\":\"img:1\","
				      "\"state\":\"error\",\"attempt\":1}\n"
				      "{\"case\":\"lib/c.hrr/pid-1\",\"image\":\"img:1\","
				      "\"state\":\"done\",\"outcome\":\"PASS\",\"attempt\":1}\n");
	sweep_done_cases(&back.plan, &rs, done, next);
	cr_assert(!done[0], "an error is retried on resume");
	cr_assert_eq(next[0], 2);
	cr_assert(done[1]);
	sweep_results_release(&rs);
	sweep_meta_release(&m);
	sweep_meta_release(&back);
}

Test(sweep_report, second_sweep_reports_the_regression_and_exits_1)
{
	struct sweep_meta a, b;
	struct error err;
	struct history_db *db;
	cleanup_free char *fa = NULL, *fb = NULL, *dbp = xasprintf("%s/h.sqlite", root);
	cleanup_free char *junit = xasprintf("%s/copy.xml", root);
	cleanup_strbuf struct strbuf out = STRBUF_INIT, copy = STRBUF_INIT;
	struct sweep_finish f = { .state = SWEEP_FINISHED, .finished = 1, .junit = junit };
	int code = -1;

	cr_assert_eq(history_db_open(&db, dbp, &err), 0, "%s", err.msg);
	two_nights(&a, &b, &fa, &fb, "PASS");
	cr_assert_eq(report_text_sweep(db, &a, fa, &f, &code, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 0, "first sweep: all new");
	strbuf_reset(&out);
	cr_assert_eq(report_text_sweep(db, &b, fb, &f, &code, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 1);
	cr_assert(strstr(out.buf, "## regressed (1)"), "%s", out.buf);
	cr_assert(strstr(out.buf, "## fixed (1)"), "%s", out.buf);
	cr_assert_eq(fs_read_small_file(junit, 1 << 20, &copy, &err), 0, "%s", err.msg);
	cr_assert(strstr(copy.buf, "type=\"regressed\""), "%s", copy.buf);
	for (const char *n = "summary.json"; n; n = NULL) {
		cleanup_free char *p = xasprintf("%s/%s", fb, n);

		cr_assert_eq(access(p, R_OK), 0);
	}
	sweep_meta_release(&a);
	sweep_meta_release(&b);
	history_db_close(db);
}

Test(sweep_report, an_interrupted_sweep_exits_5_not_1_for_its_unrun_cases)
{
	struct report r = { 0 };

	r.counts[ST_NEW] = 2;
	r.counts[ST_MISSING] = 3;
	sweep_finish_exit(&r, SWEEP_INTERRUPTED, SWEEP_FAIL_DEFAULT);
	cr_assert_eq(r.exit_code, 5);
	sweep_finish_exit(&r, SWEEP_FINISHED, SWEEP_FAIL_DEFAULT);
	cr_assert_eq(r.exit_code, 1);
	r.counts[ST_REGRESSED] = 1;
	sweep_finish_exit(&r, SWEEP_INTERRUPTED, SWEEP_FAIL_DEFAULT);
	cr_assert_eq(r.exit_code, 1);
}

/* The night of the issue's "Must show": a known failure regressed, an
 * untriaged one is still failing. */
Test(sweep_report, ignore_known_and_fail_on_untriaged_decide_the_exit_code)
{
	static const char rules[] = "issues:\n"
				    "  - id: BUG-1\n"
				    "    link: https://bugs.example/1\n"
				    "    owner: gemm-team\n"
				    "    match: {case: 'lib/c.hrr/pid-0'}\n";
	static const char expiring[] = "issues:\n"
				       "  - id: BUG-1\n"
				       "    link: https://bugs.example/1\n"
				       "    owner: gemm-team\n"
				       "    expires: 2026-01-31\n"
				       "    match: {case: 'lib/c.hrr/pid-0'}\n";
	struct sweep_meta a, b;
	struct known_issues k;
	struct error err;
	struct history_db *db;
	cleanup_free char *fa = NULL, *fb = NULL, *dbp = xasprintf("%s/h.sqlite", root);
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct sweep_finish f = { .state = SWEEP_FINISHED, .finished = 1, .known = &k };
	int code = -1;

	cr_assert_eq(known_issues_parse("k.yaml", rules, sizeof(rules) - 1, &k, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(history_db_open(&db, dbp, &err), 0, "%s", err.msg);
	two_nights(&a, &b, &fa, &fb, "MAF");
	cr_assert_eq(report_text_sweep(db, &a, fa, &f, &code, &out, &err), 0, "%s", err.msg);

	strbuf_reset(&out);
	cr_assert_eq(report_text_sweep(db, &b, fb, &f, &code, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 1, "by default a known regression still fails the night");

	b.fail_on = SWEEP_FAIL_DEFAULT | SWEEP_FAIL_IGNORE_KNOWN;
	strbuf_reset(&out);
	cr_assert_eq(report_text_sweep(db, &b, fb, &f, &code, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 0, "only the known failure regressed: %s", out.buf);
	cr_assert(strstr(out.buf, "1 known failure(s) not counted (--ignore-known)"), "%s", out.buf);

	b.fail_on |= SWEEP_FAIL_UNTRIAGED;
	strbuf_reset(&out);
	cr_assert_eq(report_text_sweep(db, &b, fb, &f, &code, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 1, "the untriaged still-failing case fails the night: %s", out.buf);
	cr_assert(strstr(out.buf, "1 untriaged failure(s) (--fail-on untriaged)"), "%s", out.buf);

	/* Past its expiry the rule marks nothing, and the summary says why. */
	f.finished = 1769904000 + 86400;
	known_issues_release(&k);
	cr_assert_eq(known_issues_parse("k.yaml", expiring, sizeof(expiring) - 1, &k, &err), 0,
		     "%s", err.msg);
	b.fail_on = SWEEP_FAIL_DEFAULT | SWEEP_FAIL_IGNORE_KNOWN;
	strbuf_reset(&out);
	cr_assert_eq(report_text_sweep(db, &b, fb, &f, &code, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 1, "the regression is untriaged now: %s", out.buf);
	cr_assert(strstr(out.buf, "Expired known-issue rules:\n\n- k.yaml:2: rule BUG-1 expired "
				  "on 2026-01-31: it marks nothing known"), "%s", out.buf);
	cr_assert(strstr(out.buf, "1 untriaged signature(s), 0 known issue(s)"), "%s", out.buf);

	b.fail_on = SWEEP_FAIL_DEFAULT | SWEEP_FAIL_UNTRIAGED;
	known_issues_release(&k);
	cr_assert_eq(known_issues_parse("k.yaml", "issues: []\n", 11, &k, &err), 0, "%s", err.msg);
	strbuf_reset(&out);
	cr_assert_eq(report_text_sweep(db, &b, fb, &f, &code, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 1);
	sweep_meta_release(&a);
	sweep_meta_release(&b);
	known_issues_release(&k);
	history_db_close(db);
}

Test(sweep_report, a_lost_database_is_rebuilt_from_the_sweep_folders)
{
	struct sweep_meta a, b;
	struct error err;
	struct history_db *db1, *db2;
	cleanup_free char *fa = NULL, *fb = NULL;
	cleanup_free char *p1 = xasprintf("%s/one.sqlite", root), *p2 = xasprintf("%s/two.sqlite", root);
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct sweep_finish f = { .state = SWEEP_FINISHED, .finished = 1 };
	int code = -1;

	meta_two_cases(&a, "nightly-a", 10);
	meta_two_cases(&b, "nightly-b", 20);
	cr_assert_eq(sweep_folder_create(root, a.id, &fa, &err), 0);
	cr_assert_eq(sweep_folder_create(root, b.id, &fb, &err), 0);
	cr_assert_eq(sweep_meta_write(&a, fa, &err), 0, "%s", err.msg);
	result(fa, "lib/c.hrr/pid-0", "PASS", 1);
	result(fa, "lib/c.hrr/pid-1", "MAF", 1);
	result(fb, "lib/c.hrr/pid-0", "MAF", 1);
	result(fb, "lib/c.hrr/pid-1", "PASS", 1);
	cr_assert_eq(history_db_open(&db1, p1, &err), 0, "%s", err.msg);
	cr_assert_eq(report_text_sweep(db1, &a, fa, &f, &code, &out, &err), 0, "%s", err.msg);
	history_db_close(db1);
	/* The next night runs with an empty database: a's folder is found. */
	cr_assert_eq(history_db_open(&db2, p2, &err), 0, "%s", err.msg);
	strbuf_reset(&out);
	cr_assert_eq(report_text_sweep(db2, &b, fb, &f, &code, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 1, "%s", out.buf);
	cr_assert(strstr(out.buf, "baseline `nightly-a`"), "%s", out.buf);
	cr_assert(strstr(out.buf, "## regressed (1)"), "%s", out.buf);
	history_db_close(db2);
	sweep_meta_release(&a);
	sweep_meta_release(&b);
}

static char *sweep_state_in(const char *db_path, const char *id)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	char *state = NULL;

	cr_assert_eq(sqlite3_open(db_path, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, "SELECT state FROM sweeps WHERE id = ?1", -1, &st, NULL),
		     SQLITE_OK);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		state = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
	return state;
}

/* A sweep the history does not know is recovered with the end its folder's
 * end record says, never read back out of its reports; a folder from
 * before the record was kept says it in its summary.json, read for those
 * folders alone. */
Test(sweep_report, a_lost_sweeps_end_comes_from_its_end_record)
{
	struct sweep_meta a, c, b;
	struct error err;
	struct history_db *db1, *db2;
	cleanup_free char *fa = NULL, *fc = NULL, *fb = NULL, *sa = NULL, *ec = NULL;
	cleanup_free char *p1 = xasprintf("%s/one.sqlite", root), *p2 = xasprintf("%s/two.sqlite", root);
	cleanup_free char *state_a = NULL, *state_c = NULL;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct sweep_finish partial = { .state = SWEEP_PARTIAL, .finished = 1 };
	struct sweep_finish done = { .state = SWEEP_FINISHED, .finished = 1 };
	enum sweep_state st;
	long long when;
	int code = -1;

	meta_two_cases(&a, "nightly-a", 10);
	meta_two_cases(&c, "nightly-c", 15);
	meta_two_cases(&b, "nightly-b", 20);
	cr_assert_eq(sweep_folder_create(root, a.id, &fa, &err), 0);
	cr_assert_eq(sweep_folder_create(root, c.id, &fc, &err), 0);
	cr_assert_eq(sweep_folder_create(root, b.id, &fb, &err), 0);
	cr_assert_eq(sweep_meta_write(&a, fa, &err), 0, "%s", err.msg);
	cr_assert_eq(sweep_meta_write(&c, fc, &err), 0, "%s", err.msg);
	result(fa, "lib/c.hrr/pid-0", "PASS", 1);
	result(fc, "lib/c.hrr/pid-0", "PASS", 1);
	result(fc, "lib/c.hrr/pid-1", "PASS", 1);
	result(fb, "lib/c.hrr/pid-0", "PASS", 1);
	result(fb, "lib/c.hrr/pid-1", "PASS", 1);
	cr_assert_eq(history_db_open(&db1, p1, &err), 0, "%s", err.msg);
	cr_assert_eq(report_text_sweep(db1, &a, fa, &partial, &code, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(report_text_sweep(db1, &c, fc, &done, &code, &out, &err), 0, "%s", err.msg);
	history_db_close(db1);
	cr_assert_eq(sweep_end_record_read(fa, &st, &when, &err), 0, "%s", err.msg);
	cr_assert_eq(st, SWEEP_PARTIAL);
	/* a keeps only its end record; c is an older folder: no end record. */
	sa = xasprintf("%s/summary.json", fa);
	ec = xasprintf("%s/%s", fc, SWEEP_END_FILE);
	cr_assert_eq(unlink(sa), 0);
	cr_assert_eq(unlink(ec), 0);
	cr_assert_eq(history_db_open(&db2, p2, &err), 0, "%s", err.msg);
	strbuf_reset(&out);
	cr_assert_eq(report_text_sweep(db2, &b, fb, &done, &code, &out, &err), 0, "%s", err.msg);
	history_db_close(db2);
	state_a = sweep_state_in(p2, "nightly-a");
	state_c = sweep_state_in(p2, "nightly-c");
	cr_assert_str_eq(state_a ? state_a : "(none)", "partial");
	cr_assert_str_eq(state_c ? state_c : "(none)", "finished");
	sweep_meta_release(&a);
	sweep_meta_release(&c);
	sweep_meta_release(&b);
}

/* A worker's line is recorded as it came (serialised once, by the worker),
 * and a record is always one line of results.jsonl. */
Test(sweep_report, a_worker_line_is_recorded_verbatim_and_never_split)
{
	cleanup_free char *path = xasprintf("%s/%s", root, SWEEP_RESULTS_FILE);
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct case_result r = { 0 }, back;
	struct error err;

	r.case_name = "lib/c.hrr/pid-1";
	r.image = "img:1";
	r.state = RESULT_DONE;
	r.has_outcome = true;
	r.outcome = OUTCOME_MAF;
	r.kernel = "k<T>";
	r.attempt = 1;
	r.d2h_checked = 4;
	r.d2h_mismatched = 1;
	case_result_to_json(&r, &line);
	cr_assert_eq(case_result_append_line(path, line.buf, &err), 0, "%s", err.msg);
	cr_assert_eq(case_result_append_line(path, "{\"case\":\"a\"}\n{\"case\":\"b\"}", &err), -1);
	cr_assert(strstr(err.msg, "not one line"), "%s", err.msg);
	cr_assert_eq(fs_read_small_file(path, 1 << 20, &text, &err), 0, "%s", err.msg);
	cr_assert_eq(text.len, line.len + 1);
	cr_assert_eq(memcmp(text.buf, line.buf, line.len), 0);
	text.buf[line.len] = '\0';
	cr_assert_eq(case_result_parse(&back, text.buf, &err), 0, "%s", err.msg);
	cr_assert_str_eq(back.kernel, "k<T>");
	cr_assert_eq(back.d2h_mismatched, 1);
	case_result_release(&back);
}

/* A results line written by an earlier version carries the known issue
 * its worker matched: it reads back with it (a worker now writes none;
 * the import marks). The import's marking is this function. */
Test(sweep_report, a_results_line_carries_the_known_issue_a_rule_matched)
{
	static const char rules[] = "issues:\n"
				    "  - id: BUG-3\n"
				    "    link: https://bugs.example/3\n"
				    "    owner: gemm-team\n"
				    "    match: {outcome: MAF, host: 'gpu-node-*', gpu: '*7*'}\n";
	struct known_issues k;
	struct case_result r = { 0 };
	struct sweep_results back = { 0 };
	struct error err;
	cleanup_strbuf struct strbuf line = STRBUF_INIT;

	cr_assert_eq(known_issues_parse("k.yaml", rules, sizeof(rules) - 1, &k, &err), 0, "%s",
		     err.msg);
	r.case_name = xstrdup("lib/c.hrr/pid-1");
	r.image = xstrdup("img:1");
	r.state = RESULT_DONE;
	case_result_set_verdict(&r, "MAF", NULL);
	r.host = xstrdup("gpu-node-7");
	r.gpu_uids = xstrdup("1700");
	signature_make(&r.signature, "MAF", "illegal_memory_access", "k<T>", NULL, NULL, false);
	case_result_mark_known(&r, &k, 1);
	case_result_to_json(&r, &line);
	cr_assert(strstr(line.buf, "\"known\":{\"id\":\"BUG-3\",\"link\":\"https://bugs.example/3\","
				   "\"owner\":\"gemm-team\"}"), "%s", line.buf);
	strbuf_addch(&line, '\n');
	sweep_results_parse_text(&back, line.buf);
	cr_assert_eq(back.n, 1);
	cr_assert_str_eq(back.v[0].known_owner, "gemm-team");
	free(r.host);
	r.host = xstrdup("laptop");
	case_result_mark_known(&r, &k, 1);
	cr_assert_null(r.known_id, "another host: untriaged");
	sweep_results_release(&back);
	case_result_release(&r);
	known_issues_release(&k);
}

/* --perf-baseline, --perf-window and the rule live in plan.json: a resume,
 * a Slurm task and the merge compare as the sweep started (docs/perf.md). */
Test(sweep_report, the_perf_comparison_options_round_trip_through_plan_json)
{
	struct sweep_meta m, back, old;
	struct error err;
	cleanup_free char *folder = NULL, *plan = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	meta_two_cases(&m, "nightly-p", 10);
	m.perf_baseline = xstrdup("img:1");
	m.perf_window = 3;
	m.perf_rule = (struct perf_rule){ 0.05, 0.02, 0.04 };
	m.perf_adaptive = 15;
	m.perf_family = (struct perf_family){ 0.1, 30 };
	cr_assert_eq(sweep_folder_create(root, m.id, &folder, &err), 0, "%s", err.msg);
	cr_assert_eq(sweep_meta_write(&m, folder, &err), 0, "%s", err.msg);
	sweep_meta_init(&back);
	cr_assert_eq(sweep_meta_read(&back, folder, &err), 0, "%s", err.msg);
	cr_assert_str_eq(back.perf_baseline, "img:1");
	cr_assert_eq(back.perf_window, 3);
	cr_assert_float_eq(back.perf_rule.threshold, 0.05, 1e-12);
	cr_assert_float_eq(back.perf_rule.alpha, 0.02, 1e-12);
	cr_assert_float_eq(back.perf_rule.max_cv, 0.04, 1e-12);
	cr_assert_eq(back.perf_adaptive, 15);
	cr_assert_float_eq(back.perf_family.fdr, 0.1, 1e-12);
	cr_assert_eq(back.perf_family.noise_nights, 30);

	/* A plan.json from before, or with values out of range: the defaults. */
	plan = xasprintf("%s/%s", folder, SWEEP_PLAN_FILE);
	cr_assert_eq(fs_read_small_file(plan, 1 << 20, &text, &err), 0, "%s", err.msg);
	cleanup_cjson cJSON *j = cJSON_Parse(text.buf);
	cJSON *p = cJSON_GetObjectItem(j, "perf");

	cJSON_ReplaceItemInObject(p, "alpha", cJSON_CreateNumber(7));
	cJSON_ReplaceItemInObject(p, "fdr", cJSON_CreateNumber(1));
	cJSON_DeleteItemFromObject(p, "noise_nights");
	cJSON_DeleteItemFromObject(p, "baseline");
	cJSON_ReplaceItemInObject(p, "adaptive", cJSON_CreateNumber(1000));
	cleanup_free char *edited = cJSON_Print(j);

	cr_assert_eq(fs_write_atomic(plan, edited, strlen(edited), 0644, &err), 0, "%s", err.msg);
	sweep_meta_init(&old);
	cr_assert_eq(sweep_meta_read(&old, folder, &err), 0, "%s", err.msg);
	cr_assert_null(old.perf_baseline);
	cr_assert_float_eq(old.perf_rule.alpha, PERF_ALPHA_DEFAULT, 1e-12);
	cr_assert_float_eq(old.perf_family.fdr, PERF_FDR_DEFAULT, 1e-12);
	cr_assert_eq(old.perf_family.noise_nights, PERF_NOISE_NIGHTS_DEFAULT);
	cr_assert_eq(old.perf_window, 3);
	cr_assert_eq(old.perf_adaptive, 0, "above the maximum: off");
	sweep_meta_release(&m);
	sweep_meta_release(&back);
	sweep_meta_release(&old);
}

/* A results line of a passing case with five GPU-time samples around ms. */
static void timed(const char *folder, const char *name, const char *image_id, double ms)
{
	static const double wobble[] = { 0, 0.2, -0.2, 0.1, -0.1 };
	cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_RESULTS_FILE);
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	struct error err;

	strbuf_addf(&line, "{\"case\":\"%s\",\"image\":\"img:1\",\"image_id\":\"%s\","
			   "\"digest\":\"d\",\"state\":\"done\",\"outcome\":\"PASS\",\"attempt\":1,"
			   "\"gfx\":\"gfx942\",\"device_id\":29857,\"driver\":\"6.8.5\","
			   "\"perf\":{\"warmup\":0,\"note\":null,\"samples\":[",
		    name, image_id);
	for (int i = 0; i < 5; i++)
		strbuf_addf(&line, "%s{\"kernel_ms\":%.1f,\"graph_ms\":0,\"total_ms\":%.1f,"
				   "\"wall_ms\":900}", i ? "," : "", ms + wobble[i], ms + wobble[i]);
	strbuf_addstr(&line, "]}}");
	cr_assert_eq(case_result_append_line(path, line.buf, &err), 0, "%s", err.msg);
}

/* One night's sweep of the two cases, its report, the cases' perf. */
static cJSON *night(struct history_db *db, const char *id, long long started, double ms0,
		    const char *image_id0, long window, sweep_status_mask fail_on, int *code)
{
	struct sweep_meta m;
	struct error err;
	cleanup_free char *folder = NULL;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct sweep_finish f = { .state = SWEEP_FINISHED, .finished = started, .json = true };
	cJSON *j;

	meta_two_cases(&m, id, started);
	m.perf_window = window;
	m.fail_on = fail_on;
	cr_assert_eq(sweep_folder_create(root, m.id, &folder, &err), 0, "%s", err.msg);
	timed(folder, "lib/c.hrr/pid-0", image_id0, ms0);
	timed(folder, "lib/c.hrr/pid-1", "sha256:a", 40);
	cr_assert_eq(report_text_sweep(db, &m, folder, &f, code, &out, &err), 0, "%s", err.msg);
	sweep_meta_release(&m);
	j = cJSON_Parse(out.buf);
	cr_assert_not_null(j, "%s", out.buf);
	return j;
}

static const cJSON *perf_of(const cJSON *summary, int i)
{
	return cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(summary, "cases"), i),
				   "perf");
}

static const char *status_of(const cJSON *summary, int i)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(perf_of(summary, i), "status"));
}

/* Across nights (docs/perf.md "Across nights"): a case 10% slower than
 * the night before is slower, with the sweep it was compared with; the
 * same image, archive and driver again are never slower; a window of 2
 * takes the last two nights' medians. */
Test(sweep_report, gpu_time_against_the_nights_before)
{
	struct history_db *db;
	struct error err;
	cleanup_free char *dbp = xasprintf("%s/h.sqlite", root);
	const sweep_status_mask fail = SWEEP_FAIL_DEFAULT | SWEEP_FAIL_PERF_SLOWER;
	int code = -1;

	cr_assert_eq(history_db_open(&db, dbp, &err), 0, "%s", err.msg);
	cleanup_cjson cJSON *n1 = night(db, "nightly-1", 10, 40, "sha256:a", 1, fail, &code);

	cr_assert_null(perf_of(n1, 0), "nothing before the first night");
	cr_assert_eq(code, 0);

	cleanup_cjson cJSON *n2 = night(db, "nightly-2", 20, 44, "sha256:b", 1, fail, &code);

	cr_assert_str_eq(status_of(n2, 0), "slower", "%s", cJSON_Print(n2));
	cr_assert_str_eq(status_of(n2, 1), "unchanged");
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(
				 perf_of(n2, 0), "baseline_sweeps"), 0)), "nightly-1");
	cr_assert_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(perf_of(n2, 0), "ratio")),
			   1.1, 1e-9);
	cr_assert_eq(code, 1, "slower with perf-slower in --fail-on");

	/* The same build again, 5% slower still: same-build, never slower. */
	cleanup_cjson cJSON *n3 = night(db, "nightly-3", 30, 46.2, "sha256:b", 1, fail, &code);

	cr_assert_str_eq(status_of(n3, 0), "same-build", "%s", cJSON_Print(n3));
	cr_assert_eq(code, 0);

	/* Two nights back: both sweeps, newest first; each night is one
	 * observation, its median (docs/perf.md "Nights as units"). */
	cleanup_cjson cJSON *n4 = night(db, "nightly-4", 40, 46.2, "sha256:b", 2, fail, &code);
	const cJSON *w = cJSON_GetObjectItem(perf_of(n4, 1), "baseline_sweeps");

	cr_assert_eq(cJSON_GetArraySize(w), 2, "%s", cJSON_Print(n4));
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(w, 0)), "nightly-3");
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(w, 1)), "nightly-2");
	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(perf_of(n4, 1), "n_baseline")), 2);
	history_db_close(db);
}

/* Nights as units (docs/perf.md "Nights as units"): once 5 nights exist a
 * case's spread is learned from its nightly medians, whatever image ID
 * each night ran. One that moves about 9% night to night is noisy at an
 * 8.5% change; one that never moves is unchanged; both p are reported. */
Test(sweep_report, gpu_time_noise_is_learned_per_case)
{
	static const double medians[] = { 40, 44, 37, 43, 38, 41 };
	struct history_db *db;
	struct error err;
	cleanup_free char *dbp = xasprintf("%s/n.sqlite", root);
	int code = -1;

	cr_assert_eq(history_db_open(&db, dbp, &err), 0, "%s", err.msg);
	for (int i = 0; i < 6; i++) {
		cleanup_free char *id = xasprintf("nightly-%d", i + 1);
		cleanup_free char *image_id = xasprintf("sha256:n%d", i + 1);

		cJSON_Delete(night(db, id, 10 * (i + 1), medians[i], image_id, 1,
				   SWEEP_FAIL_DEFAULT, &code));
	}
	cleanup_cjson cJSON *n7 = night(db, "nightly-7", 70, 44.5, "sha256:n7", 1,
					SWEEP_FAIL_DEFAULT, &code);
	const cJSON *p = perf_of(n7, 0);

	cr_assert_str_eq(status_of(n7, 0), "noisy", "%s", cJSON_Print(n7));
	/* The MAD of the logs of the six medians, (0.0599 + 0.0637) / 2, x 1.4826. */
	cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "night_spread")), 0.0916,
			   5e-4, "%s", cJSON_Print(p));
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "nights")), 6);
	cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(p, "p_adjusted")), "%s", cJSON_Print(p));
	cr_assert_str_eq(status_of(n7, 1), "unchanged", "%s", cJSON_Print(n7));
	history_db_close(db);
}

/* JUnit's failure text is finding.md's text the results line carried,
 * from the history; a line written before lines carried it (an older
 * folder) falls back to the run folder's finding.md. */
Test(sweep_report, the_failure_text_is_the_lines_finding_else_the_run_folders)
{
	struct sweep_meta a;
	struct error err;
	struct history_db *db;
	cleanup_free char *fa = NULL, *dbp = xasprintf("%s/h.sqlite", root);
	cleanup_free char *junit = xasprintf("%s/copy.xml", root);
	cleanup_free char *md = NULL, *results = NULL;
	cleanup_strbuf struct strbuf out = STRBUF_INIT, copy = STRBUF_INIT;
	struct sweep_finish f = { .state = SWEEP_FINISHED, .finished = 1, .junit = junit };
	struct case_result r = { 0 };
	int code = -1;

	cr_assert_eq(history_db_open(&db, dbp, &err), 0, "%s", err.msg);
	meta_two_cases(&a, "nightly-a", 10);
	cr_assert_eq(sweep_folder_create(root, a.id, &fa, &err), 0);
	md = xasprintf("%s/runs/x", fa);
	cr_assert_eq(fs_mkdir_p(md, 0755, &err), 0, "%s", err.msg);
	free(md);
	md = xasprintf("%s/runs/x/finding.md", fa);
	cr_assert_eq(fs_write_atomic(md, "# from the folder\n", 18, 0644, &err), 0, "%s", err.msg);
	result(fa, "lib/c.hrr/pid-1", "MAF", 1);
	r.case_name = "lib/c.hrr/pid-0";
	r.image = "img:1";
	r.state = RESULT_DONE;
	case_result_set_verdict(&r, "HANG", NULL);
	r.attempt = 1;
	r.run_dir = "runs/x";
	case_result_set_finding_md(&r, "# carried\n");
	cr_assert_str_eq(r.finding_md, "# carried\n");
	results = xasprintf("%s/%s", fa, SWEEP_RESULTS_FILE);
	cr_assert_eq(case_result_append(results, &r, &err), 0, "%s", err.msg);
	free(r.finding_md);
	cr_assert_eq(report_text_sweep(db, &a, fa, &f, &code, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(fs_read_small_file(junit, 1 << 20, &copy, &err), 0, "%s", err.msg);
	cr_expect(strstr(copy.buf, "# carried"), "%s", copy.buf);
	cr_expect(strstr(copy.buf, "# from the folder"), "%s", copy.buf);
	cr_expect(strstr(copy.buf, "# carried") < strstr(copy.buf, "# from the folder"),
		  "pid-0's text is the line's, pid-1's the folder's: %s", copy.buf);
	sweep_meta_release(&a);
	history_db_close(db);
}

/* A series restarts at an accepted change (docs/perf.md "Change points"):
 * the nights before it are neither the level nor the spread, so a step a
 * user accepted is not compared with the nights before it again. */
Test(sweep_report, gpu_time_nights_restart_at_an_accepted_change)
{
	static const double medians[] = { 40, 40, 40, 48, 48 };
	struct history_db *db;
	struct error err;
	cleanup_free char *dbp = xasprintf("%s/r.sqlite", root);
	cleanup_free char *label = NULL;
	int code = -1;

	cr_assert_eq(history_db_open(&db, dbp, &err), 0, "%s", err.msg);
	for (int i = 0; i < 5; i++) {
		cleanup_free char *id = xasprintf("nightly-%d", i + 1);
		cleanup_free char *image_id = xasprintf("sha256:r%d", i + 1);

		cJSON_Delete(night(db, id, 10 * (i + 1), medians[i], image_id, 4,
				   SWEEP_FAIL_DEFAULT, &code));
	}
	cr_assert_eq(history_changes_accept(db, "lib/c.hrr/pid-0", "nightly-4", &label, &err), 0,
		     "%s", err.msg);
	cr_assert_str_eq(label, "nightly");

	cleanup_cjson cJSON *n6 = night(db, "nightly-6", 60, 48, "sha256:r6", 4,
					SWEEP_FAIL_DEFAULT, &code);
	const cJSON *w = cJSON_GetObjectItem(perf_of(n6, 0), "baseline_sweeps");

	cr_assert_eq(cJSON_GetArraySize(w), 2, "%s", cJSON_Print(n6));
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(w, 0)), "nightly-5");
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(w, 1)), "nightly-4");
	cr_assert_str_eq(status_of(n6, 0), "unchanged", "%s", cJSON_Print(n6));
	/* The other case has no change: its four nights are read. */
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(perf_of(n6, 1), "baseline_sweeps")), 4);
	history_db_close(db);
}
