/* `--notify` for a sweep (docs/sweep.md "Notifications"): the targets
 * recorded in the sweep folder's private file (so a resume and the Slurm
 * merge job announce the sweep it started), and the announcement after
 * its reports, whose warnings this layer prints. */
#ifndef HRR_CLI_SWEEP_NOTIFY_H
#define HRR_CLI_SWEEP_NOTIFY_H

#include <stddef.h>

#include "common/strvec.h"
#include "orchestrator/cli/sweep_options.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/notify/notify.h"

struct sweep_notify {
	struct notify_target *targets;
	size_t n;
	struct strvec strings;
	const char *folder;
};

/* What sweep_meta.notify records of so's --notify (NULL: none). */
char *sweep_notify_record(const struct sweep_options *so);
/* The targets: the invocation's --notify when it gave any, else those
 * the sweep recorded (JSON text, or NULL). */
void sweep_notify_init(struct sweep_notify *sn, const struct sweep_options *so,
		       const char *recorded, const char *folder);
/* The known-issues file's per-owner targets (owners: NAME: notify:), each
 * taking only its owner's known failures; k may be NULL. Read at the
 * sweep's end from the reviewed file, so nothing of them is recorded. */
void sweep_notify_add_owners(struct sweep_notify *sn, const struct known_issues *k);
/* A sweep_finish.then: announce r's transitions, warn about failures. */
void sweep_notify_after(void *ctx, const struct report *r);
void sweep_notify_release(struct sweep_notify *sn);

#endif
