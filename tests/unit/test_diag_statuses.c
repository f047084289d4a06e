/* What a diagnosis may claim: a debugger that never ran, one
 * that ran without attaching, the agent's SIGQUIT dump of a hang, both
 * agent generations' lines and ROCgdb's target ids. The strings are the
 * ones docs/formats.md quotes. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/diagnosis/diag_agent.h"
#include "orchestrator/diagnosis/diag_mi.h"
#include "orchestrator/diagnosis/diagnosis.h"
#include "orchestrator/diagnosis/diagnosis_json.h"

#define LIBPYTHON                                                                             \
	"/opt/rocm/bin/rocgdb: error while loading shared libraries: libpython3.12.so.1.0: "  \
	"cannot open shared object file: No such file or directory"

static void rocgdb_says(struct diagnosis *d, const char *transcript, int exit_status,
			const char *stderr_last)
{
	struct diag_mi_result r;

	diag_mi_result_init(&r);
	diag_mi_parse(&r, transcript, strlen(transcript));
	diagnosis_init(d, DIAGNOSIS_ROCGDB);
	d->tool_exit = exit_status;
	d->tool_stderr = stderr_last ? strdup(stderr_last) : NULL;
	diagnosis_from_rocgdb(d, &r);
	diag_mi_result_release(&r);
}

Test(diag_statuses, a_rocgdb_without_its_libpython_did_not_run)
{
	struct diagnosis d;
	cJSON *j;

	rocgdb_says(&d, LIBPYTHON "\n", 127, LIBPYTHON);
	cr_assert_eq(d.status, DIAGNOSIS_NOT_RUN, "%s", d.summary);
	cr_assert(strstr(d.summary, "exit status 127"), "%s", d.summary);
	cr_assert(strstr(d.summary, "libpython3.12.so.1.0"), "%s", d.summary);
	cr_assert(!strstr(d.summary, "attached"), "nothing attached: %s", d.summary);
	j = diagnosis_to_json(&d);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "status")->valuestring, "not-run");
	cr_assert_eq(cJSON_GetObjectItem(j, "exit_status")->valueint, 127);
	cr_assert(strstr(cJSON_GetObjectItem(j, "stderr")->valuestring, "libpython"));
	cJSON_Delete(j);
	diagnosis_release(&d);
}

Test(diag_statuses, a_rocgdb_that_printed_tables_but_no_attach_record_did_not_attach)
{
	struct diagnosis d;

	rocgdb_says(&d, "^done,agents=[]\n^done,dispatches=[]\n^done,threads=[]\n", 0, NULL);
	cr_assert_eq(d.status, DIAGNOSIS_NOT_ATTACHED, "%s", d.summary);
	cr_assert(strstr(d.summary, "no MI record"), "%s", d.summary);
	diagnosis_release(&d);
}

Test(diag_statuses, only_an_attach_record_says_attached)
{
	struct diagnosis d;

	rocgdb_says(&d, "=thread-group-started,id=\"i1\",pid=\"42\"\n^done,dispatches=[]\n", 0, NULL);
	cr_assert_eq(d.status, DIAGNOSIS_OK);
	cr_assert_str_eq(d.summary, "rocgdb attached and found no dispatch in flight");
	diagnosis_release(&d);
}

Test(diag_statuses, a_wave_without_a_dispatch_still_names_its_kernel)
{
	struct diagnosis d;

	rocgdb_says(&d,
		    "^done,threads=[{id=\"1\",target-id=\"Thread 0x7f (LWP 42)\",state=\"stopped\"},"
		    "{id=\"2\",target-id=\"AMDGPU Wave 1:2:?:1 (?,?,?)/?\",frame={level=\"0\","
		    "addr=\"0x7f20f5e41040\",func=\"spin_kernel(int*)\",args=[]},state=\"stopped\"}]\n"
		    "^done,dispatches=[]\n",
		    0, NULL);
	cr_assert_eq(d.status, DIAGNOSIS_OK, "%s", d.summary);
	cr_assert_str_eq(d.kernel, "spin_kernel(int*)");
	cr_assert_str_eq(d.kernel_from, "wave");
	diagnosis_release(&d);
}

Test(diag_statuses, rocgdbs_target_ids_parse_with_unknown_fields)
{
	struct diag_target_id t;

	cr_assert(diag_mi_target_id_parse("AMDGPU Wave 1:2:1:1 (0,0,0)/0", &t));
	cr_assert_eq(t.kind, DIAG_TARGET_WAVE);
	cr_assert_eq(t.path[1], 2);
	cr_assert_eq(t.path[2], 1);
	cr_assert_eq(t.lane, 0);
	cr_assert(diag_mi_target_id_parse("AMDGPU Dispatch 1:2:1 (PKID 0)", &t));
	cr_assert_eq(t.kind, DIAG_TARGET_DISPATCH);
	cr_assert_eq(t.extra, 0);
	cr_assert(diag_mi_target_id_parse("AMDGPU Queue 1:2 (QID 0)", &t));
	cr_assert_eq(t.kind, DIAG_TARGET_QUEUE);
	cr_assert(diag_mi_target_id_parse("AMDGPU Agent (GPUID 35090)", &t));
	cr_assert_eq(t.kind, DIAG_TARGET_AGENT);
	cr_assert_eq(t.extra, 35090);
	cr_assert(diag_mi_target_id_parse("AMDGPU Wave 1:2:?:1 (?,?,?)/?", &t), "no dispatch");
	cr_assert_eq(t.path[2], -1);
	cr_assert_eq(t.work_group[0], -1);
	cr_assert_eq(t.lane, -1);
	cr_assert(diag_mi_target_id_parse("AMDGPU Dispatch 1:?:? (PKID ?)", &t));
	cr_assert(!diag_mi_target_id_parse("AMDGPU Wave 1:2", &t));
	cr_assert(!diag_mi_target_id_parse("Thread 0x7f (LWP 42)", &t));
}

#define ROCM7_WAVE                                                                              \
	"wave_249: pc=0x7ff734dcbf3c (kernel_code_entry=0x7ff736b8c040 <spin_kernel(int*)>, "    \
	"kernargs=0x7ffb61f00000) (running)\n"

static void parse(struct diag_agent_report *r, const char *text)
{
	diag_agent_report_init(r);
	diag_agent_parse(r, text, strlen(text));
}

Test(diag_statuses, the_sigquit_dump_names_the_running_waves_kernel)
{
	struct diag_agent_report r;
	struct diagnosis d;

	parse(&r, "--------------------------------------------------------\n" ROCM7_WAVE
		  "\nsystem registers:\n    m0: 00000000\n\nLocal memory content (64 bytes):\n"
		  "    0x0000: 00000000 00000000\n\nGlobal memory (kernarg segment, 16 bytes):\n"
		  "    0x7ffb61f00000: 00000000 00000000\n\nDisassembly for function spin_kernel(int*):\n"
		  "    code object: memory://42#offset=0x7ff736b8c040&size=4096\n"
		  "    loaded at: [0x7ff734000000-0x7ff736b0a4e8]\n"
		  " => 0x7ff734dcbf3c <+7484>:    s_sleep 1\n\nEnd of disassembly.\n"
		  "wave_250: pc=0x7ff734dcbf40 (kernel_code_entry=not available) (running)\n");
	cr_assert_eq(r.waves, 2);
	cr_assert_str_eq(r.wave[0].kernargs, "0x7ffb61f00000");
	cr_assert_str_eq(r.wave[0].kernel, "spin_kernel(int*)");
	cr_assert(r.end_of_disassembly);
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent_quit(&d, &r, true, 137);
	cr_assert_eq(d.status, DIAGNOSIS_OK, "%s", d.summary);
	cr_assert_str_eq(d.kernel, "spin_kernel(int*)");
	cr_assert_eq(d.running, 2);
	cr_assert(strstr(d.summary, "2 running"), "%s", d.summary);
	cr_assert_eq(d.notes.n, 2);
	cr_assert(strstr(d.notes.v[0], "wave_249 running at pc=0x7ff734dcbf3c in spin_kernel"));
	{
		struct strbuf md = STRBUF_INIT;

		diagnosis_render_markdown(&d, &md);
		cr_assert(strstr(md.buf, "| Seen | SIGQUIT: 2 wave(s) on the GPU (2 running, 0 stopped)"),
			  "%s", md.buf);
		strbuf_release(&md);
	}
	diagnosis_release(&d);
	diag_agent_report_release(&r);
}

Test(diag_statuses, a_replay_killed_by_sigquit_had_no_agent_and_a_silent_one_survived)
{
	struct diag_agent_report r;
	struct diagnosis d;

	parse(&r, "[HRR progress] seq=3\n");
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent_quit(&d, &r, true, 131);
	cr_assert_eq(d.status, DIAGNOSIS_AGENT_NOT_LOADED);
	cr_assert_str_eq(diagnosis_status_name(d.status), "agent-not-loaded");
	diagnosis_release(&d);
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent_quit(&d, &r, true, 143);
	cr_assert_eq(d.status, DIAGNOSIS_AGENT_SILENT);
	cr_assert_str_eq(diagnosis_status_name(d.status), "agent-silent");
	diagnosis_release(&d);
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent_quit(&d, &r, false, 0);
	cr_assert_eq(d.status, DIAGNOSIS_NOT_RUN, "no SIGQUIT was sent");
	diagnosis_release(&d);
	diag_agent_report_release(&r);
}

Test(diag_statuses, the_old_agents_report_parses_with_its_event_and_page)
{
	struct diag_agent_report r;
	const struct diag_agent_wave *w;

	parse(&r, "System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT)\nFaulting page: 0x7f3ade000000\n"
		  "--------------------------------------------------------\n"
		  "wave_0: pc=0x7f3ae0a01234 (stopped, reason: MEMORY_VIOLATION)\n"
		  "wave_1: pc=0x7f3ae0a01238 (stopped, reason: ADDRESS_ERROR)\n");
	cr_assert_str_eq(r.faulting_page, "0x7f3ade000000");
	cr_assert_str_eq(r.event, "System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT)");
	w = diag_agent_suspect(&r);
	cr_assert_str_eq(w->reason, "MEMORY_VIOLATION");
	cr_assert_str_eq(r.wave[1].reason, "ADDRESS_ERROR");
	cr_assert_eq(r.stopped, 2);
	diag_agent_report_release(&r);
}

/* A GPU Hang rerun: the dump when SIGQUIT went out inside the silence;
 * otherwise what the log proves, and no more. */
Test(diag_statuses, a_gpu_hang_rerun_names_the_dumped_waves_or_says_why_there_are_none)
{
	struct diag_agent_report r;
	struct diagnosis d;

	parse(&r, "[HRR] Event 3: hipModuleLaunchKernel -> Kernel 'spin_kernel(int*)'\n"
		  "--------------------------------------------------------\n" ROCM7_WAVE);
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent_gpu_hang(&d, &r, true, 143, 2);
	cr_assert_eq(d.status, DIAGNOSIS_OK, "%s", d.summary);
	cr_assert(strstr(d.summary, "SIGQUIT: 1 wave(s) on the GPU (1 running"), "%s", d.summary);
	cr_assert_str_eq(d.kernel, "spin_kernel(int*)");
	cr_assert(strstr(d.notes.v[d.notes.n - 1], "after 2 s of silence"), "%s",
		  d.notes.v[d.notes.n - 1]);
	diagnosis_release(&d);
	diag_agent_report_release(&r);

	/* The driver fired first: ROCr's line again, no wave, no SIGQUIT. */
	parse(&r, "[HRR progress] seq=3\n"
		  "HW Exception by GPU node-1 (Agent handle: 0x12e78350) reason :GPU Hang\n");
	cr_assert_str_eq(r.hw_exception,
			 "HW Exception by GPU node-1 (Agent handle: 0x12e78350) reason :GPU Hang");
	cr_assert_null(r.event, "ROCr's line is not the agent's");
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent_gpu_hang(&d, &r, false, 134, 2);
	cr_assert_eq(d.status, DIAGNOSIS_NOT_RUN);
	cr_assert(strstr(d.summary, "GPU Hang recurred"), "%s", d.summary);
	cr_assert_eq(d.tool_exit, 134);
	diagnosis_release(&d);
	diag_agent_report_release(&r);

	/* No hang at all under the agent. */
	parse(&r, "[HRR] Replay complete\n");
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent_gpu_hang(&d, &r, false, 0, 2);
	cr_assert_eq(d.status, DIAGNOSIS_NOT_RUN);
	cr_assert(strstr(d.summary, "without a GPU Hang"), "%s", d.summary);
	diagnosis_release(&d);
	diag_agent_report_release(&r);

	/* A SIGQUIT the replay died of: no agent. */
	parse(&r, "[HRR progress] seq=3\n");
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent_gpu_hang(&d, &r, true, 131, 2);
	cr_assert_eq(d.status, DIAGNOSIS_AGENT_NOT_LOADED);
	diagnosis_release(&d);
	diag_agent_report_release(&r);
}
