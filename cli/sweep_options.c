#include "cli/sweep_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "cli/option_ids.h"
#include "cli/option_values.h"
#include "sweep/sweep_plan.h"

void sweep_options_init(struct sweep_options *s)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->images);
	strvec_init(&s->archives);
	strvec_init(&s->plans);
	strvec_init(&s->slurm_opts);
	s->gpu_wait = -1;
	s->fail_on = SWEEP_FAIL_DEFAULT;
	s->last = 10;
	s->keep = -1;
}

void sweep_options_release(struct sweep_options *s)
{
	char **strs[] = { &s->label, &s->baseline, &s->db, &s->junit, &s->html, &s->summary,
			  &s->resume, &s->status, &s->case_name, &s->shard_cases, &s->merge };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		free(*strs[i]);
	strvec_clear(&s->images);
	strvec_clear(&s->archives);
	strvec_clear(&s->plans);
	strvec_clear(&s->slurm_opts);
	sweep_options_init(s);
}

static int parse_long(const char *from, const char *v, long min, long *out, struct error *err)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < min)
		return error_set(err, ERR_USAGE, 0, "%s: '%s' is not a whole number >= %ld", from, v,
				 min);
	*out = n;
	return 0;
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
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

int sweep_option_apply(struct sweep_options *s, int id, const char *v, const char *from,
		       struct error *err)
{
	long n;

	switch (id) {
	case OPT_PLAN: strvec_push(&s->plans, v); return 0;
	case OPT_LABEL:
		if (!sweep_label_valid(v))
			return error_set(err, ERR_USAGE, 0,
					 "%s '%s': use letters, digits, '.', '_' and '-'", from, v);
		set_str(&s->label, v);
		return 0;
	case OPT_BASELINE: set_str(&s->baseline, v); return 0;
	case OPT_GPUS:
	case OPT_FAIL_ON: return apply_list(s, id, v, from, err);
	case OPT_JOBS: return parse_long(from, v, 1, &s->jobs, err);
	case OPT_RETRY_FAILED: return parse_long(from, v, 0, &s->retry_failed, err);
	case OPT_GPU_WAIT:
		if (parse_long(from, v, 0, &n, err) < 0)
			return -1;
		s->gpu_wait = (double)n;
		return 0;
	case OPT_DB: set_str(&s->db, v); return 0;
	case OPT_JUNIT: set_str(&s->junit, v); return 0;
	case OPT_HTML: set_str(&s->html, v); return 0;
	case OPT_SUMMARY: set_str(&s->summary, v); return 0;
	case OPT_RESUME: set_str(&s->resume, v); return 0;
	case OPT_STATUS: set_str(&s->status, v); return 0;
	case OPT_SHARD:
		s->have_shard = true;
		return sweep_shard_parse(v, &s->shard_i, &s->shard_n, err);
	case OPT_SHARD_CASES: set_str(&s->shard_cases, v); return 0;
	case OPT_SLURM: s->slurm = true; s->backend = "slurm"; return 0;
	case OPT_WAIT: s->wait = true; return 0;
	case OPT_SLURM_OPT: strvec_push(&s->slurm_opts, v); return 0;
	case OPT_SLURM_TASKS: return parse_long(from, v, 1, &s->slurm_tasks, err);
	case OPT_SLURM_MAX_RUNNING: return parse_long(from, v, 1, &s->slurm_max_running, err);
	case OPT_MERGE: set_str(&s->merge, v); return 0;
	case OPT_CASE: set_str(&s->case_name, v); return 0;
	case OPT_LAST: return parse_long(from, v, 1, &s->last, err);
	case OPT_KEEP_LAST: return parse_long(from, v, 0, &s->keep, err);
	}
	return error_set(err, ERR_USAGE, 0, "internal: %s is not a sweep option", from);
}

int sweep_options_validate(const struct sweep_options *s, bool history, struct error *err)
{
	if (history) {
		bool prune = s->history_action && !strcmp(s->history_action, "prune");

		if (prune && s->keep < 0)
			return error_set(err, ERR_USAGE, 0, "history prune needs --keep N");
		if (!prune && s->keep >= 0)
			return error_set(err, ERR_USAGE, 0, "--keep belongs to `history prune`");
		return 0;
	}
	if (!!s->resume + !!s->status + !!s->merge > 1)
		return error_set(err, ERR_USAGE, 0, "--resume, --status and --merge are separate commands");
	if ((s->resume || s->status || s->merge) && (s->archives.n || s->plans.n))
		return error_set(err, ERR_USAGE, 0,
				 "--resume/--status/--merge use the sweep's own plan: no --archive or --plan");
	if (s->slurm && (s->have_shard || s->merge))
		return error_set(err, ERR_USAGE, 0, "--slurm submits the shards and the merge itself");
	if (!s->slurm && (s->wait || s->slurm_opts.n || s->slurm_tasks || s->slurm_max_running))
		return error_set(err, ERR_USAGE, 0,
				 "--wait, --slurm-opt, --slurm-tasks and --slurm-max-running go with --slurm");
	if (s->shard_cases && !s->have_shard)
		return error_set(err, ERR_USAGE, 0, "--shard-cases goes with --shard");
	if (!s->resume && !s->status && !s->merge && !s->archives.n && !s->plans.n)
		return error_set(err, ERR_USAGE, 0, "sweep: give --archive PATH or --plan FILE (see --help)");
	if (s->archives.n && !s->images.n && !s->resume && !s->status && !s->merge)
		return error_set(err, ERR_USAGE, 0,
				 "sweep: --image is required with --archive (or set HRR_DOCKER_IMAGE)");
	return 0;
}
