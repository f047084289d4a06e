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
	cr_assert(fs_has_note(&f, "more than one kernel, so none is guessed"));
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
