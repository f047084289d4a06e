/* A history on a PostgreSQL server (docs/sweep.md "History on
 * PostgreSQL"), against the private cluster of `make check-history-pg`
 * (HRR_TEST_HISTORY_PG; skipped without it): a password never reaches a
 * message or a file, a wrong one is one line naming the server and exit 5,
 * and two hosts' sweeps of one label, imported at the same time, meet in
 * one history and read as they do in SQLite. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_db.h"
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

/* The sweep of the library into db: argv's SWEEP_ARGS entries. */
#define SWEEP_ARGS 19
static void sweep_args(const char **argv, const char *workdir, const char *db,
		       const char *label, const char *timeout)
{
	const char *v[SWEEP_ARGS] = { "sweep", "--workdir", workdir, "--device-root",
				      tenv.devroot, "--sysfs-root", sw.sysfs4, "--db", db,
				      "--timeout", timeout, "--image", SIM_IMAGE, "--archive",
				      sw.library, "--label", label, "-q", NULL };

	memcpy(argv, v, sizeof(v));
}

static void sweep_within(struct tool_run *r, const char *workdir, const char *db,
			 const char *label, const char *timeout)
{
	const char *argv[SWEEP_ARGS];

	sweep_args(argv, workdir, db, label, timeout);
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

/* A connection of the test's own to its database. */
static PGconn *connect_db(void)
{
	PGconn *c = PQconnectdb(sw.dbpath);

	cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
	return c;
}

static void exec_on(PGconn *c, const char *sql)
{
	PGresult *res = PQexec(c, sql);

	cr_assert(PQresultStatus(res) == PGRES_COMMAND_OK, "%s: %s", sql, PQerrorMessage(c));
	PQclear(res);
}

/* How many sessions wait for a lock on the results table, as the server
 * sees them now (pg_locks is read afresh each time). */
static long waiting_on_results(PGconn *c)
{
	PGresult *res = PQexec(c, "SELECT count(DISTINCT pid) FROM pg_locks"
				  " WHERE relation = 'results'::regclass AND NOT granted");
	long n;

	cr_assert_eq(PQresultStatus(res), PGRES_TUPLES_OK, "%s", PQerrorMessage(c));
	n = atol(PQgetvalue(res, 0, 0));
	PQclear(res);
	return n;
}

/* Two sweeps started at once, held at their imports by a barrier on the
 * server: the test takes a SHARE lock on results (reads go on, writes
 * wait), so each import, once it has begun its transaction and written its
 * sweep row, waits at its first write of results. Both waiting at once is
 * the overlap, seen from the server; then the lock goes and both imports
 * go on together. */
static void sweep_both_at_once(const char *wa, const char *wb, const char *label)
{
	PGconn *lock = connect_db(), *watch = connect_db();
	const char *args_a[SWEEP_ARGS], *args_b[SWEEP_ARGS];
	cleanup_free char *da = xasprintf("%s/out-a", tenv.root);
	cleanup_free char *db = xasprintf("%s/out-b", tenv.root);
	cleanup_free char *mk = xasprintf("mkdir -p '%s' '%s'", da, db);
	pid_t a, b;
	int st;

	cr_assert_eq(system(mk), 0);
	sweep_args(args_a, wa, sw.dbpath, label, "120");
	sweep_args(args_b, wb, sw.dbpath, label, "120");
	exec_on(lock, "BEGIN");
	exec_on(lock, "LOCK TABLE results IN SHARE MODE");
	a = tool_spawn(args_a, env, da);
	b = tool_spawn(args_b, env, db);
	for (int i = 0; waiting_on_results(watch) < 2; i++) {
		cr_assert(i < 24000, "the two imports never waited together");
		cr_assert(waitpid(a, &st, WNOHANG) == 0 && waitpid(b, &st, WNOHANG) == 0,
			  "a sweep ended before its import met the other's");
		usleep(10000);
	}
	exec_on(lock, "COMMIT");
	PQfinish(lock);
	PQfinish(watch);
	cr_assert_eq(tool_wait(a, 300), 0, "sweep a failed (stderr in %s)", da);
	cr_assert_eq(tool_wait(b, 300), 0, "sweep b failed (stderr in %s)", db);
}

/* The one sweep folder under workdir/sweeps. */
static char *only_sweep(const char *workdir)
{
	cleanup_free char *cmd = xasprintf("ls '%s/sweeps'", workdir);
	char id[256] = "";
	FILE *ls = popen(cmd, "r");

	cr_assert(ls && fgets(id, sizeof(id), ls), "%s", cmd);
	cr_assert_null(fgets((char[256]){ 0 }, 256, ls), "one sweep in %s", workdir);
	pclose(ls);
	id[strcspn(id, "\n")] = '\0';
	return xstrdup(id);
}

static void merge_into(const char *workdir, const char *id, const char *db)
{
	struct tool_run r;
	const char *merge[] = { "sweep", "--workdir", workdir, "--db", db, "--merge", id, "-q",
				NULL };

	tool_run(&r, merge, env);
	cr_assert(r.status == 0, "%d %s", r.status, r.err.buf);
	tool_run_release(&r);
}

/* `history --label label --format json` of db. */
static char *trend_json(const char *db, const char *label)
{
	struct tool_run r;
	const char *hist[] = { "history", "--db", db, "--label", label, "--format", "json", NULL };
	char *out;

	tool_run(&r, hist, env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	out = strbuf_detach(&r.out, NULL);
	tool_run_release(&r);
	return out;
}

/* Each of ids has each of cases once among the trend's rows. */
static void expect_each_once(const cJSON *rows, const char *const *ids, size_t n_ids,
			     const char *const *cases, size_t n_cases)
{
	cr_assert_eq((size_t)cJSON_GetArraySize(rows), n_ids * n_cases);
	for (size_t i = 0; i < n_ids; i++)
		for (size_t c = 0; c < n_cases; c++) {
			int seen = 0;
			const cJSON *row;

			cJSON_ArrayForEach(row, rows) {
				const char *sweep = json_str(row, "sweep");
				const char *name = json_str(row, "case");

				seen += sweep && name && !strcmp(sweep, ids[i]) &&
					strstr(name, cases[c]) != NULL;
			}
			cr_assert_eq(seen, 1, "%s of %s: %d rows", cases[c], ids[i], seen);
		}
}

/* Whether a page of the site in dir names sweep id (its grid's column
 * links to the sweep's report). */
static bool site_names(const char *dir, const char *id)
{
	cleanup_free char *cmd = xasprintf("grep -rqF -- '%s' '%s'", id, dir);

	return system(cmd) == 0;
}

/* `history site` of db into dir. */
static void site_of(const char *db, const char *dir, const char *label)
{
	struct tool_run r;
	const char *gen[] = { "history", "site", dir, "--db", db, "--label", label, NULL };

	tool_run(&r, gen, env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
}

/* Two hosts (two workdirs) sweeping one label into one server at the same
 * time (their imports overlapping, sweep_both_at_once): every case of
 * both is there once, and `history --label` and the site list both
 * sweeps and read as the same two sweeps imported into SQLite do. */
Test(history_pg, two_workdirs_of_one_label_import_at_once_into_one_history)
{
	cleanup_free char *w2 = xasprintf("%s/host-b", tenv.root);
	cleanup_free char *mk = xasprintf("mkdir -p '%s'", w2);
	cleanup_free char *lite = xasprintf("%s/lite/history.sqlite", tenv.root);
	cleanup_free char *site_pg = xasprintf("%s/site-pg", tenv.root);
	cleanup_free char *site_lite = xasprintf("%s/site-lite", tenv.root);
	/* the index's generation time aside: the two are made a moment
	 * apart, and a minute may turn between them */
	cleanup_free char *diff = xasprintf(
		"diff -r -x index.html -x .hrr-site-manifest '%1$s' '%2$s' &&"
		" grep -v ' index.html$' '%1$s/.hrr-site-manifest' >'%3$s/pg.man' &&"
		" grep -v ' index.html$' '%2$s/.hrr-site-manifest' >'%3$s/lite.man' &&"
		" diff '%3$s/pg.man' '%3$s/lite.man' &&"
		" sed 's/Generated [^<]* UTC/Generated UTC/' '%1$s/index.html' >'%3$s/pg.idx' &&"
		" sed 's/Generated [^<]* UTC/Generated UTC/' '%2$s/index.html' >'%3$s/lite.idx' &&"
		" diff '%3$s/pg.idx' '%3$s/lite.idx'",
		site_pg, site_lite, tenv.root);
	cleanup_free char *ida = NULL, *idb = NULL, *pg = NULL, *sq = NULL;
	cleanup_cjson cJSON *rows = NULL;
	const char *cases[] = { "one/", "two/" };
	struct history_db *schema;
	struct error err;

	add_pass_case("one");
	add_pass_case("two");
	cr_assert_eq(system(mk), 0);
	/* The schema first: the barrier is a lock on one of its tables. */
	cr_assert_eq(history_db_open(&schema, sw.dbpath, &err), 0, "%s", err.msg);
	history_db_close(schema);
	sweep_both_at_once(tenv.workdir, w2, "fleet");
	ida = only_sweep(tenv.workdir);
	idb = only_sweep(w2);
	cr_assert_str_neq(ida, idb);
	pg = trend_json(sw.dbpath, "fleet");
	rows = cJSON_Parse(pg);
	expect_each_once(rows, (const char *const[]){ ida, idb }, 2, cases, 2);
	/* The same two sweeps into SQLite, one after the other. */
	merge_into(tenv.workdir, ida, lite);
	merge_into(w2, idb, lite);
	sq = trend_json(lite, "fleet");
	cr_assert_str_eq(pg, sq, "PostgreSQL and SQLite read alike");
	site_of(sw.dbpath, site_pg, "fleet");
	site_of(lite, site_lite, "fleet");
	cr_assert(site_names(site_pg, ida) && site_names(site_pg, idb),
		  "the site lists both sweeps");
	cr_assert_eq(system(diff), 0, "the two sites differ: %s", diff);
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
