/* The error object every fallible function fills (crun style).
 *
 * A fallible function returns < 0 and fills *err; its caller either handles
 * the error or returns < 0 itself, optionally prefixing context with
 * error_prefix(). Only the outermost caller prints err->msg. */
#ifndef HRR_COMMON_ERROR_H
#define HRR_COMMON_ERROR_H

#include <stddef.h>

/* What went wrong, coarsely: enough for a caller to pick an exit code
 * without parsing the message. */
enum error_kind {
	ERR_NONE = 0,
	ERR_SYSTEM,    /* a system call failed; status = errno */
	ERR_USAGE,     /* the caller passed something invalid */
	ERR_CONNECT,   /* the engine did not answer (socket, TLS, refused) */
	ERR_HTTP,      /* the engine answered with an error; status = HTTP code */
	ERR_PROTOCOL,  /* the engine's answer was malformed or truncated */
	ERR_NOT_FOUND, /* a named thing does not exist (also set with ERR_HTTP 404) */
	ERR_LIMIT,     /* an input exceeded a size limit */
	ERR_CANCELLED, /* stopped on request (a consumer callback said stop) */
	ERR_DATA,      /* an input file is malformed */
	ERR_TIMEOUT,   /* a deadline passed, or the engine stopped answering */
	ERR_INTERRUPTED, /* an interrupt fd (signal self-pipe) became readable */
	ERR_BUSY,      /* a shared resource (GPU lease) stayed held past the wait */
};

#define ERROR_MSG_MAX 1024

struct error {
	enum error_kind kind;
	int status;   /* errno for ERR_SYSTEM, HTTP status for ERR_HTTP, else 0 */
	char msg[ERROR_MSG_MAX];
};

/* Fill err and return -1, so that `return error_set(err, ...)` reads well. */
int error_set(struct error *err, enum error_kind kind, int status,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* error_set for a failed system call: appends ": strerror(errno)". */
int error_errno(struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prepend context ("reading manifest: ") to an existing message; returns -1. */
int error_prefix(struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append what to do ("; chmod +t it") to an existing message; returns -1. */
int error_append(struct error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void error_clear(struct error *err);

/* The error argument of a call whose failure is deliberately not acted on
 * (best-effort clean-up, a cache): a fresh object per use, nothing shared,
 * and the intent is in the name. */
#define ERROR_DISCARD (&(struct error){ .kind = ERR_NONE })

#endif
