/* The pure parts of running a sweep on Slurm (docs/slurm.md,
 * docs/sweep.md "Clusters"): what sbatch is given, what a task's
 * environment and the site's gres.conf say about its GPUs, and how squeue
 * prints the time left. No process is started here: the commands run
 * through orchestrator/cluster/slurm_cmd.h, so all of this is tested alone. */
#ifndef HRR_CLUSTER_SLURM_H
#define HRR_CLUSTER_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"

#define SLURM_MAX_TASKS_DEFAULT 64
#define SLURM_TIME_UNLIMITED (-1L)

/* "0-2,5" (what SLURM_JOB_GPUS / SLURM_STEP_GPUS and scontrol's IDX: hold)
 * into out, in the order written. */
int slurm_index_list_parse(const char *s, int *out, size_t max, size_t *n, struct error *err)
	__attribute__((warn_unused_result));

/* The device files of the GPUs of node `node` in a gres.conf, in the
 * file's order, which is the order Slurm's GPU indexes count: the File=
 * of every line with Name=gpu whose NodeName is absent or names node
 * (a list "a,b" or a bracket range "n[01-04]" included). A File= with one
 * bracket range (renderD[128-131]) counts as one GPU per number. */
int slurm_gres_gpu_files(const char *text, const char *node, struct strvec *files,
			 struct error *err) __attribute__((warn_unused_result));

/* The gres.conf a node uses: beside the slurm.conf in force
 * (slurm_conf: $SLURM_CONF or NULL for /etc/slurm/slurm.conf). Caller
 * frees. */
char *slurm_gres_conf_path(const char *slurm_conf);

/* squeue's %L: "4:58", "1:02:03", "1-02:03:04", "UNLIMITED" (->
 * SLURM_TIME_UNLIMITED). Seconds, or < 0 with *ok false when unreadable
 * ("INVALID", "NOT_SET", empty). */
long slurm_time_left_parse(const char *s, bool *ok);

/* --slurm-tasks given (> 0) or the default: min(cases, 64); never more
 * tasks than cases. */
unsigned slurm_tasks_for(size_t n_cases, long tasks_opt);

struct slurm_array_req {
	const char *job_name;
	const char *script;        /* the batch script */
	const char *output;        /* -o pattern */
	unsigned n_tasks;          /* --array=0-<n_tasks-1> */
	long max_running;          /* %M when > 0 */
	int gpus;                  /* --gres=gpu:<gpus> */
	const struct strvec *user_opts; /* --slurm-opt, verbatim, after ours */
};
/* sbatch's argv for one job array (argv[0] "sbatch"). */
void slurm_sbatch_array_argv(const struct slurm_array_req *q, struct strvec *argv);
/* sbatch's argv for the merge job: afterany on every array. */
void slurm_sbatch_merge_argv(const char *job_name, const char *script, const char *output,
			     const char *const *after, size_t n_after,
			     const struct strvec *user_opts, struct strvec *argv);
/* sbatch --parsable's answer ("123" or "123;cluster") -> "123". */
int slurm_parsable_job_id(const char *out, char **id, struct error *err)
	__attribute__((warn_unused_result));

/* A directory for sbatch's --output filename pattern: every '%' doubled
 * ("%%" is a literal '%'), so a workdir like /data/100%/ is not expanded. */
void slurm_pattern_escape(struct strbuf *out, const char *text);
/* text, quoted for a POSIX shell ('...'). */
void slurm_shell_quote(struct strbuf *out, const char *text);

#endif
