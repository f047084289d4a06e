/* Allocation that cannot fail: out of memory ends the process with a
 * message, since no caller here could do anything better. */
#ifndef HRR_COMMON_XALLOC_H
#define HRR_COMMON_XALLOC_H

#include <stddef.h>
#include <stdarg.h>

/* xdie(): the fatal message and abort(), in common/say.h. */
#include "common/say.h"

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* NULL stays NULL: an optional field copied as it is. */
char *xstrdup_or_null(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Hand the pages of freed memory back to the kernel (glibc's malloc_trim):
 * between the phases of a long process whose peak resident size counts,
 * so that one phase's freed holes are not resident beside the next
 * phase's new arrays. */
void xalloc_trim(void);

#endif
