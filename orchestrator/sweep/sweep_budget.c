#include "orchestrator/sweep/sweep_budget.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/lease/gpu_lease.h"
#include "orchestrator/sweep/sweep_pin.h"

#define MIB(x) ((double)(x) / (1024.0 * 1024.0))

/* The names the hold lists: the pins of the images with cases left. */
static void hold_update(struct sweep_budget *b)
{
	cleanup_strvec struct strvec names = STRVEC_INIT;

	for (size_t i = 0; i < b->meta->n_images; i++) {
		const struct sweep_image *im = &b->meta->images[i];

		if (!b->left[i])
			continue;
		if (im->digest)
			strvec_push(&names, im->digest);
		if (b->ids[i] || im->id)
			strvec_push(&names, b->ids[i] ? b->ids[i] : im->id);
	}
	image_hold_set(&b->hold, &names);
}

void sweep_budget_init(struct sweep_budget *b, const struct sweep_meta *m, struct engine *e,
		       long long limit, const char *owner, const char *fates_path,
		       const struct job_events *ev)
{
	struct error err;

	memset(b, 0, sizeof(*b));
	b->hold.fd = -1;
	b->limit = limit;
	b->meta = m;
	b->engine = e;
	b->ev = ev;
	b->dir = gpu_lease_dir(NULL);
	b->owner = xasprintf("%s sweep %s", owner ? owner : "?", m->id);
	b->left = xcalloc(m->n_images + 1, sizeof(*b->left));
	b->ids = xcalloc(m->n_images + 1, sizeof(*b->ids));
	b->ours = xcalloc(m->n_images + 1, sizeof(*b->ours));
	b->fates_path = fates_path;
	sweep_image_fates_init(&b->fates, m->n_images);
	/* A resumed run carries on what the earlier run knew (when it pulled). */
	if (fates_path)
		(void)sweep_image_fates_read(fates_path, &b->fates, ERROR_DISCARD);
	b->peak = b->fates.peak;
	/* Per process: two Slurm tasks of one sweep on a node hold apart. */
	cleanup_free char *who = xasprintf("%s-%ld", m->id, (long)getpid());

	/* Every sweep holds its images, with a budget or not: another's
	 * budget must not remove them. */
	if (image_hold_take(&b->hold, b->dir, who, NULL, &err) < 0 && limit)
		events_warning(ev, "--image-budget: %s: other sweeps may remove this one's images",
			       err.msg);
}

void sweep_budget_release(struct sweep_budget *b)
{
	image_hold_release(&b->hold, b->dir);
	for (size_t i = 0; b->meta && i < b->meta->n_images; i++)
		free(b->ids[i]);
	free(b->ids);
	free(b->left);
	free(b->ours);
	free(b->owner);
	sweep_image_fates_release(&b->fates);
	memset(b, 0, sizeof(*b));
	b->hold.fd = -1;
}

void sweep_budget_hold(struct sweep_budget *b)
{
	hold_update(b);
}

void sweep_budget_case_queued(struct sweep_budget *b, size_t i)
{
	if (i < b->meta->n_images)
		b->left[i]++;
}

/* Whether image entry e is one of this sweep's with cases left. */
static bool needed_here(const struct sweep_budget *b, const struct pulled_image *e)
{
	for (size_t i = 0; i < b->meta->n_images; i++) {
		const struct sweep_image *im = &b->meta->images[i];

		if (!b->left[i])
			continue;
		if ((b->ids[i] && !strcmp(b->ids[i], e->id)) || (im->id && !strcmp(im->id, e->id)) ||
		    (im->digest && e->digest && !strcmp(im->digest, e->digest)))
			return true;
	}
	return false;
}

/* An entry's layers, once (an image ID's layers never change): its
 * RootFS.Layers paired with its history's sizes. Not paired, it counts
 * its whole size, as before the record kept layers. */
static void learn_layers(struct engine *e, struct pulled_image *entry,
			 const struct engine_image_info *info)
{
	struct engine_image_history h = { 0 };

	if (entry->layers.n || !info->layers.n ||
	    engine_image_history(e, entry->id, &h, ERROR_DISCARD) < 0)
		return;
	(void)image_layers_pair(&info->layers, h.sizes, h.n, &entry->layers);
	engine_image_history_release(&h);
}

/* The record's entries still on the engine, their sizes refreshed and
 * their layers learnt; the others dropped. b->used is the disk they take
 * together, each distinct layer once. */
static void refresh(struct sweep_budget *b, struct pulled_images *list)
{
	for (size_t k = list->n; k-- > 0;) {
		struct engine_image_info info = { 0 };
		struct error err;

		if (engine_image_inspect(b->engine, list->v[k].id, &info, &err) < 0) {
			if (err.kind == ERR_NOT_FOUND)
				pulled_images_drop(list, list->v[k].id);
			continue;
		}
		if (info.size >= 0)
			list->v[k].size = info.size;
		learn_layers(b->engine, &list->v[k], &info);
		engine_image_info_release(&info);
	}
	b->used = pulled_images_disk(list);
	if (b->used > b->peak)
		b->peak = b->used;
}

/* The least recently used entry that may go, or NULL. */
static struct pulled_image *lru_removable(const struct sweep_budget *b,
					  const struct pulled_images *list, bool *skip)
{
	struct pulled_image *best = NULL;

	for (size_t k = 0; k < list->n; k++) {
		struct pulled_image *e = &list->v[k];

		if (skip[k] || needed_here(b, e) ||
		    image_held_by_others(b->dir, &b->hold, e->id, e->digest))
			continue;
		if (!best || e->last_used < best->last_used)
			best = e;
	}
	return best;
}

static bool present(struct engine *e, const char *name)
{
	struct engine_image_info info = { 0 };
	bool here = engine_image_inspect(e, name, &info, ERROR_DISCARD) == 0;

	engine_image_info_release(&info);
	return here;
}

/* The fate of this sweep's images of ID id (a removal's with its time). */
static void fate_set(struct sweep_budget *b, const char *id, enum image_fate fate)
{
	for (size_t i = 0; i < b->meta->n_images; i++)
		if (b->ids[i] && !strcmp(b->ids[i], id)) {
			b->fates.v[i].fate = fate;
			b->fates.v[i].removed = fate == IMAGE_FATE_REMOVED ? (long long)time(NULL) : 0;
		}
}

/* Remove what may go until need more fits; true when it does. */
static bool make_room(struct sweep_budget *b, struct pulled_images *list, long long need)
{
	cleanup_free bool *skip = xcalloc(list->n + 1, sizeof(bool));
	struct pulled_image *e;

	while (b->used + need > b->limit && (e = lru_removable(b, list, skip))) {
		struct error err = { 0 };
		size_t at = (size_t)(e - list->v), last = list->n - 1;
		long long size = e->size;
		cleanup_free char *id = xstrdup(e->id);

		/* The pinned reference untagged, never forced: an image a
		 * container uses, or that someone tagged since, stays. */
		if (engine_image_remove(b->engine, e->digest ? e->digest : e->id, &err) < 0 ||
		    present(b->engine, id)) {
			events_info(b->ev, 0, "--image-budget: %s stays (%s)", e->ref ? e->ref : id,
				    err.msg[0] ? err.msg : "in use, or tagged since");
			fate_set(b, id, IMAGE_FATE_IN_USE);
			skip[at] = true;
			continue;
		}
		events_info(b->ev, 0, "--image-budget: removed %s (%.1f MiB), pulled by %s",
			    e->ref ? e->ref : id, MIB(size), e->owner ? e->owner : "?");
		pulled_images_drop(list, id);
		b->used = pulled_images_disk(list);
		fate_set(b, id, IMAGE_FATE_REMOVED);
		skip[at] = skip[last]; /* the last entry moved into the freed slot */
	}
	return b->used + need <= b->limit;
}

/* Whether one of this sweep's own images, pulled by it, still has cases
 * running or queued: room comes when they end. */
static bool own_images_pending(const struct sweep_budget *b, size_t except)
{
	for (size_t i = 0; i < b->meta->n_images; i++)
		if (i != except && b->left[i] && b->ours[i])
			return true;
	return false;
}

/* Room made for image i, as far as what may go allows: 1 it fits, 0 not,
 * -1 the record could not be opened (warned when warn). */
static int room_for(struct sweep_budget *b, size_t i, bool warn)
{
	const struct sweep_image *im = &b->meta->images[i];
	struct image_record rec;
	struct error err;
	long long need = im->manifest_size > 0 ? im->manifest_size : 0;
	bool fits;

	if (image_record_open(&rec, b->dir, &err) < 0) {
		if (warn)
			events_warning(b->ev, "--image-budget: %s: pulling %s without making room",
				       err.msg, im->ref);
		return -1;
	}
	refresh(b, &rec.list);
	/* Unknown (a pin by ID that went): as large as the largest recorded. */
	for (size_t k = 0; !need && k < rec.list.n; k++)
		if (rec.list.v[k].size > need)
			need = rec.list.v[k].size;
	fits = make_room(b, &rec.list, need ? need : 1);
	if (image_record_save(&rec, &err) < 0)
		events_warning(b->ev, "--image-budget: %s", err.msg);
	image_record_close(&rec);
	return fits;
}

enum budget_room sweep_budget_before_pull(struct sweep_budget *b, size_t i)
{
	const struct sweep_image *im = &b->meta->images[i];

	if (!b->limit || !b->engine)
		return BUDGET_GO;
	/* Already here (the user's, or pulled before): nothing to make room for. */
	if (sweep_pin_name(im) && present(b->engine, sweep_pin_name(im)))
		return BUDGET_GO;
	if (room_for(b, i, true) != 0 || !own_images_pending(b, i))
		return BUDGET_GO;
	return BUDGET_WAIT;
}

enum ahead_room sweep_budget_ahead(struct sweep_budget *b, size_t i)
{
	const struct sweep_image *im = &b->meta->images[i];

	if (!b->engine || (sweep_pin_name(im) && present(b->engine, sweep_pin_name(im))))
		return AHEAD_ROOM_HERE;
	if (!b->limit)
		return AHEAD_ROOM_FITS;
	/* Not when it would be pulled anyway, over the budget: that is for
	 * its own turn to decide (sweep_budget_before_pull), with a record
	 * that can be read. */
	return room_for(b, i, false) == 1 ? AHEAD_ROOM_FITS : AHEAD_ROOM_NONE;
}

void sweep_budget_after_pull(struct sweep_budget *b, size_t i, const char *id, bool pulled)
{
	struct image_record rec;
	struct pulled_image *e;
	struct error err;
	long long now = (long long)time(NULL);

	if (!id)
		return;
	free(b->ids[i]);
	b->ids[i] = xstrdup(id);
	hold_update(b);
	b->fates.v[i] = (struct sweep_image_fate){
		.pulled = pulled ? now : b->fates.v[i].pulled, .fate = IMAGE_FATE_UNKNOWN };
	if (!b->limit)
		return;
	if (image_record_open(&rec, b->dir, &err) < 0) {
		events_warning(b->ev, "--image-budget: %s", err.msg);
		return;
	}
	e = pulled_images_find(&rec.list, id);
	if (pulled && !e) {
		pulled_images_put(&rec.list, &(struct pulled_image){
			.id = (char *)id, .ref = b->meta->images[i].ref,
			.digest = b->meta->images[i].digest, .owner = b->owner, .size = 0,
			.pulled = now, .last_used = now });
		e = pulled_images_find(&rec.list, id);
	}
	if (e) {
		b->ours[i] = true;
		e->last_used = now;
	}
	refresh(b, &rec.list);
	if (b->used > b->limit)
		events_warning(b->ev, "--image-budget: the images this tool pulled take %.1f MiB, "
			       "%.1f MiB over the budget of %.1f MiB (%s was larger than its "
			       "manifest said)", MIB(b->used), MIB(b->used - b->limit),
			       MIB(b->limit), b->meta->images[i].ref);
	if (image_record_save(&rec, &err) < 0)
		events_warning(b->ev, "--image-budget: %s", err.msg);
	image_record_close(&rec);
}

void sweep_budget_case_ended(struct sweep_budget *b, size_t i)
{
	if (i >= b->meta->n_images || !b->left[i])
		return;
	if (--b->left[i] == 0)
		hold_update(b);
}

/* Why image i, set up by this sweep and not removed, stays. */
static enum image_fate why_kept(const struct sweep_budget *b, size_t i)
{
	const struct sweep_image *im = &b->meta->images[i];

	if (b->fates.v[i].fate == IMAGE_FATE_IN_USE)
		return IMAGE_FATE_IN_USE;
	if (!b->fates.v[i].pulled && !b->ours[i])
		return IMAGE_FATE_USERS;
	if (!b->limit)
		return IMAGE_FATE_NO_BUDGET;
	if (image_held_by_others(b->dir, &b->hold, b->ids[i], im->digest))
		return IMAGE_FATE_HELD;
	return IMAGE_FATE_FITS;
}

/* Each image's fate into the sweep folder. */
static void fates_write(struct sweep_budget *b)
{
	struct error err;

	for (size_t i = 0; i < b->meta->n_images; i++)
		if (b->ids[i] && b->fates.v[i].fate != IMAGE_FATE_REMOVED)
			b->fates.v[i].fate = why_kept(b, i);
	if (b->peak > b->fates.peak)
		b->fates.peak = b->peak;
	if (b->fates_path && sweep_image_fates_write(b->fates_path, &b->fates, &err) < 0)
		events_warning(b->ev, "the sweep's images: %s", err.msg);
}

void sweep_budget_finish(struct sweep_budget *b)
{
	struct image_record rec;
	struct error err;

	if (!b->meta)
		return;
	/* A removal refused earlier says nothing of now: asked again below. */
	for (size_t i = 0; i < b->meta->n_images; i++)
		if (b->fates.v[i].fate == IMAGE_FATE_IN_USE)
			b->fates.v[i].fate = IMAGE_FATE_UNKNOWN;
	if (b->limit && b->engine && image_record_open(&rec, b->dir, &err) == 0) {
		refresh(b, &rec.list);
		(void)make_room(b, &rec.list, 0);
		if (image_record_save(&rec, &err) < 0)
			events_warning(b->ev, "--image-budget: %s", err.msg);
		image_record_close(&rec);
	}
	fates_write(b);
}

/* One entry of gc: 1 removed (or would be), 0 kept (kept says why). */
static int gc_one(struct engine *e, const struct pulled_image *im, long long cutoff,
		  bool dry_run, const char *dir, struct strvec *kept)
{
	const char *name = im->ref ? im->ref : im->id;
	struct error err = { 0 };

	if (cutoff && im->last_used > cutoff) {
		strvec_pushf(kept, "%s: used since --older-than", name);
		return 0;
	}
	if (image_held_by_others(dir, NULL, im->id, im->digest)) {
		strvec_pushf(kept, "%s: a running sweep holds it", name);
		return 0;
	}
	if (dry_run)
		return 1;
	if (engine_image_remove(e, im->digest ? im->digest : im->id, &err) < 0 ||
	    present(e, im->id)) {
		strvec_pushf(kept, "%s: %s", name, err.msg[0] ? err.msg : "in use, or tagged since");
		return 0;
	}
	return 1;
}

int sweep_budget_gc(struct engine *e, long long older_than_s, bool dry_run,
		    struct strvec *removed, struct strvec *kept, struct error *err)
{
	const char *dir = gpu_lease_dir(NULL);
	long long cutoff = older_than_s ? (long long)time(NULL) - older_than_s : 0;
	struct sweep_budget b = { .engine = e };
	struct image_record rec;

	if (gpu_lease_dir_prepare(dir, err) < 0 || image_record_open(&rec, dir, err) < 0)
		return -1;
	refresh(&b, &rec.list);
	for (size_t k = rec.list.n; k-- > 0;) {
		struct pulled_image *im = &rec.list.v[k];
		cleanup_free char *id = xstrdup(im->id);

		if (!gc_one(e, im, cutoff, dry_run, dir, kept))
			continue;
		strvec_pushf(removed, "%s (%.1f MiB, pulled by %s)", im->ref ? im->ref : id,
			     MIB(im->size), im->owner ? im->owner : "?");
		if (!dry_run)
			pulled_images_drop(&rec.list, id);
	}
	if (!dry_run && image_record_save(&rec, err) < 0) {
		image_record_close(&rec);
		return -1;
	}
	image_record_close(&rec);
	return 0;
}
