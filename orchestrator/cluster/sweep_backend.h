/* A scheduler backend: where a sweep's cases run when the sweep hands
 * them to a batch system instead of running them on this host's scheduler
 * (orchestrator/sweep/sweep_run.c), and what a task of that system sees. The command
 * layer (orchestrator/cli/cmd_sweep.c) names none: it asks these rows. A new backend is
 * one file defining a struct sweep_backend, its row in sweep_backends[]
 * (orchestrator/cluster/sweep_backend.c) and the option that names it
 * (sweep_options.backend); docs/design.md "A scheduler backend". */
#ifndef HRR_CLUSTER_SWEEP_BACKEND_H
#define HRR_CLUSTER_SWEEP_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/events.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "preflight/topology.h"
#include "orchestrator/sweep/sweep_folder.h"

/* What the command line asks of a backend (sweep_options.backend). */
struct sweep_backend_options {
	const char *name;            /* a row's name ("slurm" with --slurm); NULL: this
				      * host runs the cases */
	struct strvec opts;          /* passed to it verbatim (--slurm-opt) */
	long tasks_per_array;        /* 0: its default (--slurm-tasks) */
	long max_running;            /* 0: no bound (--slurm-max-running) */
};

/* The cases a submission hands over, and how. */
struct sweep_backend_submission {
	const struct sweep_meta *meta;
	const char *folder;          /* absolute, on a path every node shares */
	const char *workdir;         /* absolute */
	const size_t *cases;         /* plan indexes without a result, plan order */
	size_t n_cases;
	const char *bin;             /* this program, as the nodes run it */
	const struct sweep_backend_options *options; /* what the command line asked */
	const struct strvec *avoid_hosts; /* nodes to keep the cases off (their GPUs are
					   * suspect), in the backend's own words; NULL: none */
	bool wait;                   /* until the sweep's end, *code its exit code */
	const struct job_events *events; /* what it says (the ids, the wait); NULL: nothing */
};

struct sweep_backend {
	const char *name;            /* "slurm" */
	const char *flag;            /* the option that chose it, for messages: "--slurm" */
	/* 0 when a submission can be made from here, else err says what to do. */
	int (*can_submit)(struct error *err);
	/* Hand the cases over (and wait, when asked): *code the exit code. */
	int (*submit)(const struct sweep_backend_submission *s, int *code, struct error *err);
	/* Whether this process is one of its tasks (given --shard). */
	bool (*task_here)(void);
	/* A task's GPU pool: the host ordinals it was given (said to ev, a stage). */
	int (*task_pool)(const struct gpu_topology *t, int *ordinals, size_t max, size_t *n,
			 const struct job_events *ev, struct error *err);
	/* A task's own name, "<job>_<task>" (caller frees): its results and
	 * images files in the sweep folder carry it, so that tasks never
	 * append to one file over the network; NULL: not one of its tasks. */
	char *(*task_tag)(void);
	/* Whether a task may still start a case that may take timeout_s (> 0). */
	/* No: a warning to ev says why. */
	bool (*task_may_start)(long timeout_s, const char *case_name, const struct job_events *ev);
	/* What it says of a sweep it ran (--status), appended to out. */
	void (*status)(const char *folder, struct strbuf *out);
	/* Its record of a sweep, which the merge keeps in the history; NULL: none. */
	char *(*record)(const char *folder);
};

/* The row called name, or NULL. */
const struct sweep_backend *sweep_backend_named(const char *name);
/* The backend whose task this process is, or NULL (this host's own sweep). */
const struct sweep_backend *sweep_backend_of_task(void);
/* Every backend's status of folder, appended to out. */
void sweep_backends_status(const char *folder, struct strbuf *out);
/* With --shard: the first backend's task name, or NULL. */
char *sweep_backends_task_tag(void);
/* The first backend's record of folder as the history keeps it beside the
 * sweep's options, under "backend": {"name": "slurm", "record": {...}}
 * (JSON text, caller frees); NULL: none, or one that is not JSON. */
char *sweep_backends_record(const char *folder);

#endif
