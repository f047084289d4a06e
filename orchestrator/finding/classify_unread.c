/* Evidence no rule read (issue 40 §2): a line that looks like a cause (an
 * unknown hipError name, an error-level runtime log line, an amdgpu
 * kernel-log line, an assertion, a crash notice, a scheduler's cancel
 * line) that no rule of the classifier took. Found by classify_anchor.c's
 * one pass over the line; listed here, the first line of each kind with its
 * line number and a count, bounded by FINDING_MAX_UNREAD kinds of
 * FINDING_UNREAD_TEXT_MAX bytes each. */
#include "orchestrator/finding/classify_state.h"

/* CLR's log line at its start, ":<level>:<file>.cpp" (ClPrint:
 * ":%d:%-25s:%-4d: ..."). Only levels 0 (always printed) and 1 (LOG_ERROR)
 * are evidence; 2 to 4 are warnings, information and debugging that a
 * healthy run prints too. */
void classify_unread_log(const char *s, const char *end, struct anchors *a)
{
	const char *w = s + 3, *e;

	if (end - s < 8 || s[2] != ':' || (s[1] != '0' && s[1] != '1'))
		return;
	e = w;
	while (e < end && (is_word(*e) || *e == '-'))
		e++;
	if (e == w || !has_prefix(e, end, LIT(".cpp")))
		return;
	a->unread = w;
	a->unread_kind = UNREAD_RUNTIME_LOG;
}

void classify_unread_anchor(const char *s, const char *p, const char *end, struct anchors *a)
{
	enum unread_kind kind = UNREAD_NONE;
	const char *at = p;

	if (a->unread)
		return;
	switch (*p) {
	case 'd':
		/* the kernel log's "amdgpu 0000:..", "amdgpu: ..", "[amdgpu]]"
		 * (p at its "dg") */
		if (p - s >= 2 && end - p >= 5 && !memcmp(p - 2, "amdgpu", 6) &&
		    (p - 2 == s || !is_word(p[-3])) && (p[4] == ' ' || p[4] == ':' || p[4] == ']')) {
			kind = UNREAD_AMDGPU;
			at = p - 2;
		} else if (p - s >= 5 && !memcmp(p - 5, "core ", 5) && has_prefix(p, end, LIT("dumped"))) {
			kind = UNREAD_CORE_DUMPED;
			at = p - 5;
		}
		break;
	case 'A':
		if (has_prefix(p, end, LIT("Assertion")))
			kind = UNREAD_ASSERTION;
		break;
	case 'S':
		if (has_prefix(p, end, LIT("Segmentation fault")))
			kind = UNREAD_SEGFAULT;
		break;
	default:
		break;
	}
	if (kind != UNREAD_NONE) {
		a->unread = at;
		a->unread_kind = kind;
	}
}

/* The kind's name: the hipError name or the runtime file as the line has
 * it, else a fixed word. */
static void kind_name(enum unread_kind kind, const char *at, const char *end,
		      const char **k, const char **k_end)
{
	static const char *const names[] = {
		[UNREAD_AMDGPU] = "amdgpu", [UNREAD_ASSERTION] = "Assertion",
		[UNREAD_SEGFAULT] = "Segmentation fault", [UNREAD_CORE_DUMPED] = "core dumped",
		[UNREAD_SCHEDULER] = "CANCELLED",
	};
	const char *e = at;

	if (kind == UNREAD_HIP_ERROR || kind == UNREAD_RUNTIME_LOG) {
		while (e < end && (is_word(*e) || *e == '-' || (*e == '.' && kind == UNREAD_RUNTIME_LOG)))
			e++;
		*k = at;
		*k_end = e;
		return;
	}
	*k = names[kind];
	*k_end = *k + strlen(*k);
}

void classify_unread(struct classifier *c, const char *s, const char *end,
		     const char *at, enum unread_kind kind)
{
	const char *k, *k_end, *t_end;
	struct finding_unread *u;

	kind_name(kind, at, end, &k, &k_end);
	if (k_end <= k || (c->cut && k_end == end))
		return;
	for (size_t i = 0; i < c->n_unread; i++)
		if (strlen(c->unread[i].kind) == span(k, k_end) &&
		    !memcmp(c->unread[i].kind, k, span(k, k_end))) {
			c->unread[i].count++;
			return;
		}
	if (c->n_unread >= FINDING_MAX_UNREAD)
		return;
	t_end = trim_end(s, end);
	if (t_end - s > FINDING_UNREAD_TEXT_MAX) {
		t_end = s + FINDING_UNREAD_TEXT_MAX;
		/* not inside a UTF-8 character */
		while (t_end > s && ((unsigned char)*t_end & 0xc0) == 0x80)
			t_end--;
	}
	u = &c->unread[c->n_unread++];
	u->kind = dup_range(k, k_end);
	u->text = dup_range(s, t_end);
	u->line = c->line_no;
	u->count = 1;
}
