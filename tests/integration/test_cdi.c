/* --devices cdi|auto against an engine that injects CDI devices: a CDI
 * spec written for the fake render nodes, whose device names are not the
 * GPU ordinals, so the match must go by render minor (docs/engines.md).
 * Needs HRR_CDI_TEST_DIR: a directory the engine reads CDI specs from
 * (its /etc/cdi; tests/engine-matrix.sh mounts one per engine), at the
 * same path here; without it the suite is skipped. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "docker/internal.h"
#include "tests/support/engine_test.h"
#include "tests/support/run_support.h"

static char sysfs4[4200];
static char spec_path[600];

static void cdi_init(void)
{
	tenv_init_four_gpus(sysfs4, sizeof(sysfs4));
	et_suite_init();
}

static void cdi_fini(void)
{
	if (spec_path[0])
		unlink(spec_path);
	et_suite_fini();
	tenv_fini();
}

TestSuite(cdi, .init = cdi_init, .fini = cdi_fini, .timeout = 120);

/* The spec dir, or skip; *on: the engine has CDI on. */
static const char *cdi_dir(bool *on)
{
	const char *dir = getenv("HRR_CDI_TEST_DIR");
	struct error err;

	if (!dir || !*dir)
		cr_skip_test("HRR_CDI_TEST_DIR unset: no CDI spec dir the engine reads");
	cr_assert_eq(engine_cdi_enabled(et_engine(), on, NULL, &err), 0, "%s", err.msg);
	return dir;
}

/* amd.com/gpu devices "0".."3" on renderD131..128 (reversed), "all", and
 * /dev/kfd at spec level; skip_minor's node left out (0: none); extra: a
 * mount added to every device. */
static void write_spec(const char *dir, int skip_minor, bool extra)
{
	cleanup_strbuf struct strbuf s = STRBUF_INIT;
	cleanup_strbuf struct strbuf all = STRBUF_INIT;
	const char *mount = extra ? ",\"mounts\":[{\"hostPath\":\"/tmp\",\"containerPath\":\"/host-tmp\"}]"
				  : "";

	strbuf_addstr(&s, "{\"cdiVersion\":\"0.6.0\",\"kind\":\"amd.com/gpu\",\"devices\":[");
	for (int i = 0; i < 4; i++) {
		int minor = 131 - i;
		char node[512];

		if (minor == skip_minor)
			continue;
		snprintf(node, sizeof(node), "{\"path\":\"/dev/dri/renderD%d\",\"hostPath\":\"%s/dri/renderD%d\"}",
			 minor, tenv.devroot, minor);
		strbuf_addf(&s, "{\"name\":\"%d\",\"containerEdits\":{\"deviceNodes\":[%s]%s}},", i,
			    node, mount);
		strbuf_addf(&all, "%s%s", all.len ? "," : "", node);
	}
	strbuf_addf(&s, "{\"name\":\"all\",\"containerEdits\":{\"deviceNodes\":[%s]}}],", all.buf);
	strbuf_addf(&s, "\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/kfd\",\"hostPath\":\"%s/kfd\"}]}}\n",
		    tenv.devroot);
	snprintf(spec_path, sizeof(spec_path), "%s/amd.json", dir);
	et_write(spec_path, s.buf, 0644);
}

static cJSON *replay(struct tool_run *r, const char *dir, const char *mode, int want)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *env_dirs = xasprintf("HRR_CDI_SPEC_DIRS=%s", dir);
	const char *const argv[] = { "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir",
				     tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
				     sysfs4, "--gpu", "1", "--devices", mode, "-v", NULL };
	const char *const env[] = { env_dirs, NULL };
	cJSON *run;

	tool_run(r, argv, env);
	cr_assert_eq(r->status, want, "--devices %s: exit %d, want %d\n%s", mode, r->status, want,
		     r->err.buf);
	if (want)
		return NULL;
	run = read_json(r->run_dir, "run.json");
	cr_assert_not_null(run);
	return run;
}

/* j.a.b (b NULL: j.a) */
static const cJSON *at(const cJSON *j, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, a);

	return b ? cJSON_GetObjectItemCaseSensitive(v, b) : v;
}

static int on_frame(enum engine_stream_id id, const char *data, size_t len, void *ud)
{
	(void)id;
	strbuf_add(ud, data, len);
	return 0;
}

static const char *devices_via(const cJSON *run)
{
	return cJSON_GetStringValue(at(at(run, "container", "devices"), "via", NULL));
}

/* The devices and groups of the replay's recorded HostConfig, in a spec:
 * created as a replay is (Podman takes CDI names only in its own create). */
static void spec_of_recorded(struct container_spec *s, const cJSON *body)
{
	const cJSON *hc = at(body, "HostConfig", NULL), *it, *r;

	container_spec_init(s);
	s->image = xstrdup(cJSON_GetStringValue(at(body, "Image", NULL)));
	cJSON_ArrayForEach(it, at(hc, "Devices", NULL))
		container_spec_add_device(s, cJSON_GetStringValue(at(it, "PathOnHost", NULL)),
					  cJSON_GetStringValue(at(it, "PathInContainer", NULL)),
					  cJSON_GetStringValue(at(it, "CgroupPermissions", NULL)));
	cJSON_ArrayForEach(r, at(hc, "DeviceRequests", NULL))
		cJSON_ArrayForEach(it, at(r, "DeviceIDs", NULL))
			strvec_push(&s->cdi_devices, cJSON_GetStringValue(it));
	cJSON_ArrayForEach(it, at(hc, "GroupAdd", NULL))
		strvec_push(&s->group_add, cJSON_GetStringValue(it));
	/* As the replay: no network (the engines of the matrix have none to
	 * give, and a bridge fails there). */
	if (cJSON_GetStringValue(at(hc, "NetworkMode", NULL)))
		s->network_mode = xstrdup(cJSON_GetStringValue(at(hc, "NetworkMode", NULL)));
	if (cJSON_GetStringValue(at(body, "User", NULL)))
		s->user = xstrdup(cJSON_GetStringValue(at(body, "User", NULL)));
}

/* The replay's recorded devices in a container that lists its /dev:
 * what the container ends up with. Logs the engine's inspect. */
static void assert_devices_inside(const cJSON *run, const char *want)
{
	struct engine *e = et_engine();
	struct container_spec s;
	cleanup_cjson cJSON *inspect = NULL;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	cleanup_free char *id = NULL, *hc = NULL;
	struct error err;
	long status = -1;

	cr_assert_not_null(at(run, "container", "spec"));
	spec_of_recorded(&s, at(run, "container", "spec"));
	strvec_pushv(&s.entrypoint, (const char *[]){ "/bin/sh", "-c", "echo /dev/kfd /dev/dri/*",
						      NULL });
	strvec_push(&s.labels, et_label());
	cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), 0, "%s", err.msg);
	container_spec_release(&s);
	cr_assert_eq(engine_container_inspect_json(e, id, &inspect, &err), 0, "%s", err.msg);
	{
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(inspect, "HostConfig");
		cleanup_cjson cJSON *shown = cJSON_CreateObject();

		cJSON_AddItemToObject(shown, "Devices", cJSON_Duplicate(at(h, "Devices", NULL), true));
		cJSON_AddItemToObject(shown, "DeviceRequests",
				      cJSON_Duplicate(at(h, "DeviceRequests", NULL), true));
		hc = cJSON_PrintUnformatted(shown);
	}
	cr_log_info("%s %s: inspect HostConfig %s", engine_name(e), engine_server_version(e), hc);
	cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_wait(e, id, "not-running", &status, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_logs(e, id, false, on_frame, &out, &err), 0, "%s", err.msg);
	(void)engine_container_remove(e, id, true, ERROR_DISCARD);
	strbuf_trim_trailing_newline(&out);
	cr_log_info("%s: inside: %s", engine_name(e), out.buf);
	cr_assert_eq(status, 0);
	cr_assert_str_eq(out.buf, want, "the container has other devices than the chosen GPU's");
}

Test(cdi, replay_gets_the_chosen_gpu_by_render_node_not_by_name)
{
	bool on;
	const char *dir = cdi_dir(&on);
	struct tool_run r;
	cleanup_cjson cJSON *run = NULL;
	const cJSON *cdi;

	if (!on)
		cr_skip_test("the engine has CDI off");
	write_spec(dir, 0, false);
	run = replay(&r, dir, "cdi", 0);
	cr_assert_str_eq(devices_via(run), "cdi");
	cdi = at(at(run, "container", "devices"), "cdi", NULL);
	cr_assert_eq(cJSON_GetArraySize(cdi), 1);
	/* GPU 1 is renderD129, which the spec calls "2" */
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(cdi, 0)), "amd.com/gpu=2");
	assert_devices_inside(run, "/dev/kfd /dev/dri/renderD129");
	{
		cleanup_cjson cJSON *finding = read_json(r.run_dir, "finding.json");

		cr_assert_str_eq(cJSON_GetStringValue(at(finding, "run", "devices")), "cdi",
				 "finding.json says how the GPUs came");
	}
	tool_run_release(&r);
}

Test(cdi, auto_takes_cdi_when_the_engine_has_it_else_the_nodes)
{
	bool on;
	const char *dir = cdi_dir(&on);
	struct tool_run r;
	cleanup_cjson cJSON *run = NULL;

	write_spec(dir, 0, false);
	run = replay(&r, dir, "auto", 0);
	cr_assert_str_eq(devices_via(run), on ? "cdi" : "nodes", "%s", r.err.buf);
	if (!on)
		cr_assert(strstr(r.err.buf, "device nodes, not CDI: the engine has CDI off"), "%s",
			  r.err.buf);
	assert_devices_inside(run, "/dev/kfd /dev/dri/renderD129");
	tool_run_release(&r);
}

Test(cdi, auto_falls_back_to_the_nodes_when_the_spec_adds_more)
{
	bool on;
	const char *dir = cdi_dir(&on);
	struct tool_run r;
	cleanup_cjson cJSON *run = NULL;

	if (!on)
		cr_skip_test("the engine has CDI off");
	write_spec(dir, 0, true);
	run = replay(&r, dir, "auto", 0);
	cr_assert_str_eq(devices_via(run), "nodes");
	cr_assert(strstr(r.err.buf, "adds more than device nodes"), "%s", r.err.buf);
	tool_run_release(&r);
	/* asked for explicitly, such a spec is refused before any container */
	replay(&r, dir, "cdi", 64);
	cr_assert(strstr(r.err.buf, "--devices cdi:") && strstr(r.err.buf, spec_path), "%s",
		  r.err.buf);
	tool_run_release(&r);
}

Test(cdi, a_gpu_the_spec_does_not_cover_is_named_with_the_spec)
{
	bool on;
	const char *dir = cdi_dir(&on);
	struct tool_run r;

	if (!on)
		cr_skip_test("the engine has CDI off");
	write_spec(dir, 129, false);
	replay(&r, dir, "cdi", 5);
	cr_assert(strstr(r.err.buf, "GPU 1 (renderD129) is not a device of its own in the CDI spec"),
		  "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, spec_path), "%s", r.err.buf);
	cr_assert_eq(count_tool_containers(tenv.workdir), 0);
	tool_run_release(&r);
}
