/* A sweep's reports (docs/sweep.md "Reports"): junit.xml, summary.md,
 * summary.json and a self-contained report.html, all rendered from one
 * model the command layer fills from the history database. Pure: the
 * model in, text out, written into a file as it is rendered (a report of
 * 10,000 cases is never whole in memory). Every string from a capture or a replay (kernel names are C++
 * templates, logs carry colour codes and broken UTF-8) is sanitised with
 * text_sanitize before it reaches a writer; XML and HTML are written with
 * libxml2, never escaped by hand. */
#ifndef HRR_REPORT_REPORT_H
#define HRR_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/sweep/sweep_image_fate.h"
#include "orchestrator/sweep/sweep_image_nodes.h"
#include "orchestrator/sweep/sweep_quarantine.h"
#include "orchestrator/sweep/sweep_status.h"
#include "orchestrator/report/report_perf.h"

#define REPORT_TREND_MAX 16
/* The distinct outcomes a report's trends may name (a byte each in a
 * case): the six verdicts and "-" in practice; past this many, a word
 * shows as the last one kept. */
#define REPORT_TREND_WORDS 256

/* An attempt before a case's final one that did not PASS (JUnit's
 * rerunFailure / flakyFailure, or rerunError / flakyError). */
struct report_attempt {
	int attempt;
	const char *state, *outcome, *fault_class, *kernel, *kind;
	const char *gpus, *gpu_uids, *host, *run_dir, *message;
};

#define REPORT_ATTEMPTS_MAX 16
_Static_assert(REPORT_ATTEMPTS_MAX <= UINT8_MAX, "a case counts its earlier attempts in a byte");

struct report_case {
	const char *case_name, *image, *image_id;
	const char *gpus;           /* "0,1" */
	const char *outcome;        /* NULL when the case did not replay */
	const char *fault_class, *kernel, *prev_outcome;
	/* The failure signature (docs/findings.md "Signature"): its id, kernel
	 * family and normalized evidence; NULL for a PASS or no replay. The
	 * known issue a rule matched: NULL when none did. */
	const char *sig_id, *sig_family, *sig_evidence;
	const char *known_id, *known_link, *known_owner;
	enum sweep_status status;
	int attempts;
	double duration_s;
	const char *run_dir;        /* relative to the sweep folder; NULL: none */
	const char *finding_md;     /* the finding's markdown, or NULL */
	const char *message;        /* error / preflight text, or NULL */
	const char *retry_note;     /* flaky: what the failed attempt was */
	/* The final attempt: workload or infrastructure (RESULT_KIND_*), where
	 * it ran; and the earlier attempts that did not PASS. */
	const char *kind, *gpu_uids, *host;
	struct report_attempt *earlier; /* n_earlier of them, or NULL */
	bool acquitted;             /* its failures were the GPU's (report_acquit_suspect_gpus) */
	/* Outcomes of this case and image in the label's last sweeps, oldest
	 * first, each an index into the report's trend_words ("PASS", "MAF",
	 * ..., "-" for no replay): a byte, not a pointer, in each case. */
	uint8_t trend[REPORT_TREND_MAX];
	uint8_t n_trend;
	bool ab_differs;            /* set by report_finish */
	uint8_t n_earlier;          /* <= REPORT_ATTEMPTS_MAX: a byte, in a padding hole */
	/* Its place while the model is built (the history's ord,
	 * history_db.h): the cases are sorted by it once all are read. */
	uint32_t ord;
	/* GPU time against --perf-baseline's image (docs/perf.md); NULL: none. */
	const struct report_perf *perf;
};

/* An image of the sweep (docs/sweep.md "Images: pinned, pulled when their
 * cases come"): as given, what it was pinned to as the sweep started, the
 * ID its cases replayed (NULL: none ran), and what became of it. */
struct report_image {
	const char *ref, *pin, *id;
	long long manifest_size;    /* the registry's compressed layers; -1 unknown */
	long long pulled, removed;  /* epoch seconds; 0: not pulled by the sweep, not removed */
	enum image_fate fate;       /* removed, or kept and why; IMAGE_FATE_UNKNOWN not said */
};

/* A GPU-time change point the sweep's import found in a case's series of
 * nightly medians (docs/perf.md "Change points"): the night of the new
 * level, its size and significance, the image IDs on either side. */
struct report_changepoint {
	const char *case_name, *image, *gfx, *sweep, *image_id_before, *image_id_after;
	long device_id;               /* -1 unknown */
	double ratio, p, median_before, median_after;
};

struct report {
	const char *sweep_id, *label, *baseline, *tool_version;
	const struct report_image *images;
	size_t n_images;
	long long image_budget;     /* --image-budget bytes; 0 none */
	long long image_peak;       /* bytes the images this tool pulled took at most; 0 not measured */
	/* A cluster sweep's images per node (each node's fates of images[],
	 * in their order, and its peak); NULL: a sweep on one host. */
	const struct sweep_image_nodes *image_nodes;
	enum sweep_state state;
	int exit_code;
	struct report_case *cases;  /* plan order; gone cases last */
	size_t n;
	const int *quarantined;
	size_t n_quarantined;
	const struct sweep_gpu_note *gpu_notes; /* quarantined or suspect GPUs */
	size_t n_gpu_notes;
	size_t counts[ST__COUNT];   /* set by report_finish */
	/* Set with exit_code (docs/sweep.md "Exit codes"): the failures no
	 * known issue matched when --fail-on untriaged made them count, and
	 * the failures --ignore-known left out of the count. */
	size_t exit_untriaged, exit_known_ignored;
	/* The known-issue rules past their expiry day, which marked nothing:
	 * one line each (orchestrator/finding/known_issues.h's
	 * known_issues_expired), shown in summary.md's triage. */
	const char *const *expired_rules;
	size_t n_expired_rules;
	/* perf-slower is in --fail-on: a case whose GPU time is `slower` is a
	 * failure of its own kind (docs/perf.md "In the reports"). */
	bool perf_fail;
	size_t perf_counts[PERF_STATUS_COUNT]; /* cases per GPU-time status; set by report_finish */
	/* The comparisons within the sweep (--perf-baseline) are so many
	 * that their samples can show nothing that survives the false
	 * discovery rate (docs/perf.md "When a sweep can find nothing");
	 * NULL when they can. */
	const struct perf_fdr_reach *perf_reach;
	/* The change points this sweep's import found, none accepted. */
	const struct report_changepoint *changepoints;
	size_t n_changepoints;
	/* The words the cases' trends name, by index. */
	const char *trend_words[REPORT_TREND_WORDS];
	size_t n_trend_words;
};

/* A flaky GPU is not a flaky case: a flaky case whose every failed attempt
 * ran on a quarantined or suspect GPU gets the status its final PASS has
 * against the baseline (pass, fixed or new), and those attempts become
 * infrastructure (JUnit's flakyError). Before report_finish. */
void report_acquit_suspect_gpus(struct report *r);
/* Counts per status and the A/B marks: a case whose outcome differs
 * between the sweep's images. */
void report_finish(struct report *r);
/* The summary's last line in words ("1 regressed, 2 new: exit 1"). */
void report_verdict(const struct report *r, struct strbuf *out);

/* Whether c's GPU time is a failure: `slower` with perf-slower in --fail-on. */
bool report_perf_fails(const struct report *r, const struct report_case *c);
/* The warning of r->perf_reach in words, one paragraph (nothing when
 * NULL): what the family asks, what its samples reach, the --perf N that
 * would. For summary.md, summary.json and the command line. */
void report_perf_reach_text(const struct report *r, struct strbuf *out);
/* summary.md's "GPU time" section (orchestrator/report/report_perf_text.c):
 * every compared case, the changes first; nothing when none was compared. */
void report_perf_md(const struct report *r, FILE *out);

/* Each writes its format into out; a write error shows in ferror(out). */
int report_junit(const struct report *r, FILE *out, struct error *err)
	__attribute__((warn_unused_result));
int report_summary_md(const struct report *r, FILE *out, struct error *err)
	__attribute__((warn_unused_result));
int report_summary_json(const struct report *r, FILE *out, struct error *err)
	__attribute__((warn_unused_result));
int report_html(const struct report *r, FILE *out, struct error *err)
	__attribute__((warn_unused_result));

/* The files a sweep's report is written as, in the order they are
 * written (orchestrator/report/report_formats.c): a new format is its renderer's file
 * and one row there. Every renderer is pure: the model in, text out. */
typedef int (*report_render_fn)(const struct report *r, FILE *out, struct error *err);
struct report_format {
	const char *file;         /* in the sweep folder: "junit.xml" */
	report_render_fn render;
};
extern const struct report_format report_formats[];
extern const size_t report_formats_n;

/* Untrusted text made safe for a report: valid UTF-8, no controls, ANSI
 * colour dropped; newlines and tabs kept when multiline. Caller frees. */
char *report_clean(const char *s, bool multiline);

/* One group of failures for triage: an untriaged signature (key: its id)
 * or a known issue (key: the issue id), with the first case it holds (for
 * the signature's parts, or the link and owner) and how many
 * results (case and image pairs), cases, images and signatures it covers. */
struct report_failure_group {
	const char *key;
	const struct report_case *first;
	size_t results, cases, images, signatures;
};
struct report_failure_groups {
	struct report_failure_group *untriaged, *known;
	size_t n_untriaged, n_known;
};
/* Every failure with a signature, grouped, in order of first appearance. */
void report_failure_groups(const struct report *r, struct report_failure_groups *out);
void report_failure_groups_release(struct report_failure_groups *g);

#endif
