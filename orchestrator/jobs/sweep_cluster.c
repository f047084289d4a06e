#include "orchestrator/jobs/sweep_cluster.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/sweep/suspect_nodes.h"

enum sweep_end sweep_cluster_task_end(const struct sweep_work *j,
				      const struct sweep_run_outcome *out)
{
	const char *why = out->interrupted ? "; interrupted"
			  : out->out_of_time
				  ? "; stopped: the job's time left is shorter than the next case's timeout"
				  : "";

	events_stage(j->ev, "shard %u/%u of sweep %s: %zu result(s) recorded%s", j->req->shard_i,
		     j->req->shard_n, j->meta.id, out->recorded, why);
	return out->interrupted || out->write_failed ? SWEEP_END_INFRA : SWEEP_END_OK;
}

bool sweep_cluster_task_may_start(void *ctx, const struct sweep_case *sc)
{
	const struct sweep_work *j = ctx;
	long timeout = sc->timeout >= 0 ? sc->timeout : j->set.timeout_s;

	return timeout <= 0 || j->task_of->task_may_start(timeout, sc->name, j->ev);
}

int sweep_cluster_task_pool(struct sweep_work *j, struct error *err)
{
	int ord[GPU_MAX];
	size_t n;

	if (j->task_of->task_pool(&j->host.topo, ord, GPU_MAX, &n, j->ev, err) < 0)
		return -1;
	memcpy(j->meta.gpus, ord, n * sizeof(int));
	j->meta.n_gpus = n;
	j->meta.jobs = 0;
	return 0;
}

/* A resumed cluster sweep keeps off the nodes whose GPUs its results make
 * suspect (docs/slurm.md); the backend says it in its own words. */
static void suspect_hosts(struct sweep_work *j, struct strvec *hosts)
{
	struct sweep_results rs = { 0 };
	cleanup_strvec struct strvec why = STRVEC_INIT;

	if (!j->resume || sweep_results_load(j->folder, &rs, ERROR_DISCARD) < 0)
		return;
	sweep_suspect_nodes(&rs, hosts, &why);
	sweep_results_release(&rs);
	for (size_t i = 0; i < why.n; i++)
		events_warning(j->ev, "suspect: %s", why.v[i]);
	for (size_t i = 0; i < hosts->n; i++)
		events_warning(j->ev, "resubmitting without node %s", hosts->v[i]);
}

enum sweep_end sweep_cluster_submit(struct sweep_work *j, const size_t *cases, size_t n)
{
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cleanup_strvec struct strvec avoid = STRVEC_INIT;
	struct sweep_backend_submission s = {
		.meta = &j->meta, .folder = j->folder, .workdir = j->host.workdir,
		.options = j->req->backend, .avoid_hosts = &avoid, .cases = cases,
		.n_cases = n, .bin = exe, .wait = j->req->wait, .events = j->ev,
	};
	struct error err;
	int code;

	exe[len > 0 ? len : 0] = '\0';
	if (len <= 0)
		snprintf(exe, sizeof(exe), "hrr-docker-replay");
	suspect_hosts(j, &avoid);
	if (j->submit_to->submit(&s, &code, &err) < 0)
		return sweep_state_fail(j, &err, SWEEP_END_INFRA);
	if (!j->req->wait)
		return SWEEP_END_OK;
	cleanup_free char *summary = xasprintf("%s/summary.%s", j->folder,
					       j->req->json ? "json" : "md");
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	if (fs_read_small_file(summary, 64u << 20, &text, ERROR_DISCARD) == 0)
		fwrite(text.buf, 1, text.len, j->req->shown_to);
	return sweep_end_of_code(code);
}
