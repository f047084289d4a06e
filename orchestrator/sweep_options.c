#include "orchestrator/sweep_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/sweep_plan.h"

enum sopt {
	S_IMAGE, S_ARCHIVE, S_PLAN, S_LABEL, S_BASELINE, S_GPUS, S_JOBS, S_RETRY, S_GPU_WAIT,
	S_DB, S_JUNIT, S_HTML, S_SUMMARY, S_WORKDIR, S_RESUME, S_STATUS, S_SHARD, S_FAIL_ON,
	S_FORMAT, S_HELP, S_REFUSED, S_SLURM,
};

struct sopt_def {
	enum sopt id;
	const char *name;
	const char *arg;   /* NULL: a flag */
	const char *help;
};

static const struct sopt_def sweep_table[] = {
	{ S_IMAGE, "image", "REF", "an image to replay every case in (repeatable; default $HRR_DOCKER_IMAGE)" },
	{ S_ARCHIVE, "archive", "PATH", "a pid dir, a capture root or a library of captures (repeatable)" },
	{ S_PLAN, "plan", "FILE", "cases listed in a JSON plan ({\"cases\": [...]})" },
	{ S_LABEL, "label", "L", "the series this sweep belongs to (default \"default\")" },
	{ S_BASELINE, "baseline", "SWEEP", "compare against this sweep (default: the label's previous)" },
	{ S_GPUS, "gpus", "LIST", "host GPU ordinals the sweep may use (default all)" },
	{ S_JOBS, "jobs", "N", "at most N cases at once (default: as many as the GPUs allow)" },
	{ S_RETRY, "retry-failed", "N", "rerun a non-PASS case up to N times; a pass then is flaky" },
	{ S_GPU_WAIT, "gpu-wait", "S", "give up on a GPU held by others after S seconds (default: wait)" },
	{ S_DB, "db", "PATH", "history database (default ~/.local/share/hrr-docker-replay/history.sqlite)" },
	{ S_JUNIT, "junit", "PATH", "also write junit.xml to PATH" },
	{ S_HTML, "html", "PATH", "also write report.html to PATH" },
	{ S_SUMMARY, "summary", "PATH", "also write summary.md to PATH" },
	{ S_WORKDIR, "workdir", "DIR", "sweep folders go under DIR/sweeps (also a run option)" },
	{ S_RESUME, "resume", "SWEEP", "finish a sweep: its cases without a result, and errors" },
	{ S_STATUS, "status", "SWEEP", "say how far a sweep got" },
	{ S_SHARD, "shard", "I/N", "run only shard I of N of the cases (cluster tasks)" },
	{ S_FAIL_ON, "fail-on", "LIST", "more statuses that make the exit code 1 (new,flaky,...)" },
	{ S_FORMAT, "format", "markdown|json", "the summary printed on stdout at the end" },
	{ S_HELP, "help", NULL, "print this help" },
	{ S_REFUSED, "gpu", "N", NULL },
	{ S_REFUSED, "output", "PATH", NULL },
	{ S_SLURM, "slurm", NULL, NULL },
};

/* Run options that take no argument (the rest of the run table takes one),
 * so a forwarded option's value is never mistaken for a sweep option. */
static const char *const run_flags[] = {
	"--no-sync", "--mount-clr", "--yes", "--skip-preflight", "--strict-version",
	"--strict-arch", "--keep", "--quiet", "-q", "--verbose", "-v", "--version", NULL,
};

void sweep_options_init(struct sweep_options *o)
{
	memset(o, 0, sizeof(*o));
	strvec_init(&o->images);
	strvec_init(&o->archives);
	strvec_init(&o->plans);
	strvec_init(&o->run_args);
	o->gpu_wait = -1;
	o->fail_on = SWEEP_FAIL_DEFAULT;
}

void sweep_options_release(struct sweep_options *o)
{
	char **s[] = { &o->label, &o->baseline, &o->db, &o->junit, &o->html, &o->summary,
		       &o->workdir, &o->resume, &o->status };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		free(*s[i]);
	strvec_clear(&o->images);
	strvec_clear(&o->archives);
	strvec_clear(&o->plans);
	strvec_clear(&o->run_args);
	sweep_options_init(o);
}

static int parse_long(const char *name, const char *v, long min, long *out, struct error *err)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < min)
		return error_set(err, ERR_USAGE, 0, "--%s: '%s' is not a whole number >= %ld", name,
				 v, min);
	*out = n;
	return 0;
}

static int parse_gpus(struct sweep_options *o, const char *v, struct error *err)
{
	const char *p = v;

	o->n_gpus = 0;
	while (*p) {
		char *end;
		long n = strtol(p, &end, 10);

		if (end == p || n < 0 || n > 4096 || (*end && *end != ',') ||
		    o->n_gpus == SWEEP_MAX_GPUS_OPT)
			return error_set(err, ERR_USAGE, 0, "--gpus: '%s' is not a list like 0,1,2", v);
		o->gpus[o->n_gpus++] = (int)n;
		p = *end ? end + 1 : end;
	}
	if (!o->n_gpus)
		return error_set(err, ERR_USAGE, 0, "--gpus: empty list");
	return 0;
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

static int sweep_apply(struct sweep_options *o, const struct sopt_def *d, const char *v,
		       struct error *err)
{
	const char *bad;
	size_t bad_len;
	long n;

	switch (d->id) {
	case S_IMAGE: strvec_push(&o->images, v); return 0;
	case S_ARCHIVE: strvec_push(&o->archives, v); return 0;
	case S_PLAN: strvec_push(&o->plans, v); return 0;
	case S_LABEL:
		if (!sweep_label_valid(v))
			return error_set(err, ERR_USAGE, 0,
					 "--label '%s': use letters, digits, '.', '_' and '-'", v);
		set_str(&o->label, v);
		return 0;
	case S_BASELINE: set_str(&o->baseline, v); return 0;
	case S_GPUS: return parse_gpus(o, v, err);
	case S_JOBS: return parse_long(d->name, v, 1, &o->jobs, err);
	case S_RETRY: return parse_long(d->name, v, 0, &o->retry_failed, err);
	case S_GPU_WAIT:
		if (parse_long(d->name, v, 0, &n, err) < 0)
			return -1;
		o->gpu_wait = (double)n;
		return 0;
	case S_DB: set_str(&o->db, v); return 0;
	case S_JUNIT: set_str(&o->junit, v); return 0;
	case S_HTML: set_str(&o->html, v); return 0;
	case S_SUMMARY: set_str(&o->summary, v); return 0;
	case S_WORKDIR:
		set_str(&o->workdir, v);
		strvec_pushf(&o->run_args, "--workdir=%s", v);
		return 0;
	case S_RESUME: set_str(&o->resume, v); return 0;
	case S_STATUS: set_str(&o->status, v); return 0;
	case S_SHARD:
		o->have_shard = true;
		return sweep_shard_parse(v, &o->shard_i, &o->shard_n, err);
	case S_FAIL_ON: {
		sweep_status_mask m;

		if (sweep_status_mask_parse(v, &m, &bad, &bad_len) < 0)
			return error_set(err, ERR_USAGE, 0, "--fail-on: unknown status '%.*s'",
					 (int)bad_len, bad);
		o->fail_on |= m;
		return 0;
	}
	case S_FORMAT:
		if (strcmp(v, "markdown") && strcmp(v, "json"))
			return error_set(err, ERR_USAGE, 0, "--format: markdown or json, not '%s'", v);
		o->json = !strcmp(v, "json");
		return 0;
	case S_HELP: o->want_help = true; return 0;
	case S_REFUSED:
		return error_set(err, ERR_USAGE, 0,
				 !strcmp(d->name, "gpu")
					 ? "a sweep takes no --gpu/GPU: give the pool with --gpus LIST"
					 : "a sweep takes no -o: use --summary, --junit or --html");
	case S_SLURM:
		return error_set(err, ERR_USAGE, 0,
				 "--%s: Slurm submission is not available in this version; run "
				 "`sweep --resume FOLDER --shard I/N` in your own job array",
				 d->name);
	}
	return 0;
}

static const struct sopt_def *sweep_find(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(sweep_table) / sizeof(sweep_table[0]); i++)
		if (strlen(sweep_table[i].name) == len && !strncmp(sweep_table[i].name, name, len))
			return &sweep_table[i];
	if ((len == 5 && !strncmp(name, "slurm", 5)) || (len > 6 && !strncmp(name, "slurm-", 6)) ||
	    (len == 4 && !strncmp(name, "wait", 4)))
		return &sweep_table[sizeof(sweep_table) / sizeof(sweep_table[0]) - 1];
	return NULL;
}

static bool is_run_flag(const char *a)
{
	for (size_t i = 0; run_flags[i]; i++)
		if (!strcmp(a, run_flags[i]))
			return true;
	return false;
}

int sweep_options_parse(struct sweep_options *o, int argc, char **argv, struct error *err)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *v = NULL;
		const struct sopt_def *d = NULL;

		if (!strcmp(a, "-o"))
			d = sweep_find("output", 6);
		else if (!strcmp(a, "-h"))
			d = sweep_find("help", 4);
		else if (!strncmp(a, "--", 2)) {
			eq = strchr(a, '=');
			d = sweep_find(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
			v = eq ? eq + 1 : NULL;
		}
		if (!d) {
			/* A run option: forwarded whole, with its value. */
			strvec_push(&o->run_args, a);
			if (a[0] == '-' && !strchr(a, '=') && !is_run_flag(a) && i + 1 < argc &&
			    strcmp(a, "--help") && strcmp(a, "-h"))
				strvec_push(&o->run_args, argv[++i]);
			continue;
		}
		if (d->arg && !v) {
			if (i + 1 >= argc)
				return error_set(err, ERR_USAGE, 0, "--%s needs %s", d->name, d->arg);
			v = argv[++i];
		}
		if (!d->arg && v)
			return error_set(err, ERR_USAGE, 0, "--%s takes no value", d->name);
		if (sweep_apply(o, d, v, err) < 0)
			return -1;
	}
	if (o->resume && o->status)
		return error_set(err, ERR_USAGE, 0, "--resume and --status are separate commands");
	if ((o->resume || o->status) && (o->archives.n || o->plans.n))
		return error_set(err, ERR_USAGE, 0,
				 "--resume/--status take the sweep's own plan: no --archive or --plan");
	return 0;
}

static void help_rows(const struct sopt_def *t, size_t n, struct strbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		char left[64];

		if (!t[i].help)
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", t[i].name, t[i].arg ? " " : "",
			 t[i].arg ? t[i].arg : "");
		strbuf_addf(out, "  %-28s %s\n", left, t[i].help);
	}
}

void sweep_options_help(struct strbuf *out)
{
	strbuf_addstr(out,
		      "usage: hrr-docker-replay sweep [--image REF]... [--archive PATH]... [--plan FILE]\n"
		      "                               [sweep options] [run options]\n"
		      "       hrr-docker-replay sweep --resume SWEEP [--workdir DIR]\n"
		      "       hrr-docker-replay sweep --status SWEEP [--workdir DIR]\n\n"
		      "Replays every case (pid directory x image), on disjoint GPUs, records the\n"
		      "results in the sweep folder and the history database, and compares them\n"
		      "with the label's previous sweep. Every run option (see `run --help`)\n"
		      "applies to every case. Exit: 1 regressed/changed/missing, 5 errors or\n"
		      "interrupted, 75 nothing could run for busy GPUs, 64 usage, else 0.\n\n"
		      "Sweep options:\n");
	help_rows(sweep_table, sizeof(sweep_table) / sizeof(sweep_table[0]), out);
}

/* ---- history ---- */

void history_options_init(struct history_options *o)
{
	memset(o, 0, sizeof(*o));
	o->last = 10;
	o->keep = -1;
}

void history_options_release(struct history_options *o)
{
	free(o->label);
	free(o->case_name);
	free(o->db);
	free(o->workdir);
	history_options_init(o);
}

enum hopt { H_LABEL, H_CASE, H_LAST, H_KEEP, H_FORMAT, H_DB, H_WORKDIR, H_HELP };

static const struct {
	enum hopt id;
	const char *name, *arg, *help;
} history_table[] = {
	{ H_LABEL, "label", "L", "only this label's sweeps" },
	{ H_CASE, "case", "NAME", "one case's trend" },
	{ H_LAST, "last", "N", "the last N sweeps (default 10)" },
	{ H_KEEP, "keep", "N", "prune: keep the last N sweeps of each label (or of --label)" },
	{ H_FORMAT, "format", "markdown|json", "output format (default markdown)" },
	{ H_DB, "db", "PATH", "history database (default ~/.local/share/hrr-docker-replay/history.sqlite)" },
	{ H_WORKDIR, "workdir", "DIR", "accepted for symmetry with sweep; folders come from the database" },
	{ H_HELP, "help", NULL, "print this help" },
};

static int history_apply(struct history_options *o, enum hopt id, const char *name, const char *v,
			 struct error *err)
{
	switch (id) {
	case H_LABEL: set_str(&o->label, v); return 0;
	case H_CASE: set_str(&o->case_name, v); return 0;
	case H_LAST: return parse_long(name, v, 1, &o->last, err);
	case H_KEEP: return parse_long(name, v, 0, &o->keep, err);
	case H_FORMAT:
		if (strcmp(v, "markdown") && strcmp(v, "json"))
			return error_set(err, ERR_USAGE, 0, "--format: markdown or json, not '%s'", v);
		o->json = !strcmp(v, "json");
		return 0;
	case H_DB: set_str(&o->db, v); return 0;
	case H_WORKDIR: set_str(&o->workdir, v); return 0;
	case H_HELP: o->want_help = true; return 0;
	}
	return 0;
}

int history_options_parse(struct history_options *o, int argc, char **argv, struct error *err)
{
	int i = 1;

	if (i < argc && !strcmp(argv[i], "prune")) {
		o->prune = true;
		i++;
	}
	for (; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '='), *v = NULL;
		size_t len, k, n = sizeof(history_table) / sizeof(history_table[0]);

		if (!strcmp(a, "-h"))
			a = "--help";
		if (strncmp(a, "--", 2))
			return error_set(err, ERR_USAGE, 0, "history: unexpected '%s'", a);
		len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		for (k = 0; k < n; k++)
			if (strlen(history_table[k].name) == len &&
			    !strncmp(history_table[k].name, a + 2, len))
				break;
		if (k == n)
			return error_set(err, ERR_USAGE, 0, "history: unknown option '%s'", a);
		v = eq ? eq + 1 : NULL;
		if (history_table[k].arg && !v) {
			if (i + 1 >= argc)
				return error_set(err, ERR_USAGE, 0, "--%s needs %s",
						 history_table[k].name, history_table[k].arg);
			v = argv[++i];
		}
		if (history_apply(o, history_table[k].id, history_table[k].name, v, err) < 0)
			return -1;
	}
	if (o->prune && o->keep < 0 && !o->want_help)
		return error_set(err, ERR_USAGE, 0, "history prune needs --keep N");
	if (!o->prune && o->keep >= 0)
		return error_set(err, ERR_USAGE, 0, "--keep belongs to `history prune`");
	return 0;
}

void history_options_help(struct strbuf *out)
{
	strbuf_addstr(out,
		      "usage: hrr-docker-replay history [--label L] [--case NAME] [--last N]\n"
		      "                                 [--format markdown|json] [--db PATH]\n"
		      "       hrr-docker-replay history prune --keep N [--label L] [--db PATH]\n\n"
		      "The outcomes of past sweeps, per case, oldest first; prune removes all\n"
		      "but the last N sweeps of a label from the database and their folders.\n\n");
	for (size_t i = 0; i < sizeof(history_table) / sizeof(history_table[0]); i++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", history_table[i].name,
			 history_table[i].arg ? " " : "", history_table[i].arg ? history_table[i].arg : "");
		strbuf_addf(out, "  %-28s %s\n", left, history_table[i].help);
	}
}
