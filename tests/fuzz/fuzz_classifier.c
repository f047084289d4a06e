/* libFuzzer harness: arbitrary bytes through the whole finding pipeline
 * (classify, finalize, markdown, JSON), checking on the way that the
 * finding does not depend on how the bytes were chunked, and that both
 * outputs are valid UTF-8 whatever the input held (strict JSON readers
 * reject a file with one bad byte). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/finding_json.h"

static char *run(const uint8_t *data, size_t size, size_t chunk)
{
	struct classifier *c = classifier_new("fuzz.log");
	struct finding f;
	struct strbuf md = STRBUF_INIT;
	struct finding_context ctx = { .archive_name = "pid-1" };
	cJSON *j;
	char *s;

	for (size_t off = 0; off < size; off += chunk)
		classifier_feed(c, (const char *)data + off, size - off < chunk ? size - off : chunk);
	classifier_finish(c, &f);
	classifier_free(c);
	(void)finding_needs_info(&f);
	finding_finalize(&f, &ctx);
	finding_render_markdown(&f, &ctx, &md);
	j = finding_to_json(&f, &ctx);
	s = cJSON_PrintUnformatted(j);
	if (!s)
		abort();
	if (!text_is_utf8(s, strlen(s)) || !text_is_utf8(md.buf, md.len)) {
		fprintf(stderr, "the finding is not valid UTF-8:\n%s\n", s);
		abort();
	}
	cJSON_Delete(j);
	strbuf_release(&md);
	finding_release(&f);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The first byte picks a chunk size; the bytes are all log text. */
	size_t chunk = size ? (size_t)data[0] % 97 + 1 : 1;
	char *whole = run(data, size, size ? size : 1);
	char *pieces = run(data, size, chunk);

	if (strcmp(whole, pieces) != 0) {
		fprintf(stderr, "chunk size %zu changed the finding:\n%s\n%s\n", chunk, whole, pieces);
		abort();
	}
	free(whole);
	free(pieces);
	return 0;
}
