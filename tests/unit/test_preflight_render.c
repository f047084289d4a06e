/* The report file and the finding's preflight object; version strings. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "preflight/preflight_json.h"
#include "preflight/stack_files.h"

static void fill(struct preflight_report *r)
{
	preflight_report_init(r);
	r->verdict = PREFLIGHT_BLOCK;
	strbuf_addstr(&r->capture_side, "HIP 7.13.0, comgr 2.8, 2 GPU(s) (gfx942, gfx942)");
	strbuf_addstr(&r->replay_side, "HIP 7.15.26291, comgr 2.8.60200; GPU(s) 0 of 1 (gfx942)");
	strbuf_addstr(&r->replay_source, "image rocm/vllm:latest (sha256:1234)");
	strvec_push(&r->blocks, "capture saw 2 GPU(s) but replay environment only exposes 1");
	strvec_push(&r->confirms, "HIP version mismatch: capture 7.13.0, replay 7.15.26291");
	strvec_push(&r->warnings, "arch mismatch on device 0: capture gfx942, replay GPU 0 is gfx90a");
	strvec_push(&r->notes, "ROCm release 7.15.0 (/opt/rocm/.info/version, context only)");
}

Test(preflight_render, markdown_has_every_part)
{
	struct preflight_report r;
	struct strbuf md = STRBUF_INIT;

	fill(&r);
	preflight_render_markdown(&r, &md);
	cr_assert(strstr(md.buf, "# Preflight\n"), "%s", md.buf);
	cr_assert(strstr(md.buf, "Verdict: **BLOCK**"), "%s", md.buf);
	cr_assert(strstr(md.buf, "- Capture: HIP 7.13.0, comgr 2.8, 2 GPU(s) (gfx942, gfx942)\n"));
	cr_assert(strstr(md.buf, "- Replay: HIP 7.15.26291, comgr 2.8.60200; GPU(s) 0 of 1 (gfx942)\n"));
	cr_assert(strstr(md.buf, "- Replay stack source: image rocm/vllm:latest (sha256:1234)\n"));
	cr_assert(strstr(md.buf, "## Blocks\n\n- capture saw 2 GPU(s) but replay environment only exposes 1\n"));
	cr_assert(strstr(md.buf, "## Confirmations\n\n- HIP version mismatch"));
	cr_assert(strstr(md.buf, "## Warnings\n\n- arch mismatch on device 0"));
	cr_assert(strstr(md.buf, "## Notes\n\n- ROCm release 7.15.0"));
	/* Sections in this order. */
	cr_assert(strstr(md.buf, "## Blocks") < strstr(md.buf, "## Confirmations"));
	cr_assert(strstr(md.buf, "## Confirmations") < strstr(md.buf, "## Warnings"));
	cr_assert(strstr(md.buf, "## Warnings") < strstr(md.buf, "## Notes"));
	strbuf_release(&md);
	preflight_report_release(&r);
}

Test(preflight_render, markdown_of_a_clean_run_says_none_and_confirm_says_how)
{
	struct preflight_report r;
	struct strbuf md = STRBUF_INIT;

	preflight_report_init(&r);
	preflight_render_markdown(&r, &md);
	cr_assert(strstr(md.buf, "Verdict: **OK**"));
	cr_assert(strstr(md.buf, "## Blocks\n\n- none\n"), "%s", md.buf);
	cr_assert(strstr(md.buf, "- Replay stack source: unknown\n"), "%s", md.buf);
	cr_assert_null(strstr(md.buf, "HRR_CONTINUE"));
	strbuf_reset(&md);
	r.verdict = PREFLIGHT_CONFIRM;
	preflight_render_markdown(&r, &md);
	cr_assert(strstr(md.buf, "re-run with `--yes` or `HRR_CONTINUE=1`"), "%s", md.buf);
	strbuf_release(&md);
	preflight_report_release(&r);
}

Test(preflight_render, json_has_verdict_and_prefixed_messages)
{
	struct preflight_report r;
	cJSON *j;
	const cJSON *msgs;
	char *text;

	fill(&r);
	j = preflight_to_json(&r);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "verdict")->valuestring, "BLOCK");
	msgs = cJSON_GetObjectItem(j, "messages");
	cr_assert(cJSON_IsArray(msgs));
	cr_assert_eq(cJSON_GetArraySize(msgs), 4);
	cr_assert_str_eq(cJSON_GetArrayItem(msgs, 0)->valuestring,
			 "BLOCK: capture saw 2 GPU(s) but replay environment only exposes 1");
	cr_assert_str_eq(cJSON_GetArrayItem(msgs, 1)->valuestring,
			 "CONFIRM: HIP version mismatch: capture 7.13.0, replay 7.15.26291");
	cr_assert(!strncmp(cJSON_GetArrayItem(msgs, 2)->valuestring, "WARN: arch mismatch", 19));
	cr_assert(!strncmp(cJSON_GetArrayItem(msgs, 3)->valuestring, "NOTE: ROCm release", 18));
	text = cJSON_PrintUnformatted(j);
	cr_assert(!strncmp(text, "{\"verdict\":\"BLOCK\",\"messages\":[", 31), "%s", text);
	free(text);
	cJSON_Delete(j);
	preflight_report_release(&r);
}

Test(preflight_render, verdict_names)
{
	cr_assert_str_eq(preflight_verdict_name(PREFLIGHT_OK), "OK");
	cr_assert_str_eq(preflight_verdict_name(PREFLIGHT_WARN), "WARN");
	cr_assert_str_eq(preflight_verdict_name(PREFLIGHT_CONFIRM), "CONFIRM");
	cr_assert_str_eq(preflight_verdict_name(PREFLIGHT_BLOCK), "BLOCK");
	cr_assert_str_eq(preflight_verdict_name(PREFLIGHT_SKIPPED), "SKIPPED");
}

Test(preflight_version, parse)
{
	long v[4] = { -1, -1, -1, -1 };

	cr_assert_eq(version_parse("7.15.26291-2ed46569ce", v, 3), 3);
	cr_assert_eq(v[0], 7);
	cr_assert_eq(v[1], 15);
	cr_assert_eq(v[2], 26291);
	cr_assert_eq(version_parse("2.8", v, 3), 2);
	cr_assert_eq(v[1], 8);
	cr_assert_eq(version_parse("7.13.0.1", v, 3), 3, "extra parts not stored");
	cr_assert_eq(version_parse("  6.4.43483\n", v, 3), 3);
	cr_assert_eq(v[2], 43483);
	cr_assert_eq(version_parse("7.", v, 3), 1);
	cr_assert_eq(version_parse("v7.1", v, 3), 0);
	cr_assert_eq(version_parse("", v, 3), 0);
	cr_assert_eq(version_parse(NULL, v, 3), 0);
	cr_assert_eq(version_parse("7.1", v, 0), 0);
	cr_assert_eq(version_parse("99999999999999999999999.1", v, 3), 0, "overflow is not a number");
}

Test(preflight_version, from_library_names)
{
	char *s;

	s = stack_version_from_name("libamdhip64.so.7.15.26291-2ed46569ce", "libamdhip64.so.", 3);
	cr_assert_str_eq(s, "7.15.26291");
	free(s);
	s = stack_version_from_name("libamd_comgr.so.2.8.60200", "libamd_comgr.so.", 2);
	cr_assert_str_eq(s, "2.8.60200");
	free(s);
	s = stack_version_from_name("libamd_comgr.so.3.0", "libamd_comgr.so.", 2);
	cr_assert_str_eq(s, "3.0");
	free(s);
	cr_assert_null(stack_version_from_name("libamdhip64.so.7", "libamdhip64.so.", 3));
	cr_assert_null(stack_version_from_name("libamdhip64.so", "libamdhip64.so.", 1));
	cr_assert_null(stack_version_from_name("libamdhip64.so.x.y", "libamdhip64.so.", 1));
	cr_assert_null(stack_version_from_name("libfoo.so.1.2.3", "libamdhip64.so.", 1));
	cr_assert_null(stack_version_from_name(NULL, "libamdhip64.so.", 1));
}

Test(preflight_version, hip_version_file)
{
	char *s;

	s = stack_hip_version_file_parse("# Auto-generated by cmake\n"
					 "HIP_PACKAGING_VERSION_PATCH=26291-2ed46569ce\n"
					 "HIP_VERSION_MAJOR=7\nHIP_VERSION_MINOR=15\n"
					 "HIP_VERSION_PATCH=26291\nHIP_VERSION_GITHASH=2ed46569ce\n");
	cr_assert_str_eq(s, "7.15.26291");
	free(s);
	s = stack_hip_version_file_parse("HIP_VERSION_PATCH = 1\r\nHIP_VERSION_MINOR= 2\nHIP_VERSION_MAJOR =6");
	cr_assert_str_eq(s, "6.2.1");
	free(s);
	cr_assert_null(stack_hip_version_file_parse("HIP_VERSION_MAJOR=7\nHIP_VERSION_MINOR=15\n"));
	cr_assert_null(stack_hip_version_file_parse("HIP_VERSION_MAJORX=7\nHIP_VERSION_MINOR=1\nHIP_VERSION_PATCH=0"));
	cr_assert_null(stack_hip_version_file_parse("HIP_VERSION_MAJOR=\nHIP_VERSION_MINOR=1\nHIP_VERSION_PATCH=0"));
	cr_assert_null(stack_hip_version_file_parse(""));
}
