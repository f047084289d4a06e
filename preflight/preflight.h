/* Preflight: will this archive replay faithfully in this image on this host?
 * Rules in docs/preflight.md. preflight_evaluate() is pure; the
 * stack probes do the I/O. */
#ifndef HRR_PREFLIGHT_PREFLIGHT_H
#define HRR_PREFLIGHT_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "preflight/manifest.h"
#include "preflight/topology.h"

struct engine;

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

/* preflight.md in the run folder, and the finding's {"verdict","messages"}. */
void preflight_render_markdown(const struct preflight_report *r, struct strbuf *out);
cJSON *preflight_to_json(const struct preflight_report *r);

/* A created, never-started container of image (an ID or a reference), for
 * reading files out of it through the archive endpoint; labelled
 * hrr-docker-replay.probe=1 and .image=image_name (NULL: image) so `gc`
 * finds it. The caller removes it. */
int image_probe_create(struct engine *e, const char *image, const char *image_name,
		       char **id_out, struct error *err);

/* Read the image's stack without starting it: a created, never-started
 * container; HEAD-follow libamdhip64.so / libamd_comgr.so in lib_dirs
 * order (docs/cli.md's library order), GET small version files, remove the
 * container. Cached by image_id under cache_dir (NULL = no cache); a
 * cache hit makes no engine call.
 * Details: the cache file is <cache_dir>/image-stack-<id without sha256:>.json,
 * valid for the same lib_dirs only; a corrupt one is ignored and rewritten;
 * failing to write it is not an error. e may be NULL when the cache is
 * expected to answer (a miss is then ERR_USAGE). The container is created
 * from image_id (else image), labelled hrr-docker-replay.probe=1, and
 * removed on every path. out (initialised) is replaced on success;
 * out->source = "image <image> (<image_id>)". */
int image_stack_probe(struct engine *e, const char *image, const char *image_id,
		      const struct strvec *lib_dirs, const char *cache_dir,
		      struct stack_info *out, struct error *err);
/* image_stack_probe through a probe container shared with the image's
 * other lookups (containers/ours.h): created only on a cache miss, left for
 * its owner to remove. */
struct ours_probe;
int image_stack_probe_shared(struct ours_probe *probe, const char *image, const char *image_id,
			     const struct strvec *lib_dirs, const char *cache_dir,
			     struct stack_info *out, struct error *err);
/* Pure helpers of the probes (exposed for tests). The version in a library
 * file name: name "libamdhip64.so.7.15.26291-2ed46569ce" with prefix
 * "libamdhip64.so." -> "7.15.26291" (the hash dropped, at most three
 * numbers); NULL unless at least min_nums numbers follow the prefix. */
char *stack_version_from_name(const char *name, const char *prefix, int min_nums);
/* /opt/rocm/share/hip/version (HIP_VERSION_MAJOR/MINOR/PATCH=N lines) ->
 * "X.Y.Z"; NULL unless all three are there. */
char *stack_hip_version_file_parse(const char *text);

/* The host CLR overlay: HIP version from the libamdhip64.so.X.Y.Z... file
 * name in clr_lib_dir (following symlinks), comgr likewise if present.
 * out (initialised) is replaced; a missing dir is ERR_NOT_FOUND, a dir
 * without the library leaves the version NULL with unknown_reason set. */
int overlay_stack_probe(const char *clr_lib_dir, struct stack_info *out, struct error *err);

#endif
