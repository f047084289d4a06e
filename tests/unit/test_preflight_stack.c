/* The host CLR overlay probe, and the image probe's cache (a hit needs no
 * engine: these tests pass none). */
#include <criterion/criterion.h>

#include "tests/support/scratch.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "preflight/preflight.h"
#include "preflight/stack_files.h"
#include "orchestrator/replay/stack_probe.h"
#include "tests/support/preflight_fixtures.h"

static char *tmp;

static void setup(void)
{
	tmp = scratch_dir("preflight-test");
}

static void teardown(void)
{
	scratch_remove(tmp);
	free(tmp);
}

TestSuite(preflight_stack, .init = setup, .fini = teardown);

static void touch(const char *rel)
{
	char *p = xasprintf("%s/%s", tmp, rel);

	pft_writef(p, "ELF");
	free(p);
}

static void link_to(const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", tmp, rel);

	cr_assert_eq(symlink(target, p), 0, "%s", p);
	free(p);
}

Test(preflight_stack, overlay_follows_the_symlink_chain)
{
	struct stack_info s;
	struct error err = { 0 };
	char *lib = xasprintf("%s/lib", tmp);
	char *want = xasprintf("%s/lib/libamdhip64.so.7.2.26100-deadbeef", tmp);
	char *src = xasprintf("host CLR overlay %s", lib);

	touch("lib/libamdhip64.so.7.2.26100-deadbeef");
	touch("lib/libamdhip64.so.7.1.0"); /* an older build lying around: not linked */
	link_to("libamdhip64.so.7.2.26100-deadbeef", "lib/libamdhip64.so.7");
	link_to("libamdhip64.so.7", "lib/libamdhip64.so");
	touch("lib/libamd_comgr.so.2.8.60200");
	link_to("libamd_comgr.so.2.8.60200", "lib/libamd_comgr.so.2");
	link_to("libamd_comgr.so.2", "lib/libamd_comgr.so");
	stack_info_init(&s);
	cr_assert_eq(overlay_stack_probe(lib, &s, &err), 0, "%s", err.msg);
	cr_assert_str_eq(s.hip_version, "7.2.26100");
	cr_assert_str_eq(s.hip_evidence, want);
	cr_assert_str_eq(s.comgr_version, "2.8.60200");
	cr_assert_str_eq(s.source, src);
	cr_assert_null(s.unknown_reason);
	stack_info_release(&s);
	free(lib);
	free(want);
	free(src);
}

Test(preflight_stack, overlay_without_symlinks_scans_names)
{
	struct stack_info s;
	struct error err = { 0 };
	char *lib = xasprintf("%s/build/lib", tmp);

	touch("build/lib/libamdhip64.so.7");
	touch("build/lib/libamdhip64.so.7.15.26291-2ed46569ce");
	touch("build/lib/libamdhip64.so.7.15.26291");
	touch("build/lib/libhsa-runtime64.so.1.15.0");
	stack_info_init(&s);
	cr_assert_eq(overlay_stack_probe(lib, &s, &err), 0, "%s", err.msg);
	cr_assert_str_eq(s.hip_version, "7.15.26291");
	cr_assert(strstr(s.hip_evidence, "libamdhip64.so.7.15.26291-2ed46569ce"), "%s", s.hip_evidence);
	cr_assert_null(s.comgr_version);
	cr_assert(strstr(s.comgr_unknown_reason, "no libamd_comgr.so.X.Y in the CLR overlay"),
		  "%s", s.comgr_unknown_reason);
	stack_info_release(&s);
	free(lib);
}

Test(preflight_stack, overlay_with_no_hip_or_no_dir)
{
	struct stack_info s;
	struct error err = { 0 };
	char *lib = xasprintf("%s/empty", tmp);
	char *missing = xasprintf("%s/missing", tmp);

	cr_assert_eq(mkdir(lib, 0700), 0);
	stack_info_init(&s);
	cr_assert_eq(overlay_stack_probe(lib, &s, &err), 0, "%s", err.msg);
	cr_assert_null(s.hip_version);
	cr_assert(strstr(s.unknown_reason, "no libamdhip64.so.X.Y.Z in the CLR overlay"), "%s",
		  s.unknown_reason);
	cr_assert_eq(overlay_stack_probe(missing, &s, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert(strstr(err.msg, missing), "%s", err.msg);
	stack_info_release(&s);
	free(lib);
	free(missing);
}

Test(preflight_stack, overlay_symlink_loop_is_bounded)
{
	struct stack_info s;
	struct error err = { 0 };
	char *lib = xasprintf("%s/loop", tmp);

	cr_assert_eq(mkdir(lib, 0700), 0);
	link_to("libamdhip64.so.7", "loop/libamdhip64.so");
	link_to("libamdhip64.so", "loop/libamdhip64.so.7");
	stack_info_init(&s);
	cr_assert_eq(overlay_stack_probe(lib, &s, &err), 0, "%s", err.msg);
	cr_assert_null(s.hip_version);
	stack_info_release(&s);
	free(lib);
}

static const char *const dirs_a[] = { "/opt/rocm/lib", NULL };

static void write_cache(const char *text)
{
	char *p = xasprintf("%s/cache/image-stack-0123abcd.json", tmp);

	pft_writef(p, "%s", text);
	free(p);
}

Test(preflight_stack, cache_hit_needs_no_engine)
{
	struct strvec dirs = STRVEC_INIT;
	struct stack_info s;
	struct error err = { 0 };
	char *cache = xasprintf("%s/cache", tmp);

	strvec_pushv(&dirs, dirs_a);
	write_cache("{\"schema\":1,\"image_id\":\"sha256:0123abcd\",\"lib_dirs\":[\"/opt/rocm/lib\"],"
		    "\"hip_version\":\"7.13.0\",\"hip_evidence\":\"/opt/rocm/lib/libamdhip64.so.7.13.0\","
		    "\"comgr_version\":null,\"rocm_release\":\"7.13.0-1\"}");
	stack_info_init(&s);
	cr_assert_eq(image_stack_probe(NULL, "hrr-stack-a:dev", "sha256:0123abcd", &dirs, cache, &s,
				       &err), 0, "%s", err.msg);
	cr_assert_str_eq(s.hip_version, "7.13.0");
	cr_assert_str_eq(s.hip_evidence, "/opt/rocm/lib/libamdhip64.so.7.13.0");
	cr_assert_null(s.comgr_version);
	cr_assert_str_eq(s.rocm_release, "7.13.0-1");
	cr_assert_str_eq(s.source, "image hrr-stack-a:dev (sha256:0123abcd)");
	stack_info_release(&s);
	strvec_clear(&dirs);
	free(cache);
}

Test(preflight_stack, cache_misses_need_the_engine)
{
	static const char *const other_dirs[] = { "/opt/extra", "/opt/rocm/lib", NULL };
	struct strvec dirs = STRVEC_INIT;
	struct stack_info s;
	struct error err = { 0 };
	char *cache = xasprintf("%s/cache", tmp);
	const char *const bad[] = {
		"not json at all",
		"[]",
		"{\"schema\":2,\"image_id\":\"sha256:0123abcd\",\"lib_dirs\":[\"/opt/rocm/lib\"]}",
		"{\"schema\":1,\"image_id\":\"sha256:ffff\",\"lib_dirs\":[\"/opt/rocm/lib\"]}",
		"{\"schema\":1,\"image_id\":\"sha256:0123abcd\",\"lib_dirs\":[\"/opt/rocm/lib\"],\"hip_version\":7}",
		"{\"schema\":1,\"image_id\":\"sha256:0123abcd\",\"lib_dirs\":\"/opt/rocm/lib\"}",
	};

	strvec_pushv(&dirs, dirs_a);
	stack_info_init(&s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_cache(bad[i]);
		cr_assert_eq(image_stack_probe(NULL, "img", "sha256:0123abcd", &dirs, cache, &s, &err),
			     -1, "%s", bad[i]);
		cr_assert_eq(err.kind, ERR_USAGE);
		cr_assert_str_eq(err.msg, "probing image img: no cached answer and no engine");
	}
	/* Valid for other library dirs: a miss too. */
	write_cache("{\"schema\":1,\"image_id\":\"sha256:0123abcd\",\"lib_dirs\":[\"/opt/rocm/lib\"]}");
	strvec_clear(&dirs);
	strvec_pushv(&dirs, other_dirs);
	cr_assert_eq(image_stack_probe(NULL, "img", "sha256:0123abcd", &dirs, cache, &s, &err), -1);
	/* An id that cannot name a file is never looked up. */
	cr_assert_eq(image_stack_probe(NULL, "img", "sha256:../../etc", &dirs, cache, &s, &err), -1);
	cr_assert_null(s.hip_version);
	stack_info_release(&s);
	strvec_clear(&dirs);
	free(cache);
}
