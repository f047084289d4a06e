/* Distinct layers (orchestrator/lease/image_layers.h): an image's
 * RootFS.Layers paired with its history's sizes, and the disk images take
 * together, a shared base counted once. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/cleanup.h"
#include "orchestrator/lease/image_lease.h"
#include "orchestrator/lease/image_layers.h"
#include "orchestrator/sweep/sweep_image_fate.h"
#include "tests/support/scratch.h"

static struct strvec ids(const char *const *v)
{
	struct strvec sv = STRVEC_INIT;

	strvec_pushv(&sv, v);
	return sv;
}

Test(image_layers, the_layers_pair_with_the_entries_that_made_them)
{
	/* ENV and CMD entries (size 0) made no layer */
	cleanup_strvec struct strvec d = ids((const char *[]){ "sha256:base", "sha256:sim",
							    "sha256:own", NULL });
	long long sizes[] = { 100, 0, 20, 0, 3, 0 };
	struct image_layers l;

	cr_assert_eq(image_layers_pair(&d, sizes, 6, &l), 0);
	cr_assert_eq(l.n, 3);
	cr_expect_str_eq(l.v[0].diff_id, "sha256:base");
	cr_expect_eq(l.v[0].size, 100);
	cr_expect_eq(l.v[1].size, 20);
	cr_expect_eq(l.v[2].size, 3);
	image_layers_release(&l);
}

Test(image_layers, the_empty_tar_is_a_layer_of_nothing)
{
	cleanup_strvec struct strvec d = ids((const char *[]){ "sha256:base", IMAGE_LAYER_EMPTY,
							    "sha256:own", NULL });
	long long sizes[] = { 100, 0, 3 };
	struct image_layers l;

	cr_assert_eq(image_layers_pair(&d, sizes, 3, &l), 0);
	cr_assert_eq(l.n, 3);
	cr_expect_eq(l.v[1].size, 0);
	cr_expect_eq(l.v[2].size, 3);
	image_layers_release(&l);
}

/* A layer of 0 bytes that is not the empty tar (a RUN that only deleted),
 * an entry too many, or a size not said: no pairing, the whole size. */
Test(image_layers, what_does_not_pair_one_to_one_is_not_known)
{
	cleanup_strvec struct strvec d = ids((const char *[]){ "sha256:a", "sha256:b", NULL });
	long long fewer[] = { 100, 0 }, more[] = { 100, 5, 7 }, unsaid[] = { 100, -1 };
	struct image_layers l;

	cr_expect_eq(image_layers_pair(&d, fewer, 2, &l), -1);
	cr_expect_eq(l.n, 0);
	cr_expect_eq(image_layers_pair(&d, more, 3, &l), -1);
	cr_expect_eq(l.n, 0);
	cr_expect_eq(image_layers_pair(&d, unsaid, 2, &l), -1);
	cr_expect_eq(image_layers_pair(&(struct strvec)STRVEC_INIT, NULL, 0, &l), -1,
		     "no layers at all is not known either");
}

static void put(struct pulled_images *p, const char *id, long long whole,
		const char *const *diff, const long long *sizes)
{
	struct pulled_image im = { .id = (char *)id, .size = whole };

	for (size_t i = 0; diff && diff[i]; i++)
		image_layers_add(&im.layers, diff[i], sizes[i]);
	pulled_images_put(p, &im);
	image_layers_release(&im.layers);
}

Test(image_layers, a_shared_base_counts_once_and_unknown_layers_whole)
{
	struct pulled_images p = { 0 }, back;
	cleanup_free char *text = NULL;

	put(&p, "sha256:a", 130, (const char *[]){ "sha256:base", "sha256:a1", NULL },
	    (long long[]){ 100, 30 });
	put(&p, "sha256:b", 150, (const char *[]){ "sha256:base", "sha256:b1", NULL },
	    (long long[]){ 100, 50 });
	cr_expect_eq(pulled_images_disk(&p), 180, "the base once: 100 + 30 + 50");
	put(&p, "sha256:c", 120, NULL, NULL);
	cr_expect_eq(pulled_images_disk(&p), 300, "an image of unknown layers, whole");
	text = pulled_images_format(&p);
	pulled_images_parse(text, &back);
	cr_assert_eq(back.n, 3);
	cr_expect_eq(pulled_images_find(&back, "sha256:b")->layers.n, 2);
	cr_expect_str_eq(pulled_images_find(&back, "sha256:b")->layers.v[1].diff_id, "sha256:b1");
	cr_expect_eq(pulled_images_find(&back, "sha256:c")->layers.n, 0);
	cr_expect_eq(pulled_images_disk(&back), 300, "the record keeps the layers");
	pulled_images_drop(&back, "sha256:a");
	cr_expect_eq(pulled_images_disk(&back), 270, "removing a frees only its own layer");
	pulled_images_release(&p);
	pulled_images_release(&back);
}

/* A sweep's images' fates (orchestrator/sweep/sweep_image_fate.h) through
 * their folder file: what is not a fate's name reads as not said. */
Test(sweep_image_fate, the_fates_of_a_sweeps_images_survive_their_file)
{
	cleanup_free char *dir = scratch_dir("image-fates");
	cleanup_free char *path = sweep_image_fates_path(dir, NULL);
	struct sweep_image_fates f, back;
	struct error err;

	sweep_image_fates_init(&f, 3);
	f.peak = 12345;
	f.v[0] = (struct sweep_image_fate){ .pulled = 10, .removed = 20,
					    .fate = IMAGE_FATE_REMOVED };
	f.v[1] = (struct sweep_image_fate){ .pulled = 30, .fate = IMAGE_FATE_HELD };
	cr_assert_eq(sweep_image_fates_write(path, &f, &err), 0, "%s", err.msg);
	sweep_image_fates_init(&back, 2);
	cr_assert_eq(sweep_image_fates_read(path, &back, &err), 0, "%s", err.msg);
	cr_expect_eq(back.peak, 12345);
	cr_expect_eq(back.v[0].removed, 20);
	cr_expect_eq(back.v[0].fate, IMAGE_FATE_REMOVED);
	cr_expect_eq(back.v[1].fate, IMAGE_FATE_HELD);
	cr_expect_str_eq(image_fate_name(back.v[1].fate), "held by another sweep");
	cr_expect_null(image_fate_name(IMAGE_FATE_UNKNOWN));
	sweep_image_fates_release(&back);
	sweep_image_fates_release(&f);
	scratch_remove(dir);
	dir[0] = '\0';
	sweep_image_fates_init(&back, 1);
	cr_expect_eq(sweep_image_fates_read("/nonexistent-folder/images.json", &back, &err), -1);
	cr_expect_eq(err.kind, ERR_NOT_FOUND);
	sweep_image_fates_release(&back);
}
