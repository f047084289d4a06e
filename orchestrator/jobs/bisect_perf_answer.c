/* `bisect --metric gpu-time` in words (docs/bisect.md "GPU time"): each
 * probe's comparison with --good's samples, for the progress lines and
 * the answer's markdown (its JSON is bisect_answer.c's). */
#include "orchestrator/jobs/bisect_driver.h"

#include <math.h>
#include <stdio.h>

void bisect_perf_words(const struct bisect_perf *c, struct strbuf *out)
{
	const struct perf_comparison *k = &c->cmp;

	if (c->other_gpu) {
		strbuf_addf(out, "not compared: another GPU product than --good's (%s, device "
			    "0x%lx)", *c->gfx ? c->gfx : "?", c->device_id);
		return;
	}
	if (k->status == PERF_NONE) {
		strbuf_addf(out, "no samples (%zu here, %zu of --good)", c->n, k->n_base);
		return;
	}
	strbuf_addstr(out, perf_status_name(k->status));
	if (isfinite(k->ratio))
		strbuf_addf(out, ": ratio %.3f [%.3f, %.3f], p = %.4f,", k->ratio, k->ci_lo,
			    k->ci_hi, k->p);
	strbuf_addf(out, " median %.1f ms against %.1f ms (%zu against %zu samples)",
		    k->median_new, k->median_base, k->n_new, k->n_base);
	if (k->status == PERF_NOISY)
		strbuf_addf(out, ", CV %.1f%% against %.1f%%", 100 * k->cv_new, 100 * k->cv_base);
}

void bisect_perf_progress(const struct bisect_job *j, size_t i)
{
	const struct bisect_probe *p = &j->probes[i];
	size_t c = bisect_perf_telling_case(p->perf, j->n_cases);
	cleanup_strbuf struct strbuf w = STRBUF_INIT;

	bisect_perf_words(&p->perf[c], &w);
	events_stage(j->rq->events, "bisect:   GPU time %s%s%s",
		     j->n_cases > 1 ? j->cases[c].name : "", j->n_cases > 1 ? ": " : "", w.buf);
}
