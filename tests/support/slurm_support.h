/* The single-node Slurm cluster of tests/setup-slurm.sh, for the tests
 * that use it: skip when none answers, run its commands, wait on jobs. */
#ifndef HRR_TESTS_SUPPORT_SLURM_SUPPORT_H
#define HRR_TESTS_SUPPORT_SLURM_SUPPORT_H

#include <stdbool.h>

#include "common/strbuf.h"

/* Bounds for waiting on the scheduler (the test cluster starts a task
 * within seconds); reaching one fails the wait, it times nothing. */
#define SLURM_JOB_BOUND_S 120.0

/* Run argv; its stdout into out (when given); the exit status (-1: not
 * run or timed out). */
int slurm_cmd(const char *const *argv, struct strbuf *out);
/* Skip the test unless a controller answers. Clients read SLURM_CONF,
 * else /etc/slurm/slurm.conf; the set-up's own file is tried last. */
void slurm_need_cluster(void);
/* State of one job or array task ("<job>_<task>") while the controller
 * still holds its record; "" once it is gone. */
void slurm_state_of(const char *spec, struct strbuf *state);
/* Poll until spec is in state want (or, want NULL, until no task of spec
 * is pending or running); false when the bound passed first. */
bool slurm_wait_state(const char *spec, const char *want);
/* The render minor of gres index idx: the idx-th File= line of the
 * gres.conf beside slurm.conf (-1: none). */
int slurm_render_minor_of_index(unsigned idx);

#endif
