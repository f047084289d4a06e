/* The --plan file and plan.json's case list (docs/sweep.md "Commands"). */
#include "orchestrator/sweep/sweep_plan_json.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#define PLAN_MAX_BYTES (64u << 20)

/* Where a case came from, for messages: "plan FILE, case 3: ...". */
static int __attribute__((format(printf, 4, 5)))
case_error(struct error *err, const char *path, int idx, const char *fmt, ...)
{
	cleanup_strbuf struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (idx < 0) /* path says where: "FILE, line N" */
		return error_set(err, ERR_USAGE, 0, "%s: %s", path, sb.buf);
	return error_set(err, ERR_USAGE, 0, "plan %s, case %d: %s", path, idx, sb.buf);
}

static const char *const plan_keys[] = {
	"name", "archive", "image", "gpu_count", "timeout", "progress_timeout",
	"env", "mount_clr", "extra_ld", "playback", NULL,
};

static const char *unknown_key(const cJSON *o)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, o) {
		size_t i = 0;

		while (plan_keys[i] && strcmp(plan_keys[i], it->string))
			i++;
		if (!plan_keys[i])
			return it->string;
	}
	return NULL;
}

static int get_string(const cJSON *o, const char *key, bool required, char **out,
		      const char *path, int idx, struct error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v || cJSON_IsNull(v)) {
		if (required)
			return case_error(err, path, idx, "\"%s\" is required", key);
		return 0;
	}
	if (!cJSON_IsString(v) || !v->valuestring[0])
		return case_error(err, path, idx, "\"%s\" must be a non-empty string", key);
	*out = xstrdup(v->valuestring);
	return 0;
}

/* A whole number from min to max (the run options' bound on seconds:
 * a year, as --timeout says). */
#define PLAN_SECONDS_MAX (365 * 24 * 3600)

static int get_int(const cJSON *o, const char *key, int min, int max, int *out, const char *path,
		   int idx, struct error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)v->valueint || v->valueint < min ||
	    v->valueint > max)
		return case_error(err, path, idx, "\"%s\" must be a whole number from %d to %d", key,
				  min, max);
	*out = v->valueint;
	return 0;
}

static int get_env(const cJSON *o, struct strvec *env, const char *path, int idx,
		   struct error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "env"), *it;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsObject(v))
		return case_error(err, path, idx, "\"env\" must be an object of strings");
	cJSON_ArrayForEach(it, v) {
		if (!cJSON_IsString(it) || !it->string[0] || strchr(it->string, '='))
			return case_error(err, path, idx, "\"env\" entry \"%s\" must be NAME: string",
					  it->string);
		strvec_pushf(env, "%s=%s", it->string, it->valuestring);
	}
	return 0;
}

/* The fields every case has, into c (already holding defaults). */
static int case_fields(struct sweep_case *c, const cJSON *o, const char *path, int idx,
		       struct error *err)
{
	const cJSON *mc = cJSON_GetObjectItemCaseSensitive(o, "mount_clr");

	if (get_string(o, "image", true, &c->image, path, idx, err) < 0 ||
	    get_int(o, "gpu_count", 1, INT_MAX, &c->gpu_count, path, idx, err) < 0 ||
	    get_int(o, "timeout", 0, PLAN_SECONDS_MAX, &c->timeout, path, idx, err) < 0 ||
	    get_int(o, "progress_timeout", 0, PLAN_SECONDS_MAX, &c->progress_timeout, path, idx,
		    err) < 0 ||
	    get_string(o, "extra_ld", false, &c->extra_ld, path, idx, err) < 0 ||
	    get_string(o, "playback", false, &c->playback, path, idx, err) < 0 ||
	    get_env(o, &c->env, path, idx, err) < 0)
		return -1;
	if (mc && !cJSON_IsNull(mc)) {
		if (!cJSON_IsBool(mc))
			return case_error(err, path, idx, "\"mount_clr\" must be true or false");
		c->mount_clr = cJSON_IsTrue(mc);
	}
	return 0;
}

/* One plan entry: its archive may be a capture root, which adds one case per
 * pid directory (named "<name>/<relative path>" when the entry has a name). */
static int plan_entry(struct sweep_plan *p, const cJSON *o, const char *path,
		      const char *base_dir, int idx, struct error *err)
{
	cleanup_free char *archive = NULL, *name = NULL;
	cleanup_strvec struct strvec dirs = STRVEC_INIT;
	const char *bad;
	char abs[PATH_MAX];

	if (!cJSON_IsObject(o))
		return case_error(err, path, idx, "not an object");
	if ((bad = unknown_key(o)))
		return case_error(err, path, idx, "unknown key \"%s\"", bad);
	if (get_string(o, "archive", true, &archive, path, idx, err) < 0 ||
	    get_string(o, "name", false, &name, path, idx, err) < 0)
		return -1;
	cleanup_free char *full = archive[0] == '/' || !base_dir
					  ? xstrdup(archive)
					  : xasprintf("%s/%s", base_dir, archive);

	if (sweep_find_pid_dirs(full, &dirs, err) < 0 || !realpath(full, abs))
		return error_prefix(err, "plan %s, case %d: ", path, idx);
	for (size_t d = 0; d < dirs.n; d++) {
		struct sweep_case *c = sweep_plan_push(p);

		c->archive = xstrdup(dirs.v[d]);
		c->origin = xasprintf("plan %s, case %d", path, idx);
		if (!name)
			c->name = sweep_case_name(abs, dirs.v[d]);
		else if (dirs.n == 1 && !strcmp(dirs.v[0], abs))
			c->name = xstrdup(name);
		else
			c->name = xasprintf("%s/%s", name, dirs.v[d] + strlen(abs) + 1);
		if (case_fields(c, o, path, idx, err) < 0)
			return -1;
	}
	return 0;
}

int sweep_plan_add_json(struct sweep_plan *p, const char *text, const char *path,
			const char *base_dir, struct error *err)
{
	cleanup_cjson cJSON *root = cJSON_Parse(text);
	const cJSON *cases, *it;
	int idx = 0;

	if (!root)
		return error_set(err, ERR_USAGE, 0, "plan %s is not JSON (near byte %zu)", path,
				 (size_t)(cJSON_GetErrorPtr() - text));
	cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
	if (!cJSON_IsArray(cases))
		return error_set(err, ERR_USAGE, 0, "plan %s: wants {\"cases\": [...]}", path);
	cJSON_ArrayForEach(it, cases)
		if (plan_entry(p, it, path, base_dir, idx++, err) < 0)
			return -1;
	return 0;
}

int sweep_plan_add_file(struct sweep_plan *p, const char *plan_path, struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	char abs[PATH_MAX];

	if (fs_read_small_file(plan_path, PLAN_MAX_BYTES, &text, err) < 0) {
		err->kind = ERR_USAGE;
		return error_prefix(err, "plan %s: ", plan_path);
	}
	if (!realpath(plan_path, abs))
		return error_set(err, ERR_USAGE, 0, "plan %s: cannot resolve", plan_path);
	*strrchr(abs, '/') = '\0';
	return sweep_plan_add_json(p, text.buf, plan_path, abs[0] ? abs : "/", err);
}

/* ---- plan.json ---- */

static void add_opt_int(cJSON *o, const char *key, int v)
{
	if (v >= 0)
		cJSON_AddNumberToObject(o, key, v);
}

/* plan.json leaves an unset field out (null would be a value). */
static void add_opt_str(cJSON *o, const char *key, const char *v)
{
	if (v)
		json_add_str(o, key, v, JSON_TEXT);
}

/* A case's env as {NAME: value}; the values "<not recorded>" unless
 * with_values (they go to the sweep's private file). */
static cJSON *env_json(const struct strvec *env, bool with_values)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t e = 0; e < env->n; e++) {
		const char *eq = strchr(env->v[e], '=');
		cleanup_free char *k = xstrndup(env->v[e], (size_t)(eq - env->v[e]));

		cJSON_AddStringToObject(o, k, with_values ? eq + 1 : SWEEP_NOT_RECORDED);
	}
	return o;
}

cJSON *sweep_case_json(const struct sweep_case *c, bool with_values)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "archive", c->archive);
	cJSON_AddStringToObject(o, "image", c->image);
	cJSON_AddNumberToObject(o, "gpu_count", c->gpu_count);
	add_opt_int(o, "timeout", c->timeout);
	add_opt_int(o, "progress_timeout", c->progress_timeout);
	if (c->mount_clr >= 0)
		cJSON_AddBoolToObject(o, "mount_clr", c->mount_clr);
	add_opt_str(o, "extra_ld", c->extra_ld);
	add_opt_str(o, "playback", c->playback);
	if (c->expected_s >= 0)
		cJSON_AddNumberToObject(o, "expected_s", c->expected_s);
	if (c->env.n)
		cJSON_AddItemToObject(o, "env", env_json(&c->env, with_values));
	return o;
}

cJSON *sweep_plan_cases_json(const struct sweep_plan *p, bool with_values)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < p->n; i++)
		cJSON_AddItemToArray(arr, sweep_case_json(&p->cases[i], with_values));
	return arr;
}

/* One case as plan.json or a plan cases file holds it, at the end of p.
 * where/idx name it in messages (idx < 0: where says it all). */
int sweep_case_from_json(struct sweep_plan *p, const cJSON *it, const char *where, int idx,
			 struct error *err)
{
	struct sweep_case *c = sweep_plan_push(p);
	const cJSON *e;

	if (!cJSON_IsObject(it) ||
	    get_string(it, "name", true, &c->name, where, idx, err) < 0 ||
	    get_string(it, "archive", true, &c->archive, where, idx, err) < 0 ||
	    case_fields(c, it, where, idx, err) < 0) {
		if (!cJSON_IsObject(it))
			case_error(err, where, idx, "not a JSON object");
		err->kind = ERR_DATA;
		return -1;
	}
	/* What the history expected when the sweep was planned: every
	 * shard of it splits the cases alike from this, not from a
	 * history that moved since. */
	e = cJSON_GetObjectItemCaseSensitive(it, "expected_s");
	if (cJSON_IsNumber(e) && e->valuedouble >= 0)
		c->expected_s = e->valuedouble;
	return 0;
}

/* plan.json was written by us from absolute pid dirs: read it back as a
 * plan file without re-expanding capture roots beyond what it names. */
int sweep_plan_from_json(struct sweep_plan *p, const cJSON *cases, struct error *err)
{
	const cJSON *it;
	int idx = 0;

	if (!cJSON_IsArray(cases))
		return error_set(err, ERR_DATA, 0, "plan.json: \"cases\" is not an array");
	cJSON_ArrayForEach(it, cases)
		if (sweep_case_from_json(p, it, "plan.json", idx++, err) < 0)
			return -1;
	sweep_plan_shrink(p);
	return 0;
}

cJSON *sweep_plan_env_json(const struct sweep_plan *p)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < p->n; i++) {
		cJSON *o;

		if (!p->cases[i].env.n)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "case", (double)i);
		cJSON_AddItemToObject(o, "env", env_json(&p->cases[i].env, true));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

int sweep_plan_env_from_json(struct sweep_plan *p, const cJSON *arr, const char *path,
			     struct error *err)
{
	const cJSON *it;
	int idx = 0;

	if (!cJSON_IsArray(arr))
		return error_set(err, ERR_DATA, 0, "%s: \"env\" is not an array", path);
	cJSON_ArrayForEach(it, arr) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(it, "case");
		struct sweep_case *c;

		if (!cJSON_IsNumber(k) || k->valuedouble < 0 || k->valuedouble >= (double)p->n ||
		    k->valuedouble != (double)(size_t)k->valuedouble)
			return error_set(err, ERR_DATA, 0,
					 "%s: env entry %d names no case of the plan", path, idx);
		c = &p->cases[(size_t)k->valuedouble];
		strvec_clear(&c->env);
		if (get_env(it, &c->env, path, idx++, err) < 0) {
			err->kind = ERR_DATA;
			return -1;
		}
	}
	return 0;
}
