/* orchestrator/diagnosis/diag_plan: what --diagnose asks for, and the debuggers' command
 * lines. */
#include <criterion/criterion.h>

#include <string.h>

#include "orchestrator/diagnosis/diag_plan.h"

Test(diag_plan, modes_parse_and_an_unknown_one_is_a_usage_error)
{
	enum diagnose_mode m = DIAGNOSE_OFF;
	struct error err = { 0 };

	cr_assert_eq(diagnose_mode_parse("all", &m, &err), 0);
	cr_assert_eq(m, DIAGNOSE_ALL);
	cr_assert_str_eq(diagnose_mode_name(DIAGNOSE_DEFAULT), "auto");
	cr_assert_lt(diagnose_mode_parse("agents", &m, &err), 0);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, "off, auto, agent, hang, all"), "%s", err.msg);
}

Test(diag_plan, the_agent_reruns_after_a_fault_in_auto_and_all_only)
{
	cr_assert(diagnose_agent_rerun(DIAGNOSE_AUTO, true, true));
	cr_assert(diagnose_agent_rerun(DIAGNOSE_ALL, true, true));
	cr_assert(!diagnose_agent_rerun(DIAGNOSE_AUTO, false, true), "no fault, no rerun");
	cr_assert(!diagnose_agent_rerun(DIAGNOSE_AUTO, true, false), "no agent in the image");
	cr_assert(!diagnose_agent_rerun(DIAGNOSE_AGENT, true, true), "agent: the first run was one");
	cr_assert(!diagnose_agent_rerun(DIAGNOSE_HANG, true, true));
	cr_assert(!diagnose_agent_rerun(DIAGNOSE_OFF, true, true));
	cr_assert(diagnose_agent_first(DIAGNOSE_AGENT) && !diagnose_agent_first(DIAGNOSE_ALL));
}

Test(diag_plan, ptrace_only_where_rocgdb_may_run_and_never_beside_the_agent)
{
	for (int m = DIAGNOSE_OFF; m <= DIAGNOSE_ALL; m++) {
		bool want = m == DIAGNOSE_HANG || m == DIAGNOSE_ALL;

		cr_assert_eq(diagnose_rocgdb(m, true, false), want, "%s", diagnose_mode_name(m));
		cr_assert_eq(diagnose_needs_ptrace(m, true, false), want);
		cr_assert(!diagnose_needs_ptrace(m, false, false), "no rocgdb in the image");
		cr_assert(!diagnose_needs_ptrace(m, true, true), "an agent run");
	}
}

Test(diag_plan, the_agent_run_gets_its_library_save_dir_and_four_times_the_limits)
{
	struct strvec env = STRVEC_INIT;

	diagnose_agent_env(&env, "/hrr/diagnostics/code-objects");
	cr_assert_str_eq(env.v[0], "HSA_TOOLS_LIB=librocm-debug-agent.so.2");
	cr_assert_str_eq(env.v[1], "ROCM_DEBUG_AGENT_OPTIONS=--save-code-objects=/hrr/diagnostics/code-objects");
	cr_assert_str_eq(env.v[2], "HSA_ENABLE_DEBUG=1", "older runtimes load tools only with it");
	cr_assert_eq(diagnose_agent_limit(600), 2400);
	cr_assert_eq(diagnose_agent_limit(0), 0, "no limit stays no limit");
	strvec_clear(&env);
}

Test(diag_plan, rocgdb_asks_mi_first_keeps_the_tables_and_detaches_before_quitting)
{
	struct strvec argv = STRVEC_INIT;
	long mi = -1, table = -1, detach = -1, quit = -1;

	diagnose_rocgdb_argv(&argv, "/opt/rocm/bin/rocgdb", 42);
	cr_assert_str_eq(argv.v[0], "/opt/rocm/bin/rocgdb");
	cr_assert_str_eq(argv.v[3], "-p");
	cr_assert_str_eq(argv.v[4], "42");
	for (size_t i = 0; i < argv.n; i++) {
		if (!strcmp(argv.v[i], "interpreter-exec mi3 \"-dispatch-info\""))
			mi = (long)i;
		if (!strcmp(argv.v[i], "info dispatches"))
			table = (long)i;
		if (!strcmp(argv.v[i], "detach"))
			detach = (long)i;
		if (!strcmp(argv.v[i], "quit"))
			quit = (long)i;
	}
	cr_assert(mi > 0 && mi < table && table < detach && detach < quit, "%ld %ld %ld %ld", mi,
		  table, detach, quit);
	strvec_clear(&argv);
}

static const char objdump[] =
	"\n/d/co:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n\n"
	"0000000000001000 <k>:\n"
	"\ts_load_dwordx4 s[0:3], s[4:5], 0x0                         // 000000001000: F4080002 FA000000\n"
	"\ts_waitcnt lgkmcnt(0)                                       // 000000001008: BF8CC07F\n"
	"\ts_mov_b64 s[0:1], s[6:7]                                   // 00000000100C: BE800106\n"
	"\ts_trap 2                                                   // 000000001010: BF920002\n"
	"\ts_endpgm                                                   // 000000001014: BF810000\n";

Test(diag_plan, the_disassembly_window_marks_the_faulting_instruction)
{
	struct strbuf out = STRBUF_INIT;
	struct error err = { 0 };

	cr_assert_eq(diagnose_disassembly_window(objdump, strlen(objdump), 0x1010, 1, &out, &err), 0);
	cr_assert_str_eq(out.buf, "   s_mov_b64 s[0:1], s[6:7]                                   // 00000000100C: BE800106\n"
				  "=> s_trap 2                                                   // 000000001010: BF920002\n"
				  "   s_endpgm                                                   // 000000001014: BF810000\n");
	strbuf_reset(&out);
	cr_assert_eq(diagnose_disassembly_window(objdump, strlen(objdump), 0x1000, 16, &out, &err), 0);
	cr_assert(!strncmp(out.buf, "=> s_load_dwordx4", 17), "%s", out.buf);
	cr_assert_lt(diagnose_disassembly_window(objdump, strlen(objdump), 0x1012, 16, &out, &err), 0);
	cr_assert_eq(err.kind, ERR_DATA);
	strbuf_release(&out);
}

Test(diag_plan, the_pc_offset_is_relative_to_where_the_code_object_is_loaded)
{
	unsigned long long off = 0;

	cr_assert_eq(diagnose_pc_offset("0x7fd4f100d0e8", "[0x7fd4f100c000-0x7fd4f100e070]", &off), 0);
	cr_assert_eq(off, 0x10e8);
	cr_assert_lt(diagnose_pc_offset("0x7fd4f100f000", "[0x7fd4f100c000-0x7fd4f100e070]", &off), 0);
	cr_assert_lt(diagnose_pc_offset("0x10", "loaded somewhere", &off), 0);
	cr_assert_lt(diagnose_pc_offset(NULL, "[0x0-0x10]", &off), 0);
}

Test(diag_plan, tools_are_looked_for_on_the_images_paths_then_in_rocm)
{
	struct strvec env = STRVEC_INIT, paths = STRVEC_INIT;

	strvec_push(&env, "PATH=/opt/rocm/bin:/usr/bin/:relative:/opt/rocm/bin");
	strvec_push(&env, "LD_LIBRARY_PATH=/opt/rocm/lib:/opt/venv/lib");
	diagnose_tool_candidates(&env, DIAGNOSE_TOOL_ROCGDB, &paths);
	cr_assert_eq(paths.n, 2);
	cr_assert_str_eq(paths.v[0], "/opt/rocm/bin/rocgdb");
	cr_assert_str_eq(paths.v[1], "/usr/bin/rocgdb");
	strvec_clear(&paths);
	diagnose_tool_candidates(&env, DIAGNOSE_TOOL_AGENT, &paths);
	cr_assert_eq(paths.n, 2);
	cr_assert_str_eq(paths.v[1], "/opt/venv/lib/librocm-debug-agent.so.2");
	strvec_clear(&paths);
	diagnose_tool_candidates(&env, DIAGNOSE_TOOL_OBJDUMP, &paths);
	cr_assert_str_eq(paths.v[0], "/opt/rocm/llvm/bin/llvm-objdump");
	cr_assert_str_eq(paths.v[1], "/opt/rocm/bin/llvm-objdump");
	strvec_clear(&paths);
	strvec_clear(&env);
	diagnose_tool_candidates(&env, DIAGNOSE_TOOL_AGENT, &paths);
	cr_assert_eq(paths.n, 1, "no env: the ROCm default only");
	strvec_clear(&paths);
}

Test(diag_plan, a_hang_is_named_by_the_agent_by_default_and_by_rocgdb_only_when_opted_in)
{
	cr_assert(diagnose_agent_hang(DIAGNOSE_AUTO, true), "auto never uses ptrace");
	cr_assert(!diagnose_agent_hang(DIAGNOSE_OFF, false));
	cr_assert(!diagnose_agent_hang(DIAGNOSE_HANG, true), "hang prefers the rocgdb it opted into");
	cr_assert(diagnose_agent_hang(DIAGNOSE_HANG, false), "without rocgdb, the agent");
	cr_assert(!diagnose_agent_hang(DIAGNOSE_AGENT, false), "an agent run is sent SIGQUIT itself");
	cr_assert(!diagnose_needs_ptrace(DIAGNOSE_AUTO, true, false));
	cr_assert_eq(diagnose_agent_hang_limit(7.2), 8, "the first run's time to its stop");
	cr_assert_eq(diagnose_agent_hang_limit(5.0), 5);
	cr_assert_eq(diagnose_agent_hang_limit(0.1), 1);
}

Test(diag_plan, a_gpu_hang_exception_is_rerun_under_the_agent_in_every_mode_that_names_hangs)
{
	cr_assert(diagnose_agent_gpu_hang(DIAGNOSE_AUTO));
	cr_assert(diagnose_agent_gpu_hang(DIAGNOSE_HANG), "rocgdb cannot attach: the process is gone");
	cr_assert(diagnose_agent_gpu_hang(DIAGNOSE_ALL));
	cr_assert(!diagnose_agent_gpu_hang(DIAGNOSE_OFF));
	cr_assert(!diagnose_agent_gpu_hang(DIAGNOSE_AGENT), "an agent run has no rerun");
}

Test(diag_plan, a_gpu_hang_rerun_is_sent_sigquit_halfway_into_the_silence_before_the_exception)
{
	long timeout = -1, progress = -1;

	/* Silent 4.2 s, ended 0.1 s before the end at 6.3 s: the exception. */
	diagnose_gpu_hang_limits(6.3, 4.2, 6.2, &timeout, &progress);
	cr_assert_eq(progress, 2, "half the silence: SIGQUIT before the driver's detection");
	cr_assert_eq(timeout, 28, "the first run's time to its end, x4");
	diagnose_gpu_hang_limits(4.07, 3.96, 3.96, &timeout, &progress);
	cr_assert_eq(progress, 2, "to the nearest second");
	cr_assert_eq(timeout, 20);
	diagnose_gpu_hang_limits(6.3, 1.5, 6.3, &timeout, &progress);
	cr_assert_eq(progress, 1, "at least a second");
	/* The last silence ended long before the end: it did not lead to it. */
	diagnose_gpu_hang_limits(30.0, 8.0, 12.0, &timeout, &progress);
	cr_assert_eq(progress, 1);
	cr_assert_eq(timeout, 120);
	diagnose_gpu_hang_limits(0.4, 0, -1, &timeout, &progress);
	cr_assert_eq(progress, 1, "no silence seen");
	cr_assert_eq(timeout, 4);
}
