#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <string.h>

#include "common/cleanup.h"
#include "orchestrator/sweep/sweep_progress.h"

/* The progress lines go to stderr; the tests read them from the buffer. */
TestSuite(sweep_progress, .init = cr_redirect_stderr);

Test(sweep_progress, status_line_counts_and_eta)
{
	struct sweep_progress p;
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	struct case_result fail = { .case_name = "lib/pid-1", .image = "img", .state = RESULT_DONE,
				     .has_outcome = true, .outcome = OUTCOME_MAF, .kernel = "k<T>", .attempt = 1 };
	struct case_result pass = fail;

	sweep_progress_init(&p, 128, NULL);
	pass.outcome = OUTCOME_PASS;
	pass.kernel = NULL;
	pass.attempt = 2;
	p.running = 8;
	for (int i = 0; i < 36; i++)
		sweep_progress_finished(&p, &(struct case_result){ .case_name = "c", .image = "i",
								    .state = RESULT_DONE, .has_outcome = true, .outcome = OUTCOME_PASS,
								    .attempt = 1 },
					BASE_PASS, false);
	sweep_progress_finished(&p, &fail, BASE_PASS, false);
	cr_assert_eq(p.finished, 37);
	cr_assert_eq(p.regressed, 1);
	sweep_progress_finished(&p, &pass, BASE_PASS, true); /* the retry of the failed one */
	cr_assert_eq(p.finished, 37, "a retry is not another case");
	cr_assert_eq(p.regressed, 0);
	cr_assert_eq(p.flaky, 1);
	sweep_progress_line(&p, 37 * 10.0, &line);
	cr_assert_str_eq(line.buf, "[37/128] 8 running · 1 flaky · eta 15m");
}

/* Regressed is against the baseline: a known failure, a new one and a
 * first-attempt error are not regressions; a PASS-before failure is. */
Test(sweep_progress, status_line_counts_regressed_against_the_baseline)
{
	struct sweep_progress p;
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	struct case_result maf = { .case_name = "a", .image = "i", .state = RESULT_DONE,
				    .has_outcome = true, .outcome = OUTCOME_MAF, .attempt = 1 };
	struct case_result err = { .case_name = "e", .image = "i", .state = RESULT_ERROR,
				    .attempt = 1 };

	sweep_progress_init(&p, 10, NULL);
	p.running = 2;
	sweep_progress_finished(&p, &maf, BASE_FAILED, false); /* still failing */
	sweep_progress_finished(&p, &maf, BASE_NONE, false);   /* new */
	sweep_progress_finished(&p, &maf, BASE_PASS, false);   /* regressed */
	sweep_progress_finished(&p, &maf, BASE_PASS, false);   /* regressed */
	sweep_progress_finished(&p, &err, BASE_PASS, false);
	sweep_progress_line(&p, 50.0, &line);
	cr_assert_str_eq(line.buf, "[5/10] 2 running · 2 regressed · 1 error · eta 50s");
	cr_assert_null(strstr(line.buf, "not PASS"));
	maf.attempt = 2;
	sweep_progress_finished(&p, &maf, BASE_PASS, true); /* a retry fails again */
	cr_assert_eq(p.regressed, 2, "a failing retry stays one regression");
	cr_assert_eq(p.finished, 5);
}

Test(sweep_progress, one_line_per_case_is_plain_text)
{
	struct sweep_progress p;
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	struct case_result r = { .case_name = "lib/pid-1", .image = "img:1", .state = RESULT_ERROR,
				  .message = "pull failed", .attempt = 1 };

	sweep_progress_init(&p, 2, NULL);
	p.finished = 1;
	sweep_progress_case_line(&p, &r, &line);
	cr_assert_str_eq(line.buf, "[1/2] lib/pid-1 @ img:1: error: pull failed");
}
