#include "common/say.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void say_v(const char *kind, const char *fmt, va_list ap)
{
	fputs(SAY_PREFIX, stderr);
	fputs(kind, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void say_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v("", fmt, ap);
	va_end(ap);
}

void say_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v("warning: ", fmt, ap);
	va_end(ap);
}

void say_info(int verbosity, const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	say_v("", fmt, ap);
	va_end(ap);
}

void xdie(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v("fatal: ", fmt, ap);
	va_end(ap);
	abort();
}
