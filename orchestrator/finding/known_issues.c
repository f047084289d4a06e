/* The known-issues file: read with libyaml's document API, checked
 * strictly (an unknown key, a missing id/link/owner, a bad date or a bad
 * regular expression is an error naming the line and the rule), matched
 * with fnmatch(3) and regexec(3). */
#include "orchestrator/finding/known_issues.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "common/cleanup.h"
#include "common/owned_file.h"
#include "common/strbuf.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/known_regex.h"
#include "orchestrator/finding/known_yaml.h"

/* A known-issues file is a reviewed text file, not a data dump. */
#define KNOWN_FILE_MAX (4u << 20)
#define KNOWN_RULES_MAX 10000

static const char *const field_names[KNOWN__FIELDS] = {
	"outcome", "fault_class", "kernel_family", "evidence", "stop_reason",
	"case", "image", "gpu", "host",
};

const char *known_field_name(enum known_field f)
{
	return (unsigned)f < KNOWN__FIELDS ? field_names[f] : "?";
}

struct reader {
	const char *name;
	yaml_document_t *doc;
	struct error *err;
};

/* The file's ids, keys and values reach a terminal: controls (ESC, BEL, a
 * newline) are replaced as in every other one-line error, so a rule
 * cannot retitle or clear the screen of whoever reads its error. */
static int fail(struct reader *r, const yaml_node_t *at, const char *rule, const char *fmt,
		const char *what)
{
	cleanup_strbuf struct strbuf raw = STRBUF_INIT, clean = STRBUF_INIT;
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, what);
	strbuf_addf(&raw, "%s:%zu: %s%s%s%s", r->name, at ? at->start_mark.line + 1 : 1,
		    rule ? "rule " : "", rule ? rule : "", rule ? ": " : "", msg);
	text_sanitize(&clean, raw.buf, raw.len, 0);
	return error_set(r->err, ERR_DATA, 0, "%s", clean.buf);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *node(struct reader *r, int id)
{
	return yaml_document_get_node(r->doc, id);
}

/* YYYY-MM-DD: the rule holds through that day (UTC). */
static int parse_date(const char *s, long long *out)
{
	struct tm tm;
	char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%d", &tm);
	if (!end || *end || tm.tm_year < 70)
		return -1;
	*out = (long long)timegm(&tm) + 86400 - 1;
	return 0;
}

static int compile(struct reader *r, const yaml_node_t *at, const char *rule,
		   struct known_pattern *p, const char *text)
{
	char why[160];

	p->text = xstrdup(text);
	if (strncmp(text, "re:", 3) != 0)
		return 0;
	if (known_regex_check(text + 3, why, sizeof(why)) < 0) {
		free(p->text);
		p->text = NULL;
		return fail(r, at, rule, "regular expression refused: %s", why);
	}
	if (regcomp(&p->re, text + 3, REG_EXTENDED | REG_NOSUB) != 0) {
		free(p->text);
		p->text = NULL;
		return fail(r, at, rule, "bad regular expression '%s'", text + 3);
	}
	p->regex = true;
	return 0;
}

/* YAML forbids a key twice in a mapping, libyaml keeps both: the later
 * one would silently win over what a reviewer read first. The key node
 * of the first repeat, or NULL. */
static const yaml_node_t *repeated_key(struct reader *r, const yaml_node_t *m)
{
	return known_yaml_repeated_key(r->doc, m);
}

static int read_match(struct reader *r, const yaml_node_t *m, struct known_rule *rule)
{
	const yaml_node_t *dup;
	bool any = false;

	if (m->type != YAML_MAPPING_NODE)
		return fail(r, m, rule->id, "%s", "match: is not a mapping");
	if ((dup = repeated_key(r, m)))
		return fail(r, dup, rule->id, "match.%s given twice", scalar(dup));
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node(r, p->key), *v = node(r, p->value);
		const char *key = scalar(k), *val = scalar(v);
		size_t f;

		for (f = 0; key && f < KNOWN__FIELDS && strcmp(key, field_names[f]); f++)
			;
		if (!key || f == KNOWN__FIELDS)
			return fail(r, k, rule->id, "unknown match key '%s' (outcome, fault_class, "
				    "kernel_family, evidence, stop_reason, case, image, gpu, host)",
				    key ? key : "?");
		if (!val || !*val)
			return fail(r, v, rule->id, "match.%s needs a pattern", key);
		if (compile(r, v, rule->id, &rule->match[f], val) < 0)
			return -1;
		any = true;
	}
	return any ? 0 : fail(r, m, rule->id, "%s", "match: names nothing to match");
}

static int read_rule(struct reader *r, const yaml_node_t *n, struct known_rule *rule)
{
	const yaml_node_t *match = NULL, *dup;
	char **dst;

	rule->line = (int)n->start_mark.line + 1;
	rule->expires = -1;
	if (n->type != YAML_MAPPING_NODE)
		return fail(r, n, NULL, "%s", "a rule is a mapping (id, link, owner, match, ...)");
	/* The id first, so every later error names its rule. */
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
		if (scalar(node(r, p->key)) && !strcmp(scalar(node(r, p->key)), "id") &&
		    scalar(node(r, p->value)) && !rule->id)
			rule->id = xstrdup(scalar(node(r, p->value)));
	if ((dup = repeated_key(r, n)))
		return fail(r, dup, rule->id, "'%s' is given twice", scalar(dup));
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node(r, p->key), *v = node(r, p->value);
		const char *key = scalar(k), *val = scalar(v);

		if (key && !strcmp(key, "match")) {
			match = v;
			continue;
		}
		dst = !key                   ? NULL
		      : !strcmp(key, "id")   ? NULL
		      : !strcmp(key, "link") ? &rule->link
		      : !strcmp(key, "owner") ? &rule->owner
		      : !strcmp(key, "note") ? &rule->note
							: NULL;
		if (key && !strcmp(key, "id")) {
			if (!val || !*val)
				return fail(r, v, NULL, "%s", "id is empty");
			continue;
		}
		if (key && !strcmp(key, "expires")) {
			if (!val || parse_date(val, &rule->expires) < 0)
				return fail(r, v, rule->id, "expires '%s' is not a date (YYYY-MM-DD)",
					    val ? val : "?");
			continue;
		}
		if (!dst)
			return fail(r, k, rule->id, "unknown key '%s' (id, link, owner, note, expires, "
				    "match)", key ? key : "?");
		if (!val)
			return fail(r, v, rule->id, "%s is not a string", key);
		free(*dst);
		*dst = xstrdup(val);
	}
	if (!rule->id)
		return fail(r, n, NULL, "%s", "a rule needs an id");
	if (!rule->link || !*rule->link)
		return fail(r, n, rule->id, "%s", "needs a link");
	if (!rule->owner || !*rule->owner)
		return fail(r, n, rule->id, "%s", "needs an owner");
	if (!match)
		return fail(r, n, rule->id, "%s", "needs a match:");
	return read_match(r, match, rule);
}

bool known_notify_url_valid(const char *v)
{
	if (!strncmp(v, "env:", 4))
		return v[4] && strspn(v + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					     "0123456789_") == strlen(v + 4);
	return !strncmp(v, "http://", 7) || !strncmp(v, "https://", 8);
}

/* An owner's failure, as one line naming the file, line and owner. */
static int owner_fail(struct reader *r, const yaml_node_t *at, const char *owner,
		      const char *what)
{
	cleanup_free char *msg = xasprintf("owner %s: %s", owner, what);

	return fail(r, at, NULL, "%s", msg);
}

static int read_owner_url(struct reader *r, const yaml_node_t *v, struct known_owner *o)
{
	const char *url = scalar(v);

	/* The URL itself is never repeated: it may hold a webhook's token. */
	if (!url || !known_notify_url_valid(url))
		return owner_fail(r, v, o->name,
				  "notify: give an http:// or https:// URL, or env:NAME");
	strvec_push(&o->notify, url);
	return 0;
}

static int read_owner(struct reader *r, const yaml_node_t *k, const yaml_node_t *n,
		      struct known_owner *o)
{
	const yaml_node_t *dup;

	o->name = xstrdup(scalar(k) ? scalar(k) : "?");
	strvec_init(&o->notify);
	if (!scalar(k) || !*scalar(k))
		return fail(r, k, NULL, "%s", "an owner needs a name");
	if (n->type != YAML_MAPPING_NODE)
		return owner_fail(r, n, o->name, "is a mapping (notify, format)");
	if ((dup = repeated_key(r, n))) {
		cleanup_free char *what = xasprintf("'%s' is given twice", scalar(dup));

		return owner_fail(r, dup, o->name, what);
	}
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *pk = node(r, p->key), *v = node(r, p->value);
		const char *key = scalar(pk), *val = scalar(v);

		if (key && !strcmp(key, "format")) {
			if (!val || (strcmp(val, "json") && strcmp(val, "slack")))
				return owner_fail(r, v, o->name, "format: use json or slack");
			o->slack = !strcmp(val, "slack");
		} else if (key && !strcmp(key, "notify") && v->type == YAML_SEQUENCE_NODE) {
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++)
				if (read_owner_url(r, node(r, *it), o) < 0)
					return -1;
		} else if (key && !strcmp(key, "notify")) {
			if (read_owner_url(r, v, o) < 0)
				return -1;
		} else {
			cleanup_free char *what = xasprintf("unknown key '%s' (notify, format)",
							    key ? key : "?");

			return owner_fail(r, pk, o->name, what);
		}
	}
	return 0;
}

static int read_owners(struct reader *r, const yaml_node_t *n, struct known_issues *out)
{
	const yaml_node_t *dup;

	if (n->type == YAML_SCALAR_NODE && !*scalar(n))
		return 0; /* "owners:" with nothing under it */
	if (n->type != YAML_MAPPING_NODE)
		return fail(r, n, NULL, "%s", "owners: is a mapping of owner names");
	if ((dup = repeated_key(r, n)))
		return owner_fail(r, dup, scalar(dup), "given twice");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		struct known_owner *o;

		/* Doubled at each power of two: 200,000 owners are not copied
		 * 200,000 times. */
		if (!(out->n_owners & (out->n_owners - 1)))
			out->owners = xrealloc(out->owners, (out->n_owners ? 2 * out->n_owners : 1) *
							    sizeof(*out->owners));
		o = &out->owners[out->n_owners++];
		memset(o, 0, sizeof(*o));
		if (read_owner(r, node(r, p->key), node(r, p->value), o) < 0)
			return -1;
	}
	return 0;
}

static int read_document(struct reader *r, struct known_issues *out)
{
	yaml_node_t *root = yaml_document_get_root_node(r->doc), *issues = NULL;
	const yaml_node_t *dup;

	if (!root)
		return 0; /* an empty file: no rules */
	if ((dup = known_yaml_aliased(r->doc)))
		return fail(r, dup, NULL, "%s", "an alias (*name) of this value: aliases are not "
			    "allowed here, write the value out");
	if (root->type != YAML_MAPPING_NODE)
		return fail(r, root, NULL, "%s", "the file is a mapping with an issues: list");
	if ((dup = repeated_key(r, root)))
		return fail(r, dup, NULL, "'%s' is given twice", scalar(dup));
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		const char *key = scalar(node(r, p->key));

		if (key && !strcmp(key, "issues"))
			issues = node(r, p->value);
		else if (key && !strcmp(key, "owners")) {
			if (read_owners(r, node(r, p->value), out) < 0)
				return -1;
		} else
			return fail(r, node(r, p->key), NULL, "unknown top-level key '%s' (issues, "
				    "owners)", key ? key : "?");
	}
	if (!issues)
		return 0;
	if (issues->type != YAML_SEQUENCE_NODE)
		return fail(r, issues, NULL, "%s", "issues: is not a list");
	for (yaml_node_item_t *it = issues->data.sequence.items.start;
	     it < issues->data.sequence.items.top; it++) {
		struct known_rule *rule;

		if (out->n >= KNOWN_RULES_MAX)
			return fail(r, node(r, *it), NULL, "%s", "more than 10000 rules");
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		rule = &out->v[out->n++];
		memset(rule, 0, sizeof(*rule));
		if (read_rule(r, node(r, *it), rule) < 0)
			return -1;
		for (size_t i = 0; i + 1 < out->n; i++)
			if (!strcmp(out->v[i].id, rule->id))
				return fail(r, node(r, *it), rule->id, "%s", "the id is given twice");
	}
	return 0;
}

int known_issues_parse(const char *name, const char *text, size_t len, struct known_issues *out,
		       struct error *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct reader r = { name, &doc, err };
	int rc;

	memset(out, 0, sizeof(*out));
	out->path = xstrdup(name);
	if (!yaml_parser_initialize(&parser))
		return error_set(err, ERR_SYSTEM, 0, "%s: cannot start the YAML parser", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = error_set(err, ERR_DATA, 0, "%s:%zu: %s", name, parser.problem_mark.line + 1,
			       parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		known_issues_release(out);
		return rc;
	}
	rc = read_document(&r, out);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc < 0)
		known_issues_release(out);
	return rc;
}

int known_issues_load(const char *path, enum owned_file_rule rule, struct known_issues *out,
		      struct stat *st, struct error *err)
{
	struct strbuf text = STRBUF_INIT;
	int rc;

	memset(out, 0, sizeof(*out));
	if (owned_file_read(path, rule, KNOWN_FILE_MAX, &text, st, err) < 0) {
		strbuf_release(&text);
		return -1;
	}
	rc = known_issues_parse(path, text.buf, text.len, out, err);
	strbuf_release(&text);
	return rc;
}

void known_issues_release(struct known_issues *k)
{
	for (size_t i = 0; i < k->n; i++) {
		struct known_rule *r = &k->v[i];

		free(r->id);
		free(r->link);
		free(r->owner);
		free(r->note);
		for (size_t f = 0; f < KNOWN__FIELDS; f++) {
			if (r->match[f].regex)
				regfree(&r->match[f].re);
			free(r->match[f].text);
		}
	}
	free(k->v);
	for (size_t i = 0; i < k->n_owners; i++) {
		free(k->owners[i].name);
		strvec_clear(&k->owners[i].notify);
	}
	free(k->owners);
	free(k->path);
	memset(k, 0, sizeof(*k));
}

bool known_link_is_web(const char *link)
{
	return link && (!strncmp(link, "https://", 8) || !strncmp(link, "http://", 7));
}

bool known_rule_expired(const struct known_rule *r, long long now)
{
	return r->expires >= 0 && now > r->expires;
}

size_t known_issues_expired(const struct known_issues *k, long long now, struct strvec *lines)
{
	size_t n = 0;

	for (size_t i = 0; k && i < k->n; i++) {
		const struct known_rule *r = &k->v[i];
		time_t t = (time_t)r->expires;
		cleanup_free char *line = NULL;
		struct tm tm;
		char day[16];

		if (!known_rule_expired(r, now))
			continue;
		n++;
		if (!gmtime_r(&t, &tm) || !strftime(day, sizeof(day), "%Y-%m-%d", &tm))
			snprintf(day, sizeof(day), "?");
		line = xasprintf("%s:%d: rule %s expired on %s: it marks nothing known (renew or "
				 "remove it)", k->path ? k->path : "known issues", r->line, r->id,
				 day);
		strvec_push_nodup(lines, text_sanitized(line, 0));
	}
	return n;
}

static bool pattern_matches(const struct known_pattern *p, const char *s)
{
	cleanup_free char *head = NULL;

	if (!p->text)
		return true;
	if (!s)
		return false;
	/* A value a replay printed may be long: matched on its first
	 * KNOWN_TEXT_MAX bytes, so no rule's cost grows with it. */
	if (strnlen(s, KNOWN_TEXT_MAX + 1) > KNOWN_TEXT_MAX)
		s = head = xstrndup(s, KNOWN_TEXT_MAX);
	return p->regex ? regexec(&p->re, s, 0, NULL, 0) == 0 : fnmatch(p->text, s, 0) == 0;
}

const struct known_rule *known_issues_match(const struct known_issues *k,
					    const struct known_subject *s, long long now)
{
	const struct signature *g = s->sig;

	if (!k || !g || !signature_set(g))
		return NULL;
	for (size_t i = 0; i < k->n; i++) {
		const struct known_rule *r = &k->v[i];
		const char *vals[KNOWN__FIELDS] = {
			g->outcome, g->fault_class, g->kernel_family, g->evidence, g->stop_reason,
			s->case_name, s->image, s->gpu, s->host,
		};
		size_t f;

		if (known_rule_expired(r, now))
			continue;
		for (f = 0; f < KNOWN__FIELDS && pattern_matches(&r->match[f], vals[f]); f++)
			;
		if (f == KNOWN__FIELDS)
			return r;
	}
	return NULL;
}
