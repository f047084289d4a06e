#include "orchestrator/sweep/sweep_sched.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

enum { GPU_FREE, GPU_BUSY, GPU_QUARANTINED, GPU_EXTERNAL };

/* The slots group_fits looks at: a pool larger than this is rare and only
 * counts its first slots' groups. */
#define GPU_SLOTS_MAX 64

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void sweep_sched_init(struct sweep_sched *s, const int *pool, size_t n_pool, size_t jobs_max,
		      unsigned patience)
{
	memset(s, 0, sizeof(*s));
	s->ordinals = xcalloc(n_pool ? n_pool : 1, sizeof(int));
	s->state = xcalloc(n_pool ? n_pool : 1, 1);
	s->slot_group = xcalloc(n_pool ? n_pool : 1, sizeof(size_t));
	if (n_pool)
		memcpy(s->ordinals, pool, n_pool * sizeof(int));
	qsort(s->ordinals, n_pool, sizeof(int), cmp_int);
	for (size_t i = 0; i < n_pool; i++)
		if (!s->n_gpus || s->ordinals[s->n_gpus - 1] != s->ordinals[i])
			s->ordinals[s->n_gpus++] = s->ordinals[i];
	s->jobs_max = jobs_max;
	s->patience = patience ? patience : (unsigned)(s->n_gpus ? s->n_gpus : 1);
}

void sweep_sched_release(struct sweep_sched *s)
{
	free(s->ordinals);
	free(s->state);
	free(s->slot_group);
	free(s->pending);
	memset(s, 0, sizeof(*s));
}

void sweep_sched_add(struct sweep_sched *s, size_t id, int gpus)
{
	sweep_sched_add_expected(s, id, gpus, 0, -1);
}

static void grow_pending(struct sweep_sched *s)
{
	if (s->n_pending == s->alloc_pending) {
		s->alloc_pending = s->alloc_pending ? 2 * s->alloc_pending : 16;
		s->pending = xrealloc(s->pending, s->alloc_pending * sizeof(*s->pending));
	}
}

/* Unknown durations sort as the longest. */
static bool runs_longer(double a, double b)
{
	if (a < 0)
		return b >= 0;
	return b >= 0 && a > b;
}

void sweep_sched_add_expected(struct sweep_sched *s, size_t id, int gpus,
			      unsigned long long avoid, double expected)
{
	sweep_sched_add_grouped(s, id, gpus, avoid, expected, 0);
}

/* Whether a case of group g expected to run e goes before c. */
static bool goes_before(size_t g, double e, const struct sweep_sched_case *c)
{
	return g < c->group || (g == c->group && runs_longer(e, c->expected));
}

void sweep_sched_add_grouped(struct sweep_sched *s, size_t id, int gpus,
			     unsigned long long avoid, double expected, size_t group)
{
	size_t at;

	grow_pending(s);
	/* From the back: after every case of its group expected to run as
	 * long or longer. */
	for (at = s->n_pending; at > 0 && goes_before(group, expected, &s->pending[at - 1]); at--)
		;
	memmove(&s->pending[at + 1], &s->pending[at], (s->n_pending - at) * sizeof(*s->pending));
	s->n_pending++;
	s->pending[at] = (struct sweep_sched_case){ id, gpus < 1 ? 1 : gpus, 0, avoid, expected,
						    group };
}

static size_t count_state(const struct sweep_sched *s, unsigned char st)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_gpus; i++)
		n += s->state[i] == st;
	return n;
}

size_t sweep_sched_usable(const struct sweep_sched *s)
{
	return s->n_gpus - count_state(s, GPU_QUARANTINED);
}

size_t sweep_sched_n_free(const struct sweep_sched *s)
{
	return count_state(s, GPU_FREE);
}

static void take(struct sweep_sched *s, size_t k, size_t *id, int *gpus_out)
{
	int need = s->pending[k].gpus, got = 0;
	unsigned long long avoid = s->pending[k].avoid;

	/* Lowest free first, the avoided ones only when nothing else is free. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->n_gpus && got < need; i++) {
			int o = s->ordinals[i];
			bool avoided = o >= 0 && o < 64 && (avoid & (1ull << o));

			if (s->state[i] == GPU_FREE && avoided == (pass == 1)) {
				s->state[i] = GPU_BUSY;
				s->slot_group[i] = s->pending[k].group;
				gpus_out[got++] = o;
			}
		}
	*id = s->pending[k].id;
	s->taken_group = s->pending[k].group;
	memmove(&s->pending[k], &s->pending[k + 1], (s->n_pending - k - 1) * sizeof(*s->pending));
	s->n_pending--;
	s->running++;
}

/* Whether group g may start a case: with it, the groups running and the
 * first pending one are at most max_groups. */
static bool group_fits(const struct sweep_sched *s, size_t g)
{
	size_t seen[GPU_SLOTS_MAX + 2], n = 0;

	if (!s->max_groups)
		return true;
	seen[n++] = g;
	if (s->pending[0].group != g)
		seen[n++] = s->pending[0].group;
	for (size_t i = 0; i < s->n_gpus && i < GPU_SLOTS_MAX; i++) {
		bool known = false;

		if (s->state[i] != GPU_BUSY)
			continue;
		for (size_t k = 0; k < n; k++)
			known |= seen[k] == s->slot_group[i];
		if (!known)
			seen[n++] = s->slot_group[i];
	}
	return n <= s->max_groups;
}

enum sweep_sched_verdict sweep_sched_next(struct sweep_sched *s, size_t *id, int *gpus_out)
{
	size_t usable = sweep_sched_usable(s), free_now = sweep_sched_n_free(s);

	/* Blocked first: whatever else happens, these never run. */
	for (size_t k = 0; k < s->n_pending; k++)
		if ((size_t)s->pending[k].gpus > usable) {
			*id = s->pending[k].id;
			memmove(&s->pending[k], &s->pending[k + 1],
				(s->n_pending - k - 1) * sizeof(*s->pending));
			s->n_pending--;
			return SCHED_BLOCKED;
		}
	if (!s->n_pending)
		return SCHED_IDLE;
	if (s->jobs_max && s->running >= s->jobs_max)
		return SCHED_WAIT;
	for (size_t k = 0; k < s->n_pending; k++) {
		if (!group_fits(s, s->pending[k].group))
			continue;
		if ((size_t)s->pending[k].gpus <= free_now) {
			/* Everything before k is overtaken once more. */
			for (size_t j = 0; j < k; j++)
				s->pending[j].overtaken++;
			take(s, k, id, gpus_out);
			return SCHED_START;
		}
		if (s->pending[k].overtaken >= s->patience)
			break; /* k reserves: nothing after it may start first */
	}
	return SCHED_WAIT;
}

void sweep_sched_finish(struct sweep_sched *s, const int *gpus, size_t n, bool quarantine)
{
	for (size_t g = 0; g < n; g++)
		for (size_t i = 0; i < s->n_gpus; i++)
			if (s->ordinals[i] == gpus[g] && s->state[i] == GPU_BUSY)
				s->state[i] = quarantine ? GPU_QUARANTINED : GPU_FREE;
	if (s->running)
		s->running--;
}

void sweep_sched_quarantine(struct sweep_sched *s, int ordinal)
{
	for (size_t i = 0; i < s->n_gpus; i++)
		if (s->ordinals[i] == ordinal)
			s->state[i] = GPU_QUARANTINED;
}

bool sweep_sched_is_quarantined(const struct sweep_sched *s, int ordinal)
{
	for (size_t i = 0; i < s->n_gpus; i++)
		if (s->ordinals[i] == ordinal)
			return s->state[i] == GPU_QUARANTINED;
	return false;
}

void sweep_sched_requeue(struct sweep_sched *s, size_t id, int gpus_needed, const int *gpus,
			 size_t n, int held_by_other)
{
	sweep_sched_finish(s, gpus, n, false);
	for (size_t i = 0; i < s->n_gpus; i++)
		if (s->ordinals[i] == held_by_other && s->state[i] == GPU_FREE)
			s->state[i] = GPU_EXTERNAL;
	/* Back to the front of its group: it was next in line (as unknown:
	 * the front is where the longest ones are). */
	size_t at = 0;

	while (at < s->n_pending && s->pending[at].group < s->taken_group)
		at++;
	grow_pending(s);
	memmove(&s->pending[at + 1], &s->pending[at], (s->n_pending++ - at) * sizeof(*s->pending));
	s->pending[at] = (struct sweep_sched_case){ id, gpus_needed < 1 ? 1 : gpus_needed, 0, 0, -1,
						    s->taken_group };
}

void sweep_sched_recheck(struct sweep_sched *s)
{
	for (size_t i = 0; i < s->n_gpus; i++)
		if (s->state[i] == GPU_EXTERNAL)
			s->state[i] = GPU_FREE;
}

bool sweep_sched_has_external(const struct sweep_sched *s)
{
	return count_state(s, GPU_EXTERNAL) > 0;
}
