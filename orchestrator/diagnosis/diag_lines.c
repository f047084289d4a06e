/* Bounded line splitting (see diag_lines.h). */
#include "orchestrator/diagnosis/diag_lines.h"

#include <string.h>

void diag_lines_init(struct diag_lines *l, size_t max)
{
	strbuf_init(&l->line, 256);
	l->max = max;
	l->cut = false;
}

static void emit(struct diag_lines *l, diag_line_fn *fn, void *ctx)
{
	fn(ctx, l->line.buf, strnlen(l->line.buf, l->line.len), l->cut);
	strbuf_reset(&l->line);
	l->cut = false;
}

void diag_lines_feed(struct diag_lines *l, const char *data, size_t len, diag_line_fn *fn,
		     void *ctx)
{
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? (size_t)(nl - data) : len;
		size_t room = l->max - l->line.len;

		if (take > room)
			l->cut = true;
		strbuf_add(&l->line, data, take > room ? room : take);
		if (!nl)
			return;
		emit(l, fn, ctx);
		data = nl + 1;
		len -= take + 1;
	}
}

void diag_lines_finish(struct diag_lines *l, diag_line_fn *fn, void *ctx)
{
	if (l->line.len)
		emit(l, fn, ctx);
	strbuf_release(&l->line);
}
