/* A sweep's work (docs/sweep.md, docs/slurm.md), from a typed request
 * (orchestrator/jobs/sweep_request.h): plan or resume, run this host's
 * cases or a cluster task's shard, or submit them to a backend; merge a
 * cluster sweep; finish (orchestrator/jobs/sweep_finish.h). What it has
 * to say goes to the request's events; how it ended comes back typed. */
#ifndef HRR_JOBS_SWEEP_JOB_H
#define HRR_JOBS_SWEEP_JOB_H

#include <stddef.h>

#include "common/strbuf.h"
#include "orchestrator/jobs/sweep_end.h"
#include "orchestrator/jobs/sweep_request.h"

/* A new sweep, a resume (req->resume), a cluster task (req->have_shard
 * under a backend's task) or a submission (req->backend names one). */
enum sweep_end sweep_job_run(const struct sweep_request *req);
/* The merge job (docs/slurm.md): every results file of sweep into the
 * database and the reports; cases without a result are missing. */
enum sweep_end sweep_job_merge(const struct sweep_request *req, const char *sweep);

/* A finished or running sweep read back, for `sweep --status`. */
struct sweep_job_status {
	char *id, *label;
	size_t planned, done, lines;  /* cases, cases with a result, results lines */
	struct strbuf backends;       /* the backends' own words on it */
};

/* 0, or how it ended (said through req->events) with *st released. */
enum sweep_end sweep_job_status(const struct sweep_request *req, const char *sweep,
				struct sweep_job_status *st);
void sweep_job_status_release(struct sweep_job_status *st);

#endif
