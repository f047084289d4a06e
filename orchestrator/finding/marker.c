/* The stop markers: one grammar, written and read here (marker.h). */
#include "orchestrator/finding/marker.h"

#include <limits.h>
#include <string.h>

#include "orchestrator/finding/classify_text.h"

const char *finding_ended_by_name(enum finding_ended_by e)
{
	switch (e) {
	case ENDED_SIGNAL:
		return "signal";
	case ENDED_TIMEOUT:
		return "timeout";
	case ENDED_PROGRESS_TIMEOUT:
		return "progress-timeout";
	case ENDED_INTERRUPT:
		return "interrupt";
	case ENDED_OOM:
		return "oom";
	case ENDED_EXIT:
	default:
		return "exit";
	}
}

void marker_format(struct strbuf *out, const struct marker *m)
{
	switch (m->ended_by) {
	case ENDED_TIMEOUT:
		strbuf_addf(out, "replay timed out after %llds", m->seconds);
		return;
	case ENDED_PROGRESS_TIMEOUT:
		strbuf_addf(out, "replay timed out after %llds without output", m->seconds);
		return;
	case ENDED_SIGNAL:
		strbuf_addf(out, "replay killed by signal %d", m->signal);
		return;
	case ENDED_OOM:
		strbuf_addstr(out, "replay killed by the engine: out of memory");
		return;
	case ENDED_INTERRUPT:
		strbuf_addf(out, "replay interrupted by the user (%s)",
			    m->signal_name ? m->signal_name : "unknown signal");
		return;
	case ENDED_EXIT:
		return;
	}
}

void marker_format_log_cut(struct strbuf *out, unsigned long long dropped,
			   unsigned long long limit)
{
	strbuf_addf(out, "log limit %llu bytes reached: %llu bytes dropped here (--log-limit)",
		    limit, dropped);
}

/* The literal at *pp, stepped over. */
static bool eat(const char **pp, const char *end, const char *lit, size_t n)
{
	if (!has_prefix(*pp, end, lit, n))
		return false;
	*pp += n;
	return true;
}

bool marker_parse(const char *p, const char *end, struct marker *m)
{
	long long n;

	memset(m, 0, sizeof(*m));
	if (!eat(&p, end, LIT("replay ")))
		return false;
	if (eat(&p, end, LIT("timed out after "))) {
		if (!parse_num(&p, end, &n) || !eat(&p, end, LIT("s")))
			return false;
		m->seconds = n;
		m->ended_by = eat(&p, end, LIT(" without output")) ? ENDED_PROGRESS_TIMEOUT
								 : ENDED_TIMEOUT;
		return true;
	}
	if (eat(&p, end, LIT("killed by signal "))) {
		if (!parse_num(&p, end, &n))
			return false;
		m->ended_by = ENDED_SIGNAL;
		m->signal = n > INT_MAX ? INT_MAX : (int)n;
		return true;
	}
	if (eat(&p, end, LIT("killed by the engine: out of memory"))) {
		m->ended_by = ENDED_OOM;
		return true;
	}
	if (eat(&p, end, LIT("interrupted by the user"))) {
		const char *a = memchr(p, '(', (size_t)(end - p));
		const char *b = a ? memchr(a, ')', (size_t)(end - a)) : NULL;

		m->ended_by = ENDED_INTERRUPT;
		if (a && b) {
			m->signal_name = a + 1;
			m->signal_name_len = (size_t)(b - (a + 1));
		}
		return true;
	}
	return false;
}
