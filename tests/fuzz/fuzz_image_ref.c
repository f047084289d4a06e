/* libFuzzer harness: image references come from the command line, sweep
 * plans and run.json files written elsewhere. Parse, and when it parses,
 * ask for the credentials key (the part that picks a registry's secret). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "docker/engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct image_ref ref;
	struct error err;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (image_ref_parse(&ref, s, &err) == 0) {
		if (!ref.registry || !ref.repository || !ref.name || !image_ref_auth_key(&ref))
			abort();
		image_ref_release(&ref);
	}
	free(s);
	return 0;
}
