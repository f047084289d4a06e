#include "orchestrator/cli/sweep_runopts_json.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/cli/option_ids.h"

enum kind { K_LONG, K_LLONG, K_BOOL, K_STR, K_LIST, K_INT, K_SECCOMP, K_PLAYBACK_ARGS, K_KERNELS };

#define F(id, key, kind, field) { id, key, kind, offsetof(struct options, field) }

/* One row per carried option; id 0: no option of the table (the overlay
 * sources come from the environment). */
static const struct {
	int id;
	const char *key;
	enum kind kind;
	size_t off;
} fields[] = {
	F(OPT_TIMEOUT, "timeout_s", K_LONG, timeout_s),
	F(OPT_PROGRESS_TIMEOUT, "progress_timeout_s", K_LONG, progress_timeout_s),
	F(OPT_STOP_GRACE, "stop_grace_s", K_LONG, stop_grace_s),
	F(OPT_PROGRESS_SECONDS, "progress_seconds", K_LONG, progress_seconds),
	F(OPT_PULL, "pull", K_INT, pull),
	F(OPT_DEVICES, "devices", K_INT, devices),
	F(OPT_NO_SYNC, "no_sync", K_BOOL, no_sync),
	F(OPT_MOUNT_CLR, "mount_clr", K_BOOL, mount_clr),
	F(OPT_YES, "yes", K_BOOL, yes),
	F(OPT_SKIP_PREFLIGHT, "skip_preflight", K_BOOL, skip_preflight),
	F(OPT_STRICT_VERSION, "strict_version", K_BOOL, strict_version),
	F(OPT_STRICT_ARCH, "strict_arch", K_BOOL, strict_arch),
	F(OPT_KEEP, "keep", K_BOOL, keep),
	F(OPT_PLAYBACK, "playback", K_STR, playback),
	F(OPT_DEVICE_ROOT, "device_root", K_STR, device_root),
	F(OPT_SYSFS_ROOT, "sysfs_root", K_STR, sysfs_root),
	F(OPT_EXTRA_LD, "extra_ld", K_LIST, extra_ld),
	F(OPT_ENV, "env", K_LIST, env),
	F(OPT_CAP_ADD, "cap_add", K_LIST, cap_add),
	F(OPT_PLAYBACK_ARG, "playback_args", K_PLAYBACK_ARGS, playback_args),
	/* By name and content digest, not path: the same code object gives the
	 * same fingerprint wherever it lives; a sweep keeps its own copy. */
	F(OPT_REPLACE_KERNEL, "replace_kernels", K_KERNELS, replace_kernels),
	F(OPT_DIAGNOSE, "diagnose", K_INT, diagnose),
	F(OPT_DIAGNOSE_TIMEOUT, "diagnose_timeout_s", K_LONG, diagnose_timeout_s),
	F(OPT_SECCOMP, "seccomp", K_SECCOMP, seccomp),
	F(OPT_MEMORY, "memory_bytes", K_LLONG, memory_bytes),
	F(OPT_AS_ROOT, "as_root", K_BOOL, as_root),
	F(OPT_LOG_LIMIT, "log_limit_bytes", K_LLONG, log_limit_bytes),
	F(OPT_PERF, "perf_runs", K_LONG, sweep.perf_runs),
	F(OPT_PERF_WARMUP, "perf_warmup", K_LONG, sweep.perf_warmup),
	F(0, "host_playback", K_STR, host_playback),
	F(0, "clr_lib", K_STR, clr_lib),
	F(0, "clr_build", K_STR, clr_build),
	F(0, "rocr_lib", K_STR, rocr_lib),
	F(0, "rocm_path", K_STR, rocm_path),
};

#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* Run options that are not carried, and why:
 * --image/--archive: the plan's cases; --workdir: a task is given the
 * sweep's on its command line; --format, -q/-v, --help, --version: what
 * one invocation prints; --gpu, -o: a sweep refuses them; --gpu-wait:
 * plan.json's own "gpu_wait"; --engine: chosen before the sweep is read,
 * per node; --known-issues: the sweep reads its own file (docs/sweep.md
 * "Known issues"). */
const int sweep_runopts_per_invocation[] = {
	OPT_IMAGE, OPT_ARCHIVE, OPT_WORKDIR, OPT_FORMAT, OPT_QUIET, OPT_VERBOSE, OPT_HELP,
	OPT_VERSION, OPT_GPU, OPT_OUTPUT, OPT_GPU_WAIT, OPT_ENGINE, OPT_KNOWN_ISSUES, 0,
};

bool sweep_runopts_carries(int option_id)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if (option_id && fields[i].id == option_id)
			return true;
	return false;
}

static void add_list(cJSON *j, const char *key, const struct strvec *sv, bool names_only)
{
	cJSON *a = cJSON_AddArrayToObject(j, key);

	for (size_t k = 0; k < sv->n; k++) {
		const char *eq = names_only ? strchr(sv->v[k], '=') : NULL;
		char *name = eq ? xstrndup(sv->v[k], (size_t)(eq - sv->v[k])) : xstrdup(sv->v[k]);

		cJSON_AddItemToArray(a, cJSON_CreateString(name));
		free(name);
	}
}

/* A site profile by absolute path: a task or a resume may start in
 * another directory. */
static void add_seccomp(cJSON *j, const char *key, const struct seccomp_choice *sc)
{
	char abs[PATH_MAX];

	if (sc->mode != SECCOMP_MODE_FILE)
		cJSON_AddStringToObject(j, key, seccomp_mode_name(sc->mode));
	else
		cJSON_AddStringToObject(j, key, sc->path[0] != '/' && realpath(sc->path, abs)
							? abs : sc->path);
}

static void add_playback_args(cJSON *j, const char *key, const struct playback_args *a)
{
	cJSON *arr = cJSON_AddArrayToObject(j, key);

	for (size_t i = 0; i < a->n; i++) {
		cleanup_strbuf struct strbuf sb = STRBUF_INIT;

		playback_arg_format(&a->v[i], &sb);
		cJSON_AddItemToArray(arr, cJSON_CreateString(sb.buf));
	}
}

static void add_kernels(cJSON *j, const char *key, const struct kernel_replacements *k)
{
	cJSON *arr = cJSON_AddArrayToObject(j, key);

	for (size_t i = 0; i < k->n; i++) {
		cJSON *it = cJSON_CreateObject();

		cJSON_AddStringToObject(it, "name", k->v[i].name);
		cJSON_AddStringToObject(it, "digest", k->v[i].digest);
		cJSON_AddItemToArray(arr, it);
	}
}

cJSON *sweep_runopts_to_json(const struct options *o, bool with_values)
{
	cJSON *j = cJSON_CreateObject();

	for (size_t i = 0; i < N_FIELDS; i++) {
		const char *p = (const char *)o + fields[i].off, *key = fields[i].key;

		switch (fields[i].kind) {
		case K_LONG: cJSON_AddNumberToObject(j, key, (double)*(const long *)p); break;
		case K_LLONG: cJSON_AddNumberToObject(j, key, (double)*(const long long *)p); break;
		case K_INT: cJSON_AddNumberToObject(j, key, *(const int *)p); break;
		case K_BOOL: cJSON_AddBoolToObject(j, key, *(const bool *)p); break;
		case K_STR:
			if (*(char *const *)p)
				cJSON_AddStringToObject(j, key, *(char *const *)p);
			break;
		case K_LIST:
			if (fields[i].id == OPT_ENV && !with_values)
				add_list(j, "env_names", (const struct strvec *)p, true);
			else
				add_list(j, key, (const struct strvec *)p, false);
			break;
		case K_SECCOMP:
			add_seccomp(j, key, (const struct seccomp_choice *)p);
			break;
		/* Only when given: the run options of every sweep before these
		 * options existed keep their fingerprint. */
		case K_PLAYBACK_ARGS:
			if (((const struct playback_args *)p)->n)
				add_playback_args(j, key, (const struct playback_args *)p);
			break;
		case K_KERNELS:
			if (((const struct kernel_replacements *)p)->n)
				add_kernels(j, key, (const struct kernel_replacements *)p);
			break;
		}
	}
	return j;
}

/* The recorded lists are read as the command line's are: each entry
 * checked again, a malformed one an error (the file may have been edited). */
static int set_playback_args(struct playback_args *a, const cJSON *v, struct error *err)
{
	const cJSON *it;

	playback_args_release(a);
	cJSON_ArrayForEach(it, v)
		if (!cJSON_IsString(it) ||
		    playback_args_add(a, it->valuestring, "playback_args", err) < 0)
			return error_set(err, ERR_DATA, 0, "run options: a malformed playback_args entry");
	return 0;
}

static int set_kernels(struct kernel_replacements *k, const cJSON *v, struct error *err)
{
	const cJSON *it;

	kernel_replacements_release(k);
	cJSON_ArrayForEach(it, v) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");
		const cJSON *digest = cJSON_GetObjectItemCaseSensitive(it, "digest");

		if (kernel_replacements_add_recorded(k, cJSON_GetStringValue(name),
						     cJSON_GetStringValue(digest), err) < 0)
			return error_set(err, ERR_DATA, 0,
					 "run options: a malformed replace_kernels entry");
	}
	return 0;
}

static int set_field(struct options *o, size_t i, const cJSON *v, struct error *err)
{
	char *p = (char *)o + fields[i].off;
	const cJSON *it;

	switch (fields[i].kind) {
	case K_LONG:
		if (cJSON_IsNumber(v))
			*(long *)p = (long)v->valuedouble;
		break;
	case K_LLONG:
		if (cJSON_IsNumber(v))
			*(long long *)p = (long long)v->valuedouble;
		break;
	case K_INT:
		if (cJSON_IsNumber(v))
			*(int *)p = v->valueint;
		break;
	case K_BOOL:
		if (cJSON_IsBool(v))
			*(bool *)p = cJSON_IsTrue(v);
		break;
	case K_STR:
		if (cJSON_IsString(v)) {
			free(*(char **)p);
			*(char **)p = xstrdup(v->valuestring);
		}
		break;
	case K_LIST:
		strvec_clear((struct strvec *)p);
		cJSON_ArrayForEach(it, v)
			if (cJSON_IsString(it))
				strvec_push((struct strvec *)p, it->valuestring);
		break;
	case K_SECCOMP: {
		struct seccomp_choice sc;

		if (cJSON_IsString(v) && seccomp_choice_parse(v->valuestring, &sc, ERROR_DISCARD) == 0) {
			seccomp_choice_release((struct seccomp_choice *)p);
			*(struct seccomp_choice *)p = sc;
		}
		break;
	}
	case K_PLAYBACK_ARGS:
		return set_playback_args((struct playback_args *)p, v, err);
	case K_KERNELS:
		return set_kernels((struct kernel_replacements *)p, v, err);
	}
	return 0;
}

int sweep_runopts_from_json(struct options *o, const cJSON *j, struct error *err)
{
	for (size_t i = 0; i < N_FIELDS; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, fields[i].key);

		/* Absent lists written only when given are empty, not "as this
		 * invocation says": a resume replays as the sweep started. */
		if (!v && fields[i].kind == K_PLAYBACK_ARGS)
			playback_args_release((struct playback_args *)((char *)o + fields[i].off));
		else if (!v && fields[i].kind == K_KERNELS)
			kernel_replacements_release(
				(struct kernel_replacements *)((char *)o + fields[i].off));
		else if (v && set_field(o, i, v, err) < 0)
			return -1;
	}
	return 0;
}

