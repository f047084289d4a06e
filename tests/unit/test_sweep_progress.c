#include <criterion/criterion.h>
#include <string.h>

#include "common/cleanup.h"
#include "orchestrator/sweep_progress.h"

Test(sweep_progress, status_line_counts_and_eta)
{
	struct sweep_progress p;
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	struct sweep_result fail = { .case_name = "lib/pid-1", .image = "img", .state = "done",
				     .outcome = "MAF", .kernel = "k<T>", .attempt = 1 };
	struct sweep_result pass = fail;

	sweep_progress_init(&p, 128, false);
	pass.outcome = "PASS";
	pass.kernel = NULL;
	pass.attempt = 2;
	p.running = 8;
	for (int i = 0; i < 36; i++)
		sweep_progress_finished(&p, &(struct sweep_result){ .case_name = "c", .image = "i",
								    .state = "done", .outcome = "PASS",
								    .attempt = 1 });
	sweep_progress_finished(&p, &fail);
	cr_assert_eq(p.finished, 37);
	cr_assert_eq(p.not_pass, 1);
	sweep_progress_finished(&p, &pass); /* the retry of the failed one */
	cr_assert_eq(p.finished, 37, "a retry is not another case");
	cr_assert_eq(p.not_pass, 0);
	cr_assert_eq(p.flaky, 1);
	sweep_progress_line(&p, 37 * 10.0, &line);
	cr_assert_str_eq(line.buf, "[37/128] 8 running · 1 flaky · eta 15m");
}

Test(sweep_progress, one_line_per_case_is_plain_text)
{
	struct sweep_progress p;
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	struct sweep_result r = { .case_name = "lib/pid-1", .image = "img:1", .state = "error",
				  .message = "pull failed", .attempt = 1 };

	sweep_progress_init(&p, 2, false);
	p.finished = 1;
	sweep_progress_case_line(&p, &r, &line);
	cr_assert_str_eq(line.buf, "[1/2] lib/pid-1 @ img:1: error: pull failed");
}
