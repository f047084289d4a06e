/* `make layout` holds the tree to docs/design.md's rule: it passes on the
 * tree as it is, and fails, naming the file, on a scratch copy given one
 * include the rule forbids (a base room reaching up into orchestrator/, a
 * room reaching a later room, a short include path, an include loop), a
 * print site outside the command layer, or a function over 100 lines; a
 * file over 700 lines is said, not a failure. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "tests/support/scratch.h"

/* The parts of the tree make layout reads, copied under dir. */
static char *scratch_tree(void)
{
	char *dir = scratch_dir("layout");
	cleanup_free char *cmd = xasprintf(
		"cd '%s' && cp -r Makefile mk docs common docker preflight orchestrator '%s'/",
		test_source_root(), dir);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return dir;
}

/* Runs make layout in dir; its output in out, its exit status returned. */
static int layout(const char *dir, struct strbuf *out)
{
	cleanup_free char *cmd = xasprintf("make -s -C '%s' layout 2>&1", dir);
	FILE *p = popen(cmd, "r");
	char buf[4096];
	size_t n;
	int st;

	cr_assert_not_null(p);
	strbuf_reset(out);
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		strbuf_add(out, buf, n);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void append_line(const char *dir, const char *file, const char *line)
{
	cleanup_free char *path = xasprintf("%s/%s", dir, file);
	FILE *f = fopen(path, "a");

	cr_assert_not_null(f, "%s", path);
	fprintf(f, "%s\n", line);
	fclose(f);
}

static void assert_fails_naming(const char *file, const char *include, const char *expect)
{
	cleanup_free char *dir = scratch_tree();
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	cr_assert_eq(layout(dir, &out), 0, "the copy already fails:\n%s", out.buf);
	append_line(dir, file, include);
	cr_expect_neq(layout(dir, &out), 0, "make layout passed with %s in %s:\n%s", include, file,
		      out.buf);
	cr_expect_not_null(strstr(out.buf, expect), "no '%s' in:\n%s", expect, out.buf);
	scratch_remove(dir);
}

/* make layout passes on a copy with line appended to file, and says
 * `says` when given. */
static void assert_passes_with(const char *file, const char *line, const char *says)
{
	cleanup_free char *dir = scratch_tree();
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	append_line(dir, file, line);
	cr_expect_eq(layout(dir, &out), 0, "%s", out.buf);
	if (says)
		cr_expect_not_null(strstr(out.buf, says), "%s", out.buf);
	scratch_remove(dir);
}

Test(layout, the_tree_keeps_the_rule)
{
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	cr_assert_eq(layout(test_source_root(), &out), 0, "%s", out.buf);
	cr_expect_not_null(strstr(out.buf, "arrows against the rule:\n  none"), "%s", out.buf);
	cr_expect_not_null(strstr(out.buf, "orchestrator/sweep/"), "rooms one level down:\n%s",
			   out.buf);
}

Test(layout, a_base_room_including_the_orchestrator_fails)
{
	assert_fails_naming("preflight/preflight.c",
			    "#include \"orchestrator/finding/finding.h\"",
			    "preflight/preflight.c includes orchestrator/finding/finding.h");
}

Test(layout, the_engine_client_including_preflight_fails)
{
	assert_fails_naming("docker/images.c", "#include \"preflight/manifest.h\"",
			    "docker/ may not include preflight/");
}

Test(layout, a_room_including_a_later_room_fails)
{
	assert_fails_naming("orchestrator/finding/render.c",
			    "#include \"orchestrator/sweep/sweep_plan.h\"",
			    "orchestrator/finding/ may not include orchestrator/sweep/");
}

Test(layout, an_include_not_spelled_from_the_top_fails)
{
	assert_fails_naming("orchestrator/finding/render.c", "#include \"finding.h\"",
			    "not a file spelled from the top");
}

Test(layout, a_module_loop_within_a_room_fails)
{
	cleanup_free char *dir = scratch_tree();
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	/* marker.h is included by finding.h; marker.c including finding.h
	 * closes the circle finding <-> marker. */
	append_line(dir, "orchestrator/finding/marker.c", "#include \"orchestrator/finding/finding.h\"");
	cr_expect_neq(layout(dir, &out), 0, "%s", out.buf);
	cr_expect_not_null(strstr(out.buf, "orchestrator/finding/finding <-> orchestrator/finding/marker"),
			   "%s", out.buf);
	scratch_remove(dir);
}

Test(layout, an_include_path_per_folder_fails)
{
	cleanup_free char *dir = scratch_tree();
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	append_line(dir, "mk/sim.mk", "EXTRA_CFLAGS = -Iorchestrator/finding");
	cr_expect_neq(layout(dir, &out), 0, "%s", out.buf);
	cr_expect_not_null(strstr(out.buf, "-Iorchestrator/finding"), "%s", out.buf);
	scratch_remove(dir);
}

static void expect_says(const struct strbuf *out, const char *what)
{
	cr_expect_not_null(strstr(out->buf, what), "no '%s' in:\n%s", what, out->buf);
}

/* A function of body lines appended to file in dir. */
static void append_function(const char *dir, const char *file, const char *name, int body)
{
	append_line(dir, file, "");
	append_line(dir, file, name);
	append_line(dir, file, "{");
	for (int i = 0; i < body; i++)
		append_line(dir, file, "\t(void)0;");
	append_line(dir, file, "}");
}

Test(layout, a_function_over_100_lines_fails_and_100_pass)
{
	cleanup_free char *dir = scratch_tree();
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	append_function(dir, "orchestrator/perf/perf_change.c",
			"static void layout_at_the_limit(int a,\n\t\t\t\tint b)", 100);
	cr_expect_eq(layout(dir, &out), 0, "%s", out.buf);
	cr_expect_null(strstr(out.buf, "layout_at_the_limit"), "%s", out.buf);
	append_function(dir, "orchestrator/perf/perf_change.c",
			"static void layout_over_the_limit(void)", 101);
	cr_expect_neq(layout(dir, &out), 0, "%s", out.buf);
	expect_says(&out, "over the limits: orchestrator/perf/perf_change.c:");
	expect_says(&out, " layout_over_the_limit() has 101 lines (at most 100)");
	scratch_remove(dir);
}

Test(layout, a_file_over_700_lines_is_said_not_failed)
{
	cleanup_free char *dir = scratch_tree();
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	/* Comments only: the file grows past 700 lines, no function does. */
	for (int i = 0; i < 700; i++)
		append_line(dir, "orchestrator/perf/perf_change.h", "/* a line */");
	cr_expect_eq(layout(dir, &out), 0, "a long file is not yet a failure:\n%s", out.buf);
	expect_says(&out, "over the limits: orchestrator/perf/perf_change.h has ");
	expect_says(&out, " lines (at most 700; said, not yet a failure)");
	scratch_remove(dir);
}

/* Outcome names are compared only in a codec (docs/design.md: enums
 * inside, names only at a codec): anywhere else make layout names the
 * file and line. */
Test(layout, an_outcome_name_compared_outside_a_codec_fails)
{
	cleanup_free char *dir = scratch_tree();
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	cleanup_free char *where = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	const char *file = "orchestrator/sweep/sweep_run.c";
	cleanup_free char *path = xasprintf("%s/%s", dir, file);
	size_t line = 1;
	struct error err;

	cr_assert_eq(layout(dir, &out), 0, "the copy already fails:\n%s", out.buf);
	cr_assert_eq(fs_read_small_file(path, 1 << 20, &text, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < text.len; i++)
		line += text.buf[i] == '\n';
	append_line(dir, file, "static int passed(const char *x) { return !strcmp(x, \"PASS\"); }");
	cr_expect_neq(layout(dir, &out), 0, "make layout passed:\n%s", out.buf);
	where = xasprintf("%s:%zu:", file, line);
	cr_expect_not_null(strstr(out.buf, where), "no '%s' in:\n%s", where, out.buf);
	scratch_remove(dir);
}

Test(layout, an_outcome_name_compared_in_a_codec_passes)
{
	assert_passes_with("orchestrator/sweep/case_result.c",
			   "static int passed(const char *x) { return !strcmp(x, \"MAF\"); }",
			   "outcome names compared outside a codec:\n  none");
}

/* docs/design.md "Only the outermost caller prints": the library hands
 * what it says to its job_events sink; a print in replay/ fails, named,
 * and the same print in the command layer passes. */
#define A_PRINT "static void noisy(void) { fprintf(stderr, \"x\"); }"

Test(layout, a_print_outside_the_command_layer_fails)
{
	assert_fails_naming("orchestrator/replay/replay_records.c", A_PRINT,
			    "orchestrator/replay/replay_records.c:");
}

Test(layout, the_same_print_in_the_command_layer_passes)
{
	assert_passes_with("orchestrator/cli/cmd_gc.c", A_PRINT, NULL);
}

/* docs/design.md "The rule" (a value travels one way): no module hands another raw
 * JSON. A cJSON in a header of orchestrator/ fails, named; the same
 * declaration in a codec's own header (*_json.h) passes. */
#define RAW_JSON "struct cJSON *leak_json(void);"

Test(layout, raw_json_in_an_orchestrator_header_fails)
{
	assert_fails_naming("orchestrator/replay/replay_desc.h", RAW_JSON,
			    "orchestrator/replay/replay_desc.h:");
}

Test(layout, raw_json_in_a_codec_header_passes)
{
	assert_passes_with("orchestrator/sweep/sweep_plan_json.h", RAW_JSON,
			   "raw JSON in a header outside a codec (*_json.h):\n  none");
}
