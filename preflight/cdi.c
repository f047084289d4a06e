/* The CDI spec parser and the GPU matcher (preflight/cdi.h): pure. */
#include "preflight/cdi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

static const cJSON *field(const cJSON *o, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(o, name);
}

static long number_or(const cJSON *o, const char *name, long dflt)
{
	const cJSON *v = field(o, name);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (long)v->valuedouble : dflt;
}

/* containerEdits: its deviceNodes; *other = it holds anything else. */
static int parse_edits(const cJSON *edits, const char *file, struct cdi_node **nodes,
		       size_t *n_nodes, bool *other, struct error *err)
{
	const cJSON *it, *list = field(edits, "deviceNodes");
	size_t n = 0;

	*other = false;
	cJSON_ArrayForEach(it, edits)
		if (strcmp(it->string, "deviceNodes") &&
		    !(cJSON_IsArray(it) && cJSON_GetArraySize(it) == 0) && !cJSON_IsNull(it))
			*other = true;
	*nodes = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(**nodes));
	cJSON_ArrayForEach(it, list) {
		const char *path = cJSON_GetStringValue(field(it, "path"));
		const char *host = cJSON_GetStringValue(field(it, "hostPath"));
		struct cdi_node *d = &(*nodes)[n];

		if (!path || path[0] != '/') {
			*n_nodes = n;
			return error_set(err, ERR_DATA, 0,
					 "CDI spec %s: a device node without an absolute path", file);
		}
		d->path = xstrdup(path);
		d->host_path = host && *host ? xstrdup(host) : NULL;
		d->major = number_or(it, "major", -1);
		d->minor = number_or(it, "minor", -1);
		n++;
	}
	*n_nodes = n;
	return 0;
}

int cdi_spec_parse(const char *text, size_t len, const char *file, struct cdi_spec *out,
		   struct error *err)
{
	cleanup_cjson cJSON *j = cJSON_ParseWithLength(text, len);
	const cJSON *kind = field(j, "kind"), *devices = field(j, "devices"), *it;

	memset(out, 0, sizeof(*out));
	out->file = xstrdup(file);
	if (!cJSON_IsObject(j) || !cJSON_IsString(field(j, "cdiVersion")) ||
	    !cJSON_IsString(kind) || !cJSON_IsArray(devices))
		return error_set(err, ERR_DATA, 0,
				 "%s is not a CDI spec (JSON with cdiVersion, kind and devices)", file);
	out->kind = xstrdup(kind->valuestring);
	if (parse_edits(field(j, "containerEdits"), file, &out->nodes, &out->n_nodes,
			&out->other_edits, err) < 0)
		return -1;
	out->devices = xcalloc((size_t)cJSON_GetArraySize(devices) + 1, sizeof(*out->devices));
	cJSON_ArrayForEach(it, devices) {
		const char *name = cJSON_GetStringValue(field(it, "name"));
		struct cdi_device *d = &out->devices[out->n_devices];

		if (!name || !*name)
			return error_set(err, ERR_DATA, 0, "CDI spec %s: a device without a name",
					 file);
		d->name = xstrdup(name);
		out->n_devices++;
		if (parse_edits(field(it, "containerEdits"), file, &d->nodes, &d->n_nodes,
				&d->other_edits, err) < 0)
			return -1;
	}
	return 0;
}

static void nodes_free(struct cdi_node *n, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(n[i].path);
		free(n[i].host_path);
	}
	free(n);
}

void cdi_spec_release(struct cdi_spec *s)
{
	for (size_t i = 0; i < s->n_devices; i++) {
		free(s->devices[i].name);
		nodes_free(s->devices[i].nodes, s->devices[i].n_nodes);
	}
	free(s->devices);
	nodes_free(s->nodes, s->n_nodes);
	free(s->file);
	free(s->kind);
	memset(s, 0, sizeof(*s));
}

long cdi_node_render_minor(const struct cdi_node *n)
{
	return n->major == DRM_MAJOR && n->minor >= 128 ? n->minor : -1;
}

/* The one render node of d, or -1 (none, or more than one). */
static long device_render_minor(const struct cdi_device *d)
{
	long found = -1;

	for (size_t i = 0; i < d->n_nodes; i++) {
		long m = cdi_node_render_minor(&d->nodes[i]);

		if (m < 0)
			continue;
		if (found >= 0 && found != m)
			return -1;
		found = m;
	}
	return found;
}

/* What the spec adds beyond /dev/kfd and the chosen devices' nodes. */
static void spec_extra(const struct cdi_spec *s, const struct cdi_device *const *chosen,
		       size_t n, char *out, size_t outlen)
{
	out[0] = '\0';
	if (s->other_edits) {
		snprintf(out, outlen, "%s has spec-level edits other than device nodes", s->file);
		return;
	}
	for (size_t i = 0; i < s->n_nodes; i++)
		if (strcmp(s->nodes[i].path, "/dev/kfd")) {
			snprintf(out, outlen, "%s adds %s to every device", s->file, s->nodes[i].path);
			return;
		}
	for (size_t i = 0; i < n; i++)
		if (chosen[i]->other_edits) {
			snprintf(out, outlen, "%s: device %s adds more than device nodes (env, mounts or hooks)",
				 s->file, chosen[i]->name);
			return;
		}
}

int cdi_match_gpus(const struct cdi_spec *s, const int *ordinals, const int *render_minors,
		   size_t n, struct cdi_match *out, struct error *err)
{
	cleanup_free const struct cdi_device **chosen = xcalloc(n + 1, sizeof(*chosen));

	strvec_init(&out->names);
	out->extra[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < s->n_devices && !chosen[i]; j++)
			if (device_render_minor(&s->devices[j]) == render_minors[i])
				chosen[i] = &s->devices[j];
		if (!chosen[i]) {
			strvec_clear(&out->names);
			return error_set(err, ERR_NOT_FOUND, 0,
					 "GPU %d (renderD%d) is not a device of its own in the CDI spec %s: regenerate it (amd-ctk cdi generate) or use --devices nodes",
					 ordinals[i], render_minors[i], s->file);
		}
		strvec_pushf(&out->names, "%s=%s", s->kind, chosen[i]->name);
	}
	spec_extra(s, chosen, n, out->extra, sizeof(out->extra));
	return 0;
}

void cdi_match_release(struct cdi_match *m)
{
	strvec_clear(&m->names);
}
