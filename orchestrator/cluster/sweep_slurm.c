#include "orchestrator/cluster/sweep_slurm.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/cluster/slurm.h"

#define WAIT_POLL_US 2000000

char *sweep_slurm_record(const char *folder)
{
	cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_SLURM_FILE);
	struct strbuf text = STRBUF_INIT;

	if (fs_read_small_file(path, 16u << 20, &text, ERROR_DISCARD) < 0) {
		strbuf_release(&text);
		return NULL;
	}
	return strbuf_detach(&text, NULL);
}

char *sweep_slurm_exit_path(const char *folder, const char *job)
{
	return xasprintf("%s/%s/merge-%s.exit", folder, SWEEP_SLURM_DIR, job);
}

static int write_file(const char *path, const char *text, mode_t mode, struct error *err)
{
	return fs_write_atomic(path, text, strlen(text), mode, err);
}

/* "#!/bin/sh", a comment, then `'<bin>' sweep <verb> '<folder>' --workdir '<dir>'`. */
static void script_start(struct strbuf *b, const struct sweep_slurm_submit *s, const char *what,
			 const char *verb, bool exec)
{
	strbuf_addf(b, "#!/bin/sh\n# sweep %s: %s (docs/slurm.md)\n%s", s->meta->id, what,
		    exec ? "exec " : "");
	slurm_shell_quote(b, s->bin);
	strbuf_addf(b, " sweep %s ", verb);
	slurm_shell_quote(b, s->folder);
	strbuf_addstr(b, " --workdir ");
	slurm_shell_quote(b, s->workdir);
}

/* The batch script of one array: task i finishes shard i/N of its cases;
 * exec, so Slurm's SIGTERM reaches the sweep itself. */
static char *task_script(const struct sweep_slurm_submit *s, unsigned n_tasks,
			 const char *cases_file)
{
	struct strbuf b = STRBUF_INIT;

	script_start(&b, s, "one task of a job array", "--resume", true);
	strbuf_addf(&b, " --shard \"$SLURM_ARRAY_TASK_ID/%u\" --shard-cases ", n_tasks);
	slurm_shell_quote(&b, cases_file);
	strbuf_addch(&b, '\n');
	return strbuf_detach(&b, NULL);
}

/* The merge: the only writer of the history; its exit code kept in a
 * file, since without accounting Slurm forgets it. */
static char *merge_script(const struct sweep_slurm_submit *s)
{
	struct strbuf b = STRBUF_INIT;

	script_start(&b, s, "the merge", "--merge", false);
	/* Into a new file (mktemp: O_EXCL), then renamed over the name: a
	 * symlink planted there is replaced, never written through. */
	strbuf_addstr(&b, "\nrc=$?\nd=");
	slurm_shell_quote(&b, s->folder);
	strbuf_addf(&b, "/%s\nt=$(mktemp \"$d/.merge-exit.XXXXXX\") && echo $rc >\"$t\" &&"
		    " mv -f \"$t\" \"$d/merge-$SLURM_JOB_ID.exit\"\nexit $rc\n", SWEEP_SLURM_DIR);
	return strbuf_detach(&b, NULL);
}

static int sbatch(const struct slurm_runner *run, const struct strvec *argv, char **id,
		  struct error *err)
{
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	if (slurm_run_ok(run, (const char *const *)argv->v, &out, err) < 0)
		return -1;
	return slurm_parsable_job_id(out.buf, id, err);
}

/* sbatch's --output for a file of the folder's slurm/ directory: the
 * folder's own '%' escaped, the pattern's kept. */
static char *output_pattern(const char *folder, const char *pattern)
{
	struct strbuf b = STRBUF_INIT;

	slurm_pattern_escape(&b, folder);
	strbuf_addf(&b, "/%s/%s", SWEEP_SLURM_DIR, pattern);
	return strbuf_detach(&b, NULL);
}

/* One array over the cases of one GPU count. */
static int submit_group(const struct slurm_runner *run, const struct sweep_slurm_submit *s,
			int round, int gpus, cJSON *arrays, char **job, struct error *err)
{
	cleanup_free char *cases_file = xasprintf("%s/%s/r%d-gpu%d.cases", s->folder,
						  SWEEP_SLURM_DIR, round, gpus);
	cleanup_free char *script_file = xasprintf("%s/%s/r%d-gpu%d.sh", s->folder,
						   SWEEP_SLURM_DIR, round, gpus);
	cleanup_free char *output = output_pattern(s->folder, "%A_%a.out");
	cleanup_free char *name = xasprintf("hrr-%s", s->meta->id);
	cleanup_free char *script = NULL;
	cleanup_strbuf struct strbuf list = STRBUF_INIT;
	cleanup_strvec struct strvec argv = STRVEC_INIT;
	cJSON *a = cJSON_CreateObject(), *idx = cJSON_AddArrayToObject(a, "cases");
	size_t n = 0;
	unsigned tasks;

	cJSON_AddItemToArray(arrays, a);
	for (size_t i = 0; i < s->n_cases; i++)
		if (s->meta->plan.cases[s->cases[i]].gpu_count == gpus) {
			strbuf_addf(&list, "%zu\n", s->cases[i]);
			cJSON_AddItemToArray(idx, cJSON_CreateNumber((double)s->cases[i]));
			n++;
		}
	tasks = slurm_tasks_for(n, s->tasks_per_array);
	script = task_script(s, tasks, cases_file);
	if (write_file(cases_file, list.buf, 0644, err) < 0 ||
	    write_file(script_file, script, 0755, err) < 0)
		return -1;
	struct slurm_array_req q = {
		.job_name = name, .script = script_file, .output = output, .n_tasks = tasks,
		.max_running = s->max_running, .gpus = gpus, .user_opts = s->user_opts,
	};

	slurm_sbatch_array_argv(&q, &argv);
	if (sbatch(run, &argv, job, err) < 0)
		return -1;
	cJSON_AddStringToObject(a, "job", *job);
	cJSON_AddNumberToObject(a, "gpus", gpus);
	cJSON_AddNumberToObject(a, "tasks", tasks);
	events_output(s->events, "submitted job array %s: %zu case(s) needing %d GPU(s) as %u task(s)",
		      *job, n, gpus, tasks);
	return 0;
}

static cJSON *read_record(const char *folder, const char *id)
{
	cleanup_free char *text = sweep_slurm_record(folder);
	cJSON *j = text ? cJSON_Parse(text) : NULL;

	if (!j) {
		j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "sweep", id);
		cJSON_AddArrayToObject(j, "rounds");
	}
	return j;
}

static int submit_merge(const struct slurm_runner *run, const struct sweep_slurm_submit *s,
			int round, const struct strvec *arrays, char **merge_job, struct error *err)
{
	cleanup_free char *script_file = xasprintf("%s/%s/r%d-merge.sh", s->folder,
						   SWEEP_SLURM_DIR, round);
	cleanup_free char *output = output_pattern(s->folder, "merge-%j.out");
	cleanup_free char *name = xasprintf("hrr-%s-merge", s->meta->id);
	cleanup_free char *script = merge_script(s);
	cleanup_strvec struct strvec argv = STRVEC_INIT;

	if (write_file(script_file, script, 0755, err) < 0)
		return -1;
	slurm_sbatch_merge_argv(name, script_file, output, (const char *const *)arrays->v,
				arrays->n, s->user_opts, &argv);
	if (sbatch(run, &argv, merge_job, err) < 0)
		return -1;
	events_output(s->events, "submitted merge job %s (after %s)", *merge_job,
		      arrays->n ? "the arrays" : "nothing: no case left to run");
	return 0;
}

int sweep_slurm_submit(const struct slurm_runner *run, const struct sweep_slurm_submit *s,
		       char **merge_job, struct error *err)
{
	cleanup_free char *dir = xasprintf("%s/%s", s->folder, SWEEP_SLURM_DIR);
	cleanup_free char *path = xasprintf("%s/%s", s->folder, SWEEP_SLURM_FILE);
	cleanup_free char *text = NULL;
	cleanup_cjson cJSON *rec = read_record(s->folder, s->meta->id);
	cleanup_strvec struct strvec jobs = STRVEC_INIT;
	cJSON *rounds = cJSON_GetObjectItem(rec, "rounds"), *r = cJSON_CreateObject();
	int round = cJSON_GetArraySize(rounds) + 1, rc = 0;
	cJSON *arrays;
	bool seen[GPU_MAX + 1] = { false };

	if (fs_mkdir_p(dir, 0755, err) < 0)
		return -1;
	cJSON_AddItemToArray(rounds, r);
	cJSON_AddNumberToObject(r, "round", round);
	cJSON_AddNumberToObject(r, "submitted", (double)time(NULL));
	arrays = cJSON_AddArrayToObject(r, "arrays");
	/* One array per GPU count, in the order the counts first appear. */
	for (size_t i = 0; i < s->n_cases && rc == 0; i++) {
		int g = s->meta->plan.cases[s->cases[i]].gpu_count;
		char *job = NULL;

		if (g > GPU_MAX || seen[g])
			continue;
		seen[g] = true;
		rc = submit_group(run, s, round, g, arrays, &job, err);
		if (job)
			strvec_push_nodup(&jobs, job);
	}
	if (rc == 0)
		rc = submit_merge(run, s, round, &jobs, merge_job, err);
	if (rc == 0)
		cJSON_AddStringToObject(r, "merge", *merge_job);
	/* Recorded even after a failed sbatch: what was submitted is known. */
	text = cJSON_Print(rec);
	if (write_file(path, text, 0644, rc < 0 ? ERROR_DISCARD : err) < 0 && rc == 0)
		return -1;
	if (rc == 0)
		events_output(s->events, "sweep %s: folder %s; see `sweep --status %s`", s->meta->id,
			      s->folder, s->folder);
	return rc;
}

static bool job_listed(const struct slurm_runner *run, const char *job)
{
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	int status;
	struct error err;

	if (run->run(run->ctx, (const char *const[]){ "squeue", "-h", "-j", job, "-o", "%T", NULL },
		     &out, NULL, &status, &err) < 0)
		return false;
	/* An id Slurm forgot is an error (exit 1): not listed either. */
	return status == 0 && out.len > 0;
}

int sweep_slurm_wait(const struct slurm_runner *run, const char *folder, const char *merge_job,
		     int *code, struct error *err)
{
	cleanup_free char *path = sweep_slurm_exit_path(folder, merge_job);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	(void)err;
	while (job_listed(run, merge_job))
		usleep(WAIT_POLL_US);
	if (fs_read_small_file(path, 64, &text, ERROR_DISCARD) < 0) {
		*code = 5;
		return 0;
	}
	*code = atoi(text.buf);
	return 0;
}

/* squeue over every job id of slurm.json, then sacct when it answers. */
void sweep_slurm_status(const struct slurm_runner *run, const char *folder, struct strbuf *out)
{
	cleanup_free char *text = sweep_slurm_record(folder);
	cleanup_cjson cJSON *rec = text ? cJSON_Parse(text) : NULL;
	cleanup_strbuf struct strbuf ids = STRBUF_INIT, q = STRBUF_INIT;
	const cJSON *r, *a;
	struct error err;

	if (!rec)
		return;
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(rec, "rounds")) {
		const char *merge = cJSON_GetStringValue(cJSON_GetObjectItem(r, "merge"));

		strbuf_addf(out, "round %d:", (int)cJSON_GetNumberValue(cJSON_GetObjectItem(r, "round")));
		cJSON_ArrayForEach(a, cJSON_GetObjectItem(r, "arrays")) {
			const char *job = cJSON_GetStringValue(cJSON_GetObjectItem(a, "job"));

			strbuf_addf(out, " array %s (%d task(s), %d GPU(s) each)", job ? job : "?",
				    (int)cJSON_GetNumberValue(cJSON_GetObjectItem(a, "tasks")),
				    (int)cJSON_GetNumberValue(cJSON_GetObjectItem(a, "gpus")));
			if (job)
				strbuf_addf(&ids, "%s%s", ids.len ? "," : "", job);
		}
		if (merge) {
			cleanup_free char *xp = sweep_slurm_exit_path(folder, merge);
			cleanup_strbuf struct strbuf x = STRBUF_INIT;

			strbuf_addf(out, "; merge %s", merge);
			if (fs_read_small_file(xp, 64, &x, ERROR_DISCARD) == 0) {
				strbuf_trim_trailing_newline(&x);
				strbuf_addf(out, " ended with exit %s", x.buf);
			}
			strbuf_addf(&ids, "%s%s", ids.len ? "," : "", merge);
		}
		strbuf_addch(out, '\n');
	}
	if (!ids.len)
		return;
	if (slurm_run_ok(run, (const char *const[]){ "squeue", "-h", "-t", "all", "-j", ids.buf, "-o",
						     "%i %T %M %L %R", NULL },
			 &q, &err) == 0 && q.len)
		strbuf_addf(out, "squeue (job state elapsed left reason):\n%s", q.buf);
	else
		strbuf_addstr(out, "squeue lists none of these jobs any more\n");
	if (slurm_on_path("sacct") &&
	    slurm_run_ok(run, (const char *const[]){ "sacct", "-n", "-X", "-j", ids.buf, "-o",
						     "JobID,State,ExitCode", NULL },
			 &q, &err) == 0 && q.len)
		strbuf_addf(out, "sacct:\n%s", q.buf);
}
