/* common/clock: poll timeouts that cannot overflow (issue item 8). */
#include <criterion/criterion.h>
#include <limits.h>

#include "common/clock.h"

Test(clock, ms_until_a_far_deadline_is_capped_not_overflowed)
{
	/* --stop-grace 31536000 (the documented maximum): 3.15e10 ms. */
	cr_assert_eq(clock_ms_until(100.0 + 31536000.0, 100.0, 1000), 1000);
	cr_assert_eq(clock_ms_until(100.0 + 2147484.0, 100.0, INT_MAX), INT_MAX);
}

Test(clock, ms_until_near_and_past_deadlines)
{
	cr_assert_eq(clock_ms_until(10.0, 10.0, 1000), 0);
	cr_assert_eq(clock_ms_until(9.0, 10.0, 1000), 0);
	cr_assert_eq(clock_ms_until(10.25, 10.0, 1000), 251);
}
