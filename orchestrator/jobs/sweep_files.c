#include "orchestrator/jobs/sweep_files.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

/* Where --junit, --summary and --html want an extra copy of a file. */
static const char *extra_copy(const struct sweep_finish *f, const char *file)
{
	if (!strcmp(file, "junit.xml"))
		return f->junit;
	if (!strcmp(file, "summary.md"))
		return f->summary;
	if (!strcmp(file, "report.html"))
		return f->html;
	return NULL;
}

/* The file at src appended to out. */
static int copy_into(const char *src, FILE *out, struct error *err)
{
	cleanup_fclose FILE *in = fopen(src, "re");
	char chunk[1 << 16];
	size_t n;

	if (!in)
		return error_errno(err, "%s", src);
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		if (fwrite(chunk, 1, n, out) != n)
			return error_errno(err, "cannot write a copy of %s", src);
	return ferror(in) ? error_errno(err, "%s", src) : 0;
}

/* A file written as it is produced, fsynced and closed: its temporary
 * stays for the caller to rename or remove. Either produce or copy_from. */
static int write_tmp(const char *path, const struct report *r, report_render_fn produce,
		     const char *copy_from, char **tmp, struct error *err)
{
	int fd = fs_atomic_tmp(path, 0644, tmp, err);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	int rc;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -1 : error_errno(err, "cannot write %s", *tmp);
	}
	rc = produce ? produce(r, f, err) : copy_into(copy_from, f, err);
	if (rc == 0 && (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0))
		rc = error_errno(err, "cannot write %s", *tmp);
	if (fclose(f) != 0 && rc == 0)
		rc = error_errno(err, "cannot write %s", *tmp);
	return rc;
}

/* An extra copy of the file at src (--junit, --html, --summary), put in
 * place as fs_write_atomic puts a file. */
static int write_extra(const char *extra, const char *src, struct error *err)
{
	cleanup_free char *tmp = NULL;
	int rc = write_tmp(extra, NULL, NULL, src, &tmp, err);

	if (rc == 0 && rename(tmp, extra) < 0)
		rc = error_errno(err, "cannot write %s", extra);
	if (rc < 0 && tmp)
		unlink(tmp);
	return rc < 0 ? error_prefix(err, "%s: ", extra) : 0;
}

/* Every format rendered (each into a temporary beside its file) before
 * any is renamed into place: a renderer's failure leaves the folder's
 * reports as they were. The extra copies and stdout are copied from the
 * files: no report is whole in memory. */
int sweep_files_write(const struct report *r, const char *folder, const struct sweep_finish *f,
		      FILE *shown_to, struct error *err)
{
	const char *shown = f->json ? "summary.json" : "summary.md";
	char **tmp = xcalloc(report_formats_n, sizeof(*tmp));
	char **path = xcalloc(report_formats_n, sizeof(*path));
	int rc = 0;

	for (size_t i = 0; i < report_formats_n && rc == 0; i++) {
		path[i] = xasprintf("%s/%s", folder, report_formats[i].file);
		rc = write_tmp(path[i], r, report_formats[i].render, NULL, &tmp[i], err);
	}
	for (size_t i = 0; i < report_formats_n && rc == 0; i++) {
		const char *extra = extra_copy(f, report_formats[i].file);

		if (rename(tmp[i], path[i]) < 0) {
			rc = error_errno(err, "cannot write %s", path[i]);
			break;
		}
		free(tmp[i]);
		tmp[i] = NULL;
		if (extra)
			rc = write_extra(extra, path[i], err);
	}
	for (size_t i = 0; i < report_formats_n && rc == 0; i++)
		if (!strcmp(report_formats[i].file, shown))
			rc = copy_into(path[i], shown_to, err);
	for (size_t i = 0; i < report_formats_n; i++) {
		if (tmp[i])
			unlink(tmp[i]);
		free(tmp[i]);
		free(path[i]);
	}
	free(tmp);
	free(path);
	return rc;
}
