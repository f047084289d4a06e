/* One finished case attempt: a line of the sweep's results file
 * (docs/sweep.md "The sweep folder"). The results files are the source
 * of truth; the history database is rebuilt from them. A line is written
 * whole with one write(2) on an O_APPEND descriptor and fsynced, so a
 * killed sweep leaves at most a torn last line, which reading skips. */
#ifndef HRR_SWEEP_CASE_RESULT_H
#define HRR_SWEEP_CASE_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/perf/perf_samples.h"
#include "preflight/topology.h"

/* What became of the attempt, before any comparison with a baseline.
 * Typed inside; its names ("done", ...) only at this file's codec. */
enum result_state {
	RESULT_DONE,          /* replayed: the outcome is set */
	RESULT_BLOCKED,       /* preflight blocked it */
	RESULT_NEEDS_CONFIRM, /* preflight wanted a yes */
	RESULT_ERROR,         /* infrastructure: engine, pull, lease */
};

/* What kind of result it is (docs/sweep.md "The sweep folder"). */
enum result_kind {
	RESULT_KIND_UNSET,    /* a line written before kinds: case_result_kind decides */
	RESULT_KIND_WORKLOAD, /* the replay's own outcome */
	RESULT_KIND_INFRA,    /* engine, pull, lease, GPU, OOM killer */
};

struct case_result {
	char *case_name;
	char *image;          /* reference as given */
	char *image_id;
	char *image_pin;      /* what the sweep pinned: repo@sha256:... or the ID; NULL unknown */
	char *archive;
	char *digest;         /* of events.bin + manifest.json */
	int gpus[GPU_MAX];
	size_t n_gpus;
	int attempt;          /* 1, 2, ... */
	enum result_state state;
	/* The verdict: has_outcome and has_class false when the line names
	 * none (a result that did not replay). A class name that is none of
	 * the finding's (another version's line) is kept as read in
	 * class_other, so it reads back and imports as it was written. */
	bool has_outcome, has_class;
	enum finding_outcome outcome;
	enum finding_fault_class fault_class;
	char *class_other;
	char *kernel;
	long long d2h_checked, d2h_mismatched; /* -1 unknown */
	double duration_s;
	char *run_dir;        /* relative to the sweep folder */
	int classifier_version;
	char *message;        /* error or preflight text, NULL otherwise */
	long long finished;   /* epoch seconds */
	/* Where it ran and what kind of result it is (docs/sweep.md): the GPUs'
	 * KFD unique_ids ("2102...,2102..."), the host (the Slurm node name
	 * in a task), its kind. Set by the parent when it records. */
	char *gpu_uids, *host;
	enum result_kind kind;
	/* The engine killed the replay for host memory: an infrastructure
	 * result whatever its outcome. Not a field of the line (kind says it). */
	bool oom_killed;
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
	/* finding.md's text, for the reports (JUnit's failure text), so they
	 * need not read it back from the run folder; NULL: none carried (a
	 * PASS, no verdict, a line written before it was carried, a text over
	 * CASE_RESULT_FINDING_MD_MAX). */
	char *finding_md;
};

/* The longest finding.md a line carries, the most a report reads of one. */
#define CASE_RESULT_FINDING_MD_MAX (256u << 10)

/* The kind of a result: its own when set, else from its state and flag:
 * RESULT_ERROR and a replay the engine's OOM killer ended are
 * infrastructure, the rest workload. */
enum result_kind case_result_kind(const struct case_result *r);
/* It replayed and passed. */
bool case_result_passed(const struct case_result *r);

/* The names of the line (docs/sweep.md "The sweep folder"), for the
 * history's columns and the reports: the codec's, nowhere else spelled.
 * The outcome's and class's are NULL when the result has none. */
const char *case_result_state_name(enum result_state s);
const char *case_result_kind_name(enum result_kind k); /* NULL for UNSET */
const char *case_result_outcome_name(const struct case_result *r);
const char *case_result_class_name(const struct case_result *r);
/* The state or kind named name; false for any other text. */
bool case_result_state_from_name(const char *name, enum result_state *out);
bool case_result_kind_from_name(const char *name, enum result_kind *out);
/* r's verdict from its names as a line spells them (NULL: none): an
 * outcome none of the finding's reads as UNKNOWN, a class as read. */
void case_result_set_verdict(struct case_result *r, const char *outcome,
			      const char *fault_class);
/* The known issue a rule of k matches r to at now (its signature, case,
 * image, GPUs and host), or none: r's known_* replaced either way. */
void case_result_mark_known(struct case_result *r, const struct known_issues *k, long long now);
/* r carries md (finding.md's text) when the line can carry it as it
 * is: within CASE_RESULT_FINDING_MD_MAX and text the codec writes
 * unchanged. Otherwise it carries none, and a report reads finding.md. */
void case_result_set_finding_md(struct case_result *r, const char *md);
/* Where r ran and what kind it is, unless already said: host, the KFD
 * unique_ids of its GPUs (0 unknown) and its product (gfx, device_id)
 * from topo, and case_result_kind. */
void case_result_locate(struct case_result *r, const struct gpu_topology *topo,
			 const char *host);

void case_result_release(struct case_result *r);

/* What identifies a capture's content: FNV-1a 64 over events.bin then
 * manifest.json (a missing manifest hashes as empty), "fnv1a64:<16 hex>".
 * Cheap enough to compute per case, strong enough to tell a re-captured
 * archive from the one of last night. Caller frees. */
char *sweep_archive_digest(const char *pid_dir, struct error *err)
	__attribute__((warn_unused_result));
/* One line, without the newline. */
void case_result_to_json(const struct case_result *r, struct strbuf *out);
int case_result_parse(struct case_result *r, const char *line, struct error *err)
	__attribute__((warn_unused_result));

/* Append one line to path (created 0644), then fsync. */
int case_result_append(const char *path, const struct case_result *r, struct error *err)
	__attribute__((warn_unused_result));
/* The same for a line already serialised (a worker's, which the parent
 * parsed once to decide and records as it came: never re-serialised). */
int case_result_append_line(const char *path, const char *json, struct error *err)
	__attribute__((warn_unused_result));

struct sweep_results {
	struct case_result *v;
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
