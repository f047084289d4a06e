#include "orchestrator/report/sweep_report.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/relpath.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/report/report.h"
#include "common/intern.h"
#include "orchestrator/report/sweep_attempts.h"
#include "orchestrator/sweep/suspect_nodes.h"

#define FINDING_MD_MAX (256u << 10)

/* A case's GPU-time comparison, made before the report's cases are read
 * (its samples are dropped then) and found by case and image. */
struct perf_compared {
	const char *case_name, *image;
	struct report_perf p;
};

/* The report model owns copies: history rows live only during a callback. */
struct model {
	struct report r;
	size_t alloc;
	struct intern strings; /* every string the cases point at, once */
	size_t *by_name;              /* the cases' indexes by case and image (add_trend) */
	const char *folder;
	struct sweep_attempts attempts; /* the results files' attempts, per case */
	struct report_perf_set perf;    /* the GPU-time samples, per case and image */
	struct report_perf_set nights;  /* theirs in the label's last sweeps, side by side */
	struct perf_compared *perf_cmp; /* one per case compared, by case and image */
	size_t n_perf_cmp;
};

static const char *keep(struct model *m, const char *s)
{
	return intern(&m->strings, s);
}

static const char *keep_file(struct model *m, const char *run_dir, const char *name)
{
	cleanup_free char *path = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct error err;

	if (!run_dir)
		return NULL;
	path = xasprintf("%s/%s/%s", m->folder, run_dir, name);
	if (fs_read_small_file(path, FINDING_MD_MAX, &text, &err) < 0)
		return NULL;
	return keep(m, text.buf);
}

/* What the failed attempts of a flaky case were, for JUnit's system-out. */
static const char *keep_retry_note(struct model *m, const struct sweep_case_attempts *e)
{
	cleanup_strbuf struct strbuf note = STRBUF_INIT;

	for (size_t i = 0; e && i < e->n_failed; i++) {
		const struct report_attempt *r = &e->failed[i];

		if (!r->outcome)
			continue;
		strbuf_addf(&note, "attempt %d: %s %s %s (%s)\n", r->attempt, r->outcome,
			    r->fault_class ? r->fault_class : "-", r->kernel ? r->kernel : "-",
			    r->run_dir ? r->run_dir : "no run folder");
	}
	strbuf_addstr(&note, "then PASS on a retry");
	return keep(m, note.buf);
}

/* From the results files: the final attempt's kind and place, and every
 * earlier attempt that did not PASS. */
static void add_attempts(struct report_case *c, const struct sweep_case_attempts *e)
{
	c->kind = e ? e->kind : c->status == ST_MISSING ? sweep_result_kind_name(RESULT_KIND_INFRA)
							: NULL;
	if (!e)
		return;
	c->gpu_uids = e->gpu_uids;
	c->host = e->host;
	for (size_t i = 0; i < e->n_failed && c->n_earlier < REPORT_ATTEMPTS_MAX; i++) {
		if (i == e->final)
			continue;
		/* Most cases have none: the array is the case's only when it has. */
		c->earlier = xrealloc(c->earlier, (c->n_earlier + 1) * sizeof(*c->earlier));
		c->earlier[c->n_earlier++] = e->failed[i];
	}
}

static const struct report_perf *perf_of(const struct model *m, const char *case_name,
					 const char *image)
{
	size_t lo = 0, hi = m->n_perf_cmp;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct perf_compared *x = &m->perf_cmp[mid];
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
	struct model *m = ctx;
	const struct sweep_case_attempts *e = sweep_attempts_find(&m->attempts, row->case_name,
								  row->image);
	struct report_case *c;

	/* Sized for the plan first (add_row's caller): grown by a quarter
	 * for the gone cases, not doubled. */
	if (m->r.n == m->alloc) {
		m->alloc += m->alloc / 4 + 16;
		m->r.cases = xrealloc(m->r.cases, m->alloc * sizeof(*m->r.cases));
	}
	c = &m->r.cases[m->r.n++];
	memset(c, 0, sizeof(*c));
	c->case_name = e ? e->case_name : keep(m, row->case_name);
	c->image = e ? e->image : keep(m, row->image);
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
	if (row->outcome && !finding_outcome_is(row->outcome, OUTCOME_PASS))
		c->finding_md = keep_file(m, c->run_dir, "finding.md");
	if (row->status == ST_FLAKY)
		c->retry_note = keep_retry_note(m, e);
	if (row->status != ST_GONE)
		add_attempts(c, e);
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
static void index_by_name(struct model *m)
{
	m->by_name = xcalloc(m->r.n + 1, sizeof(*m->by_name));
	for (size_t i = 0; i < m->r.n; i++)
		m->by_name[i] = i;
	qsort_r(m->by_name, m->r.n, sizeof(*m->by_name), by_name_cmp, m->r.cases);
}

/* The index of word in the report's trend words, added when new (the
 * words are few: a linear search). */
static uint8_t trend_word(struct model *m, const char *word)
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

static int add_trend(void *ctx, const struct history_trend_row *row)
{
	struct model *m = ctx;
	size_t lo = 0, hi = m->r.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (name_cmp(&m->r.cases[m->by_name[mid]], row->case_name, row->image) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->r.n; lo++) {
		struct report_case *c = &m->r.cases[m->by_name[lo]];

		if (name_cmp(c, row->case_name, row->image))
			break;
		if (c->n_trend < REPORT_TREND_MAX)
			c->trend[c->n_trend++] = trend_word(m, row->outcome ? row->outcome : "-");
	}
	return 0;
}

/* What the report keeps of the results files, a chunk at a time, never
 * the whole results: from the import's first reading, each case's
 * attempts and, for a merge's suspect GPUs, what finding them reads of
 * each result. The GPU-time samples come from the history once the
 * import stored them (sweep_report_write). */
struct kept_results {
	struct sweep_attempts *attempts;
	struct report_perf_set perf; /* each case and image's samples, not its result */
	size_t n_perf;               /* the results with samples (the first reading's count) */
	struct sweep_suspect_inputs suspects;
	bool suspects_from_results;
};

static int keep_chunk(void *ctx, struct sweep_results *rs, struct error *err)
{
	struct kept_results *k = ctx;

	sweep_attempts_add(k->attempts, rs);
	for (size_t i = 0; i < rs->n; i++)
		k->n_perf += report_perf_has_side(&rs->v[i]);
	if (k->suspects_from_results)
		sweep_suspect_inputs_add(&k->suspects, rs);
	(void)err;
	return 0;
}

static int perf_row(void *ctx, const struct history_perf_row *row)
{
	return report_perf_add_row(ctx, row);
}

static int add_night(void *ctx, const struct history_perf_row *row)
{
	struct model *m = ctx;

	return report_perf_add_night(&m->nights, &m->perf, row);
}

/* The samples of this sweep's cases in the nights before it
 * (docs/perf.md "Across nights"): with --perf-window 1 the baseline
 * sweep's, else the label's last K finished sweeps'. */
static int load_nights(struct history_db *db, const struct sweep_meta *meta,
		       const char *baseline, struct model *m, struct error *err)
{
	struct history_perf_query q = { .newest_first = true, .last = (int)meta->perf_window };

	/* A side for each of this sweep's only when there is a night to read:
	 * an empty set compares nothing. */
	if (!m->perf.n)
		return 0;
	if (meta->perf_window <= 1) {
		if (!baseline)
			return 0;
		q.sweep = baseline;
		q.last = 1;
	} else {
		q.label = meta->label;
		q.before = meta->id;
	}
	report_perf_nights_init(&m->nights, &m->perf);
	return history_perf_samples(db, &q, add_night, m, err);
}

/* Each case's GPU time against --perf-baseline's image in this sweep, or
 * else against its own samples in the nights before: made for each case
 * and image with samples (one without is never compared), in the sides'
 * order, which is by case and image. Then the samples are dropped: only
 * the comparisons are held beside the report's cases. */
static void compare_perf(struct model *m, const struct sweep_meta *meta)
{
	struct report_perf p;

	for (size_t i = 0; i < m->perf.n; i++) {
		const struct report_perf_side *x = &m->perf.v[i];

		if (!report_perf_compare(&m->perf, x->case_name, x->image, meta->perf_baseline,
					 &meta->perf_rule, &p) &&
		    !report_perf_compare_nights(&m->perf, &m->nights, x->case_name, x->image,
						&meta->perf_rule, &p))
			continue;
		/* At the first comparison, room for one a side left: a sweep
		 * with nothing to compare against allocates none. */
		if (!m->perf_cmp)
			m->perf_cmp = xcalloc(m->perf.n - i, sizeof(*m->perf_cmp));
		m->perf_cmp[m->n_perf_cmp++] = (struct perf_compared){ x->case_name, x->image, p };
	}
	report_perf_drop(&m->perf, true);
	report_perf_drop(&m->nights, false);
}

/* Each failure a rule matches is known: the rule's id, link and owner go
 * with its result into the history (and so into every report). */
static void mark_known(const struct known_issues *k, struct sweep_results *rs, long long now)
{
	for (size_t i = 0; i < rs->n; i++)
		sweep_result_mark_known(&rs->v[i], k, now);
}

/* The results files a chunk at a time, each result marked known or not
 * before it is fingerprinted or stored. A chunk's parsed results are the
 * largest thing a reading holds that does not grow with the sweep; 256
 * keep it near 200 KB while the sort and merge of the attempts stay
 * cheap. */
#define RESULTS_CHUNK 256

struct results_src {
	const char *folder;
	const struct sweep_finish *f;
	history_results_fn fn;
	void *ctx;
	/* The report's share, kept during the first reading only (the
	 * import reads the files once more when it replaces the rows);
	 * NULL: none. */
	struct kept_results *keep;
	bool kept;
};

static int marked_chunk(void *ctx, struct sweep_results *rs, struct error *err)
{
	struct results_src *src = ctx;
	int rc;

	if (src->f->known)
		mark_known(src->f->known, rs, src->f->finished);
	rc = src->fn(src->ctx, rs, err);
	/* After fn: the chunk as the import read it. */
	if (rc == 0 && src->keep && !src->kept)
		rc = keep_chunk(src->keep, rs, err);
	return rc;
}

static int each_marked(void *ctx, history_results_fn fn, void *fn_ctx, struct error *err)
{
	struct results_src *src = ctx;
	struct sweep_results_chunks ch = { RESULTS_CHUNK, marked_chunk, src };
	int rc;

	src->fn = fn;
	src->ctx = fn_ctx;
	rc = sweep_results_each(src->folder, &ch, err);
	src->kept = true;
	return rc;
}

/* The planned cases' names and images for the import. With a plan to
 * release, they are kept in the report's strings (where its cases' and
 * results' names are) and the plan released before the results are read:
 * a large plan's archives and options are not held beside what the
 * report keeps of the results. */
static struct history_planned *planned_of(const struct sweep_meta *meta,
					  const struct sweep_finish *f, struct intern *names)
{
	struct history_planned *planned = xcalloc(meta->plan.n + 1, sizeof(*planned));

	for (size_t i = 0; i < meta->plan.n; i++)
		planned[i] = (struct history_planned){ meta->plan.cases[i].name,
						       meta->plan.cases[i].image };
	if (!f->release_plan)
		return planned;
	for (size_t i = 0; i < meta->plan.n; i++)
		planned[i] = (struct history_planned){ intern(names, planned[i].case_name),
						       intern(names, planned[i].image) };
	sweep_plan_release(f->release_plan);
	return planned;
}

static int import(struct history_db *db, const struct sweep_meta *meta, const char *folder,
		  const struct sweep_finish *f, struct kept_results *keep, struct intern *names,
		  struct error *err)
{
	struct results_src src = { .folder = folder, .f = f, .keep = keep };
	size_t n_planned = meta->plan.n;
	struct history_planned *planned = planned_of(meta, f, names);
	cleanup_strbuf struct strbuf opts = STRBUF_INIT;
	cleanup_free char *redacted = sweep_runopts_redact_text(meta->run_options);
	bool rebuilt;
	int rc;

	/* Others may read the database: the options without `-e` values. */
	strbuf_addstr(&opts, redacted);
	if (f->backend) {
		/* A cluster sweep's job ids beside its options: {"...", "backend": {...}}
		 * (histories from before say "slurm": {...}, the record alone). */
		cleanup_cjson cJSON *o = cJSON_Parse(opts.buf), *jobs = cJSON_Parse(f->backend);

		if (o && jobs && cJSON_IsObject(o)) {
			cleanup_free char *t = NULL;

			cJSON_AddItemToObject(o, "backend", jobs);
			jobs = NULL;
			t = cJSON_PrintUnformatted(o);
			strbuf_reset(&opts);
			strbuf_addstr(&opts, t);
		}
	}
	{
		cleanup_free char *fp = history_options_fingerprint(redacted);
		struct history_sweep s = {
			.run_options_fp = fp,
			.id = meta->id, .label = meta->label, .host = meta->host,
			.state = f->state, .options = opts.buf, .tool_version = meta->tool_version,
			.folder = folder, .baseline = meta->baseline, .started = meta->started,
			.started_us = meta->started_us, .finished = f->finished,
		};

		rc = history_db_import_each(db, &s, planned, n_planned, each_marked, &src,
					    &rebuilt, err);
	}
	free(planned);
	return rc;
}

/* An interrupted sweep's cases without a result are not yet run rather than
 * lost: they show as missing but the exit code is the interruption's (5),
 * unless a finished case regressed. A failure is a case whose final
 * result has a signature: known when a rule matched it, else untriaged. */
void sweep_report_exit(struct report *r, const char *state, sweep_status_mask fail_on)
{
	size_t counts[ST__COUNT], untriaged = 0, ignored = 0;
	bool interrupted = !strcmp(state, "interrupted");

	memcpy(counts, r->counts, sizeof(counts));
	if (interrupted)
		counts[ST_MISSING] = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct report_case *c = &r->cases[i];

		if (!c->sig_id || c->status == ST_GONE)
			continue;
		if (!c->known_id) {
			untriaged++;
		} else if ((fail_on & SWEEP_FAIL_IGNORE_KNOWN) && counts[c->status] &&
			   (fail_on & SWEEP_STATUS_BIT(c->status))) {
			counts[c->status]--;
			ignored++;
		}
	}
	r->exit_code = sweep_exit_code(counts, untriaged, r->perf_counts[PERF_SLOWER], interrupted,
				       fail_on);
	r->exit_untriaged = fail_on & SWEEP_FAIL_UNTRIAGED ? untriaged : 0;
	r->exit_known_ignored = ignored;
}

/* How a sweep folder ended, from its summary.json ("interrupted" when it
 * never wrote one: it was killed). */
static char *folder_state(const char *folder)
{
	cleanup_free char *path = xasprintf("%s/summary.json", folder);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	const char *st;

	if (fs_read_small_file(path, 64u << 20, &text, ERROR_DISCARD) < 0)
		return xstrdup("interrupted");
	j = cJSON_Parse(text.buf);
	st = cJSON_GetStringValue(cJSON_GetObjectItem(j, "state"));
	return xstrdup(st ? st : "interrupted");
}

static void recover_one(struct history_db *db, const char *label, const char *parent,
			const char *id, const struct job_events *ev)
{
	cleanup_free char *folder = xasprintf("%s/%s", parent, id);
	cleanup_free char *state = NULL;
	struct sweep_meta old;

	sweep_meta_init(&old);
	/* Only the caller's own folders: one planted in a shared sweeps/
	 * must not become the label's baseline. */
	if (sweep_folder_check(folder, ERROR_DISCARD) == 0 &&
	    sweep_meta_read(&old, folder, ERROR_DISCARD) == 0 && !strcmp(old.label, label) &&
	    !strcmp(old.id, id)) {
		struct sweep_finish f = { .finished = old.started };

		state = folder_state(folder);
		f.state = state;
		if (import(db, &old, folder, &f, NULL, NULL, ERROR_DISCARD) < 0)
			events_warning(ev, "sweep %s could not be recovered into the history", id);
	}
	sweep_meta_release(&old);
}

/* Sweeps of the label whose folders sit beside this one but that the
 * database does not know (it was moved aside, or another --db was used):
 * imported from their results files, so the baseline is the real previous
 * sweep. Folders that cannot be read are skipped: they are not this
 * sweep's. */
static void recover_label(struct history_db *db, const struct sweep_meta *meta,
			  const char *folder, const struct job_events *ev)
{
	cleanup_free char *parent = xstrdup(folder);
	struct dirent **names = NULL;
	char *slash = strrchr(parent, '/');
	int n;

	if (!slash)
		return;
	*slash = '\0';
	n = scandir(parent, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *id = names[i]->d_name;
		bool known = true;

		if (id[0] != '.' && strcmp(id, meta->id) &&
		    !strncmp(id, meta->label, strlen(meta->label)) &&
		    history_db_has_sweep(db, id, &known, ERROR_DISCARD) == 0 && !known)
			recover_one(db, meta->label, parent, id, ev);
		free(names[i]);
	}
	free(names);
}

/* Where --junit, --summary and --html want an extra copy of a file. */
static const char *extra_copy(const struct sweep_finish *f, const char *file)
{
	if (!strcmp(file, "junit.xml"))
		return f->junit;
	if (!strcmp(file, "summary.md"))
		return f->summary;
	if (!strcmp(file, "report.html"))
		return f->html;
	return NULL;
}

/* The file at src appended to out. */
static int copy_into(const char *src, FILE *out, struct error *err)
{
	cleanup_fclose FILE *in = fopen(src, "re");
	char chunk[1 << 16];
	size_t n;

	if (!in)
		return error_errno(err, "%s", src);
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		if (fwrite(chunk, 1, n, out) != n)
			return error_errno(err, "cannot write a copy of %s", src);
	return ferror(in) ? error_errno(err, "%s", src) : 0;
}

/* A file written as it is produced, fsynced and closed: its temporary
 * stays for the caller to rename or remove. Either produce or copy_from. */
static int write_tmp(const char *path, const struct report *r, report_render_fn produce,
		     const char *copy_from, char **tmp, struct error *err)
{
	int fd = fs_atomic_tmp(path, 0644, tmp, err);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	int rc;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -1 : error_errno(err, "cannot write %s", *tmp);
	}
	rc = produce ? produce(r, f, err) : copy_into(copy_from, f, err);
	if (rc == 0 && (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0))
		rc = error_errno(err, "cannot write %s", *tmp);
	if (fclose(f) != 0 && rc == 0)
		rc = error_errno(err, "cannot write %s", *tmp);
	return rc;
}

/* An extra copy of the file at src (--junit, --html, --summary), put in
 * place as fs_write_atomic puts a file. */
static int write_extra(const char *extra, const char *src, struct error *err)
{
	cleanup_free char *tmp = NULL;
	int rc = write_tmp(extra, NULL, NULL, src, &tmp, err);

	if (rc == 0 && rename(tmp, extra) < 0)
		rc = error_errno(err, "cannot write %s", extra);
	if (rc < 0 && tmp)
		unlink(tmp);
	return rc < 0 ? error_prefix(err, "%s: ", extra) : 0;
}

/* Every format rendered (each into a temporary beside its file) before
 * any is renamed into place: a renderer's failure leaves the folder's
 * reports as they were. The extra copies and stdout are copied from the
 * files: no report is whole in memory. */
static int render(struct model *m, const char *folder, const struct sweep_finish *f,
		  FILE *shown_to, struct error *err)
{
	const char *shown = f->json ? "summary.json" : "summary.md";
	char **tmp = xcalloc(report_formats_n, sizeof(*tmp));
	char **path = xcalloc(report_formats_n, sizeof(*path));
	int rc = 0;

	for (size_t i = 0; i < report_formats_n && rc == 0; i++) {
		path[i] = xasprintf("%s/%s", folder, report_formats[i].file);
		rc = write_tmp(path[i], &m->r, report_formats[i].render, NULL, &tmp[i], err);
	}
	for (size_t i = 0; i < report_formats_n && rc == 0; i++) {
		const char *extra = extra_copy(f, report_formats[i].file);

		if (rename(tmp[i], path[i]) < 0) {
			rc = error_errno(err, "cannot write %s", path[i]);
			break;
		}
		free(tmp[i]);
		tmp[i] = NULL;
		if (extra)
			rc = write_extra(extra, path[i], err);
	}
	for (size_t i = 0; i < report_formats_n && rc == 0; i++)
		if (!strcmp(report_formats[i].file, shown))
			rc = copy_into(path[i], shown_to, err);
	for (size_t i = 0; i < report_formats_n; i++) {
		if (tmp[i])
			unlink(tmp[i]);
		free(tmp[i]);
		free(path[i]);
	}
	free(tmp);
	free(path);
	return rc;
}

int sweep_report_write(struct history_db *db, const struct sweep_meta *meta, const char *folder,
		       const struct sweep_finish *f, int *exit_code, FILE *shown_to,
		       struct error *err)
{
	struct model m = { .folder = folder };
	struct kept_results kept = { 0 };
	struct strvec expired = STRVEC_INIT;
	cleanup_free char *baseline = NULL;
	cleanup_free struct sweep_gpu_note *found = NULL;
	size_t n_found = 0, n_planned;
	int rc = -1;

	/* What the report needs of the results, kept while the import reads
	 * them: a large sweep's report is built beside its attempts, never
	 * beside its parsed results files. */
	kept.attempts = &m.attempts;
	kept.suspects_from_results = f->suspects_from_results;
	/* One copy of each case's name, image, outcome...: the results'
	 * attempts, GPU times and suspects' inputs keep theirs in the
	 * model's strings. */
	m.attempts.shared = kept.perf.shared = kept.suspects.shared = &m.strings;
	n_planned = meta->plan.n;
	sweep_attempts_reserve(&m.attempts, n_planned);
	rc = import(db, meta, folder, f, &kept, &m.strings, err);
	sweep_attempts_finish(&m.attempts);
	if (rc == 0 && f->suspects_from_results) {
		found = xcalloc(GPU_MAX, sizeof(*found));
		n_found = sweep_suspects_of_inputs(&kept.suspects, found);
	}
	sweep_suspect_inputs_release(&kept.suspects);
	/* What the import parsed and freed goes back to the kernel: the
	 * samples' and then the cases' arrays are not made resident beside
	 * its holes (the sweep parent's peak, docs/sweep.md). */
	xalloc_trim();
	/* The samples as the import stored them, each case and image's last
	 * attempt with --perf's record: read after the import, never held
	 * beside its own reading and what finding the suspects keeps. */
	report_perf_reserve(&kept.perf, kept.n_perf);
	if (rc == 0)
		rc = history_perf_sides(db, meta->id, perf_row, &kept.perf, err);
	report_perf_finish(&kept.perf);
	m.perf = kept.perf;
	if (rc < 0)
		goto out;
	rc = -1;
	recover_label(db, meta, folder, f->events);
	if (meta->baseline)
		baseline = xstrdup(meta->baseline);
	else if (history_db_previous(db, meta->label, meta->id, &baseline, err) < 0)
		goto out;
	if (load_nights(db, meta, baseline, &m, err) < 0)
		goto out;
	compare_perf(&m, meta);
	xalloc_trim(); /* the samples, dropped */
	m.alloc = n_planned + 1;
	m.r.cases = xcalloc(m.alloc, sizeof(*m.r.cases));
	/* In the plan's order, gone cases last: sorted here, where the cases
	 * are, not beside them by SQLite. */
	if (history_db_statuses_unordered(db, meta->id, baseline, add_row, &m, err) < 0)
		goto out;
	if (m.r.n)
		qsort(m.r.cases, m.r.n, sizeof(*m.r.cases), by_ord);
	index_by_name(&m);
	if (history_db_trend(db, meta->label, NULL, SWEEP_TREND_SWEEPS, add_trend, &m, err) < 0)
		goto out;
	m.r.sweep_id = meta->id;
	m.r.label = meta->label;
	m.r.baseline = baseline;
	m.r.state = f->state;
	m.r.tool_version = meta->tool_version;
	m.r.quarantined = f->quarantined;
	m.r.n_quarantined = f->n_quarantined;
	m.r.gpu_notes = f->gpu_notes;
	m.r.n_gpu_notes = f->n_gpu_notes;
	if (f->suspects_from_results) {
		m.r.gpu_notes = found;
		m.r.n_gpu_notes = n_found;
	}
	m.r.perf_fail = (meta->fail_on & SWEEP_FAIL_PERF_SLOWER) != 0;
	known_issues_expired(f->known, f->finished, &expired);
	m.r.expired_rules = (const char *const *)expired.v;
	m.r.n_expired_rules = expired.n;
	report_acquit_suspect_gpus(&m.r);
	report_finish(&m.r);
	sweep_report_exit(&m.r, f->state, meta->fail_on);
	*exit_code = m.r.exit_code;
	rc = render(&m, folder, f, shown_to, err);
	if (rc == 0 && f->then)
		f->then(f->then_ctx, &m.r);
out:
	for (size_t i = 0; i < m.r.n; i++)
		free(m.r.cases[i].earlier);
	free(m.r.cases);
	free(m.perf_cmp);
	free(m.by_name);
	report_perf_release(&m.perf);
	report_perf_release(&m.nights);
	strvec_clear(&expired);
	intern_release(&m.strings);
	sweep_attempts_release(&m.attempts);
	return rc;
}
