#include "orchestrator/replay/image_setup.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "common/cleanup.h"
#include "orchestrator/replay/replay_plan.h"
#include "orchestrator/replay/stack_probe.h"
#include "preflight/stack_files.h"

void image_env_init(struct image_env *e)
{
	memset(e, 0, sizeof(*e));
	strvec_init(&e->img.env);
	stack_info_init(&e->stack);
}

void image_env_release(struct image_env *e)
{
	image_facts_release(&e->img);
	free(e->playback);
	stack_info_release(&e->stack);
	image_env_init(e);
}

/* The stack the replay will load: the overlay's when mounted, else the
 * image's (cached by image ID). Unknown is a preflight warning, never a
 * failure. */
void replay_read_stack(const struct replay_host *h, const struct image_facts *img,
		       const struct overlay_paths *overlay, const struct strvec *extra_ld,
		       struct ours_probe *probe, struct stack_info *out)
{
	cleanup_strvec struct strvec dirs = STRVEC_INIT;
	struct error err;
	int r;

	if (overlay) {
		if (overlay_stack_probe(overlay->clr_lib, out, &err) < 0)
			out->unknown_reason = xasprintf("host CLR overlay: %s", err.msg);
		return;
	}
	plan_image_library_dirs(extra_ld, img->repository, &img->env, &dirs);
	if (probe)
		r = image_stack_probe_shared(probe, img->ref, img->id, &dirs, h->cache_dir, out, &err);
	else
		r = image_stack_probe(h->engine, img->ref, img->id, &dirs, h->cache_dir, out, &err);
	if (r < 0)
		out->unknown_reason = xasprintf("image %s: %s", img->ref, err.msg);
}

int image_setup_pin(struct image_env *e, struct engine *engine, const struct image_setup *s,
		    const char *ref, const char *pinned_id, struct error *err)
{
	if (image_ensure(engine, pinned_id ? pinned_id : ref, pinned_id ? PULL_NEVER : s->pull,
			 s->events, s->verbosity, &e->img, err) < 0)
		return -1;
	if (pinned_id) {
		free(e->img.ref);
		e->img.ref = xstrdup(ref);
	}
	return 0;
}

int image_playback_resolve(struct ours_probe *probe, const struct image_facts *img,
			   const char *cache_dir, const char *given, bool overlay, char **out,
			   struct error *err)
{
	if (given || overlay) {
		*out = xstrdup(given ? given : OVERLAY_PLAYBACK);
		return 0;
	}
	return image_find_playback_shared(probe, img, cache_dir, out, err);
}

int image_setup_lookups(struct image_env *e, const struct replay_host *h,
			const struct image_setup *s, const struct overlay_paths *overlay,
			bool playback_required, struct error *err)
{
	struct ours_probe probe = { .engine = h->engine, .image = e->img.id,
				    .image_name = e->img.ref };
	int rc = 0;

	if (image_playback_resolve(&probe, &e->img, h->cache_dir, s->playback, overlay != NULL,
				   &e->playback, err) < 0 && playback_required)
		rc = -1;
	if (rc == 0 && !s->skip_preflight) {
		replay_read_stack(h, &e->img, overlay, s->extra_ld, &probe, &e->stack);
		e->have_stack = true;
	}
	/* Best effort: gc removes a probe left behind (LABEL_PROBE). */
	(void)ours_probe_release(&probe, ERROR_DISCARD);
	return rc;
}
