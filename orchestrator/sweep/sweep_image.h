/* What a sweep sets up once per image before any case runs (docs/sweep.md
 * "What a sweep does"): the reference pinned to an image ID (pulled
 * if needed), the overlay and hrr-playback path, the preflight stack
 * facts. Workers inherit these across fork(), so a probe runs once per
 * image, not once per case. */
#ifndef HRR_SWEEP_SWEEP_IMAGE_H
#define HRR_SWEEP_SWEEP_IMAGE_H

#include <stdbool.h>

#include "orchestrator/replay/image_setup.h"
#include "orchestrator/replay/overlay.h"
#include "orchestrator/replay/replay_unit.h"

struct sweep_image_env {
	struct image_env env;          /* the one image set-up's (orchestrator/replay/image_setup.h) */
	bool ok;
	char error[2 * ERROR_MSG_MAX]; /* why not ok */
};

struct sweep_shared {
	struct overlay_paths overlay;
	bool use_overlay;
	char overlay_error[ERROR_MSG_MAX]; /* non-empty: --mount-clr failed */
};

void sweep_image_env_init(struct sweep_image_env *e);
void sweep_image_env_release(struct sweep_image_env *e);

/* Pin ref (pinned_id: the ID a resumed sweep recorded, NULL for a new
 * sweep, which pulls per --pull) and read its facts. Failures are kept in
 * e->error: the image's cases become `error` results, the sweep goes on. */
void sweep_image_setup(struct sweep_image_env *e, const struct replay_host *h,
		       const struct image_setup *s, const struct sweep_shared *sh, const char *ref,
		       const char *pinned_id);
/* --mount-clr's overlay, resolved once for every image; src NULL: none. */
void sweep_shared_setup(struct sweep_shared *sh, const struct overlay_sources *src);
void sweep_shared_release(struct sweep_shared *sh);

#endif
