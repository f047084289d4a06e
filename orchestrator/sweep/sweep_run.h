/* The parent of a sweep on one host: schedules the cases on disjoint GPUs,
 * image after image (each pulled when its first case is about to start),
 * takes their GPU leases, forks one worker per running case, records each
 * result (one fsynced line in the results file), retries non-PASS cases
 * (--retry-failed), reports progress, and stops every worker on Ctrl-C or
 * SIGTERM. */
#ifndef HRR_SWEEP_SWEEP_RUN_H
#define HRR_SWEEP_SWEEP_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/events.h"
#include "preflight/topology.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "orchestrator/sweep/sweep_quarantine.h"
#include "orchestrator/sweep/sweep_image.h"
#include "orchestrator/sweep/sweep_worker.h"

struct sweep_run_input {
	const struct sweep_meta *meta;
	const char *folder;
	const char *results_path;
	const char *images_path;            /* the run's images' fates (sweep_image_fate.h) */
	const struct replay_desc *policy;   /* every case's (sweep_worker.h) */
	const char *sysfs_root, *device_root;
	enum device_mode devices;           /* --devices */
	bool quarantine_gpus;               /* --quarantine-gpus: a suspect GPU leaves the pool */
	const struct replay_host *host;
	struct sweep_image_env *imgs;       /* parallel to meta->images: each prepared
					     * when its first case is about to start */
	const struct image_setup *image;    /* how (sweep_image_prepare) */
	const struct sweep_shared *sh;
	const size_t *cases;                /* plan indexes to run, plan order */
	size_t n_cases;
	const int *next_attempt;            /* per plan case */
	const enum sweep_base *base;        /* per plan case; NULL: no baseline known */
	int perf_runs, perf_warmup;         /* --perf N, --perf-warmup K; 0: none */
	/* Per plan case, its GPU-time baseline for meta's --perf-adaptive
	 * (docs/perf.md "More samples when unclear"); NULL: none known. */
	const struct perf_adaptive_base *perf_base;
	/* Asked before each case starts (NULL: always yes). No: nothing more
	 * starts (a cluster task whose time runs out); running cases finish. */
	bool (*may_start)(void *ctx, const struct sweep_case *c);
	void *may_start_ctx;
	const char *resume_hint;            /* more words for the resume command, or NULL */
	/* What the sweep says: its progress, waits and warnings; NULL: nothing. */
	const struct job_events *events;
};

struct sweep_run_outcome {
	int interrupted;        /* the signal that stopped the sweep, 0 none */
	size_t recorded;        /* results written */
	size_t not_recorded;    /* results whose line could not be written (the next
				 * --resume runs them again); the first one's error: */
	struct error record_error;
	size_t gave_up;         /* cases whose GPUs stayed busy past --gpu-wait */
	bool out_of_time;       /* may_start said no */
	bool write_failed;      /* results.jsonl could not be appended to: stopped */
	size_t engine_losses;   /* times the engine stopped answering mid-sweep */
	int quarantined[GPU_MAX];
	size_t n_quarantined;
	struct sweep_gpu_note gpu_notes[GPU_MAX]; /* each quarantined or suspect GPU, why */
	size_t n_gpu_notes;
};

int sweep_run(const struct sweep_run_input *in, struct sweep_run_outcome *out,
	      struct error *err) __attribute__((warn_unused_result));

#endif
