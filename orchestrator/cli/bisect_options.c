#include "orchestrator/cli/bisect_options.h"
#include "orchestrator/cli/options_table.h"
#include "orchestrator/cli/option_values.h"
#include "orchestrator/perf/perf_stats.h"

#include <string.h>

static const struct option_def bisect_rows[] = {
	{ OPT_GOOD, "good", 0, "IMAGE", NULL, FOR_BISECT,
	  "bisect: the image the case(s) last behaved in (the old end)" },
	{ OPT_BAD, "bad", 0, "IMAGE", NULL, FOR_BISECT,
	  "bisect: the image they misbehave in (the new end)" },
	{ OPT_IMAGES, "images", 0, "FILE", NULL, FOR_BISECT,
	  "bisect: the candidates, one reference a line, oldest first (default: the\n"
	  "                                   --good repository's tags on its registry and on this\n"
	  "                                   engine, by created time)" },
	{ OPT_TAG_PATTERN, "tag-pattern", 0, "GLOB", NULL, FOR_BISECT,
	  "bisect: only the tags (registry's and engine's) matching GLOB (e.g. 'nightly-*')" },
	{ OPT_SWEEP, "sweep", 0, "SWEEP", NULL, FOR_BISECT,
	  "bisect: the cases of this sweep (id or folder; --case NAME picks one)" },
	{ OPT_KEEP_IMAGES, "keep-images", 0, NULL, NULL, FOR_BISECT,
	  "bisect: keep the images pulled for it (default: removed at the end)" },
	{ OPT_METRIC, "metric", 0, "verdict|gpu-time", NULL, FOR_BISECT,
	  "bisect: what makes a candidate bad: another verdict (default), or GPU-time\n"
	  "                                   samples (--perf N, default 5) slower than --good's" },
};

static int bisect_option_apply(struct sweep_options *s, enum option_id id, const char *v,
			       const char *from, bool from_env, struct error *err)
{

	(void)from_env; /* no env twin here */
	switch (id) {
	case OPT_GOOD: options_set_string(&s->good, v); return 0;
	case OPT_BAD: options_set_string(&s->bad, v); return 0;
	case OPT_IMAGES: options_set_string(&s->images_file, v); return 0;
	case OPT_TAG_PATTERN: options_set_string(&s->tag_pattern, v); return 0;
	case OPT_SWEEP: options_set_string(&s->sweep, v); return 0;
	case OPT_KEEP_IMAGES: s->keep_images = true; return 0;
	case OPT_METRIC:
		if (strcmp(v, "verdict") && strcmp(v, "gpu-time"))
			return error_set(err, ERR_USAGE, 0,
					 "%s: '%s' is not a metric (verdict or gpu-time)", from, v);
		s->metric_gpu_time = !strcmp(v, "gpu-time");
		return 0;
	default: return error_set(err, ERR_USAGE, 0, "internal: %s is not a bisect option", from);
	}
}

const struct option_slice bisect_option_slice = SWEEP_OPTION_SLICE(bisect_rows, bisect_option_apply);

int bisect_options_validate(const struct sweep_options *s, struct error *err)
{
	if (!s->good || !s->bad || !*s->good || !*s->bad)
		return error_set(err, ERR_USAGE, 0, "bisect: give --good IMAGE and --bad IMAGE (see --help)");
	if (!strcmp(s->good, s->bad))
		return error_set(err, ERR_USAGE, 0, "bisect: --good and --bad are the same image (%s)",
				 s->good);
	if (s->keep_images && s->image_budget)
		return error_set(err, ERR_USAGE, 0,
				 "bisect: --keep-images and --image-budget contradict each other");
	if (!!s->archives.n + !!s->sweep != 1)
		return error_set(err, ERR_USAGE, 0,
				 "bisect: give the cases with --archive PATH or with --sweep SWEEP (one of them)");
	if (s->case_name && !s->sweep)
		return error_set(err, ERR_USAGE, 0, "bisect: --case goes with --sweep");
	if (s->images_file && s->tag_pattern)
		return error_set(err, ERR_USAGE, 0,
				 "bisect: --tag-pattern filters the repository's tags; an --images "
				 "file lists its own");
	if (s->metric_gpu_time) {
		long n = s->perf_runs ? s->perf_runs : BISECT_PERF_RUNS_DEFAULT;

		/* Every probe would be insufficient: say so before replaying. */
		if (perf_min_p((size_t)n, (size_t)n) >= s->perf.alpha)
			return error_set(err, ERR_USAGE, 0,
					 "bisect --metric gpu-time: --perf %ld against %ld samples "
					 "cannot reach a p-value below --perf-alpha %g; give more",
					 n, n, s->perf.alpha);
	}
	return 0;
}
