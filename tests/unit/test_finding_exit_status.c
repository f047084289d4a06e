/* A run's PASS needs the engine's exit status 0 (issue: forged verdicts):
 * the log is the archive's to write, the exit status is not. */
#include <criterion/criterion.h>

#include "orchestrator/finding/finding.h"
#include "tests/support/finding_samples.h"

static enum finding_outcome outcome_with_exit(int exit_code)
{
	struct finding f;
	struct finding_run run = { .exit_code = exit_code, .ended_by = ENDED_EXIT, .signal = -1 };
	struct finding_context ctx = { .archive_name = "pid-1", .run = &run };
	enum finding_outcome o;

	fs_classify_sample("pass_clean.log", &f);
	finding_finalize(&f, &ctx);
	o = f.outcome;
	finding_release(&f);
	return o;
}

Test(finding_exit_status, pass_text_with_exit_0_is_pass)
{
	cr_assert_eq(outcome_with_exit(0), OUTCOME_PASS);
}

Test(finding_exit_status, pass_text_with_a_failing_or_unknown_exit_is_not)
{
	cr_assert_neq(outcome_with_exit(3), OUTCOME_PASS);
	cr_assert_neq(outcome_with_exit(-1), OUTCOME_PASS,
		      "no exit status from the engine: the text alone is not a verdict");
}
