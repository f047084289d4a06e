/* `--format json` on every path of `run` and `preflight`: exactly one JSON
 * object on stdout, read by a strict parser, with "exit" on every path and
 * "stage", "error", "run_dir" when there is no finding (README, "Output"). */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"

TestSuite(run_json, .init = tenv_init, .fini = tenv_fini, .timeout = 120);

#define JSON_ARGS(cmd, pid_dir, ...)                                                      \
	((const char *const[]){ cmd, "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir", \
				tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",       \
				tenv.sysfs, "--format", "json", "-q", __VA_ARGS__ })

/* The one object stdout holds; a strict parse: nothing before or after. */
static cJSON *one_object(const char *text)
{
	cJSON *j = cJSON_ParseWithOpts(text, NULL, 1);

	cr_assert_not_null(j, "stdout is not exactly one JSON object:\n%s", text);
	cr_assert(cJSON_IsObject(j));
	return j;
}

static const cJSON *key(const cJSON *j, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(j, k);
}

/* The object of a result without a finding. */
static void assert_no_finding(const cJSON *j, int exit_code, const char *stage,
			      const char *error_part, bool has_run_dir)
{
	cr_assert(cJSON_IsNull(key(j, "outcome")));
	cr_assert_eq(key(j, "exit")->valueint, exit_code);
	cr_assert_str_eq(key(j, "stage")->valuestring, stage);
	cr_assert(strstr(key(j, "error")->valuestring, error_part), "error: %s",
		  key(j, "error")->valuestring);
	if (has_run_dir)
		cr_assert(cJSON_IsString(key(j, "run_dir")) &&
			  file_exists(key(j, "run_dir")->valuestring, "run.json"));
	else
		cr_assert(cJSON_IsNull(key(j, "run_dir")));
}

static char mismatch_pid[600];

Test(run_json, a_finding_carries_the_exit_code)
{
	cleanup_free char *pid_dir = fixture_pid_dir("maf");
	cleanup_cjson cJSON *j = NULL;
	struct tool_run r;

	tool_run(&r, JSON_ARGS("run", pid_dir, NULL), NULL);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	j = one_object(r.out.buf);
	cr_assert_str_eq(key(j, "outcome")->valuestring, "MAF");
	cr_assert_eq(key(j, "exit")->valueint, 1);
	tool_run_release(&r);
}

Test(run_json, exit_2_confirmation_needed)
{
	cleanup_cjson cJSON *j = NULL;
	struct tool_run r;

	make_mismatch_archive(mismatch_pid, sizeof(mismatch_pid));
	tool_run(&r, JSON_ARGS("run", mismatch_pid, NULL), NULL);
	cr_assert_eq(r.status, 2, "%s", r.err.buf);
	j = one_object(r.out.buf);
	assert_no_finding(j, 2, "preflight", "HRR_CONTINUE=1", true);
	tool_run_release(&r);
}

Test(run_json, exit_3_declined)
{
	cleanup_free char *out = xasprintf("%s/stdout.json", tenv.root);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;

	make_mismatch_archive(mismatch_pid, sizeof(mismatch_pid));
	struct strbuf screen = STRBUF_INIT;

	cr_assert_eq(tool_run_on_pty(JSON_ARGS("run", mismatch_pid, NULL), "[y/N]", "n\n", out,
				     &screen), 3, "%s", screen.buf);
	strbuf_release(&screen);
	cr_assert(read_text(out, &text));
	j = one_object(text.buf);
	assert_no_finding(j, 3, "preflight", "declined", true);
}

Test(run_json, exit_4_blocked_by_a_missing_gpu)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_cjson cJSON *j = NULL;
	struct tool_run r;

	tool_run(&r, JSON_ARGS("run", pid_dir, "--gpu", "7", NULL), NULL);
	cr_assert_eq(r.status, 4, "%s", r.err.buf);
	j = one_object(r.out.buf);
	assert_no_finding(j, 4, "preflight", "GPU 7", true);
	tool_run_release(&r);
}

Test(run_json, exit_5_without_a_run_folder)
{
	cleanup_free char *missing = xasprintf("%s/no-such-capture", tenv.root);
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	const char *const no_gpu[] = { "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir",
				       tenv.workdir, "--sysfs-root", tenv.root, "--format", "json",
				       "-q", NULL };
	cleanup_cjson cJSON *a = NULL, *g = NULL, *p = NULL;
	struct tool_run r;

	tool_run(&r, JSON_ARGS("run", missing, NULL), NULL);
	cr_assert_eq(r.status, 5, "%s", r.err.buf);
	a = one_object(r.out.buf);
	assert_no_finding(a, 5, "archive", "no-such-capture", false);
	tool_run_release(&r);

	tool_run(&r, no_gpu, NULL);
	cr_assert_eq(r.status, 5, "%s", r.err.buf);
	g = one_object(r.out.buf);
	assert_no_finding(g, 5, "host", "examples/try.sh", false);
	cr_assert(strstr(r.err.buf, "Try it without a GPU"), "the message says where to look: %s",
		  r.err.buf);
	tool_run_release(&r);

	tool_run(&r, JSON_ARGS("run", pid_dir, "--pull", "never", "--image", "hrr-sim:no-such-tag",
			       NULL), NULL);
	cr_assert_eq(r.status, 5, "%s", r.err.buf);
	p = one_object(r.out.buf);
	assert_no_finding(p, 5, "pull", "hrr-sim:no-such-tag", false);
	tool_run_release(&r);
}

Test(run_json, exit_64_usage_errors_name_the_option_or_the_variable)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	const char *const bad_flag[] = { "run", "--format", "json", "--timeout", "soon", NULL };
	const char *const env[] = { "GPU=x", NULL };
	const struct {
		const char *const *argv;
		const char *const *env;
		const char *names;
	} cases[] = {
		{ bad_flag, NULL, "--timeout" },
		{ JSON_ARGS("run", pid_dir, NULL), env, "GPU=x" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cleanup_cjson cJSON *j = NULL;
		struct tool_run r;

		tool_run(&r, cases[i].argv, cases[i].env);
		cr_assert_eq(r.status, 64, "%s", r.err.buf);
		j = one_object(r.out.buf);
		assert_no_finding(j, 64, "usage", cases[i].names, false);
		tool_run_release(&r);
	}
}

Test(run_json, preflight_prints_one_object_with_its_verdict_and_dash_o_copies_it)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *out = xasprintf("%s/preflight.json", tenv.root);
	cleanup_strbuf struct strbuf copy = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	struct tool_run r;

	tool_run(&r, JSON_ARGS("preflight", pid_dir, "-o", out, NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	j = one_object(r.out.buf);
	cr_assert_eq(key(j, "exit")->valueint, 0);
	cr_assert(cJSON_IsNull(key(j, "stage")));
	cr_assert_str_eq(key(key(j, "preflight"), "verdict")->valuestring, "OK");
	cr_assert(read_text(out, &copy));
	cr_assert_str_eq(copy.buf, r.out.buf, "-o holds what stdout got");
	tool_run_release(&r);
}

Test(run_json, preflight_blocked_is_one_object_with_exit_4_and_its_verdict)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_cjson cJSON *j = NULL;
	struct tool_run r;

	tool_run(&r, JSON_ARGS("preflight", pid_dir, "--gpu", "7", NULL), NULL);
	cr_assert_eq(r.status, 4, "%s", r.err.buf);
	j = one_object(r.out.buf);
	assert_no_finding(j, 4, "preflight", "GPU 7", false);
	cr_assert_str_eq(key(key(j, "preflight"), "verdict")->valuestring, "BLOCK");
	tool_run_release(&r);
}

/* The playback cache file preflight wrote, and when (nanoseconds). */
static long long playback_cache_mtime(char **path_out)
{
	cleanup_free char *pattern = xasprintf("%s/cache/playback-*", tenv.workdir);
	glob_t g;
	struct stat st;
	long long t;

	cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no %s: preflight did not cache the "
		     "hrr-playback lookup", pattern);
	cr_assert_eq(g.gl_pathc, 1);
	cr_assert_eq(stat(g.gl_pathv[0], &st), 0);
	t = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	if (path_out)
		*path_out = xstrdup(g.gl_pathv[0]);
	globfree(&g);
	return t;
}

Test(run_json, preflight_caches_what_the_run_needs_so_the_run_probes_nothing)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *path = NULL;
	long long before;
	struct tool_run r;

	tool_run(&r, JSON_ARGS("preflight", pid_dir, NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	before = playback_cache_mtime(&path);
	tool_run(&r, JSON_ARGS("run", pid_dir, NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert_eq(playback_cache_mtime(NULL), before,
		     "the run looked hrr-playback up again (a probe container) instead of using %s",
		     path);
}
