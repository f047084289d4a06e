/* Failure signatures and the one kernel-family rule
 * (orchestrator/finding/signature.c, orchestrator/finding/kernel_family.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "orchestrator/finding/kernel_family.h"
#include "orchestrator/finding/known_issues.h"
#include "common/text.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/finding/signature_json.h"

static void family_is(const char *kernel, const char *want)
{
	char *got = kernel_family(kernel);

	if (!want)
		cr_assert_null(got, "%s gave %s", kernel ? kernel : "(null)", got);
	else
		cr_assert_str_eq(got ? got : "(null)", want, "%s", kernel);
	free(got);
}

Test(signature, kernel_family_is_one_rule_for_mangled_and_demangled)
{
	family_is("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
		  "at::native::vectorized_elementwise_kernel");
	family_is("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
		  "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
		  "at::native::vectorized_elementwise_kernel");
	family_is("_Z9my_kernelPfi", "my_kernel");
	family_is("my_kernel(float*, int)", "my_kernel");
	family_is("plain_kernel", "plain_kernel");
	family_is("_ZN12_GLOBAL__N_16kernelEv", "(anonymous namespace)::kernel");
	family_is("void (anonymous namespace)::kernel<3>(int)", "(anonymous namespace)::kernel");
	family_is("fused_kernel_0123abcd4567", "fused_kernel");
	family_is("k.kd", "k");
	family_is("", NULL);
	family_is(NULL, NULL);
}

/* A family cut to its byte caps never ends inside a character (the
 * classifier fuzzer's crash: finding.json was not valid UTF-8). */
Test(signature, a_family_cut_to_its_caps_stays_valid_utf8)
{
	struct strbuf name = STRBUF_INIT;
	char *got;

	strbuf_addstr(&name, "ab"); /* then 4 bytes a step: byte 160 falls inside one */
	for (int i = 0; i < 100; i++)
		strbuf_addstr(&name, "k\xef\xbf\xbd");
	got = kernel_family(name.buf);
	cr_assert_not_null(got);
	cr_assert(text_is_utf8(got, strlen(got)), "%s", got);
	cr_assert_leq(strlen(got), 160);
	free(got);
	strbuf_release(&name);
}

Test(signature, kernel_family_reads_tensile_and_ck_by_family)
{
	family_is("Cijk_Ailk_Bjlk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_CMS_SN_LDSB0_AFC0",
		  "hipblaslt_gemm/Ailk_Bjlk/BBS_BH/MT256x256x64/MI16x16x1");
	family_is("Custom_Cijk_Ailk_Bljk_F8H_HHS_BH_MT128x16x128_MI16x16x1_16_E",
		  "hipblaslt_gemm/Ailk_Bljk/F8H_HHS_BH/MT128x16x128/MI16x16x1");
	family_is("Cijk_Alik_Bljk_SB_MT64x32x16_SK3_SN", "hipblaslt_gemm/Alik_Bljk/SB/MT64x32x16/streamk");
	family_is("_ZN7ck_tile6kentryILi1ENS_13FmhaFwdKernelEEEvv", "ck_tile::kentry/FmhaFwdKernel");
	family_is("_ZN7ck_tile6kentryILi256E25ProductionTransposeKernelIDF16_Lb1EEJPKDF16_PDF16_iiEEEvDpT1_",
		  "ck_tile::kentry/ProductionTransposeKernel");
	family_is("void ck_tile::kentry<1, ck_tile::FmhaFwdKernel<ck_tile::BlockFmha<64> > >()",
		  "ck_tile::kentry/FmhaFwdKernel");
	family_is("void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemmMultiD_ABScale_xdl_cshuffle_v3<"
		  "ck::tensor_layout::gemm::RowMajor, 256>, true>(ck::Argument)",
		  "ck::kernel_gemm_xdl_cshuffle_v3/GridwiseGemmMultiD_ABScale_xdl_cshuffle_v3");
}

static char *norm(const char *line)
{
	struct strbuf sb = STRBUF_INIT;

	signature_normalize_line(line, strlen(line), &sb);
	return strbuf_detach(&sb, NULL);
}

Test(signature, evidence_loses_addresses_pids_nodes_times_and_prefixes)
{
	static const char *const same[] = {
		"Memory access fault by GPU node-2 (Agent handle: 0x55d0c1a2b3c0) on address "
		"0x7f2fb4a00000. Reason: Write access to a read-only page.",
		"2026-01-01T00:00:00.1234567Z Memory access fault by GPU node-7 (Agent handle: "
		"0x1) on address 0xdeadbeef000. Reason: Write access to a read-only page.",
		"[triage] \x1b[1;31mMemory access fault by GPU node-3 (Agent handle: 0xabc) on "
		"address (nil). Reason: Write access to a read-only page.\x1b[0m",
		"##[error]12:00:01 pid 4242: Memory access fault by GPU node-0  (Agent handle: 0x9)"
		" on address 0x10. Reason: Write access to a read-only page.",
	};
	char *first = norm(same[0]);

	cr_assert_str_eq(first, "Memory access fault by GPU node-<n> (Agent handle: <addr>) on "
				"address <addr>. Reason: Write access to a read-only page.");
	for (size_t i = 1; i < sizeof(same) / sizeof(same[0]); i++) {
		char *s = norm(same[i]);

		cr_assert_str_eq(s, first, "line %zu", i);
		free(s);
	}
	free(first);
	first = norm("[HRR] Fatal: thread 3 Event 1234 (hipMemcpy) failed: hipErrorOutOfMemory "
		     "container 0123456789abcdef0123");
	cr_assert_str_eq(first, "[HRR] Fatal: thread <n> Event <n> (hipMemcpy) failed: "
				"hipErrorOutOfMemory container <hash>");
	free(first);
	first = norm("gfx942 float4 seq=2047");
	cr_assert_str_eq(first, "gfx942 float4 seq=<n>");
	free(first);
}

Test(signature, same_fault_one_id_two_kernels_two_ids)
{
	struct signature a, b, c;

	signature_init(&a);
	signature_init(&b);
	signature_init(&c);
	signature_make(&a, "MAF", "illegal_memory_access", "_Z6kernelILi4EEvPf",
		       "12:00 Memory access fault by GPU node-1 (Agent handle: 0x1) on address 0x7f00.",
		       NULL, false);
	signature_make(&b, "MAF", "illegal_memory_access", "void kernel<8>(float*)",
		       "Memory access fault by GPU node-4 (Agent handle: 0x2) on address 0x7e00.",
		       NULL, false);
	signature_make(&c, "MAF", "illegal_memory_access", "void other_kernel<8>(float*)",
		       "Memory access fault by GPU node-4 (Agent handle: 0x2) on address 0x7e00.",
		       NULL, false);
	cr_assert_eq(strlen(a.id), SIGNATURE_ID_LEN);
	cr_assert_str_eq(a.id, b.id);
	cr_assert_str_neq(a.id, c.id);
	cr_assert_str_eq(a.kernel_family, "kernel");
	signature_release(&c);
	signature_make(&c, "PASS", "replay_pass", NULL, NULL, NULL, false);
	cr_assert_not(signature_set(&c));
	signature_release(&a);
	signature_release(&b);
}

Test(signature, json_round_trip_recomputes_the_id)
{
	struct signature a, b;
	cJSON *o;

	signature_init(&a);
	signature_init(&b);
	signature_make(&a, "ABORT", "replay_aborted", NULL, "aborting with error : x", "ASSERT_TRAP",
		       true);
	o = signature_to_json(&a);
	cJSON_ReplaceItemInObject(o, "id", cJSON_CreateString("000000000000"));
	signature_from_json(&b, o);
	cr_assert_str_eq(b.id, a.id);
	cr_assert(b.partial);
	cr_assert_str_eq(b.stop_reason, "ASSERT_TRAP");
	cJSON_Delete(o);
	o = signature_to_json(&(struct signature){ 0 });
	cr_assert(cJSON_IsNull(o));
	cJSON_Delete(o);
	signature_release(&a);
	signature_release(&b);
}

Test(signature, pasted_rule_escapes_globs_and_quotes)
{
	struct signature a;
	struct strbuf out = STRBUF_INIT;

	signature_init(&a);
	signature_from_parts(&a, "FAIL", "nan_inf_divergence", "k", "[HRR] it's *odd?", NULL, false);
	signature_rule_yaml(&a, &out);
	cr_assert(strstr(out.buf, "      evidence: '\\[HRR\\] it''s \\*odd\\?'\n"), "%s", out.buf);
	cr_assert(strstr(out.buf, "    owner: TODO\n"));
	strbuf_release(&out);
	signature_release(&a);
}

/* Evidence a replay printed as "re:^|x" is pasted as that text, not as a
 * regular expression that would match every failure. */
Test(signature, pasted_rule_of_re_evidence_matches_only_that_evidence)
{
	struct signature a, b;
	struct strbuf out = STRBUF_INIT;
	struct known_issues k;
	struct known_subject sa = { .sig = &a }, sb = { .sig = &b };
	struct error err;

	signature_init(&a);
	signature_init(&b);
	signature_from_parts(&a, "FAIL", "nan_inf_divergence", "k", "re:^|x", NULL, false);
	signature_from_parts(&b, "FAIL", "nan_inf_divergence", "k", "other", NULL, false);
	strbuf_addstr(&out, "issues:\n");
	signature_rule_yaml(&a, &out);
	cr_assert(strstr(out.buf, "      evidence: '\\re:^|x'\n"), "%s", out.buf);
	cr_assert_eq(known_issues_parse("k.yaml", out.buf, out.len, &k, &err), 0, "%s", err.msg);
	cr_assert_not_null(known_issues_match(&k, &sa, 0));
	cr_assert_null(known_issues_match(&k, &sb, 0), "the pasted rule matched other evidence");
	known_issues_release(&k);
	strbuf_release(&out);
	signature_release(&a);
	signature_release(&b);
}
