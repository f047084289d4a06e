/* Launch and dispatch lines: hrr-playback's heartbeat (`[HRR progress]`),
 * its verbose `Event N: api -> Kernel '...'` lines, and the runtime's
 * dispatch assignments (`kernarg_address=`, `grid=[...]`). They say where
 * the replay was, never how it ended. */
#include "finding/classify.h"

/* [HRR progress] elapsed_s=1.0 seq=N kernels=N d2h_pass=N d2h_fail=N d2h_attempted=N last="name" */
void classify_progress(struct classifier *c, const char *p, const char *end)
{
	const char *q = p;
	long long v;

	c->have_progress = true;
	while (q < end) {
		const char *key, *eq;

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
			const char *a = eq + 2;
			const char *b = trim_end(a, end);

			if (b > a && b[-1] == '"')
				b--;
			strbuf_set(&c->prog_last, a, b);
			c->prog_has_last = true;
			return;
		}
		{
			const char *num = eq + 1;

			if (!parse_num(&num, q, &v))
				continue;
		}
		switch (eq - key) {
		case 3:
			if (!memcmp(key, "seq", 3))
				c->prog_seq = v;
			break;
		case 7:
			if (!memcmp(key, "kernels", 7))
				c->prog_kernels = v;
			break;
		case 8:
			if (!memcmp(key, "d2h_pass", 8))
				c->prog_pass = v;
			else if (!memcmp(key, "d2h_fail", 8))
				c->prog_fail = v;
			break;
		case 13:
			if (!memcmp(key, "d2h_attempted", 13))
				c->prog_attempted = v;
			break;
		default:
			break;
		}
	}
}

/* [HRR] Event N: api[ -> Kernel 'name'] — q points after "Event ". */
void classify_event(struct classifier *c, const char *q, const char *end)
{
	long long idx;
	const char *api, *api_end, *k;

	if (c->fault_seen || !parse_num(&q, end, &idx) || q >= end || *q != ':')
		return;
	api = skip_blanks(q + 1, end);
	api_end = api;
	while (api_end < end && is_word(*api_end))
		api_end++;
	if (api_end == api)
		return;
	c->have_event = true;
	c->ev_index = idx;
	strbuf_set(&c->ev_api, api, api_end);
	k = find(api_end, end, LIT("-> Kernel '"));
	if (k) {
		const char *a = k + sizeof("-> Kernel '") - 1;
		const char *b = memchr(a, '\'', span(a, end));

		if (!b)
			b = trim_end(a, end);
		if (b > a) {
			strbuf_set(&c->ev_kernel, a, b);
			c->have_ev_kernel = true;
		}
	}
}

/* [HRR] arg[i] ... (MISSING!): a pointer argument the archive cannot map. */
void classify_arg(struct classifier *c, const char *q, const char *end)
{
	if (span(q, end) >= 10 && !memcmp(end - 10, "(MISSING!)", 10))
		c->f.saw_missing_handle = true;
}

/* kernarg_address=0x... / grid=[x,y,z], workgroup=[x,y,z]: the dispatch
 * printed last before the fault, else the first after it. */
void classify_assignments(struct classifier *c, const char *kernarg, const char *grid,
			  const char *end)
{
	struct finding *f = &c->f;

	if (kernarg) {
		const char *h = hex_token(kernarg + 16, end);

		if (h) {
			if (!c->fault_seen)
				set_last(&f->kernarg_address, kernarg + 16, h);
			else
				set_once(&f->kernarg_address, kernarg + 16, h);
		}
	}
	if (grid) {
		const char *g = grid + 6;
		const char *ge = memchr(g, ']', span(g, end));
		const char *w = ge && has_prefix(ge, end, LIT("], workgroup=[")) ? ge + 14 : NULL;
		const char *we = w ? memchr(w, ']', span(w, end)) : NULL;

		if (we && (!c->fault_seen || !f->grid)) {
			set_last(&f->grid, g, ge);
			set_last(&f->workgroup, w, we);
		}
	}
}

