/* The records of one replay in its run folder: run.json (what ran, where,
 * how long, how it ended), preflight.md, finding.json and finding.md.
 * Written atomically; a record that cannot be written is a warning of the
 * result (the caller says it) and never changes the verdict. Internal to
 * the replay unit. */
#ifndef HRR_REPLAY_REPLAY_RECORDS_H
#define HRR_REPLAY_REPLAY_RECORDS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "preflight/preflight.h"
#include "orchestrator/replay/unit_run.h"

/* <run_dir>/run.json; a failure goes to u->warnings. */
void records_write_run_json(const struct unit_run *u);
/* <run_dir>/preflight.md; the text is also returned (caller frees). */
char *records_write_preflight(const char *run_dir, const struct preflight_report *r,
			      struct strvec *warnings);
/* <run_dir>/finding.md and finding.json. */
void records_write_finding(const char *run_dir, const char *markdown, const char *json,
			   struct strvec *warnings);

#endif
