#include "sweep/sweep_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "containers/ours.h"
#include "replay/overlay.h"

void sweep_image_env_init(struct sweep_image_env *e)
{
	memset(e, 0, sizeof(*e));
	strvec_init(&e->img.env);
	stack_info_init(&e->stack);
}

void sweep_image_env_release(struct sweep_image_env *e)
{
	image_facts_release(&e->img);
	free(e->playback);
	stack_info_release(&e->stack);
	sweep_image_env_init(e);
}

void sweep_shared_setup(struct sweep_shared *sh, const struct options *o)
{
	struct overlay_sources src = { o->host_playback, o->clr_lib, o->clr_build, o->rocr_lib,
				       o->rocm_path };
	struct error err;

	memset(sh, 0, sizeof(*sh));
	if (!o->mount_clr)
		return;
	if (overlay_resolve(&src, &sh->overlay, &err) < 0)
		snprintf(sh->overlay_error, sizeof(sh->overlay_error), "%s", err.msg);
	else
		sh->use_overlay = true;
}

void sweep_shared_release(struct sweep_shared *sh)
{
	if (sh->use_overlay)
		overlay_paths_release(&sh->overlay);
	memset(sh, 0, sizeof(*sh));
}

/* hrr-playback and the stack, through one probe container of the image
 * (only on a cache miss), as `run` does. */
static void sweep_image_lookups(struct sweep_image_env *e, const struct replay_host *h,
				const struct options *o, const struct sweep_shared *sh)
{
	struct ours_probe probe = { .engine = h->engine, .image = e->img.id,
				    .image_name = e->img.ref };
	struct error err;

	if (sh->use_overlay)
		e->playback = xstrdup(o->playback ? o->playback : OVERLAY_PLAYBACK);
	else if (o->playback)
		e->playback = xstrdup(o->playback);
	else if (image_find_playback_shared(&probe, &e->img, h->cache_dir, &e->playback,
					    &err) < 0) {
		snprintf(e->error, sizeof(e->error), "image %s: %s", e->img.ref, err.msg);
		(void)ours_probe_release(&probe, ERROR_DISCARD);
		return;
	}
	if (!o->skip_preflight) {
		replay_read_stack(h, &e->img, sh->use_overlay ? &sh->overlay : NULL, &o->extra_ld,
				  &probe, &e->stack);
		e->have_stack = true;
	}
	/* Best effort: gc removes a probe left behind (LABEL_PROBE). */
	(void)ours_probe_release(&probe, ERROR_DISCARD);
	e->ok = true;
}

void sweep_image_setup(struct sweep_image_env *e, const struct replay_host *h,
		       const struct options *o, const struct sweep_shared *sh, const char *ref,
		       const char *pinned_id)
{
	struct error err;

	if (sh->overlay_error[0]) {
		snprintf(e->error, sizeof(e->error), "--mount-clr: %s", sh->overlay_error);
		return;
	}
	/* A resumed sweep replays the ID it pinned, never what the tag
	 * points at now. */
	if (image_ensure(h->engine, pinned_id ? pinned_id : ref, pinned_id ? PULL_NEVER : o->pull,
			 -1, &e->img, &err) < 0) {
		snprintf(e->error, sizeof(e->error), "image %s: %s", ref, err.msg);
		return;
	}
	free(e->img.ref);
	e->img.ref = xstrdup(ref);
	sweep_image_lookups(e, h, o, sh);
}
