/* `--playback-arg` and `--replace-kernel` end to end (docs/cli.md): what
 * reaches hrr-playback, a flag the image's build does not list refused
 * before the replay (hrr-sim-older), and bad input stopped before
 * anything runs. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"

TestSuite(run_playback_args, .init = tenv_init, .fini = tenv_fini, .timeout = 300);

static cJSON *replay(struct tool_run *r, const char *image, const char *fixture,
		     const char *const *extra, int want)
{
	cleanup_free char *pid_dir = fixture_pid_dir(fixture);
	const char *argv[32] = { "--image", image, "--archive", pid_dir, "--workdir", tenv.workdir,
				 "--device-root", tenv.devroot, "--sysfs-root", tenv.sysfs, "-q",
				 "--timeout", "60", "--stop-grace", "1" };
	size_t n = 15;
	cJSON *f;

	for (size_t i = 0; extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	tool_run(r, argv, NULL);
	cr_assert_eq(r->status, want, "exit %d:\n%s", r->status, r->err.buf);
	f = read_json(r->run_dir, "finding.json");
	cr_assert_not_null(f, "no finding.json:\n%s", r->err.buf);
	return f;
}

static size_t unknown_flags(const cJSON *f, const char *flag)
{
	const cJSON *a = cJSON_GetObjectItem(f, "playback_flags_unknown"), *it;
	size_t n = 0;

	cr_assert(cJSON_IsArray(a), "finding.json has playback_flags_unknown");
	cJSON_ArrayForEach(it, a)
		n += !flag || !strcmp(cJSON_GetStringValue(it), flag);
	return n;
}

static bool log_has(const struct tool_run *r, const char *text)
{
	cleanup_free char *path = xasprintf("%s/replay.log", r->run_dir);
	struct strbuf log = STRBUF_INIT;
	bool has;

	cr_assert(read_text(path, &log), "%s", path);
	has = strstr(log.buf, text) != NULL;
	strbuf_release(&log);
	return has;
}

Test(run_playback_args, a_flag_the_playback_knows_reaches_it_and_takes_effect)
{
	struct tool_run plain, r;
	cleanup_cjson cJSON *f0 = NULL, *f = NULL;

	f0 = replay(&plain, SIM_IMAGE, "placement-pass", (const char *const[]){ NULL }, 0);
	cr_assert(log_has(&plain, "Placement"), "the fixture prints its placement");
	f = replay(&r, SIM_IMAGE, "placement-pass",
		   (const char *const[]){ "--playback-arg", "--no-placement", "--playback-arg",
					  "--guard-min-bytes=4096", NULL }, 0);
	cr_assert_not(log_has(&r, "Placement"), "--no-placement reached hrr-playback");
	cr_assert_eq(unknown_flags(f, NULL), 0, "this build lists both");
	cr_assert_not(json_has_note(f, "does not list"));
	cr_assert(file_exists(r.run_dir, "diagnostics/hrr-playback-help.txt"));
	cr_assert_eq(unknown_flags(f0, NULL), 0);
	cr_assert_not(file_exists(plain.run_dir, "diagnostics/hrr-playback-help.txt"),
		      "no --help without --playback-arg");
	cr_assert_eq(count_tool_containers(tenv.workdir), 0, "the --help container was removed");
	tool_run_release(&plain);
	tool_run_release(&r);
}

/* An older build skips a flag it does not know and would read the flag's
 * value as its archive: the flags its --help does not list are refused
 * before the replay, and a value is never the archive. */
Test(run_playback_args, a_flag_an_older_build_does_not_list_is_refused_before_the_replay)
{
	cleanup_free char *pid_dir = fixture_pid_dir("placement-pass");
	const char *argv[] = { "--image", test_image("sim-older"), "--archive", pid_dir,
			       "--workdir", tenv.workdir, "--device-root", tenv.devroot,
			       "--sysfs-root", tenv.sysfs, "-q", "--timeout", "60",
			       "--playback-arg", "--no-placement", "--playback-arg",
			       "--continue-on-error", "--playback-arg", "--guard-min-bytes=4096",
			       NULL };
	struct tool_run r;
	cleanup_cjson cJSON *f = NULL;

	tool_run(&r, argv, NULL);
	cr_assert_eq(r.status, 64, "exit %d:\n%s", r.status, r.err.buf);
	cr_assert(strstr(r.err.buf, "does not list --no-placement, --guard-min-bytes in its "
			 "--help: refused before the replay"), "%s", r.err.buf);
	cr_assert_not(strstr(r.err.buf, "4096"), "the value is not the archive: %s", r.err.buf);
	cr_assert(!r.run_dir || !file_exists(r.run_dir, "replay.log"), "nothing was replayed");
	cr_assert_eq(count_tool_containers(tenv.workdir), 0);
	tool_run_release(&r);

	/* What it lists runs, and a flag's value before the archive (last)
	 * is read as the value; a --guard-* flag without one takes nothing. */
	f = replay(&r, test_image("sim-older"), "placement-pass",
		   (const char *const[]){ "--playback-arg", "--continue-on-error", NULL }, 0);
	cr_assert(log_has(&r, "Placement"));
	tool_run_release(&r);
	cJSON_Delete(f);
	f = replay(&r, SIM_IMAGE, "placement-pass",
		   (const char *const[]){ "--playback-arg", "--guard-min-bytes=4096",
					  "--playback-arg", "--guard-report", NULL }, 0);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "outcome")), "PASS",
			 "the archive was read, not 4096 nor taken by --guard-report");
	tool_run_release(&r);
}

Test(run_playback_args, a_replacement_code_object_is_mounted_and_loaded)
{
	cleanup_free char *co = xasprintf("%s/gemm.hsaco", tenv.root);
	cleanup_free char *spec = xasprintf("_Z4gemmPf=%s", co);
	struct tool_run r;
	cleanup_cjson cJSON *f = NULL;

	scratch_code_object(co, "");
	/* The simulator fails (1) when the code object does not open inside. */
	f = replay(&r, SIM_IMAGE, "pass", (const char *const[]){ "--replace-kernel", spec, NULL }, 0);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "outcome")), "PASS");
	tool_run_release(&r);
}

/* The digest the simulator prints for the code object it loaded. */
static char *fnv_of(const char *path)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	cr_assert(read_text(path, &text), "%s", path);
	return xasprintf("fnv1a64:%016llx", text_fnv1a64(TEXT_FNV1A64_INIT, text.buf, text.len));
}

struct swapper {
	const char *path, *evil;
	int inotify;
	bool swapped;
};

/* Once the run folder is made (the options, and so the check, are behind),
 * the other file takes the checked one's name: what a user who can write
 * its directory would do before the container starts. */
static void *swap_after_check(void *arg)
{
	struct swapper *sw = arg;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	if (read(sw->inotify, buf, sizeof(buf)) > 0)
		sw->swapped = rename(sw->evil, sw->path) == 0;
	return NULL;
}

Test(run_playback_args, a_code_object_swapped_after_its_check_is_never_replayed)
{
	cleanup_free char *co = xasprintf("%s/gemm.hsaco", tenv.root);
	cleanup_free char *evil = xasprintf("%s/evil.hsaco", tenv.root);
	cleanup_free char *spec = xasprintf("_Z4gemmPf=%s", co);
	cleanup_free char *good_fnv = NULL, *evil_fnv = NULL;
	struct swapper sw = { co, evil, -1, false };
	cleanup_cjson cJSON *f = NULL;
	pthread_t t;
	struct tool_run r;

	scratch_code_object(co, "the checked kernel");
	scratch_code_object(evil, "a swapped kernel");
	good_fnv = fnv_of(co);
	evil_fnv = fnv_of(evil);
	sw.inotify = inotify_init1(IN_CLOEXEC);
	cr_assert_geq(inotify_add_watch(sw.inotify, tenv.workdir, IN_CREATE), 0);
	cr_assert_eq(pthread_create(&t, NULL, swap_after_check, &sw), 0);
	f = replay(&r, SIM_IMAGE, "pass", (const char *const[]){ "--replace-kernel", spec, NULL },
		   0);
	pthread_join(t, NULL);
	close(sw.inotify);
	cr_assert(sw.swapped, "the file was swapped after its check");
	cr_assert(log_has(&r, good_fnv), "the checked code object (%s) was replayed", good_fnv);
	cr_assert_not(log_has(&r, evil_fnv), "the swapped one (%s) was not", evil_fnv);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "outcome")), "PASS");
	tool_run_release(&r);
}

static void refused(const char *const *extra, const char *says)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	const char *argv[16] = { "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir",
				 tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
				 tenv.sysfs };
	size_t n = 10;
	struct tool_run r;

	for (size_t i = 0; extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	tool_run(&r, argv, NULL);
	cr_assert_eq(r.status, 64, "%s: exit %d\n%s", extra[1], r.status, r.err.buf);
	cr_assert(strstr(r.err.buf, says), "%s: %s", extra[1], r.err.buf);
	cr_assert_null(strchr(strchr(r.err.buf, '\n') + 1, '\n'), "one line: %s", r.err.buf);
	cr_assert_null(r.run_dir, "no run folder");
	cr_assert_eq(count_tool_containers(tenv.workdir), 0);
	tool_run_release(&r);
}

Test(run_playback_args, bad_input_is_a_usage_error_before_anything_runs)
{
	cleanup_free char *script = xasprintf("%s/evil.hsaco", tenv.root);
	cleanup_free char *spec = xasprintf("k=%s", script);
	FILE *fp = fopen(script, "w");

	cr_assert_not_null(fp);
	fputs("#!/bin/sh\nid\n", fp);
	fclose(fp);
	refused((const char *const[]){ "--playback-arg", "--repair", NULL }, "never written");
	refused((const char *const[]){ "--playback-arg", "--kernel-filter=gemm", NULL },
		"changes what the replay runs");
	refused((const char *const[]){ "--playback-arg", "--frobnicate", NULL },
		"--no-placement, --no-regions, --regions-strict, --guard-*");
	refused((const char *const[]){ "--replace-kernel", spec, NULL }, "not an ELF file");
	refused((const char *const[]){ "--replace-kernel", "k=/nonexistent.hsaco", NULL },
		"/nonexistent.hsaco");
}
