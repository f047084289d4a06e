#include "orchestrator/sweep/case_result.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/file_content.h"
#include "common/owned.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/finding/signature_json.h"
#include "orchestrator/perf/perf_samples_json.h"
#include "orchestrator/sweep/sweep_json.h"

#define RESULTS_MAX_BYTES (256u << 20)

void case_result_release(struct case_result *r)
{
	char **strs[] = { &r->case_name, &r->image, &r->image_id, &r->image_pin, &r->archive,
			  &r->digest, &r->class_other, &r->kernel, &r->run_dir,
			  &r->message, &r->gpu_uids, &r->host, &r->known_id,
			  &r->known_link, &r->known_owner, &r->gfx, &r->driver, &r->finding_md };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
	signature_release(&r->signature);
	if (r->perf) {
		perf_samples_release(r->perf);
		free(r->perf);
		r->perf = NULL;
	}
}

/* The manifest is optional: a pid directory may have none. */
static int hash_file(const char *path, unsigned long long *h, bool optional, struct error *err)
{
	struct error e;

	if (file_content_digest(path, h, &e) == 0)
		return 0;
	if (optional && e.kind == ERR_NOT_FOUND)
		return 0;
	*err = e;
	return -1;
}

char *sweep_archive_digest(const char *pid_dir, struct error *err)
{
	unsigned long long h = TEXT_FNV1A64_INIT;
	cleanup_free char *ev = xasprintf("%s/events.bin", pid_dir);
	cleanup_free char *mf = xasprintf("%s/manifest.json", pid_dir);

	if (hash_file(ev, &h, false, err) < 0 || hash_file(mf, &h, true, err) < 0)
		return NULL;
	return xasprintf("fnv1a64:%016llx", h);
}

static const char *const state_names[] = {
	[RESULT_DONE] = "done",
	[RESULT_BLOCKED] = "blocked",
	[RESULT_NEEDS_CONFIRM] = "needs-confirm",
	[RESULT_ERROR] = "error",
};

static const char *const kind_names[] = {
	[RESULT_KIND_UNSET] = NULL,
	[RESULT_KIND_WORKLOAD] = "workload",
	[RESULT_KIND_INFRA] = "infrastructure",
};

const char *case_result_state_name(enum result_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "error";
}

bool case_result_state_from_name(const char *name, enum result_state *out)
{
	for (size_t i = 0; name && i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (!strcmp(state_names[i], name)) {
			*out = (enum result_state)i;
			return true;
		}
	return false;
}

const char *case_result_kind_name(enum result_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : NULL;
}

bool case_result_kind_from_name(const char *name, enum result_kind *out)
{
	for (size_t i = 1; name && i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(kind_names[i], name)) {
			*out = (enum result_kind)i;
			return true;
		}
	return false;
}

const char *case_result_outcome_name(const struct case_result *r)
{
	return r->has_outcome ? finding_outcome_name(r->outcome) : NULL;
}

const char *case_result_class_name(const struct case_result *r)
{
	if (!r->has_class)
		return NULL;
	return r->class_other ? r->class_other : finding_fault_class_name(r->fault_class);
}

void case_result_set_verdict(struct case_result *r, const char *outcome, const char *cls)
{
	free(r->class_other);
	r->class_other = NULL;
	r->outcome = OUTCOME_UNKNOWN;
	r->fault_class = FAULT_UNKNOWN;
	r->has_outcome = outcome != NULL;
	if (outcome && !finding_outcome_from_name(outcome, &r->outcome))
		r->outcome = OUTCOME_UNKNOWN;
	r->has_class = cls != NULL;
	if (cls && !finding_fault_class_from_name(cls, &r->fault_class))
		r->class_other = xstrdup(cls);
}

void case_result_to_json(const struct case_result *r, struct strbuf *out)
{
	cleanup_cjson cJSON *o = cJSON_CreateObject();
	cJSON *g = cJSON_AddArrayToObject(o, "gpus");
	cleanup_free char *text = NULL;

	json_add_str(o, "case", r->case_name, JSON_TEXT);
	json_add_str(o, "image", r->image, JSON_TEXT);
	json_add_str(o, "image_id", r->image_id, JSON_TEXT);
	if (r->image_pin)
		json_add_str(o, "image_pin", r->image_pin, JSON_TEXT);
	json_add_str(o, "archive", r->archive, JSON_TEXT);
	json_add_str(o, "digest", r->digest, JSON_TEXT);
	for (size_t i = 0; i < r->n_gpus; i++)
		cJSON_AddItemToArray(g, cJSON_CreateNumber(r->gpus[i]));
	cJSON_AddNumberToObject(o, "attempt", r->attempt);
	json_add_str(o, "state", case_result_state_name(r->state), JSON_TEXT);
	json_add_str(o, "outcome", case_result_outcome_name(r), JSON_TEXT);
	json_add_str(o, "fault_class", case_result_class_name(r), JSON_TEXT);
	json_add_str(o, "kernel_name", r->kernel, JSON_TEXT);
	cJSON_AddNumberToObject(o, "d2h_checked", (double)r->d2h_checked);
	cJSON_AddNumberToObject(o, "d2h_mismatched", (double)r->d2h_mismatched);
	cJSON_AddNumberToObject(o, "duration_s", r->duration_s);
	json_add_str(o, "run_dir", r->run_dir, JSON_TEXT);
	cJSON_AddNumberToObject(o, "classifier_version", r->classifier_version);
	json_add_str(o, "message", r->message, JSON_TEXT);
	cJSON_AddNumberToObject(o, "finished", (double)r->finished);
	json_add_str(o, "gpu_uids", r->gpu_uids, JSON_TEXT);
	json_add_str(o, "host", r->host, JSON_TEXT);
	json_add_str(o, "kind", case_result_kind_name(r->kind), JSON_TEXT);
	cJSON_AddItemToObject(o, "signature", signature_to_json(&r->signature));
	if (r->known_id) {
		cJSON *k = cJSON_AddObjectToObject(o, "known");

		json_add_str(k, "id", r->known_id, JSON_TEXT);
		json_add_str(k, "link", r->known_link, JSON_TEXT);
		json_add_str(k, "owner", r->known_owner, JSON_TEXT);
	} else {
		cJSON_AddNullToObject(o, "known");
	}
	json_add_str(o, "gfx", r->gfx, JSON_TEXT);
	if (r->device_id > 0) /* 0: no result fills it, or none known */
		cJSON_AddNumberToObject(o, "device_id", (double)r->device_id);
	else
		cJSON_AddNullToObject(o, "device_id");
	if (r->driver)
		json_add_str(o, "driver", r->driver, JSON_TEXT);
	if (r->perf)
		cJSON_AddItemToObject(o, "perf", perf_samples_to_json(r->perf));
	if (r->finding_md)
		json_add_str(o, "finding_md", r->finding_md, JSON_TEXT);
	text = cJSON_PrintUnformatted(o);
	strbuf_addstr(out, text);
}

int case_result_parse(struct case_result *r, const char *line, struct error *err)
{
	cleanup_cjson cJSON *o = cJSON_Parse(line);
	const cJSON *g, *it;
	bool state;

	memset(r, 0, sizeof(*r));
	if (!cJSON_IsObject(o))
		return error_set(err, ERR_DATA, 0, "not a JSON object");
	r->case_name = sjson_str(o, "case");
	r->image = sjson_str(o, "image");
	state = case_result_state_from_name(json_str(o, "state"), &r->state);
	if (!r->case_name || !r->image || !state) {
		case_result_release(r);
		return error_set(err, ERR_DATA, 0, "a result needs case, image and state");
	}
	r->image_id = sjson_str(o, "image_id");
	r->image_pin = sjson_str(o, "image_pin");
	r->archive = sjson_str(o, "archive");
	r->digest = sjson_str(o, "digest");
	g = cJSON_GetObjectItemCaseSensitive(o, "gpus");
	cJSON_ArrayForEach(it, g)
		if (cJSON_IsNumber(it) && r->n_gpus < GPU_MAX)
			r->gpus[r->n_gpus++] = it->valueint;
	r->attempt = (int)sjson_num(o, "attempt", 1);
	case_result_set_verdict(r, json_str(o, "outcome"), json_str(o, "fault_class"));
	r->kernel = sjson_str(o, "kernel_name");
	r->d2h_checked = (long long)sjson_num(o, "d2h_checked", -1);
	r->d2h_mismatched = (long long)sjson_num(o, "d2h_mismatched", -1);
	r->duration_s = sjson_num(o, "duration_s", 0);
	r->run_dir = sjson_str(o, "run_dir");
	r->classifier_version = (int)sjson_num(o, "classifier_version", 0);
	r->message = sjson_str(o, "message");
	r->finished = (long long)sjson_num(o, "finished", 0);
	r->gpu_uids = sjson_str(o, "gpu_uids");
	r->host = sjson_str(o, "host");
	if (!case_result_kind_from_name(json_str(o, "kind"), &r->kind))
		r->kind = RESULT_KIND_UNSET;
	signature_from_json(&r->signature, cJSON_GetObjectItemCaseSensitive(o, "signature"));
	if (!signature_set(&r->signature) && r->has_outcome && r->state == RESULT_DONE)
		signature_make(&r->signature, case_result_outcome_name(r), case_result_class_name(r),
			       r->kernel, NULL, NULL, true);
	{
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "known");

		r->known_id = sjson_str(k, "id");
		if (r->known_id) {
			r->known_link = sjson_str(k, "link");
			r->known_owner = sjson_str(k, "owner");
		}
	}
	r->gfx = sjson_str(o, "gfx");
	case_result_set_finding_md(r, json_str(o, "finding_md"));
	r->device_id = (long)sjson_num(o, "device_id", -1);
	if (r->device_id < -1 || r->device_id > 0xffff)
		r->device_id = -1;
	r->driver = sjson_str(o, "driver");
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "perf"))) {
		r->perf = xcalloc(1, sizeof(*r->perf));
		perf_samples_from_json(r->perf, cJSON_GetObjectItemCaseSensitive(o, "perf"));
	}
	return 0;
}

enum result_kind case_result_kind(const struct case_result *r)
{
	if (r->kind != RESULT_KIND_UNSET)
		return r->kind;
	/* The engine's OOM killer ended the replay: the host, not the capture. */
	if (r->state == RESULT_ERROR || r->oom_killed)
		return RESULT_KIND_INFRA;
	return RESULT_KIND_WORKLOAD;
}

bool case_result_passed(const struct case_result *r)
{
	return r->has_outcome && r->outcome == OUTCOME_PASS;
}

void case_result_set_finding_md(struct case_result *r, const char *md)
{
	cleanup_free char *clean = NULL;

	free(r->finding_md);
	r->finding_md = NULL;
	if (!md || strlen(md) > CASE_RESULT_FINDING_MD_MAX)
		return;
	clean = text_sanitized(md, JSON_TEXT);
	if (clean && !strcmp(clean, md))
		r->finding_md = xstrdup(md);
}

void case_result_mark_known(struct case_result *r, const struct known_issues *k, long long now)
{
	struct known_subject s = { .sig = &r->signature, .case_name = r->case_name,
				   .image = r->image, .gpu = r->gpu_uids, .host = r->host };
	const struct known_rule *rule = known_issues_match(k, &s, now);

	free(r->known_id);
	free(r->known_link);
	free(r->known_owner);
	r->known_id = rule ? xstrdup(rule->id) : NULL;
	r->known_link = rule ? xstrdup(rule->link) : NULL;
	r->known_owner = rule ? xstrdup(rule->owner) : NULL;
}

void case_result_locate(struct case_result *r, const struct gpu_topology *topo,
			 const char *host)
{
	if (!r->host && host)
		r->host = xstrdup(host);
	if (!r->gpu_uids && r->n_gpus) {
		struct strbuf u = STRBUF_INIT;

		gpu_unique_ids_format(&u, topo, r->gpus, r->n_gpus);
		r->gpu_uids = strbuf_detach(&u, NULL);
	}
	r->kind = case_result_kind(r);
	if (!r->gfx && r->n_gpus) {
		const struct gpu_node *g = gpu_topology_node(topo, r->gpus[0]);

		if (g && g->arch[0]) {
			r->gfx = xstrdup(g->arch);
			r->device_id = g->device_id ? (long)g->device_id : -1;
		}
	}
	if (!r->driver && topo && topo->driver[0])
		r->driver = xstrdup(topo->driver);
}

int case_result_append(const char *path, const struct case_result *r, struct error *err)
{
	cleanup_strbuf struct strbuf line = STRBUF_INIT;

	case_result_to_json(r, &line);
	return case_result_append_line(path, line.buf, err);
}

int case_result_append_line(const char *path, const char *json, struct error *err)
{
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	cleanup_free char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	cleanup_close int dfd = -1, fd = -1;

	if (strchr(json, '\n'))
		return error_set(err, ERR_DATA, 0, "%s: a result that is not one line", path);
	/* The folder must still be the caller's own, and the file in it a
	 * regular file of the caller's: never a link to somewhere else. */
	if (!slash)
		return error_set(err, ERR_USAGE, 0, "internal: results path %s has no folder", path);
	*slash = '\0';
	if ((dfd = owned_dir_open(dir, "sweep folder", 0, err)) < 0 ||
	    (fd = owned_openat(dfd, dir, slash + 1, O_WRONLY | O_APPEND | O_CREAT, 0644, err)) < 0)
		return -1;
	strbuf_addstr(&line, json);
	strbuf_addch(&line, '\n');
	/* One write: O_APPEND makes it land whole after every other line. */
	if (fs_write_all(fd, line.buf, line.len) < 0)
		return error_errno(err, "append to %s", path);
	if (fsync(fd) < 0)
		return error_errno(err, "fsync %s", path);
	return 0;
}

void sweep_results_release(struct sweep_results *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		case_result_release(&rs->v[i]);
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

/* One whole line (no newline) into rs, or counted as skipped. */
static void parse_line(struct sweep_results *rs, const char *line)
{
	struct error err;

	if (!line[0])
		return;
	if (rs->n == rs->alloc) {
		rs->alloc = rs->alloc ? 2 * rs->alloc : 32;
		rs->v = xrealloc(rs->v, rs->alloc * sizeof(*rs->v));
	}
	if (case_result_parse(&rs->v[rs->n], line, &err) == 0)
		rs->n++;
	else
		rs->skipped++;
}

void sweep_results_parse_text(struct sweep_results *rs, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');

		if (!nl) { /* torn last line: the writer died mid-write */
			rs->skipped++;
			break;
		}
		cleanup_free char *line = xstrndup(p, (size_t)(nl - p));

		p = nl + 1;
		parse_line(rs, line);
	}
}

/* The results read so far to the chunks' callback, then released. */
static int flush_chunk(struct sweep_results *rs, struct sweep_results_chunks *ch,
		       struct error *err)
{
	int rc = rs->n ? ch->fn(ch->ctx, rs, err) : 0;

	/* The array stays for the next chunk. */
	for (size_t i = 0; i < rs->n; i++)
		case_result_release(&rs->v[i]);
	rs->n = 0;
	return rc;
}

/* One results file a line at a time (a large sweep's file is never whole
 * in memory), read as sweep_results_parse_text reads its text: a line
 * without its newline is torn, and a NUL ends the text. Opened as
 * fs_read_small_file opens: no FIFO blocks, only a regular file is read,
 * and the same limit holds. */
static int load_file(const char *path, struct sweep_results *rs, struct sweep_results_chunks *ch,
		     struct error *err)
{
	cleanup_fclose FILE *f = fs_open_regular(path, err);
	cleanup_free char *line = NULL;
	size_t cap = 0, total = 0;
	ssize_t n;

	if (!f)
		return -1;
	while ((n = getline(&line, &cap, f)) > 0) {
		size_t len = strlen(line);

		total += (size_t)n;
		if (total > RESULTS_MAX_BYTES)
			return error_set(err, ERR_LIMIT, 0, "%s is larger than the %u-byte limit",
					 path, RESULTS_MAX_BYTES);
		if (len < (size_t)n || line[n - 1] != '\n') {
			rs->skipped += len > 0; /* torn, or cut at a NUL */
			return 0;
		}
		line[n - 1] = '\0';
		parse_line(rs, line);
		if (ch && rs->n >= ch->chunk && flush_chunk(rs, ch, err) < 0)
			return -1;
	}
	return ferror(f) ? error_errno(err, "reading %s", path) : 0;
}

static int is_results_file(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return !strncmp(e->d_name, "results", 7) && n >= 7 + 6 &&
	       !strcmp(e->d_name + n - 6, ".jsonl");
}

static int load_folder(const char *folder, struct sweep_results *rs,
		       struct sweep_results_chunks *ch, struct error *err)
{
	struct dirent **names;
	int n = scandir(folder, &names, is_results_file, alphasort);

	if (n < 0)
		return error_errno(err, "sweep folder %s", folder);
	for (int i = 0; i < n; i++) {
		cleanup_free char *path = xasprintf("%s/%s", folder, names[i]->d_name);
		int r = load_file(path, rs, ch, err);

		for (int j = i; r < 0 && j < n; j++)
			free(names[j]);
		if (r < 0) {
			free(names);
			return -1;
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

int sweep_results_load(const char *folder, struct sweep_results *rs, struct error *err)
{
	return load_folder(folder, rs, NULL, err);
}

int sweep_results_each(const char *folder, const struct sweep_results_chunks *ch,
		       struct error *err)
{
	struct sweep_results_chunks c = *ch;
	struct sweep_results rs = { 0 };
	int rc;

	if (!c.chunk)
		c.chunk = 1;
	rc = load_folder(folder, &rs, &c, err);
	if (rc == 0)
		rc = flush_chunk(&rs, &c, err);
	sweep_results_release(&rs);
	return rc;
}
