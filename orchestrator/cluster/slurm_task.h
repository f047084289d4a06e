/* Inside one task of a sweep's job array (docs/slurm.md): which host GPUs
 * Slurm allocated to it, and how long the job has left. */
#ifndef HRR_CLUSTER_SLURM_TASK_H
#define HRR_CLUSTER_SLURM_TASK_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/cluster/slurm_cmd.h"
#include "preflight/topology.h"

/* Whether this process runs as a task of a Slurm job. */
bool slurm_task_here(void);

/* Pure: Slurm's node-global GPU indexes -> host GPU ordinals. files are
 * the node's gres.conf GPU files in index order and file_minors their
 * render minors (-1: not a render node). Every index must map to a GPU
 * of topo, else an error naming it. */
int slurm_task_map(const int *indexes, size_t n, const struct strvec *files,
		   const int *file_minors, const struct gpu_topology *topo, int *ordinals,
		   struct error *err) __attribute__((warn_unused_result));

/* The host GPU ordinals this task may use: SLURM_STEP_GPUS, else
 * SLURM_JOB_GPUS, through the gres.conf beside the slurm.conf in force
 * (SLURM_CONF, else what `scontrol show config` names, else
 * /etc/slurm/slurm.conf) and the render nodes' minors. how gets one line
 * saying so ("SLURM_JOB_GPUS=1 -> renderD129 (GPU 1)"). */
int slurm_task_gpus(const struct slurm_runner *run, const struct gpu_topology *topo,
		    int *ordinals, size_t max, size_t *n, struct strbuf *how, struct error *err)
	__attribute__((warn_unused_result));

/* Seconds the task has left (squeue %L of <array>_<task>):
 * SLURM_TIME_UNLIMITED without a limit, < -1 when Slurm did not say. */
long slurm_task_time_left(const struct slurm_runner *run);

#endif
