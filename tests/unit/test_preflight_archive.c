/* Archive layout: events.bin header checks and PATH resolution (docs/cli.md). */
#include <criterion/criterion.h>

#include "tests/support/scratch.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/strvec.h"
#include "common/xalloc.h"
#include "preflight/manifest.h"
#include "tests/support/preflight_fixtures.h"

static char *tmp;
static char *tmp_real;

static void setup(void)
{
	tmp = scratch_dir("preflight-test");
	tmp_real = realpath(tmp, NULL);
	cr_assert(tmp_real);
}

static void teardown(void)
{
	scratch_remove(tmp);
	free(tmp);
	free(tmp_real);
}

static char *under(const char *rel)
{
	return xasprintf("%s/%s", tmp, rel);
}

TestSuite(preflight_archive, .init = setup, .fini = teardown);

Test(preflight_archive, events_header_gives_the_format_version)
{
	char *pid = under("pid-1");
	struct error err = { 0 };
	unsigned version = 0;

	pft_write_events(pid, HRR_EVENTS_MAGIC, 8, 8);
	cr_assert_eq(archive_check_events(pid, &version, &err), 0, "%s", err.msg);
	cr_assert_eq(version, 8);
	pft_write_events(pid, HRR_EVENTS_MAGIC, 0x0109, 100);
	cr_assert_eq(archive_check_events(pid, &version, &err), 0, "%s", err.msg);
	cr_assert_eq(version, 0x0109);
	cr_assert_eq(archive_check_events(pid, NULL, &err), 0, "%s", err.msg);
	free(pid);
}

Test(preflight_archive, events_on_disk_bytes_match_the_spec)
{
	/* docs/formats.md: bytes on disk 45 48 52 52, then 08 00. */
	static const unsigned char bytes[] = { 0x45, 0x48, 0x52, 0x52, 0x08, 0x00, 0x00, 0x00 };
	char *pid = under("pid-2");
	char *file = under("pid-2/events.bin");
	struct error err = { 0 };
	unsigned version = 0;

	pft_write(file, bytes, sizeof(bytes));
	cr_assert_eq(archive_check_events(pid, &version, &err), 0, "%s", err.msg);
	cr_assert_eq(version, 8);
	free(pid);
	free(file);
}

Test(preflight_archive, bad_magic_short_file_and_missing_file)
{
	char *pid = under("pid-3");
	struct error err = { 0 };
	char *want;

	cr_assert_eq(mkdir(pid, 0700), 0);
	cr_assert_eq(archive_check_events(pid, NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	want = xasprintf("%s is not a capture (no events.bin)", pid);
	cr_assert_str_eq(err.msg, want);
	free(want);

	pft_write_events(pid, 0x464c457fu /* ELF */, 8, 64);
	cr_assert_eq(archive_check_events(pid, NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	want = xasprintf("%s/events.bin: bad magic 0x464c457f (an HRR events file starts with 0x52524845)",
			 pid);
	cr_assert_str_eq(err.msg, want);
	free(want);

	pft_write_events(pid, HRR_EVENTS_MAGIC, 8, 5);
	cr_assert_eq(archive_check_events(pid, NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	want = xasprintf("%s/events.bin: 5 bytes, too short for the 8-byte HRR header", pid);
	cr_assert_str_eq(err.msg, want);
	free(want);

	pft_write_events(pid, HRR_EVENTS_MAGIC, 8, 0);
	cr_assert_eq(archive_check_events(pid, NULL, &err), -1);
	cr_assert(strstr(err.msg, "0 bytes, too short"), "%s", err.msg);
	free(pid);
}

Test(preflight_archive, events_bin_must_be_a_regular_file)
{
	char *pid = under("pid-4");
	char *file = under("pid-4/events.bin");
	struct error err = { 0 };

	cr_assert_eq(mkdir(pid, 0700), 0);
	cr_assert_eq(mkfifo(file, 0600), 0);
	cr_assert_eq(archive_check_events(pid, NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, "is not a regular file"), "%s", err.msg);
	free(pid);
	free(file);
}

Test(preflight_archive, a_pid_dir_resolves_to_itself_canonical)
{
	char *pid = under("cap.hrr/pid-77");
	char *messy = under("cap.hrr/./pid-77/../pid-77/");
	char *want = xasprintf("%s/cap.hrr/pid-77", tmp_real);
	struct strvec dirs = STRVEC_INIT;
	struct error err = { 0 };

	pft_make_pid_dir(pid);
	cr_assert_eq(archive_resolve(messy, &dirs, &err), 0, "%s", err.msg);
	cr_assert_eq(dirs.n, 1);
	cr_assert_str_eq(dirs.v[0], want);
	strvec_clear(&dirs);
	free(pid);
	free(messy);
	free(want);
}

Test(preflight_archive, a_root_resolves_to_its_pid_dirs_sorted)
{
	char *root = under("cap.hrr");
	char *a = under("cap.hrr/pid-900");
	char *b = under("cap.hrr/pid-1000");
	char *c = under("cap.hrr/pid-5/blobs");   /* pid dir without events.bin: skipped */
	char *d = under("cap.hrr/other/events.bin"); /* not pid-*: skipped */
	char *m = under("cap.hrr/manifest.json");
	char *w1 = xasprintf("%s/cap.hrr/pid-1000", tmp_real);
	char *w2 = xasprintf("%s/cap.hrr/pid-900", tmp_real);
	struct strvec dirs = STRVEC_INIT;
	struct error err = { 0 };

	pft_make_pid_dir(a);
	pft_make_pid_dir(b);
	pft_writef(m, "{\"version\":1}");
	pft_writef(d, "x");
	{
		char *cdir = under("cap.hrr/pid-5");

		cr_assert_eq(mkdir(cdir, 0700), 0);
		cr_assert_eq(mkdir(c, 0700), 0);
		free(cdir);
	}
	strvec_push(&dirs, "kept");
	cr_assert_eq(archive_resolve(root, &dirs, &err), 0, "%s", err.msg);
	cr_assert_eq(dirs.n, 3);
	cr_assert_str_eq(dirs.v[0], "kept");
	cr_assert_str_eq(dirs.v[1], w1); /* by name: "pid-1000" < "pid-900" */
	cr_assert_str_eq(dirs.v[2], w2);
	cr_assert_null(dirs.v[3]);
	strvec_clear(&dirs);
	free(root); free(a); free(b); free(c); free(d); free(m); free(w1); free(w2);
}

Test(preflight_archive, a_root_with_no_capture_is_an_error_naming_it)
{
	char *root = under("empty.hrr");
	char *pid = under("empty.hrr/pid-3");
	struct strvec dirs = STRVEC_INIT;
	struct error err = { 0 };
	char *want = xasprintf("%s is not a capture: no pid-* directory with an events.bin in it", root);

	cr_assert_eq(mkdir(root, 0700), 0);
	cr_assert_eq(archive_resolve(root, &dirs, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(mkdir(pid, 0700), 0);
	cr_assert_eq(archive_resolve(root, &dirs, &err), -1);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(dirs.n, 0);
	strvec_clear(&dirs);
	free(root);
	free(pid);
	free(want);
}

Test(preflight_archive, a_pid_dir_without_events_is_not_a_capture)
{
	char *pid = under("pid-42");
	struct strvec dirs = STRVEC_INIT;
	struct error err = { 0 };
	char *manifest = under("pid-42/manifest.json");
	char *want = xasprintf("%s is not a capture (no events.bin)", pid);

	pft_writef(manifest, "{}");
	cr_assert_eq(archive_resolve(pid, &dirs, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert_str_eq(err.msg, want);
	strvec_clear(&dirs);
	free(pid);
	free(manifest);
	free(want);
}

Test(preflight_archive, a_missing_path_is_not_found_naming_it)
{
	char *missing = under("no/such/capture.hrr");
	char *file = under("plain-file");
	struct strvec dirs = STRVEC_INIT;
	struct error err = { 0 };

	cr_assert_eq(archive_resolve(missing, &dirs, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert(strstr(err.msg, missing), "%s", err.msg);

	pft_writef(file, "x");
	cr_assert_eq(archive_resolve(file, &dirs, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, file), "%s", err.msg);
	cr_assert(strstr(err.msg, "is not a directory"), "%s", err.msg);
	cr_assert_eq(dirs.n, 0);
	free(missing);
	free(file);
}

Test(preflight_archive, symlinked_pid_dirs_are_canonicalised)
{
	char *real_pid = under("store/pid-8");
	char *root = under("cap.hrr");
	char *link = under("cap.hrr/pid-8");
	char *want = xasprintf("%s/store/pid-8", tmp_real);
	struct strvec dirs = STRVEC_INIT;
	struct error err = { 0 };

	pft_make_pid_dir(real_pid);
	cr_assert_eq(mkdir(root, 0700), 0);
	cr_assert_eq(symlink(real_pid, link), 0);
	cr_assert_eq(archive_resolve(root, &dirs, &err), 0, "%s", err.msg);
	cr_assert_eq(dirs.n, 1);
	cr_assert_str_eq(dirs.v[0], want);
	strvec_clear(&dirs);
	free(real_pid); free(root); free(link); free(want);
}
