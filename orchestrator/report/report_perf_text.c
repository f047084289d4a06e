/* A case's GPU-time comparison in words, as summary.md, report.html and
 * junit.xml show it (docs/perf.md "In the reports"). */
#include "orchestrator/report/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "orchestrator/perf/perf_nights.h"

bool report_perf_fails(const struct report *r, const struct report_case *c)
{
	return r->perf_fail && c->perf && c->perf->status == PERF_SLOWER;
}

void report_perf_line(const struct report_perf *p, struct strbuf *out)
{
	const struct perf_comparison *c = &p->cmp;

	strbuf_addstr(out, perf_status_name(p->status));
	if (isfinite(c->ratio) && c->ratio > 0)
		strbuf_addf(out, " %+.1f%%", 100.0 * (c->ratio - 1.0));
	if (isfinite(c->median_new) && isfinite(c->median_base))
		strbuf_addf(out, ": median %.1f ms against %.1f ms", c->median_new, c->median_base);
	strbuf_addf(out, " (n %zu/%zu", c->n_new, c->n_base);
	if (isfinite(c->ratio) && isfinite(c->ci_lo) && isfinite(c->ci_hi))
		strbuf_addf(out, ", ratio %.3f [%.3f, %.3f]", c->ratio, c->ci_lo, c->ci_hi);
	if (isfinite(c->p))
		strbuf_addf(out, ", p %.4g", c->p);
	if (isfinite(c->p_adj))
		strbuf_addf(out, ", adjusted %.4g", c->p_adj);
	strbuf_addstr(out, ") against ");
	report_perf_baseline_text(p, out);
	report_perf_spread_text(c, out);
}

void report_perf_spread_text(const struct perf_comparison *c, struct strbuf *out)
{
	if (!c->nights || !isfinite(c->spread))
		return;
	if (c->nights < PERF_NOISE_NIGHTS_MIN)
		strbuf_addf(out, "; this case moves %.1f%% within a night (%zu night%s: too few "
				 "to learn its night-to-night spread)",
			    100 * c->spread, c->nights, c->nights == 1 ? "" : "s");
	else
		strbuf_addf(out, "; this case moves %.1f%% night to night", 100 * c->spread);
	if (c->status == PERF_NOISY && isfinite(c->ratio))
		strbuf_addf(out, "; a %.1f%% change is within it", 100 * fabs(c->ratio - 1.0));
}

static void cell_num(struct strbuf *out, const char *fmt, double v)
{
	if (isfinite(v))
		strbuf_addf(out, fmt, v);
	else
		strbuf_addstr(out, "-");
}

static void md_row(const struct report_case *c, struct strbuf *out)
{
	const struct report_perf *p = c->perf;

	strbuf_addstr(out, "| ");
	text_markdown_cell(out, c->case_name);
	strbuf_addstr(out, " | ");
	text_markdown_cell(out, c->image);
	strbuf_addstr(out, " | ");
	{
		cleanup_strbuf struct strbuf base = STRBUF_INIT;

		report_perf_baseline_text(p, &base);
		text_markdown_cell(out, base.buf);
	}
	strbuf_addf(out, " | %s | ", perf_status_name(p->status));
	cell_num(out, "%.1f", p->cmp.median_new);
	strbuf_addstr(out, " | ");
	cell_num(out, "%.1f", p->cmp.median_base);
	strbuf_addstr(out, " | ");
	cell_num(out, "%.3f", p->cmp.ratio);
	strbuf_addstr(out, " | ");
	if (isfinite(p->cmp.ci_lo) && isfinite(p->cmp.ci_hi) && isfinite(p->cmp.ratio))
		strbuf_addf(out, "%.3f–%.3f", p->cmp.ci_lo, p->cmp.ci_hi);
	else
		strbuf_addstr(out, "-");
	strbuf_addstr(out, " | ");
	cell_num(out, "%.4g", p->cmp.p);
	strbuf_addstr(out, " | ");
	cell_num(out, "%.4g", p->cmp.p_adj);
	strbuf_addf(out, " | %zu/%zu | ", p->cmp.n_new, p->cmp.n_base);
	{
		cleanup_strbuf struct strbuf note = STRBUF_INIT;

		strbuf_addstr(&note, p->note ? p->note : "");
		report_perf_spread_text(&p->cmp, &note);
		text_markdown_cell(out, note.buf + (!p->note && note.len ? 2 : 0));
	}
	strbuf_addstr(out, " |\n");
}

const enum perf_status report_perf_order[REPORT_PERF_ORDER_N] = {
	PERF_SLOWER, PERF_FASTER, PERF_NOISY, PERF_INSUFFICIENT, PERF_UNMEASURABLE, PERF_SAME_BUILD,
	PERF_UNCHANGED,
};

void report_perf_reach_text(const struct report *r, struct strbuf *out)
{
	const struct perf_fdr_reach *x = r->perf_reach;

	if (!x)
		return;
	strbuf_addf(out, "GPU time can find nothing here: %zu comparisons within the sweep, "
			 "and at a false discovery rate of %g even %zu slower case%s need%s p "
			 "at most %.2g, while their samples can reach %.2g at best. ",
		    x->m, x->q, x->k, x->k == 1 ? "" : "s", x->k == 1 ? "s" : "", x->bar, x->min_p);
	if (x->n_needed)
		strbuf_addf(out, "--perf %zu or more can (docs/perf.md \"What the statistics "
				 "promise\" gives the N that finds a change of a given size).",
			    x->n_needed);
	else
		strbuf_addstr(out, "No --perf N up to 100 can: compare fewer cases at once.");
}

void report_perf_md(const struct report *r, FILE *f)
{
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	size_t compared = 0, shown = 0;

	for (size_t s = 1; s < PERF_STATUS_COUNT; s++)
		compared += r->perf_counts[s];
	if (!compared)
		return;
	strbuf_addf(&out, "\n## GPU time (%zu compared)\n\n", compared);
	for (size_t k = 0; k < REPORT_PERF_ORDER_N; k++)
		if (r->perf_counts[report_perf_order[k]])
			strbuf_addf(&out, "%s%zu %s", shown++ ? ", " : "",
				    r->perf_counts[report_perf_order[k]], perf_status_name(report_perf_order[k]));
	strbuf_addf(&out, "%s.\n\n",
		    r->perf_fail ? " (`slower` fails the sweep: --fail-on perf-slower)" : "");
	if (r->perf_reach) {
		strbuf_addstr(&out, "**");
		report_perf_reach_text(r, &out);
		strbuf_addstr(&out, "**\n\n");
	}
	strbuf_addstr(&out, "| case | image | baseline | status | median ms | baseline ms | ratio | "
			    "95% interval | p | adjusted p | n | note |\n| --- | --- | --- | --- | "
			    "--- | --- | --- | --- | --- | --- | --- | --- |\n");
	fwrite(out.buf, 1, out.len, f);
	strbuf_reset(&out);
	for (size_t k = 0; k < REPORT_PERF_ORDER_N; k++) {
		for (size_t i = 0; i < r->n; i++) {
			const struct report_case *c = &r->cases[i];

			if (!c->perf || c->perf->status != report_perf_order[k])
				continue;
			md_row(c, &out);
			/* One row's text at a time, as the rest of summary.md. */
			fwrite(out.buf, 1, out.len, f);
			strbuf_reset(&out);
		}
	}
}
