/* orchestrator/report/report_perf: --perf-baseline's comparison within one
 * sweep, from results lines (docs/perf.md "Comparisons"), and how the
 * reports and the exit code show it (docs/perf.md "In the reports"). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "orchestrator/report/report_perf.h"
#include "orchestrator/jobs/sweep_finish.h"
#include "tests/support/report_text.h"

static void add(struct sweep_results *rs, const char *name, const char *image, const char *id,
		const char *gfx, long device_id, double base)
{
	static const double wobble[] = { 0, 0.2, -0.2, 0.1, -0.1 };
	char line[1024];
	int len = snprintf(line, sizeof(line),
			   "{\"case\":\"%s\",\"image\":\"%s\",\"image_id\":\"%s\",\"state\":\"done\","
			   "\"attempt\":1,\"digest\":\"d\",\"gfx\":\"%s\",\"device_id\":%ld,"
			   "\"perf\":{\"warmup\":0,\"note\":null,\"samples\":[",
			   name, image, id, gfx, device_id);

	for (int i = 0; i < 5; i++)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				"%s{\"kernel_ms\":%.1f,\"graph_ms\":0,\"total_ms\":%.1f,"
				"\"wall_ms\":900}", i ? "," : "", base + wobble[i],
				base + wobble[i]);
	snprintf(line + len, sizeof(line) - (size_t)len, "]}}\n");
	sweep_results_parse_text(rs, line);
}

Test(report_perf, slower_unchanged_same_build_and_other_products)
{
	struct sweep_results rs = { 0 };
	struct report_perf_set set;
	struct report_perf p;
	const struct perf_rule rule = { 0.03, 0.01, 0.05 };

	add(&rs, "hot", "a", "sha256:a", "gfx942", 29857, 40);
	add(&rs, "hot", "b", "sha256:b", "gfx942", 29857, 44);
	add(&rs, "cold", "a", "sha256:a", "gfx942", 29857, 40);
	add(&rs, "cold", "b", "sha256:b", "gfx942", 29857, 40);
	add(&rs, "twin", "a", "sha256:a", "gfx942", 29857, 40);
	add(&rs, "twin", "c", "sha256:a", "gfx942", 29857, 44);
	add(&rs, "mi250", "a", "sha256:a", "gfx942", 29857, 40);
	add(&rs, "mi250", "b", "sha256:b", "gfx90a", 29704, 80);
	cr_assert_eq(rs.n, 8);
	report_perf_collect(&set, &rs);
	sweep_results_release(&rs);

	cr_assert(report_perf_compare(&set, "hot", "b", "a", &rule, &p));
	cr_assert_eq(p.status, PERF_SLOWER);
	cr_assert_float_eq(p.cmp.ratio, 1.1, 1e-9);
	cr_assert_float_eq(p.cmp.p, 2.0 / 252, 1e-12);
	cr_assert_str_eq(p.baseline_image, "a");
	cr_assert(report_perf_compare(&set, "cold", "b", "a", &rule, &p));
	cr_assert_eq(p.status, PERF_UNCHANGED);
	cr_assert(report_perf_compare(&set, "twin", "c", "a", &rule, &p));
	cr_assert_eq(p.status, PERF_SAME_BUILD, "the same image ID and archive");
	cr_assert_not(report_perf_compare(&set, "mi250", "b", "a", &rule, &p),
		      "never across GPU products");
	cr_assert_not(report_perf_compare(&set, "hot", "a", "a", &rule, &p));
	cr_assert_not(report_perf_compare(&set, "nosuch", "b", "a", &rule, &p));
	report_perf_release(&set);
}

/* Two cases of one image compared with another's: "hot" slower, "cold"
 * unchanged, as the renderers get them. */
static void two_cases(struct report *r, struct report_case *cases, struct report_perf *perf)
{
	static const struct perf_comparison slower = {
		.status = PERF_SLOWER, .n_base = 5, .n_new = 5, .median_base = 40.0,
		.median_new = 44.1, .ratio = 1.103, .ci_lo = 1.09, .ci_hi = 1.11, .p = 2.0 / 252,
		.p_adj = 4.0 / 252,
	};
	static const struct perf_comparison same = {
		.status = PERF_UNCHANGED, .n_base = 5, .n_new = 5, .median_base = 40.0,
		.median_new = 40.1, .ratio = 1.0025, .ci_lo = 0.99, .ci_hi = 1.01, .p = 0.69,
		.p_adj = 0.69,
	};

	perf[0] = (struct report_perf){ .status = PERF_SLOWER, .baseline_image = "rocm:a",
					.gfx = "gfx942", .device_id = 29857, .cmp = slower };
	perf[1] = (struct report_perf){ .status = PERF_UNCHANGED, .baseline_image = "rocm:a",
					.gfx = "gfx942", .device_id = 29857, .cmp = same };
	cases[0] = (struct report_case){ .case_name = "hot", .image = "rocm:b", .outcome = "PASS",
					 .prev_outcome = "PASS", .status = ST_PASS,
					 .kind = "workload", .perf = &perf[0] };
	cases[1] = (struct report_case){ .case_name = "cold", .image = "rocm:b", .outcome = "PASS",
					 .prev_outcome = "PASS", .status = ST_PASS,
					 .kind = "workload", .perf = &perf[1] };
	*r = (struct report){ .sweep_id = "s1", .label = "l", .state = SWEEP_FINISHED,
			      .cases = cases, .n = 2 };
	report_finish(r);
}

Test(report_perf, the_summary_lists_the_changes_first_and_counts_them)
{
	struct report_case cases[2];
	struct report_perf perf[2];
	struct report r;
	cleanup_strbuf struct strbuf md = STRBUF_INIT, json = STRBUF_INIT;
	struct error err;
	const char *hot, *cold;

	two_cases(&r, cases, perf);
	cr_assert_eq(r.perf_counts[PERF_SLOWER], 1);
	cr_assert_eq(r.perf_counts[PERF_UNCHANGED], 1);
	cr_assert_eq(report_text(report_summary_md, &r, &md, &err), 0, "%s", err.msg);
	cr_assert(strstr(md.buf, "## GPU time (2 compared)\n\n1 slower, 1 unchanged."), "%s", md.buf);
	hot = strstr(md.buf, "| hot | rocm:b | rocm:a | slower | 44.1 | 40.0 | 1.103 | 1.090–1.110 "
			     "| 0.007937 | 0.01587 | 5/5 |");
	cold = strstr(md.buf, "| cold | rocm:b | rocm:a | unchanged |");
	cr_assert(hot && cold && hot < cold, "%s", md.buf);
	cr_assert(strstr(md.buf, "; GPU time: 1 slower: exit 0"), "%s", md.buf);
	cr_assert_eq(report_text(report_summary_json, &r, &json, &err), 0, "%s", err.msg);
	cleanup_cjson cJSON *j = cJSON_Parse(json.buf);
	cJSON *pc = cJSON_GetObjectItem(j, "perf_counts");

	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(pc, "slower")), 1, "%s", json.buf);
	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(pc, "unchanged")), 1);
	/* The raw and the adjusted p (docs/perf.md "A thousand cases a night"). */
	cr_assert(strstr(json.buf, "\"p_adjusted\":\t0.015873"), "%s", json.buf);
}

/* A family too large for its samples (docs/perf.md "When a sweep can
 * find nothing"): summary.md says so once, with the --perf N that can,
 * and summary.json carries the figures and the same words. */
Test(report_perf, a_family_that_can_find_nothing_is_said_once)
{
	struct report_case cases[2];
	struct report_perf perf[2];
	struct report r;
	struct perf_fdr_reach reach = { .m = 1000, .k = 100, .n_needed = 6, .q = 0.05,
					.min_p = 2.0 / 252, .bar = 0.005 };
	cleanup_strbuf struct strbuf md = STRBUF_INIT, json = STRBUF_INIT;
	struct error err;
	const char *say = "GPU time can find nothing here: 1000 comparisons within the sweep, "
			  "and at a false discovery rate of 0.05 even 100 slower cases need p at "
			  "most 0.005, while their samples can reach 0.0079 at best. --perf 6 or "
			  "more can";

	two_cases(&r, cases, perf);
	r.perf_reach = &reach;
	cr_assert_eq(report_text(report_summary_md, &r, &md, &err), 0, "%s", err.msg);
	const char *at = strstr(md.buf, say);

	cr_assert(at, "%s", md.buf);
	cr_assert_null(strstr(at + strlen(say), "can find nothing"), "once: %s", md.buf);
	cr_assert_eq(report_text(report_summary_json, &r, &json, &err), 0, "%s", err.msg);
	cleanup_cjson cJSON *j = cJSON_Parse(json.buf);
	cJSON *w = cJSON_GetObjectItem(j, "perf_warning");

	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(w, "perf_needed")), 6, "%s",
		     json.buf);
	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(w, "comparisons")), 1000);
	cr_assert(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(w, "text")), say), "%s",
		  json.buf);
	r.perf_reach = NULL;
	strbuf_reset(&md);
	cr_assert_eq(report_text(report_summary_md, &r, &md, &err), 0, "%s", err.msg);
	cr_assert_null(strstr(md.buf, "can find nothing"), "%s", md.buf);
}

Test(report_perf, no_comparison_no_section)
{
	struct report_case c = { .case_name = "a", .image = "i", .outcome = "PASS",
				 .status = ST_PASS };
	struct report r = { .sweep_id = "s1", .label = "l", .cases = &c, .n = 1 };
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	struct error err;

	report_finish(&r);
	cr_assert_eq(report_text(report_summary_md, &r, &md, &err), 0, "%s", err.msg);
	cr_assert_null(strstr(md.buf, "GPU time"), "%s", md.buf);
}

Test(report_perf, the_html_cell_says_the_change)
{
	struct report_case cases[2];
	struct report_perf perf[2];
	struct report r;
	cleanup_strbuf struct strbuf h = STRBUF_INIT;
	struct error err;

	two_cases(&r, cases, perf);
	cr_assert_eq(report_text(report_html, &r, &h, &err), 0, "%s", err.msg);
	cr_assert(strstr(h.buf, "class=\"perf perf-slower\""), "%s", h.buf);
	cr_assert(strstr(h.buf, ">GPU slower +10.3%<"), "%s", h.buf);
	cr_assert(strstr(h.buf, "GPU time: 1 slower, 1 unchanged"), "%s", h.buf);
}

Test(report_perf, perf_slower_in_fail_on_makes_the_exit_1)
{
	struct report_case cases[2];
	struct report_perf perf[2];
	struct report r;
	sweep_status_mask m;
	const char *bad;
	size_t bad_len;

	two_cases(&r, cases, perf);
	cr_assert_eq(sweep_status_mask_parse("new,perf-slower", &m, &bad, &bad_len), 0);
	cr_assert(m & SWEEP_FAIL_PERF_SLOWER);
	cr_assert(m & SWEEP_STATUS_BIT(ST_NEW));
	cr_assert_eq(sweep_status_mask_parse("perf-slowe", &m, &bad, &bad_len), -1);
	sweep_finish_exit(&r, SWEEP_FINISHED, SWEEP_FAIL_DEFAULT);
	cr_assert_eq(r.exit_code, 0);
	sweep_finish_exit(&r, SWEEP_FINISHED, SWEEP_FAIL_DEFAULT | SWEEP_FAIL_PERF_SLOWER);
	cr_assert_eq(r.exit_code, 1);
	sweep_finish_exit(&r, SWEEP_INTERRUPTED, SWEEP_FAIL_DEFAULT | SWEEP_FAIL_PERF_SLOWER);
	cr_assert_eq(r.exit_code, 1, "a slower case fails as a regression does");
	perf[0].status = PERF_SAME_BUILD;
	report_finish(&r);
	sweep_finish_exit(&r, SWEEP_FINISHED, SWEEP_FAIL_DEFAULT | SWEEP_FAIL_PERF_SLOWER);
	cr_assert_eq(r.exit_code, 0, "same-build is never a regression");
}

/* The report adds the results a chunk at a time as the import reads them
 * (never all in memory): a retry in a later chunk is still the case's
 * side, and the sides come out sorted. */
Test(report_perf, sides_added_a_chunk_at_a_time_keep_each_case_s_last_attempt)
{
	struct sweep_results one = { 0 }, two = { 0 };
	struct report_perf_set set = { 0 };

	add(&one, "zeta", "a", "sha256:a", "gfx942", 29857, 40);
	add(&one, "alpha", "a", "sha256:a", "gfx942", 29857, 40);
	add(&two, "zeta", "a", "sha256:a", "gfx942", 29857, 50);
	two.v[0].attempt = 2;
	/* Reserved for fewer sides than come: the set grows past it. */
	report_perf_reserve(&set, 1);
	cr_assert_eq(set.alloc, 1);
	report_perf_add_results(&set, &one);
	sweep_results_release(&one);
	report_perf_add_results(&set, &two);
	sweep_results_release(&two);
	cr_assert_eq(set.n, 3);
	report_perf_finish(&set);
	cr_assert_eq(set.n, 2);
	cr_assert_str_eq(set.v[0].case_name, "alpha");
	cr_assert_str_eq(set.v[1].case_name, "zeta");
	cr_assert_eq(set.v[1].attempt, 2);
	cr_assert_float_eq(set.v[1].ms[0], 50, 1e-9);
	report_perf_release(&set);
}

/* Across nights, noisy says the case's own spread (docs/perf.md "Nights
 * as units"). */
Test(report_perf, a_noisy_case_says_how_much_it_moves)
{
	struct report_perf p = {
		.status = PERF_NOISY, .baseline_image = "nightly",
		.cmp = { .status = PERF_NOISY, .n_base = 1, .n_new = 5, .median_base = 40,
			 .median_new = 44, .ratio = 1.1, .ci_lo = 0.9, .ci_hi = 1.3, .p = 0.3,
			 .p_adj = 0.6, .spread = 0.06, .nights = 20 },
	};
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	report_perf_line(&p, &out);
	cr_assert(strstr(out.buf, "p 0.3, adjusted 0.6) against nightly; this case moves 6.0% "
				  "night to night; a 10.0% change is within it"), "%s", out.buf);
}
