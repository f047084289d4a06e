#include "tests/support/scratch.h"
#include "common/xalloc.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *scratch_dir(const char *tag)
{
	const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *p = xasprintf("%s/hrr-%s-XXXXXX", base, tag);

	cr_assert(mkdtemp(p), "mkdtemp %s: %s", p, strerror(errno));
	return p;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void scratch_remove(const char *path)
{
	if (path)
		nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
