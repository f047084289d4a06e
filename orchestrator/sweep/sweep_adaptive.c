/* --perf-adaptive's timing replays (sweep_adaptive.h). */
#include "orchestrator/sweep/sweep_adaptive.h"

#include <string.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

/* The note of a case that got more samples: what the first look said and
 * how many were added, after the note of a sampling that stopped. */
static void note_added(struct perf_samples *ps, enum perf_adaptive_why first, size_t before,
		       const struct perf_adaptive_plan *plan)
{
	cleanup_strbuf struct strbuf note = STRBUF_INIT;

	strbuf_addf(&note, "--perf-adaptive %zu: %d sample%s added after %zu (%s)", plan->max,
		    ps->adaptive, ps->adaptive == 1 ? "" : "s", before,
		    perf_adaptive_why_text(first));
	if (ps->note)
		strbuf_addf(&note, "; %s", ps->note);
	perf_samples_note(ps, note.buf);
}

static bool same_gpu(const struct perf_adaptive_base *base, const char *gfx, long device_id)
{
	return base->gfx && gfx && !strcmp(base->gfx, gfx) && base->device_id == device_id;
}

int sweep_adaptive_take(const struct replay_host *host, const struct replay_desc *t,
			const struct perf_adaptive_plan *plan,
			const struct perf_adaptive_base *base, const char *gfx, long device_id,
			const struct perf_rule *rule, struct perf_samples *ps)
{
	cleanup_free double *ms = xcalloc(PERF_RUNS_MAX + 1, sizeof(*ms));
	enum perf_adaptive_why first = PERF_ADAPTIVE_AT_MAX;
	size_t before = ps->n;
	int sig = 0;

	if (!base || !base->n || ps->note || !same_gpu(base, gfx, device_id))
		return 0;
	while (!ps->note && !sig) {
		struct perf_adaptive_look l;
		struct error err;
		size_t n = perf_samples_kernel_ms(ps, ms);
		size_t had = ps->n;

		/* A sample that is no time: the comparison says so, later. */
		if (perf_adaptive_look(plan, base, ms, n, rule, &l, &err) < 0 ||
		    l.step == PERF_ADAPTIVE_DECIDE)
			break;
		if (ps->n == before)
			first = l.why;
		sig = replay_perf_more(host, t, (int)l.more, ps);
		ps->adaptive += (int)(ps->n - had);
		if (ps->n == had)
			break; /* no sample came: the note says why */
	}
	if (ps->adaptive)
		note_added(ps, first, before, plan);
	return sig;
}
