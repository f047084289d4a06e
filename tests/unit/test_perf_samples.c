/* orchestrator/perf/perf_samples.c: a case's samples take the room they
 * need (a sweep's report keeps every passing case's), keep the first
 * PERF_RUNS_MAX, and read back what they wrote. */
#include <criterion/criterion.h>

#include "common/cleanup.h"
#include "orchestrator/perf/perf_samples.h"
#include "orchestrator/perf/perf_samples_json.h"

static struct perf_sample sample(double ms)
{
	return (struct perf_sample){ ms, 0, ms, 400 + ms };
}

Test(perf_samples, grow_as_added_and_keep_the_first_maximum)
{
	__attribute__((cleanup(perf_samples_release))) struct perf_samples s = { 0 };

	for (int i = 0; i < PERF_RUNS_MAX + 7; i++) {
		struct perf_sample x = sample(i);

		perf_samples_add(&s, &x);
	}
	cr_assert_eq(s.n, PERF_RUNS_MAX);
	cr_assert(s.alloc >= s.n && s.alloc < 2 * PERF_RUNS_MAX, "room for %zu", s.alloc);
	cr_assert_eq(s.v[0].kernel_ms, 0);
	cr_assert_eq(s.v[PERF_RUNS_MAX - 1].kernel_ms, PERF_RUNS_MAX - 1);
}

Test(perf_samples, a_few_take_little_room_and_round_trip)
{
	__attribute__((cleanup(perf_samples_release))) struct perf_samples s = { 0 }, back = { 0 };
	cleanup_cjson cJSON *j = NULL;

	for (int i = 0; i < 5; i++) {
		struct perf_sample x = sample(20 + i);

		perf_samples_add(&s, &x);
	}
	s.v[2].graph_ms = -1;
	perf_samples_note(&s, "stopped early");
	cr_assert(s.alloc < 16, "room for %zu samples kept for 5", s.alloc);
	j = perf_samples_to_json(&s);
	cr_assert_null(cJSON_GetObjectItem(j, "adaptive"), "none added: no key");
	cJSON_Delete(j);
	s.adaptive = 2;
	j = perf_samples_to_json(&s);
	perf_samples_from_json(&back, j);
	cr_assert_eq(back.n, 5);
	cr_assert_eq(back.v[4].kernel_ms, 24);
	cr_assert_eq(back.v[2].graph_ms, -1);
	cr_assert_str_eq(back.note, "stopped early");
	cr_assert_eq(back.adaptive, 2);
	perf_samples_release(&back);
	cr_assert_eq(back.n, 0);
	cr_assert_null(back.v);
}
