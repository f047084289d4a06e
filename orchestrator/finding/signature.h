/* A failure signature (docs/findings.md "Signature"): what one failure has
 * in common with every other failure of the same fault, whatever case,
 * image, GPU or night it came from. Its parts are the outcome, the fault
 * class, the kernel family (orchestrator/finding/kernel_family.h), the
 * classifier's evidence line normalized (no addresses, pids, node
 * numbers, sequence numbers, times, hashes or CI prefixes) and the
 * diagnosis' stop reason; its id, 12 hex digits, is a hash of the parts,
 * for grouping and display only. Pure. */
#ifndef HRR_FINDING_SIGNATURE_H
#define HRR_FINDING_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"

#define SIGNATURE_ID_LEN 12
/* Bytes of a normalized evidence line or stop reason at most. */
#define SIGNATURE_TEXT_MAX 240

struct signature {
	char id[SIGNATURE_ID_LEN + 1]; /* "" when unset */
	char *outcome;                 /* "MAF", ...; NULL: no signature (a PASS) */
	char *fault_class;
	char *kernel_family;           /* NULL: no kernel */
	char *evidence;                /* normalized; NULL: none */
	char *stop_reason;             /* normalized; NULL: none */
	bool partial;                  /* made from fewer parts (a row stored before signatures) */
};

void signature_init(struct signature *s);
void signature_release(struct signature *s);
void signature_copy(struct signature *dst, const struct signature *src);
static inline bool signature_set(const struct signature *s)
{
	return s->outcome != NULL;
}

/* From raw parts: the kernel's full name (reduced to its family), the
 * evidence line as the log printed it, the stop reason as the debugger
 * said it. A PASS (or a NULL outcome) leaves s unset. */
void signature_make(struct signature *s, const char *outcome, const char *fault_class,
		    const char *kernel, const char *evidence, const char *stop_reason,
		    bool partial);
struct finding;
/* The signature of a finding (its outcome, class, kernel, evidence line
 * and stop reason); unset for a PASS. */
void signature_of_finding(struct signature *s, const struct finding *f);

/* From parts already reduced (a stored signature): the id is computed
 * again, so a hand-edited id never groups anything. */
void signature_from_parts(struct signature *s, const char *outcome, const char *fault_class,
			  const char *kernel_family, const char *evidence,
			  const char *stop_reason, bool partial);

/* The normalization of docs/findings.md "Signature" applied to one line
 * of log text (not NUL-terminated, any bytes). Appends to out. */
void signature_normalize_line(const char *line, size_t len, struct strbuf *out);

/* "illegal_memory_access in at::native::k" (or "... in no kernel"): the
 * short form reports show. */
void signature_short(const struct signature *s, struct strbuf *out);

/* A rule of the known-issues file (docs/sweep.md "Known issues") that
 * matches this signature's parts exactly, ready to paste: YAML, each value
 * single-quoted with the glob characters escaped, id, link and owner to
 * fill in. */
void signature_rule_yaml(const struct signature *s, struct strbuf *out);

#endif
