/* Bounded line splitting for the GPU debuggers' output parsers: bytes in,
 * one line at a time to a callback, whatever the chunking; a line longer
 * than max is handed over cut to its first max bytes (cut = true). */
#ifndef HRR_FINDING_DIAG_LINES_H
#define HRR_FINDING_DIAG_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"

/* s is NUL-terminated at len; a NUL inside the line ends it early (the
 * tools print text: a NUL only shortens what is matched). */
typedef void diag_line_fn(void *ctx, const char *s, size_t len, bool cut);

struct diag_lines {
	struct strbuf line;
	size_t max;
	bool cut;
};

void diag_lines_init(struct diag_lines *l, size_t max);
void diag_lines_feed(struct diag_lines *l, const char *data, size_t len, diag_line_fn *fn,
		     void *ctx);
/* Hands over a last line without '\n' and frees the buffer. */
void diag_lines_finish(struct diag_lines *l, diag_line_fn *fn, void *ctx);

#endif
