/* Preflight: will this archive replay faithfully in this image on this host?
 * Rules in docs/preflight.md. preflight_evaluate() is pure; what the
 * image's stack is comes from its caller (orchestrator/replay/stack_probe.h,
 * preflight/stack_files.h). */
#ifndef HRR_PREFLIGHT_PREFLIGHT_H
#define HRR_PREFLIGHT_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "preflight/manifest.h"
#include "preflight/topology.h"

enum preflight_verdict {
	PREFLIGHT_OK = 0,
	PREFLIGHT_WARN,
	PREFLIGHT_CONFIRM,
	PREFLIGHT_BLOCK,
	PREFLIGHT_SKIPPED,
};
const char *preflight_verdict_name(enum preflight_verdict v); /* "OK", "WARN", ... */

/* The HIP/comgr stack that will run the replay. */
struct stack_info {
	char *hip_version;    /* "7.15.26291" (hash dropped) or NULL = unknown */
	char *hip_evidence;   /* "/opt/rocm/lib/libamdhip64.so.7.15.26291-2ed46569ce" */
	char *comgr_version;  /* "2.8.60200" or NULL */
	char *comgr_evidence;
	char *rocm_release;   /* /opt/rocm/.info/version, context only */
	char *source;         /* "image hrr-sim:dev (sha256:...)" / "host CLR overlay /path" */
	char *unknown_reason; /* why a side is unknown, for the warning */
	char *comgr_unknown_reason; /* why comgr alone is unknown (NULL: see unknown_reason) */
};
void stack_info_init(struct stack_info *s);
void stack_info_release(struct stack_info *s);

struct preflight_input {
	const struct manifest *manifest;  /* capture side */
	const struct gpu_topology *host;  /* NULL: host GPU count undeterminable */
	const int *chosen;                /* ordinals the replay gets (index i = device i inside),
					   * chosen and checked by the caller (preflight/gpu_choice.h) */
	size_t n_chosen;
	const struct stack_info *stack;   /* NULL: replay stack unknown */
	bool strict_version;
	bool strict_arch;
	bool skip;                        /* --skip-preflight / HRR_SKIP_COMPAT=1 */
	const char *manifest_error;       /* manifest NULL: why (manifest_load's message), for the note */
};

struct preflight_report {
	enum preflight_verdict verdict;
	struct strvec blocks;
	struct strvec confirms;
	struct strvec warnings;
	struct strvec notes;      /* skipped checks, context (ROCm release) */
	struct strbuf capture_side; /* one line each: "HIP 7.13.0, comgr 2.8, 2 GPU(s), gfx942" */
	struct strbuf replay_side;
	struct strbuf replay_source; /* where the replay stack was read: stack_info.source */
};

void preflight_report_init(struct preflight_report *r);
void preflight_report_release(struct preflight_report *r);

/* Pure: apply every rule of docs/preflight.md. r (initialised) is reset first.
 * A named ordinal the host lacks never gets here: the GPU choice carries
 * that block, which stands even when the checks are skipped. */
void preflight_evaluate(const struct preflight_input *in, struct preflight_report *r);
/* Pure: "7.15.26291-2ed46569ce" -> up to n numbers; returns how many parsed. */
int version_parse(const char *s, long *nums, int n);

/* preflight.md in the run folder (the finding's {"verdict","messages"}:
 * preflight_json.h). */
void preflight_render_markdown(const struct preflight_report *r, struct strbuf *out);

#endif
