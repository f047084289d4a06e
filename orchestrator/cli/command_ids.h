/* The subcommands' ids: the command table (orchestrator/cli/commands.c) gives each its
 * name and entry point, the option table (its slices,
 * orchestrator/cli/options_table.h) marks the rows each takes. Its own header so that
 * neither table includes the other's. */
#ifndef HRR_CLI_COMMAND_IDS_H
#define HRR_CLI_COMMAND_IDS_H

enum command {
	CMD_RUN = 0,
	CMD_PREFLIGHT,
	CMD_ANALYZE,
	CMD_GC,
	CMD_HELP,
	CMD_VERSION,
	CMD_SWEEP,
	CMD_HISTORY,
	CMD_BISECT,
};

#endif
