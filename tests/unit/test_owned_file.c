/* A file others may share, read only when nobody untrusted could have
 * written it (common/owned_file.h): the opened file's owner and mode, and
 * every directory above it. Another user is tests/support/other_user's. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/owned_file.h"
#include "common/xalloc.h"
#include "tests/support/other_user.h"
#include "tests/support/scratch.h"

static char *root;

static void setup(void)
{
	root = scratch_dir("owned-file");
	cr_assert_eq(chmod(root, 0755), 0);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
}

TestSuite(owned_file, .init = setup, .fini = teardown);

static char *plant(const char *dir, mode_t mode)
{
	char *path = xasprintf("%s/k.yaml", dir);
	struct error err;

	cr_assert_eq(fs_write_atomic(path, "x: 1\n", 5, mode, &err), 0, "%s", err.msg);
	cr_assert_eq(chmod(path, mode), 0);
	return path;
}

/* Read path under rule: 0, or -1 with the error's message in why. */
static int read_as(const char *path, enum owned_file_rule rule, char *why, size_t n)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct stat st;
	struct error err;
	int rc = owned_file_read(path, rule, 4096, &text, &st, &err);

	snprintf(why, n, "%s", rc < 0 ? err.msg : "");
	if (rc == 0)
		cr_assert_str_eq(text.buf, "x: 1\n");
	return rc;
}

Test(owned_file, the_caller_s_own_file_is_read_and_others_writes_are_refused)
{
	cleanup_free char *path = plant(root, 0644);
	char why[ERROR_MSG_MAX];

	cr_assert_eq(read_as(path, OWNED_FILE_MINE, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(read_as(path, OWNED_FILE_SHARED, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(chmod(path, 0666), 0);
	cr_assert_eq(read_as(path, OWNED_FILE_MINE, why, sizeof(why)), -1);
	cr_assert(strstr(why, "is writable by others (mode 0666): refused"), "%s", why);
	cr_assert_eq(read_as(path, OWNED_FILE_SHARED, why, sizeof(why)), -1);
}

Test(owned_file, another_user_s_file_is_shared_only_when_nobody_else_can_write_it)
{
	cleanup_free char *path = plant(root, 0644);
	cleanup_free char *dir = xasprintf("%s/open", root);
	cleanup_free char *inside = NULL;
	char why[ERROR_MSG_MAX];

	cr_assert_eq(chown(path, other_user_uid(), (gid_t)-1), 0);
	cr_assert_eq(read_as(path, OWNED_FILE_MINE, why, sizeof(why)), -1);
	cr_assert(strstr(why, "belongs to uid"), "%s", why);
	cr_assert_eq(read_as(path, OWNED_FILE_SHARED, why, sizeof(why)), 0, "%s", why);

	/* In a directory anyone can write (not sticky): refused either way. */
	cr_assert_eq(mkdir(dir, 0777), 0);
	cr_assert_eq(chmod(dir, 0777), 0);
	inside = plant(dir, 0644);
	cr_assert_eq(read_as(inside, OWNED_FILE_SHARED, why, sizeof(why)), -1);
	cr_assert(strstr(why, "its directory is writable by others (mode 0777) and not sticky"),
		  "%s", why);
	/* Sticky and root's, like /tmp: fine for a shared file. */
	cr_assert_eq(chmod(dir, 01777), 0);
	cr_assert_eq(read_as(inside, OWNED_FILE_SHARED, why, sizeof(why)), 0, "%s", why);
}

Test(owned_file, a_symlink_is_refused_and_a_missing_file_is_not_found)
{
	cleanup_free char *path = plant(root, 0644);
	cleanup_free char *link = xasprintf("%s/link.yaml", root);
	cleanup_free char *missing = xasprintf("%s/none/k.yaml", root);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	char why[ERROR_MSG_MAX];
	struct stat st;
	struct error err;

	cr_assert_eq(symlink(path, link), 0);
	cr_assert_eq(read_as(link, OWNED_FILE_SHARED, why, sizeof(why)), -1);
	cr_assert(strstr(why, "is a symlink: refused"), "%s", why);
	cr_assert_eq(owned_file_read(missing, OWNED_FILE_MINE, 4096, &text, &st, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND, "%s", err.msg);
}
