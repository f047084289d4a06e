#include "orchestrator/site/site_svg.h"

#include <stdbool.h>
#include <stdio.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/text.h"
#include "orchestrator/report/report.h"

#define X(s) ((const xmlChar *)(s))
#define PAD_L 52
#define PAD_R 12
#define PAD_T 12
#define PAD_B 28

static const char *const colours[] = { "#1f6fb4", "#d2691e", "#2e8b57", "#8a2be2",
				       "#b22222", "#708090" };

static bool plain(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

static void attr(xmlNodePtr n, const char *name, const char *value)
{
	cleanup_free char *c = plain(value) ? NULL : report_clean(value, false);

	xmlNewProp(n, X(name), X(c ? c : value));
}

static long px(double v)
{
	return (long)(v >= 0 ? v + 0.5 : v - 0.5);
}

/* Whole pixels: as sharp on screen, and integer formatting is a tenth of
 * the cost of "%.1f" over a site's hundreds of thousands of points. */
static void attrf(xmlNodePtr n, const char *name, double v)
{
	char buf[TEXT_LONG_MAX];

	xmlNewProp(n, X(name), X(text_long(buf, px(v))));
}

void site_svg_point(struct strbuf *pts, long x, long y)
{
	char buf[TEXT_LONG_MAX];

	if (pts->len)
		strbuf_addch(pts, ' ');
	strbuf_addstr(pts, text_long(buf, x));
	strbuf_addch(pts, ',');
	strbuf_addstr(pts, text_long(buf, y));
}

static xmlNodePtr node(xmlNodePtr parent, const char *name, const char *text)
{
	cleanup_free char *c = text && !plain(text) ? report_clean(text, false) : NULL;

	return xmlNewTextChild(parent, NULL, X(name), X(c ? c : text));
}

static void text_at(xmlNodePtr svg, double x, double y, const char *anchor, const char *s)
{
	xmlNodePtr t = node(svg, "text", s ? s : "");

	attrf(t, "x", x);
	attrf(t, "y", y);
	attr(t, "text-anchor", anchor);
	attr(t, "font-size", "11");
}

static void axis(xmlNodePtr svg, double x1, double y1, double x2, double y2)
{
	xmlNodePtr l = xmlNewChild(svg, NULL, X("line"), NULL);

	attrf(l, "x1", x1);
	attrf(l, "y1", y1);
	attrf(l, "x2", x2);
	attrf(l, "y2", y2);
	attr(l, "stroke", "#888");
}

static void range(const struct site_series *s, size_t n, double *x0, double *x1, double *y1)
{
	bool any = false;

	*x0 = *x1 = *y1 = 0;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < s[k].n; i++) {
			const struct site_point *p = &s[k].v[i];

			if (!any || p->x < *x0)
				*x0 = p->x;
			if (!any || p->x > *x1)
				*x1 = p->x;
			if (p->y > *y1)
				*y1 = p->y;
			any = true;
		}
}

static void series(xmlNodePtr svg, const struct site_series *s, size_t k, double x0, double xs,
		   double y_base, double ys)
{
	const char *colour = colours[k % (sizeof(colours) / sizeof(colours[0]))];
	cleanup_strbuf struct strbuf pts = STRBUF_INIT;
	xmlNodePtr g = xmlNewChild(svg, NULL, X("g"), NULL), line;

	attr(g, "class", "series");
	/* The points take the series' colour from here and their radius
	 * from the stylesheet: two attributes less a point, over hundreds of
	 * thousands of points a site. */
	attr(g, "fill", colour);
	node(g, "title", s->name ? s->name : "");
	for (size_t i = 0; i < s->n; i++)
		site_svg_point(&pts, px(PAD_L + (s->v[i].x - x0) * xs), px(y_base - s->v[i].y * ys));
	line = xmlNewChild(g, NULL, X("polyline"), NULL);
	attr(line, "points", pts.buf ? pts.buf : "");
	attr(line, "fill", "none");
	attr(line, "stroke", colour);
	attr(line, "stroke-width", "1.5");
	for (size_t i = 0; i < s->n; i++) {
		xmlNodePtr c = xmlNewChild(g, NULL, X("circle"), NULL);

		attr(c, "class", s->v[i].alert ? "pt alert" : "pt");
		attrf(c, "cx", PAD_L + (s->v[i].x - x0) * xs);
		attrf(c, "cy", y_base - s->v[i].y * ys);
		if (s->v[i].title)
			node(c, "title", s->v[i].title);
	}
}

void site_svg_line(xmlNodePtr parent, const struct site_chart *c, const struct site_series *s,
		   size_t n)
{
	xmlNodePtr svg = xmlNewChild(parent, NULL, X("svg"), NULL);
	double x0, x1, y1, xs, ys, plot_w = c->width - PAD_L - PAD_R,
				    plot_h = c->height - PAD_T - PAD_B;
	double y_base = PAD_T + plot_h;
	char buf[64];

	range(s, n, &x0, &x1, &y1);
	if (c->y_max > 0)
		y1 = c->y_max;
	if (y1 <= 0)
		y1 = 1;
	xs = x1 > x0 ? plot_w / (x1 - x0) : 0;
	if (xs == 0)
		x0 -= plot_w / 2; /* one point: in the middle */
	if (xs == 0)
		xs = 1;
	ys = plot_h / y1;
	snprintf(buf, sizeof(buf), "0 0 %d %d", c->width, c->height);
	attr(svg, "class", "chart");
	attr(svg, "viewBox", buf);
	attrf(svg, "width", c->width);
	attrf(svg, "height", c->height);
	attr(svg, "role", "img");
	attr(svg, "aria-label", c->title ? c->title : "chart");
	node(svg, "title", c->title ? c->title : "chart");
	axis(svg, PAD_L, PAD_T, PAD_L, y_base);
	axis(svg, PAD_L, y_base, PAD_L + plot_w, y_base);
	snprintf(buf, sizeof(buf), "%.3g%s", y1, c->y_unit ? c->y_unit : "");
	text_at(svg, PAD_L - 4, PAD_T + 8, "end", buf);
	snprintf(buf, sizeof(buf), "0%s", c->y_unit ? c->y_unit : "");
	text_at(svg, PAD_L - 4, y_base, "end", buf);
	text_at(svg, PAD_L, c->height - 8, "start", c->x_first);
	text_at(svg, PAD_L + plot_w, c->height - 8, "end", c->x_last);
	for (size_t k = 0; k < n; k++)
		series(svg, &s[k], k, x0, xs, y_base, ys);
}
