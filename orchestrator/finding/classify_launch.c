/* Launch and dispatch lines: hrr-playback's heartbeat (`[HRR progress]`),
 * its verbose `Event N: api -> Kernel '...'` lines. They say where the
 * replay was, never how it ended. (The runtime's dispatch assignments,
 * found anywhere in a line, are read in classify_runtime.c.) */
#include "orchestrator/finding/classify_state.h"

/* The last '<q>' in [a, end): a name's closing quote. Names are printed
 * byte for byte, so one may hold the quote character; what follows the
 * closing one (" OK", a spliced fault line, a colour reset) does not. */
static const char *closing_quote(const char *a, const char *end, char q)
{
	const char *b = end;

	while (b > a && b[-1] != q)
		b--;
	return b > a ? b - 1 : NULL;
}

/* What follows an [HRR] line's own fields: another write may have landed
 * there (a fault during the launch's sync), or a colour reset. */
static void classify_rest(struct classifier *c, const char *p, const char *end)
{
	p = skip_blanks(p, end);
	if (has_prefix(p, end, LIT("OK")))
		p = skip_blanks(p + 2, end);
	if (p < end)
		classify_anchored(c, p, end, end);
}

struct heartbeat {
	long long seq, kernels, pass, fail, attempted;
};

static void heartbeat_field(struct heartbeat *h, const char *key, size_t n, long long v)
{
	if (n == 3 && !memcmp(key, "seq", 3))
		h->seq = v;
	else if (n == 7 && !memcmp(key, "kernels", 7))
		h->kernels = v;
	else if (n == 8 && !memcmp(key, "d2h_pass", 8))
		h->pass = v;
	else if (n == 8 && !memcmp(key, "d2h_fail", 8))
		h->fail = v;
	else if (n == 13 && !memcmp(key, "d2h_attempted", 13))
		h->attempted = v;
}

/* [HRR progress] elapsed_s=1.0 seq=N kernels=N d2h_pass=N d2h_fail=N d2h_attempted=N last="name"
 * A heartbeat counts whole or not at all: a cut one (the replay died while
 * writing it) changes nothing. */
void classify_progress(struct classifier *c, const char *p, const char *end)
{
	struct heartbeat h = { c->prog_seq, c->prog_kernels, c->prog_pass, c->prog_fail,
			       c->prog_attempted };
	const char *q = p, *last = NULL, *last_end = NULL;

	while (q < end) {
		const char *key, *eq, *num;
		long long v;

		q = skip_blanks(q, end);
		key = q;
		eq = NULL;
		while (q < end && *q != ' ' && *q != '\t') {
			if (*q == '=' && !eq)
				eq = q;
			q++;
		}
		if (!eq)
			continue;
		if (eq - key == 4 && !memcmp(key, "last", 4) && eq + 1 < end && eq[1] == '"') {
			last = eq + 2;
			last_end = closing_quote(last, end, '"');
			break;
		}
		num = eq + 1;
		if (parse_num(&num, q, &v))
			heartbeat_field(&h, key, (size_t)(eq - key), v);
	}
	if (c->cut)
		return;
	c->have_progress = true;
	c->prog_seq = h.seq;
	c->prog_kernels = h.kernels;
	c->prog_pass = h.pass;
	c->prog_fail = h.fail;
	c->prog_attempted = h.attempted;
	if (!last_end)
		return;
	strbuf_set(&c->prog_last, last, last_end);
	c->prog_has_last = true;
	classify_rest(c, last_end + 1, end);
}

/* [HRR] Event N: api[ -> Kernel 'name'][ OK] — q points after "Event ".
 * The event is recorded while no fault has been seen; the rest of the line
 * is read in any case (a fault during the launch's sync lands there). */
void classify_event(struct classifier *c, const char *q, const char *end)
{
	long long idx;
	const char *api, *api_end, *k, *rest;

	if (!parse_num(&q, end, &idx) || q >= end || *q != ':')
		return;
	api = skip_blanks(q + 1, end);
	api_end = api;
	while (api_end < end && is_word(*api_end))
		api_end++;
	if (api_end == api)
		return;
	rest = api_end;
	k = find(api_end, end, LIT("-> Kernel '"));
	if (k) {
		const char *a = k + sizeof("-> Kernel '") - 1;
		const char *b = closing_quote(a, end, '\'');

		rest = b ? b + 1 : end;
		if (b > a && !c->fault_seen) {
			strbuf_set(&c->ev_kernel, a, b);
			c->have_ev_kernel = true;
		}
	}
	if (!c->fault_seen) {
		c->have_event = true;
		c->ev_index = idx;
		strbuf_set(&c->ev_api, api, api_end);
	}
	if (rest < end)
		classify_rest(c, rest, end);
}

/* [HRR]   arg[i]: ptr 0x... -> 0x...[ (MISSING!)]: a pointer argument;
 * the (MISSING!) form, one the archive cannot map. A line longer than any such
 * line has had another write land on it. */
void classify_arg(struct classifier *c, const char *q, const char *end)
{
	/* Anywhere in the line: a colour reset or another write may follow. */
	if (find(q, end, LIT("(MISSING!)")))
		c->f.saw_missing_handle = true;
	if (span(q, end) > 96)
		classify_anchored(c, q, end, end);
}
