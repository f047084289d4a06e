/* End to end, every simulator scenario: the finding.json the run writes has
 * the outcome, fault class and kernel the rules of docs/findings.md give. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"

struct scenario_case {
	const char *scenario;
	int code;
	const char *outcome;
	const char *fault_class;
	const char *kernel_prefix; /* NULL: the finding must name no kernel */
	const char *label;         /* one label the finding must carry, or NULL */
};

static const struct scenario_case cases[] = {
	{ "pass", 0, "PASS", "replay_pass", NULL, "CLEAN" },
	{ "pass-zero-kernels", 0, "PASS", "replay_pass", NULL, NULL },
	{ "legacy", 0, "PASS", "replay_pass", NULL, NULL },
	{ "incomplete", 0, "PASS", "replay_pass", NULL, "CRASH-TRUNCATED" },
	{ "d2h-fail", 1, "FAIL", "nan_inf_divergence", NULL, "D2H-FAIL" },
	{ "divergence", 1, "FAIL", "nan_inf_divergence", NULL, "D2H-FAIL" },
	{ "maf", 1, "MAF", "illegal_memory_access", "Cijk_", NULL },
	{ "maf-read-only", 1, "MAF", "read_only_page_fault", "Cijk_", NULL },
	/* The runtime names no kernel: hrr-playback --info shows the archive
	 * holds one, so it is inferred (with a note). */
	{ "maf-unattributed", 1, "MAF", "illegal_memory_access", "rms_norm_kernel", NULL },
	/* ... but a name --info cut to its column is never used. */
	{ "maf-unattributed-long", 1, "MAF", "illegal_memory_access", NULL, NULL },
	{ "queue-abort", 1, "ABORT", "replay_aborted", "", NULL },
	{ "fatal", 1, "ABORT", "replay_fatal_api", NULL, NULL },
	{ "version-mismatch", 1, "ABORT", "version_mismatch", NULL, NULL },
	{ "crash", 1, "ABORT", "replay_crashed", NULL, NULL },
	{ "watchdog", 1, "HANG", "hang", "", NULL },
	{ "hang", 1, "HANG", "hang", NULL, NULL },
	/* ROCr's HW exception, then abort(): GPU-side, never replay_crashed. */
	{ "hw-exception", 1, "HANG", "gpu_hang", NULL, NULL },
	{ "hw-exception-ecc", 1, "ABORT", "gpu_ecc_error", NULL, NULL },
	/* The runtime status table (docs/findings.md, "Runtime statuses"). */
	{ "queue-abort-illegal-instruction", 1, "ABORT", "illegal_instruction", NULL, NULL },
	{ "queue-abort-invalid-isa", 1, "ABORT", "code_object_mismatch", "Cijk_", NULL },
	{ "queue-abort-out-of-resources", 1, "ABORT", "out_of_resources", NULL, NULL },
	{ "hip-700-launch", 1, "MAF", "illegal_memory_access", "Cijk_", NULL },
	{ "hip-719", 1, "ABORT", "kernel_fault", NULL, NULL },
	/* FAIL says what failed; upstream's labels from the log. */
	{ "fail-d2h-not-compared", 1, "FAIL", "d2h_not_compared", NULL, NULL },
	{ "fail-regions", 1, "FAIL", "region_violation", NULL, NULL },
	{ "graph-refusal", 1, "ABORT", "replay_fatal_api", NULL, "NOOP-API" },
	{ "noop-handler", 0, "PASS", "replay_pass", NULL, "NOOP-API" },
};


#define N_CASES (sizeof(cases) / sizeof(cases[0]))
static size_t case_index[N_CASES];

/* Criterion re-executes tests in workers: parameters are indices. */
ParameterizedTestParameters(run_findings, every_scenario)
{
	for (size_t i = 0; i < N_CASES; i++)
		case_index[i] = i;
	return cr_make_param_array(size_t, case_index, N_CASES);
}

ParameterizedTest(size_t *index, run_findings, every_scenario, .init = tenv_init, .fini = tenv_fini,
		  .timeout = 120)
{
	const struct scenario_case *c = &cases[*index];
	struct tool_run r;
	cleanup_cjson cJSON *f = run_fixture_finding(&r, c->scenario, "4", c->code);

	assert_finding_verdict(f, c->scenario, c->outcome, c->fault_class, c->kernel_prefix);
	if (c->label) {
		const cJSON *l;
		bool found = false;

		cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(f, "labels"))
			if (cJSON_IsString(l) && !strcmp(l->valuestring, c->label))
				found = true;
		cr_assert(found, "%s: no label %s", c->scenario, c->label);
	}
	tool_run_release(&r);
}

Test(run_findings, a_hw_exception_carries_its_reason_and_is_not_a_crash, .init = tenv_init,
     .fini = tenv_fini, .timeout = 120)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_fixture_finding(&r, "hw-exception", "10", 1);
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(f, "fault_reason");

	cr_assert(cJSON_IsString(reason) && !strcmp(reason->valuestring, "GPU Hang"));
	cr_assert(json_has_note(f, "reason \"GPU Hang\""));
	cr_assert(!json_has_note(f, "workload is untested"), "a GPU fault is not a crash of the replay");
	tool_run_release(&r);
}

Test(run_findings, hrr_playbacks_watchdog_is_named_as_the_one_that_fired, .init = tenv_init,
     .fini = tenv_fini, .timeout = 120)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_fixture_finding(&r, "watchdog", "20", 1);
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(f, "run");

	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(run, "exit_code")->valueint, 124);
	cr_assert(json_has_note(f, "hrr-playback's own sync watchdog ended the replay"));
	cr_assert(json_has_note(f, "not hrr-docker-replay's"));
	tool_run_release(&r);
}

Test(run_findings, recovered_events_are_in_finding_json, .init = tenv_init, .fini = tenv_fini,
     .timeout = 120)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_fixture_finding(&r, "incomplete", "20", 0);
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(f, "archive_recovered_events");

	cr_assert(cJSON_IsNumber(n) && n->valueint > 0, "archive_recovered_events is a count");
	tool_run_release(&r);
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : "(null)";
}

/* `analyze` on the replay.log a run wrote, with the same archive, gives
 * the run's verdict: outcome, class, kernel and labels (the preflight
 * comparison is run's alone). */
Test(run_findings, analyze_agrees_with_run, .init = tenv_init, .fini = tenv_fini, .timeout = 900)
{
	static const struct {
		const char *fixture;
		int code;
	} cases[] = {
		{ "queue-abort-invalid-isa", 1 }, { "hip-700-copy", 1 }, { "hip-702", 1 },
		{ "fail-api-errors", 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tool_run r, a;
		cleanup_cjson cJSON *run = run_fixture_finding(&r, cases[i].fixture, "20",
								cases[i].code);
		cleanup_free char *log = xasprintf("%s/replay.log", r.run_dir);
		cleanup_free char *pid_dir = fixture_pid_dir(cases[i].fixture);
		cleanup_cjson cJSON *an = NULL;
		const cJSON *rl, *al;

		tool_run(&a, (const char *const[]){ "analyze", "--log", log, "--archive", pid_dir,
						    "--format", "json", NULL }, NULL);
		an = cJSON_Parse(a.out.buf);
		cr_assert_not_null(an, "%s: analyze printed no JSON:\n%s%s", cases[i].fixture,
				   a.out.buf, a.err.buf);
		cr_expect_str_eq(jstr(an, "outcome"), jstr(run, "outcome"), "%s", cases[i].fixture);
		cr_expect_str_eq(jstr(an, "fault_class"), jstr(run, "fault_class"), "%s",
				 cases[i].fixture);
		cr_expect_str_eq(jstr(an, "kernel_name"), jstr(run, "kernel_name"), "%s",
				 cases[i].fixture);
		rl = cJSON_GetObjectItemCaseSensitive(run, "labels");
		al = cJSON_GetObjectItemCaseSensitive(an, "labels");
		cr_expect_eq(cJSON_GetArraySize(al), cJSON_GetArraySize(rl), "%s", cases[i].fixture);
		tool_run_release(&a);
		tool_run_release(&r);
	}
}

/* hrr-playback's refusal of a capture root, in a run: nothing replayed,
 * MULTI-PROCESS, and the note names the pid directories it listed. */
Test(run_findings, the_multi_process_refusal_names_the_pid_directories, .init = tenv_init,
     .fini = tenv_fini, .timeout = 120)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = NULL;
	cleanup_free char *log = NULL, *pid_dir = fixture_pid_dir("multi-process-refusal");
	cleanup_cjson cJSON *an = NULL;
	struct tool_run a;

	f = run_fixture_finding(&r, "multi-process-refusal", "20", 1);
	cr_assert(json_has_note(f, "refused the capture root"));
	cr_assert(json_has_note(f, "/pid-4242, "));
	log = xasprintf("%s/replay.log", r.run_dir);
	tool_run(&a, (const char *const[]){ "analyze", "--log", log, "--format", "json", NULL },
		 NULL);
	an = cJSON_Parse(a.out.buf);
	cr_assert_not_null(an, "%s", a.err.buf);
	cr_assert(json_has_note(an, "/pid-4250)"), "analyze names them too");
	cr_assert_str_eq(jstr(an, "outcome"), jstr(f, "outcome"));
	tool_run_release(&a);
	tool_run_release(&r);
}
