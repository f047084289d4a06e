/* `run --known-issues` end to end (docs/sweep.md "Known issues"): the
 * matching rule named in finding.json and finding.md, untriaged when none
 * matches, a bad file exit 64 before anything runs. The sweep's side is
 * tests/integration/test_triage.c's known_sweep. */
#include <criterion/criterion.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"
#include "tests/support/scratch.h"

/* A rules file of one rule, BUG-21 of gemm-team, matching on match. */
static char *write_rules(const char *match)
{
	char *path = xasprintf("%s/known-issues.yaml", tenv.root);
	cleanup_free char *text = xasprintf("issues:\n"
					    "  - id: BUG-21\n"
					    "    link: https://bugs.example/21\n"
					    "    owner: gemm-team\n"
					    "    match: {%s}\n",
					    match);
	struct error err;

	cr_assert_eq(fs_write_atomic(path, text, strlen(text), 0644, &err), 0, "%s", err.msg);
	return path;
}

static bool text_has(const char *path, const char *needle)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	if (fs_read_small_file(path, 64 << 20, &text, ERROR_DISCARD) < 0)
		return false;
	return memmem(text.buf, text.len, needle, strlen(needle)) != NULL;
}

TestSuite(known_run, .init = tenv_init, .fini = tenv_fini, .timeout = 120);

static void run_with_rules(struct tool_run *r, const char *pid_dir, const char *rules)
{
	const char *const argv[] = { "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir",
				     tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
				     tenv.sysfs, "-q", "--timeout", "20", "--known-issues", rules,
				     NULL };

	tool_run(r, argv, NULL);
}

Test(known_run, the_finding_names_the_rule_that_matched_and_says_untriaged_otherwise)
{
	cleanup_free char *pid_dir = fixture_pid_dir("maf");
	cleanup_free char *rules = NULL, *md = NULL;
	cleanup_cjson cJSON *f = NULL;
	const cJSON *k;
	struct tool_run r;

	/* case is the pid directory as given: the fixture's path ends in maf/... */
	rules = write_rules("outcome: MAF, case: '*/maf/*', image: 'hrr-sim:*'");
	run_with_rules(&r, pid_dir, rules);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	f = read_json(r.run_dir, "finding.json");
	k = cJSON_GetObjectItemCaseSensitive(f, "known");
	cr_assert(cJSON_IsObject(k), "no known issue in finding.json");
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(k, "id")), "BUG-21");
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(k, "owner")), "gemm-team");
	md = xasprintf("%s/finding.md", r.run_dir);
	cr_assert(text_has(md, "| Known issue | `BUG-21`, owner gemm-team: https://bugs.example/21 |"));
	cr_assert(strstr(r.out.buf, "BUG-21"), "stdout has the finding too: %s", r.out.buf);
	tool_run_release(&r);
	cJSON_Delete(f);
	f = NULL;

	/* Another image pattern: nothing matches, the finding is untriaged. */
	free(rules);
	rules = write_rules("outcome: MAF, image: 'rocm/*'");
	run_with_rules(&r, pid_dir, rules);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	f = read_json(r.run_dir, "finding.json");
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(f, "known")));
	free(md);
	md = xasprintf("%s/finding.md", r.run_dir);
	cr_assert(text_has(md, "| Known issue | untriaged (no known-issue rule matched) |"));
	tool_run_release(&r);
}

Test(known_run, a_bad_file_is_exit_64_before_anything_runs)
{
	cleanup_free char *pid_dir = fixture_pid_dir("maf");
	cleanup_free char *rules = write_rules("colour: red");
	struct tool_run r;

	run_with_rules(&r, pid_dir, rules);
	cr_assert_eq(r.status, 64, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "known-issues.yaml:5: rule BUG-21: unknown match key 'colour'"),
		  "%s", r.err.buf);
	cr_assert_null(r.run_dir, "nothing ran");
	tool_run_release(&r);
}

/* Rules that would stall or exhaust the host are refused, quickly, before
 * anything runs (ASan and valgrind builds skip the time limit). */
Test(known_run, hostile_regular_expressions_and_aliases_are_exit_64_at_once)
{
	static const char *const hostile[][2] = {
		{ "evidence: 're:a{32767}{32767}'", "a repeat count of 32767" },
		{ "evidence: 're:((a{30}){30}){30}'", "repeats make" },
		{ "evidence: 're:(a*)*b\\1'", "a back-reference" },
	};
	cleanup_free char *pid_dir = fixture_pid_dir("maf");
	const char *sanitized = getenv("ASAN_OPTIONS");

	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		cleanup_free char *rules = write_rules(hostile[i][0]);
		cleanup_free char *want = xasprintf("known-issues.yaml:5: rule BUG-21: regular "
						    "expression refused: %s", hostile[i][1]);
		struct tool_run r;

		run_with_rules(&r, pid_dir, rules);
		cr_assert_eq(r.status, 64, "%s", r.err.buf);
		cr_assert(strstr(r.err.buf, want), "%s", r.err.buf);
		cr_assert_null(r.run_dir, "nothing ran");
		if (!sanitized)
			cr_assert_lt(r.seconds, 2.0, "took %.1f s", r.seconds);
		tool_run_release(&r);
	}
	{
		cleanup_free char *rules = xasprintf("%s/known-issues.yaml", tenv.root);
		static const char text[] = "issues: []\nowners:\n"
					   "  a: {notify: &hooks [env:A, env:B]}\n"
					   "  b: {notify: *hooks}\n";
		struct error err;
		struct tool_run r;

		cr_assert_eq(fs_write_atomic(rules, text, strlen(text), 0644, &err), 0, "%s", err.msg);
		run_with_rules(&r, pid_dir, rules);
		cr_assert_eq(r.status, 64, "%s", r.err.buf);
		cr_assert(strstr(r.err.buf, "known-issues.yaml:3: an alias (*name)"), "%s", r.err.buf);
		tool_run_release(&r);
	}
}

static void write_text(const char *path, const char *text)
{
	struct error err;

	cr_assert_eq(fs_write_atomic(path, text, strlen(text), 0644, &err), 0, "%s", err.msg);
}

/* Ids, keys and values a rule quotes reach the terminal with their
 * controls replaced (U+FFFD), never raw ESC or BEL. */
Test(known_run, control_characters_in_ids_keys_and_values_never_reach_the_terminal)
{
	static const char *const bad[] = {
		"issues:\n  - id: \"BUG\\e]0;owned\\a\"\n    link: https://b/1\n    owner: o\n"
		"    match: {\"col\\eour\": red}\n",
		"issues:\n  - id: B\n    link: https://b/1\n    owner: o\n"
		"    expires: \"2026\\e[2J\\a\"\n    match: {outcome: MAF}\n",
		"issues:\n  - id: \"BUG\\e[2J\"\n    link: https://b/1\n    owner: o\n"
		"    expires: 2001-01-01\n    match: {outcome: MAF}\n",
	};
	cleanup_free char *pid_dir = fixture_pid_dir("maf");
	cleanup_free char *rules = xasprintf("%s/known-issues.yaml", tenv.root);

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct tool_run r;

		write_text(rules, bad[i]);
		run_with_rules(&r, pid_dir, rules);
		cr_assert_eq(r.status, i < 2 ? 64 : 1, "%zu: %s", i, r.err.buf);
		cr_assert(strstr(r.err.buf, "known-issues.yaml:"), "%zu: %s", i, r.err.buf);
		cr_assert_null(memchr(r.err.buf, '\033', r.err.len), "%zu: ESC in %s", i,
			       r.err.buf);
		cr_assert_null(memchr(r.err.buf, '\a', r.err.len), "%zu: BEL in %s", i, r.err.buf);
		cr_assert(strstr(r.err.buf, "\xef\xbf\xbd"), "%zu: U+FFFD in %s", i, r.err.buf);
		tool_run_release(&r);
	}
}

/* Whose known-issues file is read (docs/security.md "What is trusted"):
 * the one beside the database as the database itself, a --known-issues
 * file of another user only when nobody else can write it, and then
 * without its notify: URLs. Another user is hrrpod (made by
 * tests/setup.sh). */
TestSuite(known_trust, .init = tenv_init, .fini = tenv_fini, .timeout = 60);

static const char trust_rules[] = "issues: []\n"
				  "owners:\n"
				  "  gemm-team: {notify: 'https://hooks.example/planted'}\n";

/* `history known` on a database in dir (made here, 0700), with rules
 * when not NULL. */
static void history_known(struct tool_run *r, const char *dir, const char *rules)
{
	cleanup_free char *db = xasprintf("%s/history.sqlite", dir);
	const char *prune[] = { "history", "prune", "--keep", "5", "--db", db, NULL };
	const char *known[] = { "history", "known", "--db", db,
				rules ? "--known-issues" : NULL, rules, NULL };

	if (access(db, F_OK) != 0) {
		tool_run(r, prune, NULL);
		cr_assert_eq(r->status, 0, "%s", r->err.buf);
		tool_run_release(r);
	}
	tool_run(r, known, NULL);
}

static uid_t hrrpod_uid(void)
{
	const struct passwd *pw = getpwnam("hrrpod");

	cr_assert_not_null(pw, "user hrrpod (tests/setup.sh makes it)");
	return pw->pw_uid;
}

static void chown_to_hrrpod(const char *path)
{
	cr_assert_eq(lchown(path, hrrpod_uid(), (gid_t)-1), 0, "chown %s", path);
}

Test(known_trust, a_planted_file_beside_the_database_is_exit_64_naming_it)
{
	cleanup_free char *dir = xasprintf("%s/db", tenv.root);
	cleanup_free char *path = xasprintf("%s/known-issues.yaml", dir);
	cleanup_free char *other = xasprintf("%s/other", tenv.root);
	cleanup_free char *planted = xasprintf("%s/known-issues.yaml", other);
	cleanup_free char *theirs = xasprintf("belongs to uid %u", (unsigned)hrrpod_uid());
	struct tool_run r;

	cr_assert_eq(mkdir(dir, 0700), 0);
	write_text(path, trust_rules);
	history_known(&r, dir, NULL);
	cr_assert_eq(r.status, 0, "the caller's own file is read: %s", r.err.buf);
	tool_run_release(&r);

	/* Mode 0666: anyone could have written it. */
	cr_assert_eq(chmod(path, 0666), 0);
	history_known(&r, dir, NULL);
	cr_assert_eq(r.status, 64, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, path) && strstr(r.err.buf, "writable by others (mode 0666)"),
		  "%s", r.err.buf);
	tool_run_release(&r);
	/* A sweep reads the same file by default: refused before anything runs. */
	{
		cleanup_free char *db = xasprintf("%s/history.sqlite", dir);
		cleanup_free char *pid_dir = fixture_pid_dir("maf");
		const char *argv[] = { "sweep", "--db", db, "--workdir", tenv.workdir, "--image",
				       SIM_IMAGE, "--archive", pid_dir, "-q", NULL };

		tool_run(&r, argv, NULL);
		cr_assert_eq(r.status, 64, "%s", r.err.buf);
		cr_assert(strstr(r.err.buf, path), "%s", r.err.buf);
		cr_assert_eq(count_tool_containers(tenv.workdir), 0, "nothing ran");
		tool_run_release(&r);
	}

	/* Another user's, 0644. */
	cr_assert_eq(chmod(path, 0644), 0);
	chown_to_hrrpod(path);
	history_known(&r, dir, NULL);
	cr_assert_eq(r.status, 64, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, path) && strstr(r.err.buf, theirs), "%s", r.err.buf);
	tool_run_release(&r);

	/* A symlink into another user's 0777 directory. */
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkdir(other, 0777), 0);
	cr_assert_eq(chmod(other, 0777), 0);
	chown_to_hrrpod(other);
	write_text(planted, trust_rules);
	chown_to_hrrpod(planted);
	cr_assert_eq(symlink(planted, path), 0);
	history_known(&r, dir, NULL);
	cr_assert_eq(r.status, 64, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, path) && strstr(r.err.buf, "is a symlink: refused"), "%s",
		  r.err.buf);
	cr_assert_eq(strchr(r.err.buf, '\n'), r.err.buf + r.err.len - 1, "one line: %s",
		     r.err.buf);
	tool_run_release(&r);
}

Test(known_trust, a_shared_file_of_another_user_is_read_without_its_webhooks)
{
	cleanup_free char *dir = xasprintf("%s/db", tenv.root);
	cleanup_free char *team = xasprintf("%s/team", tenv.root);
	cleanup_free char *rules = xasprintf("%s/known-issues.yaml", team);
	cleanup_free char *warning = xasprintf("belongs to uid %u, not to you or root: its notify: "
					       "URLs are ignored", (unsigned)hrrpod_uid());
	struct tool_run r;

	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(mkdir(team, 0755), 0);
	chown_to_hrrpod(team);
	write_text(rules, trust_rules);
	chown_to_hrrpod(rules);
	history_known(&r, dir, rules);
	cr_assert_eq(r.status, 0, "a shared file only its owner can write: %s", r.err.buf);
	cr_assert(strstr(r.err.buf, warning), "%s", r.err.buf);
	cr_assert_null(strstr(r.err.buf, "hooks.example"), "%s", r.err.buf);
	tool_run_release(&r);

	/* Writable by others, or in a directory others can write: refused. */
	cr_assert_eq(chmod(rules, 0664), 0);
	history_known(&r, dir, rules);
	cr_assert_eq(r.status, 64, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "writable by others (mode 0664)"), "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert_eq(chmod(rules, 0644), 0);
	cr_assert_eq(chmod(team, 0777), 0);
	history_known(&r, dir, rules);
	cr_assert_eq(r.status, 64, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, rules) && strstr(r.err.buf, "its directory is writable by "
							  "others (mode 0777) and not sticky"),
		  "%s", r.err.buf);
	tool_run_release(&r);
}
