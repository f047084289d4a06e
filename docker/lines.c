/* A bounded newline splitter for the engine's NDJSON streams (pull
 * progress, events): lines that fit in one chunk are handed over in place,
 * only a line split across chunks is copied, and no line may exceed max. */
#include "docker/internal.h"

#include <ctype.h>
#include <string.h>

void engine_lines_init(struct engine_lines *l, size_t max, engine_line_cb cb, void *ud)
{
	strbuf_init(&l->partial, 0);
	l->max = max;
	l->cb = cb;
	l->ud = ud;
}

void engine_lines_release(struct engine_lines *l)
{
	strbuf_release(&l->partial);
}

static int lines_emit(struct engine_lines *l, const char *line, size_t len,
		      struct error *err)
{
	while (len && isspace((unsigned char)line[len - 1]))
		len--;
	while (len && isspace((unsigned char)*line)) {
		line++;
		len--;
	}
	if (!len)
		return 0;
	return l->cb(line, len, l->ud, err);
}

static int lines_too_long(const struct engine_lines *l, struct error *err)
{
	return error_set(err, ERR_LIMIT, 0,
			 "a line of the Docker engine's answer exceeds %zu bytes", l->max);
}

int engine_lines_feed(struct engine_lines *l, const char *data, size_t len,
		      struct error *err)
{
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t seg = nl ? (size_t)(nl - data) : len;
		int rc;

		if (seg > l->max - l->partial.len)
			return lines_too_long(l, err);
		if (!nl) {
			strbuf_add(&l->partial, data, len);
			return 0;
		}
		if (l->partial.len) {
			strbuf_add(&l->partial, data, seg);
			rc = lines_emit(l, l->partial.buf, l->partial.len, err);
			strbuf_reset(&l->partial);
		} else {
			rc = lines_emit(l, data, seg, err);
		}
		if (rc)
			return rc;
		data += seg + 1;
		len -= seg + 1;
	}
	return 0;
}

int engine_lines_finish(struct engine_lines *l, struct error *err)
{
	int rc = 0;

	if (l->partial.len) {
		rc = lines_emit(l, l->partial.buf, l->partial.len, err);
		strbuf_reset(&l->partial);
	}
	return rc;
}
