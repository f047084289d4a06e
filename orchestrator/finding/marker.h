/* How a replay ended, and the stop markers that say so in its log.
 *
 * The log just ends where a process died, so a stop the replay did not
 * explain itself is recorded by the runner as one line at the end of the
 * log (docs/formats.md, "Stop markers"):
 *
 *     [hrr-docker-replay] replay timed out after <N>s
 *     [hrr-docker-replay] replay timed out after <N>s without output
 *     [hrr-docker-replay] replay killed by signal <N>
 *     [hrr-docker-replay] replay killed by the engine: out of memory
 *     [hrr-docker-replay] replay interrupted by the user (<SIGNAME>)
 *
 * This unit is the one owner of that grammar: the runner writes with
 * marker_format, the classifier reads with marker_parse. */
#ifndef HRR_FINDING_MARKER_H
#define HRR_FINDING_MARKER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"

enum finding_ended_by {
	ENDED_EXIT = 0,         /* the replay exited by itself: no marker */
	ENDED_SIGNAL,           /* exit status 128+N that the runner did not cause */
	ENDED_TIMEOUT,          /* --timeout fired */
	ENDED_PROGRESS_TIMEOUT, /* --progress-timeout fired */
	ENDED_INTERRUPT,        /* the user stopped the runner */
	ENDED_OOM,              /* the engine OOM-killed the container */
};
/* "exit", "signal", "timeout", "progress-timeout", "interrupt", "oom":
 * the spelling of run.json and finding.json. */
const char *finding_ended_by_name(enum finding_ended_by e);

/* What the runner writes in front of a marker. The classifier accepts any
 * bracketed prefix (the shell workflow writes "[triage] "). */
#define MARKER_PREFIX "[hrr-docker-replay] "

struct marker {
	enum finding_ended_by ended_by; /* ENDED_EXIT: no marker */
	long long seconds;              /* the limit that fired (the two timeouts) */
	int signal;                     /* ENDED_SIGNAL: N */
	/* ENDED_INTERRUPT: "SIGINT". marker_format reads it NUL-terminated;
	 * marker_parse points it into the parsed line, signal_name_len long
	 * (NULL when the marker names none). */
	const char *signal_name;
	size_t signal_name_len;
};

/* Appends the marker's text without prefix or newline ("replay timed out
 * after 5s"); nothing for ENDED_EXIT. */
void marker_format(struct strbuf *out, const struct marker *m);

/* Not a stop marker: where --log-limit cut replay.log's middle out
 * ("log limit 1073741824 bytes reached: 52428800 bytes dropped here").
 * Its first word is not "replay", so marker_parse never takes it for a
 * stop. */
void marker_format_log_cut(struct strbuf *out, unsigned long long dropped,
			   unsigned long long limit);

/* p points at "replay" in a line that ends at end. True when a stop marker
 * starts there; *m is then filled. Whatever precedes p is not looked at. */
bool marker_parse(const char *p, const char *end, struct marker *m);

#endif
