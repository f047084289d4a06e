/* `bisect`: the first image between --good and --bad in which the cases
 * behave differently from --good (docs/bisect.md). The search and its
 * replays are orchestrator/bisect/'s; this file turns the options into a job, prints
 * the answer and picks the exit code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "orchestrator/cli/bisect_driver.h"
#include "orchestrator/cli/bisect_options.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/replay/run_folder.h"
#include "common/say.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "orchestrator/sweep/sweep_plan.h"
#include "orchestrator/cli/sweep_runopts.h"

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
	"options. The answer (last good and first bad image, their findings, what\n"
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

static int load_candidates(struct bisect_job *j, struct error *err)
{
	const struct sweep_options *so = &j->o->sweep;
	const struct bisect_candidates *c = &j->cands;

	if (so->images_file)
		return bisect_candidates_from_file(&j->cands, so->images_file, so->good, so->bad, err);
	/* the engine's own tags of the repository are candidates too */
	if (engine_open(&j->engine, NULL, err) < 0 ||
	    bisect_candidates_from_tags(&j->cands, j->engine, so->good, so->bad, so->tag_pattern,
					err) < 0)
		return -1;
	if (c->note)
		fprintf(stderr, "%s\n", c->note);
	fprintf(stderr, "bisect: %zu candidate tag(s) of %s (%u registry request(s), %zu tag(s) "
		"only on this engine)\n", c->n, so->good, c->registry_requests, c->local_only);
	return 0;
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

/* Everything before the search: candidates, cases, history, engine, folder. */
static int set_up(struct bisect_job *j, struct error *err)
{
	cleanup_free char *wd = NULL, *dflt = history_db_default_path();
	char rid[7];

	if (workdir_prepare(j->o->workdir, (const char *const *)j->o->sweep.archives.v,
			    j->o->sweep.archives.n, &wd, err) < 0 ||
	    load_candidates(j, err) < 0 || bisect_cases_load(j, wd, err) < 0)
		return -1;
	if (j->o->sweep.metric_gpu_time) {
		struct sweep_options *so = &j->o->sweep;

		/* Before the fingerprint: N is a run option, as the probes run. */
		if (!so->perf_runs)
			so->perf_runs = BISECT_PERF_RUNS_DEFAULT;
		j->gpu_time = true;
		j->rule = so->perf;
	}
	j->fp = options_fingerprint(j->o);
	if (history_db_open(&j->db, j->o->sweep.db ? j->o->sweep.db : dflt, err) < 0 ||
	    (!j->engine && engine_open(&j->engine, NULL, err) < 0))
		return -1;
	run_id_new(rid);
	/* "bisection-…": told apart from its probes' sweeps ("bisect-…"). */
	j->id = sweep_id_make("bisection", time(NULL), (unsigned)strtoul(rid, NULL, 16));
	if (sweep_folder_create(wd, j->id, &j->folder, err) < 0)
		return -1;
	j->probes = xcalloc(j->cands.n + 1, sizeof(*j->probes));
	for (size_t i = 0; i < j->cands.n; i++) {
		strvec_init(&j->probes[i].outcomes);
		strvec_init(&j->probes[i].details);
		if (j->gpu_time)
			j->probes[i].perf = xcalloc(j->n_cases, sizeof(*j->probes[i].perf));
	}
	return 0;
}

int bisect_command(struct options *o)
{
	struct bisect_job j = { .o = o };
	struct error err;
	int code;

	if (set_up(&j, &err) < 0) {
		code = exit_of(&err);
		goto out;
	}
	fprintf(stderr, "bisect: %zu candidate(s) from %s to %s, %zu case(s); folder %s\n",
		j.cands.n, j.cands.v[0].ref, j.cands.v[j.cands.n - 1].ref, j.n_cases, j.folder);
	code = bisect_search(&j);
	if (!j.interrupted) {
		if (bisect_answer_write(&j, &err) < 0)
			say_warning("bisect: the answer could not be kept: %s", err.msg);
		if (o->format == FORMAT_JSON) {
			cleanup_free char *json = bisect_answer_json(&j);

			printf("%s\n", json);
		} else {
			cleanup_strbuf struct strbuf md = STRBUF_INIT;

			bisect_answer_markdown(&j, &md);
			fwrite(md.buf, 1, md.len, stdout);
		}
	}
	if (!o->sweep.keep_images && j.engine)
		bisect_remove_pulled(&j);
out:
	if (j.engine)
		engine_close(j.engine);
	history_db_close(j.db);
	bisect_job_release(&j);
	return code;
}
