/* `history`: what past sweeps said, per case (docs/sweep.md "The history database"); `history prune --keep N` removes old sweeps from the database
 * and their folders from disk. */
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/owned.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_copy.h"
#include "orchestrator/history/history_changes.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/history/history_gpus.h"
#include "orchestrator/history/history_known.h"
#include "orchestrator/history/history_perf.h"
#include "orchestrator/history/history_signatures.h"
#include "orchestrator/site/site.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "common/say.h"
#include "orchestrator/cli/cmd_known.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"

const char cmd_history_usage[] =
	"Usage: hrr-docker-replay history [--label L] [--host H] [--case NAME] [--last N]\n"
	"                                 [--format markdown|json] [--db PATH]\n"
	"       hrr-docker-replay history prune --keep N [--label L] [--host H] [--db PATH]\n"
	"       hrr-docker-replay history gpus [--label L] [--last N] [--format markdown|json]\n"
	"       hrr-docker-replay history perf --case NAME [--label L] [--last N]\n"
	"                                      [--format markdown|json]\n"
	"       hrr-docker-replay history perf --changes [--label L] [--case NAME]\n"
	"                                      [--format markdown|json]\n"
	"       hrr-docker-replay history perf --accept CASE --night SWEEP\n"
	"       hrr-docker-replay history copy --from SRC --to DST\n"
	"       hrr-docker-replay history site DIR [--label L] [--host H] [--last N] [--db PATH]\n"
	"       hrr-docker-replay history signatures [--label L] [--last N] [--format markdown|json]\n"
	"       hrr-docker-replay history known [--known-issues FILE] [--label L] [--last N]\n"
	"                                       [--format markdown|json]\n"
	"       hrr-docker-replay history remark [--known-issues FILE] [--label L] [--last N]\n"
	"                                        [--dry-run]\n\n"
	"The outcomes of the last sweeps per case, from the history database;\n"
	"prune removes all but the last N sweeps of each label (or of --label)\n"
	"from the database and their folders from disk; gpus lists failure rates\n"
	"per GPU identity (KFD unique_id) and per node over the last sweeps; perf\n"
	"prints a case's GPU-time samples per sweep, --changes the change points of\n"
	"each case's GPU time, --accept marks one intended (docs/perf.md); site\n"
	"writes a static site of the last N sweeps (default 60) of each label into DIR;\n"
	"signatures lists the failure signatures no known issue matched; known lists\n"
	"each known-issue rule with the failures it matches in the last sweeps and\n"
	"those that matched none (maybe fixed); remark marks the failures of the\n"
	"last sweeps again with the rules as they are now, after a rule changed\n"
	"(the history only: `sweep --merge` or the site regenerate the reports).\n"
	"Exit: 0, 5 the database cannot be read, 64 usage error.\n";

/* Markdown rows go to stdout every 64 KiB: a label's 100,000 rows are
 * never one 6 MB string (whose pages cost a tenth of the command). */
#define TREND_FLUSH (64u << 10)

struct trend_out {
	cJSON *json;           /* --format json: the rows */
	struct strbuf md;      /* rows not yet written */
	bool any;              /* a row was listed */
	const char *last_sweep;
	char last_sweep_buf[256];
};

/* The one markdown escaping of every report (common/text.h). */
static void md_clean(struct strbuf *out, const char *s)
{
	text_markdown_cell(out, s ? s : "-");
}

static int trend_row(void *ctx, const struct history_trend_row *r)
{
	struct trend_out *t = ctx;

	if (t->json) {
		cJSON *o = cJSON_CreateObject();
		cleanup_free char *k = text_sanitized(r->kernel ? r->kernel : "", TEXT_STRIP_ANSI);

		cJSON_AddStringToObject(o, "sweep", r->sweep_id);
		cJSON_AddStringToObject(o, "label", r->label);
		cJSON_AddNumberToObject(o, "started", (double)r->started);
		cJSON_AddStringToObject(o, "case", r->case_name);
		cJSON_AddStringToObject(o, "image", r->image);
		cJSON_AddStringToObject(o, "state", r->state);
		if (r->outcome)
			cJSON_AddStringToObject(o, "outcome", r->outcome);
		else
			cJSON_AddNullToObject(o, "outcome");
		if (r->kernel)
			cJSON_AddStringToObject(o, "kernel_name", k);
		cJSON_AddNumberToObject(o, "attempts", r->attempts);
		cJSON_AddItemToArray(t->json, o);
		return 0;
	}
	if (!t->last_sweep || strcmp(t->last_sweep, r->sweep_id)) {
		char when[32];
		time_t s = (time_t)r->started;
		struct tm tm;

		gmtime_r(&s, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
		strbuf_addf(&t->md, "\n## %s (%s)\n\n| case | image | outcome | kernel |\n"
				    "| --- | --- | --- | --- |\n", r->sweep_id, when);
		snprintf(t->last_sweep_buf, sizeof(t->last_sweep_buf), "%s", r->sweep_id);
		t->last_sweep = t->last_sweep_buf;
	}
	strbuf_addstr(&t->md, "| ");
	md_clean(&t->md, r->case_name);
	strbuf_addstr(&t->md, " | ");
	md_clean(&t->md, r->image);
	strbuf_addstr(&t->md, " | ");
	md_clean(&t->md, r->outcome ? r->outcome : r->state);
	strbuf_addstr(&t->md, " | ");
	md_clean(&t->md, r->kernel);
	strbuf_addstr(&t->md, " |\n");
	t->any = true;
	if (t->md.len >= TREND_FLUSH) {
		fwrite(t->md.buf, 1, t->md.len, stdout);
		strbuf_reset(&t->md);
	}
	return 0;
}

/* A folder row is followed only when it is absolute, <...>/sweeps/<id>,
 * with no symlink on its path, the caller's own in a directory that is the
 * caller's or sticky, and its plan.json names that sweep: a forged row
 * must not make prune delete someone's directory. Removed by descriptors
 * (common/owned.h), never following a link. */
static int remove_folder(const char *id, const char *folder, struct error *err)
{
	const char *base = strrchr(folder, '/');
	cleanup_free char *parent = base ? xstrndup(folder, (size_t)(base - folder)) : NULL;
	const char *pbase = parent ? strrchr(parent, '/') : NULL;
	struct sweep_meta m;
	cleanup_close int pfd = -1;
	int rc;

	if (folder[0] != '/' || !base || strcmp(base + 1, id) || !pbase || strcmp(pbase + 1, "sweeps"))
		return error_set(err, ERR_DATA, 0, "its folder %s is not <workdir>/sweeps/%s", folder, id);
	if (!owned_path_has_no_symlink(folder))
		return error_set(err, ERR_DATA, 0, "its folder %s has a symlink on its path", folder);
	if (sweep_folder_check(folder, err) < 0)
		return -1;
	sweep_meta_init(&m);
	rc = sweep_meta_read(&m, folder, err) < 0 ? -1
	     : strcmp(m.id, id) ? error_set(err, ERR_DATA, 0, "%s/%s names another sweep (%s)",
					    folder, SWEEP_PLAN_FILE, m.id)
				: 0;
	sweep_meta_release(&m);
	if (rc < 0 || (pfd = owned_dir_open(parent, "sweeps directory", OWNED_STICKY_SHARED, err)) < 0)
		return -1;
	return owned_remove_tree(pfd, id, err);
}

static int prune(struct history_db *db, const struct options *opts)
{
	const struct sweep_options *o = &opts->sweep;
	cleanup_strvec struct strvec ids = STRVEC_INIT, folders = STRVEC_INIT;
	struct error err;
	int code = 0;

	if (history_db_prune_host(db, o->label, o->host, (int)o->keep, &ids, &folders, &err) < 0) {
		say_error("%s", err.msg);
		return 5;
	}
	/* The database first: a folder left behind is only disk, a row
	 * without its folder would be a broken link in the reports. */
	for (size_t i = 0; i < ids.n; i++) {
		if (!folders.v[i][0])
			continue;
		if (remove_folder(ids.v[i], folders.v[i], &err) < 0) {
			say_warning("sweep %s: %s: its folder is left as it is", ids.v[i], err.msg);
			code = 5;
			continue;
		}
		printf("removed %s\n", folders.v[i]);
	}
	printf("%zu sweep(s) pruned\n", ids.n);
	return code;
}

/* No database yet: nothing was recorded, and nothing is created. */
static int no_history(const struct options *opts)
{
	printf("%s", opts->format == FORMAT_JSON ? "[]\n" : "# History\n\nNo sweeps recorded.\n");
	return 0;
}

/* `history site DIR`: the static site (docs/sweep.md "The history site"). */
static int site(struct history_db *db, const struct options *opts)
{
	const struct sweep_options *o = &opts->sweep;
	struct site_options so = { .label = o->label, .last = (int)o->last, .host = o->host };
	struct site_stats st;
	struct error err;

	if (history_site_generate(db, o->site_dir, &so, &st, &err) < 0) {
		say_error("%s", err.msg);
		return err.kind == ERR_USAGE ? 64 : 5;
	}
	printf("%s/%s: %zu label(s), %zu case(s), %zu result(s); %zu page(s): %zu written, "
	       "%zu unchanged, %zu removed\n",
	       o->site_dir, SITE_INDEX_PAGE, st.labels, st.cases, st.results, st.pages, st.written,
	       st.kept, st.removed);
	return 0;
}

/* `history gpus`: failure rates per GPU identity and per node. */
static int gpus(struct history_db *db, const struct options *opts)
{
	const struct sweep_options *o = &opts->sweep;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct error err;
	int code = 0;

	if (history_gpus_report(db, o->label, (int)o->last, opts->format == FORMAT_JSON, &out,
				&err) < 0) {
		say_error("%s", err.msg);
		code = 5;
	}
	fwrite(out.buf, 1, out.len, stdout);
	return code;
}

/* The known-issues file of `history known` and `remark`: --known-issues,
 * else the one beside the database; none, or a bad one, is a usage error. */
static int load_rules(const struct sweep_options *o, struct known_issues *k)
{
	cleanup_free char *dflt = history_db_default_path();
	cleanup_free char *beside = cmd_known_beside(o->db ? o->db : dflt);
	enum known_from from = o->known_issues ? KNOWN_NAMED : KNOWN_BESIDE;
	bool have = false;
	struct error err;

	if (!o->known_issues && !beside) {
		say_error("a history on a server has no known-issues file beside it: give the rules "
			  "with --known-issues FILE");
		return -1;
	}
	if (cmd_known_load(o->known_issues ? o->known_issues : beside, from, k, &have, &err) < 0) {
		say_error("%s%s", err.msg,
			  o->known_issues ? "" : " (give the rules with --known-issues FILE)");
		return -1;
	}
	return 0;
}

/* `history known`: the known-issues rules against the last sweeps. */
static int known(struct history_db *db, const struct options *opts)
{
	const struct sweep_options *o = &opts->sweep;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct known_issues k = { 0 };
	struct error err;
	int code = 0;

	if (load_rules(o, &k) < 0)
		return 64;
	if (history_known_report(db, &k, o->label, (int)o->last, (long long)time(NULL),
				 opts->format == FORMAT_JSON, &out, &err) < 0) {
		say_error("%s", err.msg);
		code = 5;
	}
	fwrite(out.buf, 1, out.len, stdout);
	known_issues_release(&k);
	return code;
}

/* `history remark`: the history's known-issue marks, matched again with
 * the rules as they are now. */
static int remark(struct history_db *db, const struct options *opts)
{
	const struct sweep_options *o = &opts->sweep;
	struct known_issues k = { 0 };
	struct history_remark n;
	struct error err;
	int code = 0;

	if (load_rules(o, &k) < 0)
		return 64;
	if (history_remark(db, &k, o->label, (int)o->last, (long long)time(NULL), o->dry_run, &n,
			   &err) < 0) {
		say_error("%s", err.msg);
		code = 5;
	} else {
		printf("%zu of %zu failure(s) %s: %zu newly known, %zu no longer known, %zu "
		       "marked with another issue\n",
		       n.known + n.unknown + n.other, n.failures,
		       o->dry_run ? "would be re-marked (--dry-run: nothing written)" : "re-marked",
		       n.known, n.unknown, n.other);
	}
	known_issues_release(&k);
	return code;
}

/* `history perf --accept CASE --night SWEEP`: one line, the change is
 * intended (docs/perf.md "Change points"). */
static int perf_accept(struct history_db *db, const struct sweep_options *o)
{
	cleanup_free char *label = NULL;
	struct error err;

	if (history_changes_accept(db, o->accept, o->night, &label, &err) < 0) {
		say_error("%s", err.msg);
		return err.kind == ERR_NOT_FOUND ? 64 : 5;
	}
	printf("accepted: the GPU-time change of %s at sweep %s (label %s) is intended; its "
	       "series restarts there\n", o->accept, o->night, label);
	return 0;
}

/* `history perf --case NAME`: the case's GPU-time series; `--changes`:
 * the change points (docs/perf.md). */
static int perf(struct history_db *db, const struct options *opts)
{
	const struct sweep_options *o = &opts->sweep;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct error err;
	bool json = opts->format == FORMAT_JSON;
	int code = 0;

	if (o->accept)
		return perf_accept(db, o);
	if ((o->perf_changes
		     ? history_changes_report(db, o->label, o->case_name, json, &out, &err)
		     : history_perf_report(db, o->label, o->case_name, (int)o->last, json, &out,
					   &err)) < 0) {
		say_error("%s", err.msg);
		code = 5;
	}
	fwrite(out.buf, 1, out.len, stdout);
	return code;
}

static int signatures(struct history_db *db, const struct options *opts)
{
	const struct sweep_options *o = &opts->sweep;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct error err;
	int code = 0;

	if (history_signatures_report(db, o->label, (int)o->last, opts->format == FORMAT_JSON,
				      &out, &err) < 0) {
		say_error("%s", err.msg);
		code = 5;
	}
	fwrite(out.buf, 1, out.len, stdout);
	return code;
}

/* The default action: the label's (or one case's) last sweeps. */
static int show_trend(struct history_db *db, const struct options *opts)
{
	const struct sweep_options *o = &opts->sweep;
	struct trend_out t = { 0 };
	struct error err;
	int code = 0;

	strbuf_init(&t.md, TREND_FLUSH + 4096);
	if (opts->format == FORMAT_JSON)
		t.json = cJSON_CreateArray();
	else
		printf("# History%s%s%s%s\n", o->label ? " of " : "", o->label ? o->label : "",
		       o->case_name ? ", case " : "", o->case_name ? o->case_name : "");
	if (history_db_trend_host(db, o->label, o->host, o->case_name, (int)o->last, trend_row, &t,
				  &err) < 0) {
		/* The rows listed before it stay written. */
		fwrite(t.md.buf, 1, t.md.len, stdout);
		say_error("%s", err.msg);
		code = 5;
	} else if (t.json) {
		cleanup_free char *text = cJSON_Print(t.json);

		printf("%s\n", text);
	} else {
		fputs(t.any ? t.md.buf : "\nNo sweeps recorded.\n", stdout);
	}
	cJSON_Delete(t.json);
	strbuf_release(&t.md);
	return code;
}

static const struct history_action history_actions[] = {
	{ "prune", prune, true },
	{ "gpus", gpus, false },
	{ "site", site, false },
	{ "signatures", signatures, false },
	{ "known", known, false },
	{ "remark", remark, true },
	{ "perf", perf, false },
	{ "copy", NULL, true }, /* two histories: copy_command */
};

/* `history copy --from SRC --to DST`: SRC read only, DST created or
 * migrated; each named without its password. */
static int copy_command(const struct sweep_options *o)
{
	struct history_db *from = NULL, *to = NULL;
	cleanup_free char *src = history_db_shown(o->copy_from), *dst = history_db_shown(o->copy_to);
	struct error err;
	size_t n = 0;
	int code = 0;

	if (history_db_open_readonly(&from, o->copy_from, &err) < 0 ||
	    history_db_open(&to, o->copy_to, &err) < 0 || history_db_copy(from, to, &n, &err) < 0) {
		say_error("%s", err.msg);
		code = err.kind == ERR_USAGE ? 64 : 5;
	}
	if (!code)
		printf("%zu sweep(s) copied from %s to %s\n", n, src, dst);
	history_db_close(from);
	history_db_close(to);
	return code;
}

const struct history_action *history_action_find(const char *name)
{
	for (size_t i = 0; i < sizeof(history_actions) / sizeof(history_actions[0]); i++)
		if (!strcmp(history_actions[i].name, name))
			return &history_actions[i];
	return NULL;
}

int history_command(struct options *opts)
{
	const struct sweep_options *o = &opts->sweep;
	const struct history_action *act =
		o->history_action ? history_action_find(o->history_action) : NULL;
	struct history_db *db = NULL;
	struct error err;
	cleanup_free char *dflt = history_db_default_path();
	int code;

	if (act && !strcmp(act->name, "copy"))
		return copy_command(o);
	/* Only an action that writes opens the database read-write. */
	if ((act && (act->writes || o->accept) ? history_db_open(&db, o->db ? o->db : dflt, &err)
		 : history_db_open_readonly(&db, o->db ? o->db : dflt, &err)) < 0) {
		if (err.kind == ERR_NOT_FOUND)
			return no_history(opts);
		say_error("%s", err.msg);
		return err.kind == ERR_USAGE ? 64 : 5;
	}
	if (history_db_warning(db))
		say_warning("%s", history_db_warning(db));
	code = act ? act->run(db, opts) : show_trend(db, opts);
	history_db_close(db);
	return code;
}
