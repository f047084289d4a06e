/* The subcommands: one table (orchestrator/cli/commands.c) names each, gives
 * its summary and its entry point; main and `help <command>` find them
 * there. A command's options are the rows of the option table
 * (orchestrator/cli/options_table.h) marked for it. Exit codes: docs/cli.md
 * (orchestrator/replay/replay_unit.h). */
#ifndef HRR_CLI_COMMANDS_H
#define HRR_CLI_COMMANDS_H

#include "orchestrator/cli/command_ids.h"
#include "common/strbuf.h"
#include "orchestrator/replay/replay_unit.h"

struct options;
struct history_db;

struct command_def {
	const char *name;
	enum command id;
	const char *summary;
	/* Parsed options in, exit code out (NULL: help, handled by main). */
	int (*run)(struct options *o);
	/* --help: the usage before the options (from cmd_<name>.c), and what
	 * follows them (NULL: nothing). */
	const char *usage;
	const char *help_tail;
};

/* The row of name, or NULL. */
const struct command_def *command_find(const char *name);
const struct command_def *command_by_id(enum command id);
/* Every row, in the order `--help` lists them. */
const struct command_def *command_table(size_t *n);
/* "run, preflight, ... or gc": the commands, for "use ..." messages. */
void command_names(struct strbuf *out);

/* Each command's usage text, in its cmd_<name>.c. */
extern const char cmd_run_usage[], cmd_replay_help_tail[], cmd_preflight_usage[],
	cmd_analyze_usage[], cmd_gc_usage[], cmd_sweep_usage[], cmd_sweep_help_tail[],
	cmd_history_usage[], cmd_bisect_usage[], cmd_bisect_help_tail[];

/* `history`'s sub-actions, the word after `history` (none: the trend),
 * in cmd_history.c's table: a new one is a row and its function there. */
struct history_action {
	const char *name;
	int (*run)(struct history_db *db, const struct options *o);
	bool writes; /* opens the database read-write (else read-only) */
};
const struct history_action *history_action_find(const char *name);

int run_command(struct options *o);       /* cmd_run.c */
int preflight_command(struct options *o); /* cmd_preflight.c */
int analyze_command(struct options *o);   /* cmd_analyze.c */
int gc_command(struct options *o);        /* cmd_gc.c */
int sweep_command(struct options *o);     /* cmd_sweep.c */
int history_command(struct options *o);   /* cmd_history.c */
int bisect_command(struct options *o);    /* orchestrator/cli/cmd_bisect.c */

#endif
