/* The one image set-up of `run`, `preflight` and `sweep`, done once per
 * image before its replays: the reference pinned to an image ID (pulled
 * per --pull), hrr-playback's path, the preflight stack facts. The lookups
 * share one probe container of the image, created only on a cache miss.
 * The replay unit resolves hrr-playback in the same order when its caller
 * did not (image_playback_resolve). */
#ifndef HRR_REPLAY_IMAGE_SETUP_H
#define HRR_REPLAY_IMAGE_SETUP_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strvec.h"
#include "orchestrator/containers/ours.h"
#include "preflight/preflight.h"
#include "orchestrator/replay/image.h"
#include "orchestrator/replay/overlay.h"
#include "orchestrator/replay/replay_host.h"

/* What the options say of an image's set-up (the command layer fills it). */
struct image_setup {
	enum pull_policy pull;
	int verbosity;                  /* the pull's progress; -1: none */
	const struct job_events *events; /* where the pull's progress goes; NULL: nowhere */
	const char *playback;           /* --playback; NULL: the overlay's, else looked up */
	bool skip_preflight;            /* no stack facts */
	const struct strvec *extra_ld;  /* --extra-ld, for the stack probe */
};

/* What the set-up found, shared by every replay of the image. */
struct image_env {
	struct image_facts img;
	char *playback;
	struct stack_info stack;
	bool have_stack;
};

void image_env_init(struct image_env *e);
void image_env_release(struct image_env *e);

/* Pin ref: inspect it, pulling per s->pull. pinned_id: an ID recorded
 * before (a resumed sweep), replayed as is and never pulled; img.ref stays
 * ref. ERR_USAGE for a malformed reference, ERR_NOT_FOUND when missing. */
int image_setup_pin(struct image_env *e, struct engine *engine, const struct image_setup *s,
		    const char *ref, const char *pinned_id, struct error *err)
	__attribute__((warn_unused_result));

/* hrr-playback's path and the stack facts (unless s->skip_preflight),
 * through one probe, removed before returning. overlay: the resolved
 * --mount-clr, or NULL. A failed playback lookup fails only when
 * playback_required (a preflight leaves it for the run to report). */
int image_setup_lookups(struct image_env *e, const struct replay_host *h,
			const struct image_setup *s, const struct overlay_paths *overlay,
			bool playback_required, struct error *err)
	__attribute__((warn_unused_result));

/* The one lookup order of hrr-playback: given (--playback), else the
 * overlay's, else the image's (through probe, cached by image ID). */
int image_playback_resolve(struct ours_probe *probe, const struct image_facts *img,
			   const char *cache_dir, const char *given, bool overlay, char **out,
			   struct error *err) __attribute__((warn_unused_result));

/* The preflight facts of an image (or of the overlay when given): the
 * stack the replay will load, read once (cached by image ID under the
 * host's cache dir) and passed as desc.stack to each replay of it. What
 * cannot be read is out->unknown_reason (a preflight warning), never a
 * failure. out is initialised by the caller. probe: a probe container of
 * the image shared with its other lookups (its owner removes it), or NULL
 * for one of its own. */
void replay_read_stack(const struct replay_host *h, const struct image_facts *img,
		       const struct overlay_paths *overlay, const struct strvec *extra_ld,
		       struct ours_probe *probe, struct stack_info *out);

#endif
