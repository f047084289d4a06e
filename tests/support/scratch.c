#include "tests/support/scratch.h"
#include "common/xalloc.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <unistd.h>
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

const char *test_source_root(void)
{
	static char root[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	if (root[0])
		return root;
	if (getenv("HRR_SRCDIR")) {
		snprintf(root, sizeof(root), "%s", getenv("HRR_SRCDIR"));
		return root;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert(n > 0, "cannot find the test binary: set HRR_SRCDIR");
	exe[n] = '\0';
	for (int i = 0; i < 3; i++)
		snprintf(exe, sizeof(exe), "%s", dirname(exe));
	snprintf(root, sizeof(root), "%s", exe);
	return root;
}
