#include "orchestrator/jobs/bisect_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/history/history_perf.h"
#include "orchestrator/history/history_reuse.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "orchestrator/sweep/sweep_plan.h"
#include "orchestrator/sweep/case_result.h"

void bisect_job_release(struct bisect_job *j)
{
	for (size_t i = 0; j->probes && i < j->cands.n; i++) {
		struct bisect_probe *p = &j->probes[i];

		free(p->image_id);
		strvec_clear(&p->outcomes);
		strvec_clear(&p->details);
		free(p->folder);
		free(p->run_dir);
		free(p->perf);
	}
	free(j->probes);
	for (size_t i = 0; i < j->n_cases; i++) {
		free(j->cases[i].name);
		free(j->cases[i].pid_dir);
		free(j->cases[i].digest);
	}
	free(j->cases);
	bisect_candidates_release(&j->cands);
	strvec_clear(&j->archives);
	free(j->id);
	free(j->reuse_host);
	free(j->folder);
	free(j->error);
	memset(j, 0, sizeof(*j));
}

/* --sweep SWEEP [--case NAME]: that sweep's cases, as their pid dirs. */
static int cases_of_sweep(struct bisect_job *j, const char *workdir, struct sweep_plan *plan,
			  struct error *err)
{
	struct sweep_meta m;
	cleanup_free char *folder = NULL;
	const char *want = j->rq->case_name;

	sweep_meta_init(&m);
	if (sweep_folder_find(workdir, j->rq->sweep, &folder, err) < 0 ||
	    sweep_meta_read(&m, folder, err) < 0) {
		sweep_meta_release(&m);
		return error_prefix(err, "bisect --sweep: ");
	}
	for (size_t i = 0; i < m.plan.n; i++) {
		const struct sweep_case *c = &m.plan.cases[i];
		bool dup = false;

		if (want && strcmp(c->name, want))
			continue;
		for (size_t k = 0; k < plan->n; k++)
			dup |= !strcmp(plan->cases[k].archive, c->archive);
		if (!dup) {
			struct sweep_case *n = sweep_plan_push(plan);

			n->name = xstrdup(c->name);
			n->archive = xstrdup(c->archive);
		}
	}
	sweep_meta_release(&m);
	if (!plan->n)
		return error_set(err, ERR_USAGE, 0, "bisect --sweep %s: no case %s in that sweep",
				 j->rq->sweep, want ? want : "at all");
	/* The probe sweeps replay these pid dirs. */
	strvec_clear(&j->archives);
	for (size_t i = 0; i < plan->n; i++)
		strvec_push(&j->archives, plan->cases[i].archive);
	return 0;
}

int bisect_cases_load(struct bisect_job *j, const char *workdir, struct error *err)
{
	struct sweep_plan plan = { 0 };
	const char *img[] = { j->rq->good };
	int rc = 0;

	if (j->rq->sweep) {
		rc = cases_of_sweep(j, workdir, &plan, err);
	} else {
		for (size_t i = 0; i < j->rq->n_archives; i++)
			strvec_push(&j->archives, j->rq->archives[i]);
		rc = sweep_plan_add_matrix(&plan, j->rq->archives, j->rq->n_archives, img, 1, err);
	}
	j->cases = xcalloc(plan.n + 1, sizeof(*j->cases));
	for (size_t i = 0; rc == 0 && i < plan.n; i++) {
		struct bisect_case *c = &j->cases[j->n_cases++];

		c->name = xstrdup(plan.cases[i].name);
		c->pid_dir = xstrdup(plan.cases[i].archive);
		if (!(c->digest = sweep_archive_digest(c->pid_dir, err)))
			rc = error_prefix(err, "bisect: %s: ", c->name);
	}
	sweep_plan_release(&plan);
	return rc;
}

/* The candidate's image ID, pulling it when it is not here. */
static int pin(struct bisect_job *j, size_t i, struct error *err)
{
	struct image_facts f = { 0 };
	struct bisect_probe *p = &j->probes[i];

	if (p->image_id)
		return 0;
	if (image_ensure(j->engine, j->cands.v[i].ref, j->rq->pull, j->rq->events,
			 j->rq->verbosity, &f, err) < 0)
		return -1;
	p->image_id = xstrdup(f.id);
	p->pulled = f.pulled;
	image_facts_release(&f);
	return 0;
}

static void set_mark(struct bisect_job *j, size_t i, bool flaky)
{
	struct bisect_probe *p = &j->probes[i], *g = &j->probes[0];
	bool same = true;

	for (size_t c = 0; c < j->n_cases; c++)
		same &= !strcmp(p->outcomes.v[c], g->outcomes.v[c]);
	p->mark = flaky ? BISECT_FLAKY : same ? BISECT_SAME : BISECT_DIFFERS;
}

/* The kernel times of one case's result in a sweep: its digest and image
 * ID, one image reference (a sweep may list the same image twice). */
struct samples_of {
	const char *digest, *image_id;
	char *image_ref;
	struct bisect_perf *out;
};

static int sample_row(void *ctx, const struct history_perf_row *row)
{
	struct samples_of *w = ctx;

	if (!row->digest || !row->image_id || strcmp(row->digest, w->digest) ||
	    strcmp(row->image_id, w->image_id) || !(row->kernel_ms >= 0))
		return 0;
	if (!w->image_ref) {
		w->image_ref = xstrdup(row->image);
		snprintf(w->out->gfx, sizeof(w->out->gfx), "%s", row->gfx ? row->gfx : "");
		w->out->device_id = row->device_id;
	}
	if (strcmp(row->image, w->image_ref) || w->out->n >= PERF_RUNS_MAX)
		return 0;
	w->out->ms[w->out->n++] = row->kernel_ms;
	return 0;
}

/* The result's own sweep and case name: the query reads that case's
 * samples only, not the whole sweep's. */
static int load_samples(struct bisect_job *j, size_t i, size_t c, const struct history_known *k,
			struct error *err)
{
	struct bisect_probe *p = &j->probes[i];
	struct samples_of w = { .digest = j->cases[c].digest, .image_id = p->image_id,
				.out = &p->perf[c] };
	struct history_perf_query q = { .sweep = k->sweep, .case_name = k->case_name, .last = 1 };
	int rc;

	p->perf[c].n = 0;
	p->perf[c].gfx[0] = '\0';
	p->perf[c].device_id = -1;
	rc = history_perf_samples(j->db, &q, sample_row, &w, err);
	free(w.image_ref);
	return rc;
}

/* --metric gpu-time: candidate i's mark from its samples against
 * --good's (the good end against itself). */
static int set_perf_mark(struct bisect_job *j, size_t i, struct error *err)
{
	struct bisect_probe *p = &j->probes[i], *g = &j->probes[0];

	if (bisect_perf_compare(g->perf, p->perf, j->n_cases, &j->rule,
				!strcmp(p->image_id, g->image_id), err) < 0)
		return -1;
	p->mark = bisect_perf_mark(p->perf, j->n_cases);
	return 0;
}

/* What the history says of candidate i for every case. */
static int look_up(struct bisect_job *j, size_t i, struct error *err)
{
	struct bisect_probe *p = &j->probes[i];
	bool flaky = false;

	strvec_clear(&p->outcomes);
	strvec_clear(&p->details);
	p->known = false;
	for (size_t c = 0; c < j->n_cases; c++) {
		struct history_known k;

		if (history_db_find_result(j->db, j->cases[c].digest, p->image_id,
					   j->rq->run_options_fp, &j->reuse_on, &k, err) < 0)
			return -1;
		if (!k.found || !k.outcome) {
			history_known_release(&k);
			return 0;
		}
		strvec_push(&p->outcomes, k.outcome);
		if (finding_outcome_is(k.outcome, OUTCOME_PASS))
			strvec_push(&p->details, k.attempts > 1 ? "(after retries)" : "");
		else
			strvec_pushf(&p->details, "%s%s%s%s", k.fault_class ? k.fault_class : "",
				     k.kernel ? " in " : "", k.kernel ? k.kernel : "",
				     k.attempts > 1 ? " (after retries)" : "");
		flaky |= k.attempts > 1 && k.first_outcome && strcmp(k.first_outcome, k.outcome);
		if (j->gpu_time && load_samples(j, i, c, &k, err) < 0) {
			history_known_release(&k);
			return -1;
		}
		if (c == 0) {
			free(p->folder);
			free(p->run_dir);
			p->folder = xstrdup_or_null(k.folder);
			p->run_dir = xstrdup_or_null(k.run_dir);
		}
		history_known_release(&k);
	}
	p->known = true;
	if (j->gpu_time)
		return set_perf_mark(j, i, err);
	if (i == 0)
		p->mark = flaky ? BISECT_FLAKY : BISECT_SAME;
	else
		set_mark(j, i, flaky);
	return 0;
}

static const char *mark_word(enum bisect_mark m)
{
	static const char *const words[] = { "unknown", "same as --good", "differs",
					     "flaky", "no result" };

	return words[m];
}

/* Under --image-budget a candidate this bisection pulled goes as soon as it
 * is known (its answer is in the history), so at most one pulled candidate
 * is on the engine at a time. */
static void drop_when_known(struct bisect_job *j, size_t i)
{
	struct bisect_probe *p = &j->probes[i];
	struct error err;

	if (!j->rq->image_budget || j->rq->keep_images || !p->pulled || !j->engine)
		return;
	if (engine_image_remove(j->engine, j->cands.v[i].ref, &err) < 0)
		events_warning(j->rq->events, "bisect: could not remove %s (--image-budget): %s",
			       j->cands.v[i].ref, err.msg);
	else
		p->pulled = false;
}

/* Make candidate i known: the history's result, else a replay. */
static int know(struct bisect_job *j, size_t i, struct error *err)
{
	struct bisect_probe *p = &j->probes[i];

	if (pin(j, i, err) < 0 || look_up(j, i, err) < 0)
		return -1;
	if (p->known) {
		j->reused++;
	} else {
		if (bisect_probe_run(j, i, err) < 0)
			return -1;
		if (j->interrupted)
			return 0;
		p->replayed = true;
		j->replays++;
		if (look_up(j, i, err) < 0)
			return -1;
		if (!p->known)
			p->mark = BISECT_ERROR;
	}
	drop_when_known(j, i);
	events_stage(j->rq->events, "bisect: [%zu/%zu] %s (%.19s): %s%s%s", i + 1, j->cands.n,
		j->cands.v[i].ref, p->image_id, p->known ? p->outcomes.v[0] : "no result",
		p->known && j->n_cases > 1 ? ", ..." : "",
		p->replayed ? "" : " (from the history)");
	if (j->gpu_time && p->known)
		bisect_perf_progress(j, i);
	else
		events_stage(j->rq->events, "bisect:   %s", mark_word(p->mark));
	return 0;
}

enum bisect_end bisect_search(struct bisect_job *j)
{
	cleanup_free enum bisect_mark *marks = xcalloc(j->cands.n, sizeof(*marks));
	struct error err;

	for (;;) {
		for (size_t i = 0; i < j->cands.n; i++)
			marks[i] = j->probes[i].mark;
		j->step = bisect_plan_next(marks, j->cands.n, &j->state);
		if (j->step != BISECT_PROBE)
			break;
		if (know(j, j->state.next, &err) < 0) {
			events_error(j->rq->events, "%s", err.msg);
			j->error = xstrdup(err.msg);
			return BISECT_END_INFRA;
		}
		if (j->interrupted) {
			events_error(j->rq->events, "bisect: interrupted; run the same command again "
				     "to resume from what the history now knows");
			return BISECT_END_INFRA;
		}
	}
	switch (j->step) {
	case BISECT_FOUND: return BISECT_END_FOUND;
	case BISECT_STOPPED_ERROR: return BISECT_END_INFRA;
	case BISECT_GOOD_DIFFERS:
		return j->probes[0].mark == BISECT_ERROR ? BISECT_END_INFRA : BISECT_END_NONE;
	default: return BISECT_END_NONE;
	}
}

void bisect_remove_pulled(struct bisect_job *j)
{
	for (size_t i = 0; i < j->cands.n; i++) {
		struct error err;

		if (!j->probes[i].pulled)
			continue;
		if (engine_image_remove(j->engine, j->cands.v[i].ref, &err) < 0)
			events_warning(j->rq->events,
				       "bisect: could not remove %s (pulled for the bisection): %s",
				       j->cands.v[i].ref, err.msg);
	}
}
