/* What became of each image of a sweep (docs/sweep.md "Reports"): when
 * the sweep pulled it, when it was removed or why it was kept, and the
 * peak disk the images this tool pulled took together (each layer once).
 * Kept in the sweep folder as SWEEP_IMAGES_FILE, written by the sweep's
 * run as it ends (a resumed run carries the earlier run's on) and read by
 * its end for the reports; this file is its one codec. A cluster task
 * writes a file of its own (sweep_image_fates_path), and the merge
 * combines them per node (sweep_image_nodes.h). */
#ifndef HRR_SWEEP_SWEEP_IMAGE_FATE_H
#define HRR_SWEEP_SWEEP_IMAGE_FATE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define SWEEP_IMAGES_FILE "images.json"

enum image_fate {
	IMAGE_FATE_UNKNOWN,   /* not set up by this sweep, or killed before its end */
	IMAGE_FATE_REMOVED,   /* removed by the budget (removed says when) */
	IMAGE_FATE_USERS,     /* kept: the user's (on the engine before, not in the record) */
	IMAGE_FATE_FITS,      /* kept: what the tool pulled fits the budget */
	IMAGE_FATE_IN_USE,    /* kept: its removal was refused (a container uses it, tagged since) */
	IMAGE_FATE_HELD,      /* kept: another sweep or bisection holds it */
	IMAGE_FATE_NO_BUDGET, /* kept: no --image-budget, nothing is removed */
};

struct sweep_image_fate {
	long long pulled;  /* epoch seconds this sweep pulled it; 0 not pulled by it */
	long long removed; /* epoch seconds; 0 not removed */
	enum image_fate fate;
};

struct sweep_image_fates {
	struct sweep_image_fate *v; /* per image of plan.json, in its order */
	size_t n;
	long long peak; /* bytes; 0 not measured (no budget) */
	char host[256]; /* the host whose run wrote it; "" not said */
};

void sweep_image_fates_init(struct sweep_image_fates *f, size_t n);
void sweep_image_fates_release(struct sweep_image_fates *f);
/* "removed", "the user's", "fits the budget", "in use", "held by another
 * sweep", "no budget"; NULL for IMAGE_FATE_UNKNOWN. */
const char *image_fate_name(enum image_fate f);
bool image_fate_parse(const char *name, enum image_fate *out);

/* The file of a run's images' fates in the sweep folder; caller frees.
 * task NULL: SWEEP_IMAGES_FILE; a cluster task's (task: its results
 * file's tag, "<job>_<task>"): "images.<task>.json", so tasks on several
 * nodes never write one file. */
char *sweep_image_fates_path(const char *folder, const char *task);

/* Into path (f->host, or this host's name when ""). */
int sweep_image_fates_write(const char *path, const struct sweep_image_fates *f,
			    struct error *err) __attribute__((warn_unused_result));
/* Into f, already sized to plan.json's images (entries beyond it are
 * dropped). ERR_NOT_FOUND: no file (a sweep from before, or killed
 * before its end). */
int sweep_image_fates_read(const char *path, struct sweep_image_fates *f, struct error *err);

#endif
