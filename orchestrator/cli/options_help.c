/* --help of each command: its usage (from its cmd_<name>.c, through the
 * command table), then its options generated from the option table, so that
 * the help cannot drift from what is parsed. */
#include "orchestrator/cli/options_table.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"

#include <stdio.h>

static void add_options(enum command cmd, struct strbuf *out)
{
	for (size_t i = 0; i < option_count(); i++) {
		const struct option_def *d = option_at(i);
		char left[64];

		if (!option_applies(d, cmd))
			continue;
		if (d->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->short_name, d->name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		strbuf_addf(out, "  %-32s %s", left, d->help);
		if (d->env)
			strbuf_addf(out, d->arg ? " [%s]" : " [%s=1]", d->env);
		strbuf_addch(out, '\n');
	}
}

void options_help(enum command cmd, struct strbuf *out)
{
	const struct command_def *c = command_by_id(cmd);

	if (!c || !c->usage)
		c = command_by_id(CMD_RUN);
	strbuf_addstr(out, c->usage);
	if (c->id == CMD_RUN) {
		size_t n;
		const struct command_def *all = command_table(&n);

		strbuf_addstr(out, "\nCommands (hrr-docker-replay help <command> for each):\n");
		for (size_t i = 0; i < n; i++)
			strbuf_addf(out, "  %-10s %s\n", all[i].name, all[i].summary);
		strbuf_addstr(out, "\nOptions of run (env twins in brackets; the flag wins):\n");
	} else {
		strbuf_addstr(out, "\nOptions:\n");
	}
	add_options(c->id, out);
	if (c->help_tail)
		strbuf_addstr(out, c->help_tail);
}
