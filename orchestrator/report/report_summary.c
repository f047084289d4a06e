/* summary.md and summary.json, and what every report shares. */
#include "orchestrator/report/report.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>

#include "common/json.h"
#include "common/cleanup.h"
#include "common/relpath.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/report/report_images_md.h"
#include "orchestrator/sweep/case_result.h"

char *report_clean(const char *s, bool multiline)
{
	unsigned flags = TEXT_STRIP_ANSI | TEXT_NO_NONCHARACTERS |
			 (multiline ? TEXT_KEEP_NEWLINES | TEXT_KEEP_TABS : 0);

	return s ? text_sanitized(s, flags) : NULL;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Whether attempt a ran on one GPU only and that GPU is a noted one. */
static bool on_noted_gpu(const struct report *r, const struct report_attempt *a)
{
	char *end;
	long ord = a->gpus ? strtol(a->gpus, &end, 10) : -1;
	unsigned long long uid = a->gpu_uids ? strtoull(a->gpu_uids, NULL, 10) : 0;

	if (!a->gpus || end == a->gpus || *end)
		return false;
	for (size_t g = 0; g < r->n_gpu_notes; g++)
		if (sweep_gpu_is(&r->gpu_notes[g], a->host, (int)ord, uid))
			return true;
	return false;
}

void report_acquit_suspect_gpus(struct report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct report_case *c = &r->cases[i];
		bool all = c->n_earlier > 0;

		if (c->status != ST_FLAKY)
			continue;
		for (size_t a = 0; a < c->n_earlier; a++)
			all &= on_noted_gpu(r, &c->earlier[a]);
		if (!all)
			continue;
		c->acquitted = true;
		c->status = !c->prev_outcome ? ST_NEW : finding_outcome_is(c->prev_outcome, OUTCOME_PASS) ? ST_PASS
											 : ST_FIXED;
		for (size_t a = 0; a < c->n_earlier; a++)
			c->earlier[a].kind = case_result_kind_name(RESULT_KIND_INFRA);
	}
}

void report_finish(struct report *r)
{
	memset(r->counts, 0, sizeof(r->counts));
	memset(r->perf_counts, 0, sizeof(r->perf_counts));
	for (size_t i = 0; i < r->n; i++) {
		struct report_case *c = &r->cases[i];

		r->counts[c->status]++;
		if (c->perf && (size_t)c->perf->status < PERF_STATUS_COUNT)
			r->perf_counts[c->perf->status]++;
		c->ab_differs = false;
		if (c->status == ST_GONE)
			continue;
		for (size_t j = 0; j < r->n; j++) {
			const struct report_case *o = &r->cases[j];

			if (j != i && o->status != ST_GONE && !strcmp(o->case_name, c->case_name) &&
			    strcmp(o->image, c->image) && !same(o->outcome, c->outcome))
				c->ab_differs = true;
		}
	}
}

void report_verdict(const struct report *r, struct strbuf *out)
{
	size_t shown = 0;

	for (size_t k = 0; k < ST__COUNT; k++) {
		enum sweep_status s = sweep_status_report_order[k];

		if (!r->counts[s])
			continue;
		strbuf_addf(out, "%s%zu %s", shown++ ? ", " : "", r->counts[s], sweep_status_name(s));
	}
	if (!shown)
		strbuf_addstr(out, "no cases");
	if (r->perf_counts[PERF_SLOWER])
		strbuf_addf(out, "; GPU time: %zu slower", r->perf_counts[PERF_SLOWER]);
	if (r->state != SWEEP_FINISHED)
		strbuf_addf(out, "; sweep %s", sweep_state_name(r->state));
	strbuf_addf(out, ": exit %d (%s)", r->exit_code,
		    r->exit_code == 0   ? "nothing regressed"
		    : r->exit_code == 1 ? (r->perf_fail && r->perf_counts[PERF_SLOWER]
					       ? "regressions, changes, missing results or slower GPU time"
					       : "regressions, changes or missing results")
		    : r->exit_code == 5 ? "infrastructure errors or interrupted"
					: "see above");
	if (r->exit_untriaged)
		strbuf_addf(out, "; %zu untriaged failure(s) (--fail-on untriaged)",
			    r->exit_untriaged);
	if (r->exit_known_ignored)
		strbuf_addf(out, "; %zu known failure(s) not counted (--ignore-known)",
			    r->exit_known_ignored);
}


/* The text so far into the file: a renderer holds one case's text, not
 * the report's. */
static void spill(struct strbuf *text, FILE *out)
{
	fwrite(text->buf, 1, text->len, out);
	strbuf_reset(text);
}

static void md_group(const struct report *r, enum sweep_status s, struct strbuf *out, FILE *f)
{
	if (!r->counts[s] || s == ST_PASS)
		return;
	strbuf_addf(out, "\n## %s (%zu)\n\n", sweep_status_name(s), r->counts[s]);
	strbuf_addstr(out, "| case | image | before → now | kernel | A/B | link |\n"
			   "| --- | --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct report_case *c = &r->cases[i];

		if (c->status != s)
			continue;
		strbuf_addstr(out, "| ");
		text_markdown_cell(out, c->case_name);
		strbuf_addstr(out, " | ");
		text_markdown_cell(out, c->image);
		strbuf_addstr(out, " | ");
		text_markdown_cell(out, c->prev_outcome ? c->prev_outcome : "-");
		strbuf_addstr(out, " → ");
		text_markdown_cell(out, c->outcome ? c->outcome : (c->message ? c->message : "-"));
		strbuf_addstr(out, " | ");
		text_markdown_cell(out, c->kernel ? c->kernel : "");
		strbuf_addf(out, " | %s | ", c->ab_differs ? "differs" : "");
		/* Only a plain relative path inside the sweep folder is a link. */
		if (relpath_plain_below(c->run_dir))
			strbuf_addf(out, "[finding](%s/finding.md)", c->run_dir);
		strbuf_addstr(out, " |\n");
		spill(out, f);
	}
}

static const struct sweep_gpu_note *note_of(const struct report *r, int gpu)
{
	for (size_t k = 0; k < r->n_gpu_notes; k++)
		if (r->gpu_notes[k].gpu == gpu)
			return &r->gpu_notes[k];
	return NULL;
}

/* The GPUs whose replay could not be stopped, as before; then every
 * quarantined or suspect GPU with its identity and why. */
static void md_gpus(const struct report *r, struct strbuf *out)
{
	bool stuck = false, nodes = false;

	for (size_t i = 0; i < r->n_quarantined; i++) {
		const struct sweep_gpu_note *n = note_of(r, r->quarantined[i]);

		if (n && !n->stuck)
			continue;
		if (!stuck)
			strbuf_addstr(out, "\n## Quarantined GPUs\n\nA replay on these could not be stopped:");
		stuck = true;
		strbuf_addf(out, " %d", r->quarantined[i]);
	}
	if (stuck)
		strbuf_addch(out, '\n');
	if (!r->n_gpu_notes)
		return;
	for (size_t i = 0; i < r->n_gpu_notes; i++)
		nodes |= r->gpu_notes[i].host[0] != '\0';
	/* A merge's notes come from several nodes: each says which. */
	strbuf_addf(out, "\n## Quarantined and suspect GPUs\n\n"
			 "| %sGPU | unique_id | quarantined | why |\n| %s--- | --- | --- | --- |\n",
		    nodes ? "host | " : "", nodes ? "--- | " : "");
	for (size_t i = 0; i < r->n_gpu_notes; i++) {
		const struct sweep_gpu_note *g = &r->gpu_notes[i];
		cleanup_free char *why = report_clean(g->reason, false);

		strbuf_addstr(out, "| ");
		if (nodes) {
			text_markdown_cell(out, g->host);
			strbuf_addstr(out, " | ");
		}
		strbuf_addf(out, "%d | %llu | %s | %s |\n", g->gpu, g->unique_id,
			    g->quarantined ? "yes"
			    : g->host[0]   ? "no (suspect; `sweep --resume --slurm` leaves its node out)"
					   : "no (suspect; --quarantine-gpus takes it out)",
			    why ? why : "");
	}
}

/* Workload, infrastructure and flaky counted apart (a flaky case is a
 * workload that passed in the end). */
struct kinds {
	size_t workload_failed, infrastructure, flaky, failed_only_on_suspect_gpu;
};

static struct kinds count_kinds(const struct report *r)
{
	struct kinds k = { 0 };

	for (size_t i = 0; i < r->n; i++) {
		const struct report_case *c = &r->cases[i];
		enum result_kind kind;

		if (c->status == ST_GONE)
			continue;
		if (c->acquitted)
			k.failed_only_on_suspect_gpu++;
		if (c->status == ST_FLAKY) {
			k.flaky++;
		} else if (case_result_kind_from_name(c->kind, &kind) && kind == RESULT_KIND_INFRA) {
			k.infrastructure++;
		} else if (c->outcome && !finding_outcome_is(c->outcome, OUTCOME_PASS)) {
			k.workload_failed++;
		}
	}
	return k;
}

static void kinds_md(const struct report *r, struct strbuf *out)
{
	struct kinds k = count_kinds(r);

	strbuf_addf(out, "\nFailures by kind: %zu workload, %zu infrastructure, %zu flaky; "
			 "%zu case(s) failed only on a quarantined or suspect GPU and passed on "
			 "another (not counted flaky).\n",
		    k.workload_failed, k.infrastructure, k.flaky, k.failed_only_on_suspect_gpu);
}

/* The triage first: untriaged failures by signature, then known ones by
 * issue, each with the results, cases and images it covers. */
static void md_triage(const struct report *r, struct strbuf *out)
{
	struct report_failure_groups g;

	report_failure_groups(r, &g);
	if (!g.n_untriaged && !g.n_known && !r->n_expired_rules) {
		report_failure_groups_release(&g);
		return;
	}
	strbuf_addf(out, "\n## Triage\n\n%zu untriaged signature(s), %zu known issue(s).\n",
		    g.n_untriaged, g.n_known);
	for (size_t k = 0; k < r->n_expired_rules; k++) {
		strbuf_addstr(out, k ? "- " : "\nExpired known-issue rules:\n\n- ");
		text_markdown_cell(out, r->expired_rules[k]);
		strbuf_addch(out, '\n');
	}
	if (g.n_untriaged) {
		strbuf_addstr(out, "\n### Untriaged, by signature\n\n| signature | outcome | fault "
				   "class | kernel family | evidence | results | cases | images |\n"
				   "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
		for (size_t k = 0; k < g.n_untriaged; k++) {
			const struct report_failure_group *u = &g.untriaged[k];

			strbuf_addf(out, "| `%s` | ", u->key);
			text_markdown_cell(out, u->first->outcome ? u->first->outcome : "-");
			strbuf_addstr(out, " | ");
			text_markdown_cell(out, u->first->fault_class ? u->first->fault_class : "-");
			strbuf_addstr(out, " | ");
			text_markdown_cell(out, u->first->sig_family ? u->first->sig_family : "-");
			strbuf_addstr(out, " | ");
			text_markdown_cell(out, u->first->sig_evidence ? u->first->sig_evidence : "-");
			strbuf_addf(out, " | %zu | %zu | %zu |\n", u->results, u->cases, u->images);
		}
	}
	if (g.n_known) {
		strbuf_addstr(out, "\n### Known, by issue\n\n| issue | owner | link | results | "
				   "cases | images | signatures |\n| --- | --- | --- | --- | --- | "
				   "--- | --- |\n| ");
		for (size_t k = 0; k < g.n_known; k++) {
			const struct report_failure_group *q = &g.known[k];

			if (k)
				strbuf_addstr(out, "| ");
			text_markdown_cell(out, q->key);
			strbuf_addstr(out, " | ");
			text_markdown_cell(out, q->first->known_owner ? q->first->known_owner : "-");
			strbuf_addstr(out, " | ");
			text_markdown_cell(out, q->first->known_link ? q->first->known_link : "-");
			strbuf_addf(out, " | %zu | %zu | %zu | %zu |\n", q->results, q->cases, q->images,
				    q->signatures);
		}
	}
	report_failure_groups_release(&g);
}

int report_summary_md(const struct report *r, FILE *f, struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct strbuf *out = &text;
	cleanup_free char *id = report_clean(r->sweep_id, false);
	cleanup_free char *label = report_clean(r->label, false);
	cleanup_free char *base = report_clean(r->baseline, false);

	strbuf_addf(out, "# Sweep %s\n\nLabel `%s`, baseline %s%s%s, state %s.\n", id, label,
		    base ? "`" : "", base ? base : "none", base ? "`" : "",
		    sweep_state_name(r->state));
	md_triage(r, out);
	for (size_t k = 0; k < ST__COUNT; k++)
		md_group(r, sweep_status_report_order[k], out, f);
	if (r->n_quarantined || r->n_gpu_notes)
		md_gpus(r, out);
	spill(out, f);
	report_perf_md(r, f);
	strbuf_addstr(out, "\n## Counts\n\n| status | cases |\n| --- | --- |\n");
	for (size_t k = 0; k < ST__COUNT; k++) {
		enum sweep_status s = sweep_status_report_order[k];

		if (r->counts[s])
			strbuf_addf(out, "| %s | %zu |\n", sweep_status_name(s), r->counts[s]);
	}
	kinds_md(r, out);
	report_images_md(r, out);
	strbuf_addch(out, '\n');
	report_verdict(r, out);
	strbuf_addch(out, '\n');
	spill(out, f);
	(void)err; /* a write error shows in the file's error flag */
	return 0;
}

/* report_clean(v, true)'s cleaning, through the one writer. */
#define REPORT_JSON_TEXT (JSON_TEXT | TEXT_NO_NONCHARACTERS)

static void json_ms(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

/* "perf": the comparison with --perf-baseline's image (docs/perf.md). */
static void json_perf(cJSON *o, const struct report_perf *p)
{
	cJSON *j, *ci;

	if (!p)
		return;
	j = cJSON_AddObjectToObject(o, "perf");
	cJSON_AddStringToObject(j, "status", perf_status_name(p->status));
	json_add_str(j, "baseline_image", p->baseline_image, REPORT_JSON_TEXT);
	if (p->baseline_sweeps) {
		cJSON *w = cJSON_AddArrayToObject(j, "baseline_sweeps");

		for (size_t i = 0; i < p->baseline_sweeps->n; i++)
			cJSON_AddItemToArray(w, cJSON_CreateString(p->baseline_sweeps->v[i]));
	}
	json_add_str(j, "gfx", p->gfx, REPORT_JSON_TEXT);
	if (p->device_id > 0)
		cJSON_AddNumberToObject(j, "device_id", (double)p->device_id);
	cJSON_AddNumberToObject(j, "n", (double)p->cmp.n_new);
	cJSON_AddNumberToObject(j, "n_baseline", (double)p->cmp.n_base);
	json_ms(j, "median_ms", p->cmp.median_new);
	json_ms(j, "baseline_median_ms", p->cmp.median_base);
	json_ms(j, "ratio", p->cmp.ratio);
	ci = cJSON_AddArrayToObject(j, "interval");
	if (isfinite(p->cmp.ci_lo) && isfinite(p->cmp.ci_hi)) {
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(p->cmp.ci_lo));
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(p->cmp.ci_hi));
	}
	json_ms(j, "p", p->cmp.p);
	json_ms(j, "p_adjusted", p->cmp.p_adj);
	if (p->cmp.nights) {
		json_ms(j, "night_spread", p->cmp.spread);
		cJSON_AddNumberToObject(j, "nights", (double)p->cmp.nights);
	}
	if (p->note)
		json_add_str(j, "note", p->note, REPORT_JSON_TEXT);
}

static cJSON *json_case(const struct report_case *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *g = cJSON_AddArrayToObject(o, "gpus");

	json_add_str(o, "case", c->case_name, REPORT_JSON_TEXT);
	json_add_str(o, "image", c->image, REPORT_JSON_TEXT);
	json_add_str(o, "image_id", c->image_id, REPORT_JSON_TEXT);
	for (const char *p = c->gpus; p && *p;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		cJSON_AddItemToArray(g, cJSON_CreateNumber((double)v));
		p = *end == ',' ? end + 1 : end;
	}
	json_add_str(o, "outcome", c->outcome, REPORT_JSON_TEXT);
	json_add_str(o, "fault_class", c->fault_class, REPORT_JSON_TEXT);
	json_add_str(o, "kernel_name", c->kernel, REPORT_JSON_TEXT);
	cJSON_AddStringToObject(o, "status", sweep_status_name(c->status));
	json_add_str(o, "previous_outcome", c->prev_outcome, REPORT_JSON_TEXT);
	cJSON_AddNumberToObject(o, "attempts", c->attempts);
	cJSON_AddNumberToObject(o, "duration_s", c->duration_s);
	json_add_str(o, "run_dir", c->run_dir, REPORT_JSON_TEXT);
	cJSON_AddBoolToObject(o, "ab_differs", c->ab_differs);
	if (c->message)
		json_add_str(o, "message", c->message, REPORT_JSON_TEXT);
	json_add_str(o, "kind", c->kind, REPORT_JSON_TEXT);
	json_add_str(o, "gpu_unique_ids", c->gpu_uids, REPORT_JSON_TEXT);
	json_add_str(o, "host", c->host, REPORT_JSON_TEXT);
	if (c->sig_id) {
		cJSON *sig = cJSON_AddObjectToObject(o, "signature");

		json_add_str(sig, "id", c->sig_id, REPORT_JSON_TEXT);
		json_add_str(sig, "kernel_family", c->sig_family, REPORT_JSON_TEXT);
		json_add_str(sig, "evidence", c->sig_evidence, REPORT_JSON_TEXT);
	} else {
		cJSON_AddNullToObject(o, "signature");
	}
	if (c->known_id) {
		cJSON *k = cJSON_AddObjectToObject(o, "known");

		json_add_str(k, "id", c->known_id, REPORT_JSON_TEXT);
		json_add_str(k, "link", c->known_link, REPORT_JSON_TEXT);
		json_add_str(k, "owner", c->known_owner, REPORT_JSON_TEXT);
	} else {
		cJSON_AddNullToObject(o, "known");
	}
	json_perf(o, c->perf);
	return o;
}

/* cJSON_Print's form of the whole document, one case at a time: a case
 * printed alone is the array's element two levels up (strings carry no
 * raw newline, so each of its newlines gains two tabs). */
static void json_cases(const struct report *r, FILE *f)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	for (size_t i = 0; i < r->n; i++) {
		cleanup_cjson cJSON *o = json_case(&r->cases[i]);
		cleanup_free char *one = cJSON_Print(o);

		if (i)
			strbuf_addstr(&text, ", ");
		for (const char *p = one; *p; p++) {
			strbuf_addch(&text, *p);
			if (*p == '\n')
				strbuf_addstr(&text, "\t\t");
		}
		spill(&text, f);
	}
}

/* pulled when, removed when or kept and why */
static void json_fate(cJSON *e, const struct sweep_image_fate *f)
{
	if (f->pulled > 0)
		cJSON_AddNumberToObject(e, "pulled", (double)f->pulled);
	if (f->fate == IMAGE_FATE_REMOVED)
		cJSON_AddNumberToObject(e, "removed", (double)f->removed);
	else if (image_fate_name(f->fate))
		cJSON_AddStringToObject(e, "kept", image_fate_name(f->fate));
}

/* Image i on each node of a cluster sweep that set it up. */
static void json_image_nodes(cJSON *e, const struct sweep_image_nodes *nodes, size_t i)
{
	cJSON *a = cJSON_AddArrayToObject(e, "nodes");

	for (size_t k = 0; k < nodes->n; k++) {
		const struct sweep_image_fate *f = i < nodes->v[k].n ? &nodes->v[k].v[i] : NULL;
		cJSON *n;

		if (!f || (f->fate == IMAGE_FATE_UNKNOWN && !f->pulled))
			continue;
		n = cJSON_CreateObject();
		json_add_str(n, "host", nodes->v[k].host, REPORT_JSON_TEXT);
		json_fate(n, f);
		cJSON_AddItemToArray(a, n);
	}
}

static void json_images(cJSON *o, const struct report *r)
{
	cJSON *a = cJSON_AddArrayToObject(o, "images");
	cJSON *peaks = r->image_nodes ? cJSON_AddArrayToObject(o, "image_nodes") : NULL;

	if (r->image_budget)
		cJSON_AddNumberToObject(o, "image_budget", (double)r->image_budget);
	if (r->image_peak)
		cJSON_AddNumberToObject(o, "image_peak", (double)r->image_peak);
	for (size_t i = 0; i < r->n_images; i++) {
		const struct report_image *im = &r->images[i];
		cJSON *e = cJSON_CreateObject();

		json_add_str(e, "ref", im->ref, REPORT_JSON_TEXT);
		json_add_str(e, "pin", im->pin, REPORT_JSON_TEXT);
		json_add_str(e, "id", im->id, REPORT_JSON_TEXT);
		if (im->manifest_size >= 0)
			cJSON_AddNumberToObject(e, "manifest_size", (double)im->manifest_size);
		json_fate(e, &(struct sweep_image_fate){ .pulled = im->pulled,
							 .removed = im->removed, .fate = im->fate });
		if (r->image_nodes)
			json_image_nodes(e, r->image_nodes, i);
		cJSON_AddItemToArray(a, e);
	}
	for (size_t k = 0; r->image_nodes && k < r->image_nodes->n; k++) {
		const struct sweep_image_fates *n = &r->image_nodes->v[k];
		cJSON *e = cJSON_CreateObject();

		json_add_str(e, "host", n->host, REPORT_JSON_TEXT);
		if (n->peak)
			cJSON_AddNumberToObject(e, "peak", (double)n->peak);
		cJSON_AddItemToArray(peaks, e);
	}
}

/* The document with an empty "cases" array, cut where its cases go. */
#define CASES_AT "\"cases\":\t[]"

/* The warning of a family that can find nothing (docs/perf.md "When a
 * sweep can find nothing"): its figures and the same words as summary.md. */
static void perf_reach_json(const struct report *r, cJSON *o)
{
	const struct perf_fdr_reach *x = r->perf_reach;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cJSON *w;

	if (!x)
		return;
	w = cJSON_AddObjectToObject(o, "perf_warning");
	cJSON_AddNumberToObject(w, "comparisons", (double)x->m);
	cJSON_AddNumberToObject(w, "fdr", x->q);
	cJSON_AddNumberToObject(w, "discoveries", (double)x->k);
	cJSON_AddNumberToObject(w, "p_needed", x->bar);
	cJSON_AddNumberToObject(w, "min_p", x->min_p);
	if (x->n_needed)
		cJSON_AddNumberToObject(w, "perf_needed", (double)x->n_needed);
	else
		cJSON_AddNullToObject(w, "perf_needed");
	report_perf_reach_text(r, &text);
	cJSON_AddStringToObject(w, "text", text.buf);
}

int report_summary_json(const struct report *r, FILE *f, struct error *err)
{
	cleanup_cjson cJSON *o = cJSON_CreateObject();
	cJSON *counts, *q;
	cleanup_free char *text = NULL;
	char *cut;

	json_add_str(o, "sweep", r->sweep_id, REPORT_JSON_TEXT);
	json_add_str(o, "label", r->label, REPORT_JSON_TEXT);
	json_add_str(o, "baseline", r->baseline, REPORT_JSON_TEXT);
	cJSON_AddStringToObject(o, "state", sweep_state_name(r->state));
	cJSON_AddNumberToObject(o, "exit", r->exit_code);
	json_add_str(o, "tool_version", r->tool_version, REPORT_JSON_TEXT);
	counts = cJSON_AddObjectToObject(o, "counts");
	for (int s = 0; s < ST__COUNT; s++)
		if (r->counts[s])
			cJSON_AddNumberToObject(counts, sweep_status_name(s), (double)r->counts[s]);
	/* Cases per GPU-time status (docs/perf.md "In the reports"). */
	counts = cJSON_AddObjectToObject(o, "perf_counts");
	for (int s = PERF_NONE + 1; s < PERF_STATUS_COUNT; s++)
		if (r->perf_counts[s])
			cJSON_AddNumberToObject(counts, perf_status_name(s), (double)r->perf_counts[s]);
	perf_reach_json(r, o);
	cJSON_AddArrayToObject(o, "cases");
	q = cJSON_AddArrayToObject(o, "quarantined_gpus");
	for (size_t i = 0; i < r->n_quarantined; i++)
		cJSON_AddItemToArray(q, cJSON_CreateNumber(r->quarantined[i]));
	{
		struct kinds k = count_kinds(r);
		cJSON *kj = cJSON_AddObjectToObject(o, "kinds");

		cJSON_AddNumberToObject(kj, "workload_failed", (double)k.workload_failed);
		cJSON_AddNumberToObject(kj, "infrastructure", (double)k.infrastructure);
		cJSON_AddNumberToObject(kj, "flaky", (double)k.flaky);
		cJSON_AddNumberToObject(kj, "failed_only_on_suspect_gpu",
					(double)k.failed_only_on_suspect_gpu);
	}
	json_images(o, r);
	q = cJSON_AddArrayToObject(o, "suspect_gpus");
	for (size_t i = 0; i < r->n_gpu_notes; i++) {
		const struct sweep_gpu_note *g = &r->gpu_notes[i];
		cJSON *e = cJSON_CreateObject();
		char uid[32];

		snprintf(uid, sizeof(uid), "%llu", g->unique_id);
		if (g->host[0])
			json_add_str(e, "host", g->host, REPORT_JSON_TEXT);
		cJSON_AddNumberToObject(e, "gpu", g->gpu);
		cJSON_AddStringToObject(e, "unique_id", uid);
		cJSON_AddBoolToObject(e, "quarantined", g->quarantined);
		json_add_str(e, "reason", g->reason, REPORT_JSON_TEXT);
		cJSON_AddItemToArray(q, e);
	}
	text = cJSON_Print(o);
	/* The first "cases" at the top level: keys above it are fixed. */
	cut = text ? strstr(text, CASES_AT) : NULL;
	if (!cut)
		return error_set(err, ERR_SYSTEM, 0, "summary.json: cannot print the document");
	cut += strlen(CASES_AT) - 1;
	fwrite(text, 1, (size_t)(cut - text), f);
	json_cases(r, f);
	fputs(cut, f);
	fputc('\n', f);
	return 0;
}
