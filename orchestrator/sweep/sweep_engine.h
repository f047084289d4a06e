/* An engine that stopped answering mid-sweep (a restart, a package
 * upgrade; docs/sweep.md "Every case ends exactly once"): the sweep waits
 * for it rather than turning every case that follows into an error. */
#ifndef HRR_SWEEP_SWEEP_ENGINE_H
#define HRR_SWEEP_SWEEP_ENGINE_H

#include <stdbool.h>

#include "common/events.h"
#include "docker/engine.h"

/* How long a sweep waits for an engine that does not answer before it
 * lets the cases fail as errors. */
#define SWEEP_ENGINE_WAIT_S 600

/* Whether e answers; when it does not, say so once (a warning to ev) and
 * ping it once a second for at most max_s seconds. */
bool sweep_engine_wait(struct engine *e, const struct job_events *ev, int max_s);

#endif
