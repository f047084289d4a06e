/* orchestrator/report/report_perf: --perf-baseline's comparison within one
 * sweep, from results lines (docs/perf.md "Comparisons"). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "orchestrator/report/report_perf.h"

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
