/* common/fsutil: atomic writes that follow no link, private directories,
 * lexical path normalization. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "tests/support/scratch.h"

static char *dir;

static void setup(void)
{
	dir = scratch_dir("fsutil");
}

static void teardown(void)
{
	scratch_remove(dir);
	free(dir);
}

TestSuite(fsutil, .init = setup, .fini = teardown);

static char *path_in(const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static void read_back(const char *path, struct strbuf *out)
{
	struct error err = { 0 };

	strbuf_reset(out);
	cr_assert_eq(fs_read_small_file(path, 4096, out, &err), 0, "%s", err.msg);
}

Test(fsutil, an_atomic_write_replaces_a_planted_symlink_instead_of_following_it)
{
	char *victim = path_in("victim"), *out = path_in("finding.md");
	struct strbuf text = STRBUF_INIT;
	struct error err = { 0 };
	struct stat st;

	cr_assert_eq(fs_write_atomic(victim, "precious\n", 9, 0644, &err), 0, "%s", err.msg);
	cr_assert_eq(symlink(victim, out), 0);
	cr_assert_eq(fs_write_atomic(out, "finding\n", 8, 0644, &err), 0, "%s", err.msg);
	read_back(victim, &text);
	cr_assert_str_eq(text.buf, "precious\n");
	cr_assert_eq(lstat(out, &st), 0);
	cr_assert(S_ISREG(st.st_mode), "the link is replaced by a file");
	read_back(out, &text);
	cr_assert_str_eq(text.buf, "finding\n");
	strbuf_release(&text);
	free(victim);
	free(out);
}

Test(fsutil, an_atomic_write_that_fails_leaves_the_earlier_file_whole)
{
	char *out = path_in("finding.md"), *sub = path_in("ro");
	char *inside;
	struct strbuf text = STRBUF_INIT;
	struct error err = { 0 };

	/* As root a read-only directory is still writable: make the temporary
	 * impossible instead (its directory is a file). */
	cr_assert_eq(fs_write_atomic(out, "earlier\n", 8, 0644, &err), 0, "%s", err.msg);
	cr_assert_eq(fs_write_atomic(sub, "x", 1, 0644, &err), 0, "%s", err.msg);
	inside = path_in("ro/finding.md");
	cr_assert_lt(fs_write_atomic(inside, "later\n", 6, 0644, &err), 0);
	cr_assert(strstr(err.msg, "temporary"), "%s", err.msg);
	read_back(out, &text);
	cr_assert_str_eq(text.buf, "earlier\n");
	strbuf_release(&text);
	free(out);
	free(sub);
	free(inside);
}

Test(fsutil, new_files_follow_the_umask)
{
	char *out = path_in("run.json");
	struct error err = { 0 };
	struct stat st;
	mode_t old = umask(077);

	cr_assert_eq(fs_write_atomic(out, "{}", 2, 0644, &err), 0, "%s", err.msg);
	umask(old);
	cr_assert_eq(stat(out, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	free(out);
}

Test(fsutil, a_private_dir_is_made_0700_and_others_are_refused)
{
	char *mine = path_in("cache-mine"), *open_dir = path_in("cache-open");
	char *theirs = path_in("cache-theirs"), *link = path_in("cache-link");
	struct error err = { 0 };
	struct stat st;

	cr_assert_eq(fs_private_dir(mine, &err), 0, "%s", err.msg);
	cr_assert_eq(stat(mine, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700);
	cr_assert_eq(fs_private_dir(mine, &err), 0, "existing is fine: %s", err.msg);

	cr_assert_eq(mkdir(open_dir, 0777), 0);
	cr_assert_eq(chmod(open_dir, 0777), 0);
	cr_assert_lt(fs_private_dir(open_dir, &err), 0);
	cr_assert(strstr(err.msg, "open to others"), "%s", err.msg);

	cr_assert_eq(mkdir(theirs, 0700), 0);
	cr_assert_eq(chown(theirs, 4242, 4242), 0);
	cr_assert_lt(fs_private_dir(theirs, &err), 0);
	cr_assert(strstr(err.msg, "uid 4242"), "%s", err.msg);

	cr_assert_eq(symlink(mine, link), 0);
	cr_assert_lt(fs_private_dir(link, &err), 0);
	free(mine);
	free(open_dir);
	free(theirs);
	free(link);
}

Test(fsutil, paths_normalize_lexically)
{
	static const char *const cases[][2] = {
		{ "/", "/" }, { "/a/b", "/a/b" }, { "//a///b/", "/a/b" }, { "/a/./b/.", "/a/b" },
		{ "/x/missing/../archive/x", "/x/archive/x" }, { "/..", "/" }, { "/../a", "/a" },
		{ "/a/b/../../..", "/" }, { "/a/..b/c..", "/a/..b/c.." }, { "a/b", "/a/b" },
	};
	struct strbuf out = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&out);
		fs_path_normalize(cases[i][0], &out);
		cr_assert_str_eq(out.buf, cases[i][1], "%s", cases[i][0]);
	}
	strbuf_release(&out);
}

/* Issue item 5: a cache entry someone else could have written is ignored. */
Test(fsutil, a_cache_entry_must_be_the_callers_and_not_writable_by_others)
{
	char *mine = path_in("playback-mine"), *theirs = path_in("playback-theirs");
	char *open_file = path_in("playback-open"), *link = path_in("playback-link");
	struct strbuf text = STRBUF_INIT;
	struct error err = { 0 };

	cr_assert_eq(fs_write_atomic(mine, "/opt/rocm/bin/hrr-playback\n", 27, 0644, &err), 0);
	cr_assert_eq(fs_read_private_file(mine, 4096, &text, &err), 0, "%s", err.msg);
	cr_assert_str_eq(text.buf, "/opt/rocm/bin/hrr-playback\n");
	cr_assert_eq(fs_write_atomic(theirs, "/bin/evil\n", 10, 0644, &err), 0);
	cr_assert_eq(chown(theirs, 4242, 4242), 0);
	cr_assert_lt(fs_read_private_file(theirs, 4096, &text, &err), 0);
	cr_assert(strstr(err.msg, "owner 4242"), "%s", err.msg);
	cr_assert_eq(fs_write_atomic(open_file, "/bin/evil\n", 10, 0644, &err), 0);
	cr_assert_eq(chmod(open_file, 0666), 0);
	cr_assert_lt(fs_read_private_file(open_file, 4096, &text, &err), 0);
	cr_assert_eq(symlink(mine, link), 0);
	cr_assert_lt(fs_read_private_file(link, 4096, &text, &err), 0);
	strbuf_release(&text);
	free(mine);
	free(theirs);
	free(open_file);
	free(link);
}
