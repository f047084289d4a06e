#include "common/xalloc.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xalloc_trim(void)
{
	malloc_trim(0);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		xdie("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		xdie("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		xdie("out of memory (%zu bytes)", n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	va_list again;
	char *out;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0)
		xdie("bad format");
	out = xmalloc((size_t)n + 1);
	vsnprintf(out, (size_t)n + 1, fmt, again);
	va_end(again);
	return out;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *out;

	va_start(ap, fmt);
	out = xvasprintf(fmt, ap);
	va_end(ap);
	return out;
}
