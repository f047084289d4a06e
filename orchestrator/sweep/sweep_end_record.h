/* How a sweep ended, kept in its folder (docs/sweep.md "The sweep
 * folder"): SWEEP_END_FILE, {"state": "finished"|"partial"|"interrupted",
 * "finished": epoch seconds}, written once the sweep's reports are. A later
 * sweep of the label that finds the folder unknown to its history reads it
 * to recover the sweep, instead of reading the reports back. */
#ifndef HRR_SWEEP_SWEEP_END_RECORD_H
#define HRR_SWEEP_SWEEP_END_RECORD_H

#include "common/error.h"
#include "orchestrator/sweep/sweep_status.h"

#define SWEEP_END_FILE "end.json"

int sweep_end_record_write(const char *folder, enum sweep_state state, long long finished,
			   struct error *err) __attribute__((warn_unused_result));
/* ERR_NOT_FOUND: no record (the sweep was killed, or its folder is from
 * before the record was kept); ERR_DATA: not a record this writes. */
int sweep_end_record_read(const char *folder, enum sweep_state *state, long long *finished,
			  struct error *err) __attribute__((warn_unused_result));

#endif
