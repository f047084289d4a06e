/* The terminal's sink for what the library says (common/events.h): the
 * same lines, prefixes (common/say.h), verbosity rules and prompts the
 * commands always printed. Only the command layer prints (docs/design.md
 * "Only the outermost caller prints"); every command hands this sink down. */
#ifndef HRR_CLI_TERM_EVENTS_H
#define HRR_CLI_TERM_EVENTS_H

#include "common/events.h"

/* The process's one terminal sink: stderr for what is said, stdout for
 * the command's own answers, stdin for a confirmation on a terminal. */
const struct job_events *term_events(void);

#endif
