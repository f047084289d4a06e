/* The kernel family: one rule for finding.json, the failure signature and
 * the history site (docs/findings.md "Kernel family"). Names come from
 * archives and logs byte for byte: every scan is bounded by the string's
 * end and by the caps below, and a name it cannot read gives less, never
 * more. No demangler: only the function's qualified name and, for
 * Composable Kernel, its first named template argument are read, from the
 * Itanium mangling or from the demangled text alike. */
#include "orchestrator/finding/kernel_family.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"

/* Caps that keep a family short whatever the name holds. */
#define FAMILY_PART_MAX 96   /* bytes of one name component */
#define FAMILY_NAME_MAX 160  /* bytes of the qualified name */
#define FAMILY_COMPONENTS 8  /* components of a qualified name */
#define FAMILY_TARGS 8       /* template arguments looked at */
#define ANON "(anonymous namespace)"

struct range {
	const char *p;
	size_t n;
};

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static void add_part(struct strbuf *out, const char *p, size_t n)
{
	strbuf_add(out, p, text_utf8_cut(p, n, FAMILY_PART_MAX));
}

/* ---- hipBLASLt / Tensile ---- */

/* The next '_'-separated token of [*pp, end). */
static bool next_token(const char **pp, const char *end, struct range *t)
{
	const char *p = *pp, *q;

	while (p < end && *p == '_')
		p++;
	if (p >= end)
		return false;
	for (q = p; q < end && *q != '_'; q++)
		;
	t->p = p;
	t->n = (size_t)(q - p);
	*pp = q;
	return true;
}

/* "MT256x256x64", "MI16x16x1": the prefix, then digits and 'x' only. */
static bool dims_token(const struct range *t, const char *prefix)
{
	size_t k = strlen(prefix);

	if (t->n <= k || memcmp(t->p, prefix, k) != 0 || !isdigit((unsigned char)t->p[k]))
		return false;
	for (size_t i = k; i < t->n; i++)
		if (!isdigit((unsigned char)t->p[i]) && t->p[i] != 'x')
			return false;
	return true;
}

/* The data types: "BBS", "HHS", "F8H", "BH": capitals and digits. */
static bool type_token(const struct range *t)
{
	if (!t->n || !isupper((unsigned char)t->p[0]) || dims_token(t, "MT"))
		return false;
	for (size_t i = 0; i < t->n; i++)
		if (!isupper((unsigned char)t->p[i]) && !isdigit((unsigned char)t->p[i]))
			return false;
	return true;
}

/* "Cijk_<A layout>_<B layout>_<types>_..._MT<tile>_MI<instruction>_..._SK3_...":
 * the layouts, types, macro tile and matrix instruction are what a GEMM's
 * owner asks first; stream-k (SK1 and up) is a different algorithm. */
static bool tensile_family(const char *k, struct strbuf *out)
{
	const char *c = strstr(k, "Cijk_"), *p, *end = k + strlen(k);
	struct range t, a = { 0 }, b = { 0 }, mt = { 0 }, mi = { 0 };
	struct range types[3];
	size_t n_types = 0;
	bool streamk = false, in_types = false;

	if (!c || (c != k && (c - k > 16 || c[-1] != '_')))
		return false;
	p = c + 5;
	while (next_token(&p, end, &t)) {
		if (!a.n && !b.n && t.p[0] == 'A' && t.n > 1) {
			a = t;
		} else if (a.n && !b.n && t.p[0] == 'B' && t.n > 1) {
			b = t;
			in_types = true;
			continue;
		} else if (in_types && n_types < 3 && type_token(&t)) {
			types[n_types++] = t;
			continue;
		} else if (!mt.n && dims_token(&t, "MT")) {
			mt = t;
		} else if (!mi.n && dims_token(&t, "MI")) {
			mi = t;
		} else if (t.n >= 3 && t.p[0] == 'S' && t.p[1] == 'K' && t.p[2] >= '1' &&
			   t.p[2] <= '9') {
			streamk = true;
		}
		in_types = false;
	}
	strbuf_addstr(out, "hipblaslt_gemm");
	if (a.n && b.n) {
		strbuf_addch(out, '/');
		add_part(out, a.p, a.n);
		strbuf_addch(out, '_');
		add_part(out, b.p, b.n);
	}
	for (size_t i = 0; i < n_types; i++) {
		strbuf_addch(out, i ? '_' : '/');
		add_part(out, types[i].p, types[i].n);
	}
	if (mt.n) {
		strbuf_addch(out, '/');
		add_part(out, mt.p, mt.n);
	}
	if (mi.n) {
		strbuf_addch(out, '/');
		add_part(out, mi.p, mi.n);
	}
	if (streamk)
		strbuf_addstr(out, "/streamk");
	return true;
}

/* ---- the Itanium mangling (the little a family needs) ---- */

struct mangled {
	const char *p, *end;
};

/* <source-name> ::= <length> <identifier>; the anonymous namespace's
 * "_GLOBAL__N_1" reads as "(anonymous namespace)". */
static bool source_name(struct mangled *m, struct range *r)
{
	size_t n = 0;

	if (m->p >= m->end || !isdigit((unsigned char)*m->p))
		return false;
	while (m->p < m->end && isdigit((unsigned char)*m->p)) {
		n = n * 10 + (size_t)(*m->p - '0');
		if (n > 4096)
			return false;
		m->p++;
	}
	if (!n || n > (size_t)(m->end - m->p))
		return false;
	r->p = m->p;
	r->n = n;
	m->p += n;
	if (n >= 10 && !memcmp(r->p, "_GLOBAL__N", 10)) {
		r->p = ANON;
		r->n = sizeof(ANON) - 1;
	}
	return true;
}

/* A substitution "S_", "S0_", "SA_" (what it stands for is not kept). */
static bool skip_substitution(struct mangled *m)
{
	if (m->p >= m->end || *m->p != 'S')
		return false;
	m->p++;
	while (m->p < m->end && (isdigit((unsigned char)*m->p) || isupper((unsigned char)*m->p)))
		m->p++;
	if (m->p < m->end && *m->p == '_')
		m->p++;
	return true;
}

/* The first template argument at m (after its 'I') that is a name: its
 * last component. Literals ("Li1E") and builtin types are passed over. */
static bool first_named_arg(struct mangled m, struct range *name)
{
	for (int arg = 0; arg < FAMILY_TARGS && m.p < m.end; arg++) {
		char c;

		while (m.p < m.end && strchr("PRKVJ", *m.p))
			m.p++; /* pointer, reference, cv, pack: the name follows */
		if (m.p >= m.end)
			return false;
		c = *m.p;
		if (c == 'E')
			return false;
		if (c == 'L') {
			const char *e = memchr(m.p, 'E', (size_t)(m.end - m.p));

			if (!e)
				return false;
			m.p = e + 1;
		} else if (isdigit((unsigned char)c)) {
			return source_name(&m, name);
		} else if (c == 'N') {
			struct range r;
			bool got = false;

			m.p++;
			while (m.p < m.end && *m.p != 'E' && *m.p != 'I') {
				if (source_name(&m, &r))
					got = true, *name = r;
				else if (m.p + 1 < m.end && m.p[0] == 'S' && m.p[1] == 't')
					m.p += 2;
				else if (!skip_substitution(&m))
					break;
			}
			return got;
		} else if (c == 'S' && m.p + 1 < m.end && m.p[1] == 't') {
			m.p += 2;
			return source_name(&m, name);
		} else if (c == 'D') {
			/* DF16_, Dh, Dn ...: an extended builtin type. */
			m.p += 2;
			while (m.p < m.end && (isdigit((unsigned char)*m.p) || *m.p == '_'))
				m.p++;
		} else {
			/* A builtin type ("i", "f", "b") or something this reader
			 * does not follow: no name to be had past it. */
			if (!islower((unsigned char)c))
				return false;
			m.p++;
		}
	}
	return false;
}

/* "_Z[L]N <names> E ..." or "_Z <name> ...": the qualified name into out,
 * where its template arguments start into *targs (NULL when none). */
static bool mangled_name(const char *k, struct strbuf *out, struct mangled *targs)
{
	struct mangled m = { k + 2, k + strlen(k) };
	struct range r;
	size_t parts = 0;

	targs->p = NULL;
	if (m.p < m.end && *m.p == 'L')
		m.p++;
	if (m.p < m.end && *m.p != 'N') {
		if (!source_name(&m, &r))
			return false;
		add_part(out, r.p, r.n);
		if (m.p < m.end && *m.p == 'I')
			*targs = (struct mangled){ m.p + 1, m.end };
		return true;
	}
	m.p++;
	while (m.p < m.end && strchr("KVr", *m.p))
		m.p++;
	while (m.p < m.end && parts < FAMILY_COMPONENTS) {
		if (*m.p == 'I') {
			/* The last component's template arguments: kept only
			 * when the name ends there (a function template). */
			*targs = (struct mangled){ m.p + 1, m.end };
			break;
		}
		if (m.p + 1 < m.end && m.p[0] == 'S' && m.p[1] == 't') {
			r.p = "std";
			r.n = 3;
			m.p += 2;
		} else if (*m.p == 'S') {
			skip_substitution(&m);
			continue;
		} else if (!source_name(&m, &r)) {
			break;
		}
		if (parts++)
			strbuf_addstr(out, "::");
		add_part(out, r.p, r.n);
	}
	return parts > 0;
}

/* ---- the demangled spelling ---- */

/* [start, end) of the function's qualified name: after the return type,
 * before the template arguments or the parameters. */
static bool demangled_name(const char *k, struct range *name, const char **targs)
{
	const char *start = k, *p = k;

	*targs = NULL;
	for (; *p && *p != '<' && *p != '('; p++)
		if (*p == ' ')
			start = p + 1;
	while (*p == '(' && !strncmp(p, ANON, sizeof(ANON) - 1)) {
		p += sizeof(ANON) - 1;
		for (; *p && *p != '<' && *p != '('; p++)
			if (*p == ' ')
				start = p + 1;
	}
	if (*p == '<')
		*targs = p + 1;
	name->p = start;
	name->n = (size_t)(p - start);
	return name->n > 0;
}

/* The first template argument of "<...>" that is a name: its last
 * component ("ck_tile::FmhaFwdKernel<...>" gives "FmhaFwdKernel"). */
static bool demangled_first_named_arg(const char *p, struct range *out)
{
	for (int arg = 0; arg < FAMILY_TARGS && *p; arg++) {
		int depth = 0;
		const char *last = NULL, *q;

		while (*p == ' ')
			p++;
		for (;;) {
			if (!strncmp(p, "const ", 6) || !strncmp(p, "class ", 6))
				p += 6;
			else if (!strncmp(p, "struct ", 7))
				p += 7;
			else
				break;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			for (q = p; is_ident(*q) || *q == ':'; q++)
				if (is_ident(*q) && (q == p || q[-1] == ':'))
					last = q;
			if (last && q > last) {
				out->p = last;
				out->n = (size_t)(q - last);
				return true;
			}
		}
		/* To the next argument at this depth. */
		for (; *p; p++) {
			if (*p == '<' || *p == '(')
				depth++;
			else if ((*p == '>' || *p == ')') && depth-- == 0)
				return false;
			else if (*p == ',' && depth == 0)
				break;
		}
		if (*p == ',')
			p++;
	}
	return false;
}

/* A trailing ".kd" or ".cold", or "_<hash>" of 8 or more hex digits with a
 * digit among them, names the same kernel. */
static size_t without_suffix(const char *p, size_t n)
{
	const char *dot = memchr(p, '.', n);
	size_t i, hex = 0;
	bool digit = false;

	if (dot && dot > p)
		n = (size_t)(dot - p);
	for (i = n; i > 0 && isxdigit((unsigned char)p[i - 1]); i--, hex++)
		digit |= isdigit((unsigned char)p[i - 1]) != 0;
	if (hex >= 8 && digit && i > 1 && p[i - 1] == '_')
		n = i - 1;
	return n;
}

static bool is_ck(const char *name)
{
	return !strncmp(name, "ck::", 4) || !strncmp(name, "ck_tile::", 9);
}

bool kernel_family_append(const char *kernel, struct strbuf *out)
{
	struct strbuf name = STRBUF_INIT;
	struct range r, arg = { 0 };
	bool ok, have_arg = false;
	size_t n;

	if (!kernel || !*kernel)
		return false;
	if (tensile_family(kernel, out))
		return true;
	if (!strncmp(kernel, "_Z", 2)) {
		struct mangled targs;

		ok = mangled_name(kernel, &name, &targs);
		if (ok && targs.p)
			have_arg = first_named_arg(targs, &arg);
	} else {
		const char *targs;

		ok = demangled_name(kernel, &r, &targs);
		if (ok) {
			strbuf_add(&name, r.p, text_utf8_cut(r.p, r.n, FAMILY_NAME_MAX));
			if (targs)
				have_arg = demangled_first_named_arg(targs, &arg);
		}
	}
	n = ok ? without_suffix(name.buf, text_utf8_cut(name.buf, name.len, FAMILY_NAME_MAX)) : 0;
	if (n) {
		strbuf_add(out, name.buf, n);
		if (have_arg && is_ck(name.buf)) {
			strbuf_addch(out, '/');
			add_part(out, arg.p, arg.n);
		}
	}
	strbuf_release(&name);
	return n > 0;
}

char *kernel_family(const char *kernel)
{
	struct strbuf sb = STRBUF_INIT;

	if (!kernel_family_append(kernel, &sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}
