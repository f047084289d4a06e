#include "sweep/sweep_folder.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "sweep/sweep_json.h"

#define PLAN_JSON_MAX (64u << 20)
#define PLAN_JSON_VERSION 1

void sweep_meta_init(struct sweep_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->gpu_wait = -1;
	m->fail_on = SWEEP_FAIL_DEFAULT;
}

void sweep_meta_release(struct sweep_meta *m)
{
	free(m->id);
	free(m->label);
	free(m->host);
	free(m->tool_version);
	free(m->baseline);
	free(m->db);
	for (size_t i = 0; i < m->n_images; i++) {
		free(m->images[i].ref);
		free(m->images[i].id);
		free(m->images[i].error);
	}
	free(m->images);
	free(m->run_options);
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
	m->images[m->n_images++] = (struct sweep_image){ xstrdup(ref), NULL, NULL };
}

int sweep_meta_write(const struct sweep_meta *m, const char *folder, struct error *err)
{
	cleanup_cjson cJSON *o = cJSON_CreateObject();
	cJSON *imgs, *gpus;
	cleanup_free char *text = NULL, *path = xasprintf("%s/%s", folder, SWEEP_PLAN_FILE);

	cJSON_AddNumberToObject(o, "version", PLAN_JSON_VERSION);
	sjson_add_str(o, "sweep", m->id);
	sjson_add_str(o, "label", m->label);
	sjson_add_str(o, "host", m->host);
	sjson_add_str(o, "tool_version", m->tool_version);
	sjson_add_str(o, "baseline", m->baseline);
	sjson_add_str(o, "db", m->db);
	cJSON_AddNumberToObject(o, "started", (double)m->started);
	imgs = cJSON_AddArrayToObject(o, "images");
	for (size_t i = 0; i < m->n_images; i++) {
		cJSON *im = cJSON_CreateObject();

		sjson_add_str(im, "ref", m->images[i].ref);
		sjson_add_str(im, "id", m->images[i].id);
		if (m->images[i].error)
			sjson_add_str(im, "error", m->images[i].error);
		cJSON_AddItemToArray(imgs, im);
	}
	cJSON_AddItemToObject(o, "run_options", m->run_options ? cJSON_Parse(m->run_options)
							       : cJSON_CreateObject());
	gpus = cJSON_AddArrayToObject(o, "gpus");
	for (size_t i = 0; i < m->n_gpus; i++)
		cJSON_AddItemToArray(gpus, cJSON_CreateNumber(m->gpus[i]));
	cJSON_AddNumberToObject(o, "jobs", (double)m->jobs);
	cJSON_AddNumberToObject(o, "retry_failed", (double)m->retry_failed);
	cJSON_AddNumberToObject(o, "gpu_wait", m->gpu_wait);
	cJSON_AddNumberToObject(o, "fail_on", m->fail_on);
	cJSON_AddItemToObject(o, "cases", sweep_plan_cases_json(&m->plan));
	text = cJSON_Print(o);
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

int sweep_meta_read(struct sweep_meta *m, const char *folder, struct error *err)
{
	cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_PLAN_FILE);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *o = NULL;

	if (fs_read_small_file(path, PLAN_JSON_MAX, &text, err) < 0)
		return error_prefix(err, "sweep folder %s: ", folder);
	o = cJSON_Parse(text.buf);
	if (!cJSON_IsObject(o) || sjson_num(o, "version", 0) != PLAN_JSON_VERSION)
		return error_set(err, ERR_DATA, 0, "%s is not a plan.json this version reads", path);
	m->id = sjson_str(o, "sweep");
	m->label = sjson_str(o, "label");
	m->host = sjson_str(o, "host");
	m->tool_version = sjson_str(o, "tool_version");
	m->baseline = sjson_str(o, "baseline");
	m->db = sjson_str(o, "db");
	m->started = (long long)sjson_num(o, "started", 0);
	m->jobs = (long)sjson_num(o, "jobs", 0);
	m->retry_failed = (long)sjson_num(o, "retry_failed", 0);
	m->gpu_wait = sjson_num(o, "gpu_wait", -1);
	m->fail_on = (sweep_status_mask)sjson_num(o, "fail_on", SWEEP_FAIL_DEFAULT);
	read_lists(m, o);
	if (!m->id || !m->label)
		return error_set(err, ERR_DATA, 0, "%s: no sweep id or label", path);
	if (sweep_plan_from_json(&m->plan, cJSON_GetObjectItemCaseSensitive(o, "cases"), err) < 0)
		return error_prefix(err, "%s: ", path);
	return 0;
}

int sweep_folder_create(const char *workdir, const char *id, char **folder, struct error *err)
{
	char *f = xasprintf("%s/sweeps/%s", workdir, id);

	if (fs_mkdir_p(f, 0755, err) < 0) {
		free(f);
		return error_prefix(err, "sweep folder: ");
	}
	*folder = f;
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
			*folder = xstrdup(real);
			return 0;
		}
	}
	return error_set(err, ERR_USAGE, 0, "no sweep %s (neither a folder with %s nor under %s/sweeps)",
			 id_or_path, SWEEP_PLAN_FILE, workdir ? workdir : "the workdir");
}

void sweep_done_cases(const struct sweep_plan *plan, const struct sweep_results *rs, bool *done,
		      int *next_attempt)
{
	for (size_t c = 0; c < plan->n; c++) {
		done[c] = false;
		next_attempt[c] = 1;
	}
	for (size_t i = 0; i < rs->n; i++) {
		const struct sweep_result *r = &rs->v[i];

		for (size_t c = 0; c < plan->n; c++) {
			if (strcmp(plan->cases[c].name, r->case_name) ||
			    strcmp(plan->cases[c].image, r->image))
				continue;
			if (strcmp(r->state, RESULT_ERROR))
				done[c] = true;
			if (r->attempt >= next_attempt[c])
				next_attempt[c] = r->attempt + 1;
			break;
		}
	}
}
