/* One bisection (docs/bisect.md), from a typed request the command layer
 * builds from its options: the candidates, the cases, what is known of
 * each candidate (from the history, or replayed as a one-image sweep), the
 * search of orchestrator/bisect/plan.h over them, and the answer, written
 * to the bisection's folder and kept in the history. What it has to say
 * while it works goes to the request's sink; it never prints. */
#ifndef HRR_JOBS_BISECT_JOB_H
#define HRR_JOBS_BISECT_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/events.h"
#include "orchestrator/perf/perf_change.h"
#include "orchestrator/replay/image.h"

/* What a probe's sweep made of its options. */
enum bisect_probe_end {
	BISECT_PROBE_RAN = 0,  /* it ran (its results are in the history) */
	BISECT_PROBE_REFUSED,  /* it refused its options: a usage error */
};

struct bisect_request {
	const char *workdir;                 /* as asked (NULL: the default) */
	const char *good, *bad;              /* the ends */
	const char *images_file;             /* --images FILE, else the repository's tags */
	const char *tag_pattern;             /* those tags matching it (NULL: all) */
	/* The cases: pid dirs (archives), or --sweep's plan, picked by --case. */
	const char *const *archives;
	size_t n_archives;
	const char *sweep, *case_name;
	const char *label;                   /* the history's label (NULL: "bisect") */
	const char *db;                      /* the history (NULL: the default path) */
	enum pull_policy pull;
	int verbosity;
	bool keep_images;                    /* else the images pulled for it are removed */
	long long image_budget;              /* --image-budget: each pulled candidate removed as
					      * soon as it is known, not at the end; 0: none */
	/* --metric gpu-time: samples a probe takes and the rule comparing them. */
	bool gpu_time;
	long perf_runs;
	struct perf_rule rule;
	/* The run options' fingerprint (a probe's result is reused by it). */
	const char *run_options_fp;
	/* The GPUs the probes may run on (--gpus, n_gpus 0: every GPU of the
	 * topology under sysfs_root): a result is reused from their product. */
	const char *sysfs_root;
	const int *gpus;
	size_t n_gpus;
	const struct job_events *events;
	/* Replay the image's cases as a one-image sweep of pid_dirs, with every
	 * run option of the command. Called in a child process, whose stdout
	 * and signal dispositions it may change. */
	enum bisect_probe_end (*probe)(void *ctx, const char *image, const char *const *pid_dirs,
				       size_t n);
	void *probe_ctx;
};

/* How a bisection ended. */
enum bisect_end {
	BISECT_END_FOUND = 0,  /* a transition (a first slower image) */
	BISECT_END_NONE,       /* no transition, or a flaky or unclear candidate */
	BISECT_END_INFRA,      /* a candidate without a result, or interrupted */
};

struct bisect_result {
	enum bisect_end end;
	bool interrupted;      /* Ctrl-C stopped it: no answer */
	/* The answer as bisect.md and bisect.json hold it; NULL when interrupted. */
	char *markdown, *json;
};
void bisect_result_release(struct bisect_result *res);

/* Run the bisection rq asks for. < 0 with err filled (ERR_USAGE: the
 * request does not hold together) when it could not start; else res. */
int bisect_run(const struct bisect_request *rq, struct bisect_result *res, struct error *err)
	__attribute__((warn_unused_result));

#endif
