/* A sweep's folder, <workdir>/sweeps/<id>/ (docs/sweep.md "The sweep folder"): plan.json (the expanded cases in their fixed order, the
 * images pinned to IDs, the options), the run folders, the results files
 * and the reports. Everything a resume, a shard or the merge needs is
 * read back from here. */
#ifndef HRR_SWEEP_SWEEP_FOLDER_H
#define HRR_SWEEP_SWEEP_FOLDER_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "common/error.h"
#include "common/strvec.h"
#include "preflight/topology.h"
#include "orchestrator/perf/perf_change.h"
#include "orchestrator/sweep/sweep_plan.h"
#include "orchestrator/sweep/case_result.h"
#include "orchestrator/sweep/sweep_status.h"

#define SWEEP_PLAN_FILE "plan.json"
/* The plan's cases, one a line (plan.json says how many); a sweep from
 * before it has them in plan.json's "cases" array. */
#define SWEEP_CASES_FILE "plan-cases.jsonl"
#define SWEEP_RESULTS_FILE "results.jsonl"
/* The caller's own 0600 record of what plan.json leaves out: the run
 * options with their `-e` values, the cases' env values and the
 * `--notify` targets. */
#define SWEEP_PRIVATE_FILE "run-options.json"

/* An image's pin, resolved (not pulled) as the sweep starts: its ID when
 * the engine held it, else the digest the registry named for its tag.
 * Every case, --resume, each cluster task and the merge replay the pin,
 * pulled when the image's first case is about to start. */
struct sweep_image {
	char *ref;    /* as given */
	char *id;     /* pinned sha256:..., NULL when not on the engine at the start */
	char *digest; /* "repo@sha256:..." the registry named, NULL when pinned by ID */
	char *error;  /* why neither (every case of it is then `error`) */
	long long manifest_size; /* the registry's compressed layers, -1 unknown */
};

struct sweep_meta {
	char *id, *label, *host, *tool_version, *baseline, *db;
	long long started;
	/* The same instant in microseconds: the order of a label's sweeps in
	 * the history (two can start within a second). 0 in a plan written
	 * before it was kept. */
	long long started_us;
	struct sweep_image *images;
	size_t n_images;
	/* --image-budget in bytes (0: none), kept for --resume and Slurm tasks
	 * (orchestrator/sweep/sweep_budget.h). */
	long long image_budget;
	char *run_options;        /* JSON object: the run options every case gets, with values
				   * (plan.json keeps a copy without; sweep_runopts_json.h) */
	int gpus[GPU_MAX];
	size_t n_gpus;            /* the pool; 0 = every host GPU */
	long jobs, retry_failed;
	double gpu_wait;
	sweep_status_mask fail_on;
	/* The GPU-time comparison (docs/perf.md): --perf-baseline IMAGE (NULL:
	 * none), --perf-window K and the rule, in plan.json so a resume, a
	 * Slurm task and the merge compare as the sweep was started to. */
	char *perf_baseline;
	long perf_window;
	long perf_adaptive;       /* --perf-adaptive MAX, 0 off (docs/perf.md) */
	struct perf_rule perf_rule;
	struct perf_family perf_family; /* --perf-fdr, --perf-noise-nights */
	struct sweep_plan plan;
	/* Where the sweep's end is announced (`--notify`): a JSON array the
	 * command layer writes and reads, kept in SWEEP_PRIVATE_FILE alone
	 * (webhook URLs are secrets), never in plan.json. NULL: nowhere. */
	char *notify;
	/* --known-issues FILE as the sweep was started with it, absolute:
	 * what its resume, its cluster tasks and its merge read when not
	 * given another; NULL: known-issues.yaml beside the database. */
	char *known_issues;
	bool has_private;         /* read: SWEEP_PRIVATE_FILE was there */
};

void sweep_meta_init(struct sweep_meta *m);
void sweep_meta_release(struct sweep_meta *m);
/* The image entry of ref (NULL when the plan has none). */
const struct sweep_image *sweep_meta_image(const struct sweep_meta *m, const char *ref);
void sweep_meta_add_image(struct sweep_meta *m, const char *ref);

/* plan.json and SWEEP_CASES_FILE (0644, no `-e` or case env values) and
 * SWEEP_PRIVATE_FILE (0600, the values); plan.json last: it says how many
 * cases the cases file holds. */
int sweep_meta_write(const struct sweep_meta *m, const char *folder, struct error *err)
	__attribute__((warn_unused_result));
/* plan.json and its cases file a line at a time (a sweep folder of the
 * previous version: plan.json's "cases" array), then SWEEP_PRIVATE_FILE
 * over them; that one must be the caller's own regular file, not
 * writable by others (ERR_DATA); a sweep from before it existed has none
 * and keeps plan.json's values. */
int sweep_meta_read(struct sweep_meta *m, const char *folder, struct error *err)
	__attribute__((warn_unused_result));
/* A sweep from before SWEEP_PRIVATE_FILE (its plan.json holds `-e`
 * values): both files written anew, plan.json without them. 0 when there
 * was nothing to do. */
int sweep_meta_migrate(const struct sweep_meta *m, const char *folder, struct error *err)
	__attribute__((warn_unused_result));

/* <workdir>/sweeps/<id>, created new: sweeps/ must be the caller's or
 * sticky, and the folder must not exist yet (ERR_DATA otherwise). */
int sweep_folder_create(const char *workdir, const char *id, char **folder, struct error *err)
	__attribute__((warn_unused_result));
/* Whether folder may be trusted: the caller's own directory, not a
 * symlink, not writable by others, in a directory that is the caller's or
 * sticky. ERR_DATA naming what is wrong. */
int sweep_folder_check(const char *folder, struct error *err) __attribute__((warn_unused_result));
/* A sweep given by id (under <workdir>/sweeps) or by its folder's path. */
int sweep_folder_find(const char *workdir, const char *id_or_path, char **folder,
		      struct error *err) __attribute__((warn_unused_result));

/* Pure: which planned cases are finished (a result that is not an
 * infrastructure error: those are retried on resume), and the next attempt
 * number of each. done and next_attempt have plan->n entries. */
void sweep_done_cases(const struct sweep_plan *plan, const struct sweep_results *rs, bool *done,
		      int *next_attempt);
/* The same from the sweep folder's results files, read a chunk at a time
 * (never all in memory); *lines (unless NULL) gets how many results were
 * read. */
int sweep_done_cases_read(const struct sweep_plan *plan, const char *folder, bool *done,
			  int *next_attempt, size_t *lines, struct error *err)
	__attribute__((warn_unused_result));

/* A recorded description with the `-e` values dropped (older plan files
 * and databases kept them), on JSON text; a copy (not JSON: "{}"). */
char *sweep_runopts_redact_text(const char *json);

#endif
