/* Host GPUs from KFD topology fixture trees (tests/fixtures/sysfs). */
#include <criterion/criterion.h>

#include "tests/support/scratch.h"
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "preflight/topology.h"
#include "tests/support/preflight_fixtures.h"

Test(preflight_topology, arch_names_from_gfx_target_version)
{
	static const struct {
		unsigned long v;
		const char *name;
	} cases[] = {
		{ 90402, "gfx942" }, { 90010, "gfx90a" }, { 90500, "gfx950" },
		{ 110501, "gfx1151" }, { 120001, "gfx1201" }, { 90008, "gfx908" },
		{ 100300, "gfx1030" }, { 110000, "gfx1100" }, { 0, "unknown" },
	};
	char buf[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gfx_arch_name(cases[i].v, buf, sizeof(buf));
		cr_assert_str_eq(buf, cases[i].name, "%lu", cases[i].v);
	}
	/* Truncates, never overruns. */
	gfx_arch_name(110501, buf, 5);
	cr_assert_str_eq(buf, "gfx1");
}

Test(preflight_topology, two_gpus_behind_a_cpu_node)
{
	char *root = pft_fixture("sysfs/mi300x-2");
	struct gpu_topology t = { 0 };
	struct error err = { 0 };

	cr_assert_eq(gpu_topology_read(&t, root, &err), 0, "%s", err.msg);
	cr_assert_eq(t.n_gpus, 2);
	cr_assert_eq(t.gpus[0].node, 1);
	cr_assert_eq(t.gpus[0].gpu_id, 53124);
	cr_assert_eq(t.gpus[0].gfx_target_version, 90402);
	cr_assert_str_eq(t.gpus[0].arch, "gfx942");
	cr_assert_eq(t.gpus[0].drm_render_minor, 128);
	cr_assert_eq(t.gpus[1].node, 2);
	cr_assert_eq(t.gpus[1].drm_render_minor, 136);
	/* The stable identity: the properties' unique_id line. */
	cr_assert_eq(t.gpus[0].unique_id, 0x1d2c3b4a59000000ull + 53124);
	cr_assert_eq(t.gpus[1].unique_id, 0x1d2c3b4a59000000ull + 1087);
	/* The product: the properties' device_id line (MI300X: 0x74a1). */
	cr_assert_eq(t.gpus[0].device_id, 0x74a1ul);
	gpu_topology_release(&t);
	cr_assert_eq(t.n_gpus, 0);
	free(root);
}

Test(preflight_topology, nodes_are_ordered_numerically)
{
	char *root = pft_fixture("sysfs/mixed-12");
	struct gpu_topology t = { 0 };
	struct error err = { 0 };

	cr_assert_eq(gpu_topology_read(&t, root, &err), 0, "%s", err.msg);
	cr_assert_eq(t.n_gpus, 11);
	for (size_t i = 0; i < t.n_gpus; i++)
		cr_assert_eq(t.gpus[i].node, (int)i + 1, "ordinal %zu is node %d", i, t.gpus[i].node);
	cr_assert_str_eq(t.gpus[1].arch, "gfx90a");  /* node 2 */
	cr_assert_str_eq(t.gpus[2].arch, "gfx942");  /* node 3 */
	cr_assert_str_eq(t.gpus[9].arch, "gfx950");  /* node 10, after node 9 */
	cr_assert_str_eq(t.gpus[10].arch, "gfx1151"); /* node 11 */
	cr_assert_eq(t.gpus[9].drm_render_minor, 208);
	gpu_topology_release(&t);
	free(root);
}

Test(preflight_topology, gpu_without_properties_has_unknown_arch)
{
	char *root = pft_fixture("sysfs/gpu-no-props");
	struct gpu_topology t = { 0 };
	struct error err = { 0 };

	cr_assert_eq(gpu_topology_read(&t, root, &err), 0, "%s", err.msg);
	cr_assert_eq(t.n_gpus, 1);
	cr_assert_eq(t.gpus[0].gpu_id, 4242);
	cr_assert_eq(t.gpus[0].gfx_target_version, 0);
	cr_assert_str_eq(t.gpus[0].arch, "unknown");
	cr_assert_eq(t.gpus[0].drm_render_minor, -1);
	gpu_topology_release(&t);
	free(root);
}

static void expect_no_gpu(const char *root)
{
	struct gpu_topology t = { 0 };
	struct error err = { 0 };
	char *want = xasprintf("no AMD GPU found under %s", root);

	cr_assert_eq(gpu_topology_read(&t, root, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(t.n_gpus, 0);
	cr_assert_null(t.gpus);
	free(want);
}

Test(preflight_topology, no_kfd_cpu_only_or_missing_root_is_no_gpu)
{
	char *no_kfd = pft_fixture("sysfs/no-kfd");
	char *cpu_only = pft_fixture("sysfs/cpu-only");

	expect_no_gpu(no_kfd);
	expect_no_gpu(cpu_only);
	expect_no_gpu("/nonexistent/sysfs-root");
	free(no_kfd);
	free(cpu_only);
}

Test(preflight_topology, malformed_entries_are_handled)
{
	char *tmp = scratch_dir("preflight-test");
	char *nodes = xasprintf("%s/class/kfd/kfd/topology/nodes", tmp);
	char *f;
	struct gpu_topology t = { 0 };
	struct error err = { 0 };

	/* Non-numeric entries are not nodes; junk property lines are skipped. */
	f = xasprintf("%s/README/gpu_id", nodes);
	pft_writef(f, "1\n");
	free(f);
	f = xasprintf("%s/3/gpu_id", nodes);
	pft_writef(f, "99\n");
	free(f);
	f = xasprintf("%s/3/properties", nodes);
	pft_writef(f, "garbage\nnovalue \ngfx_target_version notanumber\ngfx_target_version 90402\n"
		      "drm_render_minor 130");
	free(f);
	cr_assert_eq(gpu_topology_read(&t, tmp, &err), 0, "%s", err.msg);
	cr_assert_eq(t.n_gpus, 1);
	cr_assert_eq(t.gpus[0].node, 3);
	cr_assert_str_eq(t.gpus[0].arch, "gfx942");
	cr_assert_eq(t.gpus[0].drm_render_minor, 130);
	gpu_topology_release(&t);

	/* A gpu_id that is not a number is a clear error, not a guess. */
	f = xasprintf("%s/4/gpu_id", nodes);
	pft_writef(f, "zz\n");
	cr_assert_eq(gpu_topology_read(&t, tmp, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, f) && strstr(err.msg, "not a number"), "%s", err.msg);
	free(f);

	scratch_remove(tmp);
	free(nodes);
	free(tmp);
}

/* The driver's version for the same-build rule of GPU-time comparisons
 * (docs/perf.md): one printable word, else unknown. */
Test(preflight_topology, the_driver_version_when_the_host_exposes_one)
{
	char *fixture = pft_fixture("sysfs/mi300x-2");
	char *tmp = scratch_dir("topology-driver");
	char *cmd = xasprintf("cp -r '%s/.' '%s/'", fixture, tmp);
	char *version = xasprintf("%s/module/amdgpu/version", tmp);
	struct gpu_topology t = { 0 };
	struct error err = { 0 };
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "6.8.5\n", "6.8.5" }, { "6.8.5", "6.8.5" }, { "6.8 5\n", "" },
		{ "\x1b[31m6\n", "" }, { "", "" },
	};

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_eq(gpu_topology_read(&t, tmp, &err), 0, "%s", err.msg);
	cr_assert_str_eq(t.driver, "", "an in-tree driver has no version file");
	gpu_topology_release(&t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pft_writef(version, "%s", cases[i].text);
		cr_assert_eq(gpu_topology_read(&t, tmp, &err), 0, "%s", err.msg);
		cr_assert_str_eq(t.driver, cases[i].want, "%s", cases[i].text);
		gpu_topology_release(&t);
	}
	scratch_remove(tmp);
	free(tmp);
	free(cmd);
	free(version);
	free(fixture);
}

/* The product bisect reuses results of (gfx target and device_id): one
 * when the GPUs share it, none when they mix products or one is unknown. */
Test(preflight_topology, the_one_product_of_a_pool)
{
	char *mixed = pft_fixture("sysfs/mixed-12"), *two = pft_fixture("sysfs/mi300x-2");
	char *noprops = pft_fixture("sysfs/gpu-no-props");
	struct gpu_topology t = { 0 };
	struct error err = { 0 };
	const int mi300x[] = { 0, 2, 3 }, with_mi210[] = { 0, 1 }, beyond[] = { 0, 99 };
	const struct gpu_node *g;

	cr_assert_eq(gpu_topology_read(&t, mixed, &err), 0, "%s", err.msg);
	g = gpu_topology_one_product(&t, mi300x, 3);
	cr_assert(g && !strcmp(g->arch, "gfx942") && g->device_id == 0x74a1);
	cr_assert_null(gpu_topology_one_product(&t, NULL, 0), "every GPU: several products");
	cr_assert_null(gpu_topology_one_product(&t, with_mi210, 2));
	cr_assert_null(gpu_topology_one_product(&t, beyond, 2));
	gpu_topology_release(&t);
	cr_assert_eq(gpu_topology_read(&t, two, &err), 0, "%s", err.msg);
	g = gpu_topology_one_product(&t, NULL, 0);
	cr_assert(g && !strcmp(g->arch, "gfx942"));
	gpu_topology_release(&t);
	cr_assert_eq(gpu_topology_read(&t, noprops, &err), 0, "%s", err.msg);
	cr_assert_null(gpu_topology_one_product(&t, NULL, 0), "an unknown arch is no product");
	gpu_topology_release(&t);
	free(mixed);
	free(two);
	free(noprops);
}
