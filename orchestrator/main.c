/* hrr-docker-replay: replay HRR GPU captures inside their container image. */
#include "common/strbuf.h"
#include "orchestrator/cmd_analyze.h"
#include "orchestrator/options.h"
#include "orchestrator/run.h"
#include "orchestrator/say.h"
#include "orchestrator/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static const char *env_lookup(const char *name, void *ud)
{
	(void)ud;
	return getenv(name);
}

int main(int argc, char **argv)
{
	struct options o;
	struct error err;
	int code;

	if (argc > 1 && !strcmp(argv[1], "analyze"))
		return cmd_analyze(argc - 1, argv + 1);

	options_init(&o);
	if (options_parse(&o, argc, argv, env_lookup, NULL, environ, &err) < 0) {
		say_error("%s", err.msg);
		options_release(&o);
		return EXIT_USAGE;
	}
	if (o.command == CMD_VERSION) {
		printf("hrr-docker-replay %s\n", HRR_DOCKER_REPLAY_VERSION);
		options_release(&o);
		return 0;
	}
	if (o.command == CMD_HELP || o.want_help) {
		struct strbuf help = STRBUF_INIT;

		options_help(o.command, &help);
		fputs(help.buf, stdout);
		strbuf_release(&help);
		options_release(&o);
		return 0;
	}
	switch (o.command) {
	case CMD_PREFLIGHT:
		code = preflight_command(&o);
		break;
	case CMD_GC:
		code = gc_command(&o);
		break;
	default:
		code = run_command(&o);
		break;
	}
	options_release(&o);
	return code;
}
