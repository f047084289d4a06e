#include "tests/support/preflight_fixtures.h"

#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common/strbuf.h"
#include "common/xalloc.h"
#include "tests/support/scratch.h"
#include "preflight/manifest.h"

char *pft_fixture(const char *rel)
{
	char *p = xasprintf("%s/tests/fixtures/%s", test_source_root(), rel);
	struct stat st;

	cr_assert(stat(p, &st) == 0, "fixture %s missing: %s", p, strerror(errno));
	return p;
}

static void mkdirs_for(const char *path)
{
	char *p = xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		cr_assert(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
		*s = '/';
	}
	free(p);
}

void pft_write(const char *path, const void *data, size_t len)
{
	FILE *f;

	mkdirs_for(path);
	f = fopen(path, "wb");
	cr_assert(f, "fopen %s: %s", path, strerror(errno));
	cr_assert(fwrite(data, 1, len, f) == len);
	cr_assert(fclose(f) == 0);
}

void pft_writef(const char *path, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	pft_write(path, sb.buf, sb.len);
	strbuf_release(&sb);
}

void pft_write_events(const char *pid_dir, uint32_t magic, uint16_t version, size_t total_len)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned char hdr[8] = {
		magic & 0xff, magic >> 8 & 0xff, magic >> 16 & 0xff, magic >> 24 & 0xff,
		version & 0xff, version >> 8 & 0xff, 0, 0,
	};
	char *path = xasprintf("%s/events.bin", pid_dir);

	strbuf_add(&sb, hdr, total_len < sizeof(hdr) ? total_len : sizeof(hdr));
	while (sb.len < total_len)
		strbuf_addch(&sb, 0);
	pft_write(path, sb.buf, sb.len);
	strbuf_release(&sb);
	free(path);
}

void pft_make_pid_dir(const char *pid_dir)
{
	pft_write_events(pid_dir, HRR_EVENTS_MAGIC, 8, 64);
}
