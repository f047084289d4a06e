/* The distinct layers of the images this tool pulled (docs/sweep.md
 * "--image-budget"), pure: an image's layers, its RootFS.Layers paired
 * with its history's sizes, and the disk a set of images takes together,
 * each layer counted once, so images sharing a ROCm base do not count it
 * twice. */
#ifndef HRR_LEASE_IMAGE_LAYERS_H
#define HRR_LEASE_IMAGE_LAYERS_H

#include <stddef.h>

#include "common/strvec.h"

/* The diff ID of the empty tar: a layer with nothing in it. */
#define IMAGE_LAYER_EMPTY "sha256:5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfb3f10f3d34b6"

struct image_layer {
	char *diff_id; /* sha256:... as RootFS.Layers names it */
	long long size; /* bytes, as the engine's history says */
};

/* An image's layers, base first; none: not known. */
struct image_layers {
	struct image_layer *v;
	size_t n;
};

void image_layers_release(struct image_layers *l);
void image_layers_copy(struct image_layers *to, const struct image_layers *from);
void image_layers_add(struct image_layers *l, const char *diff_id, long long size);

/* diff_ids (RootFS.Layers, base first) paired with sizes (each history
 * entry's, oldest first): the empty tar's layers are 0 bytes and the
 * entries of size 0 made no layer (or an empty one); the others pair in
 * order. < 0, out empty, when they do not pair one to one (or a size is
 * not said): the caller counts the image's whole size as its own. */
int image_layers_pair(const struct strvec *diff_ids, const long long *sizes, size_t n_sizes,
		      struct image_layers *out);

/* The disk images take together: each distinct layer once; an image
 * whose layers are not known counts its whole size (a bound from above). */
struct layer_tally {
	struct strvec seen;
	long long bytes;
};
void layer_tally_init(struct layer_tally *t);
void layer_tally_add(struct layer_tally *t, const struct image_layers *l, long long whole);
void layer_tally_release(struct layer_tally *t);

#endif
