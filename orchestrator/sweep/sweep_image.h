/* What a sweep sets up once per image when its first case is about to
 * start (docs/sweep.md "What a sweep does"): the pin pulled if needed
 * (orchestrator/sweep/sweep_pin.h resolved it as the sweep started), the
 * overlay and hrr-playback path, the preflight stack facts. Workers
 * inherit these across fork(), so a probe runs once per image, not once
 * per case. */
#ifndef HRR_SWEEP_SWEEP_IMAGE_H
#define HRR_SWEEP_SWEEP_IMAGE_H

#include <stdbool.h>

#include "orchestrator/replay/image_setup.h"
#include "orchestrator/replay/overlay.h"
#include "orchestrator/replay/replay_unit.h"
#include "orchestrator/sweep/sweep_folder.h"

struct sweep_image_env {
	struct image_env env;          /* the one image set-up's (orchestrator/replay/image_setup.h) */
	bool prepared;                 /* set up (or failed): ok says which */
	bool ok;
	/* Its pin was pulled in the background while another image's cases
	 * ran (sweep_ahead_pull.h): its set-up finds it, pulls it no more. */
	bool pulled_ahead;
	char error[2 * ERROR_MSG_MAX]; /* why not ok */
};

struct sweep_shared {
	struct overlay_paths overlay;
	bool use_overlay;
	char overlay_error[ERROR_MSG_MAX]; /* non-empty: --mount-clr failed */
};

void sweep_image_env_init(struct sweep_image_env *e);
void sweep_image_env_release(struct sweep_image_env *e);

/* The pinned image made present (its ID as it is; its digest pulled per
 * --pull: missing, or always) and its facts read, once: e->prepared.
 * Failures are kept in e->error and said to ev: the image's cases become
 * `error` results, the sweep goes on. An engine restarting meanwhile is
 * waited for (SWEEP_ENGINE_WAIT_S), not the image's error. */
void sweep_image_prepare(struct sweep_image_env *e, const struct replay_host *h,
			 const struct image_setup *s, const struct sweep_shared *sh,
			 const struct sweep_image *pin, const struct job_events *ev);
/* The pin made present on engine as sweep_image_prepare would (per
 * s->pull; what a failed pull left removed), without its lookups: a pull
 * ahead, in its child. *id (the caller frees) its ID, *pulled whether
 * this pull brought it. */
int sweep_image_pull(struct engine *engine, const struct image_setup *s,
		     const struct sweep_image *pin, char **id, bool *pulled, struct error *err)
	__attribute__((warn_unused_result));
/* A pin that could not be had: every case of the image is `error`. */
void sweep_image_failed(struct sweep_image_env *e, const char *why);
/* --mount-clr's overlay, resolved once for every image; src NULL: none. */
void sweep_shared_setup(struct sweep_shared *sh, const struct overlay_sources *src);
void sweep_shared_release(struct sweep_shared *sh);

#endif
