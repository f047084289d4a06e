#include "orchestrator/history/history_known.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/strvec.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/history/history_sql.h"

/* Every attempt with a signature in the window, with what a rule matches on
 * and the mark it has. */
static const char failures_sql[] =
	"SELECT r.sweep, r.case_name, r.image_ref, r.outcome, r.fault_class, r.sig_family,"
	" r.sig_evidence, r.sig_stop_reason, r.sig_partial, r.gpu_uids, r.host, s.started,"
	" r.attempt, r.known_id, r.known_link, r.known_owner"
	" FROM results r JOIN " HISTORY_LAST_SWEEPS " s ON s.id = r.sweep"
	" WHERE r.sig_id IS NOT NULL";

/* The rule that matches a row of failures_sql at now: the subject is the
 * row's signature and where it ran, as the import's is its results
 * line's. */
static const struct known_rule *row_rule(struct history_stmt *st, const struct known_issues *k,
					 long long now)
{
	struct signature sig;
	struct known_subject s = { .sig = &sig, .case_name = col(st, 1), .image = col(st, 2),
				   .gpu = col(st, 9), .host = col(st, 10) };
	const struct known_rule *rule;

	signature_init(&sig);
	signature_from_parts(&sig, col(st, 3), col(st, 4), col(st, 5), col(st, 6), col(st, 7),
			     history_col_int(st, 8) != 0);
	rule = known_issues_match(k, &s, now);
	signature_release(&sig);
	return rule;
}

/* What one rule matched: the keys to count distinct, the last sweep's start. */
struct rule_tally {
	struct strvec failures; /* sweep, case, image */
	struct strvec cases;    /* case, image */
	struct strvec sweeps;
	long long last_seen;    /* 0: never */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static size_t distinct(struct strvec *v)
{
	size_t d = 0;

	if (v->n)
		qsort(v->v, v->n, sizeof(*v->v), cmp_str);
	for (size_t i = 0; i < v->n; i++)
		d += !i || strcmp(v->v[i], v->v[i - 1]);
	return d;
}

/* Each failure of the window with the first rule that matches it at now
 * (NULL: none), as the import's marking does, to fn. */
typedef void (*failure_fn)(void *ctx, struct history_stmt *st, const struct known_rule *rule);

static int each_failure(struct history_db *db, const struct known_issues *k, const char *label,
			int last, long long now, failure_fn fn, void *ctx, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db, failures_sql, &st, err) < 0)
		return -1;
	bind_text(st, 1, label);
	history_bind_int(st, 2, last);
	while ((rc = history_step(st)) == HISTORY_ROW)
		fn(ctx, st, row_rule(st, k, now));
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read", err);
}

struct tally_ctx {
	const struct known_issues *k;
	struct rule_tally *t;
};

/* A failure counted for the rule that matches it. */
static void tally_one(void *ctx, struct history_stmt *st, const struct known_rule *rule)
{
	struct tally_ctx *c = ctx;
	struct rule_tally *r;
	long long started = history_col_int64(st, 11);

	if (!rule)
		return;
	r = &c->t[rule - c->k->v];
	strvec_push_nodup(&r->failures, xasprintf("%s\x1f%s\x1f%s", col(st, 0), col(st, 1),
						  col(st, 2)));
	strvec_push_nodup(&r->cases, xasprintf("%s\x1f%s", col(st, 1), col(st, 2)));
	strvec_push(&r->sweeps, col(st, 0));
	if (started > r->last_seen)
		r->last_seen = started;
}

static void md_rule(struct strbuf *md, const struct known_rule *r, size_t failures, size_t cases,
		    size_t sweeps, const char *seen, const char *state)
{
	strbuf_addstr(md, "| ");
	text_markdown_cell(md, r->id);
	strbuf_addstr(md, " | ");
	text_markdown_cell(md, r->owner);
	strbuf_addstr(md, " | ");
	text_markdown_cell(md, r->link);
	strbuf_addf(md, " | %zu | %zu | %zu | %s | %s |\n", failures, cases, sweeps, seen, state);
}

static cJSON *json_rule(const struct known_rule *r, size_t failures, size_t cases,
			size_t sweeps, const char *seen, const char *state)
{
	cJSON *o = cJSON_CreateObject();

	json_add_str(o, "id", r->id, JSON_TEXT);
	json_add_str(o, "link", r->link, JSON_TEXT);
	json_add_str(o, "owner", r->owner, JSON_TEXT);
	cJSON_AddNumberToObject(o, "line", r->line);
	cJSON_AddNumberToObject(o, "failures", (double)failures);
	cJSON_AddNumberToObject(o, "cases", (double)cases);
	cJSON_AddNumberToObject(o, "sweeps", (double)sweeps);
	json_add_str(o, "last_seen", *seen == '-' ? NULL : seen, JSON_TEXT);
	cJSON_AddStringToObject(o, "state", state);
	return o;
}

int history_known_report(struct history_db *db, const struct known_issues *k, const char *label,
			 int last, long long now, bool json, struct strbuf *out, struct error *err)
{
	struct rule_tally *t = xcalloc(k->n + 1, sizeof(*t));
	cleanup_cjson cJSON *root = json ? cJSON_CreateArray() : NULL;
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	size_t idle = 0;
	int rc;

	for (size_t i = 0; i < k->n; i++) {
		strvec_init(&t[i].failures);
		strvec_init(&t[i].cases);
		strvec_init(&t[i].sweeps);
	}
	rc = each_failure(db, k, label, last, now, tally_one, &(struct tally_ctx){ k, t }, err);
	strbuf_addf(&md, "# Known issues over the last %d sweep(s)%s%s\n\n%s: %zu rule(s)\n\n"
			 "| issue | owner | link | failures | cases | sweeps | last seen | state |\n"
			 "| --- | --- | --- | --- | --- | --- | --- | --- |\n",
		    last, label ? " of " : "", label ? label : "", k->path ? k->path : "-", k->n);
	for (size_t i = 0; rc == 0 && i < k->n; i++) {
		const struct known_rule *r = &k->v[i];
		size_t failures = distinct(&t[i].failures), cases = distinct(&t[i].cases);
		size_t sweeps = distinct(&t[i].sweeps);
		char seen[16] = "-";
		const char *state = known_rule_expired(r, now) ? "expired"
				    : failures		   ? "matching"
							   : "maybe fixed";

		if (t[i].last_seen)
			history_day(seen, sizeof(seen), t[i].last_seen);
		idle += !failures;
		md_rule(&md, r, failures, cases, sweeps, seen, state);
		if (root)
			cJSON_AddItemToArray(root, json_rule(r, failures, cases, sweeps, seen, state));
	}
	if (rc == 0 && idle)
		strbuf_addf(&md, "\n%zu rule(s) matched no failure in these sweeps: maybe fixed "
				 "(or expired); check and remove them.\n", idle);
	if (rc == 0 && root) {
		cleanup_free char *text = cJSON_Print(root);

		strbuf_addstr(out, text);
		strbuf_addch(out, '\n');
	} else if (rc == 0) {
		strbuf_add(out, md.buf, md.len);
	}
	for (size_t i = 0; i < k->n; i++) {
		strvec_clear(&t[i].failures);
		strvec_clear(&t[i].cases);
		strvec_clear(&t[i].sweeps);
	}
	free(t);
	return rc;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* A result row by its key (the same in both stores, where a rowid is
 * SQLite's alone). */
struct remark_row {
	char *sweep, *case_name, *image;
	int attempt;
};

/* The rows whose mark the rules now change: key and rule (NULL: none). */
struct remark_list {
	struct remark_row *row;
	const struct known_rule **rule;
	size_t n, alloc;
};

struct remark_ctx {
	struct remark_list *l;
	struct history_remark *out;
};

/* A failure whose mark the rule changes, listed. */
static void remark_one(void *ctx, struct history_stmt *st, const struct known_rule *rule)
{
	struct remark_ctx *c = ctx;
	struct remark_list *l = c->l;
	const char *was = col(st, 13);

	c->out->failures++;
	if (same_text(rule ? rule->id : NULL, was) &&
	    same_text(rule ? rule->link : NULL, col(st, 14)) &&
	    same_text(rule ? rule->owner : NULL, col(st, 15)))
		return;
	c->out->known += rule && !was;
	c->out->unknown += !rule && was;
	c->out->other += rule && was;
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 64;
		l->row = xrealloc(l->row, l->alloc * sizeof(*l->row));
		l->rule = xrealloc(l->rule, l->alloc * sizeof(*l->rule));
	}
	l->row[l->n] = (struct remark_row){ xstrdup(col(st, 0)), xstrdup(col(st, 1)),
					   xstrdup(col(st, 2)), history_col_int(st, 12) };
	l->rule[l->n++] = rule;
}

/* The new marks, in one transaction. */
static int remark_write(struct history_db *db, const struct remark_list *l, struct error *err)
{
	cleanup_stmt struct history_stmt *up = NULL;
	int rc = HISTORY_DONE;

	if (history_sql_begin(db, err) < 0)
		return -1;
	if (history_sql_prepare(db, "UPDATE results SET known_id = ?1, known_link = ?2,"
				    " known_owner = ?3 WHERE sweep = ?4 AND case_name = ?5"
				    " AND image_ref = ?6 AND attempt = ?7", &up, err) < 0)
		goto fail;
	for (size_t i = 0; i < l->n && rc == HISTORY_DONE; i++) {
		const struct known_rule *r = l->rule[i];

		history_reset(up);
		bind_text(up, 1, r ? r->id : NULL);
		bind_text(up, 2, r ? r->link : NULL);
		bind_text(up, 3, r ? r->owner : NULL);
		bind_text(up, 4, l->row[i].sweep);
		bind_text(up, 5, l->row[i].case_name);
		bind_text(up, 6, l->row[i].image);
		history_bind_int(up, 7, l->row[i].attempt);
		rc = history_step(up);
	}
	if (rc != HISTORY_DONE) {
		history_sql_error(db, rc, "re-mark", err);
		goto fail;
	}
	return history_sql_exec(db, "COMMIT", err);
fail:
	history_sql_rollback(db);
	return -1;
}

int history_remark(struct history_db *db, const struct known_issues *k, const char *label,
		   int last, long long now, bool dry_run, struct history_remark *out,
		   struct error *err)
{
	struct remark_list l = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = each_failure(db, k, label, last, now, remark_one, &(struct remark_ctx){ &l, out }, err);
	if (rc == 0 && l.n && !dry_run)
		rc = remark_write(db, &l, err);
	for (size_t i = 0; i < l.n; i++) {
		free(l.row[i].sweep);
		free(l.row[i].case_name);
		free(l.row[i].image);
	}
	free(l.row);
	free(l.rule);
	return rc;
}
