/* `bisect`: the first image between --good and --bad in which the cases
 * behave differently from --good (docs/bisect.md). The search and its
 * replays are orchestrator/jobs/'s (bisect_job.h); this file turns the
 * options into its request, runs a probe's sweep, prints the answer and
 * picks the exit code. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orchestrator/cli/bisect_options.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/cli/commands.h"
#include "common/say.h"
#include "orchestrator/cli/sweep_runopts_json.h"
#include "orchestrator/cli/term_events.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/jobs/bisect_job.h"

#define BISECT_EXIT_FOUND 0
#define BISECT_EXIT_NONE 1   /* no transition, or a flaky candidate */
#define BISECT_EXIT_INFRA 5
#define BISECT_EXIT_USAGE 64

const char cmd_bisect_usage[] =
	"Usage: hrr-docker-replay bisect --good IMAGE --bad IMAGE\n"
	"                                (--archive PATH... | --sweep SWEEP [--case NAME])\n"
	"                                [--images FILE | --tag-pattern GLOB] [--keep-images]\n"
	"                                [--metric verdict|gpu-time [--perf N]]\n"
	"                                [sweep options] [run options]\n\n"
	"Finds the first image between --good and --bad whose result differs from\n"
	"--good's: the candidates are the lines of --images FILE (oldest first) or the\n"
	"--good repository's tags on its registry and on this engine, ordered by their\n"
	"created time (the engine's alone when the registry cannot be reached or has\n"
	"no such repository); both ends are replayed once, then about log2(n)\n"
	"midpoints, each as a one-image sweep (folder under <workdir>/sweeps/) unless\n"
	"the history already has the result for the same archive, image ID and run\n"
	"options on the same GPU product (this host's, when a product is unknown).\n"
	"The answer (last good and first bad image, their findings, what\n"
	"changed) is printed, written to bisect.md and bisect.json in the bisection's\n"
	"folder and kept in the history.\n"
	"With --metric gpu-time a candidate is bad when its GPU-time samples (--perf N,\n"
	"default 5, with hrr-playback --timing) are `slower` than --good's by the rule\n"
	"of sweep --perf (--perf-threshold, --perf-alpha, --perf-max-cv); a noisy,\n"
	"insufficient or same-build probe is reported, not guessed through; the\n"
	"answer names the first slower image with its ratio and interval, or \"no clear\n"
	"change\". Samples are reused from the history as results are.\n"
	"Images pulled only for it are removed at the end unless --keep-images.\n"
	"Exit: 0 found; 1 no transition (no clear change), or a flaky or unclear\n"
	"candidate;\n"
	"5 an infrastructure error or interrupted (run it again to resume); 64 usage.\n";

const char cmd_bisect_help_tail[] =
	"\nRegistry credentials come from $DOCKER_CONFIG/config.json as for `pull`\n"
	"(basic and bearer-token auth; http for a loopback registry, https otherwise).\n"
	"Environment: those of sweep and run.\n";

static int exit_of(const struct error *err)
{
	say_error("%s", err->msg);
	return err->kind == ERR_USAGE ? BISECT_EXIT_USAGE : BISECT_EXIT_INFRA;
}

static char *options_fingerprint(const struct options *o)
{
	/* Redacted as the sweep's import fingerprints them: same options, same
	 * fingerprint, and no `-e` value goes into a hash others can read. */
	cleanup_cjson cJSON *run = sweep_runopts_to_json(o, true);
	cleanup_free char *txt = cJSON_PrintUnformatted(run);
	cleanup_free char *redacted = sweep_runopts_redact_text(txt);

	return history_options_fingerprint(redacted);
}

/* A candidate's probe, in the bisection's child process: `sweep` of the
 * cases in that image alone, with every option of the command line; its
 * summary goes to the sweep folder, not to our stdout. */
static enum bisect_probe_end probe_sweep(void *ctx, const char *image,
					 const char *const *pid_dirs, size_t n)
{
	struct options *o = ctx;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (null >= 0)
		dup2(null, STDOUT_FILENO);
	o->command = CMD_SWEEP;
	strvec_clear(&o->sweep.images);
	strvec_push(&o->sweep.images, image);
	strvec_clear(&o->sweep.archives);
	for (size_t i = 0; i < n; i++)
		strvec_push(&o->sweep.archives, pid_dirs[i]);
	if (!o->sweep.label)
		o->sweep.label = xstrdup("bisect");
	/* The bisection removes its candidates itself (--image-budget's
	 * rule for bisect); the probe's one image is never the sweep's to
	 * manage. */
	o->sweep.image_budget = 0;
	return sweep_command(o) == BISECT_EXIT_USAGE ? BISECT_PROBE_REFUSED : BISECT_PROBE_RAN;
}

static void request_of(struct options *o, struct bisect_request *rq)
{
	const struct sweep_options *so = &o->sweep;

	*rq = (struct bisect_request){
		.workdir = o->workdir, .good = so->good, .bad = so->bad,
		.images_file = so->images_file, .tag_pattern = so->tag_pattern,
		.archives = (const char *const *)so->archives.v, .n_archives = so->archives.n,
		.sweep = so->sweep, .case_name = so->case_name, .label = so->label, .db = so->db,
		.pull = o->pull, .verbosity = o->verbosity, .keep_images = so->keep_images,
		.image_budget = so->image_budget,
		.gpu_time = so->metric_gpu_time, .perf_runs = so->perf_runs, .rule = so->perf,
		.sysfs_root = o->sysfs_root, .gpus = so->gpus, .n_gpus = so->n_gpus,
		.events = term_events(), .probe = probe_sweep, .probe_ctx = o,
	};
}

int bisect_command(struct options *o)
{
	struct bisect_request rq;
	struct bisect_result res;
	struct error err;
	cleanup_free char *fp = NULL;
	int code;

	/* Before the fingerprint: N is a run option, as the probes run. */
	if (o->sweep.metric_gpu_time && !o->sweep.perf_runs)
		o->sweep.perf_runs = BISECT_PERF_RUNS_DEFAULT;
	fp = options_fingerprint(o);
	request_of(o, &rq);
	rq.run_options_fp = fp;
	if (bisect_run(&rq, &res, &err) < 0)
		return exit_of(&err);
	code = res.end == BISECT_END_FOUND ? BISECT_EXIT_FOUND
	       : res.end == BISECT_END_NONE ? BISECT_EXIT_NONE : BISECT_EXIT_INFRA;
	if (!res.interrupted) {
		if (o->format == FORMAT_JSON)
			printf("%s\n", res.json);
		else
			fputs(res.markdown, stdout);
	}
	bisect_result_release(&res);
	return code;
}
