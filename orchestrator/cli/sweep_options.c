#include "orchestrator/cli/sweep_options.h"

#include <stdlib.h>
#include <string.h>

#include "orchestrator/cli/option_ids.h"
#include "orchestrator/cli/options_table.h"
#include "orchestrator/cli/option_values.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/sweep/sweep_plan.h"

/* This module's slice of the option table (orchestrator/cli/options.c lists the
 * slices): --gpu-wait and the sweep's options; --label and --db are the
 * history's and the bisection's too. */
static const struct option_def sweep_rows[] = {
	{ OPT_GPU_WAIT, "gpu-wait", 0, "S", NULL, FOR_RUN | FOR_SWEEP,
	  "give up after S seconds when the GPU is held by another run (default: wait; 0 = do not)" },
	{ OPT_PLAN, "plan", 0, "FILE", NULL, FOR_SWEEP,
	  "cases listed in a JSON plan ({\"cases\": [...]}; repeatable)" },
	{ OPT_LABEL, "label", 0, "L", NULL, FOR_SWEEP | FOR_HISTORY | FOR_BISECT,
	  "the series of sweeps (default \"default\"); statuses compare with its previous one" },
	{ OPT_HOST, "host", 0, "H", NULL, FOR_HISTORY,
	  "only host H's sweeps (a fleet's history on one server)" },
	{ OPT_BASELINE, "baseline", 0, "SWEEP", NULL, FOR_SWEEP,
	  "compare against this sweep instead of the label's previous one" },
	{ OPT_GPUS, "gpus", 0, "LIST", NULL, FOR_SWEEP | FOR_BISECT,
	  "host GPU ordinals the sweep may use (default all)" },
	{ OPT_JOBS, "jobs", 0, "N", NULL, FOR_SWEEP | FOR_BISECT,
	  "at most N cases at once (default: as many as the GPUs allow)" },
	{ OPT_IMAGE_BUDGET, "image-budget", 0, "SIZE", "HRR_IMAGE_BUDGET", FOR_SWEEP | FOR_BISECT,
	  "keep the images this tool pulled within SIZE (40g, 500m): done ones removed,\n"
	  "                                   least recently used first; never the user's\n"
	  "                                   (bisect: each pulled candidate removed once known)" },
	{ OPT_RETRY_FAILED, "retry-failed", 0, "N", NULL, FOR_SWEEP | FOR_BISECT,
	  "rerun a non-PASS case up to N times; one that then passes is flaky" },
	{ OPT_QUARANTINE_GPUS, "quarantine-gpus", 0, NULL, NULL, FOR_SWEEP | FOR_BISECT,
	  "take a suspect GPU (failures gather on it) out of the rest of the sweep" },
	{ OPT_DB, "db", 0, "PATH", "HRR_HISTORY_DB", FOR_SWEEP | FOR_HISTORY | FOR_BISECT,
	  "history database (default $XDG_DATA_HOME/hrr-docker-replay/history.sqlite)" },
	{ OPT_JUNIT, "junit", 0, "PATH", NULL, FOR_SWEEP, "also write junit.xml to PATH" },
	{ OPT_KNOWN_ISSUES, "known-issues", 0, "FILE", NULL, FOR_RUN | FOR_ANALYZE | FOR_SWEEP | FOR_HISTORY,
	  "known issues (YAML rules) the findings are matched against (sweep, history known: "
	  "default known-issues.yaml beside the database)" },
	{ OPT_HTML, "html", 0, "PATH", NULL, FOR_SWEEP, "also write report.html to PATH" },
	{ OPT_SUMMARY, "summary", 0, "PATH", NULL, FOR_SWEEP, "also write summary.md to PATH" },
	{ OPT_RESUME, "resume", 0, "SWEEP", NULL, FOR_SWEEP,
	  "finish a sweep (id or folder): its cases without a result, and errors" },
	{ OPT_STATUS, "status", 0, "SWEEP", NULL, FOR_SWEEP, "say how far a sweep got" },
	{ OPT_SHARD, "shard", 0, "I/N", NULL, FOR_SWEEP,
	  "run only shard I of N of the remaining cases (one task of a job array)" },
	{ OPT_SHARD_CASES, "shard-cases", 0, "FILE", NULL, FOR_SWEEP,
	  "with --shard: shard only these plan indexes (one a line; --slurm writes it)" },
	{ OPT_SLURM, "slurm", 0, NULL, NULL, FOR_SWEEP,
	  "submit the cases as Slurm job arrays and a merge job (docs/slurm.md)" },
	{ OPT_SLURM_OPT, "slurm-opt", 0, "ARG", NULL, FOR_SWEEP,
	  "one more sbatch argument, verbatim (repeatable: --slurm-opt=--partition=gpu)" },
	{ OPT_SLURM_TASKS, "slurm-tasks", 0, "N", NULL, FOR_SWEEP,
	  "tasks per job array (default: min(its cases, 64))" },
	{ OPT_SLURM_MAX_RUNNING, "slurm-max-running", 0, "M", NULL, FOR_SWEEP,
	  "at most M tasks of an array at once (--array=...%M; default no bound)" },
	{ OPT_WAIT, "wait", 0, NULL, NULL, FOR_SWEEP,
	  "with --slurm: wait for the merge job and exit with its code (for CI)" },
	{ OPT_MERGE, "merge", 0, "SWEEP", NULL, FOR_SWEEP,
	  "read every results file into the history and write the reports (the merge job)" },
	{ OPT_FAIL_ON, "fail-on", 0, "LIST", NULL, FOR_SWEEP,
	  "more statuses that make the exit code 1 (e.g. new,flaky; untriaged: a failure\n"
	  "                                   no known issue matches; perf-slower: a case whose GPU\n"
	  "                                   time is slower, docs/perf.md)" },
	{ OPT_IGNORE_KNOWN, "ignore-known", 0, NULL, NULL, FOR_SWEEP,
	  "a failure a known issue matches does not count toward exit 1" },
	{ OPT_NOTIFY, "notify", 0, "URL", NULL, FOR_SWEEP,
	  "POST the sweep's alarms and recoveries to URL (or env:NAME; repeatable)" },
	{ OPT_NOTIFY_FORMAT, "notify-format", 0, "json|slack", NULL, FOR_SWEEP,
	  "the --notify body: the JSON document (default) or {\"text\": ...} for chat webhooks" },
};

void sweep_options_init(struct sweep_options *s)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->images);
	strvec_init(&s->archives);
	strvec_init(&s->plans);
	strvec_init(&s->backend.opts);
	strvec_init(&s->notify);
	s->gpu_wait = -1;
	s->fail_on = SWEEP_FAIL_DEFAULT;
	s->last = 10;
	s->keep = -1;
	perf_options_init(s);
}

void sweep_options_release(struct sweep_options *s)
{
	char **strs[] = { &s->label, &s->host, &s->baseline, &s->db, &s->junit, &s->html, &s->summary,
			  &s->resume, &s->status, &s->case_name, &s->shard_cases, &s->merge,
			  &s->good, &s->bad, &s->images_file, &s->tag_pattern, &s->sweep,
			  &s->site_dir, &s->known_issues, &s->copy_from, &s->copy_to,
			  &s->perf_baseline, &s->accept, &s->night };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		free(*strs[i]);
	strvec_clear(&s->images);
	strvec_clear(&s->archives);
	strvec_clear(&s->plans);
	strvec_clear(&s->backend.opts);
	strvec_clear(&s->notify);
	sweep_options_init(s);
}

static int apply_list(struct sweep_options *s, int id, const char *v, const char *from,
		      struct error *err)
{
	const char *bad;
	size_t bad_len;
	sweep_status_mask m;

	if (id == OPT_GPUS) {
		if (options_parse_gpu_list(v, s->gpus, GPU_MAX, &s->n_gpus, err) < 0)
			return error_prefix(err, "%s: ", from);
		return 0;
	}
	if (sweep_status_mask_parse(v, &m, &bad, &bad_len) < 0)
		return error_set(err, ERR_USAGE, 0, "%s: unknown status '%.*s' (see docs/sweep.md)",
				 from, (int)bad_len, bad);
	s->fail_on |= m;
	return 0;
}

/* A URL is checked now (its scheme, its host), env:NAME when sending:
 * the variable may be the merge job's. The URL itself is never repeated
 * in a message. */
static int apply_notify(struct sweep_options *s, const char *v, const char *from,
			struct error *err)
{
	if (!known_notify_url_valid(v)) {
		if (!strncmp(v, "env:", 4))
			return error_set(err, ERR_USAGE, 0, "%s %s: not a variable name", from, v);
		return error_set(err, ERR_USAGE, 0,
				 "%s: give an http:// or https:// URL, or env:NAME", from);
	}
	strvec_push(&s->notify, v);
	return 0;
}

static int sweep_option_apply(struct sweep_options *s, enum option_id id, const char *v,
			      const char *from, bool from_env, struct error *err)
{
	long n;

	(void)from_env; /* HRR_HISTORY_DB and HRR_IMAGE_BUDGET read as given */
	switch (id) {
	case OPT_PLAN: strvec_push(&s->plans, v); return 0;
	case OPT_LABEL:
		if (!sweep_label_valid(v))
			return error_set(err, ERR_USAGE, 0,
					 "%s '%s': use letters, digits, '.', '_' and '-'", from, v);
		options_set_string(&s->label, v);
		return 0;
	case OPT_BASELINE: options_set_string(&s->baseline, v); return 0;
	case OPT_HOST: options_set_string(&s->host, v); return 0;
	case OPT_GPUS:
	case OPT_FAIL_ON: return apply_list(s, id, v, from, err);
	case OPT_JOBS: return options_parse_long(from, v, 1, &s->jobs, err);
	case OPT_RETRY_FAILED: return options_parse_long(from, v, 0, &s->retry_failed, err);
	case OPT_IMAGE_BUDGET: return options_parse_bytes(from, v, &s->image_budget, err);
	case OPT_GPU_WAIT:
		if (options_parse_long(from, v, 0, &n, err) < 0)
			return -1;
		s->gpu_wait = (double)n;
		return 0;
	case OPT_DB: options_set_string(&s->db, v); return 0;
	case OPT_JUNIT: options_set_string(&s->junit, v); return 0;
	case OPT_KNOWN_ISSUES: options_set_string(&s->known_issues, v); return 0;
	case OPT_HTML: options_set_string(&s->html, v); return 0;
	case OPT_SUMMARY: options_set_string(&s->summary, v); return 0;
	case OPT_RESUME: options_set_string(&s->resume, v); return 0;
	case OPT_STATUS: options_set_string(&s->status, v); return 0;
	case OPT_SHARD:
		s->have_shard = true;
		return sweep_shard_parse(v, &s->shard_i, &s->shard_n, err);
	case OPT_SHARD_CASES: options_set_string(&s->shard_cases, v); return 0;
	case OPT_SLURM: s->backend.name = "slurm"; return 0;
	case OPT_WAIT: s->wait = true; return 0;
	case OPT_SLURM_OPT: strvec_push(&s->backend.opts, v); return 0;
	case OPT_SLURM_TASKS:
		return options_parse_long(from, v, 1, &s->backend.tasks_per_array, err);
	case OPT_SLURM_MAX_RUNNING:
		return options_parse_long(from, v, 1, &s->backend.max_running, err);
	case OPT_MERGE: options_set_string(&s->merge, v); return 0;
	case OPT_QUARANTINE_GPUS: s->quarantine_gpus = true; return 0;
	case OPT_IGNORE_KNOWN: s->fail_on |= SWEEP_FAIL_IGNORE_KNOWN; return 0;
	case OPT_NOTIFY: return apply_notify(s, v, from, err);
	case OPT_NOTIFY_FORMAT:
		if (strcmp(v, "json") && strcmp(v, "slack"))
			return error_set(err, ERR_USAGE, 0, "%s '%s': use json or slack", from, v);
		s->notify_slack = !strcmp(v, "slack");
		return 0;
	default: return error_set(err, ERR_USAGE, 0, "internal: %s is not a sweep option", from);
	}
}

const struct option_slice sweep_option_slice = SWEEP_OPTION_SLICE(sweep_rows, sweep_option_apply);

int sweep_options_validate(const struct sweep_options *s, struct error *err)
{
	if (!!s->resume + !!s->status + !!s->merge > 1)
		return error_set(err, ERR_USAGE, 0, "--resume, --status and --merge are separate commands");
	if ((s->resume || s->status || s->merge) && (s->archives.n || s->plans.n))
		return error_set(err, ERR_USAGE, 0,
				 "--resume/--status/--merge use the sweep's own plan: no --archive or --plan");
	if (s->backend.name && (s->have_shard || s->merge))
		return error_set(err, ERR_USAGE, 0, "--slurm submits the shards and the merge itself");
	if (!s->backend.name && (s->wait || s->backend.opts.n || s->backend.tasks_per_array ||
				 s->backend.max_running))
		return error_set(err, ERR_USAGE, 0,
				 "--wait, --slurm-opt, --slurm-tasks and --slurm-max-running go with --slurm");
	if (s->notify_slack && !s->notify.n)
		return error_set(err, ERR_USAGE, 0, "--notify-format goes with --notify");
	if (s->notify.n && (s->status || s->have_shard))
		return error_set(err, ERR_USAGE, 0,
				 "--notify goes with a sweep, its --resume or its --merge");
	if (s->shard_cases && !s->have_shard)
		return error_set(err, ERR_USAGE, 0, "--shard-cases goes with --shard");
	if (!s->resume && !s->status && !s->merge && !s->archives.n && !s->plans.n)
		return error_set(err, ERR_USAGE, 0, "sweep: give --archive PATH or --plan FILE (see --help)");
	if (s->archives.n && !s->images.n && !s->resume && !s->status && !s->merge)
		return error_set(err, ERR_USAGE, 0,
				 "sweep: --image is required with --archive (or set HRR_DOCKER_IMAGE)");
	return perf_options_validate(s, err);
}
