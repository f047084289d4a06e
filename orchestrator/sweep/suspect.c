#include "orchestrator/sweep/suspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"

void gpu_suspects_init(struct gpu_suspects *s, size_t n_cases)
{
	memset(s, 0, sizeof(*s));
	s->failed_on = xcalloc(n_cases + 1, sizeof(*s->failed_on));
	s->moved_off = xcalloc(n_cases + 1, sizeof(*s->moved_off));
	s->n_cases = n_cases;
}

void gpu_suspects_release(struct gpu_suspects *s)
{
	free(s->failed_on);
	free(s->moved_off);
	memset(s, 0, sizeof(*s));
}

static unsigned long long mask_of(const int *gpus, size_t n)
{
	unsigned long long m = 0;

	for (size_t i = 0; i < n; i++)
		if (gpus[i] >= 0 && gpus[i] < GPU_MAX)
			m |= 1ull << gpus[i];
	return m;
}

/* What a GPU itself can cause, whichever kernel runs: a class against the
 * GPU (finding_class_against_gpu: a reset for a hang, an ECC error, a
 * hardware exception), a hang, or a queue abort the runtime gave no more
 * specific reason for (replay_aborted). A wrong image
 * (code_object_mismatch) or a workload's own fault never counts. */
static bool hard_failure(const struct suspect_verdict *v)
{
	if (v->outcome == OUTCOME_HANG)
		return true;
	return finding_class_against_gpu(v->fault_class) || v->fault_class == FAULT_REPLAY_ABORTED;
}

static unsigned long long make_suspect(struct gpu_suspects *s, int g)
{
	if (s->suspect[g])
		return 0;
	s->suspect[g] = true;
	return 1ull << g;
}

/* GPU g as a reason names it (a negative g: one the caller could not
 * give an index). */
static const char *gpu_name(const struct gpu_suspects *s, int g, char *buf, size_t size)
{
	if (g >= 0 && g < GPU_MAX && s->names[g])
		return s->names[g];
	if (g < 0)
		return "an untracked GPU";
	snprintf(buf, size, "GPU %d", g);
	return buf;
}

unsigned long long gpu_suspects_note(struct gpu_suspects *s, size_t idx, const char *case_name,
				     const int *gpus, size_t n, const struct suspect_verdict *v)
{
	unsigned long long here = mask_of(gpus, n), became = 0;
	char name[32], other[32];

	if (!v || idx >= s->n_cases)
		return 0;
	if (v->outcome != OUTCOME_PASS) {
		s->failed_on[idx] |= here;
		for (size_t i = 0; i < n; i++) {
			int g = gpus[i];

			if (g < 0 || g >= GPU_MAX || !hard_failure(v))
				continue;
			if (++s->hard[g] >= 2 && !s->suspect[g]) {
				snprintf(s->reason[g], sizeof(s->reason[g]),
					 "a hang or hardware exception twice on %s (the last: %s)",
					 gpu_name(s, g, name, sizeof(name)), case_name);
				became |= make_suspect(s, g);
			}
		}
		return became;
	}
	if (!n)
		return 0;
	/* It passed here: each GPU it failed on before has one case more
	 * against it; the second makes it suspect. */
	for (int g = 0; g < GPU_MAX; g++) {
		unsigned long long bit = 1ull << g;

		if (!(s->failed_on[idx] & ~here & bit) || (s->moved_off[idx] & bit))
			continue;
		s->moved_off[idx] |= bit;
		if (++s->moved[g] >= 2 && !s->suspect[g]) {
			snprintf(s->reason[g], sizeof(s->reason[g]),
				 "%u cases failed on %s and passed on another GPU (the last: %s, "
				 "on %s)", s->moved[g], gpu_name(s, g, name, sizeof(name)), case_name,
				 gpu_name(s, gpus[0], other, sizeof(other)));
			became |= make_suspect(s, g);
		}
	}
	return became;
}

unsigned long long gpu_suspects_failed_on(const struct gpu_suspects *s, size_t idx)
{
	return idx < s->n_cases ? s->failed_on[idx] : 0;
}
