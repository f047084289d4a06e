/* orchestrator/diagnosis/diagnosis: the model, its JSON and its markdown section. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "orchestrator/diagnosis/diagnosis.h"
#include "orchestrator/diagnosis/diagnosis_json.h"
#include "tests/support/diag_samples.h"

static void from_agent_sample(struct diagnosis *d, const char *name)
{
	struct diag_agent_report r;
	size_t len;
	char *buf = diag_sample("diag_agent", name, &len);

	diag_agent_report_init(&r);
	diag_agent_parse(&r, buf, len);
	diagnosis_init(d, DIAGNOSIS_AGENT);
	diagnosis_from_agent(d, &r);
	diag_agent_report_release(&r);
	free(buf);
}

static void from_mi_text(struct diagnosis *d, const char *text)
{
	struct diag_mi_result r;

	diag_mi_result_init(&r);
	diag_mi_parse(&r, text, strlen(text));
	diagnosis_init(d, DIAGNOSIS_ROCGDB);
	diagnosis_from_rocgdb(d, &r);
	diag_mi_result_release(&r);
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

Test(diagnosis, an_agent_report_gives_kernel_reason_pc_instruction_and_code_object)
{
	struct diagnosis d;
	cJSON *j;

	from_agent_sample(&d, "memory_violation.txt");
	j = diagnosis_to_json(&d);
	cr_assert_str_eq(jstr(j, "tool"), "rocm-debug-agent");
	cr_assert_str_eq(jstr(j, "status"), "ok");
	cr_assert(!strncmp(jstr(j, "kernel"), "void at::native::index_copy_kernel_impl<", 40));
	cr_assert_str_eq(jstr(j, "kernel_from"), "wave report");
	cr_assert_str_eq(jstr(j, "reason"), "MEMORY_VIOLATION");
	cr_assert_str_eq(jstr(j, "pc"), "0x7f20f5e534c4");
	cr_assert_str_eq(jstr(j, "instruction"), "global_store_dword v[2:3], v1, off");
	cr_assert_eq(cJSON_GetObjectItem(j, "waves")->valueint, 1);
	cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "code_objects"), 0)->valuestring,
			 "memory://2188702#offset=0x546c3060&size=4026672");
	cr_assert(strstr(jstr(j, "explanation"), "Tensor.index_copy_"));
	cr_assert(strstr(jstr(j, "explanation"), "4-byte elements"));
	cr_assert(strstr(jstr(j, "caveat"), "not the root cause"));
	cJSON_Delete(j);
	diagnosis_release(&d);
}

Test(diagnosis, an_assert_trap_in_an_aten_index_kernel_is_explained_as_an_index_out_of_bounds)
{
	char *e = diagnosis_explain("void at::native::index_kernel_impl<at::native::OpaqueType<8> >"
				    "(at::TensorIteratorBase&, c10::ArrayRef<long>)",
				    "ASSERT_TRAP");

	cr_assert_not_null(e);
	cr_assert(strstr(e, "advanced-indexing read tensor[idx]"), "%s", e);
	cr_assert(strstr(e, "out of bounds"), "%s", e);
	cr_assert(strstr(e, "TORCH_USE_HIP_DSA=1"), "%s", e);
	free(e);
	e = diagnosis_explain("my_kernel(int*)", "ASSERT_TRAP");
	cr_assert(strstr(e, "device-side assert") && !strstr(e, "PyTorch"), "%s", e);
	free(e);
	e = diagnosis_explain("my_kernel(int*)", "ILLEGAL_INSTRUCTION");
	cr_assert(strstr(e, "corrupted code object"), "%s", e);
	free(e);
	cr_assert_null(diagnosis_explain("my_kernel(int*)", "in-flight dispatch"));
	cr_assert_null(diagnosis_explain(NULL, NULL));
}

Test(diagnosis, a_hang_transcript_gives_the_in_flight_dispatches)
{
	struct diagnosis d;
	struct strbuf md = STRBUF_INIT;
	size_t len;
	char *buf = diag_sample("diag_mi", "mi_session.txt", &len);
	cJSON *j, *disp;

	from_mi_text(&d, buf);
	j = diagnosis_to_json(&d);
	cr_assert_str_eq(jstr(j, "tool"), "rocgdb");
	cr_assert_str_eq(jstr(j, "reason"), "in-flight dispatch");
	cr_assert(!strncmp(jstr(j, "kernel"), "void at::native::index_kernel_impl<", 35));
	cr_assert_str_eq(jstr(j, "kernel_from"), "info dispatches");
	disp = cJSON_GetObjectItem(j, "dispatches");
	cr_assert_eq(cJSON_GetArraySize(disp), 2);
	cr_assert_str_eq(jstr(cJSON_GetArrayItem(disp, 1), "grid"), "[64,1,1]");
	diagnosis_render_markdown(&d, &md);
	cr_assert(strstr(md.buf, "### Diagnosis (rocgdb)"));
	cr_assert(strstr(md.buf, "| AMDGPU Dispatch 1:2:7 (PKID 6) | 1.2 | [4096,1,1] |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "2 dispatches in flight"));
	cJSON_Delete(j);
	strbuf_release(&md);
	diagnosis_release(&d);
	free(buf);
}

Test(diagnosis, an_attach_denial_fails_in_one_line_without_a_caveat)
{
	struct diagnosis d;
	struct strbuf md = STRBUF_INIT;
	cJSON *j;

	from_mi_text(&d, "Attaching to process 7\nptrace: Operation not permitted.\n");
	cr_assert_eq(d.status, DIAGNOSIS_NOT_ATTACHED);
	j = diagnosis_to_json(&d);
	cr_assert_str_eq(jstr(j, "status"), "not-attached");
	cr_assert_str_eq(jstr(j, "summary"), "rocgdb did not attach: ptrace: Operation not permitted.");
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "caveat")));
	diagnosis_render_markdown(&d, &md);
	cr_assert(strstr(md.buf, "**not-attached**: rocgdb did not attach"), "%s", md.buf);
	cr_assert(!strstr(md.buf, "| Field |"));
	cJSON_Delete(j);
	strbuf_release(&md);
	diagnosis_release(&d);
}

Test(diagnosis, not_available_and_timed_out_are_statuses_with_their_line)
{
	struct diagnosis d;
	struct strbuf md = STRBUF_INIT;

	diagnosis_init(&d, DIAGNOSIS_ROCGDB);
	diagnosis_set_status(&d, DIAGNOSIS_TIMED_OUT, "rocgdb did not answer within %d s", 3);
	diagnosis_render_markdown(&d, &md);
	cr_assert(strstr(md.buf, "**timed-out**: rocgdb did not answer within 3 s."), "%s", md.buf);
	diagnosis_release(&d);
	cr_assert_eq(d.tool, DIAGNOSIS_ROCGDB, "release keeps the tool");
	diagnosis_set_status(&d, DIAGNOSIS_NOT_AVAILABLE, "the image has no %s", "rocgdb");
	cr_assert_str_eq(diagnosis_status_name(d.status), "not-available");
	diagnosis_release(&d);
	strbuf_release(&md);
}

Test(diagnosis, names_from_the_archive_are_sanitised_in_json_and_markdown)
{
	struct diagnosis d;
	struct strbuf md = STRBUF_INIT;
	const char *log = "wave_9: pc=0x10 (kernel_code_entry=0x10 <evil\x1b[2J|`k`\x07>) "
			  "(stopped, reason: MEMORY_VIOLATION)\n";
	struct diag_agent_report r;
	cJSON *j;

	diag_agent_report_init(&r);
	diag_agent_parse(&r, log, strlen(log));
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent(&d, &r);
	diagnosis_add_file(&d, "diagnostics/agent.log");
	j = diagnosis_to_json(&d);
	cr_assert_str_eq(jstr(j, "kernel"), "evil|`k`\xef\xbf\xbd");
	diagnosis_render_markdown(&d, &md);
	cr_assert(!strchr(md.buf, '\x1b') && !strchr(md.buf, '\x07'));
	cr_assert(strstr(md.buf, "| Kernel | `` evil\\|`k`\xef\xbf\xbd `` |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "- `diagnostics/agent.log`"));
	cJSON_Delete(j);
	strbuf_release(&md);
	diagnosis_release(&d);
	diag_agent_report_release(&r);
}

Test(diagnosis, a_log_without_any_agent_output_says_the_agent_was_not_loaded)
{
	struct diag_agent_report r;
	struct diagnosis d;

	diag_agent_report_init(&r);
	diag_agent_parse(&r, "[HRR] nothing\n", 14);
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent(&d, &r);
	cr_assert_eq(d.status, DIAGNOSIS_AGENT_NOT_LOADED);
	cr_assert(strstr(d.summary, "no wave report"));
	diagnosis_release(&d);
	diag_agent_report_release(&r);
}
