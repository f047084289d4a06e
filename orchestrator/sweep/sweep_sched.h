/* Which case starts next, on which GPUs (docs/sweep.md "What a sweep does"). Pure: no clock, no processes; the command layer asks for the next
 * start whenever a slot frees and reports each finish.
 *
 * Cases run on disjoint GPUs. Cases are considered longest first, by the
 * duration the caller expects of each (the history's last; unknown ones
 * first, as if long; ties in the order added), so the night does not wait
 * on a long case started last. A later
 * case may overtake one that does not fit yet (backfill), but once a case
 * has been overtaken `patience` times it reserves: nothing after it starts
 * until it has, so a 4-GPU case is never starved by a stream of 1-GPU ones.
 * A case needing more GPUs than the usable pool (pool minus quarantined) is
 * blocked at once.
 *
 * Cases come in groups (a sweep's images): every case of a lower group is
 * considered before any of a higher one, longest first within a group, and
 * with max_groups set no case starts that would have more groups running
 * (the first pending one counted as running) than that: a sweep needs at
 * most two images at a time. */
#ifndef HRR_SWEEP_SWEEP_SCHED_H
#define HRR_SWEEP_SWEEP_SCHED_H

#include <stdbool.h>
#include <stddef.h>

struct sweep_sched_case {
	size_t id;         /* the caller's case index */
	int gpus;          /* GPUs it needs, >= 1 */
	unsigned overtaken;
	unsigned long long avoid; /* ordinals (< 64) to take only when no other is free */
	double expected;   /* seconds it is expected to run; < 0 unknown */
	size_t group;      /* its image: lower groups go first */
};

struct sweep_sched {
	int *ordinals;        /* the pool, ascending */
	unsigned char *state; /* per pool slot: free, busy, quarantined */
	size_t *slot_group;   /* per pool slot: the group of the case it runs, when busy */
	size_t n_gpus;
	size_t jobs_max;      /* 0: as many as the GPUs allow */
	size_t running;
	unsigned patience;
	size_t max_groups;    /* 0: any number of groups at once */
	struct sweep_sched_case *pending;
	size_t n_pending, alloc_pending;
	size_t taken_group;   /* the group of the case last started (requeue keeps it) */
};

enum sweep_sched_verdict {
	SCHED_START,   /* *id starts on gpus_out */
	SCHED_BLOCKED, /* *id can never run here (more GPUs than usable) */
	SCHED_WAIT,    /* nothing can start until a running case finishes */
	SCHED_IDLE,    /* nothing pending */
};

/* pool: host ordinals the sweep may use (--gpus), duplicates ignored.
 * patience 0 picks the default (the pool size). */
void sweep_sched_init(struct sweep_sched *s, const int *pool, size_t n_pool, size_t jobs_max,
		      unsigned patience);
void sweep_sched_release(struct sweep_sched *s);
/* Queue a case of unknown duration: after the unknown ones already queued. */
void sweep_sched_add(struct sweep_sched *s, size_t id, int gpus);
/* Queue a case expected to run `expected` seconds (< 0 unknown): after the
 * cases expected to run as long or longer. Adding in that order costs
 * O(1) a case. It prefers GPUs outside avoid (a retry: not where it
 * failed). */
void sweep_sched_add_expected(struct sweep_sched *s, size_t id, int gpus,
			      unsigned long long avoid, double expected);
/* The same in group (sweep_sched_add_expected's is group 0): after every
 * case of a lower group, before every case of a higher one. */
void sweep_sched_add_grouped(struct sweep_sched *s, size_t id, int gpus,
			     unsigned long long avoid, double expected, size_t group);
/* The next decision. On SCHED_START gpus_out (room for the case's count)
 * gets the lowest free ordinals, which are now busy. */
enum sweep_sched_verdict sweep_sched_next(struct sweep_sched *s, size_t *id, int *gpus_out);
/* A started case finished: its GPUs are free again, or quarantined (its
 * replay could not be stopped) for the rest of the sweep. */
void sweep_sched_finish(struct sweep_sched *s, const int *gpus, size_t n, bool quarantine);
/* A start that could not take its GPUs (another sweep or run holds
 * `held_by_other`), called before the next sweep_sched_next: the GPUs are
 * free again, the case goes back to the front (in its group), and
 * held_by_other is not offered until sweep_sched_recheck. */
void sweep_sched_requeue(struct sweep_sched *s, size_t id, int gpus_needed, const int *gpus,
			 size_t n, int held_by_other);
/* Offer the GPUs held by others again (their holder may be done). */
void sweep_sched_recheck(struct sweep_sched *s);
/* True when some GPU is waiting for another holder. */
bool sweep_sched_has_external(const struct sweep_sched *s);
/* How many GPUs are not quarantined; how many are free now. */
size_t sweep_sched_usable(const struct sweep_sched *s);
size_t sweep_sched_n_free(const struct sweep_sched *s);
bool sweep_sched_is_quarantined(const struct sweep_sched *s, int ordinal);
/* Take a GPU out of the pool for the rest of the sweep (a suspect GPU
 * under --quarantine-gpus); a case running on it finishes first. */
void sweep_sched_quarantine(struct sweep_sched *s, int ordinal);

#endif
