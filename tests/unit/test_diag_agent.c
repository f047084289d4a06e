/* orchestrator/diagnosis/diag_agent: the rocm-debug-agent's wave report. The samples in
 * tests/fuzz/corpus/diag_agent/ (also the fuzzer's seeds) are in the
 * agent's real format: assert_trap.txt is the ROCm user guide's sample,
 * memory_violation.txt the form with kernel_code_entry and a memory://
 * code object that current agents print. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "orchestrator/diagnosis/diag_agent.h"
#include "tests/support/diag_samples.h"

static void parse_sample(const char *name, struct diag_agent_report *r)
{
	size_t len;
	char *buf = diag_sample("diag_agent", name, &len);

	diag_agent_report_init(r);
	diag_agent_parse(r, buf, len);
	free(buf);
}

Test(diag_agent, the_user_guide_sample_names_kernel_reason_pc_and_instruction)
{
	struct diag_agent_report r;
	const struct diag_agent_wave *w;

	parse_sample("assert_trap.txt", &r);
	w = diag_agent_suspect(&r);
	cr_assert_not_null(w);
	cr_assert_eq(r.waves, 1);
	cr_assert_str_eq(w->id, "wave_1");
	cr_assert_str_eq(w->pc, "0x7fd4f100d0e8");
	cr_assert_null(w->kernel_entry);
	cr_assert_str_eq(w->reason, "ASSERT_TRAP");
	cr_assert_str_eq(diag_agent_wave_kernel(w), "vector_add_assert_trap(int*, int*, int*)");
	cr_assert_str_eq(w->instruction, "s_trap 2");
	cr_assert_str_eq(w->code_object,
			 "file:////rocm-debug-agent/build/test/rocm-debug-agent-test#offset=14309&size=31336");
	cr_assert_str_eq(w->loaded_at, "[0x7fd4f100c000-0x7fd4f100e070]");
	cr_assert_str_eq(r.event, "Queue error (HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation "
				  "resulted in a hardware exception.)");
	cr_assert(r.end_of_disassembly);
	diag_agent_report_release(&r);
}

Test(diag_agent, a_template_kernel_in_the_entry_keeps_its_angle_brackets_and_parentheses)
{
	struct diag_agent_report r;
	const struct diag_agent_wave *w;

	parse_sample("memory_violation.txt", &r);
	w = diag_agent_suspect(&r);
	cr_assert_str_eq(w->id, "wave_27876");
	cr_assert_str_eq(w->kernel_entry, "0x7f20f5e52900");
	cr_assert_str_eq(w->kernel, "void at::native::index_copy_kernel_impl<at::native::OpaqueType<4> >"
				    "(at::TensorIterator&, long, long, long)::{lambda(int)#1}");
	cr_assert_str_eq(w->reason, "MEMORY_VIOLATION");
	cr_assert_str_eq(w->instruction, "global_store_dword v[2:3], v1, off");
	cr_assert_str_eq(w->code_object, "memory://2188702#offset=0x546c3060&size=4026672");
	cr_assert_eq(r.code_objects.n, 1);
	cr_assert_str_eq(r.faulting_page, "0x7fbe4cc01000");
	cr_assert(!strncmp(r.event, "System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT", 44));
	diag_agent_report_release(&r);
}

Test(diag_agent, the_faulting_wave_is_the_suspect_not_a_running_one_printed_first)
{
	struct diag_agent_report r;
	const struct diag_agent_wave *w;

	parse_sample("all_waves.txt", &r);
	cr_assert_eq(r.waves, 2);
	cr_assert_eq(r.stopped, 1);
	cr_assert_null(r.wave[0].reason);
	cr_assert_null(r.wave[0].kernel_entry, "\"not available\" is no address");
	w = diag_agent_suspect(&r);
	cr_assert_str_eq(w->id, "wave_4");
	cr_assert_str_eq(w->reason, "WATCHPOINT|MEMORY_VIOLATION");
	cr_assert_null(w->kernel, "no symbol: neither the entry nor the disassembly names one");
	cr_assert_str_eq(w->instruction, "flat_load_dword v1, v[2:3]");
	diag_agent_report_release(&r);
}

Test(diag_agent, byte_by_byte_feeding_gives_the_same_report)
{
	struct diag_agent_report whole, bytes;
	struct diag_agent_parser p;
	size_t len;
	char *buf = diag_sample("diag_agent", "memory_violation.txt", &len);

	diag_agent_report_init(&whole);
	diag_agent_parse(&whole, buf, len);
	diag_agent_report_init(&bytes);
	diag_agent_parser_init(&p, &bytes);
	for (size_t i = 0; i < len; i++)
		diag_agent_feed(&p, buf + i, 1);
	diag_agent_finish(&p);
	cr_assert_str_eq(bytes.wave[0].kernel, whole.wave[0].kernel);
	cr_assert_str_eq(bytes.wave[0].instruction, whole.wave[0].instruction);
	cr_assert_eq(bytes.waves, whole.waves);
	diag_agent_report_release(&whole);
	diag_agent_report_release(&bytes);
	free(buf);
}

Test(diag_agent, a_huge_name_is_cut_and_more_waves_than_kept_are_counted)
{
	struct strbuf log = STRBUF_INIT;
	struct diag_agent_report r;

	strbuf_addstr(&log, "wave_1: pc=0x10 (kernel_code_entry=0x10 <");
	for (int i = 0; i < 100000; i++)
		strbuf_addch(&log, 'k');
	strbuf_addstr(&log, ">) (stopped, reason: ASSERT_TRAP)\n");
	for (int i = 2; i < DIAG_AGENT_MAX_WAVES + 10; i++)
		strbuf_addf(&log, "wave_%d: pc=0x%x (kernel_code_entry=0x10 <k>) (stopped, reason: "
				  "MEMORY_VIOLATION)\n", i, i);
	diag_agent_report_init(&r);
	diag_agent_parse(&r, log.buf, log.len);
	cr_assert_eq(r.waves, DIAG_AGENT_MAX_WAVES + 9);
	cr_assert_eq(r.n_detail, DIAG_AGENT_MAX_WAVES);
	cr_assert_null(r.wave[0].kernel, "the cut line lost the entry's closing >)");
	cr_assert_str_eq(r.wave[0].reason == NULL ? "none" : "reason", "none");
	cr_assert_str_eq(diag_agent_suspect(&r)->id, "wave_2");
	diag_agent_report_release(&r);
	strbuf_release(&log);
}

Test(diag_agent, saved_names_follow_the_agent_and_accept_an_ordinal_prefix)
{
	const char *uri = "memory://2188702#offset=0x546c3060&size=4026672";
	char *name = diag_agent_saved_name(uri);

	cr_assert_str_eq(name, "memory___2188702_offset_0x546c3060_size_4026672");
	cr_assert(diag_agent_saved_name_matches(name, uri));
	cr_assert(diag_agent_saved_name_matches("7_memory___2188702_offset_0x546c3060_size_4026672", uri));
	cr_assert(!diag_agent_saved_name_matches("7_memory___2188702_offset_0x546c3060_size_1", uri));
	cr_assert(!diag_agent_saved_name_matches("x_memory___2188702_offset_0x546c3060_size_4026672", uri));
	free(name);
	name = diag_agent_saved_name("file:///rocm-debug-agent/rocm-debug-agent-test#offset=14309&size=31336");
	cr_assert_str_eq(name, "file____rocm-debug-agent_rocm-debug-agent-test_offset_14309_size_31336");
	free(name);
}

Test(diag_agent, text_without_a_report_gives_no_suspect)
{
	struct diag_agent_report r;
	const char *log = "[HRR] replay start\nMemory access fault by GPU node-2 (Agent handle: "
			  "0x5) on address 0x7f00. Reason: Unknown.\n";

	diag_agent_report_init(&r);
	diag_agent_parse(&r, log, strlen(log));
	cr_assert_null(diag_agent_suspect(&r));
	cr_assert_eq(r.waves, 0);
	cr_assert(!strncmp(r.event, "Memory access fault by GPU node-2", 33));
	diag_agent_report_release(&r);
}
