/* libFuzzer harness: the small parsers of text a user, an image or an
 * archive hands the tool. The first byte picks the parser, the rest is its
 * input: --gpu lists (GPU=…), byte sizes (--memory), booleans (env twins),
 * dotted versions (manifest and image stack), library file names and
 * hip/version files read out of an image, --playback-arg flags and the
 * --help text they are looked up in, code object headers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/strvec.h"
#include "orchestrator/cli/option_values.h"
#include "orchestrator/replay/kernel_replace.h"
#include "orchestrator/replay/playback_args.h"
#include "preflight/stack_files.h"

/* Each line a --playback-arg; the whole input also the --help text. */
static void playback_flags(const char *s)
{
	struct playback_args a = PLAYBACK_ARGS_INIT;
	struct strvec argv = STRVEC_INIT, unlisted = STRVEC_INIT;
	struct error err;
	char *copy = strdup(s), *save = NULL;

	for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		(void)playback_args_add(&a, line, "--playback-arg", &err);
	playback_args_argv(&a, &argv);
	for (size_t i = 0; i < a.n; i++)
		if (strncmp(a.v[i].flag, "--", 2) || (a.v[i].value && a.v[i].value[0] == '-'))
			abort();
	playback_args_unlisted(&a, s, &unlisted);
	if (unlisted.n > a.n || argv.n > 2 * a.n)
		abort();
	strvec_clear(&argv);
	strvec_clear(&unlisted);
	playback_args_release(&a);
	free(copy);
}

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
	switch (data[0] % 6) {
	case 4:
		playback_flags(s);
		break;
	case 5:
		(void)kernel_code_object_header_problem(data + 1, size - 1);
		break;
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
