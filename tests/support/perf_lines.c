#include "tests/support/perf_lines.h"

#include <stdio.h>

void perf_line(struct sweep_results *rs, const char *name, const char *image,
	       const char *image_id, int attempt, int warmup, double base)
{
	static const double wobble[] = { 0, 0.2, -0.2, 0.1, -0.1 };
	char line[1200];
	int len = snprintf(line, sizeof(line),
			   "{\"case\":\"%s\",\"image\":\"%s\",\"image_id\":\"%s\","
			   "\"state\":\"done\",\"outcome\":\"PASS\",\"attempt\":%d,\"digest\":\"d\","
			   "\"gfx\":\"gfx942\",\"device_id\":29857",
			   name, image, image_id, attempt);

	if (base > 0) {
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				",\"perf\":{\"warmup\":%d,\"note\":null,\"samples\":[", warmup);
		for (int i = 0; i < 5; i++)
			len += snprintf(line + len, sizeof(line) - (size_t)len,
					"%s{\"kernel_ms\":%.1f,\"graph_ms\":0,\"total_ms\":%.1f,"
					"\"wall_ms\":900}", i ? "," : "", base + wobble[i],
					base + wobble[i]);
		len += snprintf(line + len, sizeof(line) - (size_t)len, "]}");
	}
	snprintf(line + len, sizeof(line) - (size_t)len, "}\n");
	sweep_results_parse_text(rs, line);
}
