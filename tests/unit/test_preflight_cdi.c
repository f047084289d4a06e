/* The CDI spec parser and the GPU matcher (preflight/cdi.c): a spec as
 * amd-ctk writes it, names that are not ordinals, specs that add more. */
#include <criterion/criterion.h>

#include <string.h>

#include "common/cleanup.h"
#include "preflight/cdi.h"

/* Devices "0".."3" on renderD131..128 (reversed), each with its card node,
 * "all", and /dev/kfd at spec level, with major/minor as amd-ctk writes. */
static const char amd_spec[] =
	"{\"cdiVersion\":\"0.6.0\",\"kind\":\"amd.com/gpu\",\"devices\":["
	"{\"name\":\"0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/dri/card3\",\"major\":226,\"minor\":3},{\"path\":\"/dev/dri/renderD131\",\"major\":226,\"minor\":131}]}},"
	"{\"name\":\"1\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/dri/card2\",\"major\":226,\"minor\":2},{\"path\":\"/dev/dri/renderD130\",\"major\":226,\"minor\":130}]}},"
	"{\"name\":\"2\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/dri/renderD129\",\"major\":226,\"minor\":129}]}},"
	"{\"name\":\"3\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/dri/renderD128\",\"major\":226,\"minor\":128}]}},"
	"{\"name\":\"all\",\"containerEdits\":{\"deviceNodes\":["
	"{\"path\":\"/dev/dri/renderD128\",\"major\":226,\"minor\":128},{\"path\":\"/dev/dri/renderD129\",\"major\":226,\"minor\":129},"
	"{\"path\":\"/dev/dri/renderD130\",\"major\":226,\"minor\":130},{\"path\":\"/dev/dri/renderD131\",\"major\":226,\"minor\":131}]}}],"
	"\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/kfd\",\"major\":235,\"minor\":0}]}}";

static void parse(const char *text, struct cdi_spec *s)
{
	struct error err;

	cr_assert_eq(cdi_spec_parse(text, strlen(text), "/etc/cdi/amd.json", s, &err), 0, "%s",
		     err.msg);
}

Test(preflight_cdi, parses_devices_nodes_and_spec_level_edits)
{
	struct cdi_spec s;

	parse(amd_spec, &s);
	cr_assert_str_eq(s.kind, "amd.com/gpu");
	cr_assert_eq(s.n_devices, 5);
	cr_assert_str_eq(s.devices[0].name, "0");
	cr_assert_eq(s.devices[0].n_nodes, 2);
	cr_assert_eq(cdi_node_render_minor(&s.devices[0].nodes[0]), -1, "a card node is no render node");
	cr_assert_eq(cdi_node_render_minor(&s.devices[0].nodes[1]), 131);
	cr_assert_eq(s.n_nodes, 1);
	cr_assert_str_eq(s.nodes[0].path, "/dev/kfd");
	cr_assert_not(s.other_edits);
	cr_assert_not(s.devices[0].other_edits);
	cdi_spec_release(&s);
}

Test(preflight_cdi, gpus_are_matched_by_render_minor_not_by_name)
{
	struct cdi_spec s;
	struct cdi_match m;
	struct error err;
	const int ordinals[] = { 0, 1 }, minors[] = { 128, 129 };

	parse(amd_spec, &s);
	cr_assert_eq(cdi_match_gpus(&s, ordinals, minors, 2, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(m.names.n, 2);
	cr_assert_str_eq(m.names.v[0], "amd.com/gpu=3");
	cr_assert_str_eq(m.names.v[1], "amd.com/gpu=2");
	cr_assert_str_eq(m.extra, "", "only device nodes and /dev/kfd: %s", m.extra);
	cdi_match_release(&m);
	cdi_spec_release(&s);
}

Test(preflight_cdi, a_gpu_without_a_device_of_its_own_names_gpu_and_spec)
{
	/* "all" covers renderD130, but with three more: never chosen */
	static const char spec[] =
		"{\"cdiVersion\":\"0.6.0\",\"kind\":\"amd.com/gpu\",\"devices\":["
		"{\"name\":\"0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/dri/renderD128\",\"major\":226,\"minor\":128}]}},"
		"{\"name\":\"pair\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/dri/renderD130\",\"major\":226,\"minor\":130},{\"path\":\"/dev/dri/renderD131\",\"major\":226,\"minor\":131}]}}]}";
	struct cdi_spec s;
	struct cdi_match m;
	struct error err;
	const int ordinals[] = { 2 }, minors[] = { 130 };

	parse(spec, &s);
	cr_assert_eq(cdi_match_gpus(&s, ordinals, minors, 1, &m, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert_str_eq(err.msg, "GPU 2 (renderD130) is not a device of its own in the CDI spec /etc/cdi/amd.json: regenerate it (amd-ctk cdi generate) or use --devices nodes");
	cdi_spec_release(&s);
}

Test(preflight_cdi, a_spec_that_adds_more_than_nodes_says_what)
{
	static const char hooks[] =
		"{\"cdiVersion\":\"0.6.0\",\"kind\":\"amd.com/gpu\",\"devices\":["
		"{\"name\":\"0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/dri/renderD128\",\"major\":226,\"minor\":128}]}}],"
		"\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/kfd\"}],\"hooks\":[{\"hookName\":\"createContainer\",\"path\":\"/usr/bin/amd-ctk\"}]}}";
	static const char other_node[] =
		"{\"cdiVersion\":\"0.6.0\",\"kind\":\"amd.com/gpu\",\"devices\":["
		"{\"name\":\"0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/dri/renderD128\",\"major\":226,\"minor\":128}]}}],"
		"\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/kfd\"},{\"path\":\"/dev/dri/renderD129\"}]}}";
	static const char mounts[] =
		"{\"cdiVersion\":\"0.6.0\",\"kind\":\"amd.com/gpu\",\"devices\":["
		"{\"name\":\"0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/dri/renderD128\",\"major\":226,\"minor\":128}],\"mounts\":[{\"hostPath\":\"/opt/rocm\",\"containerPath\":\"/opt/rocm\"}]}}]}";
	const int ordinals[] = { 0 }, minors[] = { 128 };
	const char *const specs[] = { hooks, other_node, mounts };
	const char *const want[] = {
		"/etc/cdi/amd.json has spec-level edits other than device nodes",
		"/etc/cdi/amd.json adds /dev/dri/renderD129 to every device",
		"/etc/cdi/amd.json: device 0 adds more than device nodes (env, mounts or hooks)",
	};

	for (size_t i = 0; i < 3; i++) {
		struct cdi_spec s;
		struct cdi_match m;
		struct error err;

		parse(specs[i], &s);
		cr_assert_eq(cdi_match_gpus(&s, ordinals, minors, 1, &m, &err), 0, "%s", err.msg);
		cr_assert_str_eq(m.extra, want[i]);
		cdi_match_release(&m);
		cdi_spec_release(&s);
	}
}

Test(preflight_cdi, text_that_is_no_cdi_spec_is_refused)
{
	const char *const bad[] = { "[]", "{\"kind\":\"amd.com/gpu\"}", "not json",
				    "{\"cdiVersion\":\"0.6.0\",\"kind\":\"amd.com/gpu\",\"devices\":[{\"containerEdits\":{}}]}",
				    "{\"cdiVersion\":\"0.6.0\",\"kind\":\"amd.com/gpu\",\"devices\":[{\"name\":\"0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"dri/x\"}]}}]}" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cdi_spec s;
		struct error err;

		cr_assert_eq(cdi_spec_parse(bad[i], strlen(bad[i]), "x.json", &s, &err), -1, "%s", bad[i]);
		cr_assert_eq(err.kind, ERR_DATA);
		cr_assert(strstr(err.msg, "x.json"), "%s", err.msg);
		cdi_spec_release(&s);
	}
}
