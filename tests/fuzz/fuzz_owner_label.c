/* libFuzzer harness: owner labels are read back from every container the
 * engine lists, whoever created them; gc decides removals on what parses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/containers/ours.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	char host[256];
	pid_t pid;
	unsigned long long start;
	uid_t uid;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (owner_label_parse(s, host, sizeof(host), &pid, &start, &uid) == 0 &&
	    (pid <= 0 || strlen(host) >= sizeof(host) || !host[0]))
		abort();
	(void)owner_label_pidns(s);
	free(s);
	return 0;
}
