/* libFuzzer harness: a site's seccomp profile (--seccomp FILE) is read
 * from a file that may have been written by anyone with access to it. */
#include <seccomp.h>
#include <stdint.h>

#include "orchestrator/seccomp/seccomp_json.h"
#include "orchestrator/seccomp/seccomp_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct error err;

	(void)seccomp_profile_validate((const char *)data, size, SCMP_ARCH_X86_64, &err);
	return 0;
}
