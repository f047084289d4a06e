#include "orchestrator/jobs/sweep_finish.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_changes.h"
#include "orchestrator/jobs/sweep_files.h"
#include "orchestrator/jobs/sweep_import.h"
#include "orchestrator/jobs/sweep_model.h"
#include "orchestrator/sweep/sweep_end_record.h"
#include "orchestrator/sweep/sweep_image_fate.h"
#include "orchestrator/sweep/sweep_image_nodes.h"
#include "orchestrator/sweep/suspect_nodes.h"

/* An interrupted sweep's cases without a result are not yet run rather than
 * lost: they show as missing but the exit code is the interruption's (5),
 * unless a finished case regressed. A failure is a case whose final
 * result has a signature: known when a rule matched it, else untriaged. */
void sweep_finish_exit(struct report *r, enum sweep_state state, sweep_status_mask fail_on)
{
	size_t counts[ST__COUNT], untriaged = 0, ignored = 0;
	bool interrupted = state == SWEEP_INTERRUPTED;

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


/* The sweep's images for the reports: plan.json's pins, the ID the cases
 * (already in the model) replayed, what the runs say became of each (the
 * folder's images files: one host's, or each cluster task's, combined per
 * node into nodes and then into the whole) and the peak into r. Strings
 * are the meta's and the model's. */
static struct report_image *report_images_of(const struct sweep_meta *meta,
					     const char *folder, struct sweep_image_nodes *nodes,
					     struct report *r)
{
	struct report_image *v = xcalloc(meta->n_images + 1, sizeof(*v));
	struct sweep_image_fates fates;

	sweep_image_fates_init(&fates, meta->n_images);
	if (sweep_image_nodes_read(folder, meta->n_images, nodes, ERROR_DISCARD) < 0)
		memset(nodes, 0, sizeof(*nodes));
	for (size_t k = 0; k < nodes->n; k++)
		sweep_image_fates_add_node(&fates, &nodes->v[k]);
	r->image_peak = fates.peak;
	r->image_nodes = nodes->tasks ? nodes : NULL;
	for (size_t i = 0; i < meta->n_images; i++) {
		const struct sweep_image *im = &meta->images[i];

		v[i] = (struct report_image){ .ref = im->ref, .pin = im->digest ? im->digest : im->id,
					      .manifest_size = im->manifest_size,
					      .pulled = fates.v[i].pulled,
					      .removed = fates.v[i].removed,
					      .fate = fates.v[i].fate };
		for (size_t c = 0; c < r->n && !v[i].id; c++)
			if (r->cases[c].image && !strcmp(r->cases[c].image, im->ref))
				v[i].id = r->cases[c].image_id;
	}
	sweep_image_fates_release(&fates);
	return v;
}

/* The GPU-time change points the sweep's import found (none accepted),
 * for the reports' readers (--notify); their strings in s. */
struct found_changes {
	struct report_changepoint *v;
	size_t n, alloc;
	struct strvec s;
};

static const char *keep(struct strvec *s, const char *v)
{
	if (!v)
		return NULL;
	strvec_push(s, v);
	return s->v[s->n - 1];
}

static int change_found(void *ctx, const struct history_change_row *r)
{
	struct found_changes *f = ctx;

	if (f->n == f->alloc)
		f->v = xrealloc(f->v, (f->alloc = f->alloc ? 2 * f->alloc : 8) * sizeof(*f->v));
	f->v[f->n++] = (struct report_changepoint){
		.case_name = keep(&f->s, r->case_name), .image = keep(&f->s, r->image),
		.gfx = keep(&f->s, r->gfx), .sweep = keep(&f->s, r->sweep),
		.image_id_before = keep(&f->s, r->image_id_before),
		.image_id_after = keep(&f->s, r->image_id_after), .device_id = r->device_id,
		.ratio = r->ratio, .p = r->p, .median_before = r->median_before,
		.median_after = r->median_after,
	};
	return 0;
}

int sweep_finish_write(struct history_db *db, const struct sweep_meta *meta, const char *folder,
		       const struct sweep_finish *f, enum sweep_end *end, FILE *shown_to,
		       struct error *err)
{
	struct sweep_model m = { .folder = folder };
	struct report_image *images = NULL;
	struct sweep_image_nodes nodes = { 0 };
	struct sweep_kept kept = { 0 };
	struct strvec expired = STRVEC_INIT;
	struct found_changes changes = { .s = STRVEC_INIT };
	struct history_change_query cq = { .label = meta->label, .found = meta->id,
					   .skip_accepted = true };
	cleanup_free char *baseline = NULL;
	cleanup_free struct sweep_gpu_note *found = NULL;
	size_t n_found = 0, n_planned;
	int rc = -1;

	/* What the end needs of the results, kept while the import reads
	 * them: a large sweep's report is never built beside its parsed
	 * results files (its attempts are the history's). */
	kept.suspects_from_results = f->suspects_from_results;
	/* One copy of each case's name, image, outcome...: the GPU times and
	 * suspects' inputs keep theirs in the model's strings. */
	kept.perf.shared = kept.suspects.shared = &m.strings;
	n_planned = meta->plan.n;
	rc = sweep_import(db, meta, folder, f, &kept, &m.strings, err);
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
		rc = history_perf_sides(db, meta->id, sweep_model_perf_row, &kept.perf, err);
	report_perf_finish(&kept.perf);
	m.perf = kept.perf;
	if (rc < 0)
		goto out;
	rc = -1;
	sweep_import_recover(db, meta, folder, f->events);
	if (meta->baseline)
		baseline = xstrdup(meta->baseline);
	else if (history_db_previous(db, meta->label, meta->id, &baseline, err) < 0)
		goto out;
	if (sweep_model_perf(&m, db, meta, baseline, err) < 0 ||
	    sweep_model_cases(&m, db, meta, baseline, n_planned, err) < 0 ||
	    history_changes_each(db, &cq, change_found, &changes, err) < 0)
		goto out;
	m.r.changepoints = changes.v;
	m.r.n_changepoints = changes.n;
	m.r.sweep_id = meta->id;
	m.r.label = meta->label;
	m.r.baseline = baseline;
	m.r.state = f->state;
	m.r.tool_version = meta->tool_version;
	images = report_images_of(meta, folder, &nodes, &m.r);
	m.r.images = images;
	m.r.n_images = meta->n_images;
	m.r.image_budget = meta->image_budget;
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
	sweep_finish_exit(&m.r, f->state, meta->fail_on);
	*end = sweep_end_of_code(m.r.exit_code);
	rc = sweep_files_write(&m.r, folder, f, shown_to, err);
	/* After the reports: a folder with an end record has its reports. */
	if (rc == 0)
		rc = sweep_end_record_write(folder, f->state, f->finished, err);
	if (rc == 0 && f->then)
		f->then(f->then_ctx, &m.r);
out:
	sweep_model_release(&m);
	strvec_clear(&expired);
	free(images);
	sweep_image_nodes_release(&nodes);
	free(changes.v);
	strvec_clear(&changes.s);
	return rc;
}
