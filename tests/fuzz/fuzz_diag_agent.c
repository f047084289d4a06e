/* libFuzzer harness: a replay log under rocm-debug-agent is untrusted
 * input. Feed it in two pieces (the split point from the first byte, so
 * lines cross feed calls), then build a diagnosis and render it. */
#include <stdint.h>
#include <stdlib.h>

#include "orchestrator/diagnosis/diagnosis.h"
#include "orchestrator/diagnosis/diagnosis_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_agent_report r;
	struct diag_agent_parser p;
	struct diagnosis d;
	struct strbuf md = STRBUF_INIT;
	size_t cut = size ? data[0] % (size + 1) : 0;
	cJSON *j;
	char *s;

	diag_agent_report_init(&r);
	diag_agent_parser_init(&p, &r);
	diag_agent_feed(&p, (const char *)data, cut);
	diag_agent_feed(&p, (const char *)data + cut, size - cut);
	diag_agent_finish(&p);
	diagnosis_init(&d, DIAGNOSIS_AGENT);
	diagnosis_from_agent(&d, &r);
	j = diagnosis_to_json(&d);
	s = cJSON_PrintUnformatted(j);
	if (!s)
		abort();
	diagnosis_render_markdown(&d, &md);
	free(s);
	cJSON_Delete(j);
	strbuf_release(&md);
	diagnosis_release(&d);
	diag_agent_report_release(&r);
	return 0;
}
