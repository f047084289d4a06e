/* `analyze` as the command layer runs it: the merge rule of several logs
 * (docs/findings.md, "Merging several inputs"), -o as a copy of stdout, and
 * one JSON object on every path with --format json. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/cli/cmd_analyze.h"
#include "tests/support/finding_samples.h"
#include "tests/support/run_support.h"
#include "tests/support/scratch.h"

/* Each test's scratch directory, and stdout/stderr captured for reading. */
static char *tmp;

static void capture_and_scratch(void)
{
	cr_redirect_stderr();
	cr_redirect_stdout();
	tmp = scratch_dir("cmd-analyze");
}

static void drop_scratch(void)
{
	scratch_remove(tmp);
	free(tmp);
	tmp = NULL;
}

TestSuite(cmd_analyze, .init = capture_and_scratch, .fini = drop_scratch);

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* What the command printed on stdout so far. */
static char *stdout_text(void)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *captured;
	int c;

	fflush(stdout);
	captured = cr_get_redirected_stdout();
	while ((c = fgetc(captured)) != EOF)
		strbuf_addch(&sb, (char)c);
	return strbuf_detach(&sb, NULL);
}

static char *file_text(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	cr_assert(read_text(path, &sb), "%s was not written", path);
	return strbuf_detach(&sb, NULL);
}

/* Exactly one JSON object, parsed strictly (nothing before or after it). */
static cJSON *one_object(const char *text)
{
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithOpts(text, &end, 1);

	cr_assert_not_null(j, "not one JSON object: %s", text);
	cr_assert(cJSON_IsObject(j));
	return j;
}

static const char *str(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int num(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);

	cr_assert(cJSON_IsNumber(v), "no number %s", k);
	return v->valueint;
}

Test(cmd_analyze, a_pass_after_a_failure_does_not_erase_it)
{
	cleanup_free char *maf = fs_sample_path("maf_no_kernel.log");
	cleanup_free char *pass = fs_sample_path("pass_clean.log");
	char *argv[] = { "analyze", "--log", maf, "--log", pass, "--format", "json" };
	cleanup_free char *out = NULL;
	cleanup_cjson cJSON *j = NULL;
	cleanup_free char *notes = NULL;

	cr_assert_eq(cmd_analyze(ARGC(argv), argv), 0);
	out = stdout_text();
	j = one_object(out);
	cr_assert_str_eq(str(j, "outcome"), "MAF", "a failure seen is kept");
	cr_assert_str_eq(str(j, "fault_class"), "illegal_memory_access");
	notes = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(j, "notes"));
	cr_assert(strstr(notes, "passed after an earlier input's MAF"), "%s", notes);
}

Test(cmd_analyze, a_failure_after_a_pass_replaces_it_and_unknown_never_does)
{
	cleanup_free char *pass = fs_sample_path("pass_clean.log");
	cleanup_free char *maf = fs_sample_path("maf_no_kernel.log");
	cleanup_free char *info = fs_sample_path("info_single_kernel.log");
	char *argv[] = { "analyze", "--log", pass, "--log", maf, "--log", info, "--format", "json" };
	cleanup_free char *out = NULL;
	cleanup_cjson cJSON *j = NULL;

	cr_assert_eq(cmd_analyze(ARGC(argv), argv), 0);
	out = stdout_text();
	j = one_object(out);
	cr_assert_str_eq(str(j, "outcome"), "MAF");
	cr_assert_str_eq(str(j, "kernel_name"), "copy_rows_kernel",
			 "the UNKNOWN --info input lends its kernel, not its verdict");
	cr_assert_eq(num(j, "exit"), 0);
}

Test(cmd_analyze, dash_o_writes_a_copy_of_stdout)
{
	cleanup_free char *log = fs_sample_path("pass_clean.log");
	cleanup_free char *path = xasprintf("%s/finding.md", tmp);
	char *argv[] = { "analyze", "--log", log, "-o", path };
	cleanup_free char *out = NULL;
	cleanup_free char *file = NULL;

	cr_assert_eq(cmd_analyze(ARGC(argv), argv), 0);
	out = stdout_text();
	file = file_text(path);
	cr_assert(strstr(out, "PASS"), "the finding is printed too: %s", out);
	cr_assert_str_eq(file, out, "-o holds exactly what stdout got");
}

Test(cmd_analyze, json_on_a_missing_input_is_one_object_with_exit_5)
{
	cleanup_free char *missing = xasprintf("%s/no-such.log", tmp);
	char *argv[] = { "analyze", "--log", missing, "--format", "json" };
	cleanup_free char *out = NULL;
	cleanup_cjson cJSON *j = NULL;

	cr_assert_eq(cmd_analyze(ARGC(argv), argv), 5);
	out = stdout_text();
	j = one_object(out);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "outcome")));
	cr_assert_eq(num(j, "exit"), 5);
	cr_assert_str_eq(str(j, "stage"), "input");
	cr_assert(strstr(str(j, "error"), "no-such.log"), "%s", out);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "run_dir")));
}

Test(cmd_analyze, json_on_a_usage_error_is_one_object_with_exit_64)
{
	char *argv[] = { "analyze", "--format", "json", "--frobnicate" };
	cleanup_free char *out = NULL;
	cleanup_cjson cJSON *j = NULL;

	cr_assert_eq(cmd_analyze(ARGC(argv), argv), 64);
	out = stdout_text();
	j = one_object(out);
	cr_assert_eq(num(j, "exit"), 64);
	cr_assert_str_eq(str(j, "stage"), "usage");
	cr_assert(strstr(str(j, "error"), "--frobnicate"), "%s", out);
}

/* --known-issues: the finding names the rule that matched it (the same
 * rules a sweep reads), says untriaged when none did, and a bad file is a
 * usage error naming it. */
static char *rules_file(const char *match)
{
	char *path = xasprintf("%s/known-issues.yaml", tmp);
	cleanup_free char *text = xasprintf("issues:\n"
					    "  - id: BUG-7\n"
					    "    link: https://bugs.example/7\n"
					    "    owner: runtime-team\n"
					    "    note: seen since the 7.1 runtime\n"
					    "    match: {%s}\n",
					    match);

	fs_write(path, text);
	return path;
}

/* analyze of one sample log with rules matching match: its exit code,
 * stdout so far into *out. */
static int analyze_known(const char *sample, const char *match, bool json, char **out)
{
	cleanup_free char *log = fs_sample_path(sample);
	cleanup_free char *rules = rules_file(match);
	char *argv[] = { "analyze", "--log", log, "--known-issues", rules, "--format",
			 json ? "json" : "markdown" };
	int code = cmd_analyze(ARGC(argv), argv);

	*out = stdout_text();
	return code;
}

Test(cmd_analyze, known_issues_name_the_rule_in_the_finding)
{
	cleanup_free char *out = NULL;
	cleanup_cjson cJSON *j = NULL;
	const cJSON *k;

	cr_assert_eq(analyze_known("maf_no_kernel.log", "outcome: MAF, fault_class: 'illegal_*'",
				   true, &out), 0);
	j = one_object(out);
	k = cJSON_GetObjectItemCaseSensitive(j, "known");
	cr_assert(cJSON_IsObject(k), "%s", out);
	cr_assert_str_eq(str(k, "id"), "BUG-7");
	cr_assert_str_eq(str(k, "link"), "https://bugs.example/7");
	cr_assert_str_eq(str(k, "owner"), "runtime-team");
	cr_assert_str_eq(str(k, "note"), "seen since the 7.1 runtime");
}

Test(cmd_analyze, a_finding_no_rule_matches_is_untriaged_in_markdown)
{
	cleanup_free char *out = NULL;

	cr_assert_eq(analyze_known("maf_no_kernel.log", "outcome: HANG", false, &out), 0);
	cr_assert(strstr(out, "| Known issue | untriaged (no known-issue rule matched) |"), "%s",
		  out);
}

Test(cmd_analyze, a_known_issue_row_in_markdown)
{
	cleanup_free char *out = NULL;

	cr_assert_eq(analyze_known("maf_no_kernel.log", "outcome: 're:^(MAF|PASS)$'", false, &out),
		     0);
	cr_assert(strstr(out, "| Known issue | `BUG-7`, owner runtime-team: "
			      "https://bugs.example/7 (seen since the 7.1 runtime) |"), "%s", out);
}

Test(cmd_analyze, a_pass_has_no_known_issue)
{
	cleanup_free char *out = NULL;
	cleanup_cjson cJSON *j = NULL;

	cr_assert_eq(analyze_known("pass_clean.log", "outcome: 're:^(MAF|PASS)$'", true, &out), 0);
	j = one_object(out);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "known")),
		  "a PASS has no signature: nothing to be known");
	cr_assert_null(strstr(out, "BUG-7"));
}

Test(cmd_analyze, a_bad_known_issues_file_is_exit_64_naming_file_line_and_rule)
{
	cleanup_free char *out = NULL;
	cleanup_cjson cJSON *j = NULL;

	cr_assert_eq(analyze_known("maf_no_kernel.log", "outcome: MAF, fault_class: 're:(['", true,
				   &out), 64);
	j = one_object(out);
	cr_assert_str_eq(str(j, "stage"), "usage");
	cr_assert(strstr(str(j, "error"), "known-issues.yaml:6: rule BUG-7: bad regular expression"),
		  "%s", out);
}
