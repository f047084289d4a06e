#include "orchestrator/sweep/sweep_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/sweep/sweep_engine.h"

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

static bool listed(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return true;
	return false;
}

/* What a failed pull (a full disk, most often) left: the untagged images
 * naming the digest pulled that were not there before it, removed, never
 * forced. Any other untagged image stays: nothing ties it to this pull. */
static void pull_leftovers_remove(struct engine *engine, const char *digest,
				  const struct strvec *before)
{
	cleanup_strvec struct strvec after = STRVEC_INIT;

	if (engine_image_dangling_of(engine, digest, &after, ERROR_DISCARD) < 0)
		return;
	for (size_t i = 0; i < after.n; i++)
		if (!listed(before, after.v[i]))
			(void)engine_image_remove(engine, after.v[i], ERROR_DISCARD);
}

/* The digest pulled (per s->pull); when the pull fails, what it left is
 * removed, as far as the untagged images listed before it tell. */
static int pull_by_digest(struct image_env *env, struct engine *engine,
			  const struct image_setup *s, const char *digest, struct error *err)
{
	cleanup_strvec struct strvec before = STRVEC_INIT;
	bool known = engine_image_dangling_of(engine, digest, &before, ERROR_DISCARD) == 0;
	int r = image_setup_pin(env, engine, s, digest, NULL, err);

	if (r < 0 && known)
		pull_leftovers_remove(engine, digest, &before);
	return r;
}

/* The pin made present: its ID as recorded (never pulled); its digest
 * pulled per --pull (an ID no longer there is pulled by the digest too). */
static int pin_pull(struct image_env *env, struct engine *engine, const struct image_setup *s,
		    const struct sweep_image *pin, struct error *err)
{
	enum pull_policy digest_pull = s->pull == PULL_ALWAYS ? PULL_ALWAYS : PULL_MISSING;
	int r = -1;

	if (pin->id) {
		r = image_setup_pin(env, engine, s, pin->ref, pin->id, err);
		if (r == 0 || err->kind != ERR_NOT_FOUND || !pin->digest)
			return r;
		image_env_release(env);
	}
	if (pin->digest) {
		struct image_setup by_digest = *s;

		by_digest.pull = digest_pull;
		r = pull_by_digest(env, engine, &by_digest, pin->digest, err);
		if (r == 0) {
			free(env->img.ref);
			env->img.ref = xstrdup(pin->ref);
		}
		return r;
	}
	return error_set(err, ERR_NOT_FOUND, 0, "not pinned");
}

static void setup_once(struct sweep_image_env *e, const struct replay_host *h,
		       const struct image_setup *s, const struct sweep_shared *sh,
		       const struct sweep_image *pin)
{
	struct image_setup once = *s;
	struct error err;

	if (sh->overlay_error[0]) {
		snprintf(e->error, sizeof(e->error), "--mount-clr: %s", sh->overlay_error);
		return;
	}
	/* Pulled ahead already (--pull always's pull of the digest included):
	 * found, not pulled again. */
	if (e->pulled_ahead && once.pull == PULL_ALWAYS)
		once.pull = PULL_MISSING;
	/* A resumed sweep, a cluster task and a tag that moved overnight
	 * replay what was pinned at the start, never what the tag points at
	 * now. */
	if (pin_pull(&e->env, h->engine, &once, pin, &err) < 0) {
		snprintf(e->error, sizeof(e->error), "image %s: %s", pin->ref, err.msg);
		return;
	}
	if (image_setup_lookups(&e->env, h, s, sh->use_overlay ? &sh->overlay : NULL, true,
				&err) < 0) {
		snprintf(e->error, sizeof(e->error), "image %s: %s", e->env.img.ref, err.msg);
		return;
	}
	e->ok = true;
}

void sweep_image_prepare(struct sweep_image_env *e, const struct replay_host *h,
			 const struct image_setup *s, const struct sweep_shared *sh,
			 const struct sweep_image *pin, const struct job_events *ev)
{
	if (e->prepared)
		return;
	setup_once(e, h, s, sh, pin);
	/* An engine restarting as the image comes up: its cases wait for it,
	 * they are not the image's errors. */
	if (!e->ok && h->engine && engine_ping(h->engine, ERROR_DISCARD) < 0 &&
	    sweep_engine_wait(h->engine, ev, SWEEP_ENGINE_WAIT_S)) {
		bool ahead = e->pulled_ahead;

		sweep_image_env_release(e);
		e->pulled_ahead = ahead;
		setup_once(e, h, s, sh, pin);
	}
	e->prepared = true;
	if (!e->ok)
		events_error(ev, "%s", e->error);
}

int sweep_image_pull(struct engine *engine, const struct image_setup *s,
		     const struct sweep_image *pin, char **id, bool *pulled, struct error *err)
{
	struct image_env env;
	int r;

	image_env_init(&env);
	r = pin_pull(&env, engine, s, pin, err);
	if (r == 0) {
		*id = steal_pointer(&env.img.id);
		*pulled = env.img.pulled;
	}
	image_env_release(&env);
	return r;
}

void sweep_image_failed(struct sweep_image_env *e, const char *why)
{
	snprintf(e->error, sizeof(e->error), "%s", why);
	e->prepared = true;
	e->ok = false;
}
