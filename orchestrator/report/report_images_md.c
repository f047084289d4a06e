/* The images section of summary.md (report_images_md.h). */
#include "orchestrator/report/report_images_md.h"

#include <time.h>

#include "common/text.h"

/* epoch seconds as "YYYY-mm-dd HH:MM UTC"; 0 "-". */
static void md_when(struct strbuf *out, long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[32];

	if (t <= 0 || !gmtime_r(&tt, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M UTC", &tm))
		strbuf_addstr(out, "-");
	else
		strbuf_addstr(out, buf);
}

/* An image's fate: removed when, or kept and why. */
static void md_fate(struct strbuf *out, const struct report_image *im)
{
	if (im->fate == IMAGE_FATE_REMOVED) {
		strbuf_addstr(out, "removed ");
		md_when(out, im->removed);
	} else if (image_fate_name(im->fate))
		strbuf_addf(out, "kept: %s", image_fate_name(im->fate));
	else
		strbuf_addstr(out, "-");
}

/* A cluster sweep's images per node: each node's peak, then what became
 * of each image it set up. */
static void md_image_nodes(const struct report *r, struct strbuf *out)
{
	const struct sweep_image_nodes *nodes = r->image_nodes;

	if (!nodes)
		return;
	strbuf_addstr(out, "\nPer node (each holds the budget on its own):\n\n"
		      "| node | peak | image | pulled | removed or kept |\n"
		      "| --- | --- | --- | --- | --- |\n");
	for (size_t k = 0; k < nodes->n; k++)
		for (size_t i = 0; i < r->n_images && i < nodes->v[k].n; i++) {
			const struct sweep_image_fate *f = &nodes->v[k].v[i];
			struct report_image im = { .removed = f->removed, .fate = f->fate };

			if (f->fate == IMAGE_FATE_UNKNOWN && !f->pulled)
				continue;
			strbuf_addstr(out, "| ");
			text_markdown_cell(out, nodes->v[k].host[0] ? nodes->v[k].host : "?");
			strbuf_addf(out, " | %.1f MiB | ", (double)nodes->v[k].peak / 1048576.0);
			text_markdown_cell(out, r->images[i].ref);
			strbuf_addstr(out, " | ");
			md_when(out, f->pulled);
			strbuf_addstr(out, " | ");
			md_fate(out, &im);
			strbuf_addstr(out, " |\n");
		}
}

/* The images, their pins, the IDs replayed and what became of them
 * (docs/sweep.md "Reports"). */
void report_images_md(const struct report *r, struct strbuf *out)
{
	if (!r->n_images)
		return;
	strbuf_addstr(out, "\n## Images\n\n");
	if (r->image_budget)
		strbuf_addf(out, "Budget: %.1f MiB of images pulled by this tool "
			    "(`--image-budget`).\n\n", (double)r->image_budget / 1048576.0);
	if (r->image_peak)
		strbuf_addf(out, "Peak: %.1f MiB, the images this tool pulled together, each "
			    "layer once.\n\n", (double)r->image_peak / 1048576.0);
	strbuf_addstr(out, "| image | pinned to | image ID | pulled | removed or kept |\n"
		      "| --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < r->n_images; i++) {
		const struct report_image *im = &r->images[i];

		strbuf_addstr(out, "| ");
		text_markdown_cell(out, im->ref);
		strbuf_addstr(out, " | ");
		text_markdown_cell(out, im->pin ? im->pin : "-");
		strbuf_addstr(out, " | ");
		text_markdown_cell(out, im->id ? im->id : "-");
		strbuf_addstr(out, " | ");
		md_when(out, im->pulled);
		strbuf_addstr(out, " | ");
		md_fate(out, im);
		strbuf_addstr(out, " |\n");
	}
	md_image_nodes(r, out);
}

