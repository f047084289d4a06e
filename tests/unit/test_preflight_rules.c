/* preflight_evaluate: every rule of docs/preflight.md, with its exact message. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "preflight/preflight.h"

static struct gpu_node nodes[4];
static struct gpu_topology host;
static struct manifest man;
static struct stack_info stack;
static struct preflight_report rep;

static void set_node(int i, int node, unsigned long gfx)
{
	nodes[i].node = node;
	nodes[i].gpu_id = 1000 + (unsigned long)node;
	nodes[i].gfx_target_version = gfx;
	nodes[i].drm_render_minor = 128 + 8 * i;
	gfx_arch_name(gfx, nodes[i].arch, sizeof(nodes[i].arch));
}

static void add_device(const char *gcn)
{
	struct manifest_device *d;

	man.devices = xrealloc(man.devices, (man.n_devices + 1) * sizeof(*man.devices));
	d = &man.devices[man.n_devices];
	memset(d, 0, sizeof(*d));
	d->ordinal = (int)man.n_devices;
	if (gcn) {
		d->gcn_arch_name = xstrdup(gcn);
		d->arch = xstrndup(gcn, strcspn(gcn, ":"));
	}
	man.n_devices++;
}

/* Default: a 2-GPU gfx942 capture (HIP 7.13.0, comgr 2.8), a host with
 * two gfx942, an image with the same stack. Everything passes. */
static void setup(void)
{
	set_node(0, 1, 90402);
	set_node(1, 2, 90402);
	host.gpus = nodes;
	host.n_gpus = 2;
	manifest_init(&man);
	man.has_metadata = true;
	man.schema_version = 1;
	man.hip_runtime_version = xstrdup("7.13.0");
	man.comgr_version = xstrdup("2.8");
	man.device_count = 2;
	add_device("gfx942:sramecc+:xnack-");
	add_device("gfx942:sramecc+:xnack-");
	stack_info_init(&stack);
	stack.hip_version = xstrdup("7.13.0");
	stack.hip_evidence = xstrdup("/opt/rocm/lib/libamdhip64.so.7.13.0-abc");
	stack.comgr_version = xstrdup("2.8.60200");
	stack.comgr_evidence = xstrdup("/opt/rocm/lib/libamd_comgr.so.2.8.60200");
	stack.source = xstrdup("image hrr-stack-a:dev (sha256:abc)");
	preflight_report_init(&rep);
}

static void teardown(void)
{
	manifest_release(&man);
	stack_info_release(&stack);
	preflight_report_release(&rep);
}

TestSuite(preflight_rules, .init = setup, .fini = teardown);

/* The choice a caller makes for the default capture: the lowest two
 * (preflight/gpu_choice.c; the choosing is tested in test_gpu_choice.c). */
static struct preflight_input input(void)
{
	static const int lowest[] = { 0, 1 };
	struct preflight_input in = {
		.manifest = &man, .host = &host, .stack = &stack, .chosen = lowest, .n_chosen = 2,
	};

	return in;
}

static bool has(const struct strvec *v, const char *msg)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], msg))
			return true;
	return false;
}

static bool has_sub(const struct strvec *v, const char *needle)
{
	for (size_t i = 0; i < v->n; i++)
		if (strstr(v->v[i], needle))
			return true;
	return false;
}

Test(preflight_rules, matching_sides_are_ok)
{
	struct preflight_input in = input();

	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_OK, "%s", preflight_verdict_name(rep.verdict));
	cr_assert_eq(rep.blocks.n + rep.confirms.n + rep.warnings.n, 0);
	cr_assert_str_eq(rep.capture_side.buf, "HIP 7.13.0, comgr 2.8, 2 GPU(s) (gfx942, gfx942)");
	cr_assert_str_eq(rep.replay_side.buf, "HIP 7.13.0, comgr 2.8.60200; GPU(s) 0,1 of 2 (gfx942, gfx942)");
	cr_assert_str_eq(rep.replay_source.buf, "image hrr-stack-a:dev (sha256:abc)");
	cr_assert(has_sub(&rep.notes, "libamdhip64.so.7.13.0-abc"));
}

Test(preflight_rules, more_capture_gpus_than_host_gpus_blocks)
{
	struct preflight_input in = input();

	host.n_gpus = in.n_chosen = 1;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_BLOCK);
	cr_assert(has(&rep.blocks, "capture saw 2 GPU(s) but replay environment only exposes 1"));
}

Test(preflight_rules, fewer_chosen_gpus_than_capture_blocks)
{
	static const int chosen[] = { 1 };
	struct preflight_input in = input();

	in.chosen = chosen;
	in.n_chosen = 1;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_BLOCK);
	cr_assert_eq(rep.blocks.n, 1);
	cr_assert_str_eq(rep.blocks.v[0], "capture saw 2 GPU(s) but replay environment only exposes 1");
}

Test(preflight_rules, arch_mismatch_warns_and_strict_blocks)
{
	static const int chosen[] = { 0, 1 };
	struct preflight_input in = input();
	const char *msg = "arch mismatch on device 1: capture gfx942, replay GPU 1 is gfx90a";
	char *strict = xasprintf("%s; blocked by --strict-arch / HRR_STRICT_ARCH=1", msg);

	set_node(1, 2, 90010);
	in.chosen = chosen;
	in.n_chosen = 2;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_WARN);
	cr_assert_eq(rep.warnings.n, 1);
	cr_assert_str_eq(rep.warnings.v[0], msg);
	cr_assert_eq(rep.blocks.n, 0);

	in.strict_arch = true;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_BLOCK);
	cr_assert_eq(rep.warnings.n, 0);
	cr_assert(has(&rep.blocks, strict));
	free(strict);
}

Test(preflight_rules, arch_compares_device_i_with_the_i_th_chosen_gpu)
{
	static const int chosen[] = { 1 };
	struct preflight_input in = input();

	/* Host: ordinal 0 gfx90a, ordinal 1 gfx942. Capture: one gfx942. */
	set_node(0, 1, 90010);
	man.device_count = 1;
	man.n_devices = 1;
	free(man.devices[1].gcn_arch_name);
	free(man.devices[1].arch);
	in.chosen = chosen;
	in.n_chosen = 1;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_OK, "%s", rep.warnings.n ? rep.warnings.v[0] : "");

	in.chosen = (const int[]){ 0 };
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_WARN);
	cr_assert(has(&rep.warnings, "arch mismatch on device 0: capture gfx942, replay GPU 0 is gfx90a"));
}

Test(preflight_rules, hip_mismatch_confirms_and_strict_blocks)
{
	struct preflight_input in = input();
	const char *msg = "HIP version mismatch: capture 7.13.0, replay 7.15.26291 "
			  "(/opt/rocm/lib/libamdhip64.so.7.15.26291-2ed46569ce)";
	char *strict = xasprintf("%s; blocked by --strict-version / HRR_STRICT_VERSION=1", msg);

	free(stack.hip_version);
	free(stack.hip_evidence);
	stack.hip_version = xstrdup("7.15.26291");
	stack.hip_evidence = xstrdup("/opt/rocm/lib/libamdhip64.so.7.15.26291-2ed46569ce");
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_CONFIRM);
	cr_assert_eq(rep.confirms.n, 1);
	cr_assert_str_eq(rep.confirms.v[0], msg);

	in.strict_version = true;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_BLOCK);
	cr_assert_eq(rep.confirms.n, 0);
	cr_assert(has(&rep.blocks, strict));
	free(strict);
}

Test(preflight_rules, hip_compares_all_three_numbers_and_drops_the_hash)
{
	struct preflight_input in = input();

	free(man.hip_runtime_version);
	man.hip_runtime_version = xstrdup("7.15.26291-2ed46569ce");
	free(stack.hip_version);
	stack.hip_version = xstrdup("7.15.26291");
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_OK);

	free(stack.hip_version);
	stack.hip_version = xstrdup("7.15.26292");
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_CONFIRM, "a patch difference matters");
}

Test(preflight_rules, comgr_compares_major_minor)
{
	struct preflight_input in = input();
	const char *msg = "comgr version mismatch: capture 2.8, replay 3.0 "
			  "(/opt/rocm/lib/libamd_comgr.so.3.0.70000)";

	free(stack.comgr_version);
	stack.comgr_version = xstrdup("2.8.99999");
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_OK, "patch ignored for comgr");

	free(stack.comgr_version);
	free(stack.comgr_evidence);
	stack.comgr_version = xstrdup("3.0.70000");
	stack.comgr_evidence = xstrdup("/opt/rocm/lib/libamd_comgr.so.3.0.70000");
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_CONFIRM);
	cr_assert_str_eq(rep.confirms.v[0], msg);

	in.strict_version = true;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_BLOCK);
	cr_assert(has_sub(&rep.blocks, msg));
}

Test(preflight_rules, verdict_is_the_worst)
{
	struct preflight_input in = input();

	set_node(1, 2, 90010);        /* WARN */
	free(stack.hip_version);
	stack.hip_version = xstrdup("7.14.0"); /* CONFIRM */
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_CONFIRM);
	cr_assert_eq(rep.warnings.n, 1);
	host.n_gpus = in.n_chosen = 1; /* BLOCK */
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_BLOCK);
	cr_assert_eq(rep.confirms.n, 1);
}

Test(preflight_rules, legacy_capture_is_skipped_with_the_reason)
{
	struct preflight_input in = input();

	man.has_metadata = false;
	free(stack.hip_version);
	stack.hip_version = xstrdup("1.0.0"); /* would mismatch; not compared */
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_SKIPPED);
	cr_assert_eq(rep.blocks.n + rep.confirms.n + rep.warnings.n, 0);
	cr_assert(has(&rep.notes, "preflight skipped: legacy capture (manifest.json has no metadata to compare)"));
	cr_assert_str_eq(rep.capture_side.buf, "legacy capture (manifest.json has no metadata)");

	in.manifest = NULL;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_SKIPPED);
	cr_assert(has(&rep.notes, "preflight skipped: the capture has no manifest.json"));

	in.manifest_error = "/a/pid-1/manifest.json: \"device_count\" must be a number";
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_SKIPPED);
	cr_assert_eq(rep.notes.n, 1);
	cr_assert_str_eq(rep.notes.v[0],
			 "preflight skipped: /a/pid-1/manifest.json: \"device_count\" must be a number");
}

Test(preflight_rules, skip_flag_skips)
{
	struct preflight_input in = input();

	host.n_gpus = in.n_chosen = 1; /* would block on the count */
	in.skip = true;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_SKIPPED);
	cr_assert_eq(rep.blocks.n, 0);
	cr_assert(has(&rep.notes, "preflight skipped: --skip-preflight / HRR_SKIP_COMPAT=1"));
}

Test(preflight_rules, unknown_host_gpu_count_skips_gpu_checks_with_a_warning)
{
	struct preflight_input in = input();

	in.host = NULL;
	in.chosen = NULL; /* an unknown host gets no GPUs (gpu_choice_named) */
	in.n_chosen = 0;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_WARN);
	cr_assert_eq(rep.blocks.n, 0, "no guessing: the ordinal is not judged");
	cr_assert_eq(rep.warnings.n, 1);
	cr_assert_str_eq(rep.warnings.v[0],
			 "GPU count, ordinal and arch checks skipped: replay GPU count unknown (no KFD topology readable)");
	cr_assert_str_eq(rep.replay_side.buf, "HIP 7.13.0, comgr 2.8.60200; host GPUs unknown (no KFD topology)");
}

Test(preflight_rules, unknown_replay_stack_warns_saying_which_side_and_why)
{
	struct preflight_input in = input();

	free(stack.hip_version);
	stack.hip_version = NULL;
	stack.unknown_reason = xstrdup("no versioned libamdhip64.so in /opt/rocm/lib and no /opt/rocm/share/hip/version in the image");
	free(stack.comgr_version);
	stack.comgr_version = NULL;
	stack.comgr_unknown_reason = xstrdup("no libamd_comgr.so in /opt/rocm/lib");
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_WARN);
	cr_assert(has(&rep.warnings, "HIP version check skipped: replay side unknown (no versioned libamdhip64.so in /opt/rocm/lib and no /opt/rocm/share/hip/version in the image)"));
	cr_assert(has(&rep.warnings, "comgr version check skipped: replay side unknown (no libamd_comgr.so in /opt/rocm/lib)"));

	in.stack = NULL;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_WARN);
	cr_assert(has(&rep.warnings, "HIP version check skipped: replay side unknown (replay stack not probed)"));
	cr_assert_str_eq(rep.replay_source.buf, "not probed");
}

Test(preflight_rules, unknown_capture_side_warns)
{
	struct preflight_input in = input();

	free(man.hip_runtime_version);
	man.hip_runtime_version = NULL;
	free(man.comgr_version);
	man.comgr_version = xstrdup("2");
	free(man.devices[0].arch);
	man.devices[0].arch = NULL;
	man.device_count = -1;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_WARN);
	cr_assert(has(&rep.warnings, "HIP version check skipped: capture side unknown (metadata.runtime.hip_runtime_version not recorded)"));
	cr_assert(has(&rep.warnings, "comgr version check skipped: capture side unknown (comgr_version \"2\" lacks major.minor)"));
	cr_assert(has(&rep.warnings, "arch check skipped for device 0: capture side unknown (no gcn_arch_name recorded)"));
	cr_assert(has(&rep.warnings, "GPU count check skipped: capture side unknown (metadata has no device_count)"));
}

Test(preflight_rules, unknown_host_arch_warns)
{
	struct preflight_input in = input();

	set_node(0, 1, 0);
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.verdict, PREFLIGHT_WARN);
	cr_assert(has(&rep.warnings, "arch check skipped for device 0: replay side unknown (KFD node 1 has no gfx_target_version)"));
}

Test(preflight_rules, report_is_reset_between_evaluations)
{
	struct preflight_input in = input();

	host.n_gpus = in.n_chosen = 1;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.blocks.n, 1);
	host.n_gpus = in.n_chosen = 2;
	preflight_evaluate(&in, &rep);
	cr_assert_eq(rep.blocks.n, 0);
	cr_assert_eq(rep.verdict, PREFLIGHT_OK);
}
