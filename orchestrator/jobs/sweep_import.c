#include "orchestrator/jobs/sweep_import.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/json.h"
#include "common/xalloc.h"
#include "orchestrator/sweep/sweep_end_record.h"

static int keep_chunk(void *ctx, struct sweep_results *rs, struct error *err)
{
	struct sweep_kept *k = ctx;

	for (size_t i = 0; i < rs->n; i++)
		k->n_perf += report_perf_has_side(&rs->v[i]);
	if (k->suspects_from_results)
		sweep_suspect_inputs_add(&k->suspects, rs);
	(void)err;
	return 0;
}


/* Each failure a rule matches is known: the rule's id, link and owner go
 * with its result into the history (and so into every report). */
static void mark_known(const struct known_issues *k, struct sweep_results *rs, long long now)
{
	for (size_t i = 0; i < rs->n; i++)
		case_result_mark_known(&rs->v[i], k, now);
}

/* The results files a chunk at a time, each result marked known or not
 * before it is fingerprinted or stored. A chunk's parsed results are the
 * largest thing a reading holds that does not grow with the sweep; 256
 * keep it near 200 KB. */
#define RESULTS_CHUNK 256

struct results_src {
	const char *folder;
	const struct sweep_finish *f;
	history_results_fn fn;
	void *ctx;
	/* The report's share, kept during the first reading only (the
	 * import reads the files once more when it replaces the rows);
	 * NULL: none. */
	struct sweep_kept *keep;
	bool kept;
};

static int marked_chunk(void *ctx, struct sweep_results *rs, struct error *err)
{
	struct results_src *src = ctx;
	int rc;

	if (src->f->known)
		mark_known(src->f->known, rs, src->f->finished);
	rc = src->fn(src->ctx, rs, err);
	/* After fn: the chunk as the import read it. */
	if (rc == 0 && src->keep && !src->kept)
		rc = keep_chunk(src->keep, rs, err);
	return rc;
}

static int each_marked(void *ctx, history_results_fn fn, void *fn_ctx, struct error *err)
{
	struct results_src *src = ctx;
	struct sweep_results_chunks ch = { RESULTS_CHUNK, marked_chunk, src };
	int rc;

	src->fn = fn;
	src->ctx = fn_ctx;
	rc = sweep_results_each(src->folder, &ch, err);
	src->kept = true;
	return rc;
}

/* The planned cases' names and images for the import. With a plan to
 * release, they are kept in the report's strings (where its cases' and
 * results' names are) and the plan released before the results are read:
 * a large plan's archives and options are not held beside what the
 * report keeps of the results. */
static struct history_planned *planned_of(const struct sweep_meta *meta,
					  const struct sweep_finish *f, struct intern *names)
{
	struct history_planned *planned = xcalloc(meta->plan.n + 1, sizeof(*planned));

	for (size_t i = 0; i < meta->plan.n; i++)
		planned[i] = (struct history_planned){ meta->plan.cases[i].name,
						       meta->plan.cases[i].image };
	if (!f->release_plan)
		return planned;
	for (size_t i = 0; i < meta->plan.n; i++)
		planned[i] = (struct history_planned){ intern(names, planned[i].case_name),
						       intern(names, planned[i].image) };
	sweep_plan_release(f->release_plan);
	return planned;
}

/* HRR_DB_RETRY_S: how long a lost server is waited for (default 300 s). */
static double retry_budget_s(void)
{
	const char *v = getenv("HRR_DB_RETRY_S");
	char *end;
	double s = v && *v ? strtod(v, &end) : 300;

	return v && *v && (*end || s < 0) ? 300 : s;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The server gone mid-sweep (a restart, the network dropping): the results
 * files stay the truth, and the import (one transaction: nothing of it
 * was kept) is tried again on a new connection, waiting 1 s, then twice
 * as long each time up to 30 s, for HRR_DB_RETRY_S; then its error
 * (ERR_CONNECT, naming the database) ends the sweep, and a later
 * `sweep --merge` imports it. */
static int import_retrying(struct history_db *db, const struct history_sweep *s,
			   const struct history_planned *planned, size_t n_planned,
			   struct results_src *src, bool *rebuilt, struct error *err)
{
	double start = now_s(), budget = retry_budget_s(), wait = 1;

	for (;;) {
		int rc = history_db_import_each(db, s, planned, n_planned, each_marked, src,
						rebuilt, err);

		if (rc == 0 || err->kind != ERR_CONNECT || now_s() - start + wait > budget)
			return rc;
		events_warning(src->f->events, "%s; the import is tried again in %.0f s", err->msg,
			       wait);
		nanosleep(&(struct timespec){ (time_t)wait, 0 }, NULL);
		wait = wait * 2 > 30 ? 30 : wait * 2;
		if (history_db_reconnect(db, err) < 0 && now_s() - start + wait > budget)
			return -1;
	}
}

int sweep_import(struct history_db *db, const struct sweep_meta *meta, const char *folder,
		 const struct sweep_finish *f, struct sweep_kept *keep, struct intern *names,
		 struct error *err)
{
	struct results_src src = { .folder = folder, .f = f, .keep = keep };
	size_t n_planned = meta->plan.n;
	struct history_planned *planned = planned_of(meta, f, names);
	cleanup_strbuf struct strbuf opts = STRBUF_INIT;
	cleanup_free char *redacted = sweep_runopts_redact_text(meta->run_options);
	bool rebuilt;
	int rc;

	/* Others may read the database: the options without `-e` values. */
	strbuf_addstr(&opts, redacted);
	if (f->backend) {
		/* A cluster sweep's job ids beside its options: {"...", "backend": {...}}
		 * (histories from before say "slurm": {...}, the record alone). */
		cleanup_cjson cJSON *o = cJSON_Parse(opts.buf), *jobs = cJSON_Parse(f->backend);

		if (o && jobs && cJSON_IsObject(o)) {
			cleanup_free char *t = NULL;

			cJSON_AddItemToObject(o, "backend", jobs);
			jobs = NULL;
			t = cJSON_PrintUnformatted(o);
			strbuf_reset(&opts);
			strbuf_addstr(&opts, t);
		}
	}
	{
		cleanup_free char *fp = history_options_fingerprint(redacted);
		struct history_sweep s = {
			.run_options_fp = fp,
			.id = meta->id, .label = meta->label, .host = meta->host,
			.state = sweep_state_name(f->state), .options = opts.buf, .tool_version = meta->tool_version,
			.folder = folder, .baseline = meta->baseline, .started = meta->started,
			.started_us = meta->started_us, .finished = f->finished,
		};

		rc = import_retrying(db, &s, planned, n_planned, &src, &rebuilt, err);
	}
	free(planned);
	return rc;
}


/* How a sweep folder ended: its end record; interrupted when it has none
 * (it was killed before its reports). A folder written before the end
 * record was kept says it only in its summary.json: read there, for those
 * folders alone. */
static enum sweep_state folder_state(const char *folder)
{
	cleanup_free char *path = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	struct error err;
	enum sweep_state st;
	long long finished;

	if (sweep_end_record_read(folder, &st, &finished, &err) == 0)
		return st;
	if (err.kind != ERR_NOT_FOUND)
		return SWEEP_INTERRUPTED;
	path = xasprintf("%s/summary.json", folder);
	if (fs_read_small_file(path, 64u << 20, &text, ERROR_DISCARD) < 0)
		return SWEEP_INTERRUPTED;
	j = cJSON_Parse(text.buf);
	return sweep_state_parse(json_str(j, "state"), &st) ? st : SWEEP_INTERRUPTED;
}

static void recover_one(struct history_db *db, const char *label, const char *parent,
			const char *id, const struct job_events *ev)
{
	cleanup_free char *folder = xasprintf("%s/%s", parent, id);
	struct sweep_meta old;

	sweep_meta_init(&old);
	/* Only the caller's own folders: one planted in a shared sweeps/
	 * must not become the label's baseline. */
	if (sweep_folder_check(folder, ERROR_DISCARD) == 0 &&
	    sweep_meta_read(&old, folder, ERROR_DISCARD) == 0 && !strcmp(old.label, label) &&
	    !strcmp(old.id, id)) {
		struct sweep_finish f = { .finished = old.started };

		f.state = folder_state(folder);
		if (sweep_import(db, &old, folder, &f, NULL, NULL, ERROR_DISCARD) < 0)
			events_warning(ev, "sweep %s could not be recovered into the history", id);
	}
	sweep_meta_release(&old);
}

/* Sweeps of the label whose folders sit beside this one but that the
 * database does not know (it was moved aside, or another --db was used):
 * imported from their results files, so the baseline is the real previous
 * sweep. Folders that cannot be read are skipped: they are not this
 * sweep's. */
void sweep_import_recover(struct history_db *db, const struct sweep_meta *meta,
			  const char *folder, const struct job_events *ev)
{
	cleanup_free char *parent = xstrdup(folder);
	struct dirent **names = NULL;
	char *slash = strrchr(parent, '/');
	int n;

	if (!slash)
		return;
	*slash = '\0';
	n = scandir(parent, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *id = names[i]->d_name;
		bool known = true;

		if (id[0] != '.' && strcmp(id, meta->id) &&
		    !strncmp(id, meta->label, strlen(meta->label)) &&
		    history_db_has_sweep(db, id, &known, ERROR_DISCARD) == 0 && !known)
			recover_one(db, meta->label, parent, id, ev);
		free(names[i]);
	}
	free(names);
}
