#include <criterion/criterion.h>

#include "orchestrator/cli/sweep_exit.h"
#include "orchestrator/jobs/sweep_end.h"
#include "orchestrator/sweep/sweep_status.h"

/* How a sweep ended is a typed value; its exit code is the command
 * layer's word for it, and the code a report or a merge job states says
 * the same end back. */
Test(sweep_end, each_end_is_one_exit_code_and_back)
{
	static const struct {
		enum sweep_end end;
		int code;
	} rows[] = {
		{ SWEEP_END_OK, SWEEP_EXIT_OK },         { SWEEP_END_FAILED, SWEEP_EXIT_FAILED },
		{ SWEEP_END_NO_GPU, SWEEP_EXIT_NO_GPU }, { SWEEP_END_INFRA, SWEEP_EXIT_INFRA },
		{ SWEEP_END_USAGE, SWEEP_EXIT_USAGE },   { SWEEP_END_GPU_BUSY, SWEEP_EXIT_GPU_BUSY },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cr_assert_eq(sweep_exit_of(rows[i].end), rows[i].code);
		cr_assert_eq(sweep_end_of_code(rows[i].code), rows[i].end);
	}
	/* A code no sweep gives is an infrastructure error. */
	cr_assert_eq(sweep_end_of_code(3), SWEEP_END_INFRA);
}
