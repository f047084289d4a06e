/* The options `sweep` adds to the option table (its slice,
 * sweep_option_slice in orchestrator/cli/options_table.h), and --gpu-wait, which `run`
 * takes too (docs/sweep.md "Commands", "GPU leases"). A sweep also takes
 * every run option but --gpu and -o; its --image and --archive repeat.
 * struct sweep_options also holds what the history's and the bisection's
 * slices apply (orchestrator/cli/history_options.h, orchestrator/cli/bisect_options.h). */
#ifndef HRR_CLI_SWEEP_OPTIONS_H
#define HRR_CLI_SWEEP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strvec.h"
#include "orchestrator/cli/options_table.h"
#include "preflight/topology.h"
#include "orchestrator/sweep/sweep_status.h"
#include "orchestrator/perf/perf_change.h"
#include "orchestrator/cluster/sweep_backend.h"

struct sweep_options {
	struct strvec images, archives, plans; /* in the order given */
	char *label;          /* NULL: "default" */
	char *host;           /* history, its site and prune: one host's sweeps (NULL: all) */
	char *baseline;
	int gpus[GPU_MAX];
	size_t n_gpus;        /* 0: every host GPU */
	long jobs;            /* 0: as many as the GPUs allow */
	long long image_budget; /* --image-budget bytes; 0: none */
	long retry_failed;
	bool quarantine_gpus; /* a suspect GPU leaves the sweep's pool */
	double gpu_wait;      /* < 0: no bound (run and sweep) */
	char *db, *junit, *html, *summary;
	char *known_issues; /* --known-issues FILE; NULL: known-issues.yaml beside the database */
	char *resume, *status; /* a sweep id or folder */
	bool have_shard;
	unsigned shard_i, shard_n;
	char *shard_cases;    /* --shard over these plan indexes only */
	sweep_status_mask fail_on;
	struct strvec notify; /* --notify URLs as written ("env:NAME" too), in order */
	bool notify_slack;    /* --notify-format slack */
	/* the scheduler backend submitted to (orchestrator/cluster/sweep_backend.h;
	 * Slurm: docs/slurm.md) */
	struct sweep_backend_options backend;
	bool wait;
	char *merge;          /* a sweep id or folder */
	/* history */
	const char *history_action; /* "prune" (commands.h), NULL: the trend */
	char *site_dir;       /* `history site DIR` */
	char *copy_from, *copy_to; /* `history copy --from SRC --to DST` */
	char *case_name;
	long last;            /* default 10 */
	long keep;            /* prune: -1 until given */
	bool dry_run;         /* history remark --dry-run */
	bool perf_changes;    /* history perf --changes */
	char *accept, *night; /* history perf --accept CASE --night SWEEP */
	/* bisect (docs/bisect.md) */
	char *good, *bad, *images_file, *tag_pattern, *sweep;
	bool keep_images;
	bool metric_gpu_time;   /* --metric gpu-time (else verdict) */
	/* GPU time (docs/perf.md): orchestrator/cli/perf_options.c */
	long perf_runs;       /* --perf N: 0 off, else 2..PERF_RUNS_MAX */
	long perf_warmup;
	char *perf_baseline;  /* --perf-baseline IMAGE */
	long perf_window;     /* default 1 */
	long perf_adaptive;   /* --perf-adaptive MAX: 0 off, else above --perf N */
	struct perf_rule perf; /* --perf-threshold, --perf-alpha, --perf-max-cv */
	struct perf_family perf_family; /* --perf-fdr, --perf-noise-nights */
};

void sweep_options_init(struct sweep_options *s);
/* The perf options' defaults (orchestrator/cli/perf_options.c). */
void perf_options_init(struct sweep_options *s);
/* Their checks that need other options. */
int perf_options_validate(const struct sweep_options *s, struct error *err)
	__attribute__((warn_unused_result));
void sweep_options_release(struct sweep_options *s);
/* The checks that need every option of a sweep. */
int sweep_options_validate(const struct sweep_options *s, struct error *err)
	__attribute__((warn_unused_result));

#endif
