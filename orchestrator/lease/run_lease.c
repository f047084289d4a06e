#include "orchestrator/lease/run_lease.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "common/signals.h"
#include "orchestrator/lease/gpu_holders.h"

#define POLL_NS 200000000L

struct picker {
	const struct run_lease_request *rq;
	char (*names)[GPU_LEASE_NAME_MAX];
	struct holders_seen held;
	struct gpu_lease_opts lo;
	char *owner;
	bool reported;
};

/* The one wait report, passed on to the caller's on_wait with the ordinal. */
static void report_wait(void *ctx, const char *gpu, const char *holder)
{
	struct picker *p = ctx;

	if (p->reported || !p->rq->on_wait)
		return;
	p->reported = true;
	for (size_t g = 0; g < p->rq->host->topo.n_gpus; g++)
		if (!strcmp(p->names[g], gpu))
			p->rq->on_wait(p->rq->wait_ctx, g, gpu, holder);
}

/* The lowest `need` GPUs nobody holds now, else the lowest `need`. */
static void pick(struct picker *p, size_t need, int *out, const char **names)
{
	const char *dir = gpu_lease_dir(NULL);
	size_t got = 0, n = p->rq->host->topo.n_gpus;
	char holder[GPU_LEASE_OWNER_MAX];

	for (size_t g = 0; g < n && got < need; g++)
		if (!gpu_lease_probe(dir, p->names[g], NULL, 0) &&
		    !holders_held_by_container(&p->held, p->names[g], holder, sizeof(holder)))
			out[got++] = (int)g;
	if (got < need)
		for (got = 0; got < need; got++)
			out[got] = (int)got;
	for (size_t k = 0; k < need; k++)
		names[k] = p->names[out[k]];
}

/* Without --gpu: try the lowest free set, re-chosen until one is taken,
 * since another GPU may free up before the one first waited for. */
static int take_auto(struct picker *p, size_t need, struct run_lease *l, struct error *err)
{
	double start = monotonic_now(), bound = p->rq->gpu_wait;
	const char *names[GPU_MAX];

	p->lo.wait_s = 0;
	for (;;) {
		pick(p, need, l->choice.gpus, names);
		if (gpu_lease_acquire(&l->lease, names, need, &p->lo, err) == 0) {
			l->choice.n = need;
			return 0;
		}
		if (err->kind != ERR_BUSY)
			return -1;
		if (bound >= 0 && monotonic_now() - start >= bound)
			return -1;
		if (signals_caught())
			return error_set(err, ERR_CANCELLED, 0, "interrupted waiting for a GPU");
		report_wait(p, names[l->lease.busy], l->lease.busy_holder);
		nanosleep(&(struct timespec){ 0, POLL_NS }, NULL);
	}
}

int run_lease_take(const struct run_lease_request *rq, struct run_lease *l, struct error *err)
{
	const struct gpu_topology *topo = &rq->host->topo;
	struct picker p = { .rq = rq };
	int rc;

	memset(l, 0, sizeof(*l));
	if (rq->n_gpus && gpu_choice_named(&l->choice, rq->host->have_topo ? topo : NULL, rq->gpus,
					   rq->n_gpus, rq->gpus_from_env) < 0)
		return 0;
	if (!topo->n_gpus)
		return 0; /* the unit reports the missing GPUs */
	p.names = xcalloc(topo->n_gpus, sizeof(*p.names));
	holders_lease_names(topo, rq->sysfs_root, p.names);
	p.held = (struct holders_seen){ .engine = rq->host->engine, .topo = topo,
				      .device_root = rq->device_root, .names = p.names,
				      .fetched = -1e9 };
	p.owner = xasprintf("%s run of %s", rq->host->owner, rq->pid_dir);
	p.lo = (struct gpu_lease_opts){ .owner = p.owner, .wait_s = rq->gpu_wait,
					.held = holders_held_by_container, .held_ctx = &p.held,
					.on_wait = report_wait, .wait_ctx = &p,
					.cancelled = signals_caught };
	if (rq->n_gpus) {
		const char *names[GPU_MAX];

		for (size_t k = 0; k < l->choice.n; k++)
			names[k] = p.names[l->choice.gpus[k]];
		rc = gpu_lease_acquire(&l->lease, names, l->choice.n, &p.lo, err);
	} else {
		rc = take_auto(&p, gpu_choice_need(rq->capture_devices, topo), l, err);
	}
	free(p.names);
	free(p.owner);
	if (rc == 0)
		return 0;
	l->choice.n = 0;
	return err->kind == ERR_BUSY ? EXIT_GPU_BUSY
	       : err->kind == ERR_USAGE ? EXIT_USAGE : EXIT_NO_VERDICT;
}

void run_lease_release(struct run_lease *l)
{
	gpu_lease_release(&l->lease);
	l->choice.n = 0;
}
