/* The replay stack's versions read out of an image without running it:
 * a created, never-started container, cached by image ID. */
#include "orchestrator/replay/stack_probe.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/json.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "orchestrator/containers/ours.h"
#include "orchestrator/replay/image.h"
#include "preflight/stack_files.h"

/* Version files are a few hundred bytes; a multi-KiB one is not one. */
#define STACK_SMALL_FILE_MAX (64u << 10)
#define STACK_CACHE_SCHEMA 1

#define HIP_VERSION_FILE "/opt/rocm/share/hip/version"
#define ROCM_RELEASE_FILE "/opt/rocm/.info/version"

/* Errors that mean "not here" rather than "cannot probe at all". */
static bool soft_error(const struct error *err)
{
	return err->kind == ERR_NOT_FOUND || err->kind == ERR_DATA || err->kind == ERR_LIMIT;
}

/* ---- the image: a created, never started container ---- */

struct probe {
	struct engine *e;
	const char *id;
};

/* HEAD-follow the chain from path. *final = the regular file it ends at.
 * With prefix: *best = the chain member whose name carries the most
 * version numbers (the last such on a tie). */
static int probe_follow(struct probe *p, const char *path, const char *prefix, char **final,
			char **best, struct error *err)
{
	cleanup_free char *cur = xstrdup(path);
	int best_n = 0;

	*final = NULL;
	if (best)
		*best = NULL;
	for (int hop = 0; hop <= STACK_MAX_HOPS; hop++) {
		struct engine_path_stat st __attribute__((cleanup(engine_path_stat_release))) = { 0 };
		const char *target;
		bool link;
		char *next;

		if (engine_container_path_stat(p->e, p->id, cur, &st, err) < 0)
			goto fail;
		target = st.link_target;
		link = st.has_mode ? (st.mode & ENGINE_MODE_SYMLINK) != 0 : target != NULL;

		if (prefix && best) {
			int n = stack_name_version_count(stack_base_name(cur), prefix);

			if (n && n >= best_n) {
				free(*best);
				*best = xstrdup(cur);
				best_n = n;
			}
		}
		if (!link) {
			if (st.mode & ENGINE_MODE_DIR) {
				error_set(err, ERR_DATA, 0, "%s is a directory", cur);
				goto fail;
			}
			*final = steal_pointer(&cur);
			return 0;
		}
		if (!target) {
			error_set(err, ERR_PROTOCOL, 0, "engine: path stat of symlink %s has no linkTarget",
				  cur);
			goto fail;
		}
		next = stack_link_resolve(cur, target);
		if (!strcmp(next, cur)) {
			free(next);
			error_set(err, ERR_DATA, 0, "%s: symlink to itself", path);
			goto fail;
		}
		free(cur);
		cur = next;
	}
	error_set(err, ERR_DATA, 0, "%s: more than %d symlinks", path, STACK_MAX_HOPS);
fail:
	if (best) {
		free(*best);
		*best = NULL;
	}
	return -1;
}

/* Library lookup in lib_dirs order: the first dir holding one of names
 * is the one the loader would use. *version and *evidence stay NULL when that
 * library's names carry no version of at least min_nums numbers.
 * Returns 1 when a library was found, 0 when none, < 0 on a hard error. */
static int probe_library(struct probe *p, const struct strvec *lib_dirs,
			 const char *const *names, const char *prefix, int min_nums,
			 char **version, char **evidence, struct error *err)
{
	for (size_t d = 0; d < lib_dirs->n; d++) {
		for (const char *const *nm = names; *nm; nm++) {
			cleanup_free char *path = xasprintf("%s/%s", lib_dirs->v[d], *nm);
			cleanup_free char *final = NULL;
			cleanup_free char *best = NULL;

			if (probe_follow(p, path, prefix, &final, &best, err) < 0) {
				if (!soft_error(err))
					return -1;
				error_clear(err);
				continue;
			}
			if (best) {
				*version = stack_version_from_name(stack_base_name(best), prefix, min_nums);
				if (*version)
					*evidence = steal_pointer(&best);
			}
			return 1;
		}
	}
	return 0;
}

/* GET a small file, following its symlinks first (the archive endpoint
 * would hand back the link itself). 1 = read, 0 = absent or unusable
 * (*why says why), < 0 = hard error. */
static int probe_small_file(struct probe *p, const char *path, struct strbuf *out,
			    char **why, struct error *err)
{
	cleanup_free char *final = NULL;

	if (probe_follow(p, path, NULL, &final, NULL, err) < 0 ||
	    engine_container_read_file(p->e, p->id, final, STACK_SMALL_FILE_MAX, out, err) < 0) {
		if (!soft_error(err))
			return -1;
		*why = err->kind == ERR_NOT_FOUND ? xasprintf("no %s in the image", path)
						  : xstrdup(err->msg);
		error_clear(err);
		return 0;
	}
	return 1;
}

static char *dirs_joined(const struct strvec *dirs)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < dirs->n; i++)
		strbuf_addf(&sb, "%s%s", i ? ":" : "", dirs->v[i]);
	if (!dirs->n)
		strbuf_addstr(&sb, "(no library dirs)");
	return strbuf_detach(&sb, NULL);
}

static int probe_image(struct probe *p, const struct strvec *lib_dirs, struct stack_info *out,
		       struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_free char *dirs = dirs_joined(lib_dirs);
	cleanup_free char *why = NULL;
	int r;

	r = probe_library(p, lib_dirs, stack_hip_names, STACK_HIP_LIB ".", 3, &out->hip_version,
			  &out->hip_evidence, err);
	if (r < 0)
		return -1;
	if (!out->hip_version) {
		r = probe_small_file(p, HIP_VERSION_FILE, &text, &why, err);
		if (r < 0)
			return -1;
		if (r > 0) {
			out->hip_version = stack_hip_version_file_parse(text.buf);
			if (out->hip_version)
				out->hip_evidence = xstrdup(HIP_VERSION_FILE);
		}
		if (!out->hip_version)
			out->unknown_reason = xasprintf(
				"no versioned %s in %s and %s", STACK_HIP_LIB, dirs,
				r > 0 ? "no HIP_VERSION_MAJOR/MINOR/PATCH in " HIP_VERSION_FILE : why);
	}

	r = probe_library(p, lib_dirs, stack_comgr_names, STACK_COMGR_LIB ".", 2, &out->comgr_version,
			  &out->comgr_evidence, err);
	if (r < 0)
		return -1;
	if (!out->comgr_version)
		out->comgr_unknown_reason = r ? xasprintf("%s found in %s carries no version in its name",
							  STACK_COMGR_LIB, dirs)
					      : xasprintf("no %s in %s", STACK_COMGR_LIB, dirs);

	strbuf_reset(&text);
	free(why);
	why = NULL;
	r = probe_small_file(p, ROCM_RELEASE_FILE, &text, &why, err);
	if (r < 0)
		return -1;
	if (r > 0) {
		size_t n = strcspn(text.buf, "\r\n");

		while (n && isspace((unsigned char)text.buf[n - 1]))
			n--;
		if (n)
			out->rocm_release = xstrndup(text.buf, n);
	}
	return 0;
}

static int probe_with_container(struct ours_probe *probe, const char *name,
				const struct strvec *lib_dirs, struct stack_info *out,
				struct error *err)
{
	struct probe p;

	p.e = probe->engine;
	if (ours_probe_get(probe, &p.id, err) < 0 || probe_image(&p, lib_dirs, out, err) < 0)
		return error_prefix(err, "probing image %s: ", name);
	return 0;
}

/* ---- the cache ---- */

static bool cache_string(const cJSON *o, const char *key, char **out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!it || cJSON_IsNull(it))
		return true;
	if (!cJSON_IsString(it))
		return false;
	*out = xstrdup(it->valuestring);
	return true;
}

/* 1 = hit (out filled), 0 = miss: absent, corrupt, or for other lib dirs. */
static int cache_read(const char *path, const char *image_id, const struct strvec *lib_dirs,
		      struct stack_info *out)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *root = NULL;
	const cJSON *schema, *id, *dirs, *it;
	struct stack_info s;
	size_t i = 0;

	if (fs_read_private_file(path, STACK_SMALL_FILE_MAX, &text, ERROR_DISCARD) < 0)
		return 0;
	root = cJSON_ParseWithLength(text.buf, text.len);
	if (!cJSON_IsObject(root))
		return 0;
	schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
	id = cJSON_GetObjectItemCaseSensitive(root, "image_id");
	dirs = cJSON_GetObjectItemCaseSensitive(root, "lib_dirs");
	if (!cJSON_IsNumber(schema) || schema->valuedouble != STACK_CACHE_SCHEMA ||
	    !cJSON_IsString(id) || strcmp(id->valuestring, image_id) || !cJSON_IsArray(dirs) ||
	    (size_t)cJSON_GetArraySize(dirs) != lib_dirs->n)
		return 0;
	cJSON_ArrayForEach(it, dirs) {
		if (!cJSON_IsString(it) || strcmp(it->valuestring, lib_dirs->v[i++]))
			return 0;
	}
	stack_info_init(&s);
	if (!cache_string(root, "hip_version", &s.hip_version) ||
	    !cache_string(root, "hip_evidence", &s.hip_evidence) ||
	    !cache_string(root, "comgr_version", &s.comgr_version) ||
	    !cache_string(root, "comgr_evidence", &s.comgr_evidence) ||
	    !cache_string(root, "rocm_release", &s.rocm_release) ||
	    !cache_string(root, "unknown_reason", &s.unknown_reason) ||
	    !cache_string(root, "comgr_unknown_reason", &s.comgr_unknown_reason)) {
		stack_info_release(&s);
		return 0;
	}
	*out = s;
	return 1;
}

/* Best effort: the cache only saves time, so a failure to write it is not
 * the probe's failure. Written to a temporary and renamed, so a reader
 * never sees half a file. */
static void cache_write(const char *cache_dir, const char *path, const char *image_id,
			const struct strvec *lib_dirs, const struct stack_info *s)
{
	cleanup_cjson cJSON *o = cJSON_CreateObject();
	cleanup_free char *text = NULL;
	cJSON *dirs;

	if (!o || fs_mkdir_p(cache_dir, 0700, ERROR_DISCARD) < 0)
		return;
	cJSON_AddNumberToObject(o, "schema", STACK_CACHE_SCHEMA);
	cJSON_AddStringToObject(o, "image_id", image_id);
	dirs = cJSON_AddArrayToObject(o, "lib_dirs");
	for (size_t i = 0; dirs && i < lib_dirs->n; i++)
		cJSON_AddItemToArray(dirs, cJSON_CreateString(lib_dirs->v[i]));
	json_add_str(o, "hip_version", s->hip_version, JSON_TEXT);
	json_add_str(o, "hip_evidence", s->hip_evidence, JSON_TEXT);
	json_add_str(o, "comgr_version", s->comgr_version, JSON_TEXT);
	json_add_str(o, "comgr_evidence", s->comgr_evidence, JSON_TEXT);
	json_add_str(o, "rocm_release", s->rocm_release, JSON_TEXT);
	json_add_str(o, "unknown_reason", s->unknown_reason, JSON_TEXT);
	json_add_str(o, "comgr_unknown_reason", s->comgr_unknown_reason, JSON_TEXT);
	text = cJSON_Print(o);
	if (!text)
		return;
	/* Not written: the next run probes again. */
	(void)fs_write_atomic(path, text, strlen(text), 0600, ERROR_DISCARD);
}

int image_stack_probe_shared(struct ours_probe *probe, const char *image, const char *image_id,
			     const struct strvec *lib_dirs, const char *cache_dir,
			     struct stack_info *out, struct error *err)
{
	static const struct strvec no_dirs = STRVEC_INIT;
	cleanup_free char *path = image_cache_path(cache_dir, image_id, "image-stack", ".json");
	struct stack_info s;

	if (!lib_dirs)
		lib_dirs = &no_dirs;
	if (!image && !image_id)
		return error_set(err, ERR_USAGE, 0, "image_stack_probe: no image given");
	stack_info_init(&s);
	if (!path || !cache_read(path, image_id, lib_dirs, &s)) {
		if (!probe || !probe->engine)
			return error_set(err, ERR_USAGE, 0,
					 "probing image %s: no cached answer and no engine",
					 image ? image : image_id);
		if (probe_with_container(probe, image ? image : image_id, lib_dirs, &s, err) < 0) {
			stack_info_release(&s);
			return -1;
		}
		if (path)
			cache_write(cache_dir, path, image_id, lib_dirs, &s);
	}
	/* The name is not part of the cache key: say what the caller asked for. */
	s.source = image && image_id ? xasprintf("image %s (%s)", image, image_id)
				     : xasprintf("image %s", image ? image : image_id);
	stack_info_release(out);
	*out = s;
	return 0;
}

int image_stack_probe(struct engine *e, const char *image, const char *image_id,
		      const struct strvec *lib_dirs, const char *cache_dir,
		      struct stack_info *out, struct error *err)
{
	struct ours_probe probe = { .engine = e, .image = image_id ? image_id : image,
				    .image_name = image ? image : image_id };
	struct stack_info s;
	struct error rerr;
	int r;

	stack_info_init(&s);
	r = image_stack_probe_shared(e ? &probe : NULL, image, image_id, lib_dirs, cache_dir, &s,
				     err);
	if (ours_probe_release(&probe, &rerr) < 0 && r == 0) {
		*err = rerr;
		r = -1;
	}
	if (r == 0) {
		stack_info_release(out);
		*out = s;
	} else {
		stack_info_release(&s);
	}
	return r;
}
