/* `run`: one replay per pid directory of the archive, through the replay
 * unit; the findings on stdout as each ends, -o once at the end, the run
 * folders on stderr. */
#include "orchestrator/cmd_setup.h"
#include "common/cleanup.h"
#include "orchestrator/cmd_json.h"
#include "orchestrator/commands.h"
#include "orchestrator/say.h"
#include "orchestrator/signals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_one(struct cmd_env *env, size_t i)
{
	struct replay_desc d;
	struct replay_unit_result res;
	int code;

	cmd_describe(env, i, &d);
	code = replay_unit_run(&env->host, &d, &res);
	if (res.run_dir)
		strvec_push(&env->run_dirs, res.run_dir);
	if (env->o->format == FORMAT_JSON)
		cmd_emit_json(env, res.finding ? cmd_json_finding(res.finding, code) :
				   cmd_json_no_finding(code, &res.failure, res.run_dir));
	else if (res.finding)
		cmd_emit(env, res.finding_markdown, strlen(res.finding_markdown));
	if (res.failure.stage != REPLAY_STAGE_NONE)
		env->failure = res.failure;
	replay_unit_result_release(&res);
	return code;
}

int run_command(struct options *o)
{
	struct cmd_env env;
	int code = 0;

	cmd_env_init(&env, o);
	if ((code = cmd_setup(&env, true))) {
		if (o->format == FORMAT_JSON)
			cmd_emit_json(&env, cmd_json_no_finding(code, &env.failure, NULL));
		goto out;
	}
	for (size_t i = 0; i < env.pid_dirs.n; i++) {
		if (signals_caught()) {
			say_error("interrupted by %s: %zu of %zu processes not replayed",
				  signal_name(signals_caught()), env.pid_dirs.n - i, env.pid_dirs.n);
			code = cmd_worst(code, EXIT_NO_VERDICT);
			break;
		}
		code = cmd_worst(code, run_one(&env, i));
	}
out:
	cmd_output_write(&env);
	for (size_t i = 0; i < env.run_dirs.n; i++)
		fprintf(stderr, "run folder: %s\n", env.run_dirs.v[i]);
	cmd_env_release(&env);
	return code;
}

