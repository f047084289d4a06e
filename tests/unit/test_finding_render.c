/* finding.json has exactly the keys and types of docs/findings.md; finding.md
 * prints zeros as 0 and unknowns as n/a. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/finding_json.h"
#include "orchestrator/finding/known_issues.h"
#include "preflight/preflight.h"
#include "tests/support/finding_samples.h"

/* The triage workflow's keys in its order, then ours; 's' string, 'i'
 * integer, 'a' array of strings, 'o' object, with a nullable flag. */
static const struct {
	const char *key;
	char type;
} keys[] = {
	{ "outcome", 's' }, { "fault_class", 's' }, { "classifier_version", 'i' },
	{ "fault_address", 's' },
	{ "fault_reason", 's' }, { "failing_event_seq", 'i' }, { "failing_call_index", 'i' },
	{ "failing_thread", 'i' }, { "failing_api", 's' }, { "kernel_name", 's' },
	{ "kernel_family", 's' }, { "kernarg_address", 's' }, { "grid", 's' },
	{ "workgroup", 's' }, { "gpu_node", 's' }, { "replay_signal", 'i' },
	{ "last_progress_kernel", 's' }, { "last_event_kernel", 's' }, { "kernels_launched", 'i' },
	{ "d2h_pass", 'i' }, { "d2h_fail", 'i' }, { "d2h_attempted", 'i' },
	{ "archive_events", 'i' }, { "archive_kernels", 'i' }, { "archive_kernel_names", 'a' },
	{ "archive_complete", 's' }, { "archive_recovered_events", 'i' },
	{ "archive_format_version", 'i' },
	{ "reader_format_version", 'i' }, { "capture_hip_so", 's' },
	{ "capture_hip_runtime_version", 's' }, { "capture_comgr_version", 's' },
	{ "capture_device_count", 'i' }, { "capture_gcn_arch", 's' }, { "sources", 'a' },
	{ "notes", 'a' }, { "labels", 'a' }, { "signature", 'o' }, { "known", 'o' },
	{ "d2h_failures", 'A' }, { "unread_evidence", 'A' },
	{ "gpu_time_ms", 'o' }, { "placement", 'o' }, { "runtime_libraries", 'a' },
	{ "playback_flags_unknown", 'a' },
	{ "preflight", 'o' },
};

static void check_type(const cJSON *v, char type, const char *key)
{
	if (cJSON_IsNull(v)) {
		cr_assert(type != 'a' && type != 'A', "%s: a list is [] when empty, never null", key);
		return;
	}
	switch (type) {
	case 's':
		cr_assert(cJSON_IsString(v), "%s is not a string", key);
		break;
	case 'i':
		cr_assert(cJSON_IsNumber(v), "%s is not a number", key);
		cr_assert_eq(v->valuedouble, (double)(long long)v->valuedouble, "%s is not an integer", key);
		break;
	case 'a':
		cr_assert(cJSON_IsArray(v), "%s is not an array", key);
		for (const cJSON *e = v->child; e; e = e->next)
			cr_assert(cJSON_IsString(e), "%s holds a non-string", key);
		break;
	case 'A':
		cr_assert(cJSON_IsArray(v), "%s is not an array", key);
		break;
	case 'o':
		cr_assert(cJSON_IsObject(v), "%s is not an object", key);
		break;
	}
}

static void check_keys(const cJSON *j, bool with_run)
{
	size_t n = sizeof(keys) / sizeof(keys[0]);
	const cJSON *e = j->child;

	for (size_t i = 0; i < n; i++, e = e->next) {
		cr_assert_not_null(e, "missing key %s", keys[i].key);
		cr_assert_str_eq(e->string, keys[i].key, "key %zu", i);
		check_type(e, keys[i].type, keys[i].key);
	}
	if (with_run) {
		cr_assert_not_null(e);
		cr_assert_str_eq(e->string, "run");
		e = e->next;
	}
	cr_assert_null(e, "unexpected key %s", e ? e->string : "");
}

Test(finding_render, json_keys_and_types_for_every_sample)
{
	static const char *const names[] = {
		"pass_zero_kernels.log", "maf_read_only_sk3.log", "fail_d2h.log", "crash_no_verdict.log",
		"empty.log", "info_single_kernel.log", "watchdog_hang.log", "version_mismatch.log",
		"huge_counts.log",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct finding f;
		cJSON *j;

		fs_analyze_sample(names[i], &f);
		j = finding_to_json(&f, NULL);
		check_keys(j, false);
		cJSON_Delete(j);
		finding_release(&f);
	}
}

Test(finding_render, json_values_as_the_triage_workflow_writes_them)
{
	struct finding f;
	cleanup_cjson cJSON *j = NULL;

	fs_analyze_sample("maf_read_only_sk3.log", &f);
	f.archive_complete = 0;
	j = finding_to_json(&f, NULL);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "outcome")->valuestring, "MAF");
	cr_assert_str_eq(cJSON_GetObjectItem(j, "fault_address")->valuestring, "0x7f91da000000");
	cr_assert_str_eq(cJSON_GetObjectItem(j, "gpu_node")->valuestring, "2");
	cr_assert_eq(cJSON_GetObjectItem(j, "classifier_version")->valueint, 5,
		     "the rules' version, for a sweep's reclassified");
	cr_assert_str_eq(cJSON_GetObjectItem(j, "archive_complete")->valuestring, "no");
	cr_assert_eq(cJSON_GetObjectItem(j, "kernels_launched")->valueint, 41);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "failing_call_index")));
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "preflight")), "no preflight in analyze");
	cr_assert_null(cJSON_GetObjectItem(j, "run"), "no run in analyze");
	finding_release(&f);
}

Test(finding_render, json_zero_is_a_value)
{
	struct finding f;
	cleanup_cjson cJSON *j = NULL;
	const cJSON *k;

	fs_analyze_sample("pass_zero_kernels.log", &f);
	j = finding_to_json(&f, NULL);
	k = cJSON_GetObjectItem(j, "kernels_launched");
	cr_assert(cJSON_IsNumber(k) && k->valueint == 0);
	k = cJSON_GetObjectItem(j, "d2h_attempted");
	cr_assert(cJSON_IsNumber(k) && k->valueint == 0);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "gpu_time_ms")), "not printed: null");
	cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "labels"), 0)->valuestring, "CLEAN");
	finding_release(&f);
}

Test(finding_render, json_d2h_failures_and_gpu_times)
{
	struct finding f;
	cleanup_cjson cJSON *j = NULL;
	const cJSON *arr, *d, *t;

	fs_analyze_sample("fail_d2h.log", &f);
	j = finding_to_json(&f, NULL);
	arr = cJSON_GetObjectItem(j, "d2h_failures");
	cr_assert_eq(cJSON_GetArraySize(arr), 3);
	d = cJSON_GetArrayItem(arr, 0);
	cr_assert_str_eq(cJSON_GetObjectItem(d, "tag")->valuestring, "DtoH");
	cr_assert_eq(cJSON_GetObjectItem(d, "seq")->valueint, 1207);
	cr_assert_eq(cJSON_GetObjectItem(d, "bytes")->valueint, 4194304);
	cr_assert_eq(cJSON_GetObjectItem(d, "bytes_differ")->valueint, 8192);
	cr_assert_float_eq(cJSON_GetObjectItem(d, "max_abs")->valuedouble, 3.125, 1e-12);
	cr_assert_float_eq(cJSON_GetObjectItem(d, "max_rel")->valuedouble, 0.4871, 1e-12);
	d = cJSON_GetArrayItem(arr, 1);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(d, "max_abs")), "exact line: no max");
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(d, "max_rel")));
	d = cJSON_GetArrayItem(arr, 2);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(d, "tag")));
	cr_assert_str_eq(cJSON_GetObjectItem(d, "src")->valuestring, "0x7f3a1c200000");
	t = cJSON_GetObjectItem(j, "gpu_time_ms");
	cr_assert(cJSON_IsObject(t));
	cr_assert_float_eq(cJSON_GetObjectItem(t, "kernel")->valuedouble, 1840.2, 1e-9);
	cr_assert_float_eq(cJSON_GetObjectItem(t, "graph")->valuedouble, 0.0, 1e-9);
	cr_assert_float_eq(cJSON_GetObjectItem(t, "total")->valuedouble, 1840.2, 1e-9);
	finding_release(&f);
}

Test(finding_render, json_nan_max_is_null)
{
	struct finding f;
	cleanup_free char *s = NULL;
	cleanup_cjson cJSON *back = NULL;

	fs_analyze_sample("diverged.log", &f);
	s = fs_json(&f, NULL);
	cr_assert(strstr(s, "\"max_abs\":null,\"max_rel\":null"), "%s", s);
	cr_assert_null(strstr(s, ":nan"), "%s", s);
	back = cJSON_Parse(s);
	cr_assert_not_null(back, "valid JSON: %s", s);
	finding_release(&f);
}

Test(finding_render, json_run_and_preflight)
{
	struct finding f;
	struct preflight_report r;
	static const int gpus[] = { 2, 3 };
	struct finding_run run = {
		.image = "hrr-sim:dev", .image_id = "sha256:abc", .image_digest = NULL,
		.container_id = "c0ffee", .gpus = gpus, .n_gpus = 2, .devices = "cdi", .exit_code = 134,
		.ended_by = ENDED_EXIT, .signal = -1, .wall_s = 12.5, .log = "/w/replay.log", .run_dir = "/w",
	};
	struct finding_context ctx = { .archive_name = "pid-7", .run = &run, .preflight = &r };
	cleanup_cjson cJSON *j = NULL;
	const cJSON *o, *p;

	preflight_report_init(&r);
	r.verdict = PREFLIGHT_WARN;
	strvec_push(&r.warnings, "arch mismatch on device 0");
	fs_analyze_sample("maf_then_signal.log", &f);
	j = finding_to_json(&f, &ctx);
	check_keys(j, true);
	o = cJSON_GetObjectItem(j, "run");
	cr_assert_str_eq(cJSON_GetObjectItem(o, "image")->valuestring, "hrr-sim:dev");
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "image_digest")));
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "gpus")), 2);
	cr_assert_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "gpus"), 1)->valueint, 3);
	cr_assert_str_eq(cJSON_GetObjectItem(o, "devices")->valuestring, "cdi");
	cr_assert_eq(cJSON_GetObjectItem(o, "exit_code")->valueint, 134);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "signal")));
	cr_assert_float_eq(cJSON_GetObjectItem(o, "wall_s")->valuedouble, 12.5, 1e-12);
	p = cJSON_GetObjectItem(j, "preflight");
	cr_assert(cJSON_IsObject(p));
	cr_assert_str_eq(cJSON_GetObjectItem(p, "verdict")->valuestring, "WARN");
	finding_release(&f);
	preflight_report_release(&r);
}

/* ---- markdown ---- */

static void render(const char *sample, const struct finding_context *ctx, struct strbuf *md)
{
	struct finding f;

	fs_analyze_sample(sample, &f);
	finding_render_markdown(&f, ctx, md);
	finding_release(&f);
}

Test(finding_render, markdown_zero_is_0)
{
	struct strbuf md = STRBUF_INIT;
	struct finding_context ctx = { .archive_name = "pid-4242" };

	render("pass_zero_kernels.log", &ctx, &md);
	cr_assert(strstr(md.buf, "## HRR Triage — pid-4242\n"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Outcome | **PASS** |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "### Replay result"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Kernels launched | 0 |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| D2H pass | 0 |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| D2H fail | 0 |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| D2H attempted | 0 |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Kernels (archive) | 0 |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Kernel GPU time | n/a |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Labels | CLEAN |"), "%s", md.buf);
	cr_assert_null(strstr(md.buf, "### Fault details"), "a PASS has no fault to detail");
	strbuf_release(&md);
}

Test(finding_render, markdown_unknown_is_na_never_0)
{
	struct strbuf md = STRBUF_INIT;

	render("version_mismatch.log", NULL, &md);
	cr_assert(strstr(md.buf, "## HRR Triage — unknown archive\n"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Fault class | `version_mismatch` |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Kernels launched | n/a |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| D2H pass | n/a |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Failing event seq | n/a |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Kernel | n/a |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Archive / reader format | 9 / 8 |"), "%s", md.buf);
	cr_assert_null(strstr(md.buf, "| 0 |"), "%s", md.buf);
	strbuf_release(&md);
}

Test(finding_render, markdown_says_unknown_explicitly)
{
	struct strbuf md = STRBUF_INIT;

	render("unknown_start_only.log", NULL, &md);
	cr_assert(strstr(md.buf, "| Outcome | **UNKNOWN** |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "**Fault class unknown**: not enough signal"), "%s", md.buf);
	strbuf_release(&md);
}

Test(finding_render, markdown_fault_details_and_d2h_table)
{
	struct strbuf md = STRBUF_INIT;

	render("maf_read_only_sk3.log", NULL, &md);
	cr_assert(strstr(md.buf, "| Fault class | `read_only_page_fault` |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Fault address | `0x7f91da000000` |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Fault reason | Write access to a read-only page |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| GPU node | 2 |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Kernel family | `hipblaslt_gemm/Alik_Bljk/BBS_BH/MT256x256x64/MI16x16x1/streamk` |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "### Progress at fault"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Kernels launched | 41 |"), "%s", md.buf);
	strbuf_reset(&md);

	render("fail_d2h.log", NULL, &md);
	cr_assert(strstr(md.buf, "### D2H failures"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| 1 | `DtoH` | 1207 | 4194304 | 8192 | 3.125 | 0.4871 |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| 2 | `DtoHAsync` | 1311 | 65536 | 12 | n/a | n/a |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| 3 | validate: src `0x7f3a1c200000` not mapped | n/a | n/a | n/a | n/a | n/a |"),
		  "%s", md.buf);
	cr_assert(strstr(md.buf, "| Labels | D2H-FAIL |"), "%s", md.buf);
	strbuf_release(&md);
}

Test(finding_render, markdown_escapes_table_cells)
{
	struct finding f;
	struct strbuf md = STRBUF_INIT;

	finding_init(&f);
	f.outcome = OUTCOME_MAF;
	f.fault_class = FAULT_ILLEGAL_MEMORY_ACCESS;
	f.kernel_name = strdup("void k<a|b>(int`)");
	finding_finalize(&f, NULL);
	finding_render_markdown(&f, NULL, &md);
	cr_assert(strstr(md.buf, "| Kernel | `` void k<a\\|b>(int`) `` |"), "%s", md.buf);
	finding_release(&f);
	strbuf_release(&md);
}

/* The rows a replay or a rule writes into: markdown and HTML stay text. */
Test(finding_render, markdown_known_issue_and_fault_reason_rows_are_text)
{
	struct finding f;
	struct strbuf md = STRBUF_INIT;
	struct known_rule k = { .id = "BUG-1", .owner = "<b>team</b>",
				.link = "[x](javascript:alert(1))", .note = "![](http://evil/p.png)" };
	struct finding_context ctx = { .archive_name = "pid-1", .known_checked = true, .known = &k };

	finding_init(&f);
	f.outcome = OUTCOME_MAF;
	f.fault_class = FAULT_ILLEGAL_MEMORY_ACCESS;
	f.kernel_name = strdup("k");
	f.fault_reason = strdup("<img src=x onerror=alert(1)> [y](javascript:z)");
	finding_finalize(&f, NULL);
	finding_render_markdown(&f, &ctx, &md);
	cr_assert(strstr(md.buf, "| Known issue | `BUG-1`, owner \\<b\\>team\\</b\\>: "
				 "\\[x\\]\\(javascript:alert\\(1\\)\\) "
				 "(\\!\\[\\]\\(http://evil/p.png\\)) |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Fault reason | \\<img src=x onerror=alert\\(1\\)\\> "
				 "\\[y\\]\\(javascript:z\\) |"), "%s", md.buf);
	finding_release(&f);
	strbuf_release(&md);
}

Test(finding_render, markdown_preflight_run_sources_notes)
{
	struct strbuf md = STRBUF_INIT;
	struct preflight_report r;
	static const int gpus[] = { 1 };
	struct finding_run run = { .image = "hrr-sim:dev", .gpus = gpus, .n_gpus = 1, .exit_code = 0,
				   .ended_by = ENDED_EXIT, .signal = -1, .wall_s = 0.0 };
	struct finding_context ctx = { .archive_name = "pid-1", .preflight = &r, .run = &run };

	preflight_report_init(&r);
	r.verdict = PREFLIGHT_CONFIRM;
	strvec_push(&r.confirms, "HIP version mismatch: capture 7.13.0, replay 7.15.0");
	render("crash_no_verdict.log", &ctx, &md);
	cr_assert(strstr(md.buf, "### Preflight\n\n**Verdict:** CONFIRM\n\n- CONFIRM: HIP version mismatch"),
		  "%s", md.buf);
	cr_assert(strstr(md.buf, "| Exit code | 0 |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| Wall time | 0.0 s |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| GPUs (host ordinals) | 1 |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "### Sources\n\n- `crash_no_verdict.log`\n"), "%s", md.buf);
	cr_assert(strstr(md.buf, "### Notes\n\n- the replay process died by signal 11"), "%s", md.buf);
	strbuf_release(&md);
	preflight_report_release(&r);
}
