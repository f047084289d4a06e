/* The plan's cases file: written as produced, read a line at a time. */
#include "orchestrator/sweep/sweep_plan_lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/sweep/sweep_plan_json.h"

int sweep_plan_line_add(struct sweep_plan *p, const char *line, size_t len, const char *path,
			size_t lineno, struct error *err)
{
	cleanup_free char *where = xasprintf("%s, line %zu", path, lineno);
	const char *end = NULL;
	cleanup_cjson cJSON *o = NULL;

	if (strlen(line) != len)
		return error_set(err, ERR_DATA, 0, "%s: a NUL byte; move the sweep folder aside",
				 where);
	o = cJSON_ParseWithOpts(line, &end, true);
	if (!cJSON_IsObject(o))
		return error_set(err, ERR_DATA, 0,
				 "%s: not one JSON object; move the sweep folder aside", where);
	if (sweep_case_from_json(p, o, where, -1, err) < 0)
		return error_append(err, "; move the sweep folder aside");
	return 0;
}

static int write_lines(const struct sweep_plan *p, FILE *f)
{
	for (size_t i = 0; i < p->n; i++) {
		cleanup_cjson cJSON *o = sweep_case_json(&p->cases[i], false);
		cleanup_free char *text = cJSON_PrintUnformatted(o);

		if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
			return -1;
	}
	return fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0 ? -1 : 0;
}

int sweep_plan_lines_write(const struct sweep_plan *p, const char *path, struct error *err)
{
	cleanup_free char *tmp = NULL;
	int fd = fs_atomic_tmp(path, 0644, &tmp, err);
	FILE *f;
	int rc;

	if (fd < 0)
		return -1;
	if (!(f = fdopen(fd, "w"))) {
		rc = error_errno(err, "cannot write %s", tmp);
		close(fd);
		unlink(tmp);
		return rc;
	}
	rc = write_lines(p, f) < 0 ? error_errno(err, "cannot write %s", tmp) : 0;
	if (fclose(f) != 0 && rc == 0)
		rc = error_errno(err, "cannot write %s", tmp);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = error_errno(err, "cannot write %s", path);
	if (rc < 0)
		unlink(tmp);
	return rc;
}

int sweep_plan_lines_read(struct sweep_plan *p, const char *path, size_t n_cases,
			  size_t max_bytes, struct error *err)
{
	cleanup_fclose FILE *f = fs_open_regular(path, err);
	cleanup_free char *line = NULL;
	size_t cap = 0, total = 0, lineno = 0;
	ssize_t n;

	if (!f) {
		err->kind = ERR_DATA;
		return error_append(err, "; move the sweep folder aside");
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		total += (size_t)n;
		lineno++;
		if (total > max_bytes)
			return error_set(err, ERR_LIMIT, 0, "%s is larger than the %zu-byte limit",
					 path, max_bytes);
		if (line[n - 1] != '\n')
			return error_set(err, ERR_DATA, 0,
					 "%s, line %zu: cut short; move the sweep folder aside",
					 path, lineno);
		if (lineno > n_cases)
			return error_set(err, ERR_DATA, 0,
					 "%s, line %zu: more cases than the %zu plan.json names; "
					 "move the sweep folder aside", path, lineno, n_cases);
		line[--n] = '\0';
		if (sweep_plan_line_add(p, line, (size_t)n, path, lineno, err) < 0)
			return -1;
	}
	if (ferror(f))
		return error_errno(err, "reading %s", path);
	if (lineno < n_cases)
		return error_set(err, ERR_DATA, 0,
				 "%s has %zu cases, plan.json names %zu; move the sweep folder aside",
				 path, lineno, n_cases);
	sweep_plan_shrink(p);
	return 0;
}
