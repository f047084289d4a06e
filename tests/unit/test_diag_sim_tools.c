/* The simulator image's debug tools (images/sim-tools), on the host: the
 * agent's wave report the simulator will print parses with
 * orchestrator/diagnosis/diag_agent, its saved code object disassembles with the
 * llvm-objdump stand-in, and the rocgdb stand-in really attaches to a
 * child process with ptrace, answers in formats orchestrator/diagnosis/diag_mi reads,
 * detaches, fails under a seccomp profile that denies ptrace, and in hang
 * mode holds the process until it is killed. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/diagnosis/diag_plan.h"
#include "orchestrator/diagnosis/diagnosis.h"
#include "images/sim-tools/agent_report.h"
#include "images/sim-tools/sim_debug.h"
#include "images/sim-tools/sim_state.h"
#include "orchestrator/diagnosis/diagnosis_json.h"
#include "tests/support/scratch.h"

#define ATEN_INDEX "void at::native::index_kernel_impl<at::native::OpaqueType<8> >" \
		   "(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)"

static char *dir;
static pid_t tracee = -1;

static void setup(void)
{
	dir = scratch_dir("diag-sim-tools");
}

static void teardown(void)
{
	if (tracee > 0) {
		kill(tracee, SIGKILL);
		waitpid(tracee, NULL, 0);
	}
	scratch_remove(dir);
	free(dir);
}

TestSuite(diag_sim_tools, .init = setup, .fini = teardown, .timeout = 60);

/* <build>/sim-tools/<name>: this test binary is <build>/tests/unit. */
static char *sim_tool(const char *name)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	cr_assert_gt(n, 0);
	exe[n] = '\0';
	return xasprintf("%s/sim-tools/%s", dirname(dirname(exe)), name);
}

static const struct agent_report report_template = {
	.event = "System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT: page not present or supervisor "
		 "privilege, write access to a read-only page)",
	.faulting_page = "0x7fbe4cc01000",
	.pid = 4242,
	.wave_id = 27876,
	.load_base = 0x7f20f5e40000ull,
	.kernel = ATEN_INDEX,
	.reason = "MEMORY_VIOLATION",
};

static void print_and_parse(const struct agent_report *ar, struct diag_agent_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	agent_report_print(f, ar);
	fclose(f);
	diag_agent_report_init(r);
	diag_agent_parse(r, text, len);
	free(text);
}

Test(diag_sim_tools, the_simulated_wave_report_parses_with_the_agent_parser)
{
	struct diag_agent_report r;
	const struct diag_agent_wave *w;
	char uri[256], pc[32];

	print_and_parse(&report_template, &r);
	w = diag_agent_suspect(&r);
	cr_assert_not_null(w);
	cr_assert_str_eq(w->id, "wave_27876");
	cr_assert_str_eq(w->kernel, ATEN_INDEX);
	cr_assert_str_eq(w->reason, "MEMORY_VIOLATION");
	snprintf(pc, sizeof(pc), "0x%llx", agent_report_pc(&report_template));
	cr_assert_str_eq(w->pc, pc);
	cr_assert_str_eq(w->instruction, "global_store_dword v[2:3], v1, off");
	agent_report_uri(&report_template, uri, sizeof(uri));
	cr_assert(!strncmp(uri, "memory://4242#offset=0x7f20f5e40000&size=", 41), "%s", uri);
	cr_assert_str_eq(w->code_object, uri);
	cr_assert_str_eq(r.faulting_page, "0x7fbe4cc01000");
	cr_assert(r.end_of_disassembly);
	diag_agent_report_release(&r);
}

Test(diag_sim_tools, an_assert_trap_report_stops_at_s_trap_2_and_is_explained)
{
	struct agent_report ar = report_template;
	struct diag_agent_report r;
	struct diagnosis d;
	cJSON *j;

	ar.reason = "ASSERT_TRAP";
	ar.event = "Queue error (HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a "
		   "hardware exception.)";
	print_and_parse(&ar, &r);
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent(&d, &r);
	cr_assert_str_eq(d.instruction, "s_trap 2");
	cr_assert_str_eq(d.reason, "ASSERT_TRAP");
	j = diagnosis_to_json(&d);
	cr_assert(strstr(cJSON_GetObjectItem(j, "explanation")->valuestring, "out of bounds"));
	cJSON_Delete(j);
	diagnosis_release(&d);
	diag_agent_report_release(&r);
}

/* The report's pc, relative to where it says the code object is loaded,
 * is an instruction of llvm-objdump's output: the faulting one. */
static void window_at_pc(const struct agent_report *ar, const struct strbuf *objdump_out)
{
	struct diag_agent_report r;
	const struct diag_agent_wave *w;
	struct strbuf win = STRBUF_INIT;
	struct error err = { 0 };
	unsigned long long off;

	print_and_parse(ar, &r);
	w = diag_agent_suspect(&r);
	cr_assert_eq(diagnose_pc_offset(w->pc, w->loaded_at, &off), 0);
	cr_assert_eq(diagnose_disassembly_window(objdump_out->buf, objdump_out->len, off,
						 DIAGNOSE_DISASSEMBLY_RADIUS, &win, &err), 0,
		     "%s", err.msg);
	cr_assert(strstr(win.buf, "=> s_trap 2 "), "%s", win.buf);
	cr_assert(strstr(win.buf, "   s_endpgm "), "%s", win.buf);
	strbuf_release(&win);
	diag_agent_report_release(&r);
}

Test(diag_sim_tools, the_saved_code_object_has_the_agents_name_and_disassembles)
{
	struct agent_report ar = report_template;
	char uri[256], name[256];
	char *path, *objdump = sim_tool("llvm-objdump"), *cmd;
	struct strbuf out = STRBUF_INIT;
	struct error err = { 0 };
	FILE *p;
	char buf[4096];
	size_t n;

	ar.reason = "ASSERT_TRAP";
	cr_assert_eq(agent_report_save(dir, &ar), 0, "%s", strerror(errno));
	agent_report_uri(&ar, uri, sizeof(uri));
	agent_report_saved_name(uri, name, sizeof(name));
	cr_assert(diag_agent_saved_name_matches(name, uri), "%s", name);
	path = xasprintf("%s/%s", dir, name);
	cr_assert_eq(fs_read_small_file(path, 1 << 20, &out, &err), 0, "%s", err.msg);
	cr_assert(!memcmp(out.buf, "\177ELF", 4));
	cmd = xasprintf("'%s' --disassemble-all '%s' 2>&1", objdump, path);
	p = popen(cmd, "r");
	strbuf_reset(&out);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(&out, buf, n);
	cr_assert_eq(pclose(p), 0, "%s", out.buf);
	cr_assert(strstr(out.buf, "file format elf64-amdgpu"), "%s", out.buf);
	cr_assert(strstr(out.buf, "0000000000001000 <" ATEN_INDEX ">:"), "%s", out.buf);
	cr_assert(strstr(out.buf, "\ts_trap 2"), "%s", out.buf);
	cr_assert(strstr(out.buf, "// 000000001024: BF920002"), "%s", out.buf);
	window_at_pc(&ar, &out);
	free(cmd);
	free(path);
	free(objdump);
	strbuf_release(&out);
}

Test(diag_sim_tools, the_agent_is_on_when_hsa_tools_lib_names_an_existing_agent_file)
{
	char *lib = xasprintf("%s/" AGENT_REPORT_LIB, dir), save[256];
	int fd = open(lib, O_WRONLY | O_CREAT, 0644);

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert(agent_report_enabled(lib, NULL));
	cr_assert(agent_report_enabled(AGENT_REPORT_LIB, dir));
	cr_assert(!agent_report_enabled(AGENT_REPORT_LIB, "/nonexistent"));
	cr_assert(!agent_report_enabled("/usr/lib/libother.so", NULL));
	cr_assert_eq(agent_report_save_dir("--all --save-code-objects=/out/co -d", save, sizeof(save)), 0);
	cr_assert_str_eq(save, "/out/co");
	cr_assert_eq(agent_report_save_dir("--save-code-objects", save, sizeof(save)), 0);
	cr_assert_str_eq(save, ".");
	cr_assert_eq(agent_report_save_dir("-a -s /x", save, sizeof(save)), 0);
	cr_assert_str_eq(save, "/x");
	cr_assert_lt(agent_report_save_dir("--all", save, sizeof(save)), 0);
	free(lib);
}

/* A child that waits to be debugged. */
static pid_t start_tracee(void)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* Nothing of the test runner's: its pipes close when it is done. */
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		for (;;)
			pause();
	}
	return pid;
}

static void write_state(pid_t pid, const char *rocgdb_mode, char **path)
{
	struct sim_state st;

	sim_state_defaults(&st);
	st.pid = pid;
	snprintf(st.kernel, sizeof(st.kernel), "%s", ATEN_INDEX);
	snprintf(st.grid, sizeof(st.grid), "[4096,1,1]");
	snprintf(st.workgroup, sizeof(st.workgroup), "[256,1,1]");
	st.queue = 2;
	st.dispatch = 7;
	st.packet = 6;
	snprintf(st.rocgdb, sizeof(st.rocgdb), "%s", rocgdb_mode);
	*path = xasprintf("%s/state", dir);
	cr_assert_eq(sim_state_write(*path, &st), 0, "%s", strerror(errno));
}

/* Deny ptrace with EPERM, as the replay's seccomp profile does. */
static void deny_ptrace(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(*f), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(125);
}

/* Start rocgdb's batch diagnosis of pid; its stdout and stderr in *fd. */
static pid_t start_rocgdb(pid_t pid, const char *state, bool denied, const char *hang, int *fd)
{
	char *bin = sim_tool("rocgdb"), pidarg[32];
	int p[2];
	pid_t child;

	snprintf(pidarg, sizeof(pidarg), "%d", (int)pid);
	cr_assert_eq(pipe(p), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		setenv(SIM_STATE_ENV, state, 1);
		if (hang)
			setenv("HRR_SIM_ROCGDB", hang, 1);
		if (denied)
			deny_ptrace();
		execl(bin, "rocgdb", "--batch", "-nx", "-p", pidarg, "-ex", "set pagination off",
		      "-ex", "interpreter-exec mi3 \"-dispatch-info\"", "-ex",
		      "interpreter-exec mi3 \"-thread-info\"", "-ex", "info dispatches", "-ex",
		      "bt 30", "-ex", "detach", "-ex", "quit", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	*fd = p[0];
	free(bin);
	return child;
}

static int finish(pid_t child, int fd, struct strbuf *out)
{
	char buf[4096];
	ssize_t n;
	int status;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(out, buf, (size_t)n);
	close(fd);
	cr_assert_eq(waitpid(child, &status, 0), child);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The tracer of pid, from /proc; -1 when pid is gone. */
static long tracer_of(pid_t pid)
{
	char *path = xasprintf("/proc/%d/status", (int)pid);
	struct strbuf sb = STRBUF_INIT;
	struct error err = { 0 };
	const char *t;
	long tracer = -1;

	if (fs_read_small_file(path, 1 << 16, &sb, &err) == 0 && (t = strstr(sb.buf, "TracerPid:")))
		tracer = strtol(t + 10, NULL, 10);
	strbuf_release(&sb);
	free(path);
	return tracer;
}

/* rocgdb's batch diagnosis of a fresh child, parsed; its exit status. */
static int diagnose_child(bool denied, struct strbuf *out, struct diag_mi_result *r)
{
	char *state;
	int fd, rc;
	pid_t dbg;

	tracee = start_tracee();
	write_state(tracee, "", &state);
	dbg = start_rocgdb(tracee, state, denied, NULL, &fd);
	rc = finish(dbg, fd, out);
	diag_mi_result_init(r);
	diag_mi_parse(r, out->buf, out->len);
	free(state);
	return rc;
}

Test(diag_sim_tools, rocgdb_attaches_names_the_in_flight_kernel_and_detaches)
{
	struct strbuf out = STRBUF_INIT;
	struct diag_mi_result r;

	cr_assert_eq(diagnose_child(false, &out, &r), 0, "%s", out.buf);
	cr_assert_eq(r.n_dispatches, 1, "%s", out.buf);
	cr_assert_str_eq(r.dispatches[0].kernel, ATEN_INDEX);
	cr_assert_str_eq(r.dispatches[0].kernel_from, "wave");
	cr_assert_str_eq(r.dispatches[0].grid, "[4096,1,1]");
	cr_assert_str_eq(r.table_kernel[0], ATEN_INDEX);
	cr_assert(r.detached);
	cr_assert_eq(tracer_of(tracee), 0, "detached: nobody traces the process");
	cr_assert_eq(waitpid(tracee, NULL, WNOHANG), 0, "the process still runs");
	diag_mi_result_release(&r);
	strbuf_release(&out);
}

Test(diag_sim_tools, rocgdb_fails_like_rocgdb_when_seccomp_denies_ptrace)
{
	struct strbuf out = STRBUF_INIT;
	struct diag_mi_result r;
	struct diagnosis d;

	cr_assert_eq(diagnose_child(true, &out, &r), 1, "%s", out.buf);
	cr_assert(strstr(out.buf, "ptrace: Operation not permitted.\n"), "%s", out.buf);
	diagnosis_init(&d, DIAGNOSIS_ROCGDB);
	diagnosis_from_rocgdb(&d, &r);
	cr_assert_eq(d.status, DIAGNOSIS_NOT_ATTACHED);
	cr_assert_eq(tracer_of(tracee), 0);
	diagnosis_release(&d);
	diag_mi_result_release(&r);
	strbuf_release(&out);
}

Test(diag_sim_tools, a_hung_rocgdb_holds_the_process_until_killed_then_lets_it_go)
{
	struct strbuf out = STRBUF_INIT;
	char *state;
	int fd, status;
	pid_t dbg;

	tracee = start_tracee();
	write_state(tracee, "", &state);
	dbg = start_rocgdb(tracee, state, false, "hang", &fd); /* HRR_SIM_ROCGDB=hang */
	/* Attached means traced; poll /proc (no timing is asserted). */
	for (int i = 0; i < 1000 && tracer_of(tracee) != dbg; i++)
		usleep(10000);
	cr_assert_eq(tracer_of(tracee), dbg);
	cr_assert_eq(waitpid(dbg, &status, WNOHANG), 0, "a hung debugger has not exited");
	kill(dbg, SIGKILL);
	cr_assert_eq(finish(dbg, fd, &out), 128 + SIGKILL);
	cr_assert(strstr(out.buf, "Attaching to process"), "%s", out.buf);
	cr_assert_null(strstr(out.buf, "^done"), "it never answered: %s", out.buf);
	cr_assert_eq(tracer_of(tracee), 0, "the kernel detached the dead tracer");
	cr_assert_eq(waitpid(tracee, NULL, WNOHANG), 0);
	strbuf_release(&out);
	free(state);
}

Test(diag_sim_tools, the_simulators_hooks_write_the_state_and_print_the_report_when_loaded)
{
	char *lib = xasprintf("%s/" AGENT_REPORT_LIB, dir), *state = xasprintf("%s/state", dir);
	char *opts = xasprintf("--save-code-objects=%s", dir), *text = NULL;
	struct diag_agent_report r;
	struct sim_state st;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int fd = open(lib, O_WRONLY | O_CREAT, 0644);
	char *name, *path;

	cr_assert_geq(fd, 0);
	close(fd);
	setenv(SIM_STATE_ENV, state, 1);
	cr_assert_eq(sim_debug_fault(f, ATEN_INDEX, "ASSERT_TRAP", NULL, NULL), 0,
		     "without HSA_TOOLS_LIB there is no agent");
	sim_debug_launch(ATEN_INDEX, "[4096,1,1]", "[256,1,1]", 3);
	cr_assert_eq(sim_state_read(state, &st), 0);
	cr_assert_eq(st.pid, (long)getpid());
	cr_assert_eq(st.dispatch, 4);
	cr_assert_str_eq(st.kernel, ATEN_INDEX);
	setenv("HSA_TOOLS_LIB", lib, 1);
	setenv("ROCM_DEBUG_AGENT_OPTIONS", opts, 1);
	cr_assert_eq(sim_debug_fault(f, ATEN_INDEX, "ASSERT_TRAP", NULL, NULL), 1);
	fclose(f);
	diag_agent_report_init(&r);
	diag_agent_parse(&r, text, len);
	cr_assert_str_eq(diag_agent_suspect(&r)->kernel, ATEN_INDEX);
	cr_assert_str_eq(diag_agent_suspect(&r)->instruction, "s_trap 2");
	cr_assert(!strncmp(r.event, "Queue error (HSA_STATUS_ERROR_EXCEPTION", 39));
	name = diag_agent_saved_name(r.code_objects.v[0]);
	path = xasprintf("%s/%s", dir, name);
	cr_assert_eq(access(path, R_OK), 0, "%s saved", path);
	free(name);
	free(path);
	diag_agent_report_release(&r);
	free(text);
	free(lib);
	free(state);
	free(opts);
}
