/* The image's HIP/comgr stack, read without running the image: a created,
 * never-started container, cached by image ID (docs/preflight.md). */
#ifndef HRR_REPLAY_STACK_PROBE_H
#define HRR_REPLAY_STACK_PROBE_H

#include "common/error.h"
#include "common/strvec.h"
#include "preflight/preflight.h"

struct engine;
struct ours_probe;

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
 * other lookups (orchestrator/containers/ours.h): created only on a cache
 * miss, left for its owner to remove. */
int image_stack_probe_shared(struct ours_probe *probe, const char *image, const char *image_id,
			     const struct strvec *lib_dirs, const char *cache_dir,
			     struct stack_info *out, struct error *err);

#endif
