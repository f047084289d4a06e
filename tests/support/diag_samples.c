/* The GPU debuggers' sample outputs (see diag_samples.h). */
#include "tests/support/diag_samples.h"

#include <criterion/criterion.h>
#include <stdlib.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tests/support/scratch.h"

char *diag_sample(const char *corpus, const char *name, size_t *len)
{
	char *path = xasprintf("%s/tests/fuzz/corpus/%s/%s", test_source_root(), corpus, name);
	struct strbuf sb = STRBUF_INIT;
	struct error err = { 0 };

	cr_assert_eq(fs_read_small_file(path, 1 << 20, &sb, &err), 0, "%s: %s", path, err.msg);
	free(path);
	return strbuf_detach(&sb, len);
}
