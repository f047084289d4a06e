#include "orchestrator/cli/history_options.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options_table.h"
#include "orchestrator/cli/option_values.h"
#include "common/xalloc.h"
#include "orchestrator/site/site_options.h"

#include <string.h>

static const struct option_def history_rows[] = {
	{ OPT_CASE, "case", 0, "NAME", NULL, FOR_HISTORY | FOR_BISECT, "one case's trend" },
	{ OPT_LAST, "last", 0, "N", NULL, FOR_HISTORY, "the last N sweeps (default 10)" },
	{ OPT_KEEP_LAST, "keep-last", 0, "N", NULL, FOR_HISTORY,
	  "prune: keep the last N sweeps of each label (or of --label); also --keep N" },
	{ OPT_COPY_FROM, "from", 0, "DB", NULL, FOR_HISTORY,
	  "copy: the history copied (a file or a PostgreSQL URI, as --db)" },
	{ OPT_COPY_TO, "to", 0, "DB", NULL, FOR_HISTORY,
	  "copy: the history it is copied into (created or migrated as --db is)" },
	{ OPT_DRY_RUN, "dry-run", 0, NULL, NULL, FOR_HISTORY | FOR_GC,
	  "remark: count the marks the rules would change, write nothing;\n"
	  "                                   gc --pulled-images: list what would go, remove nothing" },
	{ OPT_CHANGES, "changes", 0, NULL, NULL, FOR_HISTORY,
	  "perf: the change points of each case's GPU time (or --case's)" },
	{ OPT_ACCEPT, "accept", 0, "CASE", NULL, FOR_HISTORY,
	  "perf: mark the change of CASE at --night SWEEP intended" },
	{ OPT_NIGHT, "night", 0, "SWEEP", NULL, FOR_HISTORY,
	  "perf --accept: the sweep whose change is intended" },
};

static int history_option_apply(struct sweep_options *s, enum option_id id, const char *v,
				const char *from, bool from_env, struct error *err)
{

	(void)from_env; /* no env twin here */
	switch (id) {
	case OPT_CASE: options_set_string(&s->case_name, v); return 0;
	case OPT_LAST: return options_parse_long(from, v, 1, &s->last, err);
	case OPT_KEEP_LAST: return options_parse_long(from, v, 0, &s->keep, err);
	case OPT_DRY_RUN: s->dry_run = true; return 0;
	case OPT_COPY_FROM: options_set_string(&s->copy_from, v); return 0;
	case OPT_COPY_TO: options_set_string(&s->copy_to, v); return 0;
	case OPT_CHANGES: s->perf_changes = true; return 0;
	case OPT_ACCEPT: options_set_string(&s->accept, v); return 0;
	case OPT_NIGHT: options_set_string(&s->night, v); return 0;
	default: return error_set(err, ERR_USAGE, 0, "internal: %s is not a history option", from);
	}
}

const struct option_slice history_option_slice = SWEEP_OPTION_SLICE(history_rows, history_option_apply);

int history_options_words(struct sweep_options *s, int argc, char **argv, struct error *err)
{
	const struct history_action *act = argc > 2 ? history_action_find(argv[2]) : NULL;
	int first = 2;

	if (!act)
		return first;
	s->history_action = act->name;
	first = 3;
	if (!strcmp(act->name, "site")) {
		/* `history site DIR` (docs/sweep.md "The history site"). */
		if (argc < 4 || argv[3][0] == '-')
			return error_set(err, ERR_USAGE, 0,
					 "history site needs a directory: history site DIR");
		s->site_dir = xstrdup(argv[3]);
		s->last = SITE_DEFAULT_LAST;
		first = 4;
	}
	if (!strcmp(act->name, "prune"))
		/* `history prune --keep N` (docs/sweep.md); --keep is also
		 * run's flag, so the table spells this one --keep-last. */
		for (int i = first; i < argc; i++)
			if (!strcmp(argv[i], "--keep"))
				argv[i] = (char *)"--keep-last";
	return first;
}

/* history perf: --case NAME, --changes, or --accept CASE --night SWEEP. */
static int perf_validate(const struct sweep_options *s, struct error *err)
{
	bool perf = s->history_action && !strcmp(s->history_action, "perf");

	if (!perf && (s->perf_changes || s->accept || s->night))
		return error_set(err, ERR_USAGE, 0, "--%s belongs to `history perf`",
				 s->perf_changes ? "changes" : s->accept ? "accept" : "night");
	if (!perf)
		return 0;
	if (!!s->accept != !!s->night)
		return error_set(err, ERR_USAGE, 0, "history perf --accept CASE needs --night SWEEP");
	if (s->accept && (s->perf_changes || s->case_name))
		return error_set(err, ERR_USAGE, 0,
				 "history perf --accept takes no --changes or --case");
	if (!s->case_name && !s->perf_changes && !s->accept)
		return error_set(err, ERR_USAGE, 0,
				 "history perf needs --case NAME, --changes or --accept CASE");
	return 0;
}

int history_options_validate(const struct sweep_options *s, struct error *err)
{
	bool prune = s->history_action && !strcmp(s->history_action, "prune");
	bool copy = s->history_action && !strcmp(s->history_action, "copy");

	if (prune && s->keep < 0)
		return error_set(err, ERR_USAGE, 0, "history prune needs --keep N");
	if (!prune && s->keep >= 0)
		return error_set(err, ERR_USAGE, 0, "--keep belongs to `history prune`");
	if (perf_validate(s, err) < 0)
		return -1;
	if (s->dry_run && !(s->history_action && !strcmp(s->history_action, "remark")))
		return error_set(err, ERR_USAGE, 0, "--dry-run belongs to `history remark`");
	if (copy != (s->copy_from || s->copy_to) || (copy && !(s->copy_from && s->copy_to)))
		return error_set(err, ERR_USAGE, 0,
				 "--from and --to belong together to `history copy --from SRC "
				 "--to DST`");
	if (s->host && s->history_action && strcmp(s->history_action, "prune") &&
	    strcmp(s->history_action, "site"))
		return error_set(err, ERR_USAGE, 0,
				 "--host belongs to `history`, `history prune` and `history site`");
	if (s->site_dir && s->case_name)
		return error_set(err, ERR_USAGE, 0, "history site shows every case: no --case");
	return 0;
}
