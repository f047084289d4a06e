/* How the Slurm commands (sbatch, squeue, scontrol, sacct) are run: one
 * small interface, so what builds their arguments and reads their answers
 * (orchestrator/cluster/slurm.h) is tested without a cluster, and the real runner
 * is the only place that starts them. */
#ifndef HRR_CLUSTER_SLURM_CMD_H
#define HRR_CLUSTER_SLURM_CMD_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strbuf.h"

struct slurm_runner {
	/* Run argv (argv[0] found on PATH); its stdout into out (when not
	 * NULL), its stderr into errout (when not NULL); *status its exit
	 * code (128+signal). < 0 only when it could not be started. */
	int (*run)(void *ctx, const char *const *argv, struct strbuf *out, struct strbuf *errout,
		   int *status, struct error *err);
	void *ctx;
};

/* The runner that starts the real commands. */
extern const struct slurm_runner slurm_runner_exec;

/* Whether prog is an executable on PATH. */
bool slurm_on_path(const char *prog);

/* Run argv and want exit 0: its stdout in out; otherwise an error quoting
 * the command and the first line of what it said on stderr. */
int slurm_run_ok(const struct slurm_runner *r, const char *const *argv, struct strbuf *out,
		 struct error *err) __attribute__((warn_unused_result));

#endif
