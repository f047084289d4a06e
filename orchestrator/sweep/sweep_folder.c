#include "orchestrator/sweep/sweep_folder.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/owned.h"
#include "common/xalloc.h"
#include "orchestrator/perf/perf_samples.h"
#include "orchestrator/perf/perf_fdr.h"
#include "orchestrator/perf/perf_nights.h"
#include "orchestrator/sweep/sweep_json.h"
#include "orchestrator/sweep/sweep_plan_json.h"
#include "orchestrator/sweep/sweep_plan_lines.h"

#define PLAN_JSON_MAX (64u << 20)
/* 2: the cases in SWEEP_CASES_FILE, the private file's env values by case
 * index; 1 (still read): both files listed every case in "cases". */
#define PLAN_JSON_VERSION 2
#define PLAN_JSON_VERSION_INLINE 1

void sweep_meta_init(struct sweep_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->gpu_wait = -1;
	m->fail_on = SWEEP_FAIL_DEFAULT;
	m->perf_window = 1;
	m->perf_rule = (struct perf_rule){ PERF_THRESHOLD_DEFAULT, PERF_ALPHA_DEFAULT,
					   PERF_MAX_CV_DEFAULT };
	m->perf_family = (struct perf_family){ PERF_FDR_DEFAULT, PERF_NOISE_NIGHTS_DEFAULT };
}

void sweep_meta_release(struct sweep_meta *m)
{
	free(m->id);
	free(m->label);
	free(m->host);
	free(m->tool_version);
	free(m->baseline);
	free(m->db);
	free(m->known_issues);
	for (size_t i = 0; i < m->n_images; i++) {
		free(m->images[i].ref);
		free(m->images[i].id);
		free(m->images[i].digest);
		free(m->images[i].error);
	}
	free(m->images);
	free(m->run_options);
	free(m->notify);
	free(m->perf_baseline);
	sweep_plan_release(&m->plan);
	sweep_meta_init(m);
}

const struct sweep_image *sweep_meta_image(const struct sweep_meta *m, const char *ref)
{
	for (size_t i = 0; i < m->n_images; i++)
		if (!strcmp(m->images[i].ref, ref))
			return &m->images[i];
	return NULL;
}

void sweep_meta_add_image(struct sweep_meta *m, const char *ref)
{
	if (sweep_meta_image(m, ref))
		return;
	m->images = xrealloc(m->images, (m->n_images + 1) * sizeof(*m->images));
	m->images[m->n_images++] = (struct sweep_image){ .ref = xstrdup(ref),
							       .manifest_size = -1 };
}

static void sweep_runopts_redact(cJSON *j);

static cJSON *runopts_redacted(const char *run_options)
{
	cJSON *j = run_options ? cJSON_Parse(run_options) : NULL;

	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return cJSON_CreateObject();
	}
	sweep_runopts_redact(j);
	return j;
}

/* What plan.json leaves out, for the caller alone. */
static int private_write(const struct sweep_meta *m, const char *folder, struct error *err)
{
	cleanup_cjson cJSON *o = cJSON_CreateObject();
	cleanup_free char *text = NULL, *path = xasprintf("%s/%s", folder, SWEEP_PRIVATE_FILE);
	cJSON *run = m->run_options ? cJSON_Parse(m->run_options) : NULL;

	cJSON_AddNumberToObject(o, "version", PLAN_JSON_VERSION);
	cJSON_AddItemToObject(o, "run_options", cJSON_IsObject(run) ? run : cJSON_CreateObject());
	if (run && !cJSON_IsObject(run))
		cJSON_Delete(run);
	cJSON_AddItemToObject(o, "env", sweep_plan_env_json(&m->plan));
	if (m->notify) {
		cJSON *n = cJSON_Parse(m->notify);

		if (cJSON_IsArray(n))
			cJSON_AddItemToObject(o, "notify", n);
		else
			cJSON_Delete(n);
	}
	text = cJSON_Print(o);
	return fs_write_atomic(path, text, strlen(text), 0600, err);
}

/* The cases' env values of SWEEP_PRIVATE_FILE o over the plan's: by case
 * index ("env"), or, written by the previous version, every case again
 * ("cases"). */
static int private_cases(struct sweep_meta *m, const cJSON *o, const char *path,
			 struct error *err)
{
	const cJSON *cases = cJSON_GetObjectItemCaseSensitive(o, "cases");
	struct sweep_plan full = { 0 };

	if (!cases)
		return sweep_plan_env_from_json(&m->plan, cJSON_GetObjectItemCaseSensitive(o, "env"),
						path, err);
	if (sweep_plan_from_json(&full, cases, err) < 0 || full.n != m->plan.n) {
		sweep_plan_release(&full);
		return -1;
	}
	for (size_t i = 0; i < full.n; i++) {
		strvec_clear(&m->plan.cases[i].env);
		for (size_t e = 0; e < full.cases[i].env.n; e++)
			strvec_push(&m->plan.cases[i].env, full.cases[i].env.v[e]);
	}
	sweep_plan_release(&full);
	return 0;
}

/* SWEEP_PRIVATE_FILE over what plan.json said. */
static int private_read(struct sweep_meta *m, const char *folder, struct error *err)
{
	cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_PRIVATE_FILE);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *o = NULL;
	const cJSON *run;
	struct stat st;

	if (lstat(path, &st) < 0 && errno == ENOENT)
		return 0;
	if (fs_read_private_file(path, PLAN_JSON_MAX, &text, err) < 0) {
		err->kind = ERR_DATA;
		return error_prefix(err, "sweep folder %s: ", folder);
	}
	o = cJSON_Parse(text.buf);
	strbuf_release(&text);
	run = cJSON_GetObjectItemCaseSensitive(o, "run_options");
	if (!cJSON_IsObject(run) || private_cases(m, o, path, err) < 0)
		return error_set(err, ERR_DATA, 0, "%s does not match plan.json: move the sweep folder aside",
				 path);
	free(m->run_options);
	m->run_options = cJSON_PrintUnformatted(run);
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "notify");

		free(m->notify);
		m->notify = cJSON_IsArray(n) ? cJSON_PrintUnformatted(n) : NULL;
	}
	m->has_private = true;
	return 0;
}

int sweep_meta_migrate(const struct sweep_meta *m, const char *folder, struct error *err)
{
	return m->has_private ? 0 : sweep_meta_write(m, folder, err);
}

/* "perf": {"baseline", "window", "threshold", "alpha", "max_cv", "fdr",
 * "noise_nights"}, and "adaptive" when --perf-adaptive is on. */
static void perf_write(cJSON *o, const struct sweep_meta *m)
{
	cJSON *p = cJSON_AddObjectToObject(o, "perf");

	json_add_str(p, "baseline", m->perf_baseline, JSON_TEXT);
	cJSON_AddNumberToObject(p, "window", (double)m->perf_window);
	cJSON_AddNumberToObject(p, "threshold", m->perf_rule.threshold);
	cJSON_AddNumberToObject(p, "alpha", m->perf_rule.alpha);
	cJSON_AddNumberToObject(p, "max_cv", m->perf_rule.max_cv);
	if (m->perf_adaptive)
		cJSON_AddNumberToObject(p, "adaptive", (double)m->perf_adaptive);
	cJSON_AddNumberToObject(p, "fdr", m->perf_family.fdr);
	cJSON_AddNumberToObject(p, "noise_nights", (double)m->perf_family.noise_nights);
}

/* The same back; a plan.json from before it keeps the defaults, and a
 * value out of the options' ranges is the default too (the file is
 * read back from disk). */
static void perf_read(struct sweep_meta *m, const cJSON *o)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "perf");
	double w = sjson_num(p, "window", 1), t = sjson_num(p, "threshold", -1);
	double a = sjson_num(p, "alpha", -1), cv = sjson_num(p, "max_cv", -1);
	double ad = sjson_num(p, "adaptive", 0);
	double q = sjson_num(p, "fdr", -1), nn = sjson_num(p, "noise_nights", -1);

	if (!cJSON_IsObject(p))
		return;
	m->perf_baseline = sjson_str(p, "baseline");
	if (w >= 1 && w <= 100)
		m->perf_window = (long)w;
	if (t > 0 && t <= 1)
		m->perf_rule.threshold = t;
	if (a > 0 && a < 1)
		m->perf_rule.alpha = a;
	if (cv > 0 && cv <= 1)
		m->perf_rule.max_cv = cv;
	if (ad >= 3 && ad <= PERF_RUNS_MAX)
		m->perf_adaptive = (long)ad;
	if (q > 0 && q < 1)
		m->perf_family.fdr = q;
	if (nn >= PERF_NOISE_NIGHTS_MIN && nn <= 1000)
		m->perf_family.noise_nights = (long)nn;
}

int sweep_meta_write(const struct sweep_meta *m, const char *folder, struct error *err)
{
	cleanup_cjson cJSON *o = cJSON_CreateObject();
	cJSON *imgs, *gpus;
	cleanup_free char *text = NULL, *path = xasprintf("%s/%s", folder, SWEEP_PLAN_FILE);
	cleanup_free char *cases_path = xasprintf("%s/%s", folder, SWEEP_CASES_FILE);

	cJSON_AddNumberToObject(o, "version", PLAN_JSON_VERSION);
	json_add_str(o, "sweep", m->id, JSON_TEXT);
	json_add_str(o, "label", m->label, JSON_TEXT);
	json_add_str(o, "host", m->host, JSON_TEXT);
	json_add_str(o, "tool_version", m->tool_version, JSON_TEXT);
	json_add_str(o, "baseline", m->baseline, JSON_TEXT);
	json_add_str(o, "db", m->db, JSON_TEXT);
	json_add_str(o, "known_issues", m->known_issues, JSON_TEXT);
	cJSON_AddNumberToObject(o, "started", (double)m->started);
	if (m->started_us)
		cJSON_AddNumberToObject(o, "started_us", (double)m->started_us);
	imgs = cJSON_AddArrayToObject(o, "images");
	for (size_t i = 0; i < m->n_images; i++) {
		cJSON *im = cJSON_CreateObject();

		json_add_str(im, "ref", m->images[i].ref, JSON_TEXT);
		json_add_str(im, "id", m->images[i].id, JSON_TEXT);
		if (m->images[i].digest)
			json_add_str(im, "digest", m->images[i].digest, JSON_TEXT);
		if (m->images[i].manifest_size >= 0)
			cJSON_AddNumberToObject(im, "manifest_size",
						(double)m->images[i].manifest_size);
		if (m->images[i].error)
			json_add_str(im, "error", m->images[i].error, JSON_TEXT);
		cJSON_AddItemToArray(imgs, im);
	}
	if (m->image_budget)
		cJSON_AddNumberToObject(o, "image_budget", (double)m->image_budget);
	cJSON_AddItemToObject(o, "run_options", runopts_redacted(m->run_options));
	gpus = cJSON_AddArrayToObject(o, "gpus");
	for (size_t i = 0; i < m->n_gpus; i++)
		cJSON_AddItemToArray(gpus, cJSON_CreateNumber(m->gpus[i]));
	cJSON_AddNumberToObject(o, "jobs", (double)m->jobs);
	cJSON_AddNumberToObject(o, "retry_failed", (double)m->retry_failed);
	cJSON_AddNumberToObject(o, "gpu_wait", m->gpu_wait);
	cJSON_AddNumberToObject(o, "fail_on", m->fail_on);
	perf_write(o, m);
	cJSON_AddNumberToObject(o, "case_count", (double)m->plan.n);
	text = cJSON_Print(o);
	/* The values first: a plan.json without them is never alone; and the
	 * cases before the plan.json that counts them. */
	if (private_write(m, folder, err) < 0 ||
	    sweep_plan_lines_write(&m->plan, cases_path, err) < 0)
		return -1;
	return fs_write_atomic(path, text, strlen(text), 0644, err);
}

static void read_lists(struct sweep_meta *m, const cJSON *o)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "images")) {
		char *ref = sjson_str(it, "ref");

		if (!ref)
			continue;
		sweep_meta_add_image(m, ref);
		m->images[m->n_images - 1].id = sjson_str(it, "id");
		m->images[m->n_images - 1].digest = sjson_str(it, "digest");
		m->images[m->n_images - 1].manifest_size = json_int(it, "manifest_size", 0,
								    1LL << 50, -1);
		m->images[m->n_images - 1].error = sjson_str(it, "error");
		free(ref);
	}
	it = cJSON_GetObjectItemCaseSensitive(o, "run_options");
	if (cJSON_IsObject(it))
		m->run_options = cJSON_PrintUnformatted(it);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "gpus"))
		if (cJSON_IsNumber(it) && m->n_gpus < GPU_MAX)
			m->gpus[m->n_gpus++] = it->valueint;
}

static int plan_read(struct sweep_meta *m, const char *folder, struct error *err)
{
	cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_PLAN_FILE), *cases_path = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *o = NULL;
	double version, count;

	if (fs_read_small_file(path, PLAN_JSON_MAX, &text, err) < 0)
		return error_prefix(err, "sweep folder %s: ", folder);
	o = cJSON_Parse(text.buf);
	strbuf_release(&text); /* the tree is all that is read from here */
	version = sjson_num(o, "version", 0);
	if (!cJSON_IsObject(o) ||
	    (version != PLAN_JSON_VERSION && version != PLAN_JSON_VERSION_INLINE))
		return error_set(err, ERR_DATA, 0, "%s is not a plan.json this version reads", path);
	m->id = sjson_str(o, "sweep");
	m->label = sjson_str(o, "label");
	m->host = sjson_str(o, "host");
	m->tool_version = sjson_str(o, "tool_version");
	m->baseline = sjson_str(o, "baseline");
	m->db = sjson_str(o, "db");
	m->known_issues = sjson_str(o, "known_issues");
	m->started = (long long)sjson_num(o, "started", 0);
	m->started_us = (long long)sjson_num(o, "started_us", 0);
	m->jobs = (long)sjson_num(o, "jobs", 0);
	m->image_budget = json_int(o, "image_budget", 0, 1LL << 50, 0);
	m->retry_failed = (long)sjson_num(o, "retry_failed", 0);
	m->gpu_wait = sjson_num(o, "gpu_wait", -1);
	m->fail_on = (sweep_status_mask)sjson_num(o, "fail_on", SWEEP_FAIL_DEFAULT);
	perf_read(m, o);
	read_lists(m, o);
	if (!m->id || !m->label)
		return error_set(err, ERR_DATA, 0, "%s: no sweep id or label", path);
	if (version == PLAN_JSON_VERSION_INLINE) {
		/* A sweep folder of the previous version: its cases inline. */
		if (sweep_plan_from_json(&m->plan, cJSON_GetObjectItemCaseSensitive(o, "cases"),
					 err) < 0)
			return error_prefix(err, "%s: ", path);
		return 0;
	}
	count = sjson_num(o, "case_count", -1);
	if (count < 0 || count > PLAN_JSON_MAX || count != (double)(size_t)count)
		return error_set(err, ERR_DATA, 0, "%s: no case_count", path);
	cJSON_Delete(o);
	o = NULL; /* one file's tree at a time */
	cases_path = xasprintf("%s/%s", folder, SWEEP_CASES_FILE);
	return sweep_plan_lines_read(&m->plan, cases_path, (size_t)count, PLAN_JSON_MAX, err);
}

int sweep_meta_read(struct sweep_meta *m, const char *folder, struct error *err)
{
	/* One file's text and tree at a time: a large sweep's plan.json and
	 * run-options.json (each listing every case) are never parsed side
	 * by side. */
	if (plan_read(m, folder, err) < 0)
		return -1;
	return private_read(m, folder, err);
}

/* <workdir>/sweeps: the caller's own, or shared and sticky (a team's
 * workdir), so nobody can rename or replace the caller's sweep folders.
 * The folder is made new here: one that already exists is not ours to
 * trust (someone may have planted it). */
int sweep_folder_create(const char *workdir, const char *id, char **folder, struct error *err)
{
	cleanup_free char *dir = xasprintf("%s/sweeps", workdir);
	cleanup_close int dfd = -1, fd = -1;
	char *f;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return error_errno(err, "cannot create %s", dir);
	if ((dfd = owned_dir_open(dir, "sweeps directory", OWNED_STICKY_SHARED, err)) < 0)
		return error_append(err, "; make it yours, or chmod +t it, or use another --workdir");
	if (mkdirat(dfd, id, 0755) < 0)
		return error_errno(err, "sweep folder %s/%s", dir, id);
	f = xasprintf("%s/%s", dir, id);
	if ((fd = owned_dir_open(f, "sweep folder", 0, err)) < 0) {
		free(f);
		return -1;
	}
	*folder = f;
	return 0;
}

int sweep_folder_check(const char *folder, struct error *err)
{
	cleanup_free char *parent = xstrdup(folder);
	char *slash = strrchr(parent, '/');
	int fd;

	if (slash && slash != parent) {
		*slash = '\0';
		if ((fd = owned_dir_open(parent, "the directory of sweep folder", OWNED_STICKY_SHARED,
					 err)) < 0)
			return -1;
		close(fd);
	}
	if ((fd = owned_dir_open(folder, "sweep folder", 0, err)) < 0)
		return -1;
	close(fd);
	return 0;
}

int sweep_folder_find(const char *workdir, const char *id_or_path, char **folder,
		      struct error *err)
{
	cleanup_free char *under = workdir ? xasprintf("%s/sweeps/%s", workdir, id_or_path) : NULL;
	const char *candidates[] = { id_or_path, under };
	char real[PATH_MAX];

	for (size_t i = 0; i < 2; i++) {
		cleanup_free char *plan = NULL;
		struct stat st;

		if (!candidates[i])
			continue;
		plan = xasprintf("%s/%s", candidates[i], SWEEP_PLAN_FILE);
		if (stat(plan, &st) == 0 && realpath(candidates[i], real)) {
			/* Only the caller's own folder steers a resume, a merge or
			 * a status: its plan.json names archives and options. */
			if (sweep_folder_check(real, err) < 0) {
				err->kind = i == 0 ? ERR_USAGE : ERR_DATA;
				return error_append(err, "; only your own sweeps are resumed or merged");
			}
			*folder = xstrdup(real);
			return 0;
		}
	}
	return error_set(err, ERR_USAGE, 0, "no sweep %s (neither a folder with %s nor under %s/sweeps)",
			 id_or_path, SWEEP_PLAN_FILE, workdir ? workdir : "the workdir");
}

static int plan_key_cmp(const struct sweep_plan *plan, size_t i, const char *name,
			const char *image)
{
	int c = strcmp(plan->cases[i].name, name);

	return c ? c : strcmp(plan->cases[i].image, image);
}

/* By case and image, then plan order: a result finds the first planned
 * case of its name and image by bisection (the plan has one per pair). */
static int by_plan_key(const void *a, const void *b, void *plan)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct sweep_plan *p = plan;
	int c = plan_key_cmp(p, x, p->cases[y].name, p->cases[y].image);

	return c ? c : (x > y) - (x < y);
}

struct done_cases {
	const struct sweep_plan *plan;
	size_t *by_key;
	bool *done;
	int *next_attempt;
	size_t lines;
};

static void done_init(struct done_cases *d, const struct sweep_plan *plan, bool *done,
		      int *next_attempt)
{
	*d = (struct done_cases){ plan, xcalloc(plan->n + 1, sizeof(size_t)), done, next_attempt, 0 };
	for (size_t c = 0; c < plan->n; c++) {
		done[c] = false;
		next_attempt[c] = 1;
		d->by_key[c] = c;
	}
	qsort_r(d->by_key, plan->n, sizeof(size_t), by_plan_key, (void *)plan);
}

static int done_add(void *ctx, struct sweep_results *rs, struct error *err)
{
	struct done_cases *d = ctx;

	for (size_t i = 0; i < rs->n; i++) {
		const struct case_result *r = &rs->v[i];
		size_t lo = 0, hi = d->plan->n, c;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (plan_key_cmp(d->plan, d->by_key[mid], r->case_name, r->image) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == d->plan->n || plan_key_cmp(d->plan, (c = d->by_key[lo]), r->case_name,
						     r->image))
			continue;
		if (r->state != RESULT_ERROR)
			d->done[c] = true;
		if (r->attempt >= d->next_attempt[c])
			d->next_attempt[c] = r->attempt + 1;
	}
	d->lines += rs->n;
	(void)err;
	return 0;
}

void sweep_done_cases(const struct sweep_plan *plan, const struct sweep_results *rs, bool *done,
		      int *next_attempt)
{
	struct done_cases d;

	done_init(&d, plan, done, next_attempt);
	done_add(&d, (struct sweep_results *)rs, ERROR_DISCARD);
	free(d.by_key);
}

int sweep_done_cases_read(const struct sweep_plan *plan, const char *folder, bool *done,
			  int *next_attempt, size_t *lines, struct error *err)
{
	struct done_cases d;
	int rc;

	done_init(&d, plan, done, next_attempt);
	rc = sweep_results_each(folder, &(struct sweep_results_chunks){ 1024, done_add, &d }, err);
	free(d.by_key);
	if (lines)
		*lines = d.lines;
	return rc;
}

/* The `-e` values of a recorded description dropped, in place. */
static void sweep_runopts_redact(cJSON *j)
{
	cJSON *env = cJSON_DetachItemFromObjectCaseSensitive(j, "env"), *it;
	cJSON *names;

	if (!env)
		return;
	names = cJSON_CreateArray();
	cJSON_ArrayForEach(it, env)
		if (cJSON_IsString(it)) {
			char *name = xstrndup(it->valuestring, strcspn(it->valuestring, "="));

			cJSON_AddItemToArray(names, cJSON_CreateString(name));
			free(name);
		}
	cJSON_DeleteItemFromObjectCaseSensitive(j, "env_names");
	cJSON_AddItemToObject(j, "env_names", names);
	cJSON_Delete(env);
}

char *sweep_runopts_redact_text(const char *json)
{
	cJSON *j = json ? cJSON_Parse(json) : NULL;
	char *out;

	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return xstrdup("{}");
	}
	sweep_runopts_redact(j);
	out = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return out;
}
