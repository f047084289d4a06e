/* --playback-arg's allow-list and --replace-kernel's code objects: what
 * passes, what is refused and why, what reaches the container, what the
 * run options (and so every fingerprint) carry. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/cli/sweep_runopts_json.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/replay/kernel_replace.h"
#include "orchestrator/replay/playback_args.h"
#include "orchestrator/replay/replay_plan.h"
#include "orchestrator/sweep/sweep_kernels.h"
#include "tests/support/env_none.h"
#include "tests/support/scratch.h"

#define PARSE(o, ...)                                                                       \
	({                                                                                  \
		char *argv_[] = { "hrr-docker-replay", __VA_ARGS__ };                     \
		options_parse((o), (int)(sizeof(argv_) / sizeof(argv_[0])), argv_, env_none, \
			      NULL, NULL, &err);                                            \
	})

Test(playback_args, the_allow_list_passes_and_values_become_their_own_word)
{
	struct playback_args a = PLAYBACK_ARGS_INIT;
	struct strvec cmd = STRVEC_INIT;
	struct error err;

	cr_assert_eq(playback_args_add(&a, "--no-placement", "--playback-arg", &err), 0, "%s",
		     err.msg);
	cr_assert_eq(playback_args_add(&a, "--guard-min-bytes=4096", "--playback-arg", &err), 0,
		     "%s", err.msg);
	cr_assert_eq(playback_args_add(&a, "--regions-strict", "--playback-arg", &err), 0);
	cr_assert_eq(playback_args_add(&a, "--guard-min-bytes=8192", "--playback-arg", &err), 0);
	cr_assert_eq(a.n, 3, "a flag given twice is kept once");
	playback_args_argv(&a, &cmd);
	cr_assert_eq(cmd.n, 4);
	cr_assert_str_eq(cmd.v[0], "--no-placement");
	cr_assert_str_eq(cmd.v[1], "--guard-min-bytes");
	cr_assert_str_eq(cmd.v[2], "8192", "the later value wins, as its own word");
	cr_assert_str_eq(cmd.v[3], "--regions-strict");
	strvec_clear(&cmd);
	playback_args_release(&a);
}

Test(playback_args, flags_the_tool_owns_or_that_change_the_run_are_refused_with_a_reason)
{
	static const struct {
		const char *spec, *says;
	} cases[] = {
		{ "--sync-after-launch", "--no-sync" },
		{ "--info", "runs --info itself" },
		{ "--timing", "--perf" },
		{ "--repair", "never written" },
		{ "--kernel-filter=gemm", "changes what the replay runs" },
		{ "--multi-thread", "changes what the replay runs" },
		{ "--replace-kernel=k=/x", "--replace-kernel NAME=PATH" },
		{ "--events", "--no-placement, --no-regions" },
		{ "--guard-", "--guard-*" },
		{ "-v", "FLAG or FLAG=VALUE" },
		{ "--No-Placement", "FLAG or FLAG=VALUE" },
		{ "--no-placement=1", "takes no value" },
		{ "--guard-min-bytes=", "one word" },
		{ "--guard-min-bytes=--info", "one word" },
		{ "--guard-min-bytes=1 2", "one word" },
		{ "--guard-min-bytes=$(id)", "one word" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct playback_args a = PLAYBACK_ARGS_INIT;
		struct error err;

		cr_expect_eq(playback_args_add(&a, cases[i].spec, "--playback-arg", &err), -1, "%s",
			     cases[i].spec);
		cr_expect_eq(err.kind, ERR_USAGE);
		cr_expect(strstr(err.msg, "--playback-arg") && strstr(err.msg, cases[i].says),
			  "%s: %s", cases[i].spec, err.msg);
		cr_expect_eq(a.n, 0);
		playback_args_release(&a);
	}
}

Test(playback_args, the_help_lists_a_flag_only_as_a_word_of_its_own)
{
	const char *help = "Options:\n  --guard-min-bytes N   smallest guarded\n"
			   "  --no-placement        map at any address\n"
			   "  --continue-on-error\n";
	struct playback_args a = PLAYBACK_ARGS_INIT;
	struct strvec unlisted = STRVEC_INIT;
	struct error err;

	cr_assert(playback_help_lists(help, "--no-placement"));
	cr_assert(playback_help_lists(help, "--continue-on-error"), "at the end of the text");
	cr_assert_not(playback_help_lists(help, "--guard-min"), "the head of a longer flag");
	cr_assert_not(playback_help_lists(help, "--no-regions"));
	cr_assert_not(playback_help_lists(NULL, "--no-regions"));
	cr_assert_eq(playback_args_add(&a, "--no-regions", "x", &err), 0);
	cr_assert_eq(playback_args_add(&a, "--no-placement", "x", &err), 0);
	cr_assert_eq(playback_args_add(&a, "--guard-max-bytes=9", "x", &err), 0);
	playback_args_unlisted(&a, help, &unlisted);
	cr_assert_eq(unlisted.n, 2);
	cr_assert_str_eq(unlisted.v[0], "--no-regions");
	cr_assert_str_eq(unlisted.v[1], "--guard-max-bytes");
	strvec_clear(&unlisted);
	playback_args_release(&a);
}

Test(kernel_replace, a_code_object_is_checked_by_its_header)
{
	unsigned char h[20] = { 0x7f, 'E', 'L', 'F', 2, 1 };

	cr_assert_str_eq(kernel_code_object_header_problem(h, 4), "not an ELF file");
	cr_assert_str_eq(kernel_code_object_header_problem((const unsigned char *)"#!/bin/sh\nexit 0\n"
							   "xxxx", 20), "not an ELF file");
	h[18] = 62; /* x86-64 */
	cr_assert(strstr(kernel_code_object_header_problem(h, 20), "another machine"));
	h[18] = 224;
	cr_assert_null(kernel_code_object_header_problem(h, 20));
	h[4] = 1;
	cr_assert_str_eq(kernel_code_object_header_problem(h, 20), "not a 64-bit ELF file");
}

Test(kernel_replace, name_path_is_read_once_and_named_by_its_content)
{
	cleanup_free char *dir = scratch_dir("unit-kernels");
	cleanup_free char *a = xasprintf("%s/a.hsaco", dir), *b = xasprintf("%s/b.hsaco", dir);
	cleanup_free char *spec = xasprintf("_Z4gemmPf=%s", a);
	cleanup_free char *other = xasprintf("_Z4axpyPf=%s", b);
	struct kernel_replacements k = KERNEL_REPLACEMENTS_INIT;
	cleanup_strbuf struct strbuf inside = STRBUF_INIT;
	struct error err;

	scratch_code_object(a, "same");
	scratch_code_object(b, "same");
	cr_assert_eq(kernel_replacements_add_file(&k, spec, "--replace-kernel", &err), 0, "%s",
		     err.msg);
	cr_assert_eq(kernel_replacements_add_file(&k, other, "--replace-kernel", &err), 0);
	cr_assert_str_eq(k.v[0].digest, k.v[1].digest, "the same bytes, the same digest");
	cr_assert_str_eq(k.v[0].host_path, a);
	kernel_replacement_mount_path(&k.v[0], &inside);
	cr_assert(!strncmp(inside.buf, KERNEL_REPLACE_MOUNT_DIR "/", strlen(KERNEL_REPLACE_MOUNT_DIR) + 1));
	cr_assert(strstr(inside.buf, k.v[0].digest + strlen("fnv1a64:")), "%s", inside.buf);
	cr_assert_eq(kernel_replacements_add_file(&k, spec, "--replace-kernel", &err), -1);
	cr_assert(strstr(err.msg, "replaced twice"), "%s", err.msg);
	kernel_replacements_release(&k);
	scratch_remove(dir);
}

Test(kernel_replace, bad_input_is_a_usage_error_naming_it)
{
	cleanup_free char *dir = scratch_dir("unit-kernels");
	cleanup_free char *script = xasprintf("%s/k.hsaco", dir);
	cleanup_free char *not_co = xasprintf("k=%s", script);
	cleanup_free char *missing = xasprintf("k=%s/none.hsaco", dir);
	cleanup_free char *a_dir = xasprintf("k=%s", dir);
	const char *specs[] = { not_co, missing, a_dir, "k", "=x.hsaco", "a b=x", "k=" };
	const char *says[] = { "not an ELF file", "No such file", "not a regular file",
			       "NAME=PATH", "NAME=PATH", "NAME=PATH", "NAME=PATH" };
	FILE *f = fopen(script, "w");

	cr_assert_not_null(f);
	fputs("#!/bin/sh\necho pwned\n", f);
	fclose(f);
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct kernel_replacements k = KERNEL_REPLACEMENTS_INIT;
		struct error err;

		cr_expect_eq(kernel_replacements_add_file(&k, specs[i], "--replace-kernel", &err), -1,
			     "%s", specs[i]);
		cr_expect_eq(err.kind, ERR_USAGE, "%s", specs[i]);
		cr_expect(strstr(err.msg, "--replace-kernel") && strstr(err.msg, says[i]), "%s: %s",
			  specs[i], err.msg);
		cr_expect_eq(k.n, 0);
		kernel_replacements_release(&k);
	}
	scratch_remove(dir);
}

Test(kernel_replace, the_plan_mounts_each_read_only_and_names_it_inside)
{
	cleanup_free char *dir = scratch_dir("unit-kernels");
	cleanup_free char *co = xasprintf("%s/x.hsaco", dir);
	cleanup_free char *spec = xasprintf("_Z4gemmPf=%s", co);
	struct kernel_replacements k = KERNEL_REPLACEMENTS_INIT;
	struct playback_args a = PLAYBACK_ARGS_INIT;
	struct replay_plan_knobs knobs = { .progress_seconds = 30, .stop_grace_s = 10 };
	struct strvec env = STRVEC_INIT;
	struct replay_plan_input in = { 0 };
	struct container_spec s;
	cleanup_strbuf struct strbuf inside = STRBUF_INIT;
	cleanup_free char *word = NULL;
	struct error err;

	scratch_code_object(co, "x");
	cr_assert_eq(kernel_replacements_add_file(&k, spec, "--replace-kernel", &err), 0);
	cr_assert_eq(playback_args_add(&a, "--no-placement", "--playback-arg", &err), 0);
	knobs.replace_kernels = &k;
	knobs.playback_args = &a;
	in.knobs = &knobs;
	in.pid_dir = "/data/c/pid-1";
	in.pid_name = "pid-1";
	in.image_ref = "img:1";
	in.image_env = &env;
	in.playback = "/opt/rocm/bin/hrr-playback";
	in.run_id = "abc123";
	in.owner = "h:1:2";
	in.archive_label = in.pid_dir;
	container_spec_init(&s);
	cr_assert_eq(replay_plan_build(&in, &s, &err), 0, "%s", err.msg);
	kernel_replacement_mount_path(&k.v[0], &inside);
	word = xasprintf("_Z4gemmPf=%s", inside.buf);
	cr_assert_eq(s.cmd.n, 5);
	cr_assert_str_eq(s.cmd.v[0], "--sync-after-launch");
	cr_assert_str_eq(s.cmd.v[1], "--no-placement");
	cr_assert_str_eq(s.cmd.v[2], "--replace-kernel");
	cr_assert_str_eq(s.cmd.v[3], word);
	cr_assert_str_eq(s.cmd.v[4], ARCHIVE_MOUNT_ROOT "/pid-1", "the archive last");
	cr_assert_eq(s.n_mounts, 2);
	cr_assert_str_eq(s.mounts[1].source, co);
	cr_assert_str_eq(s.mounts[1].target, inside.buf);
	cr_assert(s.mounts[1].read_only);
	container_spec_release(&s);

	/* A recorded replacement not attached to a file yet is never mounted. */
	free(k.v[0].host_path);
	k.v[0].host_path = NULL;
	container_spec_init(&s);
	cr_assert_eq(replay_plan_build(&in, &s, &err), -1);
	container_spec_release(&s);
	kernel_replacements_release(&k);
	playback_args_release(&a);
	scratch_remove(dir);
}

static char *fingerprint_of(struct options *o)
{
	cJSON *j = sweep_runopts_to_json(o, false);
	char *txt = cJSON_PrintUnformatted(j);
	char *fp = history_options_fingerprint(txt);

	cJSON_Delete(j);
	free(txt);
	return fp;
}

/* Sweeps, Slurm tasks and --resume carry both; the fingerprint follows
 * the code object's bytes, not its path. */
Test(playback_args, run_options_carry_them_and_the_fingerprint_follows_content)
{
	cleanup_free char *dir = scratch_dir("unit-kernels");
	cleanup_free char *a_path = xasprintf("%s/a.hsaco", dir), *b_path = xasprintf("%s/b.hsaco", dir);
	cleanup_free char *a_spec = xasprintf("k=%s", a_path), *b_spec = xasprintf("k=%s", b_path);
	cleanup_free char *fp_a = NULL, *fp_b = NULL, *fp_plain = NULL, *fp_moved = NULL;
	cleanup_free char *shown = NULL;
	struct options a, b, c;
	struct error err;
	cJSON *j;

	scratch_code_object(a_path, "one");
	scratch_code_object(b_path, "two");
	options_init(&a);
	options_init(&b);
	options_init(&c);
	cr_assert_eq(PARSE(&a, "sweep", "--archive", "/l", "--image", "i", "--playback-arg",
			   "--guard-min-bytes=64", "--replace-kernel", a_spec),
		     0, "%s", err.msg);
	cr_assert_eq(PARSE(&b, "sweep", "--archive", "/l", "--image", "i", "--playback-arg",
			   "--guard-min-bytes=64", "--replace-kernel", b_spec), 0);
	cr_assert_eq(PARSE(&c, "sweep", "--archive", "/l", "--image", "i"), 0);
	fp_a = fingerprint_of(&a);
	fp_b = fingerprint_of(&b);
	fp_plain = fingerprint_of(&c);
	cr_assert_str_neq(fp_a, fp_b, "other bytes, other run options");
	cr_assert_str_neq(fp_a, fp_plain);
	j = sweep_runopts_to_json(&c, true);
	shown = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	cr_assert_null(strstr(shown, "playback_args"), "absent when not given: %s", shown);
	cr_assert_null(strstr(shown, "replace_kernels"), "%s", shown);

	/* The same bytes elsewhere: the same fingerprint. */
	cr_assert_eq(rename(a_path, b_path), 0);
	options_release(&b);
	options_init(&b);
	cr_assert_eq(PARSE(&b, "sweep", "--archive", "/l", "--image", "i", "--playback-arg",
			   "--guard-min-bytes=64", "--replace-kernel", b_spec), 0);
	fp_moved = fingerprint_of(&b);
	cr_assert_str_eq(fp_a, fp_moved);

	/* Read back: the flags, and the code object by name and digest only. */
	j = sweep_runopts_to_json(&a, true);
	cr_assert_eq(sweep_runopts_from_json(&c, j, &err), 0, "%s", err.msg);
	cJSON_Delete(j);
	cr_assert_eq(c.playback_args.n, 1);
	cr_assert_str_eq(c.playback_args.v[0].value, "64");
	cr_assert_eq(c.replace_kernels.n, 1);
	cr_assert_str_eq(c.replace_kernels.v[0].digest, a.replace_kernels.v[0].digest);
	cr_assert_null(c.replace_kernels.v[0].host_path, "a task gets the sweep folder's copy");

	/* An edited record is refused, not half-read. */
	j = cJSON_Parse("{\"playback_args\":[\"--repair\"]}");
	cr_assert_eq(sweep_runopts_from_json(&c, j, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cJSON_Delete(j);
	j = cJSON_Parse("{\"replace_kernels\":[{\"name\":\"k\",\"digest\":\"md5:x\"}]}");
	cr_assert_eq(sweep_runopts_from_json(&c, j, &err), -1);
	cJSON_Delete(j);
	/* A record without them (an older sweep): none, whatever this
	 * invocation said. */
	j = cJSON_Parse("{\"timeout_s\":5}");
	cr_assert_eq(sweep_runopts_from_json(&a, j, &err), 0);
	cr_assert_eq(a.playback_args.n + a.replace_kernels.n, 0);
	cJSON_Delete(j);
	options_release(&a);
	options_release(&b);
	options_release(&c);
	scratch_remove(dir);
}

Test(kernel_replace, a_sweep_keeps_its_copy_and_refuses_a_changed_one)
{
	cleanup_free char *dir = scratch_dir("unit-kernels");
	cleanup_free char *co = xasprintf("%s/x.hsaco", dir);
	cleanup_free char *spec = xasprintf("k=%s", co);
	cleanup_free char *folder = xasprintf("%s/sweep", dir);
	struct kernel_replacements k = KERNEL_REPLACEMENTS_INIT, rec = KERNEL_REPLACEMENTS_INIT;
	cleanup_strbuf struct strbuf kept = STRBUF_INIT;
	struct error err;
	FILE *f;

	cr_assert_eq(mkdir(folder, 0755), 0);
	scratch_code_object(co, "v1");
	cr_assert_eq(kernel_replacements_add_file(&k, spec, "--replace-kernel", &err), 0);
	cr_assert_eq(sweep_kernels_store(folder, &k, &err), 0, "%s", err.msg);
	cr_assert_eq(kernel_replacements_add_recorded(&rec, "k", k.v[0].digest, &err), 0);
	cr_assert_eq(sweep_kernels_attach(folder, &rec, &err), 0, "%s", err.msg);
	strbuf_addf(&kept, "%s/" SWEEP_KERNELS_DIR "/", folder);
	kernel_replacement_file_name(&k.v[0], &kept);
	cr_assert_str_eq(rec.v[0].host_path, kept.buf);

	/* The user's file changes after the sweep began: the copy stands. */
	scratch_code_object(co, "v2");
	cr_assert_eq(sweep_kernels_attach(folder, &rec, &err), 0);
	/* The copy itself changes: refused. */
	f = fopen(kept.buf, "a");
	cr_assert_not_null(f);
	fputs("tampered", f);
	fclose(f);
	cr_assert_eq(sweep_kernels_attach(folder, &rec, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, "not the code object the sweep recorded"), "%s", err.msg);
	/* Stored after the file changed since it was checked: refused. */
	cr_assert_eq(sweep_kernels_store(folder, &k, &err), -1);
	cr_assert(strstr(err.msg, "changed"), "%s", err.msg);
	kernel_replacements_release(&k);
	kernel_replacements_release(&rec);
	scratch_remove(dir);
}
