/* The answer of a bisection: the last good and the first bad image side by
 * side (tag, ID, each case's finding), what changed between them in what
 * the preflight reads (the replay stack and the playback path, as their
 * run.json records them), and how it was found. */
#include "orchestrator/jobs/bisect_driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_reuse.h"
#include "orchestrator/sweep/sweep_plan.h"
#include "common/version.h"

#define FACTS_MAX (1u << 20)

const char *bisect_step_verdict(enum bisect_step s)
{
	switch (s) {
	case BISECT_FOUND: return "found";
	case BISECT_NO_CHANGE: return "no-transition";
	case BISECT_GOOD_DIFFERS: return "good-not-stable";
	case BISECT_STOPPED_FLAKY: return "flaky";
	case BISECT_STOPPED_ERROR: return "infrastructure";
	default: return "interrupted";
	}
}

const char *bisect_job_verdict(const struct bisect_job *j)
{
	if (j->gpu_time && j->step == BISECT_NO_CHANGE)
		return "no-clear-change";
	if (j->gpu_time && j->step == BISECT_STOPPED_FLAKY)
		return "unclear";
	return bisect_step_verdict(j->step);
}

struct facts {
	char *stack, *playback;
};

static void facts_release(struct facts *f)
{
	free(f->stack);
	free(f->playback);
}

/* From the record of the first case's run of candidate i (its run.json):
 * the replay side the preflight described and the playback path, as the
 * replay recorded them, never read back out of preflight.md's words. */
static void facts_read(const struct bisect_probe *p, struct facts *f)
{
	cleanup_strbuf struct strbuf rj = STRBUF_INIT;
	cleanup_free char *prj = NULL;
	cleanup_cjson cJSON *run = NULL;
	const cJSON *stack, *pb;

	memset(f, 0, sizeof(*f));
	if (!p->folder || !p->run_dir)
		return;
	prj = xasprintf("%s/%s/run.json", p->folder, p->run_dir);
	if (fs_read_small_file(prj, FACTS_MAX, &rj, ERROR_DISCARD) < 0 || !rj.buf ||
	    !(run = cJSON_Parse(rj.buf)))
		return;
	stack = cJSON_GetObjectItemCaseSensitive(run, "replay_stack");
	pb = cJSON_GetObjectItemCaseSensitive(run, "playback");
	if (cJSON_IsString(stack))
		f->stack = text_sanitized(stack->valuestring, TEXT_STRIP_ANSI);
	if (cJSON_IsString(pb))
		f->playback = text_sanitized(pb->valuestring, TEXT_STRIP_ANSI);
}

static void md_cell(struct strbuf *out, const char *s)
{
	cleanup_free char *c = text_sanitized(s && *s ? s : "-", TEXT_STRIP_ANSI);

	for (const char *p = c; *p; p++) {
		if (*p == '|' || *p == '\\' || *p == '`')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *p == '\n' ? ' ' : *p);
	}
}

static void md_row(struct strbuf *out, const char *what, const char *a, const char *b)
{
	strbuf_addstr(out, "| ");
	md_cell(out, what);
	strbuf_addstr(out, " | ");
	md_cell(out, a);
	strbuf_addstr(out, " | ");
	md_cell(out, b);
	strbuf_addstr(out, " |\n");
}

static bool differs(const char *a, const char *b)
{
	return (a || b) && (!a || !b || strcmp(a, b));
}

static void md_sides(const struct bisect_job *j, size_t g, size_t b, struct strbuf *out)
{
	const struct bisect_probe *pg = &j->probes[g], *pb = &j->probes[b];
	struct facts fg, fb;

	facts_read(pg, &fg);
	facts_read(pb, &fb);
	strbuf_addstr(out, "| | last good | first bad |\n| --- | --- | --- |\n");
	md_row(out, "image", j->cands.v[g].ref, j->cands.v[b].ref);
	md_row(out, "image ID", pg->image_id, pb->image_id);
	for (size_t c = 0; c < j->n_cases; c++) {
		cleanup_free char *a = pg->known ? xasprintf("%s %s", pg->outcomes.v[c], pg->details.v[c])
						 : NULL;
		cleanup_free char *z = pb->known ? xasprintf("%s %s", pb->outcomes.v[c], pb->details.v[c])
						 : NULL;

		md_row(out, j->cases[c].name, a, z);
		if (j->gpu_time) {
			cleanup_strbuf struct strbuf wg = STRBUF_INIT, wb = STRBUF_INIT;
			cleanup_free char *what = xasprintf("%s GPU time", j->cases[c].name);

			bisect_perf_words(&pg->perf[c], &wg);
			bisect_perf_words(&pb->perf[c], &wb);
			md_row(out, what, wg.buf, wb.buf);
		}
	}
	md_row(out, "replay stack", fg.stack, fb.stack);
	md_row(out, "playback", fg.playback, fb.playback);
	strbuf_addstr(out, "\nChanged between them: ");
	if (differs(fg.stack, fb.stack) || differs(fg.playback, fb.playback))
		strbuf_addf(out, "%s%s%s.\n", differs(fg.stack, fb.stack) ? "the replay stack" : "",
			    differs(fg.stack, fb.stack) && differs(fg.playback, fb.playback) ? ", " : "",
			    differs(fg.playback, fb.playback) ? "the playback path" : "");
	else
		strbuf_addstr(out, "nothing the preflight reads (HIP, comgr, ROCm release, playback "
				   "path): the change is elsewhere in the image.\n");
	facts_release(&fg);
	facts_release(&fb);
}

void bisect_answer_markdown(const struct bisect_job *j, struct strbuf *out)
{
	size_t g = j->state.last_good, b = j->state.first_bad;

	strbuf_addstr(out, "# Bisection\n\n");
	if (j->gpu_time)
		strbuf_addf(out, "Metric: GPU time (kernel time, %ld samples a probe; slower is a "
			    "ratio of medians above %g%% with a Mann-Whitney p below %g).\n\n",
			    j->rq->perf_runs, 100 * j->rule.threshold, j->rule.alpha);
	switch (j->step) {
	case BISECT_FOUND:
		if (j->gpu_time) {
			const struct bisect_perf *k = j->probes[b].perf;
			size_t c = bisect_perf_telling_case(k, j->n_cases);

			strbuf_addf(out, "First slower image: **%s** (last not slower: %s); %s: "
				    "ratio %.3f [%.3f, %.3f], p = %.4f.\n\n", j->cands.v[b].ref,
				    j->cands.v[g].ref, j->cases[c].name, k[c].cmp.ratio,
				    k[c].cmp.ci_lo, k[c].cmp.ci_hi, k[c].cmp.p);
			md_sides(j, g, b, out);
			break;
		}
		strbuf_addf(out, "First bad image: **%s** (last good: %s).\n\n", j->cands.v[b].ref,
			    j->cands.v[g].ref);
		md_sides(j, g, b, out);
		break;
	case BISECT_NO_CHANGE:
		if (j->gpu_time) {
			strbuf_addf(out, "No clear change: %s is not slower than %s.\n",
				    j->cands.v[j->cands.n - 1].ref, j->cands.v[0].ref);
			break;
		}
		strbuf_addf(out, "No transition: %s behaves as %s.\n", j->cands.v[j->cands.n - 1].ref,
			    j->cands.v[0].ref);
		break;
	case BISECT_STOPPED_FLAKY:
		if (j->gpu_time) {
			const struct bisect_perf *k = j->probes[j->state.next].perf;
			size_t c = bisect_perf_telling_case(k, j->n_cases);
			cleanup_strbuf struct strbuf w = STRBUF_INIT;

			bisect_perf_words(&k[c], &w);
			strbuf_addf(out, "Stopped: the GPU time of %s is unclear (%s: %s); not "
					 "guessed through. The change, if any, is between %s and %s.\n",
				    j->cands.v[j->state.next].ref, j->cases[c].name, w.buf,
				    j->cands.v[g].ref, j->cands.v[b].ref);
			break;
		}
		strbuf_addf(out, "Stopped: %s is flaky (its attempts disagree); not guessed through. "
				 "The transition is between %s and %s.\n",
			    j->cands.v[j->state.next].ref, j->cands.v[g].ref, j->cands.v[b].ref);
		break;
	case BISECT_GOOD_DIFFERS:
		strbuf_addf(out, "Stopped: --good %s is %s.\n", j->cands.v[0].ref,
			    j->probes[0].mark != BISECT_FLAKY ? "without a result"
			    : j->gpu_time ? "no reference (its GPU-time samples are noisy, too few "
					    "or missing)" : "flaky");
		break;
	default:
		strbuf_addf(out, "Stopped: %s has no result (%s).\n", j->cands.v[j->state.next].ref,
			    j->error ? j->error : "an infrastructure error; see its sweep folder");
		break;
	}
	strbuf_addf(out, "\n%u replay(s), %u result(s) reused from the history, %zu candidate(s).\n\n",
		    j->replays, j->reused, j->cands.n);
	strbuf_addstr(out, "| # | image | status | how |\n| --- | --- | --- | --- |\n");
	for (size_t i = 0; i < j->cands.n; i++) {
		const struct bisect_probe *p = &j->probes[i];

		if (p->mark == BISECT_UNKNOWN)
			continue;
		strbuf_addf(out, "| %zu | ", i + 1);
		md_cell(out, j->cands.v[i].ref);
		strbuf_addstr(out, " | ");
		if (j->gpu_time && p->known) {
			cleanup_strbuf struct strbuf w = STRBUF_INIT;

			bisect_perf_words(&p->perf[bisect_perf_telling_case(p->perf, j->n_cases)], &w);
			md_cell(out, w.buf);
		} else {
			md_cell(out, p->known ? p->outcomes.v[0] : "no result");
		}
		strbuf_addf(out, " | %s |\n", p->replayed ? "replayed" : "history");
	}
}

/* --metric gpu-time: candidate i's comparisons, one object a case. */
static cJSON *perf_json(const struct bisect_job *j, size_t i)
{
	const struct bisect_probe *p = &j->probes[i];
	cJSON *a = cJSON_CreateArray();

	for (size_t c = 0; p->perf && c < j->n_cases; c++) {
		const struct perf_comparison *k = &p->perf[c].cmp;
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "case", j->cases[c].name);
		cJSON_AddStringToObject(o, "status",
					p->perf[c].other_gpu ? "other-gpu"
					: k->status == PERF_NONE ? "no-samples"
					: perf_status_name(k->status));
		cJSON_AddNumberToObject(o, "samples", (double)p->perf[c].n);
		cJSON_AddNumberToObject(o, "good_samples", (double)k->n_base);
		if (k->status != PERF_NONE) {
			cJSON_AddNumberToObject(o, "median_ms", k->median_new);
			cJSON_AddNumberToObject(o, "good_median_ms", k->median_base);
		}
		if (isfinite(k->ratio)) {
			cJSON_AddNumberToObject(o, "ratio", k->ratio);
			cJSON_AddNumberToObject(o, "ci_lo", k->ci_lo);
			cJSON_AddNumberToObject(o, "ci_hi", k->ci_hi);
			cJSON_AddNumberToObject(o, "p", k->p);
			cJSON_AddNumberToObject(o, "cv", k->cv_new);
		}
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *side_json(const struct bisect_job *j, size_t i)
{
	const struct bisect_probe *p = &j->probes[i];
	cJSON *o = cJSON_CreateObject(), *cases = cJSON_AddArrayToObject(o, "cases");
	struct facts f;

	cJSON_AddStringToObject(o, "image", j->cands.v[i].ref);
	if (j->cands.v[i].tag)
		cJSON_AddStringToObject(o, "tag", j->cands.v[i].tag);
	if (p->image_id)
		cJSON_AddStringToObject(o, "image_id", p->image_id);
	for (size_t c = 0; p->known && c < j->n_cases; c++) {
		cJSON *k = cJSON_CreateObject();

		cJSON_AddStringToObject(k, "case", j->cases[c].name);
		cJSON_AddStringToObject(k, "outcome", p->outcomes.v[c]);
		cJSON_AddStringToObject(k, "detail", p->details.v[c]);
		cJSON_AddItemToArray(cases, k);
	}
	if (j->gpu_time && p->known)
		cJSON_AddItemToObject(o, "gpu_time", perf_json(j, i));
	facts_read(p, &f);
	if (f.stack)
		cJSON_AddStringToObject(o, "replay_stack", f.stack);
	if (f.playback)
		cJSON_AddStringToObject(o, "playback", f.playback);
	facts_release(&f);
	cJSON_AddBoolToObject(o, "replayed", p->replayed);
	return o;
}

char *bisect_answer_json(const struct bisect_job *j)
{
	cleanup_cjson cJSON *o = cJSON_CreateObject();
	cJSON *probes;
	char *txt;

	cJSON_AddStringToObject(o, "id", j->id);
	cJSON_AddStringToObject(o, "verdict", bisect_job_verdict(j));
	cJSON_AddStringToObject(o, "metric", j->gpu_time ? "gpu-time" : "verdict");
	if (j->gpu_time)
		cJSON_AddNumberToObject(o, "samples_per_probe", (double)j->rq->perf_runs);
	cJSON_AddStringToObject(o, "good", j->cands.v[0].ref);
	cJSON_AddStringToObject(o, "bad", j->cands.v[j->cands.n - 1].ref);
	if (j->step == BISECT_FOUND) {
		cJSON_AddItemToObject(o, "last_good", side_json(j, j->state.last_good));
		cJSON_AddItemToObject(o, "first_bad", side_json(j, j->state.first_bad));
	}
	cJSON_AddNumberToObject(o, "replays", j->replays);
	cJSON_AddNumberToObject(o, "reused", j->reused);
	cJSON_AddNumberToObject(o, "candidates", (double)j->cands.n);
	probes = cJSON_AddArrayToObject(o, "probes");
	for (size_t i = 0; i < j->cands.n; i++)
		if (j->probes[i].mark != BISECT_UNKNOWN)
			cJSON_AddItemToArray(probes, side_json(j, i));
	txt = cJSON_Print(o);
	if (!txt)
		xdie("out of memory (cJSON_Print)");
	return txt;
}

/* The bisection's folder as a row of its label's sweeps (no cases), so that
 * `history prune` removes it with the probes' sweeps. */
static int register_folder(struct bisect_job *j, struct error *err)
{
	struct sweep_results none = { 0 };
	cleanup_free char *host = sweep_host_name();
	bool rebuilt;
	struct history_sweep s = {
		.id = j->id, .label = j->rq->label ? j->rq->label : "bisect",
		.state = sweep_state_name(SWEEP_FINISHED), .options = "{}", .tool_version = HRR_DOCKER_REPLAY_VERSION,
		.folder = j->folder, .run_options_fp = j->rq->run_options_fp,
		.started = (long long)time(NULL),
		.finished = (long long)time(NULL), .host = host,
	};

	return history_db_import(j->db, &s, NULL, 0, &none, &rebuilt, err);
}

int bisect_answer_write(struct bisect_job *j, const char *md, const char *json,
			struct error *err)
{
	cleanup_free char *pmd = xasprintf("%s/bisect.md", j->folder);
	cleanup_free char *pj = xasprintf("%s/bisect.json", j->folder);
	bool found = j->step == BISECT_FOUND;
	struct history_bisect b = {
		.id = j->id, .good = j->cands.v[0].ref, .bad = j->cands.v[j->cands.n - 1].ref,
		.last_good = found ? j->cands.v[j->state.last_good].ref : NULL,
		.first_bad = found ? j->cands.v[j->state.first_bad].ref : NULL,
		.verdict = bisect_job_verdict(j), .answer = json, .folder = j->folder,
		.run_options_fp = j->rq->run_options_fp, .finished = (long long)time(NULL),
	};

	if (fs_write_atomic(pmd, md, strlen(md), 0644, err) < 0 ||
	    fs_write_atomic(pj, json, strlen(json), 0644, err) < 0)
		return -1;
	return history_db_record_bisect(j->db, &b, err) < 0 ? -1 : register_folder(j, err);
}
