/* libFuzzer harness: rocgdb's output (GDB/MI records and human tables) is
 * untrusted input: names come from the archive. Parse it in two pieces
 * (the split point from the first byte), each line also as a lone record,
 * then build a diagnosis and render it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/diagnosis/diagnosis.h"
#include "orchestrator/diagnosis/diagnosis_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size;
	struct diag_mi_result r;
	struct diag_mi_parser p;
	struct diagnosis d;
	struct strbuf md = STRBUF_INIT;
	size_t cut = size ? data[0] % (size + 1) : 0;
	cJSON *j;
	char *out;

	for (const char *line = s; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t len = (size_t)((nl ? nl : end) - line);
		struct mi_record rec;
		struct error err;

		if (mi_parse_record(line, len, &rec, &err) == 0)
			mi_record_release(&rec);
		line += len + 1;
	}
	diag_mi_result_init(&r);
	diag_mi_parser_init(&p, &r);
	diag_mi_feed(&p, s, cut);
	diag_mi_feed(&p, s + cut, size - cut);
	diag_mi_finish(&p);
	diagnosis_init(&d, DIAGNOSIS_ROCGDB);
	diagnosis_from_rocgdb(&d, &r);
	j = diagnosis_to_json(&d);
	out = cJSON_PrintUnformatted(j);
	if (!out)
		abort();
	diagnosis_render_markdown(&d, &md);
	free(out);
	cJSON_Delete(j);
	strbuf_release(&md);
	diagnosis_release(&d);
	diag_mi_result_release(&r);
	return 0;
}
