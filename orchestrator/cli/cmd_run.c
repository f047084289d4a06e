/* `run`: one replay per pid directory of the archive, through the replay
 * unit; the findings on stdout as each ends, -o once at the end, the run
 * folders on stderr. */
#include "orchestrator/cli/cmd_setup.h"
#include "orchestrator/cli/term_events.h"
#include "common/cleanup.h"
#include "orchestrator/cli/cmd_json.h"
#include "orchestrator/cli/cmd_known.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/lease/run_lease.h"
#include "common/say.h"
#include "common/signals.h"
#include "common/strbuf.h"
#include "orchestrator/perf/perf_stats.h"
#include "orchestrator/replay/replay_perf.h"

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

/* The one wait message: which GPU, who holds it, how to bound the wait. */
static void say_gpu_wait(void *ctx, size_t ordinal, const char *gpu, const char *holder)
{
	const struct run_lease_request *rq = ctx;

	say_error("waiting for GPU %zu (%s), held by %s%s", ordinal, gpu, holder,
		  rq->gpu_wait >= 0 ? "" : " (bound it with --gpu-wait S)");
}

/* --perf N: the samples after a passing replay (docs/perf.md), as
 * markdown after the finding or as "perf" in its JSON. */
/* run --perf N: the samples, once the verdict replay passed and before
 * finding.json is written, so the file has them as stdout does. */
struct run_perf_ctx {
	struct cmd_env *env;
	const struct replay_desc *d;
	struct perf_samples ps;
	bool taken;
};

static void run_perf(void *ctx, struct replay_unit_result *res)
{
	struct run_perf_ctx *p = ctx;
	const struct sweep_options *s = &p->env->o->sweep;
	struct replay_desc t;

	if (!replay_perf_after(res))
		return;
	replay_perf_desc(p->d, &t);
	replay_perf_sample(&p->env->host, &t, (int)s->perf_runs, (int)s->perf_warmup, &p->ps);
	cJSON_AddItemToObject(res->finding, "perf", perf_samples_to_json(&p->ps));
	p->taken = true;
}

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
	struct replay_desc d;
	struct replay_unit_result res;
	const struct options *o = env->o;
	__attribute__((cleanup(capture_manifest_release))) struct capture_manifest cap;
	struct run_lease_request rq = { .host = &env->host, .pid_dir = env->pid_dirs.v[i],
					.gpus = o->gpus, .n_gpus = o->n_gpus,
					.gpus_from_env = cmd_gpus_from_env(o),
					.gpu_wait = o->sweep.gpu_wait, .sysfs_root = o->sysfs_root,
					.device_root = o->device_root };
	struct run_lease lease;
	struct error err;
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	struct run_perf_ctx perf = { .env = env, .d = &d };
	int code;

	capture_manifest_load(&cap, rq.pid_dir);
	rq.capture_devices = capture_manifest_devices(&cap);
	rq.on_wait = say_gpu_wait;
	rq.wait_ctx = &rq;
	/* The GPUs are ours alone for the replay (docs/sweep.md "GPU leases"). */
	if ((code = run_lease_take(&rq, &lease, &err))) {
		say_error("%s", err.msg);
		return code;
	}
	cmd_describe(env, i, &cap, &lease.choice, &d);
	if (o->sweep.perf_runs) {
		d.on_verdict = run_perf;
		d.on_verdict_ctx = &perf;
	}
	code = replay_unit_run(&env->host, &d, &res);
	if (res.finding_markdown)
		strbuf_addstr(&md, res.finding_markdown);
	if (perf.taken)
		perf_markdown(&o->sweep, &perf.ps, &md);
	perf_samples_release(&perf.ps);
	run_lease_release(&lease);
	cmd_say_warnings(&res.warnings);
	if (res.run_dir)
		strvec_push(&env->run_dirs, res.run_dir);
	if (env->o->format == FORMAT_JSON)
		cmd_emit_json(env, res.finding ? cmd_json_finding(res.finding, code) :
				   cmd_json_no_finding(code, &res.failure, res.run_dir));
	else if (res.finding)
		cmd_emit(env, md.buf, md.len);
	if (res.failure.stage != REPLAY_STAGE_NONE)
		env->failure = res.failure;
	replay_unit_result_release(&res);
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
	    cmd_known_load(o->sweep.known_issues, CMD_KNOWN_NAMED, &known, &have_known, &err) < 0) {
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

