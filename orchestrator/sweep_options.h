/* The options of `sweep` and `history` (docs/sweep.md "Commands"). A sweep
 * takes every run option too: sweep_options_parse keeps its own and hands
 * the rest, in order, to the run option parser, so the two tables cannot
 * drift. Pure: no environment, no files. */
#ifndef HRR_ORCHESTRATOR_SWEEP_OPTIONS_H
#define HRR_ORCHESTRATOR_SWEEP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/sweep_status.h"

#define SWEEP_MAX_GPUS_OPT 64

struct sweep_options {
	struct strvec images, archives, plans;
	char *label;          /* NULL: "default" */
	char *baseline;
	int gpus[SWEEP_MAX_GPUS_OPT];
	size_t n_gpus;        /* 0: every host GPU */
	long jobs;            /* 0: as many as the GPUs allow */
	long retry_failed;
	double gpu_wait;      /* < 0: no bound */
	char *db, *junit, *html, *summary;
	char *workdir;
	char *resume, *status; /* a sweep id or folder */
	bool have_shard;
	unsigned shard_i, shard_n;
	sweep_status_mask fail_on;
	bool json;            /* --format json */
	bool want_help;
	struct strvec run_args; /* what the run option parser gets */
};

void sweep_options_init(struct sweep_options *o);
void sweep_options_release(struct sweep_options *o);
/* argv[0] is "sweep". Sweep-only options are taken; --gpu, -o and the
 * Slurm options (not yet) are usage errors naming what to use instead;
 * everything else goes to run_args. */
int sweep_options_parse(struct sweep_options *o, int argc, char **argv, struct error *err)
	__attribute__((warn_unused_result));
void sweep_options_help(struct strbuf *out);

struct history_options {
	bool prune;
	char *label, *case_name, *db, *workdir;
	long last;            /* default 10 */
	long keep;            /* prune: -1 until given */
	bool json;
	bool want_help;
};

void history_options_init(struct history_options *o);
void history_options_release(struct history_options *o);
/* argv[0] is "history"; "history prune --keep N [--label L]". */
int history_options_parse(struct history_options *o, int argc, char **argv, struct error *err)
	__attribute__((warn_unused_result));
void history_options_help(struct strbuf *out);

#endif
