/* libFuzzer harness: the tar stream of GET /containers/{id}/archive comes
 * from the engine and, through it, from the image. The first byte picks
 * the chunk size, so header and PAX splits are explored too. */
#include <stdint.h>
#include <stdlib.h>

#include "docker/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf out = STRBUF_INIT;
	struct engine_tar t;
	struct error err;
	size_t chunk;
	int r = 0;

	if (!size)
		return 0;
	chunk = (size_t)data[0] * 3 + 1;
	data++;
	size--;
	engine_tar_init(&t, &out, 1u << 16, "/fuzz");
	while (size && r == 0) {
		size_t n = size < chunk ? size : chunk;

		r = engine_tar_feed(&t, (const char *)data, n, &err);
		data += n;
		size -= n;
	}
	if (r == 0)
		(void)engine_tar_finish(&t, &err);
	if (out.len > (1u << 16))
		abort(); /* the bound must hold */
	engine_tar_release(&t);
	strbuf_release(&out);
	return 0;
}
