/* libFuzzer harness: the stdout/stderr framing of logs, attach and exec
 * comes from the engine. The first byte picks raw mode and the chunk size;
 * the payload handed out must never exceed what came in. */
#include <stdint.h>
#include <stdlib.h>

#include "docker/engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	size_t bytes;
	int calls;
};

static int on_frame(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	struct seen *s = ud;

	if (stream > ENGINE_STDERR || (len && !data))
		abort();
	s->bytes += len;
	return ++s->calls > 100000; /* a consumer that stops */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct engine_demux d;
	struct seen seen = { 0, 0 };
	struct error err;
	size_t chunk, total;
	int r = 0;

	if (!size)
		return 0;
	chunk = (size_t)(data[0] & 0x7f) + 1;
	engine_demux_init(&d, data[0] & 0x80, on_frame, &seen);
	data++;
	size--;
	total = size;
	while (size && r == 0) {
		size_t n = size < chunk ? size : chunk;

		r = engine_demux_feed(&d, (const char *)data, n, &err);
		data += n;
		size -= n;
	}
	if (r == 0)
		(void)engine_demux_finish(&d, &err);
	if (seen.bytes > total)
		abort();
	return 0;
}
