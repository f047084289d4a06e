/* `run`: one replay per pid directory of the archive, each a job
 * (orchestrator/jobs/run_job.h) built from the options; the findings on
 * stdout as each ends, -o once at the end, the run folders on stderr. */
#include "orchestrator/cli/cmd_setup.h"
#include "orchestrator/cli/term_events.h"
#include "common/cleanup.h"
#include "orchestrator/cli/cmd_json.h"
#include "orchestrator/cli/cmd_known.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/jobs/run_job.h"
#include "common/say.h"
#include "common/signals.h"
#include "common/strbuf.h"
#include "orchestrator/perf/perf_samples.h"
#include "orchestrator/perf/perf_stats.h"
#include "orchestrator/replay/replay_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `run --help`, also the main help (the commands and run's options follow). */
const char cmd_run_usage[] =
	"Usage: hrr-docker-replay [run] --image IMAGE --archive PATH [options]\n"
	"       hrr-docker-replay preflight --image IMAGE --archive PATH [options]\n"
	"       hrr-docker-replay analyze --log FILE [--log FILE...] [--archive PATH]\n"
	"                                 [--format markdown|json] [-o PATH]\n"
	"       hrr-docker-replay gc [--all]\n"
	"       hrr-docker-replay sweep [--image REF]... [--archive PATH]... [--plan FILE] [options]\n"
	"       hrr-docker-replay history [--label L] [--case NAME] | history prune --keep N\n\n"
	"Replays an HRR capture (HIP Record & Replay) with hrr-playback inside the\n"
	"container image it was captured in, on the chosen AMD GPU(s), through the\n"
	"Docker Engine API. Streams the replay log, stops a stalled replay, and\n"
	"writes a finding (PASS, MAF, FAIL, ABORT, HANG or UNKNOWN) into a run folder.\n\n";

/* After the options of `run` and `preflight`. */
const char cmd_replay_help_tail[] =
	"\nEnvironment only:\n"
	"  HRR_PLAYBACK, CLR_LIB, CLR_BUILD, ROCR_LIB, ROCM_PATH   overlay sources for --mount-clr\n"
	"  HIP_HRR_*                       passed into the replay container\n"
	"  DOCKER_HOST, DOCKER_CONFIG, DOCKER_API_VERSION, DOCKER_TLS_VERIFY,\n"
	"  DOCKER_CERT_PATH                the engine and registry credentials, as the docker CLI reads them\n"
	"  TMPDIR                          default workdir parent\n"
	"  HRR_GC_PROBE_AGE                gc: seconds after which an image probe container\n"
	"                                  is debris (default 600)\n"
	"\nExit codes:\n"
	"  0   the replay ran and the outcome is PASS\n"
	"  1   the replay ran and the outcome is not PASS (the finding says why)\n"
	"  2   preflight needs confirmation (re-run with --yes / HRR_CONTINUE=1)\n"
	"  3   the user declined at the confirmation prompt\n"
	"  4   preflight blocked the replay, or a requested GPU does not exist\n"
	"  5   no verdict: engine unreachable, image missing or pull failed, archive\n"
	"      missing or unreadable, hrr-playback not found, no AMD GPU, interrupted\n"
	"  64  usage error\n"
	"  75  the GPUs stayed held by another run past --gpu-wait (try later, like EX_TEMPFAIL)\n"
	"\nOutput: the finding on stdout at the end (markdown, or with --format json one\n"
	"JSON object on every path: the finding plus \"exit\", else {\"outcome\": null,\n"
	"\"exit\", \"stage\", \"error\", \"run_dir\"}); -o PATH also writes what stdout got,\n"
	"atomically, once every pid is done. A run folder exists from the preflight on:\n"
	"exits 2, 3, 4, and 5 from an interrupt or a failed create/start, have one;\n"
	"usage errors, a missing archive or image, no engine or no GPU have none.\n";

/* The samples after the finding on stdout. */
static void perf_markdown(const struct sweep_options *s, const struct perf_samples *ps,
			  struct strbuf *md)
{
	double ms[PERF_RUNS_MAX];
	size_t n = perf_samples_kernel_ms(ps, ms);

	strbuf_addf(md, "\n## GPU time (--perf %ld)\n\n", s->perf_runs);
	if (n)
		strbuf_addf(md, "- GPU kernel time: median %.1f ms of %zu samples (CV %.1f%%)\n",
			    perf_median(ms, n), n, 100 * perf_cv(ms, n));
	for (size_t k = 0; k < ps->n; k++)
		strbuf_addf(md, "- sample %zu: kernel %.1f ms, total %.1f ms, wall %.0f ms\n", k + 1,
			    ps->v[k].kernel_ms, ps->v[k].total_ms, ps->v[k].wall_ms);
	if (ps->note)
		strbuf_addf(md, "- %s\n", ps->note);
}

static int run_one(struct cmd_env *env, size_t i)
{
	const struct options *o = env->o;
	struct run_request rq = { .host = &env->host, .gpus = o->gpus, .n_gpus = o->n_gpus,
				  .gpus_from_env = cmd_gpus_from_env(o),
				  .gpu_wait = o->sweep.gpu_wait, .sysfs_root = o->sysfs_root,
				  .device_root = o->device_root, .perf_runs = o->sweep.perf_runs,
				  .perf_warmup = o->sweep.perf_warmup, .events = term_events() };
	struct run_result res;
	struct error err;
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	int code;

	cmd_describe(env, i, NULL, NULL, &rq.desc);
	if (run_job(&rq, &res, &err) < 0) {
		say_error("%s", err.msg);
		return res.code;
	}
	code = res.code;
	if (res.unit.finding_markdown)
		strbuf_addstr(&md, res.unit.finding_markdown);
	if (res.perf_taken)
		perf_markdown(&o->sweep, &res.perf, &md);
	cmd_say_warnings(&res.unit.warnings);
	if (res.unit.run_dir)
		strvec_push(&env->run_dirs, res.unit.run_dir);
	if (env->o->format == FORMAT_JSON)
		cmd_emit_json(env, res.unit.has_verdict
					   ? cmd_json_finding(replay_finding_json(res.unit.finding_doc), code)
					   : cmd_json_no_finding(code, &res.unit.failure, res.unit.run_dir));
	else if (res.unit.has_verdict)
		cmd_emit(env, md.buf, md.len);
	if (res.unit.failure.stage != REPLAY_STAGE_NONE)
		env->failure = res.unit.failure;
	run_result_release(&res);
	return code;
}

int run_command(struct options *o)
{
	struct cmd_env env;
	struct known_issues known = { 0 };
	bool have_known = false;
	struct error err;
	int code = 0;

	cmd_env_init(&env, o);
	/* A bad known-issues file is a usage error before anything runs. */
	if (o->sweep.known_issues &&
	    cmd_known_load(o->sweep.known_issues, KNOWN_NAMED, &known, &have_known, &err) < 0) {
		code = replay_fail(&env.failure, term_events(), REPLAY_STAGE_USAGE, EXIT_USAGE, "%s", err.msg);
	} else {
		code = cmd_setup(&env, true);
	}
	if (code) {
		if (o->format == FORMAT_JSON)
			cmd_emit_json(&env, cmd_json_no_finding(code, &env.failure, NULL));
		goto out;
	}
	env.host.known = have_known ? &known : NULL;
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
	known_issues_release(&known);
	return code;
}

