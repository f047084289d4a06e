#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "orchestrator/replay/replay.h"
#include "orchestrator/replay/replay_plan.h"
#include "orchestrator/replay/run_folder.h"
#include "orchestrator/replay/interrupt.h"
#include "orchestrator/replay/watchdog.h"
#include "common/clock.h"
#include "orchestrator/containers/ours.h"

static struct gpu_topology two_gpus(void)
{
	static struct gpu_node nodes[2] = {
		{ .node = 1, .gpu_id = 111, .gfx_target_version = 90402, .arch = "gfx942",
		  .drm_render_minor = 128 },
		{ .node = 2, .gpu_id = 222, .gfx_target_version = 90402, .arch = "gfx942",
		  .drm_render_minor = 136 },
	};
	struct gpu_topology t = { .gpus = nodes, .n_gpus = 2 };

	return t;
}

Test(replay_plan, devices_are_kfd_and_chosen_render_nodes_at_host_paths)
{
	struct gpu_topology t = two_gpus();
	int chosen[] = { 1 };
	struct plan_device *d;
	size_t n;

	plan_devices("/tmp/devroot", &t, chosen, 1, &d, &n);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(d[0].host_path, "/tmp/devroot/kfd");
	cr_assert_str_eq(d[0].container_path, "/dev/kfd");
	cr_assert_str_eq(d[1].host_path, "/tmp/devroot/dri/renderD136");
	cr_assert_str_eq(d[1].container_path, "/dev/dri/renderD136", "never renumbered");
	plan_devices_free(d, n);
}

Test(replay_plan, library_path_order)
{
	struct strvec env = STRVEC_INIT, dirs = STRVEC_INIT, extra = STRVEC_INIT;

	strvec_push(&env, "LD_LIBRARY_PATH=/img/lib:/opt/rocm/lib");
	plan_library_dirs(&extra, "rocm/vllm", &env, true, &dirs);
	cr_assert_eq(dirs.n, 5);
	cr_assert_str_eq(dirs.v[0], "/opt/hrr/lib");
	cr_assert_str_eq(dirs.v[1], "/opt/hrr/rocr");
	cr_assert_str_eq(dirs.v[2], VLLM_EXTRA_LD);
	cr_assert_str_eq(dirs.v[3], "/opt/rocm/lib");
	cr_assert_str_eq(dirs.v[4], "/img/lib", "the image's own last, no duplicate");
	strvec_clear(&dirs);
	strvec_push(&extra, "/extra");
	plan_library_dirs(&extra, "other/img", NULL, false, &dirs);
	cr_assert_eq(dirs.n, 2);
	cr_assert_str_eq(dirs.v[0], "/extra");
	strvec_clear(&dirs);
	strvec_clear(&env);
	strvec_clear(&extra);
}

static const cJSON *find_key(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* The plan input of a sample replay (pid-42 of rocm/vllm:x). */
static void sample_input(struct replay_plan_input *in, const struct strvec *image_env,
			 const struct plan_device *devs, size_t n_devices)
{
	in->pid_dir = "/data/capture.hrr/pid-42";
	in->pid_name = "pid-42";
	in->image_ref = "rocm/vllm:x";
	in->image_repository = "rocm/vllm";
	in->image_env = image_env;
	in->playback = "/opt/rocm/bin/hrr-playback";
	in->devices = devs;
	in->n_devices = n_devices;
	in->n_gpus = 1;
	in->run_id = "abc123";
	in->owner = "h:1:2";
	in->archive_label = in->pid_dir;
}

Test(replay_plan, container_is_locked_down)
{
	struct strvec env = STRVEC_INIT, hip_hrr = STRVEC_INIT, user_env = STRVEC_INIT;
	struct replay_plan_knobs k = { .progress_seconds = 30, .stop_grace_s = 10 };
	struct plan_device devs[2] = { { "/dev/kfd", "/dev/kfd", 44 },
				       { "/dev/dri/renderD128", "/dev/dri/renderD128", 109 } };
	struct replay_plan_input in = { 0 };
	struct container_spec s;
	struct error err;
	cJSON *j, *hc;

	strvec_push(&hip_hrr, "HIP_HRR_D2H_EXACT=1");
	strvec_push(&user_env, "FOO=bar");
	k.hip_hrr_env = &hip_hrr;
	k.env = &user_env;
	in.knobs = &k;
	sample_input(&in, &env, devs, 2);
	container_spec_init(&s);
	cr_assert_eq(replay_plan_build(&in, &s, &err), 0);
	cr_assert_str_eq(s.entrypoint.v[0], "/opt/rocm/bin/hrr-playback");
	cr_assert_str_eq(s.cmd.v[0], "--sync-after-launch");
	cr_assert_str_eq(s.cmd.v[s.cmd.n - 1], "/arch/pid-42", "the archive last");
	cr_assert_eq(s.n_mounts, 1, "only the pid directory");
	cr_assert_str_eq(s.mounts[0].source, "/data/capture.hrr/pid-42");
	cr_assert(s.mounts[0].read_only);
	cr_assert(strvec_find_key(&s.env, "HIP_VISIBLE_DEVICES") >= 0);
	cr_assert_str_eq(s.env.v[strvec_find_key(&s.env, "HIP_VISIBLE_DEVICES")],
			 "HIP_VISIBLE_DEVICES=0");
	cr_assert(strvec_find_key(&s.env, "HIP_HRR_D2H_EXACT") >= 0);
	cr_assert_str_eq(s.env.v[s.env.n - 1], "FOO=bar", "--env last: it wins");
	cr_assert_eq(s.group_add.n, 2);

	j = container_spec_to_json(&s);
	hc = (cJSON *)find_key(j, "HostConfig");
	cr_assert(cJSON_IsTrue(find_key(hc, "Init")));
	cr_assert_str_eq(find_key(hc, "NetworkMode")->valuestring, "none");
	cr_assert_str_eq(cJSON_GetArrayItem(find_key(hc, "CapDrop"), 0)->valuestring, "ALL");
	cr_assert_str_eq(cJSON_GetArrayItem(find_key(hc, "SecurityOpt"), 0)->valuestring,
			 "no-new-privileges");
	cr_assert_eq(cJSON_GetArraySize(find_key(hc, "Devices")), 2);
	cr_assert_str_eq(find_key(find_key(j, "Labels"), LABEL_RUN)->valuestring, "abc123");
	cr_assert_not_null(find_key(find_key(j, "Labels"), LABEL_OWNER));
	cr_assert_not_null(find_key(find_key(j, "Labels"), LABEL_ARCHIVE));
	cr_assert_not_null(find_key(find_key(j, "Labels"), LABEL_IMAGE));
	cJSON_Delete(j);
	container_spec_release(&s);

	k.no_sync = true;
	container_spec_init(&s);
	cr_assert_eq(replay_plan_build(&in, &s, &err), 0);
	cr_assert_eq(s.cmd.n, 1, "--no-sync drops --sync-after-launch");
	container_spec_release(&s);

	/* A perf sample: --timing, never --sync-after-launch (docs/perf.md). */
	k.timing = true;
	container_spec_init(&s);
	cr_assert_eq(replay_plan_build(&in, &s, &err), 0);
	cr_assert_eq(s.cmd.n, 2);
	cr_assert_str_eq(s.cmd.v[0], "--timing");
	container_spec_release(&s);
	k.timing = false;

	/* The --info follow-up: the same labels and hardening, no devices. */
	container_spec_init(&s);
	replay_plan_build_query(&in, "--info", &s);
	j = container_spec_to_json(&s);
	hc = (cJSON *)find_key(j, "HostConfig");
	cr_assert_str_eq(s.cmd.v[1], "--info");
	cr_assert_str_eq(find_key(hc, "NetworkMode")->valuestring, "none");
	cr_assert_str_eq(cJSON_GetArrayItem(find_key(hc, "CapDrop"), 0)->valuestring, "ALL");
	cr_assert_str_eq(find_key(find_key(j, "Labels"), LABEL_RUN)->valuestring, "abc123");
	cr_assert_eq(s.n_devices, 0);
	cJSON_Delete(j);
	container_spec_release(&s);
	strvec_clear(&env);
	strvec_clear(&hip_hrr);
	strvec_clear(&user_env);
}

Test(watchdog, deadlines)
{
	struct watchdog w;

	watchdog_start(&w, 10, 3, 100.0);
	cr_assert_eq(watchdog_check(&w, 102.9), WATCHDOG_NONE);
	cr_assert_eq(watchdog_check(&w, 103.0), WATCHDOG_PROGRESS_TIMEOUT);
	watchdog_saw_output(&w, 102.5);
	cr_assert_eq(watchdog_check(&w, 105.0), WATCHDOG_NONE);
	cr_assert_eq(watchdog_next_ms(&w, 105.0, 1000), 500);
	watchdog_saw_output(&w, 109.0);
	cr_assert_eq(watchdog_check(&w, 110.0), WATCHDOG_TIMEOUT, "wall clock outranks");
	watchdog_start(&w, 0, 0, 0);
	cr_assert_eq(watchdog_check(&w, 1e9), WATCHDOG_NONE, "0 = none");
	cr_assert_eq(watchdog_next_ms(&w, 5, 1000), 1000);
}

Test(replay_ending, markers_exactly_as_findings_md)
{
	struct strbuf m = STRBUF_INIT;
	enum finding_ended_by by;
	int sig;

	replay_ending(REPLAY_STOP_TIMEOUT, 5, 0, 0, false, 143, &m, &by, &sig);
	cr_assert_str_eq(m.buf, "replay timed out after 5s");
	cr_assert_str_eq(finding_ended_by_name(by), "timeout");
	cr_assert_eq(sig, -1, "our own SIGTERM is not a crash");
	strbuf_reset(&m);
	replay_ending(REPLAY_STOP_PROGRESS, 5, 7, 0, false, 137, &m, &by, &sig);
	cr_assert_str_eq(m.buf, "replay timed out after 7s without output");
	strbuf_reset(&m);
	replay_ending(REPLAY_STOP_INTERRUPT, 5, 7, 2, false, 143, &m, &by, &sig);
	cr_assert_str_eq(m.buf, "replay interrupted by the user (SIGINT)");
	cr_assert_str_eq(finding_ended_by_name(by), "interrupt");
	strbuf_reset(&m);
	replay_ending(REPLAY_STOP_NONE, 5, 0, 0, false, 139, &m, &by, &sig);
	cr_assert_str_eq(m.buf, "replay killed by signal 11");
	cr_assert_eq(sig, 11);
	strbuf_reset(&m);
	replay_ending(REPLAY_STOP_NONE, 5, 0, 0, true, 137, &m, &by, &sig);
	cr_assert_str_eq(m.buf, "replay killed by the engine: out of memory");
	cr_assert_str_eq(finding_ended_by_name(by), "oom");
	strbuf_reset(&m);
	replay_ending(REPLAY_STOP_NONE, 5, 0, 0, false, 124, &m, &by, &sig);
	cr_assert_eq(m.len, 0, "124 is an ordinary exit");
	cr_assert_str_eq(finding_ended_by_name(by), "exit");
	strbuf_release(&m);
}

Test(run_folder, owner_label_round_trip)
{
	char *self = owner_label_self();
	char host[256];
	pid_t pid;
	unsigned long long start;

	cr_assert_eq(owner_label_parse(self, host, sizeof(host), &pid, &start, NULL), 0);
	cr_assert_eq(pid, getpid());
	cr_assert_eq(start, process_start_ticks(getpid()));
	cr_assert_neq(start, 0);
	cr_assert_eq(owner_label_parse("nohost", host, sizeof(host), &pid, &start, NULL), -1);
	cr_assert_eq(owner_label_parse("h:x:1", host, sizeof(host), &pid, &start, NULL), -1);
	free(self);
}

Test(run_folder, owner_label_carries_the_uid)
{
	char *self = owner_label_self();
	char host[256];
	pid_t pid;
	unsigned long long start;
	uid_t uid = 12345;

	cr_assert_eq(owner_label_parse(self, host, sizeof(host), &pid, &start, &uid), 0);
	cr_assert_eq(uid, getuid());
	cr_assert_eq(owner_label_parse("h:7:99", host, sizeof(host), &pid, &start, &uid), 0,
		     "labels written before the uid was added still parse");
	cr_assert_eq(uid, (uid_t)-1);
	cr_assert_eq(owner_label_parse("h:7:99:x", host, sizeof(host), &pid, &start, &uid), -1);
	free(self);
}

/* Every container of ours is hardened alike: the probe as the replay. */
Test(replay_plan, the_probe_spec_is_labelled_and_hardened)
{
	struct container_spec s;
	cJSON *j, *hc;

	container_spec_init(&s);
	ours_probe_spec(&s, "sha256:abc", "rocm/vllm:x");
	j = container_spec_to_json(&s);
	hc = (cJSON *)find_key(j, "HostConfig");
	cr_assert_str_eq(find_key(j, "Image")->valuestring, "sha256:abc");
	cr_assert_str_eq(find_key(find_key(j, "Labels"), LABEL_PROBE)->valuestring, "1");
	cr_assert_str_eq(find_key(find_key(j, "Labels"), LABEL_IMAGE)->valuestring, "rocm/vllm:x");
	cr_assert_str_eq(find_key(hc, "NetworkMode")->valuestring, "none");
	cr_assert_str_eq(cJSON_GetArrayItem(find_key(hc, "CapDrop"), 0)->valuestring, "ALL");
	cr_assert_str_eq(cJSON_GetArrayItem(find_key(hc, "SecurityOpt"), 0)->valuestring,
			 "no-new-privileges");
	cr_assert(cJSON_IsTrue(find_key(hc, "Init")));
	cr_assert_eq(cJSON_GetArraySize(find_key(hc, "Ulimits")), 1, "no core dumps");
	cJSON_Delete(j);
	container_spec_release(&s);
}

/* The replay learns of interrupts from the self-pipe, one byte a signal. */
Test(interrupt, the_watch_reads_the_first_signal_and_counts_them)
{
	struct interrupt_watch w;
	int fds[2];
	unsigned char sigs[] = { SIGTERM, SIGINT };

	cr_assert_eq(pipe2(fds, O_NONBLOCK), 0);
	interrupt_watch_init(&w, fds[0]);
	cr_assert_eq(interrupt_watch_poll(&w), 0, "nothing yet");
	cr_assert_eq(write(fds[1], sigs, 1), 1);
	cr_assert_eq(interrupt_watch_poll(&w), SIGTERM);
	cr_assert_eq(write(fds[1], sigs + 1, 1), 1);
	cr_assert_eq(interrupt_watch_poll(&w), SIGTERM, "the first one stays the reason");
	cr_assert_eq(w.count, 2, "a second Ctrl-C is seen as one more");
	interrupt_watch_init(&w, -1);
	cr_assert_eq(interrupt_watch_poll(&w), 0, "no descriptor: never interrupted");
	close(fds[0]);
	close(fds[1]);
}

static char *host_config_part(const struct replay_plan_input *in, const char *key)
{
	struct container_spec s;
	struct error err;
	cJSON *j;
	char *out;

	container_spec_init(&s);
	cr_assert_eq(replay_plan_build(in, &s, &err), 0);
	j = container_spec_to_json(&s);
	out = cJSON_PrintUnformatted(find_key(find_key(j, "HostConfig"), key));
	cJSON_Delete(j);
	container_spec_release(&s);
	return out ? out : strdup("null");
}

/* The agent's SIGQUIT rerun of a hang needs no privilege: whatever the
 * plain run's knobs, its container gets exactly their capabilities and
 * security options (seccomp profile included). */
Test(replay_plan, an_agent_rerun_keeps_the_plain_runs_capabilities_and_seccomp)
{
	static const char *const keys[] = { "CapAdd", "CapDrop", "SecurityOpt", "Privileged" };
	struct strvec env = STRVEC_INIT, agent_env = STRVEC_INIT, caps = STRVEC_INIT;
	struct replay_plan_knobs plain = { .progress_seconds = 30, .stop_grace_s = 10 }, agent;
	struct plan_device devs[1] = { { "/dev/kfd", "/dev/kfd", 44 } };
	struct replay_plan_input in = { 0 };

	strvec_push(&caps, "SYS_NICE");
	plain.cap_add = &caps;
	strvec_push(&agent_env, "HSA_TOOLS_LIB=librocm-debug-agent.so.2");
	strvec_push(&agent_env, "HSA_ENABLE_DEBUG=1");
	replay_plan_agent_knobs(&plain, &agent_env, "/tmp/run/diagnostics", &agent);
	sample_input(&in, &env, devs, 1);
	in.seccomp_profile = "{\"defaultAction\":\"SCMP_ACT_ERRNO\"}";
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		char *a, *b;

		in.knobs = &plain;
		a = host_config_part(&in, keys[i]);
		in.knobs = &agent;
		b = host_config_part(&in, keys[i]);
		cr_assert_str_eq(a, b, "%s differs from a plain run's", keys[i]);
		free(a);
		free(b);
	}
	cr_assert_not(agent.allow_ptrace);
	cr_assert_eq(agent.env, &agent_env);
	strvec_clear(&env);
	strvec_clear(&agent_env);
	strvec_clear(&caps);
}
