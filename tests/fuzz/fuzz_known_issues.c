/* libFuzzer harness: the known-issues file, YAML people edit and anyone
 * with write access to a shared checkout can change. A bad file must be
 * one error (never a crash, never a rule half-read); a good one must give
 * rules whose every field is what was written and that match or not
 * without touching memory they do not own. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/finding/signature.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct known_issues k;
	struct error err;
	struct signature sig;
	struct known_subject s;

	memset(&k, 0, sizeof(k));
	if (known_issues_parse("fuzz.yaml", (const char *)data, size, &k, &err) < 0) {
		if (!err.msg[0] || strncmp(err.msg, "fuzz.yaml", 9) || k.n)
			abort();
		known_issues_release(&k);
		return 0;
	}
	memset(&sig, 0, sizeof(sig));
	sig.outcome = "MAF";
	sig.fault_class = "illegal_memory_access";
	sig.kernel_family = "Cijk_Alik_Bljk";
	sig.evidence = "Memory access fault by GPU node-<n> on address <addr>";
	memset(&s, 0, sizeof(s));
	s.sig = &sig;
	s.case_name = "library/a/capture.hrr/pid-1";
	s.image = "rocm/vllm:nightly";
	s.gpu = "gfx942";
	s.host = "node01";
	for (size_t i = 0; i < k.n; i++)
		if (!k.v[i].id || k.v[i].line < 1)
			abort();
	(void)known_issues_match(&k, &s, 0);
	(void)known_issues_match(&k, &s, 4102444800LL);
	known_issues_release(&k);
	return 0;
}
