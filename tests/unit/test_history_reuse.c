/* bisect's reuse of a known result (orchestrator/history/history_reuse.c)
 * on a fleet's history: only a result of the same GPU product (gfx target
 * and device_id) is reused, or of the same host when a product is unknown.
 * On SQLite and, under `make check-history-pg`, on PostgreSQL. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_reuse.h"
#include "tests/support/history_backend.h"

static struct history_fixture fx;

#define DIGEST "fnv1a64:0123456789abcdef"
#define IMAGE_ID "sha256:aaaa"
#define FP "fnv1a64:fedcba9876543210"
#define MI300X 0x74a1L
#define MI210 0x740fL

static void setup(void)
{
	history_fixture_open(&fx, "history-reuse");
}

static void teardown(void)
{
	history_fixture_close(&fx);
}

TestSuite(history_reuse, .init = setup, .fini = teardown);

/* One sweep on host of one replayed PASS of the archive, recorded on gfx
 * (NULL: no product recorded) and device_id. */
static void record(const char *id, const char *host, const char *gfx, long device_id)
{
	struct case_result r = { .case_name = "c", .image = "img:1", .attempt = 1,
				 .image_id = IMAGE_ID, .digest = DIGEST, .state = RESULT_DONE,
				 .gfx = (char *)gfx, .device_id = device_id, .finished = 10 };
	struct sweep_results rs = { .v = &r, .n = 1 };
	const struct history_planned p[] = { { "c", "img:1" } };
	struct history_sweep s = { .id = id, .label = "bisect", .host = host, .state = "finished",
				   .started = 1, .started_us = 1000000, .folder = id,
				   .run_options_fp = FP };
	struct error err;
	bool rebuilt;

	case_result_set_verdict(&r, "PASS", NULL);
	cr_assert_eq(history_db_import(fx.db, &s, p, 1, &rs, &rebuilt, &err), 0, "%s", err.msg);
}

/* The sweep whose result a bisection running on `on` reuses; NULL: none. */
static char *reused(const char *gfx, long device_id, const char *host)
{
	const struct history_reuse_on on = { gfx, device_id, host };
	struct history_known k;
	struct error err;
	char *sweep;

	cr_assert_eq(history_db_find_result(fx.db, DIGEST, IMAGE_ID, FP, &on, &k, &err), 0, "%s",
		     err.msg);
	sweep = k.found ? xstrdup(k.sweep) : NULL;
	history_known_release(&k);
	return sweep;
}

static void expect_reused(const char *gfx, long device_id, const char *host, const char *want)
{
	cleanup_free char *got = reused(gfx, device_id, host);

	if (!want)
		cr_assert_null(got, "%s/%lx on %s reuses %s", gfx, device_id, host, got);
	else
		cr_assert(got && !strcmp(got, want), "%s/%lx on %s reuses %s, not %s", gfx,
			  device_id, host, got ? got : "nothing", want);
}

Test(history_reuse, a_result_on_gfx_a_is_not_reused_on_gfx_b)
{
	record("bisect-a", "gpu-a", "gfx942", MI300X);
	expect_reused("gfx90a", MI210, "gpu-b", NULL);
	/* Not on this host either: its GPUs are another product. */
	expect_reused("gfx90a", MI210, "gpu-a", NULL);
	/* The same gfx target, another device (product). */
	expect_reused("gfx942", MI210, "gpu-a", NULL);
}

Test(history_reuse, a_result_on_gfx_a_is_reused_on_gfx_a_on_any_host)
{
	record("bisect-a", "gpu-a", "gfx942", MI300X);
	expect_reused("gfx942", MI300X, "gpu-a", "bisect-a");
	expect_reused("gfx942", MI300X, "gpu-b", "bisect-a");
}

Test(history_reuse, a_product_without_device_id_matches_the_same)
{
	record("bisect-a", "gpu-a", "gfx942", -1);
	expect_reused("gfx942", -1, "gpu-b", "bisect-a");
	expect_reused("gfx942", MI300X, "gpu-b", NULL);
}

/* A product unknown on either side (a result from before products were
 * recorded, GPUs of several products or none known): the host decides. */
Test(history_reuse, an_unknown_product_falls_back_to_the_host)
{
	record("bisect-a", "gpu-a", NULL, -1);
	expect_reused("gfx942", MI300X, "gpu-a", "bisect-a");
	expect_reused("gfx942", MI300X, "gpu-b", NULL);
	expect_reused(NULL, -1, "gpu-a", "bisect-a");
	expect_reused(NULL, -1, "gpu-b", NULL);
}

Test(history_reuse, unknown_gpus_reuse_this_hosts_result_only)
{
	record("bisect-a", "gpu-a", "gfx942", MI300X);
	expect_reused(NULL, -1, "gpu-a", "bisect-a");
	expect_reused(NULL, -1, "gpu-b", NULL);
}
