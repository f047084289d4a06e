/* The single-node Slurm cluster of tests/setup-slurm.sh, as the cluster
 * sweep will use it: the controller answers, a job array's tasks with
 * --gres=gpu:1 each get one GPU of their own (and that GPU maps through
 * gres.conf's order to a fake render node and a KFD topology node), and
 * scancel of one task leaves only that task CANCELLED. Real sbatch, squeue
 * and scancel; skipped when no cluster is set up here. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"
#include "tests/support/scratch.h"
#include "tests/support/sim_run.h"
#include "tests/support/slurm_support.h"

#define TASKS 4

static char *dir;

static void setup(void)
{
	dir = scratch_dir("slurm");
	cr_assert_not_null(dir);
	chmod(dir, 0755);
}

static void teardown(void)
{
	scratch_remove(dir);
	free(dir);
}

TestSuite(slurm_cluster, .init = setup, .fini = teardown, .timeout = 300);

static char *write_script(const char *name, const char *body)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fprintf(f, "#!/bin/sh\n%s", body);
	fclose(f);
	chmod(path, 0755);
	return path;
}

/* sbatch --parsable ... script; the job id. Caller frees. */
static char *submit(const char *const *opts, const char *script)
{
	const char *argv[16] = { "sbatch", "--parsable", "-D", dir };
	size_t n = 4;
	struct strbuf out = STRBUF_INIT;
	char *id;

	for (size_t i = 0; opts[i]; i++)
		argv[n++] = opts[i];
	argv[n++] = script;
	argv[n] = NULL;
	cr_assert_eq(slurm_cmd(argv, &out), 0, "sbatch failed");
	strbuf_trim_trailing_newline(&out);
	cr_assert(out.len > 0 && strspn(out.buf, "0123456789") == out.len, "sbatch said %s", out.buf);
	id = strbuf_detach(&out, NULL);
	return id;
}

static void cancel(const char *spec)
{
	slurm_cmd((const char *const[]){ "scancel", spec, NULL }, NULL);
}

Test(slurm_cluster, the_controller_answers_with_four_gpus)
{
	struct strbuf out = STRBUF_INIT;

	slurm_need_cluster();
	cr_assert_eq(slurm_cmd((const char *const[]){ "sinfo", "-h", "-o", "%t %G", NULL }, &out), 0);
	cr_assert(strstr(out.buf, "gpu:4"), "sinfo: %s", out.buf);
	/* idle, mix, alloc or comp(leting) after an earlier test: usable */
	cr_assert(!strncmp(out.buf, "idle", 4) || !strncmp(out.buf, "mix", 3) ||
			  !strncmp(out.buf, "alloc", 5) || !strncmp(out.buf, "comp", 4),
		  "node not usable: %s", out.buf);
	strbuf_release(&out);
}

/* Value of KEY=... in a task's env file, or NULL. Caller frees. */
static char *env_value(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == '=')
			return xstrndup(l + kl + 1, strcspn(l + kl + 1, "\n"));
	return NULL;
}

/* Whether the 4-GPU KFD fixture has a GPU node with this render minor. */
static bool kfd_fixture_has_minor(int minor)
{
	char *nodes = xasprintf("%s/tests/fixtures/sysfs/mi300x-4/class/kfd/kfd/topology/nodes",
				test_source_root());
	char want[64];
	DIR *d = opendir(nodes);
	struct dirent *e;
	bool found = false;

	cr_assert_not_null(d, "%s", nodes);
	snprintf(want, sizeof(want), "drm_render_minor %d\n", minor);
	while (!found && (e = readdir(d))) {
		char *props = xasprintf("%s/%s/properties", nodes, e->d_name);
		char buf[2048] = "";
		FILE *f = fopen(props, "r");

		if (f) {
			buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
			fclose(f);
			found = strstr(buf, want) != NULL;
		}
		free(props);
	}
	closedir(d);
	free(nodes);
	return found;
}

/* Each task records what Slurm exported, then holds its GPU until all
 * four tasks have recorded: the four allocations then coexist and Slurm
 * must give each a different GPU. */
Test(slurm_cluster, array_tasks_each_see_one_distinct_gpu)
{
	char *script, *job;
	bool seen[TASKS] = { false };

	slurm_need_cluster();
	script = write_script("task.sh",
			      "f=env.$SLURM_ARRAY_TASK_ID\n"
			      "{ echo SLURM_JOB_GPUS=$SLURM_JOB_GPUS\n"
			      "  echo ROCR_VISIBLE_DEVICES=$ROCR_VISIBLE_DEVICES\n"
			      "  echo GPU_DEVICE_ORDINAL=$GPU_DEVICE_ORDINAL; } >$f.tmp && mv $f.tmp $f\n"
			      "i=0\n"
			      "while [ $(ls | grep -c '^env\\.[0-9]*$') -lt 4 ] && [ $i -lt 600 ]; do\n"
			      "  sleep 0.1; i=$((i + 1))\n"
			      "done\n");
	job = submit((const char *const[]){ "--gres=gpu:1", "--array=0-3", "-o", "/dev/null", NULL },
		     script);
	cr_assert(slurm_wait_state(job, NULL), "array %s did not finish", job);
	for (int t = 0; t < TASKS; t++) {
		char *path = xasprintf("%s/env.%d", dir, t);
		struct strbuf text = STRBUF_INIT;
		struct stat st;
		char *gpus, *rocr, *end;
		long idx;
		int minor;

		cr_assert_eq(stat(path, &st), 0, "task %d wrote nothing", t);
		cr_assert(read_text(path, &text), "%s", path);
		gpus = env_value(text.buf, "SLURM_JOB_GPUS");
		rocr = env_value(text.buf, "ROCR_VISIBLE_DEVICES");
		cr_assert(gpus && *gpus, "task %d: no SLURM_JOB_GPUS:\n%s", t, text.buf);
		cr_assert(rocr && *rocr && !strchr(rocr, ','), "task %d: ROCR_VISIBLE_DEVICES=%s", t,
			  rocr ? rocr : "(unset)");
		idx = strtol(gpus, &end, 10);
		cr_assert(*end == '\0' && idx >= 0 && idx < TASKS, "task %d: SLURM_JOB_GPUS=%s", t,
			  gpus);
		cr_assert(!seen[idx], "GPU %ld given to two tasks", idx);
		seen[idx] = true;
		minor = slurm_render_minor_of_index((unsigned)idx);
		cr_assert(minor >= 0, "gres index %ld has no File= line", idx);
		cr_assert(kfd_fixture_has_minor(minor), "render minor %d not in the KFD fixture",
			  minor);
		free(gpus);
		free(rocr);
		strbuf_release(&text);
		free(path);
	}
	free(job);
	free(script);
}

Test(slurm_cluster, cancelling_one_running_task_leaves_it_cancelled)
{
	char *script, *job, *t0, *t1;
	struct strbuf st = STRBUF_INIT;

	slurm_need_cluster();
	script = write_script("sleep.sh", "sleep 120\n");
	job = submit((const char *const[]){ "--gres=gpu:1", "--array=0-1", "-o", "/dev/null", NULL },
		     script);
	t0 = xasprintf("%s_0", job);
	t1 = xasprintf("%s_1", job);
	cr_assert(slurm_wait_state(t1, "RUNNING"), "task %s never ran", t1);
	cancel(t1);
	cr_assert(slurm_wait_state(t1, "CANCELLED"), "task %s not CANCELLED", t1);
	slurm_state_of(t0, &st);
	cr_assert(!strcmp(st.buf, "RUNNING") || !strcmp(st.buf, "PENDING"),
		  "the other task is %s", st.buf);
	cancel(job);
	strbuf_release(&st);
	free(t0);
	free(t1);
	free(job);
	free(script);
}

/* A task cancelled before it starts never runs; the others do. (Slurm
 * 22.05 then drops its record: `squeue`/`scontrol` no longer know it, so
 * only the missing result tells.) */
Test(slurm_cluster, a_task_cancelled_before_it_runs_never_runs)
{
	char *script, *job, *t2, *path;

	slurm_need_cluster();
	script = write_script("mark.sh", "touch ran.$SLURM_ARRAY_TASK_ID\n");
	job = submit((const char *const[]){ "--hold", "--array=0-3", "-o", "/dev/null", NULL },
		     script);
	t2 = xasprintf("%s_2", job);
	cancel(t2);
	cr_assert_eq(slurm_cmd((const char *const[]){ "scontrol", "release", job, NULL }, NULL), 0);
	cr_assert(slurm_wait_state(job, NULL), "array %s did not finish", job);
	for (int t = 0; t < TASKS; t++) {
		path = xasprintf("%s/ran.%d", dir, t);
		cr_assert_eq(access(path, F_OK) == 0, t != 2, "task %d %s", t,
			     t == 2 ? "ran though cancelled" : "did not run");
		free(path);
	}
	free(t2);
	free(job);
	free(script);
}
