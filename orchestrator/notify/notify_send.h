/* The I/O of the notifications (docs/sweep.md "Notifications"): each
 * target's document POSTed with libcurl under the schedule of
 * orchestrator/notify/notify.h, and what was delivered to whom recorded
 * in the sweep folder (NOTIFY_RECORD_FILE, the caller's alone), so a
 * `--resume` or a second `--merge` announces nothing twice. A target that
 * cannot be reached is a warning for the caller to print; nothing here
 * changes the sweep's result. */
#ifndef HRR_NOTIFY_NOTIFY_SEND_H
#define HRR_NOTIFY_NOTIFY_SEND_H

#include <stddef.h>

#include "common/strvec.h"
#include "orchestrator/notify/notify.h"

#define NOTIFY_RECORD_FILE "notify.json"

/* What became of the targets (warnings: one line each, the URL shown
 * without its secret parts). */
struct notify_report {
	size_t delivered, failed, unchanged; /* unchanged: nothing new to say */
	struct strvec warnings;
};

/* After the sweep's report r in folder: each target's transitions that
 * the record does not already hold, POSTed; the record updated. The
 * baseline's suspect GPUs are read from its summary.json beside folder
 * (none when it cannot be read: every suspect GPU is then new). */
void notify_sweep(const struct notify_target *targets, size_t n, const struct report *r,
		  const char *folder, struct notify_report *out);
void notify_report_release(struct notify_report *nr);

#endif
