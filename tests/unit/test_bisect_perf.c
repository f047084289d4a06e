/* orchestrator/bisect/perf_mark.c: what `bisect --metric gpu-time` makes of a
 * candidate's GPU-time samples against --good's, on seeded synthetic samples
 * (2% coefficient of variation, 40 ms, as the simulator's fixtures). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "common/cleanup.h"
#include "orchestrator/bisect/perf_mark.h"
#include "orchestrator/jobs/bisect_driver.h"

static const struct perf_rule rule = { PERF_THRESHOLD_DEFAULT, PERF_ALPHA_DEFAULT,
				       PERF_MAX_CV_DEFAULT };

/* n samples around ms with coefficient of variation cv (Box-Muller on a
 * fixed xorshift stream: the same seed, the same samples). */
static void fill(struct bisect_perf *p, size_t n, double ms, double cv, uint64_t seed)
{
	uint64_t s = seed * 2654435761u + 1;

	p->n = n;
	for (size_t i = 0; i < n; i++) {
		double u1, u2;

		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		u1 = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		u2 = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
		p->ms[i] = ms * (1 + cv * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
	}
}

/* The mark of cand against good (the good end against itself first). */
static enum bisect_mark mark(struct bisect_perf *good, struct bisect_perf *cand, bool same_build)
{
	struct error err;

	cr_assert_eq(bisect_perf_compare(good, good, 1, &rule, true, &err), 0, "%s", err.msg);
	cr_assert_eq(good->cmp.status, PERF_UNCHANGED, "--good against itself");
	cr_assert_eq(bisect_perf_compare(good, cand, 1, &rule, same_build, &err), 0, "%s", err.msg);
	return bisect_perf_mark(cand, 1);
}

Test(bisect_perf, ten_percent_slower_is_bad_with_its_ratio_and_interval)
{
	static struct bisect_perf good, slow;

	fill(&good, 5, 40, 0.02, 1);
	fill(&slow, 5, 44, 0.02, 2);
	cr_expect_eq(mark(&good, &slow, false), BISECT_DIFFERS);
	cr_expect_eq(slow.cmp.status, PERF_SLOWER);
	cr_expect(slow.cmp.ratio > 1.05 && slow.cmp.ratio < 1.15, "ratio %g", slow.cmp.ratio);
	cr_expect(slow.cmp.ci_lo <= slow.cmp.ratio && slow.cmp.ratio <= slow.cmp.ci_hi);
	cr_expect_float_eq(slow.cmp.p, 2.0 / 252, 1e-9, "5 against 5 fully apart: p = 2/252");
}

Test(bisect_perf, the_same_speed_or_faster_is_good)
{
	static struct bisect_perf good, same, fast;

	fill(&good, 5, 40, 0.02, 3);
	fill(&same, 5, 40, 0.02, 4);
	fill(&fast, 5, 30, 0.02, 5);
	cr_expect_eq(mark(&good, &same, false), BISECT_SAME);
	cr_expect_eq(same.cmp.status, PERF_UNCHANGED);
	cr_expect_eq(mark(&good, &fast, false), BISECT_SAME, "faster is not the regression sought");
	cr_expect_eq(fast.cmp.status, PERF_FASTER);
}

Test(bisect_perf, noisy_insufficient_same_build_and_no_samples_are_unclear)
{
	static struct bisect_perf good, noisy, few, same_image, none;

	fill(&good, 5, 40, 0.02, 6);
	fill(&noisy, 5, 44, 0.20, 7);
	fill(&few, 3, 44, 0.02, 8);
	fill(&same_image, 5, 44, 0.02, 9);
	cr_expect_eq(mark(&good, &noisy, false), BISECT_FLAKY);
	cr_expect_eq(noisy.cmp.status, PERF_NOISY);
	cr_expect_eq(mark(&good, &few, false), BISECT_FLAKY, "5 against 3 cannot reach 0.01");
	cr_expect_eq(few.cmp.status, PERF_INSUFFICIENT);
	cr_expect_eq(mark(&good, &same_image, true), BISECT_FLAKY);
	cr_expect_eq(same_image.cmp.status, PERF_SAME_BUILD);
	cr_expect_eq(mark(&good, &none, false), BISECT_FLAKY, "a probe without samples");
	cr_expect_eq(none.cmp.status, PERF_NONE);
}

Test(bisect_perf, a_noisy_good_end_is_no_reference)
{
	static struct bisect_perf good;
	struct error err;

	fill(&good, 5, 40, 0.20, 10);
	cr_assert_eq(bisect_perf_compare(&good, &good, 1, &rule, true, &err), 0, "%s", err.msg);
	cr_expect_eq(bisect_perf_mark(&good, 1), BISECT_FLAKY);
}

Test(bisect_perf, cases_combine_unclear_first_then_slower)
{
	static struct bisect_perf c[3];

	c[0].cmp.status = PERF_UNCHANGED;
	c[1].cmp.status = PERF_SLOWER;
	c[2].cmp.status = PERF_FASTER;
	cr_expect_eq(bisect_perf_mark(c, 3), BISECT_DIFFERS);
	cr_expect_eq(bisect_perf_telling_case(c, 3), 1);
	c[2].cmp.status = PERF_NOISY;
	cr_expect_eq(bisect_perf_mark(c, 3), BISECT_FLAKY, "not guessed through");
	cr_expect_eq(bisect_perf_telling_case(c, 3), 1, "the slower case still tells");
	c[1].cmp.status = PERF_UNCHANGED;
	cr_expect_eq(bisect_perf_telling_case(c, 3), 2);
	cr_expect_eq(bisect_perf_status_mark(PERF_INSUFFICIENT), BISECT_FLAKY);
}

/* The search over 16 candidates, the change at 11, driven by the samples'
 * marks: at most 6 probes, the answer 10/11 (0-based). */
Test(bisect_perf, sixteen_candidates_ten_percent_slower_from_eleven)
{
	static struct bisect_perf good, probe[16];
	enum bisect_mark marks[16] = { 0 };
	struct bisect_state st;
	enum bisect_step s;
	int probes = 0;

	fill(&good, 5, 40, 0.02, 100);
	while ((s = bisect_plan_next(marks, 16, &st)) == BISECT_PROBE) {
		size_t i = st.next;

		if (i == 0) {
			marks[0] = mark(&good, &good, true);
		} else {
			fill(&probe[i], 5, i >= 10 ? 44 : 40, 0.02, 200 + i);
			marks[i] = mark(&good, &probe[i], false);
		}
		probes++;
	}
	cr_assert_eq(s, BISECT_FOUND);
	cr_expect_eq(st.first_bad, 10);
	cr_expect_eq(st.last_good, 9);
	cr_expect_leq(probes, 6);
}

Test(bisect_perf, another_gpu_product_is_never_compared)
{
	static struct bisect_perf good, other;
	struct error err;

	fill(&good, 5, 40, 0.02, 11);
	fill(&other, 5, 44, 0.02, 12);
	snprintf(good.gfx, sizeof(good.gfx), "gfx942");
	snprintf(other.gfx, sizeof(other.gfx), "gfx90a");
	good.device_id = other.device_id = -1;
	cr_assert_eq(bisect_perf_compare(&good, &other, 1, &rule, false, &err), 0, "%s", err.msg);
	cr_expect(other.other_gpu);
	cr_expect_eq(other.cmp.status, PERF_NONE);
	cr_expect_eq(bisect_perf_mark(&other, 1), BISECT_FLAKY, "unclear, not slower");
	snprintf(other.gfx, sizeof(other.gfx), "gfx942");
	cr_assert_eq(bisect_perf_compare(&good, &other, 1, &rule, false, &err), 0, "%s", err.msg);
	cr_expect_eq(other.cmp.status, PERF_SLOWER, "the same product: compared");
}

/* The answer in words (orchestrator/jobs/bisect_answer.c): the first slower
 * image with its ratio, interval and p, each side's comparison. */
Test(bisect_perf, the_answer_names_the_first_slower_image_with_its_ratio)
{
	static struct bisect_perf perf[2];
	struct bisect_request rq = { .perf_runs = 5 };
	struct bisect_case kase = { .name = "lib/pid-1" };
	struct bisect_probe probes[2] = { 0 };
	struct bisect_job j = { .rq = &rq, .gpu_time = true, .rule = rule, .n_cases = 1,
				.cases = &kase, .probes = probes, .step = BISECT_FOUND,
				.state = { .last_good = 0, .first_bad = 1 } };
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	cleanup_free char *json = NULL;
	char ids[2][16] = { "sha256:a", "sha256:b" };
	struct error err;

	bisect_candidates_push(&j.cands, "reg/r:t10", "t10", 1);
	bisect_candidates_push(&j.cands, "reg/r:t11", "t11", 2);
	fill(&perf[0], 5, 40, 0.02, 13);
	fill(&perf[1], 5, 44, 0.02, 14);
	cr_assert_eq(bisect_perf_compare(&perf[0], &perf[0], 1, &rule, true, &err), 0);
	cr_assert_eq(bisect_perf_compare(&perf[0], &perf[1], 1, &rule, false, &err), 0);
	for (int i = 0; i < 2; i++) {
		probes[i].known = true;
		probes[i].perf = &perf[i];
		probes[i].mark = bisect_perf_mark(&perf[i], 1);
		probes[i].image_id = ids[i];
		strvec_init(&probes[i].outcomes);
		strvec_init(&probes[i].details);
		strvec_push(&probes[i].outcomes, "PASS");
		strvec_push(&probes[i].details, "");
	}
	bisect_answer_markdown(&j, &md);
	cr_expect(strstr(md.buf, "First slower image: **reg/r:t11** (last not slower: reg/r:t10); "
			 "lib/pid-1: ratio 1."), "%s", md.buf);
	cr_expect(strstr(md.buf, "p = 0.0079"), "%s", md.buf);
	cr_expect(strstr(md.buf, "| lib/pid-1 GPU time | unchanged"), "%s", md.buf);
	cr_expect(strstr(md.buf, "| 2 | reg/r:t11 | slower: ratio 1."), "%s", md.buf);
	json = bisect_answer_json(&j);
	cr_expect(strstr(json, "\"metric\":\t\"gpu-time\""), "%s", json);
	cr_expect(strstr(json, "\"status\":\t\"slower\""), "%s", json);
	j.step = BISECT_NO_CHANGE;
	cr_expect_str_eq(bisect_job_verdict(&j), "no-clear-change");
	j.step = BISECT_STOPPED_FLAKY;
	cr_expect_str_eq(bisect_job_verdict(&j), "unclear");
	for (int i = 0; i < 2; i++) {
		strvec_clear(&probes[i].outcomes);
		strvec_clear(&probes[i].details);
	}
	bisect_candidates_release(&j.cands);
}
