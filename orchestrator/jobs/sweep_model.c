#include "orchestrator/jobs/sweep_model.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/relpath.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/history/history_changes.h"
#include "orchestrator/perf/perf_nights.h"

/* The end of a flaky case's note (JUnit's system-out), after what its
 * failed attempts were. */
#define RETRY_NOTE_END "then PASS on a retry"

static const char *keep(struct sweep_model *m, const char *s)
{
	return intern(&m->strings, s);
}

/* finding.md read back from a case's run folder: the compatibility path
 * for a folder whose results lines were written before they carried its
 * text (a `sweep --merge` or recovery of an older sweep). A new line
 * carries it, and the history holds it. */
static const char *keep_file(struct sweep_model *m, const char *run_dir, const char *name)
{
	cleanup_free char *path = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct error err;

	if (!run_dir)
		return NULL;
	path = xasprintf("%s/%s/%s", m->folder, run_dir, name);
	if (fs_read_small_file(path, CASE_RESULT_FINDING_MD_MAX, &text, &err) < 0)
		return NULL;
	return keep(m, text.buf);
}

static const struct report_perf *perf_of(const struct sweep_model *m, const char *case_name,
					 const char *image)
{
	size_t lo = 0, hi = m->n_perf_cmp;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sweep_perf_compared *x = &m->perf_cmp[mid];
		int d = strcmp(x->case_name, case_name);

		if (!d)
			d = strcmp(x->image, image);
		if (!d)
			return &x->p;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int add_row(void *ctx, const struct history_status_row *row)
{
	struct sweep_model *m = ctx;
	struct report_case *c;

	/* Sized for the plan first (add_row's caller): grown by a quarter
	 * for the gone cases, not doubled. */
	if (m->r.n == m->alloc) {
		m->alloc += m->alloc / 4 + 16;
		m->r.cases = xrealloc(m->r.cases, m->alloc * sizeof(*m->r.cases));
	}
	c = &m->r.cases[m->r.n++];
	memset(c, 0, sizeof(*c));
	c->case_name = keep(m, row->case_name);
	c->image = keep(m, row->image);
	c->image_id = keep(m, row->image_id);
	c->gpus = keep(m, row->gpus);
	c->outcome = keep(m, row->outcome);
	c->fault_class = keep(m, row->fault_class);
	c->kernel = keep(m, row->kernel);
	c->prev_outcome = keep(m, row->prev_outcome);
	c->sig_id = keep(m, row->sig_id);
	c->sig_family = keep(m, row->sig_family);
	c->sig_evidence = keep(m, row->sig_evidence);
	c->known_id = keep(m, row->known_id);
	c->known_link = keep(m, row->known_link);
	c->known_owner = keep(m, row->known_owner);
	c->status = row->status;
	c->ord = (uint32_t)row->ord;
	c->attempts = row->attempts;
	c->duration_s = row->duration_s;
	/* A results line is a record anyone could have edited: its run_dir
	 * is used only as a plain path inside the sweep folder. */
	c->run_dir = relpath_plain_below(row->run_dir) ? keep(m, row->run_dir) : NULL;
	c->message = keep(m, row->message);
	/* Its attempts' (read_attempts) when it has any. */
	c->kind = row->status == ST_MISSING ? case_result_kind_name(RESULT_KIND_INFRA) : NULL;
	if (row->status == ST_FLAKY)
		c->retry_note = keep(m, RETRY_NOTE_END);
	c->perf = perf_of(m, c->case_name, c->image);
	return 0;
}

static int by_ord(const void *a, const void *b)
{
	uint32_t x = ((const struct report_case *)a)->ord, y = ((const struct report_case *)b)->ord;

	return (x > y) - (x < y);
}

static int name_cmp(const struct report_case *a, const char *case_name, const char *image)
{
	int d = strcmp(a->case_name, case_name);

	return d ? d : strcmp(a->image, image);
}

static int by_name_cmp(const void *a, const void *b, void *cases)
{
	const struct report_case *c = cases, *y = &c[*(const size_t *)b];

	return name_cmp(&c[*(const size_t *)a], y->case_name, y->image);
}

/* The cases in order of case and image, for add_trend to find each trend
 * row's by bisection instead of reading every case for each row. */
static void index_by_name(struct sweep_model *m)
{
	m->by_name = xcalloc(m->r.n + 1, sizeof(*m->by_name));
	for (size_t i = 0; i < m->r.n; i++)
		m->by_name[i] = i;
	qsort_r(m->by_name, m->r.n, sizeof(*m->by_name), by_name_cmp, m->r.cases);
}

/* The index of word in the report's trend words, added when new (the
 * words are few: a linear search). */
static uint8_t trend_word(struct sweep_model *m, const char *word)
{
	struct report *r = &m->r;

	for (size_t i = 0; i < r->n_trend_words; i++)
		if (!strcmp(r->trend_words[i], word))
			return (uint8_t)i;
	if (r->n_trend_words == REPORT_TREND_WORDS)
		return REPORT_TREND_WORDS - 1;
	r->trend_words[r->n_trend_words] = keep(m, word);
	return (uint8_t)r->n_trend_words++;
}

/* The place in by_name of the first case named case_name and image (or
 * where it would be), by bisection. */
static size_t first_named(const struct sweep_model *m, const char *case_name, const char *image)
{
	size_t lo = 0, hi = m->r.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (name_cmp(&m->r.cases[m->by_name[mid]], case_name, image) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int add_trend(void *ctx, const struct history_trend_row *row)
{
	struct sweep_model *m = ctx;

	for (size_t lo = first_named(m, row->case_name, row->image); lo < m->r.n; lo++) {
		struct report_case *c = &m->r.cases[m->by_name[lo]];

		if (name_cmp(c, row->case_name, row->image))
			break;
		if (c->n_trend < REPORT_TREND_MAX)
			c->trend[c->n_trend++] = trend_word(m, row->outcome ? row->outcome : "-");
	}
	return 0;
}

/* The history's attempts of the sweep, a case's one after the other and
 * its final attempt last: each held until the next row says whether it
 * was the final one. */
struct attempts_read {
	struct sweep_model *m;
	struct report_case *c;       /* the case the rows are of; NULL: none reported */
	struct report_attempt last;  /* its latest row so far */
	bool has_last, last_passed;
	/* finding.md's text the latest row's line carried (has_md), held
	 * until its case's rows end: kept only for a final attempt. */
	struct strbuf md;
	bool has_md;
	struct strbuf note;          /* its failed attempts, for a flaky case's note */
};

static void attempt_earlier(struct attempts_read *a)
{
	struct report_case *c = a->c;
	const struct report_attempt *r = &a->last;

	if (a->last_passed)
		return;
	if (r->outcome)
		strbuf_addf(&a->note, "attempt %d: %s %s %s (%s)\n", r->attempt, r->outcome,
			    r->fault_class ? r->fault_class : "-", r->kernel ? r->kernel : "-",
			    r->run_dir ? r->run_dir : "no run folder");
	if (c->n_earlier == REPORT_ATTEMPTS_MAX)
		return;
	/* Most cases have none: the array is the case's only when it has. */
	c->earlier = xrealloc(c->earlier, (c->n_earlier + 1) * sizeof(*c->earlier));
	c->earlier[c->n_earlier++] = *r;
}

/* The case's rows are all read: its latest is its final attempt. */
static void attempts_close(struct attempts_read *a)
{
	struct report_case *c = a->c;

	if (c && a->has_last) {
		c->kind = a->last.kind;
		c->gpu_uids = a->last.gpu_uids;
		c->host = a->last.host;
		if (c->outcome && !finding_outcome_is(c->outcome, OUTCOME_PASS))
			c->finding_md = a->has_md ? keep(a->m, a->md.buf)
						  : keep_file(a->m, c->run_dir, "finding.md");
		if (c->status == ST_FLAKY) {
			strbuf_addstr(&a->note, RETRY_NOTE_END);
			c->retry_note = keep(a->m, a->note.buf);
		}
	}
	strbuf_reset(&a->note);
	a->has_last = false;
	a->c = NULL;
}

static int add_attempt(void *ctx, const struct history_attempt_row *row)
{
	struct attempts_read *a = ctx;
	struct sweep_model *m = a->m;
	size_t i = first_named(m, row->case_name, row->image);
	struct report_case *c = i < m->r.n ? &m->r.cases[m->by_name[i]] : NULL;

	if (c && (name_cmp(c, row->case_name, row->image) || c->status == ST_GONE))
		c = NULL;
	if (c != a->c || !c) {
		attempts_close(a);
		a->c = c;
	}
	if (!c)
		return 0;
	if (a->has_last)
		attempt_earlier(a);
	a->last = (struct report_attempt){
		.attempt = row->attempt, .state = keep(m, row->state), .outcome = keep(m, row->outcome),
		.fault_class = keep(m, row->fault_class), .kernel = keep(m, row->kernel),
		.kind = keep(m, row->kind), .gpus = keep(m, row->gpus ? row->gpus : ""),
		.gpu_uids = keep(m, row->gpu_uids), .host = keep(m, row->host),
		.run_dir = keep(m, row->run_dir), .message = keep(m, row->message),
	};
	/* As case_result_passed: its outcome is PASS. */
	a->last_passed = row->outcome && finding_outcome_is(row->outcome, OUTCOME_PASS);
	a->has_last = true;
	strbuf_reset(&a->md);
	a->has_md = row->finding_md != NULL;
	if (a->has_md)
		strbuf_addstr(&a->md, row->finding_md);
	return 0;
}

/* Each reported case's final attempt (its kind and place) and its
 * earlier attempts that did not PASS, from the history in one pass. */
static int read_attempts(struct sweep_model *m, struct history_db *db, const char *sweep_id,
			 struct error *err)
{
	struct attempts_read a = { .m = m, .md = STRBUF_INIT, .note = STRBUF_INIT };
	int rc = history_db_attempts(db, sweep_id, add_attempt, &a, err);

	attempts_close(&a);
	strbuf_release(&a.md);
	strbuf_release(&a.note);
	return rc;
}

int sweep_model_perf_row(void *ctx, const struct history_perf_row *row)
{
	return report_perf_add_row(ctx, row);
}

static int add_night(void *ctx, const struct history_perf_row *row)
{
	struct sweep_model *m = ctx;

	return report_perf_add_night(&m->nights, &m->perf, row);
}

/* Each case's series of nights restarts at its last change point or
 * accepted change (docs/perf.md "Change points"): its level and its
 * night-to-night spread are learned from the nights since, never across
 * a step the history already found or a user accepted. */
static int restart_series(struct history_db *db, const char *label, struct sweep_model *m,
			  struct error *err)
{
	for (size_t i = 0; i < m->perf.n; i++) {
		const struct report_perf_side *s = &m->perf.v[i];
		cleanup_free char *night = NULL;

		if (history_changes_restart(db, label, s->case_name, s->image, s->gfx,
					    s->device_id, &night, &m->nights.v[i].restart_us,
					    err) < 0)
			return -1;
	}
	return 0;
}

/* The samples of this sweep's cases in the nights before it
 * (docs/perf.md "Across nights"): with --perf-window 1 the baseline
 * sweep's, else the label's last K finished sweeps'. */
static int load_nights(struct history_db *db, const struct sweep_meta *meta,
		       const char *baseline, struct sweep_model *m, struct error *err)
{
	long noise = meta->perf_family.noise_nights;
	/* The label's finished sweeps before this one, as many as the level
	 * (--perf-window) or the spread (--perf-noise-nights) takes; with a
	 * window of 1 the newest is the sweep's baseline. Each case's series
	 * starts at its last change (restart_series). */
	struct history_perf_query q = {
		.newest_first = true, .label = meta->label, .before = meta->id,
		.last = (int)(meta->perf_window > noise ? meta->perf_window : noise),
	};

	/* A side for each of this sweep's only when there is a night to read:
	 * an empty set compares nothing. */
	if (!m->perf.n)
		return 0;
	if (meta->perf_window <= 1) {
		if (!baseline)
			return 0;
		q.until = baseline;
	}
	report_perf_nights_init(&m->nights, &m->perf, (size_t)meta->perf_window);
	if (restart_series(db, meta->label, m, err) < 0 ||
	    history_perf_samples(db, &q, add_night, m, err) < 0)
		return -1;
	report_perf_nights_finish(&m->nights);
	return 0;
}

/* The false discovery rate over each family of the sweep's comparisons
 * (docs/perf.md "A thousand cases a night"): those against
 * --perf-baseline's image, and those across nights, each its own set,
 * whose learned spreads are moderated first ("Nights as units"). */
static void control_fdr(struct sweep_model *m, const struct sweep_meta *meta)
{
	cleanup_free struct perf_comparison **v = xcalloc(m->n_perf_cmp + 1, sizeof(*v));
	double q = meta->perf_family.fdr;

	for (int nights = 0; nights < 2; nights++) {
		size_t n = 0;

		for (size_t i = 0; i < m->n_perf_cmp; i++)
			if ((m->perf_cmp[i].p.baseline_sweeps != NULL) == nights)
				v[n++] = &m->perf_cmp[i].p.cmp;
		if (nights)
			perf_nights_moderate(v, n, &meta->perf_rule);
		/* Said once in the report: a family whose samples can show
		 * nothing that survives q (docs/perf.md). */
		else if (perf_change_fdr_unreachable(v, n, q, meta->perf_rule.alpha,
						     &m->perf_reach))
			m->r.perf_reach = &m->perf_reach;
		if (q > 0)
			perf_change_fdr(v, n, q);
		for (size_t i = 0; i < m->n_perf_cmp; i++)
			m->perf_cmp[i].p.status = m->perf_cmp[i].p.cmp.status;
	}
}

/* Each case's GPU time against --perf-baseline's image in this sweep, or
 * else against its own samples in the nights before: made for each case
 * and image with samples (one without is never compared), in the sides'
 * order, which is by case and image. Then the samples are dropped: only
 * the comparisons are held beside the report's cases. */
static void compare_perf(struct sweep_model *m, const struct sweep_meta *meta)
{
	struct report_perf p;

	for (size_t i = 0; i < m->perf.n; i++) {
		const struct report_perf_side *x = &m->perf.v[i];

		if (!report_perf_compare(&m->perf, x->case_name, x->image, meta->perf_baseline,
					 &meta->perf_rule, &p) &&
		    !report_perf_compare_nights(&m->perf, &m->nights, x->case_name, x->image,
						&meta->perf_rule, &meta->perf_family, &p))
			continue;
		/* At the first comparison, room for one a side left: a sweep
		 * with nothing to compare against allocates none. */
		if (!m->perf_cmp)
			m->perf_cmp = xcalloc(m->perf.n - i, sizeof(*m->perf_cmp));
		m->perf_cmp[m->n_perf_cmp++] = (struct sweep_perf_compared){ x->case_name, x->image, p };
	}
	control_fdr(m, meta);
	report_perf_drop(&m->perf, true);
	report_perf_drop(&m->nights, false);
}

int sweep_model_perf(struct sweep_model *m, struct history_db *db, const struct sweep_meta *meta,
		     const char *baseline, struct error *err)
{
	if (load_nights(db, meta, baseline, m, err) < 0)
		return -1;
	compare_perf(m, meta);
	xalloc_trim(); /* the samples, dropped */
	return 0;
}

int sweep_model_cases(struct sweep_model *m, struct history_db *db, const struct sweep_meta *meta,
		      const char *baseline, size_t n_planned, struct error *err)
{
	m->alloc = n_planned + 1;
	m->r.cases = xcalloc(m->alloc, sizeof(*m->r.cases));
	/* In the plan's order, gone cases last: sorted here, where the cases
	 * are, not beside them by SQLite. */
	if (history_db_statuses_unordered(db, meta->id, baseline, add_row, m, err) < 0)
		return -1;
	if (m->r.n)
		qsort(m->r.cases, m->r.n, sizeof(*m->r.cases), by_ord);
	index_by_name(m);
	if (read_attempts(m, db, meta->id, err) < 0)
		return -1;
	return history_db_trend(db, meta->label, NULL, SWEEP_TREND_SWEEPS, add_trend, m, err);
}

void sweep_model_release(struct sweep_model *m)
{
	for (size_t i = 0; i < m->r.n; i++)
		free(m->r.cases[i].earlier);
	free(m->r.cases);
	free(m->perf_cmp);
	free(m->by_name);
	report_perf_release(&m->perf);
	report_perf_release(&m->nights);
	intern_release(&m->strings);
}
