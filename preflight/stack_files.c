/* The replay stack's versions from file names and version files: the pure
 * readers the image probe (orchestrator/replay/stack_probe.c) shares, and
 * the host CLR overlay read from its directory. */
#include "preflight/stack_files.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

const char *const stack_hip_names[] = { STACK_HIP_LIB, STACK_HIP_LIB ".7", STACK_HIP_LIB ".6", NULL };
const char *const stack_comgr_names[] = { STACK_COMGR_LIB, STACK_COMGR_LIB ".3", STACK_COMGR_LIB ".2",
					  NULL };

char *stack_version_from_name(const char *name, const char *prefix, int min_nums)
{
	size_t plen = strlen(prefix);
	struct strbuf sb = STRBUF_INIT;
	long v[3];
	int n;

	if (!name || strncmp(name, prefix, plen))
		return NULL;
	n = version_parse(name + plen, v, 3);
	if (n < min_nums || n < 1)
		return NULL;
	for (int i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%ld", i ? "." : "", v[i]);
	return strbuf_detach(&sb, NULL);
}

/* How many version numbers a library name carries: ranks chain members. */
int stack_name_version_count(const char *name, const char *prefix)
{
	size_t plen = strlen(prefix);
	long v[3];

	if (strncmp(name, prefix, plen))
		return 0;
	return version_parse(name + plen, v, 3);
}

char *stack_hip_version_file_parse(const char *text)
{
	static const char *const keys[] = { "HIP_VERSION_MAJOR", "HIP_VERSION_MINOR",
					    "HIP_VERSION_PATCH" };
	long v[3] = { -1, -1, -1 };
	const char *line = text;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		for (int k = 0; k < 3; k++) {
			size_t klen = strlen(keys[k]);
			const char *p = line + klen;
			char *end;
			long n;

			if (len <= klen || strncmp(line, keys[k], klen))
				continue;
			while (p < line + len && (*p == ' ' || *p == '\t'))
				p++;
			if (p >= line + len || *p != '=')
				continue;
			p++;
			while (p < line + len && (*p == ' ' || *p == '\t'))
				p++;
			if (p >= line + len || !isdigit((unsigned char)*p))
				continue;
			errno = 0;
			n = strtol(p, &end, 10);
			if (!errno && end <= line + len)
				v[k] = n;
		}
		line = eol ? eol + 1 : NULL;
	}
	if (v[0] < 0 || v[1] < 0 || v[2] < 0)
		return NULL;
	return xasprintf("%ld.%ld.%ld", v[0], v[1], v[2]);
}

/* Resolve a symlink target against the link's directory, lexically: inside
 * an image there is nothing local to stat "." or ".." against. */
char *stack_link_resolve(const char *link_path, const char *target)
{
	cleanup_strbuf struct strbuf in = STRBUF_INIT;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	cleanup_strvec struct strvec parts = STRVEC_INIT;
	char *save = NULL;

	if (target[0] != '/') {
		const char *slash = strrchr(link_path, '/');

		if (slash)
			strbuf_add(&in, link_path, (size_t)(slash - link_path));
		strbuf_addch(&in, '/');
	}
	strbuf_addstr(&in, target);
	for (char *c = strtok_r(in.buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			if (parts.n) {
				free(parts.v[--parts.n]);
				parts.v[parts.n] = NULL;
			}
			continue;
		}
		strvec_push(&parts, c);
	}
	for (size_t i = 0; i < parts.n; i++)
		strbuf_addf(&out, "/%s", parts.v[i]);
	if (!out.len)
		strbuf_addch(&out, '/');
	return strbuf_detach(&out, NULL);
}

const char *stack_base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* ---- the host CLR overlay ---- */

/* Follow dir/lib with lstat/readlink; the chain member with the most
 * version numbers wins. */
static char *host_follow_best(const char *dir, const char *lib, const char *prefix)
{
	cleanup_free char *cur = xasprintf("%s/%s", dir, lib);
	char *best = NULL;
	int best_n = 0;

	for (int hop = 0; hop <= STACK_MAX_HOPS; hop++) {
		cleanup_strbuf struct strbuf target = STRBUF_INIT;
		struct stat st;
		int n;
		ssize_t got;

		if (lstat(cur, &st) < 0)
			break;
		n = stack_name_version_count(stack_base_name(cur), prefix);
		if (n && n >= best_n) {
			free(best);
			best = xstrdup(cur);
			best_n = n;
		}
		if (!S_ISLNK(st.st_mode))
			break;
		strbuf_grow(&target, PATH_MAX);
		got = readlink(cur, target.buf, target.alloc - 1);
		if (got <= 0 || (size_t)got >= target.alloc - 1)
			break;
		strbuf_setlen(&target, (size_t)got);
		{
			char *next = stack_link_resolve(cur, target.buf);

			free(cur);
			cur = next;
		}
	}
	return best;
}

/* No usable chain: scan the names; the most specific version wins, then
 * the longest name (a -hash suffix). */
static char *host_scan_best(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *best = NULL;
	int best_n = 0;
	size_t best_len = 0;

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		int n = stack_name_version_count(de->d_name, prefix);
		size_t len = strlen(de->d_name);

		if (!n || n < best_n || (n == best_n && len <= best_len))
			continue;
		free(best);
		best = xasprintf("%s/%s", dir, de->d_name);
		best_n = n;
		best_len = len;
	}
	closedir(d);
	return best;
}

static void host_library(const char *dir, const char *lib, const char *prefix, int min_nums,
			 char **version, char **evidence)
{
	char *best = host_follow_best(dir, lib, prefix);

	if (best)
		*version = stack_version_from_name(stack_base_name(best), prefix, min_nums);
	if (!*version) {
		free(best);
		best = host_scan_best(dir, prefix);
		if (best)
			*version = stack_version_from_name(stack_base_name(best), prefix, min_nums);
	}
	if (*version)
		*evidence = best;
	else
		free(best);
}

int overlay_stack_probe(const char *clr_lib_dir, struct stack_info *out, struct error *err)
{
	struct stack_info s;
	struct stat st;

	if (stat(clr_lib_dir, &st) < 0) {
		int saved = errno;

		error_errno(err, "CLR overlay %s", clr_lib_dir);
		if (saved == ENOENT || saved == ENOTDIR)
			err->kind = ERR_NOT_FOUND;
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return error_set(err, ERR_DATA, 0, "CLR overlay %s is not a directory", clr_lib_dir);
	stack_info_init(&s);
	host_library(clr_lib_dir, STACK_HIP_LIB, STACK_HIP_LIB ".", 3, &s.hip_version, &s.hip_evidence);
	if (!s.hip_version)
		s.unknown_reason = xasprintf("no %s.X.Y.Z in the CLR overlay %s", STACK_HIP_LIB, clr_lib_dir);
	host_library(clr_lib_dir, STACK_COMGR_LIB, STACK_COMGR_LIB ".", 2, &s.comgr_version,
		     &s.comgr_evidence);
	if (!s.comgr_version)
		s.comgr_unknown_reason = xasprintf("no %s.X.Y in the CLR overlay %s", STACK_COMGR_LIB,
						   clr_lib_dir);
	s.source = xasprintf("host CLR overlay %s", clr_lib_dir);
	stack_info_release(out);
	*out = s;
	return 0;
}
