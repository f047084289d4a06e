#include <criterion/criterion.h>
#include <sqlite3.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_copy.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/history/history_sql.h"
#include "tests/support/history_backend.h"
#include "tests/support/preflight_fixtures.h"
#include "tests/support/scratch.h"

static char *root, *dbpath;

static void setup(void)
{
	root = scratch_dir("history");
	cleanup_free char *file = xasprintf("%s/data/history.sqlite", root);

	dbpath = history_backend_db(file);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(dbpath);
}

TestSuite(history, .init = setup, .fini = teardown);

/* One attempt: "case,image,attempt,state,outcome,class,kernel,cv". */
static void add(struct sweep_results *rs, const char *c, const char *img, int attempt,
		const char *state, const char *outcome, const char *cls, const char *kernel, int cv)
{
	struct case_result *r;

	if (rs->n == rs->alloc) {
		rs->alloc = rs->alloc ? rs->alloc * 2 : 16;
		rs->v = xrealloc(rs->v, rs->alloc * sizeof(*rs->v));
	}
	r = &rs->v[rs->n++];
	memset(r, 0, sizeof(*r));
	r->case_name = xstrdup(c);
	r->image = xstrdup(img);
	r->attempt = attempt;
	cr_assert(case_result_state_from_name(state, &r->state), "%s", state);
	case_result_set_verdict(r, outcome, cls);
	r->kernel = xstrdup_or_null(kernel);
	r->classifier_version = cv;
	r->gpus[0] = 1;
	r->n_gpus = 1;
	r->run_dir = xasprintf("runs/%s", c);
}

static void import(struct history_db *db, const char *id, long long started,
		   const struct history_planned *p, size_t np, const struct sweep_results *rs,
		   bool expect_rebuilt)
{
	struct history_sweep s = { .id = id, .label = "nightly", .state = "finished", .host = "h0",
				   .started = started, .folder = id };
	struct error err;
	bool rebuilt;

	cr_assert_eq(history_db_import(db, &s, p, np, rs, &rebuilt, &err), 0, "%s", err.msg);
	cr_assert_eq(rebuilt, expect_rebuilt);
}

/* Two sweeps of a label that start within one second (a night whose
 * every result is reused takes less): the previous one is the one that
 * started later, not the one whose random id sorts higher. The CI once
 * alarmed on a still-failing case against the night before last. */
Test(history, the_previous_sweep_within_one_second_is_the_later_start)
{
	struct history_db *db;
	struct error err;
	struct sweep_results rs = { 0 };
	const struct history_planned p[] = { { "c", "i" } };
	cleanup_free char *baseline = NULL, *before_zz = NULL;
	/* Same second; "zz" sorts above "aa" but started first. */
	struct history_sweep first = { .id = "nightly-zz", .label = "nightly", .state = "finished",
				       .started = 500, .started_us = 500000100, .folder = "f1" };
	struct history_sweep second = { .id = "nightly-aa", .label = "nightly", .state = "finished",
					.started = 500, .started_us = 500900000, .folder = "f2" };
	struct history_sweep third = { .id = "nightly-mm", .label = "nightly", .state = "running",
				       .started = 501, .started_us = 501000000, .folder = "f3" };
	bool rebuilt;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	add(&rs, "c", "i", 1, "done", "PASS", NULL, NULL, 1);
	cr_assert_eq(history_db_import(db, &first, p, 1, &rs, &rebuilt, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_import(db, &second, p, 1, &rs, &rebuilt, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_import(db, &third, p, 1, &rs, &rebuilt, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_previous(db, "nightly", "nightly-mm", &baseline, &err), 0, "%s",
		     err.msg);
	cr_assert_str_eq(baseline, "nightly-aa");
	cr_assert_eq(history_db_previous(db, "nightly", "nightly-aa", &before_zz, &err), 0, "%s",
		     err.msg);
	cr_assert_str_eq(before_zz, "nightly-zz", "the earlier start is the later one's baseline");
	sweep_results_release(&rs);
	history_db_close(db);
}

/* A fleet's label on one history: hosts gpu-a and gpu-b, two sweeps
 * each, interleaved (a1, b1, a2, b2). */
static struct history_sweep fleet[] = {
	{ .id = "fleet-a1", .label = "fleet", .host = "gpu-a", .state = "finished",
	  .started = 100, .started_us = 100000000 },
	{ .id = "fleet-b1", .label = "fleet", .host = "gpu-b", .state = "finished",
	  .started = 200, .started_us = 200000000 },
	{ .id = "fleet-a2", .label = "fleet", .host = "gpu-a", .state = "finished",
	  .started = 300, .started_us = 300000000 },
	{ .id = "fleet-b2", .label = "fleet", .host = "gpu-b", .state = "finished",
	  .started = 400, .started_us = 400000000 },
};

static struct history_db *open_fleet(struct sweep_results *rs)
{
	struct history_db *db;
	struct error err;
	const struct history_planned p[] = { { "c", "i" } };
	bool rebuilt;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	add(rs, "c", "i", 1, "done", "PASS", NULL, NULL, 1);
	for (size_t i = 0; i < 4; i++)
		cr_assert_eq(history_db_import(db, &fleet[i], p, 1, rs, &rebuilt, &err), 0, "%s",
			     err.msg);
	return db;
}

/* A fleet's label mixes hosts: a sweep's baseline is its label's previous
 * sweep on its own host, never the other host's later one. */
Test(history, the_baseline_is_the_previous_sweep_on_the_same_host)
{
	struct error err;
	struct sweep_results rs = { 0 };
	const struct history_planned p[] = { { "c", "i" } };
	cleanup_free char *b_base = NULL, *a_base = NULL, *c_base = NULL;
	struct history_db *db = open_fleet(&rs);
	struct history_sweep other = fleet[3];
	bool rebuilt;

	cr_assert_eq(history_db_previous(db, "fleet", "fleet-b2", &b_base, &err), 0, "%s", err.msg);
	cr_assert_str_eq(b_base, "fleet-b1");
	cr_assert_eq(history_db_previous(db, "fleet", "fleet-a2", &a_base, &err), 0, "%s", err.msg);
	cr_assert_str_eq(a_base, "fleet-a1");
	/* Importing a sweep again changes nothing (its id is its key). */
	cr_assert_eq(history_db_import(db, &fleet[3], p, 1, &rs, &rebuilt, &err), 0, "%s", err.msg);
	cr_assert_not(rebuilt);
	/* Another host's sweep under a taken id is refused, not written over. */
	other.host = "gpu-c";
	cr_assert_eq(history_db_import(db, &other, p, 1, &rs, &rebuilt, &err), -1);
	cr_assert(err.kind == ERR_DATA && strstr(err.msg, "fleet-b2"), "%s", err.msg);
	cr_assert_eq(history_db_previous(db, "fleet", "fleet-b2", &c_base, &err), 0, "%s", err.msg);
	cr_assert_str_eq(c_base, "fleet-b1", "the first sweep under the id stays");
	sweep_results_release(&rs);
	history_db_close(db);
}

static int count_rows(void *ctx, const struct history_trend_row *row)
{
	(void)row;
	++*(int *)ctx;
	return 0;
}

/* --host: the trend and prune of one host's sweeps only. */
Test(history, one_hosts_trend_and_prune)
{
	struct error err;
	struct sweep_results rs = { 0 };
	struct strvec ids = STRVEC_INIT, folders = STRVEC_INIT;
	struct history_db *db = open_fleet(&rs);
	int n = 0;

	cr_assert_eq(history_db_trend_host(db, "fleet", "gpu-a", NULL, 10, count_rows, &n, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(n, 2);
	cr_assert_eq(history_db_prune_host(db, "fleet", "gpu-b", 1, &ids, &folders, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(ids.n, 1);
	cr_assert_str_eq(ids.v[0], "fleet-b1");
	n = 0;
	cr_assert_eq(history_db_trend(db, "fleet", NULL, 10, count_rows, &n, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n, 3, "gpu-a's two sweeps and gpu-b's last");
	strvec_clear(&ids);
	strvec_clear(&folders);
	sweep_results_release(&rs);
	history_db_close(db);
}

/* One writer of two_writers_at_once: its own sweep of label "fleet",
 * 300 cases, imported on a connection of its own. */
static void write_one(const char *id, const char *host, long long started_us)
{
	struct history_db *db;
	struct error err;
	struct sweep_results rs = { 0 };
	struct history_planned p[300];
	char names[300][16];
	struct history_sweep s = { .id = id, .label = "fleet", .host = host, .state = "finished",
				   .started = started_us / 1000000, .started_us = started_us };
	bool rebuilt;

	for (int i = 0; i < 300; i++) {
		snprintf(names[i], sizeof(names[i]), "c%03d", i);
		p[i] = (struct history_planned){ names[i], "i" };
		add(&rs, names[i], "i", 1, "done", "PASS", NULL, NULL, 1);
	}
	if (history_db_open(&db, dbpath, &err) < 0 ||
	    history_db_import(db, &s, p, 300, &rs, &rebuilt, &err) < 0)
		_exit(1);
	history_db_close(db);
	sweep_results_release(&rs);
	_exit(0);
}

/* Two hosts importing sweeps of one label at the same moment: both whole,
 * every case of each once. */
Test(history, two_writers_at_once_lose_nothing)
{
	struct history_db *db;
	struct error err;
	pid_t a, b;
	int st_a, st_b, n = 0;

	/* The schema first, so the two imports race each other, not the
	 * creation of the tables. */
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	history_db_close(db);
	if ((a = fork()) == 0)
		write_one("fleet-a", "gpu-a", 100000000);
	if ((b = fork()) == 0)
		write_one("fleet-b", "gpu-b", 100000001);
	cr_assert(a > 0 && b > 0);
	waitpid(a, &st_a, 0);
	waitpid(b, &st_b, 0);
	cr_assert(WIFEXITED(st_a) && WEXITSTATUS(st_a) == 0);
	cr_assert(WIFEXITED(st_b) && WEXITSTATUS(st_b) == 0);
	cr_assert_eq(history_db_open_readonly(&db, dbpath, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_trend(db, "fleet", NULL, 10, count_rows, &n, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n, 600, "every case of both sweeps once");
	history_db_close(db);
}

/* Results of 300 cases in two chunks; on its second reading (the rows
 * being written) the process is killed between the chunks. */
struct killed_src {
	struct sweep_results *rs;
	int readings;
};

static int killed_each(void *src, history_results_fn fn, void *ctx, struct error *err)
{
	struct killed_src *k = src;
	struct sweep_results half = { .v = k->rs->v, .n = 150 };
	struct sweep_results rest = { .v = k->rs->v + 150, .n = k->rs->n - 150 };

	if (fn(ctx, &half, err) < 0)
		return -1;
	if (++k->readings == 2)
		raise(SIGKILL);
	return fn(ctx, &rest, err);
}

/* A sweep killed during its import leaves nothing of it; importing it
 * again (--resume, --merge) stores it once. */
Test(history, a_sweep_killed_during_its_import_leaves_nothing)
{
	struct history_db *db;
	struct error err;
	struct sweep_results rs = { 0 };
	struct history_planned p[300];
	char names[300][16];
	struct history_sweep s = { .id = "k1", .label = "killed", .state = "finished",
				   .started = 1, .started_us = 1000000 };
	struct killed_src src = { &rs, 0 };
	bool rebuilt, known = true;
	pid_t pid;
	int status, n = 0;

	for (int i = 0; i < 300; i++) {
		snprintf(names[i], sizeof(names[i]), "c%03d", i);
		p[i] = (struct history_planned){ names[i], "i" };
		add(&rs, names[i], "i", 1, "done", "PASS", NULL, NULL, 1);
	}
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	history_db_close(db);
	if ((pid = fork()) == 0) {
		if (history_db_open(&db, dbpath, &err) == 0 &&
		    history_db_import_each(db, &s, p, 300, killed_each, &src, &rebuilt, &err) == 0)
			_exit(0);
		_exit(1);
	}
	cr_assert(pid > 0);
	waitpid(pid, &status, 0);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "killed mid-import");
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_has_sweep(db, "k1", &known, &err), 0, "%s", err.msg);
	cr_assert_not(known, "no part of the killed import is visible");
	cr_assert_eq(history_db_import(db, &s, p, 300, &rs, &rebuilt, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_import(db, &s, p, 300, &rs, &rebuilt, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_trend(db, "killed", NULL, 10, count_rows, &n, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n, 300, "every case once");
	sweep_results_release(&rs);
	history_db_close(db);
}

/* Every schema step has its PostgreSQL form (a step merged with only its
 * SQLite SQL fails here, not on a fleet's server). */
Test(history, every_migration_step_has_both_dialects)
{
	for (int v = 0; v < HISTORY_SCHEMA_VERSION; v++) {
		cr_expect(history_migrations[v] && *history_migrations[v], "step %d, SQLite", v + 1);
		cr_expect(history_migrations_pg[v] && *history_migrations_pg[v],
			  "step %d has no PostgreSQL form (history_migrate_pg.c)", v + 1);
	}
}

struct trend_text {
	struct strbuf s;
};

static int trend_text_row(void *ctx, const struct history_trend_row *r)
{
	struct trend_text *t = ctx;

	strbuf_addf(&t->s, "%s %s %s %s %s %s %d\n", r->sweep_id, r->label, r->case_name, r->image,
		    r->state, r->outcome ? r->outcome : "-", r->attempts);
	return 0;
}

static char *trend_of(struct history_db *db)
{
	struct trend_text t = { STRBUF_INIT };
	struct error err;

	cr_assert_eq(history_db_trend(db, NULL, NULL, 100, trend_text_row, &t, &err), 0, "%s",
		     err.msg);
	return strbuf_detach(&t.s, NULL);
}

/* history copy: the test's history into a file and back into another
 * (either store): the same trend each time, and a second copy adds
 * nothing. */
Test(history, a_copy_there_and_back_reads_the_same)
{
	struct error err;
	struct sweep_results rs = { 0 };
	struct history_db *db = open_fleet(&rs), *mid, *back;
	cleanup_free char *f1 = xasprintf("%s/copy-1.sqlite", root);
	cleanup_free char *f2 = xasprintf("%s/copy-2.sqlite", root);
	cleanup_free char *back_db = history_backend_db(f2);
	cleanup_free char *want = trend_of(db), *got_mid = NULL, *got_back = NULL;
	size_t n;

	cr_assert_eq(history_db_open(&mid, f1, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_copy(db, mid, &n, &err), 0, "%s", err.msg);
	cr_assert_eq(n, 4);
	cr_assert_eq(history_db_open(&back, back_db, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_copy(mid, back, &n, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_copy(mid, back, &n, &err), 0, "%s", err.msg);
	got_mid = trend_of(mid);
	got_back = trend_of(back);
	cr_assert_str_eq(got_mid, want);
	cr_assert_str_eq(got_back, want);
	history_db_close(mid);
	history_db_close(back);
	sweep_results_release(&rs);
	history_db_close(db);
}

struct collected {
	char names[16][32];
	enum sweep_status st[16];
	int attempts[16];
	size_t n;
};

static int collect(void *ctx, const struct history_status_row *row)
{
	struct collected *c = ctx;

	snprintf(c->names[c->n], 32, "%s", row->case_name);
	c->attempts[c->n] = row->attempts;
	c->st[c->n++] = row->status;
	return 0;
}

static enum sweep_status status_of(const struct collected *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->names[i], name))
			return c->st[i];
	cr_assert_fail("no row for %s", name);
	return ST__COUNT;
}

Test(history, statuses_against_the_baseline_computed_in_sql)
{
	struct history_db *db;
	struct error err;
	struct sweep_results a = { 0 }, b = { 0 };
	struct collected c = { 0 };
	const struct history_planned pa[] = {
		{ "pass", "i" }, { "reg", "i" }, { "fix", "i" }, { "still", "i" }, { "chg", "i" },
		{ "recl", "i" }, { "flaky", "i" }, { "gone", "i" }, { "miss", "i" }, { "err", "i" },
	};
	const struct history_planned pb[] = {
		{ "pass", "i" }, { "reg", "i" }, { "fix", "i" }, { "still", "i" }, { "chg", "i" },
		{ "recl", "i" }, { "flaky", "i" }, { "new", "i" }, { "miss", "i" }, { "err", "i" },
		{ "blk", "i" },
	};
	cleanup_free char *baseline = NULL;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	cr_assert_str_eq(history_db_journal(db), history_backend_pg() ? "server" : "wal");
	add(&a, "pass", "i", 1, "done", "PASS", NULL, NULL, 1);
	add(&a, "reg", "i", 1, "done", "PASS", NULL, NULL, 1);
	add(&a, "fix", "i", 1, "done", "FAIL", "d2h", "k<int>", 1);
	add(&a, "still", "i", 1, "done", "MAF", "page", "k", 1);
	add(&a, "chg", "i", 1, "done", "MAF", "page", "k", 1);
	add(&a, "recl", "i", 1, "done", "MAF", "page", "k", 1);
	add(&a, "flaky", "i", 1, "done", "PASS", NULL, NULL, 1);
	add(&a, "gone", "i", 1, "done", "PASS", NULL, NULL, 1);
	add(&a, "miss", "i", 1, "done", "PASS", NULL, NULL, 1);
	add(&a, "err", "i", 1, "done", "PASS", NULL, NULL, 1);
	import(db, "s1", 100, pa, 10, &a, true);

	add(&b, "pass", "i", 1, "done", "PASS", NULL, NULL, 1);
	add(&b, "reg", "i", 1, "done", "HANG", "hang", "k2", 1);
	add(&b, "fix", "i", 1, "done", "PASS", NULL, NULL, 1);
	add(&b, "still", "i", 1, "done", "MAF", "page", "k", 1);
	add(&b, "chg", "i", 1, "done", "MAF", "page", "other", 1);
	add(&b, "recl", "i", 1, "done", "MAF", "xnack", "k", 2);
	add(&b, "flaky", "i", 1, "done", "FAIL", "x", "k", 1);
	add(&b, "flaky", "i", 2, "done", "PASS", NULL, NULL, 1);
	add(&b, "new", "i", 1, "done", "FAIL", "x", "k", 1);
	add(&b, "err", "i", 1, "error", NULL, NULL, NULL, 1);
	add(&b, "blk", "i", 1, "blocked", NULL, NULL, NULL, 1);
	import(db, "s2", 200, pb, 11, &b, true);
	import(db, "s2", 200, pb, 11, &b, false); /* in sync: not rebuilt */

	cr_assert_eq(history_db_previous(db, "nightly", "s2", &baseline, &err), 0);
	cr_assert_str_eq(baseline, "s1");
	cr_assert_eq(history_db_statuses(db, "s2", baseline, collect, &c, &err), 0, "%s", err.msg);
	cr_assert_eq(c.n, 12);
	cr_assert_eq(status_of(&c, "pass"), ST_PASS);
	cr_assert_eq(status_of(&c, "reg"), ST_REGRESSED);
	cr_assert_eq(status_of(&c, "fix"), ST_FIXED);
	cr_assert_eq(status_of(&c, "still"), ST_STILL_FAILING);
	cr_assert_eq(status_of(&c, "chg"), ST_CHANGED);
	cr_assert_eq(status_of(&c, "recl"), ST_RECLASSIFIED);
	cr_assert_eq(status_of(&c, "flaky"), ST_FLAKY);
	cr_assert_eq(status_of(&c, "new"), ST_NEW);
	cr_assert_eq(status_of(&c, "miss"), ST_MISSING);
	cr_assert_eq(status_of(&c, "err"), ST_ERROR);
	cr_assert_eq(status_of(&c, "blk"), ST_BLOCKED);
	cr_assert_eq(status_of(&c, "gone"), ST_GONE);
	cr_assert_str_eq(c.names[11], "gone", "gone cases come last");
	cr_assert_eq(c.attempts[6], 2);
	sweep_results_release(&a);
	sweep_results_release(&b);
	history_db_close(db);
}

Test(history, results_files_rebuild_the_database_without_duplicates)
{
	struct history_db *db;
	struct error err;
	struct sweep_results rs = { 0 };
	struct collected c = { 0 };
	const struct history_planned p[] = { { "a", "i" }, { "b", "i" } };

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	add(&rs, "a", "i", 1, "done", "PASS", NULL, NULL, 1);
	import(db, "s1", 1, p, 2, &rs, true);
	/* The sweep died and was resumed: one more line in the files. */
	add(&rs, "b", "i", 1, "done", "PASS", NULL, NULL, 1);
	import(db, "s1", 1, p, 2, &rs, true);
	import(db, "s1", 1, p, 2, &rs, false);
	cr_assert_eq(history_db_statuses(db, "s1", NULL, collect, &c, &err), 0, "%s", err.msg);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(c.st[0], ST_NEW);
	cr_assert_eq(c.attempts[0], 1);
	sweep_results_release(&rs);
	history_db_close(db);
}

static int count_trend(void *ctx, const struct history_trend_row *row)
{
	(void)row;
	++*(int *)ctx;
	return 0;
}

Test(history, trend_and_prune_keep_the_last_n)
{
	struct history_db *db;
	struct error err;
	struct sweep_results rs = { 0 };
	const struct history_planned p[] = { { "a", "i" } };
	cleanup_strvec struct strvec removed = STRVEC_INIT, ids = STRVEC_INIT;
	int n = 0;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	add(&rs, "a", "i", 1, "done", "PASS", NULL, NULL, 1);
	import(db, "s1", 1, p, 1, &rs, true);
	import(db, "s2", 2, p, 1, &rs, true);
	import(db, "s3", 3, p, 1, &rs, true);
	cr_assert_eq(history_db_trend(db, "nightly", "a", 2, count_trend, &n, &err), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(history_db_prune(db, "nightly", 1, &ids, &removed, &err), 0, "%s", err.msg);
	cr_assert_eq(removed.n, 2);
	cr_assert_str_eq(removed.v[0], "s2");
	cr_assert_str_eq(ids.v[0], "s2");
	n = 0;
	cr_assert_eq(history_db_trend(db, NULL, NULL, 10, count_trend, &n, &err), 0);
	cr_assert_eq(n, 1, "results went with their sweeps");
	sweep_results_release(&rs);
	history_db_close(db);
}

struct trend_seen {
	char rows[8][64];
	size_t n;
};

static int see_trend(void *ctx, const struct history_trend_row *r)
{
	struct trend_seen *t = ctx;

	cr_assert_lt(t->n, 8);
	snprintf(t->rows[t->n++], 64, "%s %s %s %s %d", r->sweep_id, r->case_name, r->image,
		 r->outcome ? r->outcome : r->state, r->attempts);
	return 0;
}

/* Oldest sweep first, cases in name then image order, only each case's
 * final attempt, whatever order the results were imported in. */
Test(history, the_trend_lists_final_attempts_in_order)
{
	struct history_db *db;
	struct error err;
	struct sweep_results rs = { 0 };
	const struct history_planned p[] = { { "b", "i" }, { "a", "j" }, { "a", "i" } };
	struct trend_seen t = { 0 };
	static const char *const want[] = {
		"s2 a i MAF 1", "s2 a j PASS 3", "s2 b i blocked 1",
		"s3 a i MAF 1", "s3 a j PASS 3", "s3 b i blocked 1",
	};

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	add(&rs, "b", "i", 1, "blocked", NULL, NULL, NULL, 1);
	add(&rs, "a", "j", 2, "done", "HANG", NULL, NULL, 1);
	add(&rs, "a", "j", 1, "done", "HANG", NULL, NULL, 1);
	add(&rs, "a", "j", 3, "done", "PASS", NULL, NULL, 1);
	add(&rs, "a", "i", 1, "done", "MAF", "page-fault", "k", 1);
	import(db, "s1", 1, p, 3, &rs, true);
	import(db, "s3", 3, p, 3, &rs, true);
	import(db, "s2", 2, p, 3, &rs, true);
	cr_assert_eq(history_db_trend(db, "nightly", NULL, 2, see_trend, &t, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(t.n, 6);
	for (size_t i = 0; i < t.n; i++)
		cr_assert_str_eq(t.rows[i], want[i]);
	t.n = 0;
	cr_assert_eq(history_db_trend(db, "nightly", "a", 1, see_trend, &t, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(t.n, 2);
	cr_assert_str_eq(t.rows[0], "s3 a i MAF 1");
	cr_assert_str_eq(t.rows[1], "s3 a j PASS 3");
	t.n = 0;
	cr_assert_eq(history_db_trend(db, "weekly", NULL, 10, see_trend, &t, &err), 0);
	cr_assert_eq(t.n, 0);
	sweep_results_release(&rs);
	history_db_close(db);
}

Test(history, a_locked_database_is_a_clear_busy_error)
{
	struct history_db *db;
	struct error err;
	struct sweep_results rs = { 0 };
	sqlite3 *other;
	bool rebuilt;
	struct history_sweep s = { .id = "s", .label = "l", .state = "finished", .started = 1 };

	HISTORY_SQLITE_ONLY();
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	cr_assert_eq(sqlite3_open(dbpath, &other), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	history_db_set_busy_timeout(db, 50);
	cr_assert_eq(history_db_import(db, &s, NULL, 0, &rs, &rebuilt, &err), -1);
	cr_assert_eq(err.kind, ERR_BUSY);
	cr_assert(strstr(err.msg, dbpath) && strstr(err.msg, "locked"), "%s", err.msg);
	sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(other);
	history_db_close(db);
}

Test(history, a_corrupt_file_is_named_and_left_untouched)
{
	struct history_db *db;
	struct error err;
	static const char junk[] = "this is not a database, and 100 bytes of it stay as they are....";
	cleanup_strbuf struct strbuf after = STRBUF_INIT;

	HISTORY_SQLITE_ONLY();
	pft_write(dbpath, junk, sizeof(junk) - 1);
	cr_assert_eq(history_db_open(&db, dbpath, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, dbpath) && strstr(err.msg, "corrupt"), "%s", err.msg);
	cr_assert_eq(fs_read_small_file(dbpath, 4096, &after, &err), 0);
	cr_assert_str_eq(after.buf, junk);
}

Test(history, a_newer_schema_is_refused)
{
	struct history_db *db;
	struct error err;
	sqlite3 *h;

	if (history_backend_pg()) {
		/* A server some newer tool migrated: refused, not written. */
		cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
		history_db_close(db);
		history_backend_exec(dbpath, "UPDATE hrr_schema SET version = 99");
	} else {
		pft_writef(dbpath, "%s", "");
		cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
		cr_assert_eq(sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL),
			     SQLITE_OK);
		sqlite3_close(h);
	}
	cr_assert_eq(history_db_open(&db, dbpath, &err), -1);
	cr_assert(strstr(err.msg, "schema 99") && !strchr(err.msg, '\n'), "%s", err.msg);
	cr_assert_eq(history_db_open_readonly(&db, dbpath, &err), -1);
	cr_assert(strstr(err.msg, "schema 99"), "%s", err.msg);
}

Test(history, default_path_and_network_filesystems)
{
	cleanup_free char *p = NULL;

	setenv("XDG_DATA_HOME", "/x/data", 1);
	p = history_db_default_path();
	cr_assert_str_eq(p, "/x/data/hrr-docker-replay/history.sqlite");
	free(p);
	setenv("XDG_DATA_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	p = history_db_default_path();
	cr_assert_str_eq(p, "/home/u/.local/share/hrr-docker-replay/history.sqlite");
	unsetenv("XDG_DATA_HOME");
	cr_assert(history_fs_is_network(0x6969));      /* NFS */
	cr_assert(history_fs_is_network(0xff534d42));  /* CIFS */
	cr_assert(history_fs_is_network(0x0bd00bd0));  /* Lustre */
	cr_assert(history_fs_is_network(0x47504653));  /* GPFS */
	cr_assert(history_fs_is_network(0x19830326));  /* BeeGFS */
	cr_assert(!history_fs_is_network(0xef53));     /* ext4 */
	cr_assert(!history_fs_is_network(0x58465342)); /* xfs */
	cr_assert(!history_fs_is_network(0x01021994)); /* tmpfs */
}

Test(history, results_lines_round_trip_and_torn_lines_are_skipped)
{
	struct sweep_results rs = { 0 }, back = { 0 };
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_free char *file = xasprintf("%s/results.jsonl", root);
	struct error err;

	add(&rs, "lib/c.hrr/pid-1", "img:1", 1, "done", "MAF", "page", "k<a&b>", 3);
	add(&rs, "lib/c.hrr/pid-2", "img:1", 1, "error", NULL, NULL, NULL, 3);
	cr_assert_eq(case_result_append(file, &rs.v[0], &err), 0, "%s", err.msg);
	cr_assert_eq(case_result_append(file, &rs.v[1], &err), 0, "%s", err.msg);
	cr_assert_eq(fs_read_small_file(file, 1 << 20, &text, &err), 0);
	strbuf_addstr(&text, "{\"case\": \"torn");
	fs_write_atomic(file, text.buf, text.len, 0644, &err);
	cr_assert_eq(sweep_results_load(root, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(back.n, 2);
	cr_assert_eq(back.skipped, 1);
	cr_assert_str_eq(back.v[0].kernel, "k<a&b>");
	cr_assert_eq(back.v[0].classifier_version, 3);
	cr_assert_eq(back.v[0].gpus[0], 1);
	cr_assert_null(back.v[1].outcome);
	sweep_results_release(&rs);
	sweep_results_release(&back);
}

Test(history, archive_digest_changes_with_the_capture)
{
	cleanup_free char *pid = xasprintf("%s/c/pid-1", root);
	cleanup_free char *ev = xasprintf("%s/events.bin", pid);
	cleanup_free char *a = NULL, *b = NULL, *c = NULL;
	struct error err;

	pft_make_pid_dir(pid);
	a = sweep_archive_digest(pid, &err);
	cr_assert_not_null(a, "%s", err.msg);
	cr_assert_eq(strncmp(a, "fnv1a64:", 8), 0);
	b = sweep_archive_digest(pid, &err);
	cr_assert_str_eq(a, b, "same capture, same digest");
	pft_writef(ev, "other bytes");
	c = sweep_archive_digest(pid, &err);
	cr_assert_str_neq(a, c);
	cr_assert_null(sweep_archive_digest(root, &err), "no events.bin");
}

struct attempts_seen {
	char rows[8][96];
	size_t n;
};

static int see_attempt(void *ctx, const struct history_attempt_row *r)
{
	struct attempts_seen *t = ctx;

	cr_assert_lt(t->n, 8);
	snprintf(t->rows[t->n++], 96, "%s %s %d %s %s %s %s %s %s", r->case_name, r->image,
		 r->attempt, r->state, r->outcome ? r->outcome : "-", r->kind ? r->kind : "-",
		 r->gpus ? r->gpus : "-", r->run_dir ? r->run_dir : "-", r->host ? r->host : "-");
	return 0;
}

/* One sweep's attempts, every one of them, by case, image and attempt
 * whatever order the results were written in: a case's final attempt is
 * its last row. Another sweep's are not listed. The host is the one the
 * line named: none for a line without (the sweep's is not put in). */
Test(history, a_sweeps_attempts_come_by_case_image_and_attempt)
{
	struct history_db *db;
	struct error err;
	struct sweep_results rs = { 0 }, other = { 0 };
	const struct history_planned p[] = { { "b", "i" }, { "a", "j" }, { "a", "i" } };
	struct attempts_seen t = { 0 };
	static const char *const want[] = {
		"a i 1 done MAF workload 1 runs/a -",  "a j 1 done HANG workload 1 runs/a -",
		"a j 2 error - infrastructure 1 runs/a n2", "a j 3 done PASS workload 1 runs/a -",
		"b i 1 blocked - workload 1 runs/b -",
	};

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	add(&rs, "b", "i", 1, "blocked", NULL, NULL, NULL, 1);
	add(&rs, "a", "j", 3, "done", "PASS", NULL, NULL, 1);
	add(&rs, "a", "j", 1, "done", "HANG", NULL, NULL, 1);
	add(&rs, "a", "j", 2, "error", NULL, NULL, NULL, 1);
	rs.v[rs.n - 1].host = xstrdup("n2");
	add(&rs, "a", "i", 1, "done", "MAF", "page-fault", "k", 1);
	add(&other, "a", "i", 1, "done", "PASS", NULL, NULL, 1);
	import(db, "s1", 1, p, 3, &rs, true);
	import(db, "s2", 2, p, 3, &other, true);
	cr_assert_eq(history_db_attempts(db, "s1", see_attempt, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(t.n, 5);
	for (size_t i = 0; i < t.n; i++)
		cr_expect_str_eq(t.rows[i], want[i]);
	t.n = 0;
	cr_assert_eq(history_db_attempts(db, "none", see_attempt, &t, &err), 0, "%s", err.msg);
	cr_expect_eq(t.n, 0);
	sweep_results_release(&rs);
	sweep_results_release(&other);
	history_db_close(db);
}

struct attempts_md {
	char md[64];
};

static int see_md(void *ctx, const struct history_attempt_row *r)
{
	struct attempts_md *t = ctx;

	snprintf(t->md, sizeof(t->md), "%s", r->finding_md ? r->finding_md : "-");
	return 0;
}

/* A line carries finding.md's text as it is, or none: over the bound, or
 * text its codec would change (an ANSI escape), the report reads the run
 * folder's finding.md instead. A line without the field reads back with
 * none; the history holds what the line carried. */
Test(history, a_results_line_carries_the_finding_text_or_none)
{
	struct case_result r = { 0 }, back;
	struct sweep_results rs = { 0 };
	const struct history_planned p[] = { { "a", "i" } };
	struct history_db *db;
	struct attempts_md seen = { 0 };
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	cleanup_free char *big = xcalloc(CASE_RESULT_FINDING_MD_MAX + 2, 1);
	struct error err;

	memset(big, 'x', CASE_RESULT_FINDING_MD_MAX + 1);
	case_result_set_finding_md(&r, big);
	cr_expect_null(r.finding_md);
	case_result_set_finding_md(&r, "# red \x1b[31mMAF\x1b[0m\n");
	cr_expect_null(r.finding_md);
	cr_assert_eq(case_result_parse(&back, "{\"case\":\"a\",\"image\":\"i\",\"state\":\"done\"}",
					&err), 0, "%s", err.msg);
	cr_expect_null(back.finding_md);
	case_result_release(&back);

	add(&rs, "a", "i", 1, "done", "MAF", NULL, "k", 1);
	case_result_set_finding_md(&rs.v[0], "# MAF\n\n| Kernel | `k` |\n");
	case_result_to_json(&rs.v[0], &line);
	cr_assert_eq(case_result_parse(&back, line.buf, &err), 0, "%s", err.msg);
	cr_expect_str_eq(back.finding_md, "# MAF\n\n| Kernel | `k` |\n");
	case_result_release(&back);
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	import(db, "s1", 1, p, 1, &rs, true);
	cr_assert_eq(history_db_attempts(db, "s1", see_md, &seen, &err), 0, "%s", err.msg);
	cr_expect_str_eq(seen.md, "# MAF\n\n| Kernel | `k` |\n");
	sweep_results_release(&rs);
	history_db_close(db);
}

/* A schema 7 database: every sweep's fingerprint is forgotten, so the
 * next import of a sweep rebuilds its rows and fills the columns a report
 * reads (the line's host and finding text), though its files did not
 * change (its stored fingerprint is theirs). */
Test(history, a_schema_7_sweep_is_rebuilt_at_its_next_import)
{
	struct history_db *db;
	struct error err;
	struct sweep_results rs = { 0 };
	const struct history_planned p[] = { { "a", "i" } };
	struct attempts_md seen = { 0 };
	cleanup_free char *fp = NULL, *sql = NULL;
	struct history_stmt *st;
	sqlite3 *h;

	HISTORY_SQLITE_ONLY(); /* no PostgreSQL history predates schema 8 */
	add(&rs, "a", "i", 1, "done", "MAF", NULL, "k", 1);
	case_result_set_finding_md(&rs.v[0], "# MAF\n");
	/* The fingerprint these files have, as an import stores it. */
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	import(db, "s1", 1, p, 1, &rs, true);
	cr_assert_eq(history_sql_prepare(db, "SELECT results_fp FROM sweeps", &st, &err), 0);
	cr_assert_eq(history_step(st), HISTORY_ROW);
	fp = xstrdup(history_col(st, 0));
	history_finalize(st);
	history_db_close(db);
	for (size_t i = 0; i < 3; i++) {
		static const char *const sfx[] = { "", "-wal", "-shm" };
		cleanup_free char *f = xasprintf("%s%s", dbpath, sfx[i]);

		unlink(f);
	}
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	for (int v = 0; v < 7; v++)
		cr_assert_eq(sqlite3_exec(h, history_migrations[v], NULL, NULL, NULL), SQLITE_OK,
			     "%s", sqlite3_errmsg(h));
	sql = xasprintf("PRAGMA user_version = 7; INSERT INTO sweeps(id, label, started, state,"
			" results_fp) VALUES('s1', 'nightly', 1, 'finished', '%s')", fp);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	import(db, "s1", 1, p, 1, &rs, true);
	cr_assert_eq(history_db_attempts(db, "s1", see_md, &seen, &err), 0, "%s", err.msg);
	cr_expect_str_eq(seen.md, "# MAF\n");
	sweep_results_release(&rs);
	history_db_close(db);
}
