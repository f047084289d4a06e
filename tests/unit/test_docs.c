/* The docs stay true to the code: every option of the option table and its
 * env twin is in its command's --help, docs/cli.md and the man page; every
 * HRR_* variable the program reads is in docs/cli.md and the man page, and
 * every one only the tests and the simulator read is in README's test
 * set-up section; the exit-code tables of README, docs/cli.md and the man
 * page list exactly the codes of the code's exit enum. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/cli/options_table.h"
#include "tests/support/scratch.h"

#define DOC_MAX (4u << 20)

static void read_source(const char *rel, struct strbuf *out)
{
	cleanup_free char *path = xasprintf("%s/%s", test_source_root(), rel);
	struct error err;

	strbuf_reset(out);
	cr_assert_geq(fs_read_small_file(path, DOC_MAX, out, &err), 0, "%s: %s", path, err.msg);
}

/* [from, to) of text: the section that starts at the line `from` and ends
 * before the next line starting with `next` (or at the end). */
static void section(const char *text, const char *from, const char *next, struct strbuf *out)
{
	const char *a = strstr(text, from);
	const char *b;

	cr_assert_not_null(a, "no section '%s'", from);
	b = strstr(a + strlen(from), next);
	strbuf_reset(out);
	strbuf_add(out, a, b ? (size_t)(b - a) : strlen(a));
}

static bool word_char(char c, bool env)
{
	return env ? (isupper((unsigned char)c) || isdigit((unsigned char)c) || c == '_')
		   : (islower((unsigned char)c) || isdigit((unsigned char)c) || c == '-');
}

/* needle as a whole word: "--gpu" is not found in "--gpu-wait", nor
 * "HRR_X" in "HRR_XY"; in the man page a '-' may be written "\-". */
static bool mentions(const char *text, const char *needle, bool env)
{
	for (const char *p = text; *p; p++) {
		const char *q = p, *n = needle;

		while (*n && *q) {
			if (*n == '-' && q[0] == '\\' && q[1] == '-')
				q += 2;
			else if (*n == *q)
				q++;
			else
				break;
			n++;
		}
		if (*n)
			continue;
		if ((env && p > text && word_char(p[-1], env)) || word_char(*q, env) ||
		    (q[0] == '\\' && q[1] == '-'))
			continue;
		return true;
	}
	return false;
}

Test(docs, every_option_and_env_twin_is_in_help_cli_md_and_the_man_page)
{
	cleanup_strbuf struct strbuf cli = STRBUF_INIT;
	cleanup_strbuf struct strbuf man = STRBUF_INIT;

	read_source("docs/cli.md", &cli);
	read_source("docs/hrr-docker-replay.1", &man);
	for (size_t i = 0; i < option_count(); i++) {
		const struct option_def *d = option_at(i);
		cleanup_free char *flag = xasprintf("--%s", d->name);

		cr_expect(mentions(cli.buf, flag, false), "docs/cli.md lacks %s", flag);
		cr_expect(mentions(man.buf, flag, false), "the man page lacks %s", flag);
		if (d->env) {
			cr_expect(mentions(cli.buf, d->env, true), "docs/cli.md lacks %s (%s)", d->env,
				  flag);
			cr_expect(mentions(man.buf, d->env, true), "the man page lacks %s (%s)",
				  d->env, flag);
		}
		for (int cmd = CMD_RUN; cmd <= CMD_BISECT; cmd++) {
			cleanup_strbuf struct strbuf help = STRBUF_INIT;

			if (!option_applies(d, (enum command)cmd))
				continue;
			options_help((enum command)cmd, &help);
			cr_expect(mentions(help.buf, flag, false), "--help of command %d lacks %s",
				  cmd, flag);
			if (d->env)
				cr_expect(mentions(help.buf, d->env, true),
					  "--help of command %d lacks %s", cmd, d->env);
		}
	}
}

/* Every "HRR_..." string literal in the .c and .h files of dir. */
static void hrr_literals(const char *dir, bool getenv_only, struct strvec *out)
{
	cleanup_free char *path = xasprintf("%s/%s", test_source_root(), dir);
	DIR *d = opendir(path);
	struct dirent *de;

	cr_assert_not_null(d, "%s", path);
	while ((de = readdir(d))) {
		cleanup_strbuf struct strbuf text = STRBUF_INIT;
		cleanup_free char *rel = NULL;
		size_t len = strlen(de->d_name);
		const char *lead = getenv_only ? "getenv(\"HRR_" : "\"HRR_";

		if (len < 3 || (strcmp(de->d_name + len - 2, ".c") && strcmp(de->d_name + len - 2, ".h")))
			continue;
		rel = xasprintf("%s/%s", dir, de->d_name);
		read_source(rel, &text);
		for (const char *p = strstr(text.buf, lead); p; p = strstr(p + 1, lead)) {
			const char *a = p + strlen(lead) - 4;
			const char *b = a;

			while (word_char(*b, true))
				b++;
			if (*b != '"')
				continue;
			{
				cleanup_free char *name = xstrndup(a, (size_t)(b - a));
				bool seen = false;

				for (size_t i = 0; i < out->n; i++)
					seen = seen || !strcmp(out->v[i], name);
				if (!seen)
					strvec_push(out, name);
			}
		}
	}
	closedir(d);
}

Test(docs, every_hrr_variable_the_program_reads_is_in_cli_md_and_the_man_page)
{
	static const char *const product[] = {
		"common", "docker", "docker/registry", "preflight", "orchestrator/finding",
		"orchestrator/diagnosis", "orchestrator/containers", "orchestrator/seccomp",
		"orchestrator/replay", "orchestrator/lease", "orchestrator/sweep", "orchestrator/history",
		"orchestrator/cluster", "orchestrator/report", "orchestrator/bisect", "orchestrator/cli",
		"orchestrator/perf", "orchestrator/jobs", "orchestrator/site", "orchestrator/notify",
	};
	cleanup_strbuf struct strbuf cli = STRBUF_INIT;
	cleanup_strbuf struct strbuf man = STRBUF_INIT;
	cleanup_strvec struct strvec names = STRVEC_INIT;

	read_source("docs/cli.md", &cli);
	read_source("docs/hrr-docker-replay.1", &man);
	for (size_t i = 0; i < sizeof(product) / sizeof(product[0]); i++)
		hrr_literals(product[i], false, &names);
	cr_assert_gt(names.n, 10, "the scan found the program's variables");
	for (size_t i = 0; i < names.n; i++) {
		cr_expect(mentions(cli.buf, names.v[i], true), "docs/cli.md lacks %s", names.v[i]);
		cr_expect(mentions(man.buf, names.v[i], true), "the man page lacks %s", names.v[i]);
	}
}

Test(docs, every_hrr_variable_only_tests_read_is_in_readmes_test_section)
{
	static const char *const test_dirs[] = { "tests/support", "tests/unit", "tests/integration",
						 "images/sim", "images/sim-tools" };
	cleanup_strbuf struct strbuf readme = STRBUF_INIT;
	cleanup_strbuf struct strbuf setup = STRBUF_INIT;
	cleanup_strvec struct strvec names = STRVEC_INIT;

	read_source("README.md", &readme);
	section(readme.buf, "\n## Install\n", "\n## ", &setup);
	for (size_t i = 0; i < sizeof(test_dirs) / sizeof(test_dirs[0]); i++)
		hrr_literals(test_dirs[i], true, &names);
	cr_assert_gt(names.n, 5, "the scan found the tests' variables");
	for (size_t i = 0; i < names.n; i++)
		cr_expect(mentions(setup.buf, names.v[i], true),
			  "README's set-up section lacks %s", names.v[i]);
}

/* The codes of a table: the first number of each line that starts with
 * row_lead ("| " in Markdown, ".TP\n" in the man page). */
static void table_codes(const char *text, const char *row_lead, struct strvec *out)
{
	for (const char *p = strstr(text, row_lead); p; p = strstr(p + 1, row_lead)) {
		const char *q = p + strlen(row_lead);
		size_t n = strspn(q, "0123456789");

		if (n && (q[n] == ' ' || q[n] == '\n'))
			strvec_push_nodup(out, xstrndup(q, n));
	}
}

static void assert_same_codes(const struct strvec *code, const struct strvec *doc,
			      const char *where)
{
	for (size_t i = 0; i < code->n; i++) {
		bool found = false;

		for (size_t j = 0; j < doc->n; j++)
			found = found || !strcmp(code->v[i], doc->v[j]);
		cr_expect(found, "%s lacks exit code %s", where, code->v[i]);
	}
	for (size_t j = 0; j < doc->n; j++) {
		bool found = false;

		for (size_t i = 0; i < code->n; i++)
			found = found || !strcmp(code->v[i], doc->v[j]);
		cr_expect(found, "%s lists exit code %s, which the exit enum lacks", where,
			  doc->v[j]);
	}
}

Test(docs, exit_code_tables_list_exactly_the_exit_enum)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_strbuf struct strbuf part = STRBUF_INIT;
	cleanup_strvec struct strvec code = STRVEC_INIT;
	cleanup_strvec struct strvec doc = STRVEC_INIT;

	read_source("orchestrator/replay/exit_codes.h", &text);
	section(text.buf, "/* Exit codes", "};", &part);
	for (const char *p = strstr(part.buf, "EXIT_"); p; p = strstr(p + 1, "EXIT_")) {
		const char *eq = strstr(p, " = ");

		if (eq && eq < strchr(p, '\n'))
			strvec_push_nodup(&code, xstrndup(eq + 3, strspn(eq + 3, "0123456789")));
	}
	cr_assert_geq(code.n, 7, "the exit enum was found");

	read_source("README.md", &text);
	section(text.buf, "\n## Exit codes\n", "\n## ", &part);
	table_codes(part.buf, "\n| ", &doc);
	assert_same_codes(&code, &doc, "README.md");

	strvec_clear(&doc);
	read_source("docs/cli.md", &text);
	section(text.buf, "\n## Exit codes\n", "\n## ", &part);
	table_codes(part.buf, "\n| ", &doc);
	assert_same_codes(&code, &doc, "docs/cli.md");

	strvec_clear(&doc);
	read_source("docs/hrr-docker-replay.1", &text);
	section(text.buf, "\n.SH EXIT STATUS\n", "\n.SH ", &part);
	table_codes(part.buf, "\n.TP\n", &doc);
	assert_same_codes(&code, &doc, "the man page");

	strvec_clear(&doc);
	section(cmd_replay_help_tail, "\nExit codes:\n", "\n\n", &part);
	table_codes(part.buf, "\n  ", &doc);
	assert_same_codes(&code, &doc, "--help");
}

/* README's run options table is what a developer triaging one capture
 * reads first: every option of `run` is in it (it once lacked --as-root,
 * --memory, --seccomp, --gpu-wait and the --perf pair). */
Test(docs, every_run_option_is_in_readmes_options_table)
{
	cleanup_strbuf struct strbuf readme = STRBUF_INIT;
	cleanup_strbuf struct strbuf table = STRBUF_INIT;

	read_source("README.md", &readme);
	section(readme.buf, "### Options\n", "\n### ", &table);
	for (size_t i = 0; i < option_count(); i++) {
		const struct option_def *d = option_at(i);
		cleanup_free char *flag = xasprintf("--%s", d->name);

		if (option_applies(d, CMD_RUN))
			cr_expect(mentions(table.buf, flag, false),
				  "README's \"### Options\" table lacks run's %s", flag);
	}
}
