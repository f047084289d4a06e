/* The host's record of pulled images and the sweeps' holds
 * (orchestrator/lease/image_lease.h), in a scratch lock directory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/lease/image_lease.h"
#include "tests/support/scratch.h"

#define ID_A "sha256:aaaa"
#define ID_B "sha256:bbbb"

Test(image_lease, the_record_survives_its_codec_and_skips_what_is_no_entry)
{
	struct pulled_images p = { 0 }, back;
	cleanup_free char *text = NULL, *mixed = NULL;

	pulled_images_put(&p, &(struct pulled_image){ .id = ID_A, .ref = "r/a:1",
						      .digest = "r/a@sha256:11", .owner = "me",
						      .size = 42, .pulled = 7, .last_used = 9 });
	pulled_images_put(&p, &(struct pulled_image){ .id = ID_B, .ref = "r/b:1", .size = 5 });
	pulled_images_put(&p, &(struct pulled_image){ .id = ID_A, .ref = "r/a:2", .size = 43 });
	cr_assert_eq(p.n, 2, "a second put of an ID replaces it");
	text = pulled_images_format(&p);
	mixed = xasprintf("not json\n{\"id\":\"md5:x\"}\n%s", text);
	pulled_images_parse(mixed, &back);
	cr_assert_eq(back.n, 2);
	cr_assert_str_eq(pulled_images_find(&back, ID_A)->ref, "r/a:2");
	cr_assert_eq(pulled_images_find(&back, ID_A)->size, 43);
	cr_assert_eq(pulled_images_find(&back, ID_B)->size, 5);
	pulled_images_drop(&back, ID_A);
	cr_assert_null(pulled_images_find(&back, ID_A));
	cr_assert_not_null(pulled_images_find(&back, ID_B));
	pulled_images_release(&p);
	pulled_images_release(&back);
}

Test(image_lease, the_record_is_kept_in_the_lock_directory)
{
	cleanup_free char *dir = scratch_dir("image-lease");
	struct image_record r;
	struct error err;

	cr_assert_eq(image_record_open(&r, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(r.list.n, 0);
	pulled_images_put(&r.list, &(struct pulled_image){ .id = ID_A, .ref = "r/a:1", .size = 3 });
	cr_assert_eq(image_record_save(&r, &err), 0, "%s", err.msg);
	image_record_close(&r);
	cr_assert_eq(image_record_open(&r, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(r.list.n, 1);
	cr_assert_eq(pulled_images_find(&r.list, ID_A)->size, 3);
	image_record_close(&r);
	scratch_remove(dir);
}

/* Another sweep's live hold keeps its images; its released (or dead)
 * hold keeps nothing, and one's own hold never counts. */
Test(image_lease, a_live_hold_of_another_sweep_keeps_its_images)
{
	cleanup_free char *dir = scratch_dir("image-hold");
	struct strvec names = STRVEC_INIT;
	struct image_hold mine = { .fd = -1 }, other = { .fd = -1 };
	struct error err;

	strvec_push(&names, ID_A);
	strvec_push(&names, "r/b@sha256:22");
	cr_assert_eq(image_hold_take(&other, dir, "night-2", &names, &err), 0, "%s", err.msg);
	cr_assert_eq(image_hold_take(&mine, dir, "night-1", NULL, &err), 0, "%s", err.msg);
	cr_assert(image_held_by_others(dir, &mine, ID_A, NULL));
	cr_assert(image_held_by_others(dir, &mine, ID_B, "r/b@sha256:22"), "held by its digest");
	cr_assert_not(image_held_by_others(dir, &mine, ID_B, NULL));
	cr_assert_not(image_held_by_others(dir, &other, ID_A, NULL), "one's own hold");
	{
		/* A sweep killed with SIGKILL leaves its file, not its lock. */
		cleanup_free char *dead = xasprintf("%s/%sdead", dir, IMAGE_HOLD_PREFIX);
		FILE *f = fopen(dead, "w");

		cr_assert_not_null(f);
		fputs(ID_B "\n", f);
		fclose(f);
		cr_assert_not(image_held_by_others(dir, &mine, ID_B, NULL), "a dead hold");
	}
	strvec_clear(&names);
	image_hold_set(&other, &names);
	cr_assert_not(image_held_by_others(dir, &mine, ID_A, NULL), "done with it");
	image_hold_release(&other, dir);
	image_hold_release(&mine, dir);
	scratch_remove(dir);
}
