/* hrr-docker-replay: replay HRR GPU captures inside their container image. */
#include "common/strbuf.h"
#include "orchestrator/cli/term_events.h"
#include "orchestrator/cli/cmd_json.h"
#include "orchestrator/cli/commands.h"
#include "docker/engine_service.h"
#include "orchestrator/cli/options.h"
#include "common/say.h"
#include "common/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static const char *env_lookup(const char *name, void *ud)
{
	(void)ud;
	return getenv(name);
}

/* `help [command]` and `<command> --help`. */
static int print_help(enum command cmd, const char *topic)
{
	struct strbuf help = STRBUF_INIT;

	if (topic) {
		const struct command_def *c = command_find(topic);

		if (!c) {
			command_names(&help);
			say_error("help: unknown command '%s'; use %s", topic, help.buf);
			strbuf_release(&help);
			return EXIT_USAGE;
		}
		cmd = c->id;
	}
	options_help(cmd, &help);
	fputs(help.buf, stdout);
	strbuf_release(&help);
	return 0;
}

/* The command, inside a private Podman service when --engine asks for one. */
static int run_with_engine(const struct command_def *cmd, struct options *o)
{
	struct engine_service svc = { 0 };
	struct error err;
	int code;

	if (o->engine_mode == ENGINE_MODE_PODMAN_SERVICE && o->command != CMD_ANALYZE) {
		if (engine_service_start(&svc, term_events(), o->verbosity, &err) < 0) {
			say_error("%s", err.msg);
			return EXIT_NO_VERDICT;
		}
	}
	code = cmd && cmd->run ? cmd->run(o) : run_command(o);
	engine_service_stop(&svc);
	return code;
}

int main(int argc, char **argv)
{
	const struct command_def *cmd;
	struct options o;
	struct error err;
	int code;

	options_init(&o);
	if (options_parse(&o, argc, argv, env_lookup, NULL, environ, &err) < 0) {
		options_release(&o);
		return cmd_usage_error(argc, argv, err.msg);
	}
	cmd = command_by_id(o.command);
	if (o.command == CMD_VERSION) {
		printf("hrr-docker-replay %s\n", HRR_DOCKER_REPLAY_VERSION);
		options_release(&o);
		return 0;
	}
	if (o.command == CMD_HELP || o.want_help) {
		code = print_help(o.command, o.command == CMD_HELP && argc > 2 ? argv[2] : NULL);
		options_release(&o);
		return code;
	}
	code = run_with_engine(cmd, &o);
	options_release(&o);
	return code;
}
