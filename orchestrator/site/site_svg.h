/* The site's charts: a line per series as inline SVG, drawn by the tool
 * (no chart library, nothing loaded). Pure: adds nodes to a libxml2 tree. */
#ifndef HRR_REPORT_SITE_SVG_H
#define HRR_REPORT_SITE_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <libxml/tree.h>

#include "common/strbuf.h"

struct site_point {
	double x, y;        /* x: epoch seconds (or any increasing value) */
	const char *title;  /* the point's tooltip, untrusted text */
	bool alert;         /* drawn red: a failed replay */
};

struct site_series {
	const char *name;   /* the legend, untrusted text */
	const struct site_point *v;
	size_t n;
};

struct site_chart {
	const char *title;  /* the chart's accessible name */
	const char *x_first, *x_last, *y_unit; /* axis labels */
	double y_max;       /* 0: from the data */
	int width, height;
};

/* An <svg class="chart"> under parent: axes, one polyline per series and
 * a circle per point (class "pt") with its title. */
/* Append " x,y" (no space for the first) to an SVG points list. */
void site_svg_point(struct strbuf *pts, long x, long y);
void site_svg_line(xmlNodePtr parent, const struct site_chart *c, const struct site_series *s,
		   size_t n);

#endif
