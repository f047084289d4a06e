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

const char *test_image(const char *name)
{
	static struct { char name[32]; char ref[96]; } cache[8];
	const char *tag = getenv("HRR_IMAGE_TAG");
	size_t i;

	if (!tag || !*tag)
		tag = "dev";
	for (i = 0; i < sizeof(cache) / sizeof(cache[0]) && cache[i].name[0]; i++)
		if (!strcmp(cache[i].name, name))
			return cache[i].ref;
	if (i == sizeof(cache) / sizeof(cache[0]))
		abort();
	snprintf(cache[i].name, sizeof(cache[i].name), "%s", name);
	snprintf(cache[i].ref, sizeof(cache[i].ref), "hrr-%s:%s", name, tag);
	return cache[i].ref;
}

void scratch_code_object(const char *path, const char *tail)
{
	unsigned char h[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, [18] = 224 };
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(h, 1, sizeof(h), f), sizeof(h));
	cr_assert_geq(fputs(tail, f), 0);
	cr_assert_eq(fclose(f), 0);
}
