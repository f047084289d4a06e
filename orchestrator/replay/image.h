/* The capture image: make it present per --pull, learn what the run needs
 * from it (ID, digest, Config.Env), and find hrr-playback inside it without
 * starting it. */
#ifndef HRR_REPLAY_IMAGE_H
#define HRR_REPLAY_IMAGE_H

#include <stdbool.h>

#include "common/error.h"
#include "common/events.h"
#include "common/strvec.h"
#include "orchestrator/containers/ours.h"
#include "docker/engine.h"
#include "orchestrator/diagnosis/diag_plan.h"

enum pull_policy { PULL_MISSING = 0, PULL_ALWAYS, PULL_NEVER };

struct image_facts {
	char *ref;        /* as given */
	char *id;         /* sha256:... */
	char *digest;     /* first RepoDigests entry, or NULL (locally built) */
	char *repository; /* "rocm/vllm" */
	struct strvec env; /* Config.Env */
	double pull_s;    /* 0 when no pull happened */
	bool pulled;      /* the pull brought an ID the reference did not name before */
	bool pull_tried;  /* a pull was started: its failure is the "pull" stage */
};

void image_facts_release(struct image_facts *f);

/* Inspect, pulling per policy (its progress to ev's pull, with verbosity:
 * the terminal's sink draws a bar on a TTY, plain lines otherwise). Missing with --pull never, or a
 * failed pull: ERR_NOT_FOUND / ERR_HTTP with a message naming the image. */
__attribute__((warn_unused_result))
int image_ensure(struct engine *e, const char *image, enum pull_policy policy,
		 const struct job_events *ev, int verbosity,
		 struct image_facts *out, struct error *err);

/* Whether a pull brought its image: the ID the reference names after it
 * (NULL: none) is not the one it named before it (NULL: none). The same ID
 * re-pulled (--pull always) was the user's and stays the user's; a tag
 * that moved brought a new ID, and the old one is left as it was. */
bool image_pull_brought(const char *id_before, const char *id_after);

/* What an image answered once, kept under the host's cache dir by image
 * ID (an ID names content, so the answer holds): <cache_dir>/<kind>-<ID
 * without sha256:><suffix>. NULL when cache_dir is unset or the ID cannot
 * safely name a file (not 1 to 128 letters and digits). */
char *image_cache_path(const char *cache_dir, const char *image_id, const char *kind,
		       const char *suffix);

/* hrr-playback inside the image: the image's PATH (Config.Env), then
 * /opt/rocm/bin, checked with HEAD on the archive endpoint of a created,
 * never-started container. Cached by image ID under cache_dir. ERR_NOT_FOUND
 * with advice (--playback, --mount-clr) when absent. probe is shared with
 * the image's other lookups (created on a cache miss only; its owner
 * removes it); orchestrator/replay/image_setup.h decides when to look. */
__attribute__((warn_unused_result))
int image_find_playback_shared(struct ours_probe *probe, const struct image_facts *img,
			       const char *cache_dir, char **out, struct error *err);

/* A GPU debugger in the image (orchestrator/diagnosis/diag_plan.h's candidates: its PATH
 * or LD_LIBRARY_PATH, then ROCm's directories), checked like hrr-playback
 * without starting the image: *out its path, or NULL when absent. < 0
 * only when the engine failed. */
int image_find_tool(struct engine *e, const struct image_facts *img, enum diagnose_tool tool,
		    char **out, struct error *err) __attribute__((warn_unused_result));

#endif
