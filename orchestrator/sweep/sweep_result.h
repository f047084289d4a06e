/* One finished case attempt: a line of the sweep's results file
 * (docs/sweep.md "The sweep folder"). The results files are the source
 * of truth; the history database is rebuilt from them. A line is written
 * whole with one write(2) on an O_APPEND descriptor and fsynced, so a
 * killed sweep leaves at most a torn last line, which reading skips. */
#ifndef HRR_SWEEP_SWEEP_RESULT_H
#define HRR_SWEEP_SWEEP_RESULT_H

#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/perf/perf_samples.h"
#include "preflight/topology.h"

/* What became of the attempt, before any comparison with a baseline. */
#define RESULT_DONE "done"                   /* replayed: outcome is set */
#define RESULT_BLOCKED "blocked"             /* preflight blocked it */
#define RESULT_NEEDS_CONFIRM "needs-confirm" /* preflight wanted a yes */
#define RESULT_ERROR "error"                 /* infrastructure: engine, pull, lease */

struct sweep_result {
	char *case_name;
	char *image;          /* reference as given */
	char *image_id;
	char *archive;
	char *digest;         /* of events.bin + manifest.json */
	int gpus[GPU_MAX];
	size_t n_gpus;
	int attempt;          /* 1, 2, ... */
	char *state;          /* RESULT_* */
	char *outcome;        /* "PASS", "MAF", ... or NULL */
	char *fault_class;
	char *kernel;
	long long d2h_checked, d2h_mismatched; /* -1 unknown */
	double duration_s;
	char *run_dir;        /* relative to the sweep folder */
	int classifier_version;
	char *message;        /* error or preflight text, NULL otherwise */
	long long finished;   /* epoch seconds */
	/* Where it ran and what kind of result it is (docs/sweep.md): the GPUs'
	 * KFD unique_ids ("2102...,2102..."), the host (the Slurm node name
	 * in a task), RESULT_KIND_*. Set by the parent when it records. */
	char *gpu_uids, *host, *kind;
	/* The failure's signature (docs/findings.md "Signature"): unset for a
	 * PASS and a result without a verdict; a line written before
	 * signatures reads back with a partial one (outcome, class, kernel). */
	struct signature signature;
	/* The known issue a rule matched (docs/sweep.md "The sweep folder"),
	 * all NULL when none did. */
	char *known_id, *known_link, *known_owner;
	/* The GPU product it ran on (its first GPU's): the gfx target and the
	 * KFD device_id (-1 unknown); a perf comparison never crosses them. */
	char *gfx;
	long device_id;
	/* The host's amdgpu driver version (docs/perf.md "Statuses": the
	 * same-build rule); NULL when the host exposes none. */
	char *driver;
	/* --perf N's samples (docs/perf.md); NULL: none taken. */
	struct perf_samples *perf;
};

#define RESULT_KIND_WORKLOAD "workload"             /* the replay's own outcome */
#define RESULT_KIND_INFRA "infrastructure"          /* engine, pull, lease, GPU, OOM killer */

/* The kind of a result from its state and message: RESULT_ERROR and a
 * replay the host's OOM killer ended are infrastructure, the rest workload. */
const char *sweep_result_kind(const struct sweep_result *r);
/* The known issue a rule of k matches r to at now (its signature, case,
 * image, GPUs and host), or none: r's known_* replaced either way. */
void sweep_result_mark_known(struct sweep_result *r, const struct known_issues *k, long long now);
/* Where r ran and what kind it is, unless already said: host, the KFD
 * unique_ids of its GPUs (0 unknown) and its product (gfx, device_id)
 * from topo, and sweep_result_kind. */
void sweep_result_locate(struct sweep_result *r, const struct gpu_topology *topo,
			 const char *host);

void sweep_result_release(struct sweep_result *r);

/* What identifies a capture's content: FNV-1a 64 over events.bin then
 * manifest.json (a missing manifest hashes as empty), "fnv1a64:<16 hex>".
 * Cheap enough to compute per case, strong enough to tell a re-captured
 * archive from the one of last night. Caller frees. */
char *sweep_archive_digest(const char *pid_dir, struct error *err)
	__attribute__((warn_unused_result));
/* One line, without the newline. */
void sweep_result_to_json(const struct sweep_result *r, struct strbuf *out);
int sweep_result_parse(struct sweep_result *r, const char *line, struct error *err)
	__attribute__((warn_unused_result));

/* Append one line to path (created 0644), then fsync. */
int sweep_result_append(const char *path, const struct sweep_result *r, struct error *err)
	__attribute__((warn_unused_result));
/* The same for a line already serialised (a worker's, which the parent
 * parsed once to decide and records as it came: never re-serialised). */
int sweep_result_append_line(const char *path, const char *json, struct error *err)
	__attribute__((warn_unused_result));

struct sweep_results {
	struct sweep_result *v;
	size_t n, alloc;
	size_t skipped; /* torn or unreadable lines */
};
void sweep_results_release(struct sweep_results *rs);
/* Every results file of a sweep folder (results.jsonl and the cluster
 * tasks' results.<job>_<task>.jsonl), in file-name order. */
int sweep_results_load(const char *folder, struct sweep_results *rs, struct error *err)
	__attribute__((warn_unused_result));
/* The same results, chunk results at a time: fn gets each chunk (in file
 * order, each result in exactly one), which is released when fn returns
 * (fn may take a result's fields, leaving NULLs). A large sweep's results
 * are never all in memory. fn < 0 stops the reading with its error. */
struct sweep_results_chunks {
	size_t chunk;
	int (*fn)(void *ctx, struct sweep_results *rs, struct error *err);
	void *ctx;
};
int sweep_results_each(const char *folder, const struct sweep_results_chunks *ch,
		       struct error *err) __attribute__((warn_unused_result));
/* The text of one results file into rs (name only for messages). */
void sweep_results_parse_text(struct sweep_results *rs, const char *text);

#endif
