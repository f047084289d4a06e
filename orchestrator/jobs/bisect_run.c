/* bisect_run (orchestrator/jobs/bisect_job.h): a bisection set up
 * (candidates, cases, history, engine, folder), search, answer, and the
 * images pulled only for it removed. */
#include "orchestrator/jobs/bisect_job.h"
#include "orchestrator/jobs/bisect_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/replay/run_folder.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "orchestrator/sweep/sweep_plan.h"
#include "preflight/topology.h"

void bisect_result_release(struct bisect_result *res)
{
	free(res->markdown);
	free(res->json);
	memset(res, 0, sizeof(*res));
}

static int load_candidates(struct bisect_job *j, struct error *err)
{
	const struct bisect_request *rq = j->rq;
	const struct bisect_candidates *c = &j->cands;

	if (rq->images_file)
		return bisect_candidates_from_file(&j->cands, rq->images_file, rq->good, rq->bad,
						   err);
	/* the engine's own tags of the repository are candidates too */
	if (engine_open(&j->engine, NULL, err) < 0 ||
	    bisect_candidates_from_tags(&j->cands, j->engine, rq->good, rq->bad, rq->tag_pattern,
					err) < 0)
		return -1;
	if (c->note)
		events_stage(rq->events, "%s", c->note);
	events_stage(rq->events, "bisect: %zu candidate tag(s) of %s (%u registry request(s), %zu "
		     "tag(s) only on this engine)", c->n, rq->good, c->registry_requests,
		     c->local_only);
	return 0;
}

/* What the probes' results will say of where they ran, as a sweep
 * records it (case_result_locate): the pool's GPU product when it has
 * one, and the host. A result is reused from there (history_reuse.h). */
static void reuse_on_set(struct bisect_job *j, const char *host)
{
	const struct bisect_request *rq = j->rq;
	struct gpu_topology t = { 0 };
	const struct gpu_node *g = NULL;

	j->reuse_host = xstrdup(host);
	j->reuse_on = (struct history_reuse_on){ .device_id = -1, .host = j->reuse_host };
	if (rq->sysfs_root && gpu_topology_read(&t, rq->sysfs_root, ERROR_DISCARD) == 0)
		g = gpu_topology_one_product(&t, rq->gpus, rq->n_gpus);
	if (g) {
		snprintf(j->reuse_gfx, sizeof(j->reuse_gfx), "%s", g->arch);
		j->reuse_on.gfx = j->reuse_gfx;
		j->reuse_on.device_id = g->device_id ? (long)g->device_id : -1;
	}
	gpu_topology_release(&t);
}

/* Everything before the search: candidates, cases, history, engine, folder. */
static int set_up(struct bisect_job *j, struct error *err)
{
	const struct bisect_request *rq = j->rq;
	cleanup_free char *wd = NULL, *dflt = history_db_default_path(), *host = NULL;
	char rid[7];

	if (workdir_prepare(rq->workdir, rq->archives, rq->n_archives, &wd, err) < 0 ||
	    load_candidates(j, err) < 0 || bisect_cases_load(j, wd, err) < 0)
		return -1;
	j->gpu_time = rq->gpu_time;
	j->rule = rq->rule;
	if (history_db_open(&j->db, rq->db ? rq->db : dflt, err) < 0 ||
	    (!j->engine && engine_open(&j->engine, NULL, err) < 0))
		return -1;
	run_id_new(rid);
	/* "bisection-…": told apart from its probes' sweeps ("bisect-…"). */
	host = sweep_host_name();
	reuse_on_set(j, host);
	j->id = sweep_id_make("bisection", host, time(NULL), (unsigned)strtoul(rid, NULL, 16));
	if (sweep_folder_create(wd, j->id, &j->folder, err) < 0)
		return -1;
	j->probes = xcalloc(j->cands.n + 1, sizeof(*j->probes));
	for (size_t i = 0; i < j->cands.n; i++) {
		strvec_init(&j->probes[i].outcomes);
		strvec_init(&j->probes[i].details);
		if (j->gpu_time)
			j->probes[i].perf = xcalloc(j->n_cases, sizeof(*j->probes[i].perf));
	}
	return 0;
}

/* The answer, kept in the bisection's folder and the history, and handed
 * back for the command to show. */
static void answer(struct bisect_job *j, struct bisect_result *res)
{
	struct strbuf md = STRBUF_INIT;
	struct error err;

	bisect_answer_markdown(j, &md);
	res->markdown = strbuf_detach(&md, NULL);
	res->json = bisect_answer_json(j);
	if (bisect_answer_write(j, res->markdown, res->json, &err) < 0)
		events_warning(j->rq->events, "bisect: the answer could not be kept: %s", err.msg);
}

int bisect_run(const struct bisect_request *rq, struct bisect_result *res, struct error *err)
{
	struct bisect_job j = { .rq = rq };
	int rc = 0;

	memset(res, 0, sizeof(*res));
	strvec_init(&j.archives);
	if (set_up(&j, err) < 0) {
		rc = -1;
		goto out;
	}
	events_stage(rq->events, "bisect: %zu candidate(s) from %s to %s, %zu case(s); folder %s",
		     j.cands.n, j.cands.v[0].ref, j.cands.v[j.cands.n - 1].ref, j.n_cases,
		     j.folder);
	res->end = bisect_search(&j);
	res->interrupted = j.interrupted;
	if (!j.interrupted)
		answer(&j, res);
	if (!rq->keep_images && j.engine)
		bisect_remove_pulled(&j);
out:
	if (j.engine)
		engine_close(j.engine);
	history_db_close(j.db);
	bisect_job_release(&j);
	return rc;
}
