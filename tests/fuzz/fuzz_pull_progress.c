/* libFuzzer harness: a pull's answer is newline-delimited JSON from the
 * engine, relaying what a registry said. Split it into lines the way the
 * pull does, and read each one as a progress or error object. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "docker/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_progress(const struct engine_pull_event *ev, void *ud)
{
	size_t *n = ud;

	/* Every string handed out must be a readable C string. */
	*n += (ev->status ? strlen(ev->status) : 0) + (ev->id ? strlen(ev->id) : 0) +
	      (ev->progress ? strlen(ev->progress) : 0);
}

static int on_line(const char *line, size_t len, void *ud, struct error *err)
{
	return engine_pull_progress_line(line, len, "fuzz/image:1", "registry.fuzz",
					 on_progress, ud, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct engine_lines l;
	struct error err;
	size_t seen = 0;

	/* A small bound, so the limit path is reached too. */
	engine_lines_init(&l, 4096, on_line, &seen);
	if (engine_lines_feed(&l, (const char *)data, size, &err) == 0)
		(void)engine_lines_finish(&l, &err);
	engine_lines_release(&l);
	return 0;
}
