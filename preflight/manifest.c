#include "preflight/manifest.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "common/fsutil.h"

/* unreplayable_apis is informational: a manifest listing more than this is
 * hostile or broken, and the finding does not need them all. */
#define MANIFEST_MAX_APIS 1024

void manifest_init(struct manifest *m)
{
	memset(m, 0, sizeof(*m));
	m->pid = -1;
	m->parent_pid = -1;
	m->complete = -1;
	m->event_count = -1;
	m->blob_count = -1;
	strvec_init(&m->unreplayable_apis);
	m->schema_version = -1;
	m->device_count = -1;
	m->captured_device_count = -1;
}

void manifest_release(struct manifest *m)
{
	strvec_clear(&m->unreplayable_apis);
	free(m->hip_runtime_version);
	free(m->comgr_version);
	for (size_t i = 0; i < m->n_devices; i++) {
		free(m->devices[i].name);
		free(m->devices[i].gcn_arch_name);
		free(m->devices[i].arch);
	}
	free(m->devices);
	manifest_init(m);
}

/* ---- typed field access: a known key with the wrong type names the key ----
 * `where` is NULL for keys whose name is unambiguous (top level and
 * metadata), else the JSON path of the enclosing object, so a message reads
 * `manifest.json: "device_count" must be a number` or
 * `manifest.json: "gcn_arch_name" must be a string (in metadata.devices[1].properties)`. */

static int type_error(struct error *err, const char *key, const char *where, const char *what)
{
	if (where)
		return error_set(err, ERR_DATA, 0, "manifest.json: \"%s\" must be %s (in %s)",
				 key, what, where);
	return error_set(err, ERR_DATA, 0, "manifest.json: \"%s\" must be %s", key, what);
}

/* Returns the member, or NULL when absent or JSON null (both mean unset:
 * writers differ in how they leave a field out). */
static const cJSON *member(const cJSON *obj, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNull(it) ? NULL : it;
}

static int get_integer(const cJSON *obj, const char *key, const char *where,
		       long long min, long long max, long long *out, struct error *err)
{
	const cJSON *it = member(obj, key);
	double d;

	if (!it)
		return 0;
	if (!cJSON_IsNumber(it))
		return type_error(err, key, where, "a number");
	d = it->valuedouble;
	/* Range-check in double before converting: an out-of-range cast is
	 * undefined behaviour. */
	if (!isfinite(d) || d != floor(d) || d < (double)min || d > (double)max)
		return type_error(err, key, where,
				  min == 0 ? "a non-negative integer" : "an integer in range");
	*out = (long long)d;
	return 0;
}

static int get_int(const cJSON *obj, const char *key, const char *where, int *out,
		   struct error *err)
{
	long long v = *out;

	if (get_integer(obj, key, where, 0, INT_MAX, &v, err) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

/* 2^53: beyond it a JSON number no longer holds an exact integer. */
#define JSON_INT_MAX 9007199254740992LL

static int get_count(const cJSON *obj, const char *key, long long *out, struct error *err)
{
	return get_integer(obj, key, NULL, 0, JSON_INT_MAX, out, err);
}

static int get_string(const cJSON *obj, const char *key, const char *where, char **out,
		      struct error *err)
{
	const cJSON *it = member(obj, key);

	if (!it)
		return 0;
	if (!cJSON_IsString(it))
		return type_error(err, key, where, "a string");
	free(*out);
	*out = xstrdup(it->valuestring);
	return 0;
}

static int get_object(const cJSON *obj, const char *key, const char *where,
		      const cJSON **out, struct error *err)
{
	const cJSON *it = member(obj, key);

	*out = NULL;
	if (!it)
		return 0;
	if (!cJSON_IsObject(it))
		return type_error(err, key, where, "an object");
	*out = it;
	return 0;
}

static char *arch_normalise(const char *gcn_arch_name)
{
	size_t n = strcspn(gcn_arch_name, ":");
	char *s = xstrndup(gcn_arch_name, n);

	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

static int parse_unreplayable(struct manifest *m, const cJSON *root, struct error *err)
{
	const cJSON *apis = member(root, "unreplayable_apis");
	const cJSON *it;

	if (!apis)
		return 0;
	if (!cJSON_IsArray(apis))
		return type_error(err, "unreplayable_apis", NULL, "an array");
	cJSON_ArrayForEach(it, apis) {
		const char *name = NULL;

		if (m->unreplayable_apis.n >= MANIFEST_MAX_APIS)
			break;
		if (cJSON_IsString(it)) {
			name = it->valuestring;
		} else if (cJSON_IsObject(it)) {
			/* Tolerate {"api": ...} / {"name": ...} entries. */
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "api");

			if (!cJSON_IsString(n))
				n = cJSON_GetObjectItemCaseSensitive(it, "name");
			if (cJSON_IsString(n))
				name = n->valuestring;
		}
		if (!name)
			return type_error(err, "unreplayable_apis", NULL, "an array of strings");
		strvec_push(&m->unreplayable_apis, name);
	}
	return 0;
}

static int parse_device(struct manifest_device *d, const cJSON *dev, size_t index,
			struct error *err)
{
	char where[96];
	const cJSON *props;

	snprintf(where, sizeof(where), "metadata.devices[%zu]", index);
	if (!cJSON_IsObject(dev))
		return error_set(err, ERR_DATA, 0,
				 "manifest.json: \"devices\" must be an array of objects (%s is not)",
				 where);
	d->ordinal = (int)index;
	if (get_int(dev, "ordinal", where, &d->ordinal, err) < 0)
		return -1;
	if (get_object(dev, "properties", where, &props, err) < 0)
		return -1;
	if (!props)
		return 0;
	snprintf(where, sizeof(where), "metadata.devices[%zu].properties", index);
	if (get_string(props, "name", where, &d->name, err) < 0 ||
	    get_string(props, "gcn_arch_name", where, &d->gcn_arch_name, err) < 0)
		return -1;
	if (d->gcn_arch_name)
		d->arch = arch_normalise(d->gcn_arch_name);
	return 0;
}

static int parse_metadata(struct manifest *m, const cJSON *md, struct error *err)
{
	const cJSON *runtime, *devices, *dev;
	size_t n;

	m->has_metadata = true;
	if (get_int(md, "schema_version", NULL, &m->schema_version, err) < 0 ||
	    get_int(md, "device_count", NULL, &m->device_count, err) < 0 ||
	    get_int(md, "captured_device_count", NULL, &m->captured_device_count, err) < 0)
		return -1;

	if (get_object(md, "runtime", NULL, &runtime, err) < 0)
		return -1;
	if (runtime &&
	    (get_string(runtime, "hip_runtime_version", NULL, &m->hip_runtime_version, err) < 0 ||
	     get_string(runtime, "comgr_version", NULL, &m->comgr_version, err) < 0))
		return -1;

	devices = member(md, "devices");
	if (!devices)
		return 0;
	if (!cJSON_IsArray(devices))
		return type_error(err, "devices", NULL, "an array");
	n = (size_t)cJSON_GetArraySize(devices);
	if (n > MANIFEST_MAX_DEVICES)
		n = MANIFEST_MAX_DEVICES; /* no host has more; the rest is ignored */
	m->devices = xcalloc(n ? n : 1, sizeof(*m->devices));
	cJSON_ArrayForEach(dev, devices) {
		if (m->n_devices >= n)
			break;
		/* Counted before parsing so release() frees a half-parsed entry. */
		m->n_devices++;
		if (parse_device(&m->devices[m->n_devices - 1], dev, m->n_devices - 1, err) < 0)
			return -1;
	}
	return 0;
}

static int parse_root(struct manifest *m, const cJSON *root, struct error *err)
{
	const cJSON *complete, *md;

	if (!cJSON_IsObject(root))
		return error_set(err, ERR_DATA, 0, "manifest.json: top level must be an object");
	if (get_integer(root, "pid", NULL, 0, JSON_INT_MAX, &m->pid, err) < 0 ||
	    get_integer(root, "parent_pid", NULL, 0, JSON_INT_MAX, &m->parent_pid, err) < 0 ||
	    get_count(root, "event_count", &m->event_count, err) < 0 ||
	    get_count(root, "blob_count", &m->blob_count, err) < 0)
		return -1;
	complete = member(root, "complete");
	if (complete) {
		if (!cJSON_IsBool(complete))
			return type_error(err, "complete", NULL, "true or false");
		m->complete = cJSON_IsTrue(complete) ? 1 : 0;
	}
	if (parse_unreplayable(m, root, err) < 0)
		return -1;
	if (get_object(root, "metadata", NULL, &md, err) < 0)
		return -1;
	return md ? parse_metadata(m, md, err) : 0;
}

int manifest_parse(struct manifest *m, const char *text, size_t len, struct error *err)
{
	cleanup_cjson cJSON *root = NULL;
	const char *end = NULL;

	manifest_release(m);
	if (len > MANIFEST_MAX_BYTES)
		return error_set(err, ERR_LIMIT, 0,
				 "manifest.json: %zu bytes is over the %u-byte limit",
				 len, MANIFEST_MAX_BYTES);
	root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!root) {
		size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;

		return error_set(err, ERR_DATA, 0, "manifest.json: not valid JSON (at byte %zu)", at);
	}
	/* cJSON stops after the first value; anything but whitespace after it
	 * means the file is not what its writer meant. */
	for (const char *p = end; p && p < text + len; p++)
		if (!isspace((unsigned char)*p))
			return error_set(err, ERR_DATA, 0,
					 "manifest.json: not valid JSON (trailing data at byte %zu)",
					 (size_t)(p - text));
	if (parse_root(m, root, err) < 0) {
		manifest_release(m);
		return -1;
	}
	return 0;
}

int manifest_load(struct manifest *m, const char *pid_dir, struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_free char *path = xasprintf("%s/manifest.json", pid_dir);

	manifest_release(m);
	if (fs_read_small_file(path, MANIFEST_MAX_BYTES, &text, err) < 0)
		return -1;
	/* Parse messages name "manifest.json"; make them name the whole path. */
	if (manifest_parse(m, text.buf, text.len, err) < 0)
		return error_prefix(err, "%s/", pid_dir);
	return 0;
}

void capture_manifest_load(struct capture_manifest *c, const char *pid_dir)
{
	struct error err;

	manifest_init(&c->m);
	c->error[0] = '\0';
	c->loaded = manifest_load(&c->m, pid_dir, &err) == 0;
	if (!c->loaded)
		snprintf(c->error, sizeof(c->error), "%s", err.msg);
}

void capture_manifest_release(struct capture_manifest *c)
{
	manifest_release(&c->m);
	c->loaded = false;
}

int capture_manifest_devices(const struct capture_manifest *c)
{
	return c->loaded ? c->m.device_count : -1;
}

/* ---- archive layout ---- */

int archive_check_events(const char *pid_dir, unsigned *format_version, struct error *err)
{
	cleanup_free char *path = xasprintf("%s/events.bin", pid_dir);
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	unsigned char hdr[8];
	size_t got = 0;
	struct stat st;
	uint32_t magic;

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return error_set(err, ERR_NOT_FOUND, 0,
					 "%s is not a capture (no events.bin)", pid_dir);
		return error_errno(err, "%s", path);
	}
	if (fstat(fd, &st) < 0)
		return error_errno(err, "%s", path);
	if (!S_ISREG(st.st_mode))
		return error_set(err, ERR_DATA, 0, "%s is not a regular file", path);
	while (got < sizeof(hdr)) {
		ssize_t n = read(fd, hdr + got, sizeof(hdr) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error_errno(err, "reading %s", path);
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got < sizeof(hdr))
		return error_set(err, ERR_DATA, 0,
				 "%s: %zu bytes, too short for the 8-byte HRR header", path, got);
	magic = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 |
		(uint32_t)hdr[3] << 24;
	if (magic != HRR_EVENTS_MAGIC)
		return error_set(err, ERR_DATA, 0,
				 "%s: bad magic 0x%08x (an HRR events file starts with 0x%08x)",
				 path, magic, HRR_EVENTS_MAGIC);
	if (format_version)
		*format_version = (unsigned)hdr[4] | (unsigned)hdr[5] << 8;
	return 0;
}

static bool has_events(const char *dir)
{
	cleanup_free char *path = xasprintf("%s/events.bin", dir);
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int archive_resolve(const char *path, struct strvec *pid_dirs, struct error *err)
{
	cleanup_free char *real = NULL;
	struct dirent *de;
	const char *base;
	struct stat st;
	DIR *dir;
	size_t first = pid_dirs->n;

	if (stat(path, &st) < 0) {
		int saved = errno;

		error_errno(err, "archive %s", path);
		if (saved == ENOENT || saved == ENOTDIR)
			err->kind = ERR_NOT_FOUND;
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return error_set(err, ERR_DATA, 0,
				 "archive %s is not a directory (expected a pid-<pid> directory or a capture root)",
				 path);
	real = realpath(path, NULL);
	if (!real)
		return error_errno(err, "archive %s", path);

	/* A directory holding events.bin is a pid directory whatever its name;
	 * one named pid-* without it is a broken one, not a root to scan. */
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (has_events(real)) {
		strvec_push(pid_dirs, real);
		return 0;
	}
	if (!strncmp(base, "pid-", 4))
		return error_set(err, ERR_DATA, 0, "%s is not a capture (no events.bin)", path);

	dir = opendir(real);
	if (!dir)
		return error_errno(err, "archive %s", path);
	while ((errno = 0, de = readdir(dir))) {
		cleanup_free char *sub = NULL;

		if (strncmp(de->d_name, "pid-", 4))
			continue;
		sub = xasprintf("%s/%s", real, de->d_name);
		if (is_dir(sub) && has_events(sub))
			strvec_push_nodup(pid_dirs, steal_pointer(&sub));
	}
	if (errno) {
		error_errno(err, "reading archive %s", path);
		closedir(dir);
		goto fail;
	}
	closedir(dir);
	if (pid_dirs->n == first) {
		error_set(err, ERR_DATA, 0,
			  "%s is not a capture: no pid-* directory with an events.bin in it", path);
		goto fail;
	}
	qsort(pid_dirs->v + first, pid_dirs->n - first, sizeof(*pid_dirs->v), cmp_str);
	/* A subdirectory may itself be a symlink: canonicalise each. */
	for (size_t i = first; i < pid_dirs->n; i++) {
		char *r = realpath(pid_dirs->v[i], NULL);

		if (!r) {
			error_errno(err, "archive %s", pid_dirs->v[i]);
			goto fail;
		}
		free(pid_dirs->v[i]);
		pid_dirs->v[i] = r;
	}
	return 0;

fail:
	/* Leave pid_dirs as the caller passed it. */
	while (pid_dirs->n > first) {
		free(pid_dirs->v[--pid_dirs->n]);
		pid_dirs->v[pid_dirs->n] = NULL;
	}
	return -1;
}
