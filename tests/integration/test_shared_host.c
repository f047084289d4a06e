/* Shared hosts, second pass: a second local user plants sweep
 * folders, a history database row or a GPU lock directory before this
 * user's sweep, history or run starts, and the planted thing is refused,
 * never used. The second user is tests/support/other_user's (hrrtest2);
 * it needs no engine access. Also --log-limit against a flooding replay. */
#include <criterion/criterion.h>

#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tests/support/other_user.h"
#include "tests/support/run_support.h"

static char sysfs4[PATH_MAX + 64], team[400], dbpath[400], library[400], lockenv[450];

/* A team's workdir anyone may write (docs/cli.md allows it), a database
 * and a lock directory of this user's own. */
static void init(void)
{
	tenv_init_four_gpus(sysfs4, sizeof(sysfs4));
	cr_assert_eq(chmod(tenv.root, 0755), 0);
	snprintf(team, sizeof(team), "%s/team", tenv.root);
	cr_assert_eq(mkdir(team, 0777), 0);
	cr_assert_eq(chmod(team, 0777), 0);
	snprintf(dbpath, sizeof(dbpath), "%s/db/history.sqlite", tenv.root);
	snprintf(library, sizeof(library), "%s/library", tenv.root);
	snprintf(lockenv, sizeof(lockenv), "HRR_LOCK_DIR=%s/locks", tenv.root);
}

TestSuite(shared_host, .init = init, .fini = tenv_fini, .timeout = 300);

static void add_pass_case(void)
{
	cleanup_free char *src = fixture_root("pass");
	cleanup_free char *cmd = xasprintf("mkdir -p '%s/c' && cp -r '%s' '%s/c/'", library, src,
					   library);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void set_maf(void)
{
	cleanup_free char *f = xasprintf("%s/c/capture.hrr/pid-4242/sim-scenario", library);
	struct error err;

	cr_assert_eq(fs_write_atomic(f, "scenario=maf\n", 13, 0644, &err), 0, "%s", err.msg);
}

/* `sweep` of the library in workdir, label "n", summary.json on stdout. */
static void sweep_in(struct tool_run *r, const char *workdir)
{
	const char *argv[] = { "sweep", "--workdir", workdir, "--device-root", tenv.devroot,
			       "--sysfs-root", sysfs4, "--db", dbpath, "--timeout", "120",
			       "--image", SIM_IMAGE, "--archive", library, "--label", "n",
			       "--format", "json", "-q", NULL };
	const char *env[] = { lockenv, NULL };

	tool_run(r, argv, env);
}

Test(shared_host, a_sweeps_directory_another_user_made_stops_the_sweep)
{
	struct tool_run r;

	add_pass_case();
	other_user_sh("mkdir -m 777 '%s/sweeps'", team);
	sweep_in(&r, team);
	cr_assert_eq(r.status, 5, "found during the run: exit 5\n%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "sweeps directory") && strstr(r.err.buf, "belongs to uid") &&
		  strstr(r.err.buf, "--workdir"), "%s", r.err.buf);
	tool_run_release(&r);
}

/* The one sweep folder of this user under team/sweeps. */
static char *first_folder(void)
{
	cleanup_free char *cmd = xasprintf("ls -d '%s'/sweeps/n-*", team);
	FILE *p = popen(cmd, "r");
	char line[PATH_MAX];

	cr_assert_not_null(p);
	cr_assert_not_null(fgets(line, sizeof(line), p), "no sweep folder");
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	return xstrdup(line);
}

/* A copy of the first sweep as the other user's folder: started a second
 * later, its case MAF, finished. Written by this user to a scratch file,
 * copied into place by the other user. */
static void plant_maf_baseline(const char *first)
{
	cleanup_free char *plan_in = xasprintf("%s/plan.json", first);
	cleanup_free char *res_in = xasprintf("%s/results.jsonl", first);
	cleanup_free char *plan_out = xasprintf("%s/planted-plan.json", tenv.root);
	cleanup_free char *res_out = xasprintf("%s/planted-results.jsonl", tenv.root);
	/* The plan's cases file as it is (docs/formats.md "Sweep plan files"). */
	cleanup_free char *cases_in = xasprintf("%s/plan-cases.jsonl", first);
	cleanup_free char *cases_out = xasprintf("%s/planted-plan-cases.jsonl", tenv.root);
	cleanup_strbuf struct strbuf plan = STRBUF_INIT, res = STRBUF_INIT, cases = STRBUF_INIT;
	cleanup_cjson cJSON *p = NULL, *line = NULL;
	cleanup_free char *ptext = NULL, *rtext = NULL;
	const char *id = "n-20000101T000000Z-000001";
	struct error err;

	cr_assert(read_text(plan_in, &plan) && read_text(res_in, &res) && read_text(cases_in, &cases));
	p = cJSON_Parse(plan.buf);
	cJSON_ReplaceItemInObject(p, "sweep", cJSON_CreateString(id));
	cJSON_ReplaceItemInObject(p, "started",
				  cJSON_CreateNumber(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "started")) + 1));
	ptext = cJSON_Print(p);
	line = cJSON_Parse(res.buf);
	cJSON_ReplaceItemInObject(line, "outcome", cJSON_CreateString("MAF"));
	rtext = cJSON_PrintUnformatted(line);
	cr_assert_eq(fs_write_atomic(plan_out, ptext, strlen(ptext), 0644, &err), 0, "%s", err.msg);
	cr_assert_eq(fs_write_atomic(res_out, rtext, strlen(rtext), 0644, &err), 0, "%s", err.msg);
	cr_assert_eq(fs_write_atomic(cases_out, cases.buf, cases.len, 0644, &err), 0, "%s", err.msg);
	other_user_sh("d='%s/sweeps/%s' && mkdir \"$d\" && cp '%s' \"$d/plan.json\" &&"
		      " cp '%s' \"$d/plan-cases.jsonl\" &&"
		      " cp '%s' \"$d/results.jsonl\" && echo '{\"state\":\"finished\"}' > \"$d/summary.json\"",
		      team, id, plan_out, cases_out, res_out);
}

static const char *status_of_c(const cJSON *summary)
{
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(summary, "cases"), 0);

	return cJSON_GetStringValue(cJSON_GetObjectItem(c, "status"));
}

/* A shared sweeps/ is used when sticky; a folder another user planted in
 * it never becomes the label's baseline: PASS -> MAF is regressed, exit 1
 * (before, the planted MAF sweep became the baseline: the case was no
 * longer regressed and the sweep exited 0). */
Test(shared_host, a_planted_folder_is_not_the_baseline_of_the_label)
{
	struct tool_run a, b;
	cleanup_free char *sweeps = xasprintf("%s/sweeps", team), *first = NULL;
	cleanup_cjson cJSON *s = NULL;

	add_pass_case();
	cr_assert_eq(mkdir(sweeps, 0755), 0);
	cr_assert_eq(chmod(sweeps, 01777), 0);
	sweep_in(&a, team);
	cr_assert_eq(a.status, 0, "%s", a.err.buf);
	tool_run_release(&a);
	first = first_folder();
	plant_maf_baseline(first);
	set_maf();
	sweep_in(&b, team);
	s = cJSON_Parse(b.out.buf);
	cr_assert_not_null(s, "%s\n%s", b.out.buf, b.err.buf);
	cr_assert_str_eq(status_of_c(s), "regressed", "%s", b.out.buf);
	cr_assert_eq(b.status, 1, "%s", b.err.buf);
	tool_run_release(&b);
}

static void sql(const char *db, const char *stmt)
{
	sqlite3 *h;

	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, stmt, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
}

/* A forged folder row (no trigger needed) must not make prune delete a
 * directory: it is left, with a warning, exit 5. */
Test(shared_host, prune_leaves_a_directory_a_forged_folder_row_names)
{
	struct tool_run r;
	cleanup_free char *victim = xasprintf("%s/victim", tenv.root);
	cleanup_free char *kept = xasprintf("%s/keep", victim), *stmt = NULL;
	const char *argv[] = { "history", "prune", "--keep", "0", "--db", dbpath, NULL };
	struct error err;

	add_pass_case();
	sweep_in(&r, tenv.workdir);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert_eq(mkdir(victim, 0700), 0);
	cr_assert_eq(fs_write_atomic(kept, "x", 1, 0600, &err), 0, "%s", err.msg);
	stmt = xasprintf("UPDATE sweeps SET folder = '%s'", victim);
	sql(dbpath, stmt);
	tool_run(&r, argv, NULL);
	cr_assert_eq(r.status, 5, "%s\n%s", r.out.buf, r.err.buf);
	cr_assert(strstr(r.err.buf, victim) && strstr(r.err.buf, "left as it is"), "%s", r.err.buf);
	cr_assert(access(kept, F_OK) == 0, "the directory the row named is untouched");
	tool_run_release(&r);
}

Test(shared_host, history_on_a_symlinked_db_creates_nothing_behind_it)
{
	struct tool_run r;
	cleanup_free char *dir = xasprintf("%s/mine", tenv.root), *link = NULL, *target = NULL;
	const char *argv[4] = { "history", "--db", NULL, NULL };

	cr_assert_eq(mkdir(dir, 0700), 0);
	link = xasprintf("%s/history.sqlite", dir);
	target = xasprintf("%s/root-only.sqlite", tenv.root);
	cr_assert_eq(symlink(target, link), 0);
	argv[2] = link;
	tool_run(&r, argv, NULL);
	cr_assert_eq(r.status, 64, "a path from --db: exit 64\n%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "symlink"), "%s", r.err.buf);
	cr_assert(access(target, F_OK) != 0, "no database was created behind the link");
	tool_run_release(&r);
}

/* A lock directory another user made could have its held locks removed:
 * refused before anything runs, naming the fix. */
Test(shared_host, run_refuses_a_lock_directory_another_user_made)
{
	struct tool_run r;
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *locks = xasprintf("%s/locks", tenv.root);
	const char *argv[] = { "run", "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir",
			       tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
			       tenv.sysfs, "--gpu", "0", "-q", NULL };
	const char *env[] = { lockenv, NULL };

	cr_assert_eq(chmod(tenv.root, 0777), 0);
	other_user_sh("mkdir '%s' && chmod 1777 '%s'", locks, locks);
	cr_assert_eq(chmod(tenv.root, 0755), 0);
	tool_run(&r, argv, env);
	cr_assert_eq(r.status, 64, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, locks) && strstr(r.err.buf, "belongs to uid") &&
		  strstr(r.err.buf, "tmpfiles"), "%s", r.err.buf);
	tool_run_release(&r);
}

/* --log-limit (item 7): a replay printing 24 MiB leaves a replay.log of
 * about the limit, with its head, a marker and its tail; the verdict is
 * the replay's own (PASS) and stderr says what was dropped. */
Test(shared_host, log_limit_keeps_head_and_tail_of_a_flooding_replay)
{
	struct tool_run r;
	cleanup_free char *pid_dir = fixture_pid_dir("flood"), *log = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	const char *argv[] = { "run", "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir",
			       tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
			       tenv.sysfs, "--gpu", "0", "-q", "--format", "json",
			       "--log-limit", "6m", "-e", "HRR_SIM_FLOOD_BYTES=25165824", NULL };
	const char *env[] = { lockenv, NULL };
	cleanup_cjson cJSON *f = NULL;

	tool_run(&r, argv, env);
	cr_assert_eq(r.status, 0, "a verbose PASS stays a PASS\n%s", r.err.buf);
	cr_assert_not_null(r.run_dir, "%s", r.err.buf);
	f = cJSON_Parse(r.out.buf);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "outcome")), "PASS");
	log = xasprintf("%s/replay.log", r.run_dir);
	cr_assert(read_text(log, &text));
	cr_assert_leq(text.len, (size_t)(6 << 20) + 4096, "%zu bytes kept", text.len);
	cr_assert(strstr(text.buf, "\n[hrr-docker-replay] log limit 6291456 bytes reached: "),
		  "the marker says where and how much");
	cr_assert(strstr(r.err.buf, "--log-limit") && strstr(r.err.buf, "dropped"), "%s", r.err.buf);
	{
		cleanup_cjson cJSON *run = read_json(r.run_dir, "run.json");
		double dropped = cJSON_GetNumberValue(
			cJSON_GetObjectItem(cJSON_GetObjectItem(run, "exit"), "log_dropped"));

		cr_assert_gt(dropped, 16.0 * (1 << 20), "run.json says how much: %f", dropped);
	}
	tool_run_release(&r);
}
