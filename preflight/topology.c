#include "preflight/topology.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "common/fsutil.h"

/* A real properties file is ~2 KiB; anything past this is not sysfs. */
#define TOPOLOGY_FILE_MAX (64u << 10)
/* Nodes beyond this are not a real machine (and bound the allocation). */
#define TOPOLOGY_MAX_NODES 1024

void gfx_arch_name(unsigned long v, char *out, size_t outlen)
{
	char name[64];
	size_t n;

	if (!outlen)
		return;
	if (!v)
		snprintf(name, sizeof(name), "unknown");
	else
		/* Packed decimal: major, then minor and stepping as one hex
		 * digit each (LLVM's processor names: 9.0.10 -> gfx90a). */
		snprintf(name, sizeof(name), "gfx%lu%lx%lx", v / 10000, (v / 100) % 100, v % 100);
	n = strlen(name);
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, name, n);
	out[n] = '\0';
}

void gpu_topology_release(struct gpu_topology *t)
{
	free(t->gpus);
	t->gpus = NULL;
	t->n_gpus = 0;
}

static bool parse_ulong(const char *s, unsigned long *out)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	return *end == '\0';
}

/* Pure: the `name value` lines of a node's properties file. */
static void parse_properties(struct gpu_node *g, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *value = strchr(line, ' ');
		unsigned long v;

		if (!value)
			continue;
		*value++ = '\0';
		if (!parse_ulong(value, &v))
			continue;
		if (!strcmp(line, "gfx_target_version"))
			g->gfx_target_version = v;
		else if (!strcmp(line, "drm_render_minor") && v <= 1u << 20)
			g->drm_render_minor = (int)v;
		else if (!strcmp(line, "unique_id"))
			g->unique_id = v;
		else if (!strcmp(line, "device_id"))
			g->device_id = v;
	}
}

/* Fills g for node dir `path`; returns 1 for a GPU node, 0 for a CPU node
 * or one without a readable gpu_id (not enumerated by ROCm either). */
static int read_node(struct gpu_node *g, const char *path, struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_free char *file = xasprintf("%s/gpu_id", path);

	if (fs_read_small_file(file, TOPOLOGY_FILE_MAX, &text, err) < 0) {
		if (err->kind != ERR_NOT_FOUND)
			return -1;
		error_clear(err);
		return 0;
	}
	if (!parse_ulong(text.buf, &g->gpu_id))
		return error_set(err, ERR_DATA, 0, "%s: not a number", file);
	if (!g->gpu_id)
		return 0;

	free(file);
	file = xasprintf("%s/properties", path);
	strbuf_reset(&text);
	g->drm_render_minor = -1;
	if (fs_read_small_file(file, TOPOLOGY_FILE_MAX, &text, err) < 0) {
		if (err->kind != ERR_NOT_FOUND)
			return -1;
		error_clear(err); /* no properties: arch and render node unknown */
	} else {
		parse_properties(g, text.buf);
	}
	gfx_arch_name(g->gfx_target_version, g->arch, sizeof(g->arch));
	return 1;
}

/* The driver's version: one short printable word, else unknown (it is a
 * file anyone with a test sysfs can write; it only ever compares equal). */
static void read_driver(struct gpu_topology *t, const char *sysfs_root)
{
	cleanup_free char *file = xasprintf("%s/module/amdgpu/version", sysfs_root);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	size_t len;

	t->driver[0] = '\0';
	if (fs_read_small_file(file, TOPOLOGY_FILE_MAX, &text, ERROR_DISCARD) < 0)
		return;
	strbuf_trim_trailing_newline(&text);
	len = text.len;
	if (!len || len >= sizeof(t->driver))
		return;
	for (size_t i = 0; i < len; i++)
		if (!isgraph((unsigned char)text.buf[i]))
			return;
	memcpy(t->driver, text.buf, len);
	t->driver[len] = '\0';
}

static int cmp_node(const void *a, const void *b)
{
	const struct gpu_node *x = a, *y = b;

	return (x->node > y->node) - (x->node < y->node);
}

static bool node_number(const char *name, int *out)
{
	unsigned long v;

	if (!parse_ulong(name, &v) || v > TOPOLOGY_MAX_NODES)
		return false;
	*out = (int)v;
	return true;
}

int gpu_topology_read(struct gpu_topology *t, const char *sysfs_root, struct error *err)
{
	cleanup_strbuf struct strbuf gpus = STRBUF_INIT; /* struct gpu_node[] */
	cleanup_free char *nodes = NULL;
	struct dirent *de;
	size_t n;
	DIR *dir;

	t->gpus = NULL;
	t->n_gpus = 0;
	if (!sysfs_root || !*sysfs_root)
		sysfs_root = "/sys";
	read_driver(t, sysfs_root);
	nodes = xasprintf("%s/class/kfd/kfd/topology/nodes", sysfs_root);
	dir = opendir(nodes);
	if (!dir) {
		if (errno == ENOENT || errno == ENOTDIR)
			return error_set(err, ERR_NOT_FOUND, 0, "no AMD GPU found under %s", sysfs_root);
		return error_errno(err, "reading the KFD topology %s", nodes);
	}
	while ((errno = 0, de = readdir(dir))) {
		cleanup_free char *path = NULL;
		struct gpu_node g = { 0 };
		int r;

		if (!node_number(de->d_name, &g.node))
			continue;
		path = xasprintf("%s/%s", nodes, de->d_name);
		r = read_node(&g, path, err);
		if (r < 0)
			goto fail;
		if (!r)
			continue;
		strbuf_add(&gpus, &g, sizeof(g));
	}
	if (errno) {
		error_errno(err, "reading the KFD topology %s", nodes);
		goto fail;
	}
	closedir(dir);
	n = gpus.len / sizeof(struct gpu_node);
	if (!n)
		return error_set(err, ERR_NOT_FOUND, 0, "no AMD GPU found under %s", sysfs_root);
	/* readdir order is arbitrary and names sort wrongly as strings (10
	 * before 2): ROCm enumerates by node number. */
	t->gpus = (struct gpu_node *)strbuf_detach(&gpus, NULL);
	t->n_gpus = n;
	qsort(t->gpus, n, sizeof(*t->gpus), cmp_node);
	return 0;

fail:
	closedir(dir);
	return -1;
}

const struct gpu_node *gpu_topology_node(const struct gpu_topology *t, int ordinal)
{
	return t && ordinal >= 0 && (size_t)ordinal < t->n_gpus ? &t->gpus[ordinal] : NULL;
}

const struct gpu_node *gpu_topology_one_product(const struct gpu_topology *t, const int *gpus,
						size_t n)
{
	const struct gpu_node *first = NULL;
	size_t count = n ? n : t->n_gpus;

	for (size_t i = 0; i < count; i++) {
		const struct gpu_node *g = gpu_topology_node(t, n ? gpus[i] : (int)i);

		if (!g || !g->gfx_target_version)
			return NULL;
		if (!first)
			first = g;
		else if (strcmp(g->arch, first->arch) || g->device_id != first->device_id)
			return NULL;
	}
	return first;
}

unsigned long long gpu_unique_id(const struct gpu_topology *t, int ordinal)
{
	return ordinal >= 0 && (size_t)ordinal < t->n_gpus ? t->gpus[ordinal].unique_id : 0;
}

void gpu_unique_ids_format(struct strbuf *out, const struct gpu_topology *t, const int *gpus,
			   size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, i ? ",%llu" : "%llu", gpu_unique_id(t, gpus[i]));
}

void gpu_list_format(struct strbuf *out, const int *gpus, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, i ? ",%d" : "%d", gpus[i]);
}
