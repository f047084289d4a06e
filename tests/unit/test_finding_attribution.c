/* When the evidence names no kernel, the finding says why. */
#include <criterion/criterion.h>
#include <string.h>

#include "orchestrator/finding/finding.h"
#include "tests/support/finding_samples.h"

static void classify(const char *log, struct finding *f)
{
	struct classifier *c = classifier_new("replay.log");
	struct finding_context ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.archive_name = "pid-1";
	classifier_feed(c, log, strlen(log));
	classifier_finish(c, f);
	finding_finalize(f, &ctx);
	classifier_free(c);
}

#define MAF "Memory access fault by GPU node-2 (Agent handle: 0x1) on address 0x10. Reason: Unknown.\n"

Test(finding_attribution, unnamed_kernel_with_several_in_the_archive_is_explained)
{
	struct finding f;

	finding_init(&f);
	classify("[HRR] Archive : 9 events, 3 kernels, 1 blobs, 1 code objects\n"
		 "Events:       9\nKernels:      3\n" MAF, &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_null(f.kernel_name, "never guessed");
	cr_assert(fs_has_note(&f, "3 kernel launches of an unknown number of distinct kernels"),
		  "Kernels: counts launches, not kernels");
	finding_release(&f);
}

/* Issue 29: --info's "Kernels:" and the banner's "N kernels" count launches;
 * the Kernel Summary has a row per launch; only Kernel Call Counts says how
 * many distinct kernels there are. */
#define INFO_ONE_KERNEL_MANY_LAUNCHES \
	"HRR Archive: /archive/pid-1\n" \
	"Kernels:      3\n" \
	"\n" \
	"Kernel Summary (first 20):\n" \
	"  ID   Kernel                                             Grid            Block           SharedMem\n" \
	"  --   ------                                             ----            -----           ---------\n" \
	"  0    vector_add                                         [4,1,1]         [64,1,1]        0\n" \
	"  1    vector_add                                         [4,1,1]         [64,1,1]        0\n" \
	"  2    vector_add                                         [4,1,1]         [64,1,1]        0\n" \
	"\n" \
	"Kernel Call Counts:\n" \
	"  Kernel                                                       Calls\n" \
	"  ------                                                       -----\n" \
	"  vector_add                                                   3\n" \
	"\n"

Test(finding_attribution, one_distinct_kernel_launched_many_times_is_inferred)
{
	struct finding f;

	finding_init(&f);
	classify(INFO_ONE_KERNEL_MANY_LAUNCHES MAF, &f);
	cr_assert_eq(f.archive_kernels, 3);
	cr_assert_eq(f.archive_distinct_kernels, 1);
	cr_assert_str_eq(f.kernel_name, "vector_add");
	cr_assert(fs_has_note(&f, "kernel inferred"));
	finding_release(&f);
}

Test(finding_attribution, summary_rows_alone_never_count_kernels)
{
	struct finding f;

	finding_init(&f);
	classify("HRR Archive: /archive/pid-1\n"
		 "Kernels:      3\n\n"
		 "Kernel Summary (first 20):\n"
		 "  0    vector_add                                         [4,1,1]         [64,1,1]        0\n"
		 "  1    vector_add                                         [4,1,1]         [64,1,1]        0\n"
		 "  2    vector_add                                         [4,1,1]         [64,1,1]        0\n\n" MAF, &f);
	cr_assert_null(f.kernel_name, "three launches, distinct kernels unknown: no guess");
	cr_assert_eq(f.archive_distinct_kernels, -1);
	finding_release(&f);
}

Test(finding_attribution, two_distinct_kernels_are_named_in_the_note)
{
	struct finding f;

	finding_init(&f);
	classify("Kernels:      5\n"
		 "Kernel Call Counts:\n"
		 "  a_kernel                                                     4\n"
		 "  b_kernel                                                     1\n\n" MAF, &f);
	cr_assert_null(f.kernel_name);
	cr_assert(fs_has_note(&f, "2 distinct kernels, so none is guessed"));
	finding_release(&f);
}

/* Issue 29: the watchdog's line names the launch that did not complete;
 * the last heartbeat names an earlier one that did. */
Test(finding_attribution, the_watchdog_names_the_hung_launch_not_the_last_heartbeat)
{
	struct finding f;

	finding_init(&f);
	classify("[HRR progress] elapsed_s=1.0 seq=40 kernels=7 d2h_pass=0 d2h_fail=0 "
		 "d2h_attempted=0 last=\"finished_kernel\"\n"
		 "\n[HRR][WATCHDOG] GPU sync did not complete within 5000 ms at: kernel #8 "
		 "\"spin_kernel\" (seq=44, grid=[1,1,1] block=[64,1,1])\n"
		 "[HRR][WATCHDOG] Treating this as a hung/deadlocked kernel (e.g. a StreamK\n", &f);
	cr_assert_eq(f.outcome, OUTCOME_HANG);
	cr_assert_eq(f.failing_event_seq, 44);
	cr_assert_str_eq(f.kernel_name, "spin_kernel");
	cr_assert_str_eq(f.last_progress_kernel, "finished_kernel");
	finding_release(&f);
}

Test(finding_attribution, a_cut_single_name_is_explained)
{
	struct finding f;

	finding_init(&f);
	classify("Kernels:      1\n"
		 "Kernel Call Counts:\n"
		 "  Kernel                                                       Calls\n"
		 "  ------                                                       -----\n"
		 "  _ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11Fi... 1\n" MAF,
		 &f);
	cr_assert_null(f.kernel_name, "a cut name is never used");
	cr_assert(fs_has_note(&f, "cut to a column"), "notes: %zu", f.notes.n);
	finding_release(&f);
}

Test(finding_attribution, a_pass_gets_no_such_note)
{
	struct finding f;

	finding_init(&f);
	classify("[HRR] PASS\n", &f);
	cr_assert_not(fs_has_note(&f, "no kernel is named"));
	finding_release(&f);
}
