/* The pure half of the notifications (orchestrator/notify/notify.h): which
 * transitions a report holds, which of them a target takes, and the
 * idempotency key. The document is notify_render.c's, the schedule and
 * the URLs notify_delivery.c's. */
#include "orchestrator/notify/notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/xalloc.h"

static bool is_alarm(enum sweep_status s)
{
	return s == ST_REGRESSED || s == ST_CHANGED;
}

static unsigned long long hash_str(unsigned long long h, const char *s)
{
	s = s ? s : "";
	return text_fnv1a64(h, s, strlen(s) + 1);
}

static void push(struct notify_doc *d, struct notify_item it)
{
	d->items = xrealloc(d->items, (d->n + 1) * sizeof(*d->items));
	d->items[d->n++] = it;
}

/* A case's transition is remembered by kind, case and image: a resume
 * that finds the same regression does not announce it again. */
static struct notify_item case_item(enum notify_kind k, const struct report_case *c)
{
	struct notify_item it = { .kind = k, .c = c };
	unsigned long long h = hash_str(hash_str(TEXT_FNV1A64_INIT, c->case_name), c->image);

	snprintf(it.key, sizeof(it.key), "%s:%016llx", k == NOTIFY_ALARM ? "alarm" : "recover", h);
	return it;
}

static struct notify_item gpu_item(const struct sweep_gpu_note *g)
{
	struct notify_item it = { .kind = NOTIFY_GPU, .gpu = g };

	if (g->unique_id)
		snprintf(it.key, sizeof(it.key), "gpu:%llu", g->unique_id);
	else
		snprintf(it.key, sizeof(it.key), "gpu:%.64s:%d", g->host, g->gpu);
	return it;
}

/* A change point is remembered by its series and night. */
static struct notify_item change_item(const struct report_changepoint *cp)
{
	struct notify_item it = { .kind = NOTIFY_CHANGE, .cp = cp };
	unsigned long long h = hash_str(hash_str(hash_str(hash_str(TEXT_FNV1A64_INIT,
								      cp->case_name),
							     cp->image),
						    cp->gfx),
					   cp->sweep);

	snprintf(it.key, sizeof(it.key), "change:%016llx:%ld", h, cp->device_id);
	return it;
}

void notify_transitions(const struct report *r, const struct sweep_gpu_note *before,
			size_t n_before, const char *folder, struct notify_doc *out)
{
	memset(out, 0, sizeof(*out));
	out->r = r;
	out->folder = folder;
	for (size_t i = 0; i < r->n; i++)
		if (is_alarm(r->cases[i].status))
			push(out, case_item(NOTIFY_ALARM, &r->cases[i]));
	for (size_t i = 0; i < r->n; i++)
		if (r->cases[i].status == ST_FIXED)
			push(out, case_item(NOTIFY_RECOVER, &r->cases[i]));
	for (size_t i = 0; i < r->n_gpu_notes; i++) {
		const struct sweep_gpu_note *g = &r->gpu_notes[i];
		bool seen = false;

		for (size_t k = 0; k < n_before && !seen; k++)
			seen = sweep_gpu_is(&before[k], g->host, g->gpu, g->unique_id);
		if (!seen)
			push(out, gpu_item(g));
	}
	for (size_t i = 0; i < r->n_changepoints; i++)
		push(out, change_item(&r->changepoints[i]));
	notify_select(out, NULL, NULL);
}

static bool takes(const struct notify_item *it, const struct notify_target *t)
{
	if (!t || !t->owner)
		return true;
	/* An owner's target: that owner's known failures, nothing else (a
	 * GPU or a change point belongs to no issue). */
	return it->c && it->c->known_owner && !strcmp(it->c->known_owner, t->owner);
}

void notify_select(struct notify_doc *d, const struct notify_target *t, const struct strvec *sent)
{
	size_t kept = 0;

	d->n_alarms = d->n_recoveries = d->n_gpus = d->n_changes = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct notify_item *it = &d->items[i];
		bool old = false;

		for (size_t k = 0; sent && k < sent->n && !old; k++)
			old = !strcmp(sent->v[k], it->key);
		if (old || !takes(it, t))
			continue;
		d->n_alarms += it->kind == NOTIFY_ALARM;
		d->n_recoveries += it->kind == NOTIFY_RECOVER;
		d->n_gpus += it->kind == NOTIFY_GPU;
		d->n_changes += it->kind == NOTIFY_CHANGE;
		d->items[kept++] = *it;
	}
	d->n = kept;
}

void notify_doc_release(struct notify_doc *d)
{
	free(d->items);
	memset(d, 0, sizeof(*d));
}

void notify_key(const struct notify_doc *d, struct strbuf *out)
{
	unsigned long long h = TEXT_FNV1A64_INIT;

	for (size_t i = 0; i < d->n; i++)
		h = hash_str(h, d->items[i].key);
	strbuf_addf(out, "%s:%016llx", d->r->sweep_id, h);
}
