/* A seccomp sandbox for the parsers of untrusted input (replay logs from
 * elsewhere, archive manifests, tool output from an image), the way file(1)
 * sandboxes its magic parsers: the parse runs in a forked child that may
 * only read and write the descriptors it was given, manage its memory and
 * exit. Anything else (open, socket, execve, mapping executable memory)
 * kills it with SIGSYS, so a parser bug cannot become code running with
 * the user's rights.
 *
 * Built with -DHRR_NO_SANDBOX (the ASan/UBSan and valgrind builds, whose
 * runtimes make system calls of their own) the filter is not installed;
 * the parse still runs in a child. */
#ifndef HRR_COMMON_SANDBOX_H
#define HRR_COMMON_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"

/* The most a sandboxed parse may hand back; more is ERR_LIMIT. */
#define SANDBOX_OUTPUT_MAX (64u << 20)

/* Whether this build installs the filter. */
bool sandbox_enabled(void);

/* Install the filter in the calling process, after PR_SET_NO_NEW_PRIVS.
 * Irreversible: only for a child about to parse. */
int sandbox_enter(struct error *err) __attribute__((warn_unused_result));

/* A parse step: read in_fd, write the result to out_fd, return 0 (else the
 * child exits non-zero). */
typedef int (*sandbox_fn)(int in_fd, int out_fd, void *ud);

/* Run fn in a forked child under the filter, with only in_fd, the output
 * pipe and stderr left open; append what it writes to *out. A child that
 * exits non-zero: ERR_DATA; killed by a signal: ERR_DATA with status =
 * the signal (SIGSYS: it made a forbidden system call). */
int sandbox_run(sandbox_fn fn, void *ud, int in_fd, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

/* The same with several inputs (the logs of one `analyze`): in_fds[0..n)
 * stay open in the child (negative entries are skipped) and reach fn. */
typedef int (*sandbox_fds_fn)(const int *in_fds, size_t n, int out_fd, void *ud);
int sandbox_run_fds(sandbox_fds_fn fn, void *ud, const int *in_fds, size_t n,
		    struct strbuf *out, struct error *err) __attribute__((warn_unused_result));

#endif
