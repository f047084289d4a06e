/* hrr-playback's caveat lines (docs/formats.md "Placement" and "Runtime
 * libraries"): where the replay placed each allocation, and which ROCm
 * libraries it mapped. Upstream prints them from hrr_va_placement.cpp and
 * hrr_playback.cpp:
 *   [HRR]   Placement      : N placed at capture address, M fell back[, K frees deferred...]
 *   [HRR] Placement: <api>[ 0x...][ (<n> bytes)] not placed at its recorded address: <why>. ...
 *   [HRR] Placement: further fallbacks are only counted; --verbose names every one
 *   [HRR] Runtime : <path>          (stdout, after the Device line)
 *   [HRR]         : <path>          (the next library, label blanked to 8 spaces)
 * Each reader only records; caveats.c gives the notes. */
#include "orchestrator/finding/classify_state.h"

#define NOT_PLACED " not placed at its recorded address"
#define MAX_RUNTIME_LIBRARIES 8

/* After "Placement" (blanks, then ':' and blanks): the summary's counts. */
static bool on_summary(struct finding_placement *p, const char *r, const char *end)
{
	long long placed, fell, deferred;

	if (!parse_num(&r, end, &placed) || !has_prefix(r, end, LIT(" placed at capture address, ")))
		return false;
	r += sizeof(" placed at capture address, ") - 1;
	if (!parse_num(&r, end, &fell) || !has_prefix(r, end, LIT(" fell back")))
		return false;
	r += sizeof(" fell back") - 1;
	p->placed = placed;
	p->fell_back = fell;
	if (has_prefix(r, end, LIT(", "))) {
		r += 2;
		if (parse_num(&r, end, &deferred) && has_prefix(r, end, LIT(" frees deferred")))
			p->frees_deferred = deferred;
	}
	return true;
}

/* "<api>[ 0x...][ (<n> bytes)]" before " not placed at ...". */
static void on_fallback(struct classifier *c, const char *r, const char *np)
{
	struct finding_placement *p = &c->f.placement;
	struct placement_fallback *b;
	const char *api_end = r, *q;
	long long bytes;

	p->fallback_lines = sat_add(p->fallback_lines, 1);
	if (c->cut || p->n_fallbacks >= FINDING_MAX_FALLBACKS)
		return;
	while (api_end < np && *api_end != ' ')
		api_end++;
	if (api_end == r)
		return;
	b = &p->fallbacks[p->n_fallbacks++];
	b->api = dup_range(r, api_end);
	b->bytes = -1;
	q = skip_blanks(api_end, np);
	if (has_prefix(q, np, LIT("0x"))) {
		const char *h = hex_token(q, np);

		if (h) {
			b->address = dup_range(q, h);
			q = skip_blanks(h, np);
		}
	}
	if (q < np && *q == '(') {
		q++;
		if (parse_num(&q, np, &bytes) && has_prefix(q, np, LIT(" bytes)")))
			b->bytes = bytes;
	}
}

static void on_placement(struct classifier *c, const char *r, const char *end)
{
	struct finding_placement *p = &c->f.placement;
	const char *np;

	r = skip_blanks(r, end);
	if (r >= end || *r != ':')
		return;
	r = skip_blanks(r + 1, end);
	if (r < end && is_digit(*r)) {
		if (!c->cut && on_summary(p, r, end))
			p->seen = true;
		return;
	}
	if (has_prefix(r, end, LIT("further fallbacks are only counted"))) {
		p->seen = true;
		p->fallbacks_counted = true;
		return;
	}
	np = find(r, end, LIT(NOT_PLACED));
	if (np) {
		p->seen = true;
		on_fallback(c, r, np);
	}
}

static void on_runtime_library(struct classifier *c, const char *r, const char *end)
{
	struct strvec *libs = &c->f.runtime_libraries;

	r = skip_blanks(r, end);
	end = trim_end(r, end);
	if (c->cut || r >= end || *r != '/' || libs->n >= MAX_RUNTIME_LIBRARIES)
		return;
	strvec_push_nodup(libs, dup_range(r, end));
}

bool classify_caveat(struct classifier *c, const char *q, const char *end)
{
	bool runtime = c->runtime_lines;
	const char *r;

	c->runtime_lines = false;
	if (has_prefix(q, end, LIT("Placement"))) {
		on_placement(c, q + 9, end);
		return true;
	}
	if (has_prefix(q, end, LIT("Runtime"))) {
		r = skip_blanks(q + 7, end);
		if (r >= end || *r != ':')
			return false;
		c->runtime_lines = true;
		on_runtime_library(c, r + 1, end);
		return true;
	}
	/* The next library: the label blanked, so the line starts at ':'. */
	if (runtime && *q == ':') {
		c->runtime_lines = true;
		on_runtime_library(c, q + 1, end);
		return true;
	}
	return false;
}
