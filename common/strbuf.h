/* One growable byte buffer for the whole project (after git's strbuf).
 *
 * Invariants: buf is never NULL (an empty strbuf points at a shared empty
 * string until it first grows) and buf[len] == '\0', so buf is always a
 * valid C string even when it holds binary data. */
#ifndef HRR_COMMON_STRBUF_H
#define HRR_COMMON_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_empty[];
#define STRBUF_INIT { 0, 0, strbuf_empty }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Hand the buffer to the caller (who frees it); sb is left empty. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
#define strbuf_reset(sb) strbuf_setlen((sb), 0)

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void strbuf_trim_trailing_newline(struct strbuf *sb);

/* For __attribute__((cleanup)). */
void strbuf_cleanup(struct strbuf *sb);
#define cleanup_strbuf __attribute__((cleanup(strbuf_cleanup)))

#endif
