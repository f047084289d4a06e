#include "orchestrator/sweep/sweep_image.h"

#include <stdio.h>
#include <string.h>

void sweep_image_env_init(struct sweep_image_env *e)
{
	memset(e, 0, sizeof(*e));
	image_env_init(&e->env);
}

void sweep_image_env_release(struct sweep_image_env *e)
{
	image_env_release(&e->env);
	sweep_image_env_init(e);
}

void sweep_shared_setup(struct sweep_shared *sh, const struct overlay_sources *src)
{
	struct error err;

	memset(sh, 0, sizeof(*sh));
	if (!src)
		return;
	if (overlay_resolve(src, &sh->overlay, &err) < 0)
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

void sweep_image_setup(struct sweep_image_env *e, const struct replay_host *h,
		       const struct image_setup *s, const struct sweep_shared *sh, const char *ref,
		       const char *pinned_id)
{
	struct error err;

	if (sh->overlay_error[0]) {
		snprintf(e->error, sizeof(e->error), "--mount-clr: %s", sh->overlay_error);
		return;
	}
	/* A resumed sweep replays the ID it pinned, never what the tag
	 * points at now. */
	if (image_setup_pin(&e->env, h->engine, s, ref, pinned_id, &err) < 0) {
		snprintf(e->error, sizeof(e->error), "image %s: %s", ref, err.msg);
		return;
	}
	if (image_setup_lookups(&e->env, h, s, sh->use_overlay ? &sh->overlay : NULL, true,
				&err) < 0) {
		snprintf(e->error, sizeof(e->error), "image %s: %s", e->env.img.ref, err.msg);
		return;
	}
	e->ok = true;
}
