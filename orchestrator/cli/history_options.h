/* The history's slice of the option table (its rows and their apply
 * code, orchestrator/cli/history_options.c): --case, --last, --keep-last, and the words
 * after `history` (an action of the history_actions table, orchestrator/cli/commands.h).
 * What they set lives in struct sweep_options (orchestrator/cli/sweep_options.h). */
#ifndef HRR_CLI_HISTORY_OPTIONS_H
#define HRR_CLI_HISTORY_OPTIONS_H

#include "common/error.h"
#include "orchestrator/cli/sweep_options.h"

/* argv[1] is "history": take its action word, and `site`'s DIR, from
 * argv. The index of the first option in argv, or -1 on a usage error.
 * `history prune --keep N`: --keep becomes --keep-last in argv, since
 * --keep is also run's flag. */
int history_options_words(struct sweep_options *s, int argc, char **argv, struct error *err)
	__attribute__((warn_unused_result));
/* The checks that need every option of a history command. */
int history_options_validate(const struct sweep_options *s, struct error *err)
	__attribute__((warn_unused_result));

#endif
