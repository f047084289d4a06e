/* A history on a PostgreSQL server (docs/sweep.md "History on
 * PostgreSQL"), against the private cluster of `make check-history-pg`
 * (HRR_TEST_HISTORY_PG; skipped without it): a password never reaches a
 * message or a file, a wrong one is one line naming the server and exit 5,
 * and two hosts' sweeps of one label meet in one history. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "tests/support/history_backend.h"
#include "tests/support/run_support.h"

static struct tenv_sweep sw;
static char home_env[400], xdg_env[420];
static const char *env[4];

static void pg_init(void)
{
	tenv_init_sweep(&sw);
	if (!history_backend_pg())
		tenv_skip("no PostgreSQL cluster (make check-history-pg starts one)");
	/* Every file the tool writes lands under the test's root. */
	snprintf(home_env, sizeof(home_env), "HOME=%s/home", tenv.root);
	snprintf(xdg_env, sizeof(xdg_env), "XDG_DATA_HOME=%s/home/.local/share", tenv.root);
	env[0] = sw.lockenv;
	env[1] = home_env;
	env[2] = xdg_env;
	env[3] = NULL;
}

TestSuite(history_pg, .init = pg_init, .fini = tenv_fini, .timeout = 300);

static const char *password(void)
{
	const char *p = getenv("HRR_PG_PASSWORD");

	return p && *p ? p : "hrr-pw-7f3c9e1a";
}

/* Whether any file under the test's root holds s. */
static bool written_anywhere(const char *s)
{
	cleanup_free char *cmd = xasprintf("grep -rqF -- '%s' '%s'", s, tenv.root);

	return system(cmd) == 0;
}

static void add_pass_case(const char *name)
{
	cleanup_free char *src = fixture_root("pass");
	cleanup_free char *cmd = xasprintf("mkdir -p '%s/%s' && cp -r '%s' '%s/%s/'", sw.library,
					   name, src, sw.library, name);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void sweep_within(struct tool_run *r, const char *workdir, const char *db,
			 const char *label, const char *timeout)
{
	const char *argv[] = { "sweep", "--workdir", workdir, "--device-root", tenv.devroot,
			       "--sysfs-root", sw.sysfs4, "--db", db, "--timeout", timeout,
			       "--image", SIM_IMAGE, "--archive", sw.library, "--label", label,
			       "-q", NULL };

	tool_run(r, argv, env);
}

static void sweep_into(struct tool_run *r, const char *workdir, const char *db,
		       const char *label)
{
	sweep_within(r, workdir, db, label, "120");
}

/* `history --label label` lists want rows (a case of a sweep each). */
static void expect_rows(const char *label, int want)
{
	struct tool_run r;
	const char *hist[] = { "history", "--db", sw.dbpath, "--label", label, "--format",
			       "json", NULL };
	cleanup_cjson cJSON *j = NULL;

	tool_run(&r, hist, env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	j = cJSON_Parse(r.out.buf);
	cr_assert_eq(cJSON_GetArraySize(j), want, "%s", r.out.buf);
	tool_run_release(&r);
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

Test(history_pg, a_wrong_password_is_one_line_naming_the_server_and_written_nowhere)
{
	struct tool_run r;
	cleanup_free char *wrong = history_backend_password_uri("Wr0ng-pw-51d2");
	const char *hist[] = { "history", "--db", wrong, NULL };

	tool_run(&r, hist, env);
	cr_assert_eq(r.status, 5, "%s", r.err.buf);
	cr_assert_eq(lines(r.err.buf), 1, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, getenv("HRR_TEST_HISTORY_PG")), "%s", r.err.buf);
	cr_assert(!strstr(r.err.buf, "Wr0ng-pw-51d2"), "%s", r.err.buf);
	tool_run_release(&r);
	add_pass_case("one");
	sweep_into(&r, tenv.workdir, wrong, "pw");
	cr_assert_eq(r.status, 5, "%s", r.err.buf);
	cr_assert(!strstr(r.err.buf, "Wr0ng-pw-51d2") && !strstr(r.out.buf, "Wr0ng-pw-51d2"),
		  "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert(!written_anywhere("Wr0ng-pw-51d2"), "the password is in a file under %s",
		  tenv.root);
}

Test(history_pg, a_sweep_with_a_password_in_its_uri_writes_it_nowhere)
{
	struct tool_run r;
	cleanup_free char *uri = history_backend_password_uri(password());
	const char *hist[] = { "history", "--db", uri, "--label", "pw", "--format", "json", NULL };

	add_pass_case("one");
	sweep_into(&r, tenv.workdir, uri, "pw");
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	tool_run(&r, hist, env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert(strstr(r.out.buf, "\"pw\""), "%s", r.out.buf);
	cr_assert(!strstr(r.out.buf, password()) && !strstr(r.err.buf, password()));
	tool_run_release(&r);
	cr_assert(!written_anywhere(password()), "the password is in a file under %s", tenv.root);
}

/* Two hosts (two workdirs) sweeping one label into one server, one after
 * the other:
 * every case of both is there once, and the trend lists both sweeps. */
Test(history_pg, two_workdirs_of_one_label_meet_in_one_history)
{
	struct tool_run a, b;
	cleanup_free char *w2 = xasprintf("%s/host-b", tenv.root);
	cleanup_free char *mk = xasprintf("mkdir -p '%s'", w2);
	add_pass_case("one");
	add_pass_case("two");
	cr_assert_eq(system(mk), 0);
	sweep_into(&a, tenv.workdir, sw.dbpath, "fleet");
	sweep_into(&b, w2, sw.dbpath, "fleet");
	cr_assert_eq(a.status, 0, "%s", a.err.buf);
	cr_assert_eq(b.status, 0, "%s", b.err.buf);
	tool_run_release(&a);
	tool_run_release(&b);
	expect_rows("fleet", 4); /* two sweeps x two cases, each once */
}

/* sw.dbpath's database name: postgresql:///NAME?host=... */
static char *db_name(void)
{
	const char *p = strstr(sw.dbpath, ":///") + 4;

	return xstrndup(p, strcspn(p, "?"));
}

static void admin(const char *sql)
{
	cleanup_free char *uri = xasprintf("postgresql:///postgres?host=%s&user=%s",
					   getenv("HRR_TEST_HISTORY_PG"),
					   getenv("HRR_PG_USER") ? getenv("HRR_PG_USER") : "hrrpg");

	history_backend_exec(uri, sql);
}

/* The server gone while a sweep runs (its connection cut, new ones
 * refused): the import is retried for HRR_DB_RETRY_S, then the sweep ends
 * with exit 5 naming the database and its results on disk; with the
 * server back, `sweep --merge` imports it, once. */
Test(history_pg, a_server_gone_mid_sweep_keeps_the_results_for_the_merge)
{
	struct tool_run r;
	cleanup_free char *name = db_name();
	cleanup_free char *cut = xasprintf(
		"(sleep 4; psql -q -h '%s' -U '%s' -d postgres"
		" -c 'ALTER DATABASE %s ALLOW_CONNECTIONS false'"
		" -c \"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '%s'\")"
		" >/dev/null 2>&1 &",
		getenv("HRR_TEST_HISTORY_PG"), getenv("HRR_PG_USER") ? getenv("HRR_PG_USER") : "hrrpg",
		name, name);
	cleanup_free char *allow = xasprintf("ALTER DATABASE %s ALLOW_CONNECTIONS true", name);
	cleanup_free char *sweeps = xasprintf("ls '%s/sweeps' | head -1", tenv.workdir);
	char id[256] = "";
	FILE *ls;

	add_pass_case("one");
	{
		cleanup_free char *src = fixture_root("hang");
		cleanup_free char *cp = xasprintf("mkdir -p '%s/slow' && cp -r '%s' '%s/slow/'",
						  sw.library, src, sw.library);

		cr_assert_eq(system(cp), 0);
	}
	setenv("HRR_DB_RETRY_S", "3", 1);
	cr_assert_eq(system(cut), 0);
	sweep_within(&r, tenv.workdir, sw.dbpath, "gone", "10");
	unsetenv("HRR_DB_RETRY_S");
	admin(allow);
	cr_assert_eq(r.status, 5, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, name), "the database is named: %s", r.err.buf);
	cr_assert(strstr(r.err.buf, "tried again"), "the import was retried: %s", r.err.buf);
	tool_run_release(&r);
	ls = popen(sweeps, "r");
	cr_assert(ls && fgets(id, sizeof(id), ls));
	pclose(ls);
	id[strcspn(id, "\n")] = '\0';
	{
		const char *merge[] = { "sweep", "--workdir", tenv.workdir, "--db", sw.dbpath,
					"--merge", id, "-q", NULL };

		tool_run(&r, merge, env);
	}
	cr_assert(r.status == 0 || r.status == 1, "%d %s", r.status, r.err.buf);
	tool_run_release(&r);
	expect_rows("gone", 2); /* each case once */
}
