/* End to end, --diagnose (docs/gpu-debug-tools.md) with the simulator's
 * debug tools (hrr-sim-debug: rocgdb, llvm-objdump, the debug agent's
 * placeholder) and without them (hrr-sim): the agent rerun after a GPU
 * fault, rocgdb before a hang is stopped (and a rocgdb that never answers),
 * "not available", ptrace only when asked for. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "docker/engine.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"


TestSuite(run_diagnose, .init = tenv_init, .fini = tenv_fini, .timeout = 180);

/* Run a fixture with extra options; finding.json (caller deletes). */
static cJSON *run_diag(struct tool_run *r, const char *image, const char *fixture,
		       const char *const *extra, int want_code)
{
	cleanup_free char *pid_dir = fixture_pid_dir(fixture);
	const char *argv[32] = { "--image", image, "--archive", pid_dir, "--workdir",
				 tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
				 tenv.sysfs, "-q", "--stop-grace", "1" };
	size_t n = 13;
	cJSON *f;

	for (size_t i = 0; extra && extra[i] && n < 31; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	tool_run(r, argv, NULL);
	cr_assert_eq(r->status, want_code, "%s: exit %d:\n%s", fixture, r->status, r->err.buf);
	f = read_json(r->run_dir, "finding.json");
	cr_assert_not_null(f, "%s: no finding.json", fixture);
	return f;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *diagnosis(const cJSON *f)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(f, "diagnosis");

	cr_assert(cJSON_IsObject(d), "finding.json has no diagnosis object");
	return d;
}

/* One of the diagnosis's files starting with prefix, as a path. */
static char *file_with_prefix(const cJSON *d, const char *run_dir, const char *prefix)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(d, "files"))
		if (cJSON_IsString(f) && !strncmp(f->valuestring, prefix, strlen(prefix)))
			return xasprintf("%s/%s", run_dir, f->valuestring);
	return NULL;
}

Test(run_diagnose, a_fault_without_a_kernel_is_named_by_the_agent_rerun)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "maf-unattributed-long",
					  (const char *const[]){ "--timeout", "20", NULL }, 1);
	const cJSON *d = diagnosis(f);
	cleanup_free char *co = NULL;
	cleanup_free char *log = NULL;
	cleanup_free char *dis = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	assert_finding_verdict(f, "verdict unchanged", "MAF", "illegal_memory_access", NULL);
	cr_assert_str_eq(str(d, "tool"), "rocm-debug-agent");
	cr_assert_str_eq(str(d, "status"), "ok", "%s", str(d, "summary"));
	cr_assert(str(d, "kernel") && !strncmp(str(d, "kernel"), "_ZN2at6native", 13), "%s",
		  str(d, "kernel"));
	cr_assert_str_eq(str(d, "reason"), "MEMORY_VIOLATION");
	cr_assert(str(d, "pc") && !strncmp(str(d, "pc"), "0x", 2));
	cr_assert_str_eq(str(d, "instruction"), "global_store_dword v[2:3], v1, off");
	log = file_with_prefix(d, r.run_dir, "diagnostics/agent.log");
	co = file_with_prefix(d, r.run_dir, "diagnostics/code-objects/memory___");
	cr_assert(log && access(log, R_OK) == 0, "agent.log brought home");
	cr_assert(co && access(co, R_OK) == 0, "the code object brought home");
	dis = file_with_prefix(d, r.run_dir, "diagnostics/disassembly.txt");
	cr_assert(dis && read_text(dis, &text), "the disassembly around the pc");
	cr_assert(strstr(text.buf, "=> global_store_dword v[2:3], v1, off"), "%s", text.buf);
	cr_assert(strstr(str(d, "caveat"), "not the root cause"));
	tool_run_release(&r);
}

Test(run_diagnose, an_assert_trap_in_an_aten_index_kernel_is_explained)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "queue-abort-aten-assert",
					  (const char *const[]){ "--timeout", "20", NULL }, 1);
	const cJSON *d = diagnosis(f);
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	cleanup_free char *md_path = xasprintf("%s/finding.md", r.run_dir);

	cr_assert_str_eq(str(f, "outcome"), "ABORT");
	cr_assert_str_eq(str(d, "reason"), "ASSERT_TRAP", "%s", str(d, "summary"));
	cr_assert_str_eq(str(d, "instruction"), "s_trap 2");
	cr_assert(!strncmp(str(d, "kernel"), "void at::native::index_kernel_impl<", 35));
	cr_assert(strstr(str(d, "explanation"), "out of bounds"), "%s", str(d, "explanation"));
	cr_assert(read_text(md_path, &md));
	cr_assert(strstr(md.buf, "### Diagnosis (rocm-debug-agent)"), "%s", md.buf);
	tool_run_release(&r);
}

Test(run_diagnose, an_image_without_the_agent_says_not_available_and_keeps_the_verdict)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_IMAGE, "maf",
					  (const char *const[]){ "--timeout", "10", NULL }, 1);
	const cJSON *d = diagnosis(f);

	assert_finding_verdict(f, "verdict unchanged", "MAF", "illegal_memory_access", "Cijk_");
	cr_assert_str_eq(str(d, "status"), "not-available");
	cr_assert(strstr(str(d, "summary"), "librocm-debug-agent.so.2"));
	cr_assert(!file_exists(r.run_dir, "diagnostics/agent.log"), "no rerun happened");
	tool_run_release(&r);
}

Test(run_diagnose, off_makes_no_diagnosis)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "maf",
					  (const char *const[]){ "--timeout", "10", "--diagnose", "off",
								 NULL }, 1);

	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(f, "diagnosis")));
	tool_run_release(&r);
}

static bool cap_added(const char *run_dir, const char *cap)
{
	cleanup_cjson cJSON *run = read_json(run_dir, "run.json");
	const cJSON *caps, *c;

	cr_assert_not_null(run);
	caps = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(run, "container"), "spec"),
			"HostConfig"),
		"CapAdd");
	cJSON_ArrayForEach(c, caps)
		if (cJSON_IsString(c) && !strcmp(c->valuestring, cap))
			return true;
	return false;
}

Test(run_diagnose, rocgdb_names_the_dispatch_a_hang_is_stuck_in)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "hang",
					  (const char *const[]){ "--timeout", "4", "--diagnose", "hang",
								 NULL }, 1);
	const cJSON *d = diagnosis(f);
	const cJSON *disp = cJSON_GetObjectItemCaseSensitive(d, "dispatches");

	cr_assert_str_eq(str(f, "outcome"), "HANG");
	cr_assert_str_eq(str(d, "tool"), "rocgdb");
	cr_assert_str_eq(str(d, "status"), "ok", "%s", str(d, "summary"));
	cr_assert_str_eq(str(d, "reason"), "in-flight dispatch");
	cr_assert(str(d, "kernel") && !strncmp(str(d, "kernel"), "Cijk_", 5), "%s", str(d, "kernel"));
	cr_assert_eq(cJSON_GetArraySize(disp), 1);
	cr_assert_str_eq(str(f, "kernel_name"), str(d, "kernel"), "the HANG carries the kernel");
	cr_assert(file_exists(r.run_dir, "diagnostics/rocgdb.txt"));
	cr_assert(cap_added(r.run_dir, "SYS_PTRACE"), "a hang-diagnostic run may be traced");
	tool_run_release(&r);
}

Test(run_diagnose, a_rocgdb_that_never_answers_is_cut_off_and_the_hang_still_stopped)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "hang",
					  (const char *const[]){ "--timeout", "3", "--diagnose", "hang",
								 "--diagnose-timeout", "2", "--env",
								 "HRR_SIM_ROCGDB=hang", NULL }, 1);
	const cJSON *d = diagnosis(f);

	cr_assert_str_eq(str(f, "outcome"), "HANG");
	cr_assert_str_eq(str(d, "status"), "timed-out", "%s", str(d, "summary"));
	cr_assert_null(str(f, "kernel_name"), "a timed-out rocgdb names nothing");
	cr_assert_eq(count_tool_containers(tenv.workdir), 0, "the container is gone");
	tool_run_release(&r);
}

/* auto names a hang without ptrace: the agent rerun, sent SIGQUIT after
 * the stop marker at the first run's time to its stop. */
Test(run_diagnose, a_default_run_names_a_hang_with_the_agents_sigquit_dump_and_no_ptrace)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "hang",
					  (const char *const[]){ "--timeout", "2", NULL }, 1);
	const cJSON *d = diagnosis(f);
	cleanup_free char *log = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	const char *marker, *wave;
	long limit = -1;

	assert_finding_verdict(f, "the first run's verdict", "HANG", "hang", "Cijk_");
	cr_assert_str_eq(str(d, "tool"), "rocm-debug-agent");
	cr_assert_str_eq(str(d, "status"), "ok", "%s", str(d, "summary"));
	cr_assert(strstr(str(d, "summary"), "running"), "%s", str(d, "summary"));
	cr_assert(str(d, "kernel") && !strncmp(str(d, "kernel"), "Cijk_", 5), "%s", str(d, "kernel"));
	cr_assert(json_has_note(d, "running at pc=0x"), "which waves were seen where");
	cr_assert(!cap_added(r.run_dir, "SYS_PTRACE"));
	log = file_with_prefix(d, r.run_dir, "diagnostics/agent.log");
	cr_assert(log && read_text(log, &text), "the rerun's log brought home");
	marker = strstr(text.buf, "[hrr-docker-replay] replay timed out after ");
	wave = strstr(text.buf, "wave_");
	cr_assert(marker && wave && marker < wave, "the stop marker before SIGQUIT:\n%s", text.buf);
	cr_assert_eq(sscanf(marker, "[hrr-docker-replay] replay timed out after %lds", &limit), 1);
	cr_assert(limit >= 2 && limit <= 3, "the first run's time to its stop, not x4: %ld", limit);
	cr_assert(!strstr(wave, "[hrr-docker-replay] replay"), "one marker only");
	tool_run_release(&r);
}

/* --diagnose agent: the only run is the agent run; its hang gets the
 * SIGQUIT itself, and its own replay.log is read. */
Test(run_diagnose, an_agent_run_that_hangs_is_sent_sigquit_before_its_stop)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "hang",
					  (const char *const[]){ "--timeout", "1", "--diagnose", "agent",
								 NULL }, 1);
	const cJSON *d = diagnosis(f);
	cleanup_free char *log = file_with_prefix(d, r.run_dir, "replay.log");

	cr_assert_str_eq(str(f, "outcome"), "HANG");
	cr_assert_str_eq(str(d, "status"), "ok", "%s", str(d, "summary"));
	cr_assert(strstr(str(d, "summary"), "SIGQUIT"), "%s", str(d, "summary"));
	cr_assert_not_null(log, "its own log is read");
	cr_assert(!cap_added(r.run_dir, "SYS_PTRACE"));
	tool_run_release(&r);
}

Test(run_diagnose, an_agent_that_did_not_load_is_said_and_the_hang_stays_a_hang)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "hang",
					  (const char *const[]){ "--timeout", "2", "--env",
								 "HRR_SIM_AGENT=unloadable", NULL }, 1);
	const cJSON *d = diagnosis(f);
	cleanup_free char *log = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	cr_assert_str_eq(str(f, "outcome"), "HANG");
	cr_assert_str_eq(str(d, "status"), "agent-not-loaded", "%s", str(d, "summary"));
	cr_assert(strstr(str(d, "summary"), "SIGQUIT"), "%s", str(d, "summary"));
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d, "caveat")));
	/* The rerun died of SIGQUIT, yet its log reads as stopped by the watchdog. */
	log = file_with_prefix(d, r.run_dir, "diagnostics/agent.log");
	cr_assert(log && read_text(log, &text));
	cr_assert(strstr(text.buf, "[hrr-docker-replay] replay timed out after "), "%s", text.buf);
	tool_run_release(&r);
}

Test(run_diagnose, an_image_without_the_agent_names_no_hang_kernel_and_says_why)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_IMAGE, "hang",
					  (const char *const[]){ "--timeout", "2", NULL }, 1);
	const cJSON *d = diagnosis(f);

	cr_assert_str_eq(str(f, "outcome"), "HANG");
	cr_assert_str_eq(str(d, "status"), "not-available", "%s", str(d, "summary"));
	cr_assert(strstr(str(d, "summary"), "without ptrace"), "%s", str(d, "summary"));
	tool_run_release(&r);
}

Test(run_diagnose, a_rocgdb_that_cannot_start_did_not_run_and_did_not_attach)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "hang",
					  (const char *const[]){ "--timeout", "3", "--diagnose", "hang",
								 "--env", "HRR_SIM_ROCGDB=nolib", NULL },
					  1);
	const cJSON *d = diagnosis(f);
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(d, "exit_status");

	cr_assert_str_eq(str(f, "outcome"), "HANG");
	cr_assert_str_eq(str(d, "tool"), "rocgdb");
	cr_assert_str_eq(str(d, "status"), "not-run", "%s", str(d, "summary"));
	cr_assert(!strstr(str(d, "summary"), "attached"), "%s", str(d, "summary"));
	cr_assert(cJSON_IsNumber(code) && code->valueint == 127);
	cr_assert(str(d, "stderr") && strstr(str(d, "stderr"), "libpython3.12.so.1.0"), "%s",
		  str(d, "stderr"));
	cr_assert_null(str(f, "kernel_name"), "a debugger that did not run names nothing");
	tool_run_release(&r);
}

/* rocgdb attached to waves that already existed (the hung-kernel case):
 * no dispatch record, "AMDGPU Wave 1:1:?:1 (?,?,?)/?", yet the wave's
 * frame names the kernel. */
Test(run_diagnose, rocgdb_names_a_hung_kernel_from_a_wave_without_a_dispatch)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "hang",
					  (const char *const[]){ "--timeout", "3", "--diagnose", "hang",
								 "--env", "HRR_SIM_ROCGDB=no-dispatch",
								 NULL },
					  1);
	const cJSON *d = diagnosis(f);

	cr_assert_str_eq(str(f, "outcome"), "HANG");
	cr_assert_str_eq(str(d, "status"), "ok", "%s", str(d, "summary"));
	cr_assert_str_eq(str(d, "kernel_from"), "wave");
	cr_assert(str(d, "kernel") && !strncmp(str(d, "kernel"), "Cijk_", 5), "%s", str(d, "kernel"));
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d, "dispatches")), 0);
	tool_run_release(&r);
}

/* The older agent on a trap: its "Queue error (HSA_STATUS_...: ...)" and
 * abort(), no CLR queue-abort line: an HSA abort, not a crash. */
Test(run_diagnose, the_old_agents_queue_error_is_an_abort_not_a_crash)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "queue-abort-aten-assert",
					  (const char *const[]){ "--timeout", "20", "--diagnose", "agent",
								 "--env", "HRR_SIM_AGENT=old", NULL },
					  1);
	const cJSON *d = diagnosis(f);

	assert_finding_verdict(f, "the old agent's queue error", "ABORT", "replay_aborted", NULL);
	cr_assert(json_has_note(f, "HSA_STATUS_ERROR_EXCEPTION"));
	cr_assert_str_eq(str(d, "status"), "ok", "%s", str(d, "summary"));
	cr_assert_str_eq(str(d, "reason"), "ASSERT_TRAP");
	tool_run_release(&r);
}

Test(run_diagnose, the_old_agents_fault_report_is_a_maf_at_its_page_not_a_crash)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "maf-read-only",
					  (const char *const[]){ "--timeout", "20", "--diagnose", "agent",
								 "--env", "HRR_SIM_AGENT=old", NULL },
					  1);
	const cJSON *d = diagnosis(f);

	assert_finding_verdict(f, "the old agent's report", "MAF", "illegal_memory_access", NULL);
	cr_assert_str_eq(str(f, "fault_address"), "0xdeadb000", "the page of 0xdeadbeef");
	cr_assert(json_has_note(f, "page-aligned"));
	cr_assert_str_eq(str(d, "tool"), "rocm-debug-agent");
	cr_assert_str_eq(str(d, "status"), "ok", "%s", str(d, "summary"));
	cr_assert_str_eq(str(d, "reason"), "MEMORY_VIOLATION");
	tool_run_release(&r);
}

Test(run_diagnose, rocm7s_agent_lines_name_the_kernel)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "maf",
					  (const char *const[]){ "--timeout", "20", "--diagnose", "agent",
								 "--env", "HRR_SIM_AGENT=rocm7", NULL },
					  1);
	const cJSON *d = diagnosis(f);

	assert_finding_verdict(f, "ROCm 7's agent", "MAF", "illegal_memory_access", "Cijk_");
	cr_assert_str_eq(str(d, "status"), "ok", "%s", str(d, "summary"));
	cr_assert(str(d, "kernel") && !strncmp(str(d, "kernel"), "Cijk_", 5), "%s", str(d, "kernel"));
	cr_assert_str_eq(str(d, "instruction"), "global_store_dword v[2:3], v1, off");
	tool_run_release(&r);
}

/* The GPU's own hang detection ended the run (ROCr's "HW Exception ...
 * reason :GPU Hang", then abort): by default the agent rerun, sent
 * SIGQUIT inside the silence the first run had before the exception. */
Test(run_diagnose, a_gpu_hang_exception_is_named_by_the_agents_sigquit_dump_in_a_rerun)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "hw-exception-hang",
					  (const char *const[]){ "--timeout", "30", NULL }, 1);
	const cJSON *d = diagnosis(f);
	cleanup_free char *log = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	const char *marker, *wave;
	long quiet = -1;

	assert_finding_verdict(f, "the first run's verdict", "HANG", "gpu_hang", "Cijk_");
	cr_assert_str_eq(str(d, "tool"), "rocm-debug-agent");
	cr_assert_str_eq(str(d, "status"), "ok", "%s", str(d, "summary"));
	cr_assert(strstr(str(d, "summary"), "SIGQUIT: 2 wave(s) on the GPU (2 running"), "%s",
		  str(d, "summary"));
	cr_assert(str(d, "kernel") && !strncmp(str(d, "kernel"), "Cijk_", 5), "%s", str(d, "kernel"));
	cr_assert(json_has_note(d, "running at pc=0x"), "which waves were seen where");
	cr_assert(json_has_note(d, "before the driver's hang detection"));
	cr_assert(json_has_note(f, "kernel: the wave rocm-debug-agent dumped on SIGQUIT"));
	cr_assert(!cap_added(r.run_dir, "SYS_PTRACE"), "no ptrace for the agent");
	log = file_with_prefix(d, r.run_dir, "diagnostics/agent.log");
	cr_assert(log && read_text(log, &text), "the rerun's log brought home");
	marker = strstr(text.buf, "[hrr-docker-replay] replay timed out after ");
	wave = strstr(text.buf, "wave_");
	cr_assert(marker && wave && marker < wave, "the stop marker before SIGQUIT:\n%s", text.buf);
	cr_assert_eq(sscanf(marker, "[hrr-docker-replay] replay timed out after %lds without output",
			    &quiet), 1, "%s", marker);
	/* The silence is what the log stream showed: 4 s in the simulator,
	 * less when a loaded host delivered the line before it late. SIGQUIT
	 * comes at half of what was seen, rounded: 2 s, 1 s at the least. */
	cr_assert(quiet >= 1 && quiet <= 2,
		  "half the first run's 4 s of silence before the exception: %ld", quiet);
	cr_assert(!strstr(text.buf, "HW Exception"), "SIGQUIT came before the driver's detection");
	tool_run_release(&r);
}

/* --diagnose hang with rocgdb in the image: rocgdb had no moment to
 * attach (no watchdog stop), the agent rerun still names the waves; the
 * ROCm 7 agent's wave lines. */
Test(run_diagnose, a_gpu_hang_exception_gets_the_agent_rerun_under_diagnose_hang_too)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, SIM_DEBUG_IMAGE, "hw-exception-hang",
					  (const char *const[]){ "--timeout", "30", "--diagnose", "hang",
								 "--env", "HRR_SIM_AGENT=rocm7", NULL },
					  1);
	const cJSON *d = diagnosis(f);
	cleanup_free char *log = file_with_prefix(d, r.run_dir, "diagnostics/agent.log");
	cleanup_free char *rocgdb = file_with_prefix(d, r.run_dir, "diagnostics/rocgdb");
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	cr_assert_str_eq(str(f, "fault_class"), "gpu_hang");
	cr_assert_str_eq(str(d, "status"), "ok", "%s", str(d, "summary"));
	cr_assert(log && read_text(log, &text));
	cr_assert(strstr(text.buf, ", kernargs=0x") && strstr(text.buf, ") (running)"),
		  "ROCm 7's wave lines:\n%s", text.buf);
	cr_assert_null(rocgdb, "no rocgdb: nothing to attach to");
	tool_run_release(&r);
}

/* A GPU Hang rerun that named no wave: the status and why, no kernel. */
static void gpu_hang_names_nothing(const char *image, const char *fixture, const char *mode,
				   const char *status, const char *why)
{
	struct tool_run r;
	cleanup_cjson cJSON *f = run_diag(&r, image, fixture,
					  (const char *const[]){ "--timeout", "30", "--diagnose", mode,
								 NULL }, 1);
	const cJSON *d = diagnosis(f);

	assert_finding_verdict(f, "the first run's verdict", "HANG", "gpu_hang", NULL);
	cr_assert_str_eq(str(d, "status"), status, "%s", str(d, "summary"));
	cr_assert(strstr(str(d, "summary"), why), "%s", str(d, "summary"));
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(d, "caveat")));
	tool_run_release(&r);
}

/* No silence before the exception: the driver fires again before any
 * SIGQUIT could, and the diagnosis says so rather than guess. */
Test(run_diagnose, a_gpu_hang_that_recurs_before_the_sigquit_is_said_to_have_named_nothing)
{
	gpu_hang_names_nothing(SIM_DEBUG_IMAGE, "hw-exception", "auto", "not-run",
			       "GPU Hang recurred");
}

/* --diagnose agent: its one run ends with the exception, no SIGQUIT; the
 * agent was loaded, it just has nothing to say on a GPU reset. */
Test(run_diagnose, an_agent_run_ended_by_a_gpu_hang_is_not_called_an_agent_that_did_not_load)
{
	gpu_hang_names_nothing(SIM_DEBUG_IMAGE, "hw-exception-hang", "agent", "not-run",
			       "prints no wave on a GPU reset");
}

Test(run_diagnose, a_gpu_hang_in_an_image_without_the_agent_says_not_available)
{
	gpu_hang_names_nothing(SIM_IMAGE, "hw-exception-hang", "auto", "not-available", "GPU Hang");
}

static int collect_exec(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	(void)stream;
	strbuf_add(ud, data, len);
	return 0;
}

/* The hrr-playback pid inside a container, polled until it runs; -1 none. */
static long playback_pid_in(struct engine *e, const char *id)
{
	struct strvec sh = STRVEC_INIT;
	long pid = -1;

	strvec_push(&sh, "sh");
	strvec_push(&sh, "-c");
	strvec_push(&sh, "for d in /proc/[0-9]*; do read -r c < \"$d/comm\" 2>/dev/null && "
			 "[ \"$c\" = hrr-playback ] && echo \"${d#/proc/}\"; done; true");
	for (int i = 0; i < 100 && pid <= 0; i++) {
		struct strbuf out = STRBUF_INIT;
		struct error err;
		long code = -1;

		if (engine_exec(e, id, &sh, NULL, false, collect_exec, &out, &code, &err) == 0)
			pid = strtol(out.buf, NULL, 10);
		strbuf_release(&out);
		if (pid <= 0)
			usleep(200 * 1000);
	}
	strvec_clear(&sh);
	return pid;
}

/* The other half of "ptrace only for hang diagnostics": in a default run
 * the image's own rocgdb cannot attach to the replay (the replay seccomp
 * profile refuses ptrace even to the same uid), the way it would fail on
 * a real GPU host. */
Test(run_diagnose, the_images_rocgdb_cannot_attach_in_a_default_run)
{
	cleanup_free char *pid_dir = fixture_pid_dir("hang");
	const char *const argv[] = { "--image", SIM_DEBUG_IMAGE, "--archive", pid_dir,
				     "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				     "--sysfs-root", tenv.sysfs, "-q", "--timeout", "60",
				     "--stop-grace", "1", NULL };
	cleanup_free char *id = NULL;
	struct strvec gdb = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	struct engine *e = NULL;
	struct error err;
	long code = -1, pid;
	pid_t tool;
	char pid_text[32];

	tool = tool_spawn(argv, NULL, tenv.root);
	id = wait_for_tool_container(tenv.workdir, 60);
	cr_assert_not_null(id, "the replay container appears");
	cr_assert_eq(engine_open(&e, NULL, &err), 0, "%s", err.msg);
	pid = playback_pid_in(e, id);
	cr_assert_gt(pid, 0, "hrr-playback runs in the container");
	snprintf(pid_text, sizeof(pid_text), "%ld", pid);
	strvec_push(&gdb, "/opt/rocm-7.13.0/bin/rocgdb");
	strvec_push(&gdb, "--batch");
	strvec_push(&gdb, "-p");
	strvec_push(&gdb, pid_text);
	cr_assert_eq(engine_exec(e, id, &gdb, NULL, false, collect_exec, &out, &code, &err), 0,
		     "%s", err.msg);
	cr_assert(strstr(out.buf, "ptrace: Operation not permitted"),
		  "rocgdb attached in a default run (exit %ld):\n%s", code, out.buf);
	cr_assert_neq(code, 0, "rocgdb reports the failure in its exit status");
	kill(tool, SIGINT);
	cr_assert_eq(tool_wait(tool, 60), 5, "an interrupted replay has no verdict");
	cr_assert_eq(count_tool_containers(tenv.workdir), 0, "the container is gone");
	strbuf_release(&out);
	strvec_clear(&gdb);
	engine_close(e);
}
