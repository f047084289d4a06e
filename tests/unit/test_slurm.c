/* The pure parts of sweep --slurm (orchestrator/cluster/slurm.h, slurm_task.h):
 * sbatch's arguments, Slurm's GPU index lists, gres.conf's GPU order, the
 * index -> render node -> KFD ordinal chain, squeue's time left, and the
 * runner interface with a scripted runner instead of a cluster. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/cluster/slurm.h"
#include "orchestrator/cluster/slurm_cmd.h"
#include "orchestrator/cluster/slurm_task.h"
#include "orchestrator/cli/sweep_options.h"
#include "orchestrator/cluster/sweep_backend.h"
#include "orchestrator/cluster/sweep_slurm.h"
#include "orchestrator/history/history_db.h"
#include "tests/support/scratch.h"

static char *joined(const struct strvec *v)
{
	struct strbuf b = STRBUF_INIT;

	for (size_t i = 0; i < v->n; i++)
		strbuf_addf(&b, "%s%s", i ? " " : "", v->v[i]);
	return strbuf_detach(&b, NULL);
}

Test(slurm, an_array_is_one_sbatch_with_the_users_options_verbatim_and_last)
{
	cleanup_strvec struct strvec opts = STRVEC_INIT, argv = STRVEC_INIT, argv2 = STRVEC_INIT;
	struct slurm_array_req q = {
		.job_name = "hrr-x", .script = "/s/r1-gpu2.sh", .output = "/s/%A_%a.out",
		.n_tasks = 8, .max_running = 3, .gpus = 2, .user_opts = &opts,
	};
	cleanup_free char *a = NULL, *b = NULL;

	strvec_push(&opts, "--partition=mi300");
	strvec_push(&opts, "--time=01:00:00");
	slurm_sbatch_array_argv(&q, &argv);
	a = joined(&argv);
	cr_assert_str_eq(a, "sbatch --parsable --job-name=hrr-x --array=0-7%3 --gres=gpu:2 "
			    "--output=/s/%A_%a.out --partition=mi300 --time=01:00:00 /s/r1-gpu2.sh");
	q.max_running = 0;
	q.n_tasks = 1;
	strvec_clear(&argv);
	slurm_sbatch_array_argv(&q, &argv);
	cr_assert_str_eq(argv.v[3], "--array=0-0");
	slurm_sbatch_merge_argv("hrr-x-merge", "/s/m.sh", "/s/merge-%j.out",
				(const char *const[]){ "11", "12" }, 2, &opts, &argv2);
	b = joined(&argv2);
	cr_assert_str_eq(b, "sbatch --parsable --job-name=hrr-x-merge --dependency=afterany:11:12 "
			    "--output=/s/merge-%j.out --partition=mi300 --time=01:00:00 /s/m.sh");
}

Test(slurm, tasks_default_to_the_cases_up_to_64)
{
	cr_assert_eq(slurm_tasks_for(8, 0), 8);
	cr_assert_eq(slurm_tasks_for(500, 0), 64);
	cr_assert_eq(slurm_tasks_for(8, 4), 4);
	cr_assert_eq(slurm_tasks_for(2, 4), 2, "never more tasks than cases");
	cr_assert_eq(slurm_tasks_for(0, 0), 1);
}

Test(slurm, parsable_job_ids)
{
	struct error err;
	char *id = NULL;

	cr_assert_eq(slurm_parsable_job_id("123\n", &id, &err), 0);
	cr_assert_str_eq(id, "123");
	free(id);
	cr_assert_eq(slurm_parsable_job_id("77;cluster2\n", &id, &err), 0);
	cr_assert_str_eq(id, "77");
	free(id);
	cr_assert_eq(slurm_parsable_job_id("sbatch: error: bad\n", &id, &err), -1);
}

Test(slurm, gpu_index_lists_with_ranges)
{
	int v[8];
	size_t n;
	struct error err;

	cr_assert_eq(slurm_index_list_parse("2", v, 8, &n, &err), 0);
	cr_assert(n == 1 && v[0] == 2);
	cr_assert_eq(slurm_index_list_parse("0-2,5", v, 8, &n, &err), 0);
	cr_assert(n == 4 && v[0] == 0 && v[2] == 2 && v[3] == 5);
	cr_assert_eq(slurm_index_list_parse("", v, 8, &n, &err), -1);
	cr_assert_eq(slurm_index_list_parse("1,x", v, 8, &n, &err), -1);
	cr_assert_eq(slurm_index_list_parse("3-1", v, 8, &n, &err), -1);
	cr_assert_eq(slurm_index_list_parse("0-9", v, 8, &n, &err), -1);
}

Test(slurm, gres_conf_gpus_in_file_order_for_this_node)
{
	const char *conf =
		"# comment\n"
		"AutoDetect=off\n"
		"NodeName=other Name=gpu File=/dev/dri/renderD200\n"
		"NodeName=vm Name=gpu File=/dev/dri/renderD131   # reversed on purpose\n"
		"NodeName=n[01-02],vm Name=gpu Type=mi300x File=/dev/dri/renderD[128-129]\n"
		"Name=gpu File=/dev/dri/renderD140\n"
		"NodeName=vm Name=mps Count=100\n";
	cleanup_strvec struct strvec f = STRVEC_INIT, g = STRVEC_INIT;
	struct error err;

	cr_assert_eq(slurm_gres_gpu_files(conf, "vm", &f, &err), 0);
	cr_assert_eq(f.n, 4);
	cr_assert_str_eq(f.v[0], "/dev/dri/renderD131");
	cr_assert_str_eq(f.v[1], "/dev/dri/renderD128");
	cr_assert_str_eq(f.v[2], "/dev/dri/renderD129");
	cr_assert_str_eq(f.v[3], "/dev/dri/renderD140");
	cr_assert_eq(slurm_gres_gpu_files(conf, "n02", &g, &err), 0);
	cr_assert_eq(g.n, 3, "n02: the range line and the line naming no node");
}

Test(slurm, gres_conf_beside_slurm_conf)
{
	cleanup_free char *a = slurm_gres_conf_path("/site/etc/slurm.conf");
	cleanup_free char *b = slurm_gres_conf_path(NULL);

	cr_assert_str_eq(a, "/site/etc/gres.conf");
	cr_assert_str_eq(b, "/etc/slurm/gres.conf");
}

static struct gpu_topology four_gpus(struct gpu_node *n)
{
	for (int i = 0; i < 4; i++)
		n[i] = (struct gpu_node){ .node = i + 1, .gpu_id = 100 + (unsigned long)i,
					  .drm_render_minor = 128 + i };
	return (struct gpu_topology){ .gpus = n, .n_gpus = 4 };
}

Test(slurm, indexes_map_through_gres_order_and_render_minors_to_ordinals)
{
	struct gpu_node nodes[4];
	struct gpu_topology t = four_gpus(nodes);
	cleanup_strvec struct strvec files = STRVEC_INIT;
	/* gres.conf lists renderD131 first: index 0 is GPU ordinal 3. */
	int minors[] = { 131, 130, 129, 128, -1 }, ord[4];
	struct error err;

	for (int i = 0; i < 4; i++)
		strvec_pushf(&files, "/dev/dri/renderD%d", minors[i]);
	strvec_push(&files, "/dev/nvidia0");
	cr_assert_eq(slurm_task_map((const int[]){ 0, 2 }, 2, &files, minors, &t, ord, &err), 0);
	cr_assert_eq(ord[0], 3);
	cr_assert_eq(ord[1], 1);
	cr_assert_eq(slurm_task_map((const int[]){ 5 }, 1, &files, minors, &t, ord, &err), -1,
		     "an index past gres.conf");
	cr_assert(strstr(err.msg, "index 5"), "%s", err.msg);
	cr_assert_eq(slurm_task_map((const int[]){ 4 }, 1, &files, minors, &t, ord, &err), -1,
		     "not a render node");
	minors[1] = 150;
	cr_assert_eq(slurm_task_map((const int[]){ 1 }, 1, &files, minors, &t, ord, &err), -1,
		     "a render node the KFD topology lacks");
}

Test(slurm, squeue_time_left)
{
	bool ok;

	cr_assert_eq(slurm_time_left_parse("4:58", &ok), 298);
	cr_assert(ok);
	cr_assert_eq(slurm_time_left_parse("1:02:03", &ok), 3723);
	cr_assert_eq(slurm_time_left_parse("1-02:03:04", &ok), 93784);
	cr_assert_eq(slurm_time_left_parse("2-00", &ok), 172800);
	cr_assert_eq(slurm_time_left_parse("UNLIMITED", &ok), SLURM_TIME_UNLIMITED);
	cr_assert(ok);
	slurm_time_left_parse("INVALID", &ok);
	cr_assert(!ok);
	slurm_time_left_parse("", &ok);
	cr_assert(!ok);
	slurm_time_left_parse("1:xx", &ok);
	cr_assert(!ok);
}

/* A scripted runner: what squeue answers, what it was asked. */
struct script {
	const char *answer;
	int status;
	char asked[256];
};

static int scripted(void *ctx, const char *const *argv, struct strbuf *out, struct strbuf *errout,
		    int *status, struct error *err)
{
	struct script *s = ctx;

	(void)err;
	s->asked[0] = '\0';
	for (size_t i = 0; argv[i]; i++)
		snprintf(s->asked + strlen(s->asked), sizeof(s->asked) - strlen(s->asked), "%s%s",
			 i ? " " : "", argv[i]);
	if (out)
		strbuf_addstr(out, s->answer);
	if (errout && s->status)
		strbuf_addstr(errout, "slurm_load_jobs error: Invalid job id specified\n");
	*status = s->status;
	return 0;
}

Test(slurm, a_task_asks_squeue_for_its_own_array_task)
{
	struct script s = { .answer = "12:00\n" };
	struct slurm_runner r = { .run = scripted, .ctx = &s };

	setenv("SLURM_ARRAY_JOB_ID", "40", 1);
	setenv("SLURM_ARRAY_TASK_ID", "3", 1);
	cr_assert_eq(slurm_task_time_left(&r), 720);
	cr_assert_str_eq(s.asked, "squeue -h -j 40_3 -o %L");
	s.answer = "UNLIMITED\n";
	cr_assert_eq(slurm_task_time_left(&r), SLURM_TIME_UNLIMITED);
	s.status = 1;
	s.answer = "";
	cr_assert_lt(slurm_task_time_left(&r), -1, "Slurm did not say");
	unsetenv("SLURM_ARRAY_JOB_ID");
	unsetenv("SLURM_ARRAY_TASK_ID");
}

Test(slurm, a_failed_command_is_named_with_its_first_error_line)
{
	struct script s = { .answer = "", .status = 1 };
	struct slurm_runner r = { .run = scripted, .ctx = &s };
	struct error err;

	cr_assert_eq(slurm_run_ok(&r, (const char *const[]){ "squeue", "-j", "9", NULL }, NULL, &err),
		     -1);
	cr_assert_str_eq(err.msg, "squeue -j failed (exit 1): slurm_load_jobs error: Invalid job id "
				  "specified");
}

Test(slurm, shell_quoting)
{
	cleanup_strbuf struct strbuf b = STRBUF_INIT;

	slurm_shell_quote(&b, "/a b/it's");
	cr_assert_str_eq(b.buf, "'/a b/it'\\''s'");
}

/* A runner that answers each sbatch with the next job id and keeps the
 * command lines. */
struct sbatch_log {
	int next_id;
	char lines[4][512];
	int n;
};

static int fake_sbatch(void *ctx, const char *const *argv, struct strbuf *out,
		       struct strbuf *errout, int *status, struct error *err)
{
	struct sbatch_log *l = ctx;

	(void)errout;
	(void)err;
	cr_assert_str_eq(argv[0], "sbatch");
	cr_assert_lt(l->n, 4);
	for (size_t i = 0; argv[i]; i++)
		snprintf(l->lines[l->n] + strlen(l->lines[l->n]),
			 sizeof(l->lines[0]) - strlen(l->lines[l->n]), "%s%s", i ? " " : "", argv[i]);
	l->n++;
	strbuf_addf(out, "%d\n", l->next_id++);
	*status = 0;
	return 0;
}

/* stdout: the submission's summary lines, not the test's to print */
Test(slurm, submission_is_one_array_per_gpu_count_then_the_merge_after_all, .init = cr_redirect_stdout)
{
	cleanup_free char *dir = scratch_dir("slurm-unit");
	struct sweep_meta m;
	struct sweep_options so;
	struct sbatch_log log = { .next_id = 100 };
	struct slurm_runner r = { .run = fake_sbatch, .ctx = &log };
	int gpus[] = { 1, 2, 1, 1, 2 };
	size_t cases[] = { 0, 1, 3, 4 }; /* case 2 already has a result */
	cleanup_free char *merge = NULL, *rec = NULL, *cases1 = NULL;
	struct strbuf text = STRBUF_INIT;
	struct error err;

	cr_assert_not_null(dir);
	sweep_meta_init(&m);
	sweep_options_init(&so);
	m.id = xstrdup("nightly-20261130T020000Z-abcdef");
	for (int i = 0; i < 5; i++)
		sweep_plan_push(&m.plan)->gpu_count = gpus[i];
	strvec_push(&so.backend.opts, "--partition=mi300");
	so.backend.max_running = 2;
	struct sweep_slurm_submit s = { .meta = &m, .folder = dir, .workdir = "/shared",
					.tasks_per_array = so.backend.tasks_per_array,
					.max_running = so.backend.max_running,
					.user_opts = &so.backend.opts, .cases = cases, .n_cases = 4,
					.bin = "/opt/hrr/bin/hrr-docker-replay" };

	cr_assert_eq(sweep_slurm_submit(&r, &s, &merge, &err), 0, "%s", err.msg);
	cr_assert_str_eq(merge, "102");
	cr_assert_eq(log.n, 3);
	cr_assert(strstr(log.lines[0], "--array=0-1%2 --gres=gpu:1 ") &&
			  strstr(log.lines[0], "--partition=mi300"),
		  "%s", log.lines[0]);
	cr_assert(strstr(log.lines[1], "--array=0-1%2 --gres=gpu:2 "), "%s", log.lines[1]);
	cr_assert(strstr(log.lines[2], "--dependency=afterany:100:101 "), "%s", log.lines[2]);
	cases1 = xasprintf("%s/slurm/r1-gpu1.cases", dir);
	cr_assert_eq(fs_read_small_file(cases1, 1024, &text, &err), 0, "%s", err.msg);
	cr_assert_str_eq(text.buf, "0\n3\n", "case 2 has a result; 1 and 4 need 2 GPUs");
	rec = sweep_slurm_record(dir);
	cr_assert(rec && strstr(rec, "\"merge\":\t\"102\""), "%s", rec ? rec : "(none)");
	strbuf_release(&text);
	sweep_options_release(&so);
	sweep_meta_release(&m);
	scratch_remove(dir);
}

/* A '%' of the workdir is sbatch's pattern character: doubled, so the
 * job writes where it was told instead of failing. */
Test(slurm, a_percent_in_the_folder_is_escaped_in_the_output_pattern, .init = cr_redirect_stdout)
{
	cleanup_free char *dir = scratch_dir("slurm-pct");
	cleanup_free char *folder = xasprintf("%s/100%%d-full", dir), *script = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct sweep_meta m;
	struct sweep_options so;
	struct sbatch_log log = { .next_id = 7 };
	struct slurm_runner r = { .run = fake_sbatch, .ctx = &log };
	size_t cases[] = { 0 };
	cleanup_free char *merge = NULL, *want = NULL;
	struct error err;

	cr_assert_eq(mkdir(folder, 0700), 0);
	sweep_meta_init(&m);
	sweep_options_init(&so);
	m.id = xstrdup("n-20261130T020000Z-abcdef");
	sweep_plan_push(&m.plan);
	struct sweep_slurm_submit s = { .meta = &m, .folder = folder, .workdir = dir,
					.user_opts = &so.backend.opts, .cases = cases, .n_cases = 1,
					.bin = "/bin/hrr" };

	cr_assert_eq(sweep_slurm_submit(&r, &s, &merge, &err), 0, "%s", err.msg);
	want = xasprintf("--output=%s/100%%%%d-full/slurm/%%A_%%a.out ", dir);
	cr_assert(strstr(log.lines[0], want), "%s", log.lines[0]);
	free(want);
	want = xasprintf("--output=%s/100%%%%d-full/slurm/merge-%%j.out ", dir);
	cr_assert(strstr(log.lines[1], want), "%s", log.lines[1]);
	/* The merge's exit file: a new file renamed over the name, never an
	 * `echo >` through whatever is planted there. */
	script = xasprintf("%s/slurm/r1-merge.sh", folder);
	cr_assert_eq(fs_read_small_file(script, 4096, &text, &err), 0, "%s", err.msg);
	cr_assert(strstr(text.buf, "mktemp") && strstr(text.buf, "mv -f"), "%s", text.buf);
	sweep_options_release(&so);
	sweep_meta_release(&m);
	scratch_remove(dir);
}

/* The sweep's options in the history keep the backend under "backend"
 * (its name and its record, slurm.json as it is); a history written before,
 * whose options say "slurm" (the record alone), still opens and reads. */
static void import_options(struct history_db *db, const char *id, long long started,
			   const char *options)
{
	struct history_sweep s = { .id = id, .label = "nightly", .state = "finished",
				   .started = started, .folder = id, .options = options };
	const struct history_planned p[] = { { "a", "i" } };
	struct sweep_results rs = { 0 };
	struct error err;
	bool rebuilt;

	cr_assert_eq(history_db_import(db, &s, p, 1, &rs, &rebuilt, &err), 0, "%s", err.msg);
}

static char *stored_option(const char *dbpath, const char *id, const char *path)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	char *v = NULL;

	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, "SELECT json_extract(options, ?2) FROM sweeps"
					   " WHERE id = ?1", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

Test(slurm, the_history_keeps_the_backend_under_backend_and_old_histories_read)
{
	cleanup_free char *dir = scratch_dir("slurm-record");
	cleanup_free char *json = xasprintf("%s/%s", dir, SWEEP_SLURM_FILE);
	cleanup_free char *dbpath = xasprintf("%s/history.sqlite", dir);
	cleanup_free char *none = sweep_backends_record(dir);
	cleanup_free char *record = NULL, *opts = NULL, *baseline = NULL;
	cleanup_free char *name = NULL, *merge = NULL, *old_merge = NULL;
	const char *text = "{\"sweep\":\"s2\",\"rounds\":[{\"round\":1,\"merge\":\"12\"}]}";
	struct history_db *db;
	struct error err;

	cr_assert_null(none, "no slurm.json, no record");
	cr_assert_eq(fs_write_atomic(json, text, strlen(text), 0644, &err), 0, "%s", err.msg);
	record = sweep_backends_record(dir);
	cr_assert_str_eq(record, "{\"name\":\"slurm\",\"record\":{\"sweep\":\"s2\",\"rounds\":"
				 "[{\"round\":1,\"merge\":\"12\"}]}}");
	opts = xasprintf("{\"timeout\":60,\"backend\":%s}", record);

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	import_options(db, "s1", 1,
		       "{\"timeout\":60,\"slurm\":{\"sweep\":\"s1\",\"rounds\":[{\"merge\":\"7\"}]}}");
	import_options(db, "s2", 2, opts);
	cr_assert_eq(history_db_previous(db, "nightly", "s2", &baseline, &err), 0, "%s", err.msg);
	cr_assert_str_eq(baseline, "s1");
	history_db_close(db);
	name = stored_option(dbpath, "s2", "$.backend.name");
	merge = stored_option(dbpath, "s2", "$.backend.record.rounds[0].merge");
	old_merge = stored_option(dbpath, "s1", "$.slurm.rounds[0].merge");
	cr_assert_str_eq(name, "slurm");
	cr_assert_str_eq(merge, "12");
	cr_assert_str_eq(old_merge, "7");

	cr_assert_eq(fs_write_atomic(json, "{torn", 5, 0644, &err), 0, "%s", err.msg);
	free(record);
	record = sweep_backends_record(dir);
	cr_assert_null(record, "a record that is not JSON is not kept");
	scratch_remove(dir);
}
