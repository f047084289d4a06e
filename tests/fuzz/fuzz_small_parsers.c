/* libFuzzer harness: the small parsers of text a user, an image or an
 * archive hands the tool. The first byte picks the parser, the rest is its
 * input: --gpu lists (GPU=…), byte sizes (--memory), booleans (env twins),
 * dotted versions (manifest and image stack), library file names and
 * hip/version files read out of an image. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "orchestrator/cli/option_values.h"
#include "preflight/stack_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void gpu_list(const char *s)
{
	int out[8];
	size_t n = 0;
	struct error err;

	if (options_parse_gpu_list(s, out, 8, &n, &err) == 0) {
		if (n > 8)
			abort();
		for (size_t i = 0; i < n; i++)
			if (out[i] < 0)
				abort();
	}
}

static void versions(const char *s)
{
	long nums[4];
	int n = version_parse(s, nums, 4);
	char *v;

	if (n < 0 || n > 4)
		abort();
	for (int i = 0; i < n; i++)
		if (nums[i] < 0)
			abort();
	v = stack_version_from_name(s, "libamdhip64.so.", 2);
	if (v && strncmp(s, "libamdhip64.so.", 15) != 0)
		abort();
	free(v);
	free(stack_hip_version_file_parse(s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	long long bytes;
	struct error err;
	int b;

	if (size < 1)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		gpu_list(s);
		break;
	case 1:
		if (options_parse_bytes("--memory", s, &bytes, &err) == 0 && bytes < 0)
			abort();
		break;
	case 2:
		b = options_parse_bool(s);
		if (b < -1 || b > 1)
			abort();
		break;
	default:
		versions(s);
	}
	free(s);
	return 0;
}
