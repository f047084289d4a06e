/* A sweep's job up to its cases: the sweep planned or read back, its
 * rules and database, its host and GPU pool, each image set up once. */
#ifndef HRR_JOBS_SWEEP_OPEN_H
#define HRR_JOBS_SWEEP_OPEN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "orchestrator/jobs/sweep_state.h"

/* A new sweep planned, or req->resume's read back, its run options
 * adopted (j->set filled). */
int sweep_open_prepare(struct sweep_work *j, struct error *err) __attribute__((warn_unused_result));
/* The known-issues file: the one named now, else the sweep's, else the
 * one beside the database. A bad file is ERR_USAGE. */
int sweep_open_known(struct sweep_work *j, struct error *err) __attribute__((warn_unused_result));
/* The history database this sweep uses (read-write: its rules too). */
int sweep_open_db(struct sweep_work *j, bool read_only, struct history_db **db,
		  struct error *err) __attribute__((warn_unused_result));
/* A new sweep: how long each case ran last (none when no history yet). */
void sweep_open_durations(struct sweep_work *j);
/* The host: 0, or the replay's exit code (said through the events). */
int sweep_open_host(struct sweep_work *j);
/* --gpus against the host, once (ERR_USAGE: a GPU it lacks). */
int sweep_open_pool(const struct sweep_work *j, struct error *err)
	__attribute__((warn_unused_result));
/* Each image pinned (resolved, not pulled) unless plan.json has its pin;
 * the set-up its cases share (j->image, j->sh) readied for sweep_run. */
void sweep_open_images(struct sweep_work *j);
/* A new sweep under --image-budget: an image its registry says is larger
 * than the budget is ERR_USAGE, naming both sizes, before anything runs. */
int sweep_open_budget_check(const struct sweep_work *j, struct error *err)
	__attribute__((warn_unused_result));
/* A finished or running sweep read back (--merge, --status): how many
 * cases have a result, how many results lines there are. */
enum sweep_end sweep_open_read_back(struct sweep_work *j, const char *sweep, size_t *done,
				    size_t *lines);
void sweep_open_release(struct sweep_work *j);

#endif
