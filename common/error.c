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

int error_prefix(struct error *err, const char *fmt, ...)
{
	char prefix[ERROR_MSG_MAX];
	char old[ERROR_MSG_MAX];
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s%s", prefix, old);
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
