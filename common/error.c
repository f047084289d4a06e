#include "common/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int error_set(struct error *err, enum error_kind kind, int status,
	      const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->kind = kind;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int error_errno(struct error *err, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t len;

	if (!err)
		return -1;
	err->kind = ERR_SYSTEM;
	err->status = saved;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(saved));
	errno = saved;
	return -1;
}

int error_append(struct error *err, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	if (!err)
		return -1;
	len = strnlen(err->msg, sizeof(err->msg) - 1);
	va_start(ap, fmt);
	vsnprintf(err->msg + len, sizeof(err->msg) - len, fmt, ap);
	va_end(ap);
	return -1;
}

int error_prefix(struct error *err, const char *fmt, ...)
{
	char old[ERROR_MSG_MAX];
	va_list ap;
	int n;

	if (!err)
		return -1;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	/* The prefix may use the whole buffer; the old message is then cut. */
	if ((size_t)n < sizeof(err->msg))
		memcpy(err->msg + n, old, strnlen(old, sizeof(err->msg) - (size_t)n - 1));
	err->msg[sizeof(err->msg) - 1] = '\0';
	if ((size_t)n < sizeof(err->msg) - 1)
		err->msg[n + strnlen(old, sizeof(err->msg) - (size_t)n - 1)] = '\0';
	return -1;
}

void error_clear(struct error *err)
{
	if (!err)
		return;
	err->kind = ERR_NONE;
	err->status = 0;
	err->msg[0] = '\0';
}
