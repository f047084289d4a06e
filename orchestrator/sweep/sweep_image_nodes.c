/* A cluster sweep's images per node (sweep_image_nodes.h). */
#include "orchestrator/sweep/sweep_image_nodes.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

static long long earliest(long long a, long long b)
{
	return !a || (b && b < a) ? b : a;
}

static void add_run(struct sweep_image_fate *a, const struct sweep_image_fate *b)
{
	bool a_gone = a->fate == IMAGE_FATE_REMOVED, b_gone = b->fate == IMAGE_FATE_REMOVED;

	if (b->fate == IMAGE_FATE_UNKNOWN)
		;
	else if (a->fate == IMAGE_FATE_UNKNOWN)
		*a = (struct sweep_image_fate){ .pulled = a->pulled, .removed = b->removed,
						.fate = b->fate };
	else if (a_gone && b_gone)
		a->removed = b->removed > a->removed ? b->removed : a->removed;
	else if (a_gone != b_gone) {
		/* Kept only by a run that pulled it after the other removed it;
		 * both kept: the first run's reason. */
		const struct sweep_image_fate *gone = a_gone ? a : b, *kept = a_gone ? b : a;
		bool again = kept->pulled > gone->removed;

		a->removed = again ? 0 : gone->removed;
		a->fate = again ? kept->fate : IMAGE_FATE_REMOVED;
	}
	a->pulled = earliest(a->pulled, b->pulled);
}

/* Each image of b into a's by add; the larger peak. */
static void add_each(struct sweep_image_fates *a, const struct sweep_image_fates *b,
		     void (*add)(struct sweep_image_fate *, const struct sweep_image_fate *))
{
	for (size_t i = 0; i < a->n && i < b->n; i++)
		add(&a->v[i], &b->v[i]);
	a->peak = b->peak > a->peak ? b->peak : a->peak;
}

void sweep_image_fates_add_task(struct sweep_image_fates *node,
				const struct sweep_image_fates *task)
{
	add_each(node, task, add_run);
}

static void add_node(struct sweep_image_fate *a, const struct sweep_image_fate *b)
{
	bool a_kept = a->fate != IMAGE_FATE_UNKNOWN && a->fate != IMAGE_FATE_REMOVED;

	if (b->fate == IMAGE_FATE_UNKNOWN || a_kept)
		;
	else if (b->fate != IMAGE_FATE_REMOVED || a->fate == IMAGE_FATE_UNKNOWN) {
		a->fate = b->fate;
		a->removed = b->fate == IMAGE_FATE_REMOVED ? b->removed : 0;
	} else if (b->removed > a->removed)
		a->removed = b->removed;
	a->pulled = earliest(a->pulled, b->pulled);
}

void sweep_image_fates_add_node(struct sweep_image_fates *all,
				const struct sweep_image_fates *node)
{
	add_each(all, node, add_node);
}

static int by_host(const void *a, const void *b)
{
	return strcmp(((const struct sweep_image_fates *)a)->host,
		      ((const struct sweep_image_fates *)b)->host);
}

void sweep_image_nodes_of(const struct sweep_image_fates *files, size_t n, size_t n_images,
			  struct sweep_image_nodes *out)
{
	out->v = xcalloc(n + 1, sizeof(*out->v));
	out->n = 0;
	for (size_t k = 0; k < n; k++) {
		struct sweep_image_fates *node = NULL;

		for (size_t j = 0; j < out->n && !node; j++)
			if (!strcmp(out->v[j].host, files[k].host))
				node = &out->v[j];
		if (!node) {
			node = &out->v[out->n++];
			sweep_image_fates_init(node, n_images);
			memcpy(node->host, files[k].host, sizeof(node->host));
		}
		sweep_image_fates_add_task(node, &files[k]);
	}
	qsort(out->v, out->n, sizeof(*out->v), by_host);
}

/* SWEEP_IMAGES_FILE, or a task's "images.<task>.json". */
static int is_images_file(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return !strncmp(e->d_name, "images.", 7) && n >= 7 + 4 &&
	       !strcmp(e->d_name + n - 5, ".json");
}

int sweep_image_nodes_read(const char *folder, size_t n_images, struct sweep_image_nodes *out,
			   struct error *err)
{
	struct dirent **names;
	int n = scandir(folder, &names, is_images_file, alphasort);
	struct sweep_image_fates *files;
	size_t got = 0, tasks = 0;

	if (n < 0)
		return error_errno(err, "sweep folder %s", folder);
	files = xcalloc((size_t)n + 1, sizeof(*files));
	for (int i = 0; i < n; i++) {
		cleanup_free char *path = xasprintf("%s/%s", folder, names[i]->d_name);

		sweep_image_fates_init(&files[got], n_images);
		if (sweep_image_fates_read(path, &files[got], ERROR_DISCARD) == 0) {
			tasks += strcmp(names[i]->d_name, SWEEP_IMAGES_FILE) != 0;
			got++;
		} else {
			sweep_image_fates_release(&files[got]);
		}
		free(names[i]);
	}
	free(names);
	sweep_image_nodes_of(files, got, n_images, out);
	out->tasks = tasks;
	for (size_t k = 0; k < got; k++)
		sweep_image_fates_release(&files[k]);
	free(files);
	return 0;
}

void sweep_image_nodes_release(struct sweep_image_nodes *nodes)
{
	for (size_t k = 0; k < nodes->n; k++)
		sweep_image_fates_release(&nodes->v[k]);
	free(nodes->v);
	memset(nodes, 0, sizeof(*nodes));
}
