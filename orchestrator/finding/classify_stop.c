/* The lines that explain a stop (issue 40 §1.4-1.6, §1.9): a device-side
 * assert's text, ROCr's memory critical error before its abort(), CLR's
 * missing code object for this GPU, and a batch scheduler's kill at its
 * time limit. Each only records; classify_decide.c weighs them. */
#include "orchestrator/finding/classify_state.h"

/* HIP's device-side assert (its __assert_fail, printing through a hostcall
 * "<file>:<line>: <function>: Device-side assertion `<expr>' failed."). */
void classify_device_assert(struct classifier *c)
{
	c->device_assert = true;
	saw_fault(c);
}

/* ROCr's runtime.cpp, before it calls abort():
 *   Memory critical error by agent node-N (Agent handle: 0x...) on address 0x.... Reason: R. */
void classify_critical(struct classifier *c, const char *p, const char *end)
{
	const char *q = p + sizeof("Memory critical error by agent node-") - 1;
	const char *node = q, *r, *b;

	saw_fault(c);
	while (q < end && is_digit(*q))
		q++;
	if (c->cut && q == end)
		return;
	set_once(&c->critical_node, node, q);
	r = find(q, end, LIT("Reason: "));
	if (!r)
		return;
	r += sizeof("Reason: ") - 1;
	b = memchr(r, '.', span(r, end));
	if (!b && c->cut)
		return;
	b = trim_end(r, b ? b : end);
	if (b > r)
		set_once(&c->critical_reason, r, b);
}

/* CLR's hip_fatbin.cpp: "Missing CO for these ISAs - " then one ISA a line. */
void classify_missing_co(struct classifier *c)
{
	c->missing_co = true;
	saw_fault(c);
}

/* Slurm's "*** JOB|STEP N ON host CANCELLED AT T DUE TO TIME LIMIT ***",
 * PBS's "=>> PBS: job killed: walltime N exceeded limit M", LSF's
 * "TERM_RUNLIMIT: job killed after reaching LSF run time limit." */
void classify_sched(struct classifier *c, const char *s, const char *p, const char *end)
{
	(void)p;
	end = trim_end(s, end);
	if (end - s > FINDING_UNREAD_TEXT_MAX)
		end = s + FINDING_UNREAD_TEXT_MAX;
	if (!c->cut)
		set_once(&c->sched_line, s, end);
	else if (!c->sched_line)
		c->sched_line = xstrdup("(cut)");
}
