/* run_job (orchestrator/jobs/run_job.h): one pid directory's lease, replay
 * and --perf samples. */
#include "orchestrator/jobs/run_job.h"

#include <string.h>

#include "orchestrator/lease/run_lease.h"
#include "orchestrator/replay/replay_perf.h"
#include "orchestrator/replay/replay_unit.h"
#include "preflight/manifest.h"

/* The one wait message: which GPU, who holds it, how to bound the wait. */
static void gpu_wait_told(void *ctx, size_t ordinal, const char *gpu, const char *holder)
{
	const struct run_request *rq = ctx;

	events_error(rq->events, "waiting for GPU %zu (%s), held by %s%s", ordinal, gpu, holder,
		     rq->gpu_wait >= 0 ? "" : " (bound it with --gpu-wait S)");
}

/* run --perf N: the samples, once the verdict replay passed and before
 * finding.json is written, so the file has them as stdout does. */
struct run_perf_ctx {
	const struct run_request *rq;
	const struct replay_desc *d;
	struct run_result *res;
};

static void run_perf(void *ctx, struct replay_unit_result *res)
{
	struct run_perf_ctx *p = ctx;
	struct replay_desc t;

	if (!replay_perf_after(res))
		return;
	replay_perf_desc(p->d, &t);
	replay_perf_sample(p->rq->host, &t, (int)p->rq->perf_runs, (int)p->rq->perf_warmup,
			   &p->res->perf);
	res->perf = &p->res->perf;
	p->res->perf_taken = true;
}

void run_result_release(struct run_result *res)
{
	perf_samples_release(&res->perf);
	replay_unit_result_release(&res->unit);
	memset(res, 0, sizeof(*res));
}

int run_job(const struct run_request *rq, struct run_result *res, struct error *err)
{
	struct replay_desc d = rq->desc;
	__attribute__((cleanup(capture_manifest_release))) struct capture_manifest cap;
	struct run_lease_request lq = { .host = rq->host, .pid_dir = d.pid_dir,
					.gpus = rq->gpus, .n_gpus = rq->n_gpus,
					.gpus_from_env = rq->gpus_from_env,
					.gpu_wait = rq->gpu_wait, .sysfs_root = rq->sysfs_root,
					.device_root = rq->device_root,
					.on_wait = gpu_wait_told, .wait_ctx = (void *)rq };
	struct run_lease lease;
	struct run_perf_ctx perf = { .rq = rq, .d = &d, .res = res };

	memset(res, 0, sizeof(*res));
	capture_manifest_load(&cap, lq.pid_dir);
	lq.capture_devices = capture_manifest_devices(&cap);
	/* The GPUs are ours alone for the replay (docs/sweep.md "GPU leases"). */
	if ((res->code = run_lease_take(&lq, &lease, err)))
		return -1;
	d.capture = &cap;
	d.gpus = &lease.choice;
	if (rq->perf_runs) {
		d.on_verdict = run_perf;
		d.on_verdict_ctx = &perf;
	}
	res->code = replay_unit_run(rq->host, &d, &res->unit);
	run_lease_release(&lease);
	return 0;
}
