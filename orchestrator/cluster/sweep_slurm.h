/* A sweep on a Slurm cluster (docs/sweep.md "Clusters", docs/slurm.md):
 * one job array per GPU count over the cases still without a result, one
 * merge job after all of them, their ids in <folder>/slurm.json; waiting
 * for the merge (--wait) and what Slurm says of a sweep (--status). */
#ifndef HRR_CLUSTER_SWEEP_SLURM_H
#define HRR_CLUSTER_SWEEP_SLURM_H

#include <stddef.h>

#include "common/events.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/cluster/slurm_cmd.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "common/strvec.h"

#define SWEEP_SLURM_FILE "slurm.json"
#define SWEEP_SLURM_DIR "slurm"

struct sweep_slurm_submit {
	const struct sweep_meta *meta;
	const char *folder;          /* absolute, on a path every node shares */
	const char *workdir;         /* absolute */
	long tasks_per_array;         /* --slurm-tasks; 0: the default */
	long max_running;             /* --slurm-max-running; 0: no bound */
	const struct strvec *user_opts; /* --slurm-opt, verbatim */
	const size_t *cases;         /* plan indexes without a result, plan order */
	size_t n_cases;
	const char *bin;             /* this program, as the nodes run it */
	const struct job_events *events; /* the ids submitted, its output; NULL: unsaid */
};

/* Submit the arrays and the merge job, record them in slurm.json (one
 * more round), say the ids (the events' output). *merge_job: the merge's id. */
int sweep_slurm_submit(const struct slurm_runner *run, const struct sweep_slurm_submit *s,
		       char **merge_job, struct error *err) __attribute__((warn_unused_result));

/* Until Slurm no longer lists the merge job; *code its exit code (from
 * the file it leaves in the sweep folder; 5 when it left none). */
int sweep_slurm_wait(const struct slurm_runner *run, const char *folder, const char *merge_job,
		     int *code, struct error *err) __attribute__((warn_unused_result));

/* What Slurm says of every job in slurm.json (squeue, scontrol; sacct when
 * the site has accounting), appended to out. Nothing when the sweep was
 * not submitted to Slurm. */
void sweep_slurm_status(const struct slurm_runner *run, const char *folder, struct strbuf *out);

/* slurm.json's text (NULL: none), what the merge records in the history. */
char *sweep_slurm_record(const char *folder);

/* The merge job's exit file, written by its batch script. */
char *sweep_slurm_exit_path(const char *folder, const char *job);

#endif
