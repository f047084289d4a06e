/* Whether the image's hrr-playback knows the --playback-arg flags asked
 * for, before the replay: a build skips a flag it does not know, and an
 * older one then reads the flag's value as the archive, so a flag its
 * --help does not list is refused (docs/cli.md). Internal to the replay
 * unit. */
#ifndef HRR_REPLAY_PLAYBACK_HELP_H
#define HRR_REPLAY_PLAYBACK_HELP_H

#include "common/error.h"
#include "common/strvec.h"
#include "orchestrator/replay/unit_run.h"

/* At most this much of --help is read (and kept in the run folder). */
#define PLAYBACK_HELP_MAX (64 * 1024)

/* Run `hrr-playback --help` in a one-off container like the replay's,
 * keep its output as diagnostics/hrr-playback-help.txt and put the
 * requested flags it does not list into out. < 0 when it could not run
 * (the caller notes it; nothing is concluded). */
int unit_playback_flags_unlisted(const struct unit_run *u, struct strvec *out,
				 struct error *err) __attribute__((warn_unused_result));

/* The check before the replay: 0 when every --playback-arg flag is
 * listed (or nothing is known: --help could not run, said as a note);
 * ERR_USAGE naming the flags the image's hrr-playback does not list. */
int unit_playback_flags_check(const struct unit_run *u, struct error *err)
	__attribute__((warn_unused_result));

#endif
