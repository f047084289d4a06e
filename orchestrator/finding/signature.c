/* Failure signatures: the parts, their normalization and the id
 * (docs/findings.md "Signature"). */
#include "orchestrator/finding/signature.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/kernel_family.h"

void signature_init(struct signature *s)
{
	memset(s, 0, sizeof(*s));
}

void signature_release(struct signature *s)
{
	free(s->outcome);
	free(s->fault_class);
	free(s->kernel_family);
	free(s->evidence);
	free(s->stop_reason);
	signature_init(s);
}

static char *dup_nonempty(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

void signature_copy(struct signature *dst, const struct signature *src)
{
	signature_init(dst);
	if (signature_set(src))
		signature_from_parts(dst, src->outcome, src->fault_class, src->kernel_family,
				     src->evidence, src->stop_reason, src->partial);
}

static void hash_part(unsigned long long *h, const char *s)
{
	*h = text_fnv1a64(*h, s ? s : "-", strlen(s ? s : "-"));
	*h = text_fnv1a64(*h, "\x1f", 1);
}

void signature_from_parts(struct signature *s, const char *outcome, const char *fault_class,
			  const char *kernel_family, const char *evidence,
			  const char *stop_reason, bool partial)
{
	unsigned long long h = TEXT_FNV1A64_INIT;
	enum finding_outcome o;

	signature_release(s);
	/* A PASS has none. */
	if (!outcome || !*outcome || (finding_outcome_from_name(outcome, &o) && o == OUTCOME_PASS))
		return;
	s->outcome = xstrdup(outcome);
	s->fault_class = xstrdup(fault_class && *fault_class ? fault_class : "unknown");
	s->kernel_family = dup_nonempty(kernel_family);
	s->evidence = dup_nonempty(evidence);
	s->stop_reason = dup_nonempty(stop_reason);
	s->partial = partial;
	hash_part(&h, "sig1");
	hash_part(&h, s->outcome);
	hash_part(&h, s->fault_class);
	hash_part(&h, s->kernel_family);
	hash_part(&h, s->evidence);
	hash_part(&h, s->stop_reason);
	snprintf(s->id, sizeof(s->id), "%012llx", h & 0xffffffffffffull);
}

void signature_make(struct signature *s, const char *outcome, const char *fault_class,
		    const char *kernel, const char *evidence, const char *stop_reason,
		    bool partial)
{
	struct strbuf ev = STRBUF_INIT, stop = STRBUF_INIT;
	char *family = kernel_family(kernel);

	if (evidence)
		signature_normalize_line(evidence, strlen(evidence), &ev);
	if (stop_reason)
		signature_normalize_line(stop_reason, strlen(stop_reason), &stop);
	signature_from_parts(s, outcome, fault_class, family, ev.buf, stop.buf, partial);
	free(family);
	strbuf_release(&ev);
	strbuf_release(&stop);
}

void signature_of_finding(struct signature *s, const struct finding *f)
{
	signature_make(s, finding_outcome_name(f->outcome), finding_fault_class_name(f->fault_class),
		       f->kernel_name, f->evidence, f->stop_reason, false);
}

/* ---- normalization ---- */

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* What CI systems and loggers put in front of a line when the line holds
 * no anchor of the classifier: "2026-01-01T00:00:00.1234567Z",
 * "[2026-01-01 00:00:00]", "[triage]", "##[error]", "12:00:01". */
static const char *skip_ci_prefix(const char *p, const char *end)
{
	for (int rounds = 0; rounds < 8; rounds++) {
		const char *q;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (end - p >= 3 && !memcmp(p, "##[", 3))
			p += 2;
		if (p < end && *p == '[') {
			const char *close = memchr(p, ']', (size_t)(end - p) < 64 ? (size_t)(end - p) : 64);

			if (!close)
				return p;
			p = close + 1;
			continue;
		}
		for (q = p; q < end && (isdigit((unsigned char)*q) || strchr("-:.,TZ+/", *q)); q++)
			;
		if (q == p || !isdigit((unsigned char)*p) || (q < end && *q != ' ' && *q != '\t'))
			return p;
		p = q;
	}
	return p;
}

/* A hex word of 8 or more digits with a decimal digit among them: a
 * container id, a hash, a run id. */
static size_t hash_word(const char *p, const char *end)
{
	size_t n = 0;
	bool digit = false;

	while (p + n < end && isxdigit((unsigned char)p[n])) {
		digit |= isdigit((unsigned char)p[n]) != 0;
		n++;
	}
	if (n < 8 || !digit || (p + n < end && is_ident(p[n])))
		return 0;
	return n;
}

/* A number inside a word stays when two letters precede it ("gfx942",
 * "float4"): it names a thing rather than counting one. */
static bool number_is_name(const char *start, const char *p)
{
	return p - start >= 2 && isalpha((unsigned char)p[-1]) && isalpha((unsigned char)p[-2]);
}

static void add_capped(struct strbuf *out, size_t base, const char *s, size_t n)
{
	if (out->len - base + n <= SIGNATURE_TEXT_MAX)
		strbuf_add(out, s, n);
	else if (out->len - base < SIGNATURE_TEXT_MAX)
		strbuf_add(out, s, SIGNATURE_TEXT_MAX - (out->len - base));
}

void signature_normalize_line(const char *line, size_t len, struct strbuf *out)
{
	struct strbuf clean = STRBUF_INIT;
	const char *p, *end, *word;
	size_t base = out->len;
	bool space = false;

	text_sanitize(&clean, line, len, TEXT_STRIP_ANSI);
	p = clean.buf;
	end = clean.buf + clean.len;
	{
		const char *a = finding_line_anchor(p, end);

		p = a ? a : skip_ci_prefix(p, end);
	}
	word = p;
	while (p < end && out->len - base < SIGNATURE_TEXT_MAX) {
		size_t n;

		/* Blanks, and any control byte the sanitizer let through (a NUL
		 * inside the line: found by the fuzzer), separate words. */
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			space = true;
			p++;
			continue;
		}
		if (space && out->len > base)
			add_capped(out, base, " ", 1);
		space = false;
		if (!is_ident(*p) || p == clean.buf || !is_ident(p[-1]))
			word = p;
		if (word == p && (p[0] == '0') && end - p > 2 && (p[1] == 'x' || p[1] == 'X') &&
		    isxdigit((unsigned char)p[2])) {
			for (p += 2; p < end && isxdigit((unsigned char)*p); p++)
				;
			add_capped(out, base, "<addr>", 6);
			continue;
		}
		if (end - p >= 5 && !memcmp(p, "(nil)", 5)) {
			p += 5;
			add_capped(out, base, "<addr>", 6);
			continue;
		}
		if (word == p && (n = hash_word(p, end)) > 0) {
			p += n;
			add_capped(out, base, "<hash>", 6);
			continue;
		}
		if (isdigit((unsigned char)*p) && !number_is_name(word, p)) {
			while (p < end && (isdigit((unsigned char)*p) ||
					   (*p == '.' && p + 1 < end && isdigit((unsigned char)p[1]))))
				p++;
			add_capped(out, base, "<n>", 3);
			continue;
		}
		if (isdigit((unsigned char)*p)) {
			for (n = 0; p + n < end && isdigit((unsigned char)p[n]); n++)
				;
		} else {
			/* One UTF-8 character whole, so a cap never splits one. */
			n = 1;
			while (p + n < end && ((unsigned char)p[n] & 0xc0) == 0x80)
				n++;
		}
		if (out->len - base + n > SIGNATURE_TEXT_MAX)
			break;
		strbuf_add(out, p, n);
		p += n;
	}
	strbuf_release(&clean);
}

/* ---- JSON ---- */

void signature_short(const struct signature *s, struct strbuf *out)
{
	if (!signature_set(s))
		return;
	strbuf_addf(out, "%s in %s", s->fault_class, s->kernel_family ? s->kernel_family : "no kernel");
}

/* A glob matching s literally, as a YAML single-quoted scalar. */
static void yaml_literal_glob(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '\'');
	/* A leading "re:" would make the value a regular expression ("re:^"
	 * matches every failure); "\re:" is the glob of the text itself. */
	if (!strncmp(s, "re:", 3))
		strbuf_addch(out, '\\');
	for (; *s; s++) {
		if (strchr("*?[]\\", *s))
			strbuf_addch(out, '\\');
		if (*s == '\'')
			strbuf_addch(out, '\'');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '\'');
}

void signature_rule_yaml(const struct signature *s, struct strbuf *out)
{
	const char *const keys[] = { "outcome", "fault_class", "kernel_family", "evidence",
				     "stop_reason" };
	const char *const vals[] = { s->outcome, s->fault_class, s->kernel_family, s->evidence,
				     s->stop_reason };

	if (!signature_set(s))
		return;
	strbuf_addf(out, "  - id: TODO-%s\n    link: TODO\n    owner: TODO\n    match:\n", s->id);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!vals[i])
			continue;
		strbuf_addf(out, "      %s: ", keys[i]);
		yaml_literal_glob(out, vals[i]);
		strbuf_addch(out, '\n');
	}
}
