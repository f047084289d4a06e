/* orchestrator/sweep/sweep_plan_lines.c and the sweep folder's plan:
 * the cases file is read a line at a time; a damaged line from a folder
 * anyone may have touched is a one-line error naming the file and the
 * line; and a sweep folder of the previous version (every case inline in
 * plan.json and run-options.json) is still read. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "orchestrator/sweep/sweep_plan_lines.h"
#include "tests/support/scratch.h"

static char *root, *folder;

static void setup(void)
{
	struct error err;

	root = scratch_dir("sweep-plan-lines");
	cr_assert_eq(sweep_folder_create(root, "n-1", &folder, &err), 0, "%s", err.msg);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(folder);
}

TestSuite(sweep_plan_lines, .init = setup, .fini = teardown);

static void three_cases(struct sweep_meta *m)
{
	sweep_meta_init(m);
	m->id = xstrdup("n-1");
	m->label = xstrdup("n");
	m->run_options = xstrdup("{}");
	sweep_meta_add_image(m, "i");
	for (int k = 0; k < 3; k++) {
		struct sweep_case *c = sweep_plan_push(&m->plan);

		c->name = xasprintf("lib/c%d/pid-1", k);
		c->archive = xasprintf("/lib/c%d/pid-1", k);
		c->image = xstrdup("i");
		c->gpu_count = k + 1;
		c->expected_s = k == 1 ? 12.5 : -1;
		if (k == 2)
			strvec_push(&c->env, "API_KEY=case_secret");
	}
}

static void write_file(const char *name, const char *text)
{
	cleanup_free char *path = xasprintf("%s/%s", folder, name);
	struct error err;

	cr_assert_eq(fs_write_atomic(path, text, strlen(text), 0644, &err), 0, "%s", err.msg);
}

/* The folder's plan read back with its cases file replaced by text: the
 * error's message, or NULL when it read. */
static char *read_with_cases(const char *text)
{
	struct sweep_meta m;
	struct error err;
	char *msg = NULL;

	write_file(SWEEP_CASES_FILE, text);
	sweep_meta_init(&m);
	if (sweep_meta_read(&m, folder, &err) < 0) {
		cr_assert_eq(err.kind, ERR_DATA, "%s", err.msg);
		cr_assert_null(strchr(err.msg, '\n'), "one line: %s", err.msg);
		msg = xstrdup(err.msg);
	}
	sweep_meta_release(&m);
	return msg;
}

Test(sweep_plan_lines, round_trip_one_case_a_line)
{
	struct sweep_meta m, back;
	struct error err;
	cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_CASES_FILE);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	size_t lines = 0;

	three_cases(&m);
	cr_assert_eq(sweep_meta_write(&m, folder, &err), 0, "%s", err.msg);
	cr_assert_eq(fs_read_small_file(path, 1 << 20, &text, &err), 0, "%s", err.msg);
	for (const char *p = text.buf; (p = strchr(p, '\n')); p++)
		lines++;
	cr_assert_eq(lines, 3, "%s", text.buf);
	cr_assert_null(strstr(text.buf, "case_secret"), "%s", text.buf);
	sweep_meta_init(&back);
	cr_assert_eq(sweep_meta_read(&back, folder, &err), 0, "%s", err.msg);
	cr_assert_eq(back.plan.n, 3);
	cr_assert_eq(back.plan.alloc, 3, "a plan read back is no larger than its cases");
	for (size_t k = 0; k < 3; k++) {
		cr_assert_str_eq(back.plan.cases[k].name, m.plan.cases[k].name);
		cr_assert_str_eq(back.plan.cases[k].archive, m.plan.cases[k].archive);
		cr_assert_eq(back.plan.cases[k].gpu_count, (int)k + 1);
	}
	cr_assert_float_eq(back.plan.cases[1].expected_s, 12.5, 1e-9);
	cr_assert_eq(back.plan.cases[0].env.n, 0);
	cr_assert_str_eq(back.plan.cases[2].env.v[0], "API_KEY=case_secret",
			 "the value comes back from the private file");
	sweep_meta_release(&back);
	sweep_meta_release(&m);
}

Test(sweep_plan_lines, damaged_lines_name_the_file_and_the_line)
{
	struct sweep_meta m;
	struct error err;
	static const char ok[] = "{\"name\":\"a\",\"archive\":\"/a\",\"image\":\"i\"}\n";
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "{\"name\":\"a\",\"archive\":\"/a\",\"image\":\"i\"}\n{\"name\":", "line 2: cut short" },
		{ "{\"name\":\"a\",\"archive\":\"/a\",\"image\":\"i\"}\nnot json\n", "line 2: not one JSON object" },
		{ "[1]\n", "line 1: not one JSON object" },
		{ "{\"name\":\"a\",\"archive\":\"/a\",\"image\":\"i\"} {}\n", "line 1: not one JSON object" },
		{ "{\"name\":\"a\",\"image\":\"i\"}\n", "line 1: \"archive\" is required" },
		{ "{\"name\":\"a\",\"archive\":\"/a\",\"image\":\"i\",\"gpu_count\":-3}\n",
		  "line 1: \"gpu_count\" must be a whole number" },
		{ "", "has 0 cases, plan.json names 3" },
	};

	three_cases(&m);
	cr_assert_eq(sweep_meta_write(&m, folder, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		cleanup_free char *msg = read_with_cases(bad[i].text);

		cr_assert(msg && strstr(msg, SWEEP_CASES_FILE) && strstr(msg, bad[i].says),
			  "%zu: %s", i, msg ? msg : "(read)");
	}
	{
		/* More cases than plan.json counts: one was planted. */
		cleanup_free char *four = xasprintf("%s%s%s%s", ok, ok, ok, ok);
		cleanup_free char *msg = read_with_cases(four);

		cr_assert(msg && strstr(msg, "line 4: more cases than the 3"), "%s", msg ? msg : "(read)");
	}
	{
		cleanup_free char *three = xasprintf("%s%s%s", ok, ok, ok);
		cleanup_free char *msg = read_with_cases(three);

		cr_assert_null(msg, "%s", msg);
	}
	sweep_meta_release(&m);
}

Test(sweep_plan_lines, a_nul_in_a_line_is_refused)
{
	struct sweep_plan p = { 0 };
	struct error err;
	static const char line[] = "{\"name\":\"a\",\"archive\":\"/a\",\"image\":\"i\"}\0x";

	cr_assert_eq(sweep_plan_line_add(&p, line, sizeof(line) - 1, "F", 7, &err), -1);
	cr_assert(strstr(err.msg, "F, line 7: a NUL byte"), "%s", err.msg);
	sweep_plan_release(&p);
}

/* What the previous version left: every case inline in plan.json and
 * again, with its env values, in run-options.json. Its resume reads it. */
Test(sweep_plan_lines, a_sweep_folder_of_the_previous_version_is_read)
{
	struct sweep_meta back;
	struct error err;

	write_file(SWEEP_PLAN_FILE,
		   "{\"version\":1,\"sweep\":\"n-1\",\"label\":\"n\",\"images\":[{\"ref\":\"i\"}],"
		   "\"run_options\":{},\"cases\":["
		   "{\"name\":\"a\",\"archive\":\"/a/pid-1\",\"image\":\"i\",\"gpu_count\":2},"
		   "{\"name\":\"b\",\"archive\":\"/b/pid-1\",\"image\":\"i\","
		   "\"env\":{\"API_KEY\":\"<not recorded>\"}}]}");
	write_file(SWEEP_PRIVATE_FILE,
		   "{\"version\":1,\"run_options\":{\"env\":[\"HF_TOKEN=t\"]},\"cases\":["
		   "{\"name\":\"a\",\"archive\":\"/a/pid-1\",\"image\":\"i\",\"gpu_count\":2},"
		   "{\"name\":\"b\",\"archive\":\"/b/pid-1\",\"image\":\"i\","
		   "\"env\":{\"API_KEY\":\"case_secret\"}}]}");
	{
		cleanup_free char *priv = xasprintf("%s/%s", folder, SWEEP_PRIVATE_FILE);

		cr_assert_eq(chmod(priv, 0600), 0);
	}
	sweep_meta_init(&back);
	cr_assert_eq(sweep_meta_read(&back, folder, &err), 0, "%s", err.msg);
	cr_assert(back.has_private);
	cr_assert_eq(back.plan.n, 2);
	cr_assert_eq(back.plan.cases[0].gpu_count, 2);
	cr_assert_str_eq(back.plan.cases[1].env.v[0], "API_KEY=case_secret");
	cr_assert(strstr(back.run_options, "HF_TOKEN=t"), "%s", back.run_options);
	sweep_meta_release(&back);
}

Test(sweep_plan_lines, private_env_naming_no_case_is_refused)
{
	struct sweep_meta m, back;
	struct error err;

	three_cases(&m);
	cr_assert_eq(sweep_meta_write(&m, folder, &err), 0, "%s", err.msg);
	write_file(SWEEP_PRIVATE_FILE, "{\"version\":2,\"run_options\":{},"
				       "\"env\":[{\"case\":3,\"env\":{\"K\":\"v\"}}]}");
	{
		cleanup_free char *priv = xasprintf("%s/%s", folder, SWEEP_PRIVATE_FILE);

		cr_assert_eq(chmod(priv, 0600), 0);
	}
	sweep_meta_init(&back);
	cr_assert_eq(sweep_meta_read(&back, folder, &err), -1);
	cr_assert(strstr(err.msg, SWEEP_PRIVATE_FILE) && strstr(err.msg, "move the sweep folder aside"),
		  "%s", err.msg);
	sweep_meta_release(&back);
	sweep_meta_release(&m);
}
