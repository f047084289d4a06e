/* The history site's GPU time as HTML (orchestrator/site/site_perf.h):
 * a case's charts, the index of changes, the index page's line. Pure:
 * model in, libxml2 nodes out. */
#include "orchestrator/site/site_perf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/site/site_doc.h"
#include "orchestrator/site/site_svg.h"

#define W 720
#define H 190
#define PAD_L 64
#define PAD_R 16
#define PAD_T 14
#define PAD_B 30
#define COLOUR "#1f6fb4"

/* The plot's scales: x from the first to the last night, y from the
 * lowest to the highest interval bound with a margin (a 3% change is
 * visible; from 0 it would not be). */
struct frame {
	double x0, xs, y0, ys;
};

static long px(double v)
{
	return (long)(v >= 0 ? v + 0.5 : v - 0.5);
}

static double fx(const struct frame *f, double x)
{
	return PAD_L + (x - f->x0) * f->xs;
}

static double fy(const struct frame *f, double y)
{
	return H - PAD_B - (y - f->y0) * f->ys;
}

static void attr_px(xmlNodePtr n, const char *name, double v)
{
	char buf[TEXT_LONG_MAX];

	xmlNewProp(n, X(name), X(text_long(buf, px(v))));
}

static xmlNodePtr shape(xmlNodePtr parent, const char *name, const char *cls)
{
	xmlNodePtr n = xmlNewChild(parent, NULL, X(name), NULL);

	if (cls)
		site_prop(n, "class", cls);
	return n;
}

static void label_at(xmlNodePtr svg, double x, double y, const char *anchor, const char *s)
{
	xmlNodePtr t = site_el(svg, "text", s);

	attr_px(t, "x", x);
	attr_px(t, "y", y);
	site_prop(t, "text-anchor", anchor);
	site_prop(t, "font-size", "11");
}

static void line(xmlNodePtr svg, double x1, double y1, double x2, double y2, const char *cls,
		 const char *stroke)
{
	xmlNodePtr l = shape(svg, "line", cls);

	attr_px(l, "x1", x1);
	attr_px(l, "y1", y1);
	attr_px(l, "x2", x2);
	attr_px(l, "y2", y2);
	site_prop(l, "stroke", stroke);
}

static struct frame frame_of(const struct site_perf_series *s)
{
	struct frame f = { .x0 = (double)s->v[0].started };
	double x1 = (double)s->v[s->n - 1].started, lo = s->v[0].sum.lo, hi = s->v[0].sum.hi;

	for (size_t i = 1; i < s->n; i++) {
		lo = fmin(lo, s->v[i].sum.lo);
		hi = fmax(hi, s->v[i].sum.hi);
	}
	double margin = fmax((hi - lo) * 0.1, hi * 0.02);

	f.y0 = fmax(0, lo - margin);
	f.ys = (H - PAD_T - PAD_B) / fmax(hi + margin - f.y0, 1e-9);
	f.xs = x1 > f.x0 ? (W - PAD_L - PAD_R) / (x1 - f.x0) : 0;
	if (f.xs == 0) { /* one night: in the middle */
		f.x0 -= (W - PAD_L - PAD_R) / 2.0;
		f.xs = 1;
	}
	return f;
}

/* "slower x1.100 (p 0.0079) against sweep S" */
static void comparison_text(const struct site_perf_night *n, const struct site_perf_night *b,
			    struct strbuf *out)
{
	const struct perf_comparison *c = &n->cmp;

	strbuf_addstr(out, perf_status_name(c->status));
	if (isfinite(c->ratio))
		strbuf_addf(out, " x%.3f", c->ratio);
	if (isfinite(c->ci_lo))
		strbuf_addf(out, " [%.3f, %.3f]", c->ci_lo, c->ci_hi);
	if (isfinite(c->p))
		strbuf_addf(out, " (p %.2g)", c->p);
	strbuf_addf(out, " against sweep %s", b->sweep_id ? b->sweep_id : "-");
}

/* "x,y x,y ..." of the nights' values (which: 0 median, 1 high, 2 low),
 * appended to out, forward or backward. */
static void points(const struct frame *f, const struct site_perf_series *s, int which,
		   bool backward, struct strbuf *out)
{
	for (size_t k = 0; k < s->n; k++) {
		const struct site_perf_night *n = &s->v[backward ? s->n - 1 - k : k];
		double y = which == 0 ? n->sum.median : which == 1 ? n->sum.hi : n->sum.lo;

		site_svg_point(out, px(fx(f, (double)n->started)), px(fy(f, y)));
	}
}

static void band(xmlNodePtr svg, const struct frame *f, const struct site_perf_series *s)
{
	cleanup_strbuf struct strbuf pts = STRBUF_INIT;
	xmlNodePtr poly;

	points(f, s, 1, false, &pts);
	points(f, s, 2, true, &pts);
	poly = shape(svg, s->n > 1 ? "polygon" : "polyline", "band");
	site_prop(poly, "points", pts.buf);
	site_prop(poly, "fill", COLOUR);
	site_prop(poly, "fill-opacity", "0.18");
	site_prop(poly, "stroke", s->n > 1 ? "none" : COLOUR);
}

static void medians(xmlNodePtr svg, const struct frame *f, const struct site_perf_series *s)
{
	cleanup_strbuf struct strbuf pts = STRBUF_INIT;
	xmlNodePtr l;

	points(f, s, 0, false, &pts);
	l = shape(svg, "polyline", "median");
	site_prop(l, "points", pts.buf);
	site_prop(l, "fill", "none");
	site_prop(l, "stroke", COLOUR);
	site_prop(l, "stroke-width", "1.5");
}

/* A change is a triangle, up and red for slower, down and green for
 * faster; the last night and its baseline are points. Each has its
 * numbers in its tooltip. The other nights are the line and the band
 * alone: a point per night was most of a case page's cost. */
static void night_mark(xmlNodePtr svg, const struct frame *f, const struct site_perf_series *s,
		       size_t i)
{
	const struct site_perf_night *n = &s->v[i];
	bool slower = n->cmp.status == PERF_SLOWER, faster = n->cmp.status == PERF_FASTER;

	if (!slower && !faster && i + 1 < s->n &&
	    !(i + 2 == s->n && s->v[i + 1].cmp.status != PERF_NONE))
		return;
	double x = fx(f, (double)n->started), y = fy(f, n->sum.median);
	cleanup_strbuf struct strbuf tip = STRBUF_INIT;
	char when[32];
	xmlNodePtr m;

	site_date(n->started, false, when, sizeof(when));
	strbuf_addf(&tip, "%s %s: median %.1f ms, interval %.1f-%.1f ms, %zu sample(s)", when,
		    n->sweep_id ? n->sweep_id : "-", n->sum.median, n->sum.lo, n->sum.hi, n->sum.n);
	if (n->cmp.status != PERF_NONE) {
		strbuf_addstr(&tip, "; ");
		comparison_text(n, &s->v[i - 1], &tip);
	}
	if (slower || faster) {
		char pts[96];
		double d = slower ? -6 : 6;

		snprintf(pts, sizeof(pts), "%ld,%ld %ld,%ld %ld,%ld", px(x), px(y + d), px(x - 5),
			 px(y - d), px(x + 5), px(y - d));
		m = shape(svg, "polygon", slower ? "pt slower" : "pt faster");
		site_prop(m, "points", pts);
		site_prop(m, "fill", slower ? "#c00" : "#080");
	} else {
		m = shape(svg, "circle", "pt");
		attr_px(m, "cx", x);
		attr_px(m, "cy", y);
		site_prop(m, "fill", COLOUR);
	}
	site_el(m, "title", tip.buf);
}

/* "+10.0%, median 40.0 -> 44.0 ms, p 0.005, image sha256:0123456789ab ->
 * sha256:..., accepted" */
static void cp_text(const struct site_perf_cp *cp, struct strbuf *out)
{
	strbuf_addf(out, "%+.1f%%, median %.1f -> %.1f ms, p %.2g", 100 * (cp->ratio - 1),
		    cp->median_before, cp->median_after, cp->p);
	if (*cp->image_id_before || *cp->image_id_after)
		strbuf_addf(out, ", image %.19s -> %.19s", *cp->image_id_before ? cp->image_id_before : "-",
			    *cp->image_id_after ? cp->image_id_after : "-");
	if (cp->accepted)
		strbuf_addstr(out, ", accepted");
}

/* A change point: a dashed vertical line at the night that starts the new
 * level, its numbers in its tooltip. */
static void cp_mark(xmlNodePtr svg, const struct frame *f, const struct site_perf_night *n)
{
	cleanup_strbuf struct strbuf tip = STRBUF_INIT;
	double x = fx(f, (double)n->started);
	xmlNodePtr l = shape(svg, "line", n->cp->accepted ? "cp accepted" : "cp");

	attr_px(l, "x1", x);
	attr_px(l, "y1", PAD_T);
	attr_px(l, "x2", x);
	attr_px(l, "y2", H - PAD_B);
	site_prop(l, "stroke", n->cp->accepted ? "#999" : "#b05a00");
	site_prop(l, "stroke-width", "2");
	site_prop(l, "stroke-dasharray", "4 3");
	strbuf_addf(&tip, "change point at sweep %s: ", n->sweep_id ? n->sweep_id : "-");
	cp_text(n->cp, &tip);
	site_el(l, "title", tip.buf);
}

/* Under the chart, the change points in words. */
static void cp_list(xmlNodePtr parent, const struct site_perf_series *s)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	xmlNodePtr p;

	for (size_t i = 0; i < s->n; i++) {
		const struct site_perf_night *n = &s->v[i];
		char when[32];

		if (!n->cp)
			continue;
		site_date(n->started, false, when, sizeof(when));
		strbuf_addf(&text, "%s%s (%s): ", text.len ? "; " : "Change points: ",
			    n->sweep_id ? n->sweep_id : "-", when);
		cp_text(n->cp, &text);
	}
	if (!text.len)
		return;
	p = site_el(parent, "p", text.buf);
	site_prop(p, "class", "perf-cps");
}

static void axes(xmlNodePtr svg, const struct frame *f, const struct site_perf_series *s)
{
	char buf[64];
	double top = f->y0 + (H - PAD_T - PAD_B) / f->ys;

	line(svg, PAD_L, PAD_T, PAD_L, H - PAD_B, NULL, "#888");
	line(svg, PAD_L, H - PAD_B, W - PAD_R, H - PAD_B, NULL, "#888");
	snprintf(buf, sizeof(buf), "%.1f ms", top);
	label_at(svg, PAD_L - 4, PAD_T + 8, "end", buf);
	snprintf(buf, sizeof(buf), "%.1f ms", f->y0);
	label_at(svg, PAD_L - 4, H - PAD_B, "end", buf);
	site_date(s->v[0].started, false, buf, sizeof(buf));
	label_at(svg, PAD_L, H - 8, "start", buf);
	site_date(s->v[s->n - 1].started, false, buf, sizeof(buf));
	label_at(svg, W - PAD_R, H - 8, "end", buf);
}

static void gpu_text(const char *gfx, long device_id, struct strbuf *out)
{
	strbuf_addstr(out, gfx ? gfx : "unknown GPU");
	if (device_id > 0)
		strbuf_addf(out, " (device %ld)", device_id);
}

static void series_chart(xmlNodePtr parent, const struct site_perf_series *s, size_t last_col)
{
	struct frame f = frame_of(s);
	const struct site_perf_night *last = &s->v[s->n - 1];
	cleanup_strbuf struct strbuf title = STRBUF_INIT;
	xmlNodePtr svg, p;
	char vb[32];

	strbuf_addf(&title, "GPU kernel time per sweep, %s on ", s->image ? s->image : "-");
	gpu_text(s->gfx, s->device_id, &title);
	site_el(parent, "h3", title.buf);
	svg = shape(parent, "svg", "chart perf");
	snprintf(vb, sizeof(vb), "0 0 %d %d", W, H);
	site_prop(svg, "viewBox", vb);
	attr_px(svg, "width", W);
	attr_px(svg, "height", H);
	site_prop(svg, "role", "img");
	site_prop(svg, "aria-label", title.buf);
	site_el(svg, "title", title.buf);
	axes(svg, &f, s);
	band(svg, &f, s);
	/* The baseline of the last comparison: the night before it. */
	if (last->cmp.status != PERF_NONE) {
		double x = fx(&f, (double)s->v[s->n - 2].started);

		line(svg, x, PAD_T, x, H - PAD_B, "baseline", "#777");
		label_at(svg, x + 3, PAD_T + 8, "start", "baseline");
	}
	medians(svg, &f, s);
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].cp)
			cp_mark(svg, &f, &s->v[i]);
	for (size_t i = 0; i < s->n; i++)
		night_mark(svg, &f, s, i);
	cp_list(parent, s);
	p = xmlNewChild(parent, NULL, X("p"), NULL);
	site_prop(p, "class", "perf-last");
	if (last->col != last_col) {
		site_el(p, "span", "No samples in the last sweep.");
		return;
	}
	if (last->cmp.status == PERF_NONE) {
		site_elf(p, "span", "Last sweep %s: median %.1f ms, not compared (no samples in "
				    "the sweep before it).", last->sweep_id, last->sum.median);
		return;
	}
	cleanup_strbuf struct strbuf cmp = STRBUF_INIT;

	comparison_text(last, &s->v[s->n - 2], &cmp);
	site_elf(p, "span", "Last sweep %s: median %.1f ms, %s (%zu/%zu samples).",
		 last->sweep_id, last->sum.median, cmp.buf, last->sum.n, s->v[s->n - 2].sum.n);
}

void site_perf_chart(xmlNodePtr parent, const struct site_perf_case *c)
{
	if (!c || !c->n)
		return;
	site_el(parent, "h2", "GPU time");
	site_el(parent, "p", "Each sweep's median GPU kernel time (ms) of its --perf samples, "
			     "the band its median's interval; a triangle marks a change against "
			     "the sweep before (up, red: slower; down, green: faster), the line "
			     "the last comparison's baseline, a dashed orange line a change point "
			     "of the series (grey: accepted; docs/perf.md \"Change points\").");
	for (size_t i = 0; i < c->n && i < SITE_PERF_CHARTS_MAX; i++)
		series_chart(parent, &c->v[i], c->last_col);
	if (c->n > SITE_PERF_CHARTS_MAX) {
		cleanup_strbuf struct strbuf more = STRBUF_INIT;

		strbuf_addf(&more, "%zu more image and GPU series not drawn:",
			    c->n - SITE_PERF_CHARTS_MAX);
		for (size_t i = SITE_PERF_CHARTS_MAX; i < c->n; i++) {
			strbuf_addf(&more, "%s %s on ", i > SITE_PERF_CHARTS_MAX ? ";" : "",
				    c->v[i].image ? c->v[i].image : "-");
			gpu_text(c->v[i].gfx, c->v[i].device_id, &more);
		}
		site_el(parent, "p", more.buf);
	}
}

/* "sweep (sha256:0123456789ab)": the image ID cut to 12 hex digits, as
 * docker prints it; the whole ID in the cell's tooltip. */
static void sweep_cell(xmlNodePtr tr, const char *sweep, const char *image_id)
{
	const char *hex = strncmp(image_id, "sha256:", 7) ? NULL : image_id + 7;
	xmlNodePtr td = sweep ? site_elf(tr, "td", "%s (%s%.12s)", sweep, hex ? "sha256:" : "",
					 hex ? hex : image_id)
			      : site_elf(tr, "td", "%s%.12s", hex ? "sha256:" : "",
					 hex ? hex : image_id);

	site_prop(td, "title", image_id);
}

static void change_row(xmlNodePtr table, const struct site_perf_change *c)
{
	xmlNodePtr tr = xmlNewChild(table, NULL, X("tr"), NULL), td;
	cleanup_strbuf struct strbuf gpu = STRBUF_INIT;

	site_prop(tr, "class", perf_status_name(c->cmp.status));
	site_el(tr, "td", c->label);
	td = xmlNewChild(tr, NULL, X("td"), NULL);
	site_link(td, c->case_page, c->case_name);
	site_el(tr, "td", perf_status_name(c->cmp.status));
	site_elf(tr, "td", "%.3f", c->cmp.ratio);
	site_elf(tr, "td", "%+.1f %%", 100 * (c->cmp.ratio - 1));
	site_elf(tr, "td", "[%.3f, %.3f]", c->cmp.ci_lo, c->cmp.ci_hi);
	site_elf(tr, "td", "%.2g", c->cmp.p);
	site_elf(tr, "td", "%.1f / %.1f", c->cmp.median_new, c->cmp.median_base);
	site_elf(tr, "td", "%zu / %zu", c->cmp.n_new, c->cmp.n_base);
	site_el(tr, "td", c->image);
	gpu_text(c->gfx, c->device_id, &gpu);
	site_el(tr, "td", gpu.buf);
	sweep_cell(tr, c->sweep_id, c->image_id);
	sweep_cell(tr, c->baseline_sweep, c->baseline_image_id);
}

int site_perf_changes_html(const struct site_perf_changes *x, size_t n_labels,
			   struct strbuf *out, struct error *err)
{
	struct site_doc d;
	xmlNodePtr table, tr;

	site_doc_begin(&d, "GPU-time changes in the last sweep");
	site_elf(d.body, "p", "The last sweep of each of %zu label(s) against the sweep before "
			      "it, by the default rule of docs/perf.md (a ratio of medians beyond "
			      "3%% and p below 0.01), largest change first.", n_labels);
	if (!x->n) {
		site_el(d.body, "p", "No GPU-time change in the last sweep.");
		return site_doc_finish(&d, out, err);
	}
	table = xmlNewChild(d.body, NULL, X("table"), NULL);
	site_prop(table, "id", "perf-changes");
	tr = xmlNewChild(table, NULL, X("tr"), NULL);
	for (const char *const *h = (const char *const[]){ "label", "case", "status", "ratio",
							     "change", "95% interval", "p",
							     "median ms (new / baseline)",
							     "samples", "image", "GPU",
							     "sweep (image ID)",
							     "baseline sweep (image ID)", NULL };
	     *h; h++)
		site_el(tr, "th", *h);
	for (size_t i = 0; i < x->n; i++)
		change_row(table, &x->v[i]);
	return site_doc_finish(&d, out, err);
}

static void cp_row(xmlNodePtr table, const struct site_perf_cp *cp)
{
	xmlNodePtr tr = xmlNewChild(table, NULL, X("tr"), NULL), td;
	cleanup_strbuf struct strbuf gpu = STRBUF_INIT;

	site_prop(tr, "class", cp->ratio > 1 ? "slower" : "faster");
	site_el(tr, "td", cp->label);
	td = xmlNewChild(tr, NULL, X("td"), NULL);
	site_link(td, cp->case_page, cp->case_name);
	site_el(tr, "td", cp->image);
	gpu_text(*cp->gfx ? cp->gfx : NULL, cp->device_id, &gpu);
	site_el(tr, "td", gpu.buf);
	site_elf(tr, "td", "%+.1f %%", 100 * (cp->ratio - 1));
	site_elf(tr, "td", "%.1f -> %.1f", cp->median_before, cp->median_after);
	site_el(tr, "td", cp->sweep);
	sweep_cell(tr, NULL, *cp->image_id_before ? cp->image_id_before : "-");
	sweep_cell(tr, NULL, *cp->image_id_after ? cp->image_id_after : "-");
	site_elf(tr, "td", "%.2g", cp->p);
}

/* The index's list of the change points each label's last sweep found
 * (not accepted), in label and case order. */
static void site_perf_index_cps(xmlNodePtr parent, const struct site_perf_changes *x)
{
	xmlNodePtr table, tr;

	if (!x->n_cps)
		return;
	site_elf(parent, "h2", "New GPU-time change points (%zu)", x->n_cps);
	site_el(parent, "p", "Found by each label's last sweep: the night a case's GPU kernel "
			     "time moved to a new level (docs/perf.md \"Change points\"; `history "
			     "perf --accept CASE --night SWEEP` marks one intended).");
	table = xmlNewChild(parent, NULL, X("table"), NULL);
	site_prop(table, "id", "perf-cps");
	tr = xmlNewChild(table, NULL, X("tr"), NULL);
	for (const char *const *h = (const char *const[]){ "label", "case", "image", "GPU",
							     "change", "median ms", "night",
							     "image ID before", "image ID after",
							     "p", NULL };
	     *h; h++)
		site_el(tr, "th", *h);
	for (size_t i = 0; i < x->n_cps; i++)
		cp_row(table, &x->cps[i]);
}

void site_perf_index_line(xmlNodePtr parent, const struct site_perf_changes *x)
{
	xmlNodePtr p;

	if (!x || !x->any)
		return;
	p = xmlNewChild(parent, NULL, X("p"), NULL);
	site_prop(p, "id", "perf");
	if (!x->n)
		site_el(p, "span", "No GPU-time change in the last sweep. ");
	else
		site_elf(p, "span", "GPU time in the last sweep: %zu slower, %zu faster. ",
			 x->n_slower, x->n_faster);
	site_link(p, SITE_PERF_PAGE, "GPU-time changes");
	site_perf_index_cps(parent, x);
}
