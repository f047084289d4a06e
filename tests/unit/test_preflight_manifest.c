/* manifest.json parsing and loading: types checked, limits kept, no crash. */
#include <criterion/criterion.h>

#include "tests/support/scratch.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "common/fsutil.h"
#include "preflight/manifest.h"
#include "tests/support/preflight_fixtures.h"

static int parse_fixture(struct manifest *m, const char *name, struct error *err)
{
	cleanup_free char *path = pft_fixture(name);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct error e = { 0 };

	cr_assert(fs_read_small_file(path, 1 << 20, &text, &e) == 0, "%s", e.msg);
	return manifest_parse(m, text.buf, text.len, err);
}

Test(preflight_manifest, parses_a_full_manifest)
{
	struct manifest m;
	struct error err = { 0 };

	manifest_init(&m);
	cr_assert_eq(parse_fixture(&m, "manifests/mi300x-2gpu.json", &err), 0, "%s", err.msg);
	cr_assert_eq(m.pid, 4242);
	cr_assert_eq(m.parent_pid, 4100);
	cr_assert_eq(m.complete, 1);
	cr_assert_eq(m.event_count, 1832);
	cr_assert_eq(m.blob_count, 97);
	cr_assert_eq(m.unreplayable_apis.n, 1);
	cr_assert_str_eq(m.unreplayable_apis.v[0], "hipIpcOpenMemHandle");
	cr_assert(m.has_metadata);
	cr_assert_eq(m.schema_version, 1);
	cr_assert_str_eq(m.hip_runtime_version, "7.13.0");
	cr_assert_str_eq(m.comgr_version, "2.8");
	cr_assert_eq(m.device_count, 2);
	cr_assert_eq(m.captured_device_count, 2);
	cr_assert_eq(m.n_devices, 2);
	cr_assert_eq(m.devices[1].ordinal, 1);
	cr_assert_str_eq(m.devices[0].name, "Instinct MI300X");
	cr_assert_str_eq(m.devices[0].gcn_arch_name, "gfx942:sramecc+:xnack-");
	cr_assert_str_eq(m.devices[0].arch, "gfx942");
	manifest_release(&m);
}

Test(preflight_manifest, normalises_arch_to_lower_case_before_colon)
{
	struct manifest m;
	struct error err = { 0 };

	manifest_init(&m);
	cr_assert_eq(parse_fixture(&m, "manifests/one-gpu-gfx90a.json", &err), 0, "%s", err.msg);
	cr_assert_str_eq(m.devices[0].gcn_arch_name, "GFX90A:sramecc-:xnack+");
	cr_assert_str_eq(m.devices[0].arch, "gfx90a");
	manifest_release(&m);
}

Test(preflight_manifest, legacy_manifest_has_no_metadata)
{
	struct manifest m;
	struct error err = { 0 };

	manifest_init(&m);
	cr_assert_eq(parse_fixture(&m, "manifests/legacy.json", &err), 0, "%s", err.msg);
	cr_assert_not(m.has_metadata);
	cr_assert_eq(m.complete, 0);
	cr_assert_eq(m.device_count, -1);
	cr_assert_null(m.hip_runtime_version);
	cr_assert_eq(m.n_devices, 0);
	manifest_release(&m);
}

Test(preflight_manifest, unknown_keys_are_ignored)
{
	struct manifest m;
	struct error err = { 0 };

	manifest_init(&m);
	cr_assert_eq(parse_fixture(&m, "manifests/unknown-keys.json", &err), 0, "%s", err.msg);
	cr_assert_eq(m.schema_version, 3);
	cr_assert_str_eq(m.hip_runtime_version, "7.15.26291-2ed46569ce");
	cr_assert_str_eq(m.devices[0].arch, "gfx1151");
	manifest_release(&m);
}

Test(preflight_manifest, wrong_type_names_the_key)
{
	struct manifest m;
	struct error err = { 0 };

	manifest_init(&m);
	cr_assert_eq(parse_fixture(&m, "manifests/wrong-type-device-count.json", &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert_str_eq(err.msg, "manifest.json: \"device_count\" must be a number");
	/* A failed parse leaves nothing half-filled behind. */
	cr_assert_not(m.has_metadata);
	cr_assert_null(m.hip_runtime_version);

	cr_assert_eq(parse_fixture(&m, "manifests/wrong-type-arch.json", &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert_str_eq(err.msg,
			 "manifest.json: \"gcn_arch_name\" must be a string (in metadata.devices[1].properties)");
	cr_assert_eq(m.n_devices, 0);

	cr_assert_eq(parse_fixture(&m, "manifests/wrong-type-complete.json", &err), -1);
	cr_assert_str_eq(err.msg, "manifest.json: \"complete\" must be true or false");
	manifest_release(&m);
}

Test(preflight_manifest, wrong_types_in_every_known_key)
{
	static const struct {
		const char *json;
		const char *msg;
	} cases[] = {
		{ "{\"pid\": \"12\"}", "manifest.json: \"pid\" must be a number" },
		{ "{\"event_count\": -4}", "manifest.json: \"event_count\" must be a non-negative integer" },
		{ "{\"blob_count\": 1.5}", "manifest.json: \"blob_count\" must be a non-negative integer" },
		{ "{\"unreplayable_apis\": \"hipFoo\"}", "manifest.json: \"unreplayable_apis\" must be an array" },
		{ "{\"unreplayable_apis\": [1]}", "manifest.json: \"unreplayable_apis\" must be an array of strings" },
		{ "{\"metadata\": []}", "manifest.json: \"metadata\" must be an object" },
		{ "{\"metadata\": {\"runtime\": \"7.1\"}}", "manifest.json: \"runtime\" must be an object" },
		{ "{\"metadata\": {\"runtime\": {\"hip_runtime_version\": 7.1}}}",
		  "manifest.json: \"hip_runtime_version\" must be a string" },
		{ "{\"metadata\": {\"runtime\": {\"comgr_version\": [2, 8]}}}",
		  "manifest.json: \"comgr_version\" must be a string" },
		{ "{\"metadata\": {\"device_count\": 1e300}}",
		  "manifest.json: \"device_count\" must be a non-negative integer" },
		{ "{\"metadata\": {\"captured_device_count\": true}}",
		  "manifest.json: \"captured_device_count\" must be a number" },
		{ "{\"metadata\": {\"schema_version\": {}}}", "manifest.json: \"schema_version\" must be a number" },
		{ "{\"metadata\": {\"devices\": {}}}", "manifest.json: \"devices\" must be an array" },
		{ "{\"metadata\": {\"devices\": [3]}}",
		  "manifest.json: \"devices\" must be an array of objects (metadata.devices[0] is not)" },
		{ "{\"metadata\": {\"devices\": [{\"ordinal\": \"0\"}]}}",
		  "manifest.json: \"ordinal\" must be a number (in metadata.devices[0])" },
		{ "{\"metadata\": {\"devices\": [{\"properties\": 5}]}}",
		  "manifest.json: \"properties\" must be an object (in metadata.devices[0])" },
		{ "{\"metadata\": {\"devices\": [{\"properties\": {\"name\": false}}]}}",
		  "manifest.json: \"name\" must be a string (in metadata.devices[0].properties)" },
		{ "[1, 2]", "manifest.json: top level must be an object" },
		{ "{\"pid\": 1} {\"pid\": 2}", "manifest.json: not valid JSON (trailing data at byte 11)" },
		{ "{\"pid\": 1", "manifest.json: not valid JSON (at byte 8)" },
		{ "\"just a string\"", "manifest.json: top level must be an object" },
	};
	struct manifest m;

	manifest_init(&m);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct error err = { 0 };

		cr_assert_eq(manifest_parse(&m, cases[i].json, strlen(cases[i].json), &err), -1,
			     "%s parsed", cases[i].json);
		cr_assert_eq(err.kind, ERR_DATA, "%s", cases[i].json);
		cr_assert_str_eq(err.msg, cases[i].msg, "%s", cases[i].json);
	}
	manifest_release(&m);
}

Test(preflight_manifest, null_values_mean_absent)
{
	const char *json = "{\"pid\": null, \"metadata\": {\"device_count\": null, "
			   "\"runtime\": {\"hip_runtime_version\": null}}}";
	struct manifest m;
	struct error err = { 0 };

	manifest_init(&m);
	cr_assert_eq(manifest_parse(&m, json, strlen(json), &err), 0, "%s", err.msg);
	cr_assert_eq(m.pid, -1);
	cr_assert(m.has_metadata);
	cr_assert_eq(m.device_count, -1);
	cr_assert_null(m.hip_runtime_version);
	manifest_release(&m);
}

Test(preflight_manifest, devices_are_capped)
{
	struct strbuf sb = STRBUF_INIT;
	struct manifest m;
	struct error err = { 0 };

	strbuf_addstr(&sb, "{\"metadata\": {\"device_count\": 200, \"devices\": [");
	for (int i = 0; i < 200; i++)
		strbuf_addf(&sb, "%s{\"ordinal\": %d, \"properties\": {\"gcn_arch_name\": \"gfx942\"}}",
			    i ? "," : "", i);
	strbuf_addstr(&sb, "]}}");
	manifest_init(&m);
	cr_assert_eq(manifest_parse(&m, sb.buf, sb.len, &err), 0, "%s", err.msg);
	cr_assert_eq(m.n_devices, MANIFEST_MAX_DEVICES);
	cr_assert_eq(m.device_count, 200);
	cr_assert_eq(m.devices[MANIFEST_MAX_DEVICES - 1].ordinal, MANIFEST_MAX_DEVICES - 1);
	manifest_release(&m);
	strbuf_release(&sb);
}

Test(preflight_manifest, ten_megabytes_of_junk_is_a_clear_error)
{
	size_t len = 10u << 20;
	char *junk = xmalloc(len);
	struct manifest m;
	struct error err = { 0 };

	static const char alphabet[] = { '[', '{', '"', 'x', '\\', 1, (char)0xff, ':', ',' };

	for (size_t i = 0; i < len; i++)
		junk[i] = alphabet[i % sizeof(alphabet)];
	manifest_init(&m);
	cr_assert_eq(manifest_parse(&m, junk, len, &err), -1);
	cr_assert_eq(err.kind, ERR_LIMIT);
	cr_assert_str_eq(err.msg, "manifest.json: 10485760 bytes is over the 4194304-byte limit");
	/* Junk under the limit: a parse error, still no crash. */
	cr_assert_eq(manifest_parse(&m, junk, 1u << 20, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, "manifest.json: not valid JSON (at byte "), "%s", err.msg);
	/* Deep nesting is refused by the parser, not by the stack. */
	memset(junk, '[', 1u << 20);
	cr_assert_eq(manifest_parse(&m, junk, 1u << 20, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	manifest_release(&m);
	free(junk);
}

Test(preflight_manifest, load_reads_and_names_the_path)
{
	char *dir = scratch_dir("preflight-test");
	char *file = xasprintf("%s/manifest.json", dir);
	struct manifest m;
	struct error err = { 0 };
	char *want;

	manifest_init(&m);
	cr_assert_eq(manifest_load(&m, dir, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert(strstr(err.msg, file), "%s", err.msg);

	pft_writef(file, "{\"pid\": 5, \"metadata\": {\"device_count\": \"x\"}}");
	cr_assert_eq(manifest_load(&m, dir, &err), -1);
	want = xasprintf("%s/manifest.json: \"device_count\" must be a number", dir);
	cr_assert_str_eq(err.msg, want);
	free(want);

	pft_writef(file, "{\"pid\": 5, \"metadata\": {\"device_count\": 1}}");
	cr_assert_eq(manifest_load(&m, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(m.pid, 5);
	pft_writef(file, "{\"pid\": 6}\n\n  \t\n");
	cr_assert_eq(manifest_load(&m, dir, &err), 0, "trailing whitespace is fine: %s", err.msg);
	cr_assert_eq(m.pid, 6);
	pft_writef(file, "{\"pid\": 5, \"metadata\": {\"device_count\": 1}}");
	cr_assert_eq(manifest_load(&m, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(m.device_count, 1);

	manifest_release(&m);
	scratch_remove(dir);
	free(file);
	free(dir);
}

Test(preflight_manifest, load_refuses_non_regular_and_oversized_files)
{
	char *dir = scratch_dir("preflight-test");
	char *file = xasprintf("%s/manifest.json", dir);
	struct manifest m;
	struct error err = { 0 };
	int fd;

	manifest_init(&m);
	/* A FIFO must neither block nor be read. */
	cr_assert_eq(mkfifo(file, 0600), 0);
	cr_assert_eq(manifest_load(&m, dir, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, "is not a regular file"), "%s", err.msg);
	unlink(file);

	cr_assert_eq(mkdir(file, 0700), 0);
	cr_assert_eq(manifest_load(&m, dir, &err), -1);
	cr_assert(strstr(err.msg, "is not a regular file"), "%s", err.msg);
	rmdir(file);

	/* Sparse: a 5 MiB file that costs nothing to make. */
	fd = open(file, O_WRONLY | O_CREAT, 0600);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, 5 << 20), 0);
	close(fd);
	cr_assert_eq(manifest_load(&m, dir, &err), -1);
	cr_assert_eq(err.kind, ERR_LIMIT);
	cr_assert(strstr(err.msg, "4194304-byte limit"), "%s", err.msg);

	manifest_release(&m);
	scratch_remove(dir);
	free(file);
	free(dir);
}
