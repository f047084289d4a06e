/* What the files of a bisection share (orchestrator/jobs/bisect_job.h is
 * its API): the job, its candidates' probes and the cases, the search, the
 * probe, the answer. */
#ifndef HRR_JOBS_BISECT_DRIVER_H
#define HRR_JOBS_BISECT_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/bisect/candidates.h"
#include "orchestrator/bisect/perf_mark.h"
#include "orchestrator/bisect/plan.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "docker/engine.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/history/history_reuse.h"
#include "orchestrator/jobs/bisect_job.h"

struct bisect_case {
	char *name, *pid_dir, *digest;
};

/* What one candidate said, per case (index as the cases). */
struct bisect_probe {
	char *image_id;
	bool pulled;          /* pulled for the bisection: removed at the end */
	bool known;           /* every case has a result */
	bool replayed;        /* by this invocation (else from the history) */
	enum bisect_mark mark;
	struct strvec outcomes, details; /* "MAF", "memory-access-fault in k()" */
	char *folder, *run_dir;          /* of the first case's result */
	struct bisect_perf *perf;        /* --metric gpu-time: per case */
};

struct bisect_job {
	const struct bisect_request *rq;
	struct engine *engine;
	struct history_db *db;
	/* Where the probes run, which results are reused by (reuse_gfx
	 * and reuse_host its strings). */
	struct history_reuse_on reuse_on;
	char reuse_gfx[16], *reuse_host;
	struct bisect_candidates cands;
	struct bisect_probe *probes;
	struct bisect_case *cases;
	size_t n_cases;
	struct strvec archives; /* what the probes replay: the cases' pid dirs */
	bool gpu_time;        /* --metric gpu-time */
	struct perf_rule rule;
	char *id, *folder;
	unsigned replays, reused;
	enum bisect_step step;
	struct bisect_state state;
	bool interrupted;
	char *error;          /* why a candidate has no result */
};

void bisect_job_release(struct bisect_job *j);
/* The cases (--archive, or --sweep's plan filtered by --case), digests. */
int bisect_cases_load(struct bisect_job *j, const char *workdir, struct error *err)
	__attribute__((warn_unused_result));
/* Search until an answer; how it ended. Progress to the request's sink. */
enum bisect_end bisect_search(struct bisect_job *j);
/* Remove what was pulled only for it (not with --keep-images). */
void bisect_remove_pulled(struct bisect_job *j);

/* orchestrator/jobs/bisect_probe.c: replay candidate i as a one-image sweep in a child
 * process; *interrupted when Ctrl-C stopped it. */
int bisect_probe_run(struct bisect_job *j, size_t i, struct error *err)
	__attribute__((warn_unused_result));

/* orchestrator/jobs/bisect_answer.c: the answer in markdown and JSON, written to the
 * bisection's folder and recorded in the history. */
void bisect_answer_markdown(const struct bisect_job *j, struct strbuf *out);
char *bisect_answer_json(const struct bisect_job *j);
int bisect_answer_write(struct bisect_job *j, const char *md, const char *json,
			struct error *err)
	__attribute__((warn_unused_result));
const char *bisect_step_verdict(enum bisect_step s);
/* The verdict as the job's metric words it ("no-clear-change", "unclear"
 * for gpu-time). */
const char *bisect_job_verdict(const struct bisect_job *j);

/* orchestrator/jobs/bisect_perf_answer.c: --metric gpu-time's words. The
 * progress line of candidate i (to the sink): its telling case's status,
 * ratio and interval. */
void bisect_perf_progress(const struct bisect_job *j, size_t i);
/* One case's comparison in words: "slower: ratio 1.101 [1.092, 1.110],
 * p = 0.0079, median 44.0 ms against 40.0 ms (5 against 5 samples)". */
void bisect_perf_words(const struct bisect_perf *c, struct strbuf *out);

#endif
