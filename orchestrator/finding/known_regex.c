#include "orchestrator/finding/known_regex.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a piece of the pattern costs regcomp: how many copies of it the
 * bounded repeats around it make, and how many repeats deep it is. */
struct cost {
	unsigned long copies;
	int depth;
};

struct scan {
	const char *re;
	size_t i;
	struct cost group[KNOWN_RE_GROUPS_MAX + 1]; /* each open group's pieces so far */
	int top;
	struct cost atom; /* the piece a repeat would apply to */
	bool have_atom;
	char *why;
	size_t n;
};

static int refuse(struct scan *s, const char *fmt, unsigned long v)
{
	snprintf(s->why, s->n, fmt, v);
	return -1;
}

/* The last piece joins its group: copies add up (every branch and every
 * piece is compiled), depth is the deepest. */
static void keep(struct scan *s)
{
	struct cost *g = &s->group[s->top];

	g->copies += s->atom.copies;
	if (s->atom.depth > g->depth)
		g->depth = s->atom.depth;
}

static void atom(struct scan *s, struct cost c)
{
	s->atom = c;
	s->have_atom = true;
	keep(s);
}

/* A repeat of the last piece, of at most times copies. */
static int repeat(struct scan *s, unsigned long times)
{
	if (!s->have_atom)
		return 0;
	s->group[s->top].copies -= s->atom.copies;
	s->atom.copies = s->atom.copies * (times ? times : 1);
	s->atom.depth++;
	if (s->atom.depth > KNOWN_RE_NEST_MAX)
		return refuse(s, "repeats nested %lu deep (at most 3)", (unsigned long)s->atom.depth);
	keep(s);
	if (s->atom.copies > KNOWN_RE_COPIES_MAX || s->group[s->top].copies > KNOWN_RE_COPIES_MAX)
		return refuse(s, "repeats make %lu copies (at most 1000)",
			      s->atom.copies > s->group[s->top].copies ? s->atom.copies
								     : s->group[s->top].copies);
	return 0;
}

/* "{m}", "{m,}", "{m,n}", "{,n}" at s->i; anything else is a plain '{'. */
static int bound(struct scan *s)
{
	const char *open = s->re + s->i + 1, *p = open;
	char *end = (char *)open;
	unsigned long m = 0, n;

	if (*p >= '0' && *p <= '9')
		m = strtoul(p, &end, 10);
	n = m;
	if (*end == ',') {
		p = end + 1;
		end = (char *)p;
		if (*p >= '0' && *p <= '9')
			n = strtoul(p, &end, 10);
	}
	if (*end != '}' || end == open) {
		atom(s, (struct cost){ 1, 0 });
		return 0;
	}
	if (m > KNOWN_RE_COUNT_MAX || n > KNOWN_RE_COUNT_MAX)
		return refuse(s, "a repeat count of %lu (at most 255)", m > n ? m : n);
	s->i = (size_t)(end - s->re);
	return repeat(s, m > n ? m : n);
}

/* A bracket expression from its '[' to its ']' (a ']' first is a member,
 * "[:alpha:]", "[.x.]" and "[=x=]" are skipped whole). */
static void bracket(struct scan *s)
{
	const char *re = s->re;
	size_t i = s->i + 1;

	if (re[i] == '^')
		i++;
	if (re[i] == ']')
		i++;
	while (re[i] && re[i] != ']') {
		if (re[i] == '[' && re[i + 1] && strchr(".:=", re[i + 1])) {
			const char *close = strchr(re + i + 2, re[i + 1]);

			while (close && close[1] != ']')
				close = strchr(close + 1, re[i + 1]);
			i = close ? (size_t)(close - re) + 2 : strlen(re);
			continue;
		}
		i++;
	}
	s->i = re[i] ? i : i - 1;
	atom(s, (struct cost){ 1, 0 });
}

static int step(struct scan *s)
{
	char c = s->re[s->i];

	switch (c) {
	case '\\':
		if (s->re[s->i + 1] >= '1' && s->re[s->i + 1] <= '9')
			return refuse(s, "a back-reference \\%lu (refused: it can run for "
				      "minutes)", (unsigned long)(s->re[s->i + 1] - '0'));
		if (s->re[s->i + 1])
			s->i++;
		atom(s, (struct cost){ 1, 0 });
		return 0;
	case '[':
		bracket(s);
		return 0;
	case '(':
		if (s->top == KNOWN_RE_GROUPS_MAX)
			return refuse(s, "groups nested over %lu deep", KNOWN_RE_GROUPS_MAX);
		s->group[++s->top] = (struct cost){ 0, 0 };
		s->have_atom = false;
		return 0;
	case ')':
		if (!s->top) {
			atom(s, (struct cost){ 1, 0 });
			return 0;
		}
		atom(s, s->group[s->top--]);
		return 0;
	case '*':
	case '+':
	case '?':
		return repeat(s, 1);
	case '{':
		return bound(s);
	case '|':
	case '^':
	case '$':
		s->have_atom = false;
		return 0;
	default:
		atom(s, (struct cost){ 1, 0 });
		return 0;
	}
}

int known_regex_check(const char *re, char *why, size_t n)
{
	struct scan s = { .re = re, .why = why, .n = n };
	size_t len = strlen(re);

	s.group[0] = (struct cost){ 0, 0 };
	if (len > KNOWN_RE_LEN_MAX)
		return refuse(&s, "a regular expression of %lu bytes (at most 512)",
			      (unsigned long)len);
	for (; s.i < len; s.i++)
		if (step(&s) < 0)
			return -1;
	return 0;
}
