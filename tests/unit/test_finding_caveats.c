/* Issue 29: the caveats hrr-playback prints (orchestrator/finding/
 * classify_placement.c, caveats.c): placement of allocations at their
 * capture addresses, the runtime libraries mapped. The samples are in
 * tests/fuzz/corpus/classifier/ (also the fuzzer's seeds), in upstream's
 * formats (hrr_va_placement.cpp, hrr_playback.cpp). */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/finding_json.h"
#include "preflight/preflight.h"
#include "tests/support/finding_samples.h"

static void classify(const char *log, struct finding *f, const struct finding_context *ctx)
{
	struct classifier *c = classifier_new("replay.log");

	classifier_feed(c, log, strlen(log));
	classifier_finish(c, f);
	finding_finalize(f, ctx);
	classifier_free(c);
}

Test(finding_caveats, fallback_lines_and_a_fault_inside_a_moved_allocation)
{
	struct finding f;

	fs_analyze_sample("placement_fallback_maf.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert(f.placement.seen);
	cr_assert_eq(f.placement.placed, -1, "no summary: a replay that faulted prints none");
	cr_assert_eq(f.placement.n_fallbacks, 2);
	cr_assert_str_eq(f.placement.fallbacks[0].api, "hipMalloc");
	cr_assert_str_eq(f.placement.fallbacks[0].address, "0x7f3a40000000");
	cr_assert_eq(f.placement.fallbacks[0].bytes, 4194304);
	cr_assert_str_eq(f.placement.fallbacks[1].api, "hipMallocAsync");
	cr_assert(fs_has_note(&f, "could not place 2 allocation(s)"));
	cr_assert(fs_has_note(&f, "suspect the replay before the workload"));
	cr_assert(fs_has_note(&f, "lies inside hipMalloc 0x7f3a40000000 (4194304 bytes)"));
	cr_assert_eq(f.runtime_libraries.n, 3);
	cr_assert_not(fs_has_note(&f, "different ROCm installs"), "one install");
	finding_release(&f);
}

Test(finding_caveats, a_fault_outside_every_moved_allocation_says_so)
{
	struct finding f;

	finding_init(&f);
	classify("[HRR] Placement: hipMalloc 0x1000 (256 bytes) not placed at its recorded "
		 "address: its range could not be held. It replays elsewhere, so a copy of its "
		 "address stored in device memory is stale\n"
		 "Memory access fault by GPU node-2 (Agent handle: 0x1) on address 0x9000. "
		 "Reason: Unknown.\n", &f, NULL);
	cr_assert(fs_has_note(&f, "lies in none of the allocations that fell back"));
	finding_release(&f);
}

Test(finding_caveats, the_summary_counts_and_no_caveat_when_all_placed_or_passed)
{
	struct finding f;
	cleanup_cjson cJSON *j = NULL;
	const cJSON *p;

	fs_analyze_sample("placement_all_placed.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_PASS);
	cr_assert_eq(f.placement.placed, 61);
	cr_assert_eq(f.placement.fell_back, 0);
	cr_assert_eq(f.placement.frees_deferred, 3);
	cr_assert_not(fs_has_note(&f, "could not place"));
	j = finding_to_json(&f, NULL);
	p = cJSON_GetObjectItem(j, "placement");
	cr_assert(cJSON_IsObject(p));
	cr_assert_eq(cJSON_GetObjectItem(p, "placed")->valueint, 61);
	cr_assert_eq(cJSON_GetObjectItem(p, "frees_deferred")->valueint, 3);
	cr_assert(cJSON_IsArray(cJSON_GetObjectItem(p, "fallbacks")));
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "runtime_libraries")), 3);
	finding_release(&f);

	finding_init(&f);
	classify("[HRR]   Placement      : 7 placed at capture address, 2 fell back\n[HRR] PASS\n",
		 &f, NULL);
	cr_assert_eq(f.placement.fell_back, 2);
	cr_assert_eq(f.placement.frees_deferred, -1, "older builds print no deferred frees");
	cr_assert_not(fs_has_note(&f, "could not place"), "a PASS needs no caveat");
	finding_release(&f);
}

Test(finding_caveats, not_printed_is_null_and_empty)
{
	struct finding f;
	cleanup_cjson cJSON *j = NULL;

	fs_analyze_sample("empty.log", &f);
	j = finding_to_json(&f, NULL);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "placement")));
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "runtime_libraries")), 0);
	finding_release(&f);
}

Test(finding_caveats, the_first_sixteen_then_a_count)
{
	struct strbuf log = STRBUF_INIT;
	struct finding f;

	for (int i = 0; i < 16; i++)
		strbuf_addf(&log, "[HRR] Placement: hipMalloc 0x%x000 (64 bytes) not placed at its "
			    "recorded address: a test. It replays elsewhere, so a copy of its address "
			    "stored in device memory is stale\n", 0x100 + i);
	strbuf_addstr(&log, "[HRR] Placement: further fallbacks are only counted; --verbose names "
		      "every one\nMemory access fault by GPU node-2 (Agent handle: 0x1) on address "
		      "0x9000. Reason: Unknown.\n");
	finding_init(&f);
	classify(log.buf, &f, NULL);
	cr_assert_eq(f.placement.n_fallbacks, 16);
	cr_assert(f.placement.fallbacks_counted);
	cr_assert(fs_has_note(&f, "could not place more than 16 allocation(s)"));
	cr_assert_not(fs_has_note(&f, "lies in none"), "unnamed fallbacks may hold it");
	finding_release(&f);
	strbuf_release(&log);
}

Test(finding_caveats, a_mixed_stack_is_noted_in_analyze)
{
	struct finding f;

	fs_analyze_sample("runtime_mixed_stack.log", &f);
	cr_assert_eq(f.runtime_libraries.n, 3);
	cr_assert_str_eq(f.runtime_libraries.v[0], "/opt/rocm-7.0.0/lib/libamd_comgr.so.3.0.70000");
	cr_assert(fs_has_note(&f, "2 different ROCm installs"));
	cr_assert(fs_has_note(&f, "invalid argument"));
	finding_release(&f);
}

Test(finding_caveats, run_compares_the_mapped_stack_with_preflight)
{
	const char *log = "[HRR] Runtime : /opt/rocm-7.13.0/lib/libamd_comgr.so.3.0.70000\n"
			  "[HRR]         : /opt/rocm-7.13.0/lib/libamdhip64.so.7.13.26291-2ed46569ce\n"
			  "[HRR] Mode    : single-threaded\n"
			  "[HRR]         : /not/a/library\n"
			  "[HRR] Fatal: T1 Event 7 (hipMalloc) returned 1 (invalid argument) — aborting replay\n";
	struct stack_info st = { .hip_version = "7.15.26291", .comgr_version = "3.0.70000",
				 .source = "image hrr-sim:test" };
	struct finding_run run = { .exit_code = 1, .signal = -1 };
	struct finding_context ctx = { .archive_name = "pid-1", .run = &run, .stack = &st };
	struct finding f;

	finding_init(&f);
	classify(log, &f, &ctx);
	cr_assert_eq(f.runtime_libraries.n, 2, "a continuation only right after a Runtime line");
	cr_assert(fs_has_note(&f, "mapped HIP 7.13.26291"));
	cr_assert(fs_has_note(&f, "preflight read HIP 7.15.26291 in image hrr-sim:test"));
	cr_assert_not(fs_has_note(&f, "mapped comgr"), "the same comgr");
	finding_release(&f);

	finding_init(&f);
	ctx.run = NULL;
	classify(log, &f, &ctx);
	cr_assert_not(fs_has_note(&f, "preflight read"), "the comparison is run's alone");
	finding_release(&f);
}

Test(finding_caveats, rocm_installs_and_address_ranges)
{
	struct {
		const char *path, *want;
	} cases[] = {
		{ "/opt/rocm-7.13.0/lib/libamdhip64.so.7", "/opt/rocm-7.13.0" },
		{ "/opt/rocm/lib64/libhsa-runtime64.so.1", "/opt/rocm" },
		{ "/usr/lib/x86_64-linux-gnu/libamdhip64.so.6", "/usr" },
		{ "/lib/libamdhip64.so", "/" },
		{ "libamdhip64.so", NULL },
		{ "/opt/x/libamdhip64.so", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = finding_rocm_install(cases[i].path);

		if (cases[i].want)
			cr_assert_str_eq(got, cases[i].want, "%s", cases[i].path);
		else
			cr_assert_null(got, "%s", cases[i].path);
		free(got);
	}
	cr_assert(finding_address_in("0x1010", "0x1000", 0x20));
	cr_assert_not(finding_address_in("0x1020", "0x1000", 0x20), "the end is outside");
	cr_assert_not(finding_address_in("0xfff", "0x1000", 0x20));
	cr_assert_not(finding_address_in("0x1010", "0x1000", -1), "unknown size");
	cr_assert_not(finding_address_in("junk", "0x1000", 16));
	cr_assert_not(finding_address_in("0xffffffffffffffffff", "0x1000", 16), "overflow");
}
