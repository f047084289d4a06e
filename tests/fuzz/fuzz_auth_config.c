/* libFuzzer harness: ~/.docker/config.json is the user's file, but often
 * written by other tools. Read credentials from it for a few registries
 * (without running any helper) and check the header decodes to JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "docker/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const refs[] = {
	"busybox", "127.0.0.1:5000/x/y:t", "ghcr.io/a/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		struct image_ref ref;
		struct strbuf dec = STRBUF_INIT;
		char *header = NULL, *helper = NULL;
		struct error err;

		if (image_ref_parse(&ref, refs[i], &err) < 0)
			abort();
		if (registry_auth_from_config_text((const char *)data, size, &ref, &header,
						   &helper, &err) == 0 && header) {
			cJSON *j;

			if (engine_base64_decode(header, strlen(header), &dec, &err) < 0)
				abort();
			j = cJSON_ParseWithLength(dec.buf, dec.len);
			if (!cJSON_IsObject(j))
				abort();
			cJSON_Delete(j);
		}
		free(header);
		free(helper);
		strbuf_release(&dec);
		image_ref_release(&ref);
	}
	return 0;
}
