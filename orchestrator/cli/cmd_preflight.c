/* `preflight`: the checks of every pid directory, without replaying and
 * without a run folder; the reports on stdout. */
#include "orchestrator/cli/cmd_setup.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/cli/cmd_json.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "preflight/preflight_json.h"

#include <stdio.h>
#include <string.h>

const char cmd_preflight_usage[] =
	"Usage: hrr-docker-replay preflight --image IMAGE --archive PATH [options]\n\n"
	"Checks whether the archive can replay faithfully in IMAGE on this host\n"
	"(GPU count, GPU ordinals, GPU architecture, HIP and comgr versions) and\n"
	"prints the report. Never asks, never replays. Takes every option of a\n"
	"run; those that do not apply are accepted and ignored.\n"
	"Exit: 0 OK or warnings only, 2 confirmation needed, 4 blocked,\n"
	"5 no verdict possible, 64 usage error.\n";

/* The GPUs a run would get, without a lease: the named ones, else the
 * lowest the capture needs. */
static void choose_gpus(const struct cmd_env *env, const struct capture_manifest *cap,
			struct gpu_choice *c)
{
	const struct options *o = env->o;
	const struct gpu_topology *topo = env->host.have_topo ? &env->host.topo : NULL;

	if (o->n_gpus)
		gpu_choice_named(c, topo, o->gpus, o->n_gpus, cmd_gpus_from_env(o));
	else
		gpu_choice_lowest(c, topo ? gpu_choice_need(capture_manifest_devices(cap), topo) : 0);
}

static int preflight_one(struct cmd_env *env, size_t i)
{
	__attribute__((cleanup(capture_manifest_release))) struct capture_manifest cap;
	struct gpu_choice gpus;
	struct replay_desc d;
	struct replay_unit_result res;
	int code;

	capture_manifest_load(&cap, env->pid_dirs.v[i]);
	choose_gpus(env, &cap, &gpus);
	cmd_describe(env, i, &cap, &gpus, &d);
	d.mode = REPLAY_MODE_PREFLIGHT_ONLY;
	/* The preflight command never prompts: a confirmation is its answer. */
	d.confirm = env->o->yes ? REPLAY_CONFIRM_ASSUME_YES : REPLAY_CONFIRM_REFUSE;
	code = replay_unit_run(&env->host, &d, &res);
	cmd_say_warnings(&res.warnings);
	if (env->o->format == FORMAT_JSON) {
		cJSON *j = cmd_json_no_finding(code, &res.failure, NULL);

		if (res.preflight_report)
			cJSON_AddItemToObject(j, "preflight", preflight_to_json(res.preflight_report));
		cJSON_AddStringToObject(j, "archive", d.pid_dir);
		cmd_emit_json(env, j);
		replay_unit_result_release(&res);
		return code;
	}
	if (env->pid_dirs.n > 1) {
		cleanup_free char *head = xasprintf("# %s\n\n", strrchr(d.pid_dir, '/') ?
						     strrchr(d.pid_dir, '/') + 1 : d.pid_dir);

		cmd_emit(env, head, strlen(head));
	}
	if (res.preflight_markdown)
		cmd_emit(env, res.preflight_markdown, strlen(res.preflight_markdown));
	replay_unit_result_release(&res);
	return code;
}

int preflight_command(struct options *o)
{
	struct cmd_env env;
	int code = 0;

	cmd_env_init(&env, o);
	/* The preflight command exists to run the checks. */
	o->skip_preflight = false;
	if ((code = cmd_setup(&env, false))) {
		if (o->format == FORMAT_JSON)
			cmd_emit_json(&env, cmd_json_no_finding(code, &env.failure, NULL));
		goto out;
	}
	for (size_t i = 0; i < env.pid_dirs.n; i++)
		code = cmd_worst(code, preflight_one(&env, i));
out:
	cmd_output_write(&env);
	cmd_env_release(&env);
	return code;
}
