/* libFuzzer harness: the API version comes from the engine's /_ping header
 * and $DOCKER_API_VERSION, the flavour from its /version answer. Parsing
 * and comparing must agree with each other. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "docker/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	int major, minor;
	cJSON *v;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (engine_version_parse(s, &major, &minor) == 0) {
		if (major < 0 || minor < 0 || engine_version_cmp(s, s) != 0)
			abort();
		if (engine_version_cmp(s, ENGINE_API_VERSION_MIN) !=
		    -engine_version_cmp(ENGINE_API_VERSION_MIN, s))
			abort();
	} else if (engine_version_cmp(s, ENGINE_API_VERSION_MIN) >= 0) {
		abort(); /* unparsable sorts first */
	}
	v = cJSON_ParseWithLength((const char *)data, size);
	if (engine_flavour_from_version(v) == ENGINE_FLAVOUR_UNKNOWN)
		abort();
	cJSON_Delete(v);
	free(s);
	return 0;
}
