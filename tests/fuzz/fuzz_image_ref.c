/* libFuzzer harness: an image reference comes from the command line and
 * from run.json files. A parsed reference must have its parts, and its
 * auth key must be a string. */
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
		if (!ref.registry || !ref.repository || !ref.name || (!ref.tag && !ref.digest))
			abort();
		if (strlen(image_ref_auth_key(&ref)) == 0)
			abort();
		image_ref_release(&ref);
	}
	free(s);
	return 0;
}
