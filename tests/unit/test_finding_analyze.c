/* `hrr-docker-replay analyze`, called in-process: inputs in order, the
 * archive's manifest, the output file, and the exit codes of docs/cli.md. */
#include <criterion/criterion.h>

#include "tests/support/scratch.h"
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/cli/cmd_analyze.h"
#include "orchestrator/cli/options.h"
#include "tests/support/finding_samples.h"

static char *tmp;

/* Both streams: analyze prints the finding, which would flood check-unit. */
static void setup(void)
{
	cr_redirect_stderr();
	cr_redirect_stdout();
	tmp = scratch_dir("finding-test");
}

static void teardown(void)
{
	scratch_remove(tmp);
	free(tmp);
}

TestSuite(finding_analyze, .init = setup, .fini = teardown);

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int run(int argc, char **argv)
{
	return cmd_analyze(argc, argv);
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	cleanup_fclose FILE *fp = fopen(path, "r");
	char buf[4096];
	size_t n;

	cr_assert(fp, "%s was not written", path);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(&sb, buf, n);
	return strbuf_detach(&sb, NULL);
}

static char *stderr_text(void)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *fp;
	char buf[1024];
	size_t n;

	fflush(stderr);
	fp = cr_get_redirected_stderr();
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(&sb, buf, n);
	return strbuf_detach(&sb, NULL);
}

static void make_archive(const char *pid_dir, const char *manifest)
{
	static const unsigned char header[8] = { 0x45, 0x48, 0x52, 0x52, 0x08, 0x00, 0x00, 0x00 };
	cleanup_free char *events = xasprintf("%s/events.bin", pid_dir);
	cleanup_free char *man = xasprintf("%s/manifest.json", pid_dir);
	cleanup_fclose FILE *fp = NULL;

	cr_assert_eq(mkdir(pid_dir, 0755), 0);
	fp = fopen(events, "wb");
	cr_assert(fp);
	cr_assert_eq(fwrite(header, 1, sizeof(header), fp), sizeof(header));
	if (manifest)
		fs_write(man, manifest);
}

Test(finding_analyze, two_logs_in_order_to_json)
{
	cleanup_free char *log1 = fs_sample_path("maf_no_kernel.log");
	cleanup_free char *log2 = fs_sample_path("info_single_kernel.log");
	cleanup_free char *out = xasprintf("%s/finding.json", tmp);
	cleanup_free char *text = NULL;
	char *argv[] = { "analyze", "--log", log1, "--log", log2, "--format", "json", "-o", out };
	cleanup_cjson cJSON *j = NULL;

	cr_assert_eq(run(ARGC(argv), argv), 0);
	text = slurp(out);
	j = cJSON_Parse(text);
	cr_assert(j, "%s", text);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "outcome")->valuestring, "MAF");
	cr_assert_str_eq(cJSON_GetObjectItem(j, "kernel_name")->valuestring, "copy_rows_kernel");
	cr_assert_str_eq(cJSON_GetObjectItem(j, "archive_complete")->valuestring, "no");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "sources")), 2);
	cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "sources"), 0)->valuestring, log1);
	cr_assert_null(cJSON_GetObjectItem(j, "run"));
}

Test(finding_analyze, archive_manifest_feeds_the_finding)
{
	cleanup_free char *pid = xasprintf("%s/pid-4242", tmp);
	cleanup_free char *log = fs_sample_path("pass_clean.log");
	cleanup_free char *out = xasprintf("%s/finding.md", tmp);
	cleanup_free char *md = NULL;
	char *argv[] = { "analyze", "--log", log, "--archive", pid, "--output", out };

	make_archive(pid, "{\"pid\": 4242, \"parent_pid\": 1, \"complete\": true, \"event_count\": 1532,"
			  " \"blob_count\": 210, \"metadata\": {\"schema_version\": 1,"
			  " \"runtime\": {\"hip_runtime_version\": \"7.13.0\", \"comgr_version\": \"2.8\"},"
			  " \"device_count\": 1, \"captured_device_count\": 1,"
			  " \"devices\": [{\"ordinal\": 0, \"properties\": {\"name\": \"Instinct MI300X\","
			  " \"gcn_arch_name\": \"gfx942:sramecc+:xnack-\"}}]}}");
	cr_assert_eq(run(ARGC(argv), argv), 0);
	md = slurp(out);
	cr_assert(strstr(md, "## HRR Triage — pid-4242\n"), "%s", md);
	cr_assert(strstr(md, "| Capture HIP runtime | `7.13.0` |"), "%s", md);
	cr_assert(strstr(md, "| Capture comgr | `2.8` |"), "%s", md);
	cr_assert(strstr(md, "| Capture device count | 1 |"), "%s", md);
	cr_assert(strstr(md, "| Capture GPU arch | `gfx942:sramecc+:xnack-` |"), "%s", md);
	cr_assert(strstr(md, "| Complete | yes |"), "%s", md);
	cr_assert(strstr(md, "| Archive / reader format | 8 / n/a |"), "%s", md);
	cr_assert(strstr(md, "/pid-4242/manifest.json`"), "%s", md);
}

Test(finding_analyze, archive_without_manifest_still_analyzes)
{
	cleanup_free char *pid = xasprintf("%s/pid-7", tmp);
	cleanup_free char *log = fs_sample_path("maf_then_signal.log");
	cleanup_free char *out = xasprintf("%s/f.json", tmp);
	cleanup_free char *text = NULL;
	char *argv[] = { "analyze", "--archive", pid, "--log", log, "--format=json", "-o", out };

	make_archive(pid, NULL);
	cr_assert_eq(run(ARGC(argv), argv), 0);
	text = slurp(out);
	cr_assert(strstr(text, "archive manifest not used"), "%s", text);
	cr_assert(strstr(text, "\"archive_format_version\":\t8"), "%s", text);
}

Test(finding_analyze, archive_alone_is_metadata_only_triage)
{
	cleanup_free char *pid = xasprintf("%s/pid-9", tmp);
	cleanup_free char *out = xasprintf("%s/f.json", tmp);
	cleanup_free char *text = NULL;
	char *argv[] = { "analyze", "--archive", pid, "--format", "json", "-o", out };

	make_archive(pid, "{\"pid\": 9, \"complete\": false, \"event_count\": 3, \"blob_count\": 0}");
	cr_assert_eq(run(ARGC(argv), argv), 0);
	text = slurp(out);
	cr_assert(strstr(text, "\"outcome\":\t\"UNKNOWN\""), "%s", text);
	cr_assert(strstr(text, "\"CRASH-TRUNCATED\""), "%s", text);
}

Test(finding_analyze, missing_log_is_exit_5_naming_it)
{
	cleanup_free char *missing = xasprintf("%s/nope.log", tmp);
	cleanup_free char *out = xasprintf("%s/f.md", tmp);
	cleanup_free char *err = NULL;
	char *argv[] = { "analyze", "--log", missing, "-o", out };

	cr_assert_eq(run(ARGC(argv), argv), 5);
	err = stderr_text();
	cr_assert(strstr(err, missing), "%s", err);
	cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	cr_assert(access(out, F_OK) != 0, "no finding written");
}

Test(finding_analyze, missing_archive_is_exit_5)
{
	cleanup_free char *log = fs_sample_path("pass_clean.log");
	cleanup_free char *missing = xasprintf("%s/pid-404", tmp);
	cleanup_free char *err = NULL;
	char *argv[] = { "analyze", "--log", log, "--archive", missing };

	cr_assert_eq(run(ARGC(argv), argv), 5);
	err = stderr_text();
	cr_assert(strstr(err, missing), "%s", err);
}

Test(finding_analyze, a_missing_archive_stops_in_the_archive_stage)
{
	cleanup_free char *log = fs_sample_path("pass_clean.log");
	cleanup_free char *missing = xasprintf("%s/pid-405", tmp);
	cleanup_free char *out = xasprintf("%s/stop.json", tmp);
	cleanup_free char *text = NULL;
	char *argv[] = { "analyze", "--log", log, "--archive", missing, "--format=json", "-o", out };

	cr_assert_eq(run(ARGC(argv), argv), 5);
	text = slurp(out);
	cr_assert(strstr(text, "\"stage\":\t\"archive\""), "%s", text);
}

Test(finding_analyze, usage_errors_are_64_naming_the_option)
{
	cleanup_free char *log = fs_sample_path("pass_clean.log");
	char *bad_opt[] = { "analyze", "--log", log, "--frobnicate" };
	char *no_value[] = { "analyze", "--log" };
	char *bad_format[] = { "analyze", "--log", log, "--format", "yaml" };
	char *nothing[] = { "analyze" };
	char *stray[] = { "analyze", log };
	cleanup_free char *err = NULL;

	cr_assert_eq(run(ARGC(bad_opt), bad_opt), 64);
	cr_assert_eq(run(ARGC(no_value), no_value), 64);
	cr_assert_eq(run(ARGC(bad_format), bad_format), 64);
	cr_assert_eq(run(ARGC(nothing), nothing), 64);
	cr_assert_eq(run(ARGC(stray), stray), 64);
	err = stderr_text();
	cr_assert(strstr(err, "unknown option '--frobnicate' (see --help)\n"), "%s", err);
	cr_assert(strstr(err, "--log needs a value (see --help)\n"), "%s", err);
	cr_assert(strstr(err, "--format: 'yaml' is not a format; use markdown or json\n"), "%s", err);
	cr_assert(strstr(err, "--log FILE is required (see --help)\n"), "%s", err);
	cr_assert(strstr(err, "unexpected argument"), "%s", err);
}

Test(finding_analyze, help_is_exit_0)
{
	char *argv[] = { "analyze", "--help" };

	cr_redirect_stdout();
	cr_assert_eq(run(ARGC(argv), argv), 0);
	fflush(stdout);
	{
		struct strbuf help = STRBUF_INIT;

		options_help(CMD_ANALYZE, &help);
		cr_assert_stdout_eq_str(help.buf, "analyze --help is the option table's help");
		cr_assert(strstr(help.buf, "--log FILE"));
		strbuf_release(&help);
	}
}

Test(finding_analyze, program_name_before_the_subcommand_is_skipped)
{
	cleanup_free char *log = fs_sample_path("fatal_api.log");
	cleanup_free char *out = xasprintf("%s/f.json", tmp);
	cleanup_free char *text = NULL;
	char *argv[] = { "hrr-docker-replay", "analyze", "--log", log, "--format", "json", "-o", out };

	cr_assert_eq(run(ARGC(argv), argv), 0);
	text = slurp(out);
	cr_assert(strstr(text, "\"replay_fatal_api\""), "%s", text);
}
