/* A sweep as a typed request (docs/sweep.md, docs/slurm.md): what the
 * command layer builds from its options for orchestrator/jobs/sweep_job.h,
 * which plans or resumes it, runs its shard or submits it to a cluster
 * backend, merges and finishes it. Nothing here is an option: the request
 * says what to do, the settings what every case shares, and the two hooks
 * are the command layer's parts that need its own options (the recorded
 * run options made this invocation's, the notifications). */
#ifndef HRR_JOBS_SWEEP_REQUEST_H
#define HRR_JOBS_SWEEP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"
#include "common/events.h"
#include "orchestrator/cluster/sweep_backend.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/perf/perf_change.h"
#include "orchestrator/replay/image_setup.h"
#include "orchestrator/replay/kernel_replace.h"
#include "orchestrator/replay/overlay.h"
#include "orchestrator/replay/replay_unit.h"
#include "orchestrator/report/report.h"
#include "orchestrator/sweep/sweep_status.h"
#include "preflight/topology.h"

/* What every case of the sweep shares, from its run options once the
 * recorded ones were made this invocation's (sweep_request_hooks.adopt).
 * The pointers are the command layer's and outlive the job. */
struct sweep_settings {
	const char *device_root, *sysfs_root;
	enum device_mode devices;
	long timeout_s;                  /* 0: none */
	bool mount_clr;
	struct overlay_sources overlay;  /* with mount_clr */
	struct image_setup image;        /* each image's set-up */
	struct replay_desc policy;       /* what every case starts from (sweep_worker.h) */
	/* The run options' --replace-kernel, pointed at the sweep folder's
	 * copies before any case runs (policy points at it too). */
	struct kernel_replacements *kernels;
};

struct sweep_request_hooks {
	void *ctx;
	/* The run options recorded for the sweep (JSON text) over this
	 * invocation's, and what every case then shares into *s. */
	int (*adopt)(void *ctx, const char *run_options, struct sweep_settings *s,
		     struct error *err);
	/* Once the reports are written: the alarms and recoveries of r
	 * (recorded: the targets the sweep recorded, JSON or NULL; known:
	 * the rules, NULL none). NULL: none. */
	void (*notify)(void *ctx, const char *recorded, const char *folder,
		       const struct known_issues *known, const struct report *r);
};

/* A new sweep's own values (plan.json keeps them for every task, resume
 * and merge). */
struct sweep_request_plan {
	const char *const *archives, *const *images, *const *plans; /* in the order given */
	size_t n_archives, n_images, n_plans;
	const char *label;          /* NULL: "default" */
	const char *baseline, *perf_baseline;
	int gpus[GPU_MAX];
	size_t n_gpus;              /* 0: every host GPU */
	long jobs, retry_failed, perf_window;
	long long image_budget;     /* --image-budget bytes; 0: none */
	long perf_adaptive;         /* --perf-adaptive MAX, 0 off */
	double gpu_wait;
	sweep_status_mask fail_on;
	struct perf_rule perf_rule;
	struct perf_family perf_family;
	const char *run_options;    /* the run options, JSON text (with -e values) */
	const char *notify;         /* --notify's targets recorded (JSON text), or NULL */
	/* --replace-kernel's code objects as given, with their host files:
	 * kept into the new sweep's folder. */
	const struct kernel_replacements *kernel_sources;
};

struct sweep_request {
	const char *resume;         /* a sweep id or folder to go on with; NULL: a new sweep */
	const char *workdir;
	const char *db;             /* NULL: the sweep's, else the default */
	const char *known_issues;   /* NULL: the sweep's, else the file beside the database */
	struct sweep_request_plan plan;
	/* A shard of the plan (a cluster task): I of N, of the listed plan
	 * indexes when shard_cases names their file. */
	bool have_shard;
	unsigned shard_i, shard_n;
	const char *shard_cases;
	const struct sweep_backend_options *backend; /* its name NULL: the cases run here */
	bool wait;                  /* a submission waits for the sweep's end */
	bool quarantine_gpus;
	int perf_runs, perf_warmup;
	int verbosity;
	/* The end: the extra copies (or NULL), and what is shown: summary.json
	 * with json, else summary.md, written to shown_to. */
	const char *junit, *html, *summary;
	bool json;
	FILE *shown_to;
	const struct job_events *events;
	struct sweep_request_hooks hooks;
};

#endif
