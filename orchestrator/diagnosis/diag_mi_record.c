/* GDB/MI output records: a bounded recursive-descent parser. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/diagnosis/diag_mi.h"

struct cursor {
	const char *s, *end;
	size_t values;
	struct error *err;
};

static int bad(struct cursor *c, const char *what)
{
	return error_set(c->err, ERR_DATA, 0, "GDB/MI record: %s at column %zu", what,
			 (size_t)(c->end - c->s));
}

static void skip_blanks(struct cursor *c)
{
	while (c->s < c->end && (*c->s == ' ' || *c->s == '\t'))
		c->s++;
}

static bool at(struct cursor *c, char ch)
{
	return c->s < c->end && *c->s == ch;
}

static struct mi_value *value_new(struct cursor *c, enum mi_kind kind)
{
	struct mi_value *v;

	if (++c->values > DIAG_MI_VALUES_MAX)
		return NULL;
	v = xcalloc(1, sizeof(*v));
	v->kind = kind;
	return v;
}

void mi_value_free(struct mi_value *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++)
		mi_value_free(v->items[i]);
	free(v->items);
	free(v->name);
	free(v->str);
	free(v);
}

static void push_item(struct mi_value *parent, struct mi_value *child)
{
	parent->items = xrealloc(parent->items, (parent->n + 1) * sizeof(*parent->items));
	parent->items[parent->n++] = child;
}

static int octal(int ch)
{
	return ch >= '0' && ch <= '7';
}

/* A c-string (the opening quote at c->s) decoded into out. */
static int parse_cstring(struct cursor *c, struct strbuf *out)
{
	static const char esc_from[] = "ntr\"\\abfve";
	static const char esc_to[] = "\n\t\r\"\\\a\b\f\v\033";

	c->s++;
	while (c->s < c->end && *c->s != '"') {
		char ch = *c->s++;
		const char *e;

		if (ch != '\\') {
			strbuf_addch(out, ch);
			continue;
		}
		if (c->s >= c->end)
			break;
		ch = *c->s++;
		if (octal(ch)) {
			int v = ch - '0';

			for (int i = 0; i < 2 && c->s < c->end && octal(*c->s); i++)
				v = v * 8 + (*c->s++ - '0');
			strbuf_addch(out, v & 0xff);
		} else if ((e = strchr(esc_from, ch)) && ch) {
			strbuf_addch(out, esc_to[e - esc_from]);
		} else {
			strbuf_addch(out, ch); /* unknown escape: the character itself */
		}
	}
	if (!at(c, '"'))
		return bad(c, "unterminated c-string");
	c->s++;
	return 0;
}

static int parse_value(struct cursor *c, struct mi_value **out, int depth);

static bool variable_char(char ch)
{
	return ch && !strchr("=,{}[]\" \t", ch);
}

/* variable "=" value */
static int parse_result(struct cursor *c, struct mi_value **out, int depth)
{
	const char *name = c->s;
	size_t len;

	while (c->s < c->end && variable_char(*c->s))
		c->s++;
	len = (size_t)(c->s - name);
	if (!len)
		return bad(c, "a result without a variable");
	skip_blanks(c);
	if (!at(c, '='))
		return bad(c, "a variable without '='");
	c->s++;
	skip_blanks(c);
	if (parse_value(c, out, depth) < 0)
		return -1;
	(*out)->name = xstrndup(name, len);
	return 0;
}

/* '{' [result (',' result)*] '}' or '[' [elem (',' elem)*] ']' */
static int parse_group(struct cursor *c, struct mi_value *v, char close, int depth)
{
	c->s++;
	skip_blanks(c);
	if (at(c, close)) {
		c->s++;
		return 0;
	}
	for (;;) {
		struct mi_value *item = NULL;
		int rc;

		skip_blanks(c);
		if (close == ']' && (at(c, '"') || at(c, '{') || at(c, '[')))
			rc = parse_value(c, &item, depth + 1);
		else
			rc = parse_result(c, &item, depth + 1);
		if (rc < 0) {
			mi_value_free(item); /* a value cut short is not in v yet */
			return -1;
		}
		push_item(v, item);
		skip_blanks(c);
		if (at(c, close)) {
			c->s++;
			return 0;
		}
		if (!at(c, ','))
			return bad(c, close == '}' ? "a tuple not closed by '}'" : "a list not closed by ']'");
		c->s++;
	}
}

static int parse_value(struct cursor *c, struct mi_value **out, int depth)
{
	struct mi_value *v;
	enum mi_kind kind;

	if (depth > DIAG_MI_DEPTH_MAX)
		return bad(c, "values nested too deep");
	if (at(c, '"'))
		kind = MI_CONST;
	else if (at(c, '{'))
		kind = MI_TUPLE;
	else if (at(c, '['))
		kind = MI_LIST;
	else
		return bad(c, "a value that is no c-string, tuple or list");
	v = value_new(c, kind);
	if (!v)
		return error_set(c->err, ERR_LIMIT, 0, "GDB/MI record: more than %d values",
				 DIAG_MI_VALUES_MAX);
	*out = v;
	if (kind == MI_CONST) {
		struct strbuf sb = STRBUF_INIT;

		if (parse_cstring(c, &sb) < 0) {
			strbuf_release(&sb);
			return -1;
		}
		v->str = strbuf_detach(&sb, &v->str_len);
		return 0;
	}
	return parse_group(c, v, kind == MI_TUPLE ? '}' : ']', depth);
}

bool mi_is_record(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && line[i] >= '0' && line[i] <= '9')
		i++;
	if (i + 1 >= len || !line[i] || !strchr("^*+=~@&", line[i]))
		return false;
	/* A class follows ^*+=, a c-string ~@&: "* 1  AMDGPU ..." is the current
	 * row of a human table, not an async record. */
	return strchr("~@&", line[i]) ? line[i + 1] == '"'
				       : line[i + 1] >= 'a' && line[i + 1] <= 'z';
}

static int parse_body(struct cursor *c, struct mi_record *rec)
{
	const char *cls = c->s;

	if (rec->type == MI_CONSOLE || rec->type == MI_TARGET || rec->type == MI_LOG) {
		struct strbuf sb = STRBUF_INIT;

		if (!at(c, '"') || parse_cstring(c, &sb) < 0) {
			strbuf_release(&sb);
			return at(c, '"') ? -1 : bad(c, "a stream record without a c-string");
		}
		rec->stream = strbuf_detach(&sb, &rec->stream_len);
		return 0;
	}
	while (c->s < c->end && ((*c->s >= 'a' && *c->s <= 'z') || *c->s == '-' || *c->s == '_'))
		c->s++;
	if (c->s == cls)
		return bad(c, "a record without a class");
	rec->cls = xstrndup(cls, (size_t)(c->s - cls));
	while (skip_blanks(c), at(c, ',')) {
		struct mi_value *item = NULL;

		c->s++;
		skip_blanks(c);
		if (parse_result(c, &item, 1) < 0) {
			mi_value_free(item);
			return -1;
		}
		push_item(rec->results, item);
	}
	skip_blanks(c);
	return c->s < c->end ? bad(c, "trailing bytes after the record") : 0;
}

int mi_parse_record(const char *line, size_t len, struct mi_record *rec, struct error *err)
{
	struct cursor c = { line, line + len, 0, err };

	memset(rec, 0, sizeof(*rec));
	rec->token = -1;
	while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
		c.end = line + --len;
	if (!mi_is_record(line, len))
		return error_set(err, ERR_DATA, 0, "not a GDB/MI record");
	rec->results = xcalloc(1, sizeof(*rec->results));
	rec->results->kind = MI_TUPLE;
	if (line[0] >= '0' && line[0] <= '9') {
		errno = 0;
		rec->token = strtoll(line, NULL, 10);
		if (errno)
			rec->token = -1;
		while (*c.s >= '0' && *c.s <= '9')
			c.s++;
	}
	rec->type = (enum mi_record_type)*c.s++;
	if (parse_body(&c, rec) < 0) {
		mi_record_release(rec);
		return -1;
	}
	return 0;
}

void mi_record_release(struct mi_record *rec)
{
	mi_value_free(rec->results);
	free(rec->cls);
	free(rec->stream);
	memset(rec, 0, sizeof(*rec));
	rec->token = -1;
}

const struct mi_value *mi_get(const struct mi_value *v, const char *name)
{
	if (!v || v->kind == MI_CONST)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (v->items[i]->name && !strcmp(v->items[i]->name, name))
			return v->items[i];
	return NULL;
}

const char *mi_get_str(const struct mi_value *v, const char *name)
{
	const struct mi_value *f = mi_get(v, name);

	return f && f->kind == MI_CONST ? f->str : NULL;
}
