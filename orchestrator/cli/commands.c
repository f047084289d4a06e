#include "orchestrator/cli/commands.h"

#include <string.h>

/* Adding a subcommand: a row here, an enum command value, its options
 * marked for it in the option table, its cmd_<name>.c with its entry point
 * and usage (docs/design.md). */
static const struct command_def commands[] = {
	{ "run", CMD_RUN, "replay a capture in its image (the default command)", run_command,
	  cmd_run_usage, cmd_replay_help_tail },
	{ "preflight", CMD_PREFLIGHT, "check that a capture can replay here, without replaying",
	  preflight_command, cmd_preflight_usage, cmd_replay_help_tail },
	{ "analyze", CMD_ANALYZE, "classify existing replay logs offline (no engine, no GPU)",
	  analyze_command, cmd_analyze_usage, NULL },
	{ "sweep", CMD_SWEEP, "replay many captures in many images: history, JUnit, a report",
	  sweep_command, cmd_sweep_usage, cmd_sweep_help_tail },
	{ "bisect", CMD_BISECT, "find the first image a case changed in, between a good and a bad one",
	  bisect_command, cmd_bisect_usage, cmd_bisect_help_tail },
	{ "history", CMD_HISTORY, "what past sweeps said per case; prune old sweeps; a static site",
	  history_command, cmd_history_usage, NULL },
	{ "gc", CMD_GC, "remove containers left by runs that died", gc_command, cmd_gc_usage,
	  NULL },
	{ "help", CMD_HELP, "print the help of a command: help <command>", NULL, NULL, NULL },
};

const struct command_def *command_table(size_t *n)
{
	*n = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

const struct command_def *command_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

const struct command_def *command_by_id(enum command id)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].id == id)
			return &commands[i];
	return NULL;
}

void command_names(struct strbuf *out)
{
	size_t n = sizeof(commands) / sizeof(commands[0]), last = 0;

	for (size_t i = 0; i < n; i++)
		if (commands[i].run)
			last = i;
	for (size_t i = 0, k = 0; i < n; i++) {
		if (!commands[i].run)
			continue;
		strbuf_addf(out, "%s%s", k++ ? (i == last ? " or " : ", ") : "", commands[i].name);
	}
}
