/* libFuzzer harness: manifest.json is untrusted input. Parse it, and when
 * it parses, let a finding take its capture fields and render. */
#include <stdint.h>
#include <stdlib.h>

#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/finding_json.h"
#include "preflight/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest m;
	struct error err;

	manifest_init(&m);
	if (manifest_parse(&m, (const char *)data, size, &err) == 0) {
		struct finding f;
		struct finding_context ctx = { .archive_name = "pid-1", .manifest = &m,
					       .manifest_path = "pid-1/manifest.json" };
		cJSON *j;
		char *s;

		finding_init(&f);
		finding_finalize(&f, &ctx);
		j = finding_to_json(&f, &ctx);
		s = cJSON_PrintUnformatted(j);
		if (!s)
			abort();
		free(s);
		cJSON_Delete(j);
		finding_release(&f);
	}
	manifest_release(&m);
	return 0;
}
