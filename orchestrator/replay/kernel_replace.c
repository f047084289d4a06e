#include "orchestrator/replay/kernel_replace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/file_content.h"
#include "common/text.h"
#include "common/xalloc.h"

#define DIGEST_PREFIX "fnv1a64:"
#define DIGEST_HEX 16
#define EM_AMDGPU_MACHINE 224

const char *kernel_code_object_header_problem(const unsigned char *h, size_t n)
{
	if (n < 20 || memcmp(h, "\177ELF", 4))
		return "not an ELF file";
	if (h[4] != 2)
		return "not a 64-bit ELF file";
	if (h[5] != 1)
		return "not a little-endian ELF file";
	if ((unsigned)h[18] + 256u * h[19] != EM_AMDGPU_MACHINE)
		return "an ELF file for another machine than an AMD GPU";
	return NULL;
}

static bool digest_ok(const char *d)
{
	size_t plen = strlen(DIGEST_PREFIX);

	return !strncmp(d, DIGEST_PREFIX, plen) && strlen(d) == plen + DIGEST_HEX &&
	       strspn(d + plen, "0123456789abcdef") == DIGEST_HEX;
}

/* A kernel name is one printable word (mangled names are). */
static bool name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > KERNEL_REPLACE_MAX_NAME)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] <= ' ' || (unsigned char)name[i] >= 0x7f)
			return false;
	return true;
}

static void push(struct kernel_replacements *k, const char *name, const char *digest,
		 const char *host_path, int fd)
{
	k->v = xrealloc(k->v, (k->n + 1) * sizeof(*k->v));
	k->v[k->n].name = xstrdup(name);
	k->v[k->n].digest = xstrdup(digest);
	k->v[k->n].host_path = xstrdup_or_null(host_path);
	k->v[k->n].fd = fd;
	k->n++;
}

static bool has_name(const struct kernel_replacements *k, const char *name)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->v[i].name, name))
			return true;
	return false;
}

/* The header as read through fd, the descriptor the digest is taken from. */
static int check_header(int fd, const char *path, const char *from, struct error *err)
{
	unsigned char head[20];
	ssize_t n = pread(fd, head, sizeof(head), 0);
	const char *problem;

	if (n < 0)
		return error_set(err, ERR_USAGE, errno, "%s: cannot read %s: %s", from, path,
				 strerror(errno));
	if ((problem = kernel_code_object_header_problem(head, (size_t)n)))
		return error_set(err, ERR_USAGE, 0,
				 "%s: %s is %s, not a code object (.hsaco) for an AMD GPU", from,
				 path, problem);
	return 0;
}

int kernel_replacements_add_file(struct kernel_replacements *k, const char *spec,
				 const char *from, struct error *err)
{
	const char *eq = strchr(spec, '=');
	cleanup_free char *name = eq ? xstrndup(spec, (size_t)(eq - spec)) : NULL;
	cleanup_free char *digest = NULL;
	char abs[PATH_MAX];
	unsigned long long h = TEXT_FNV1A64_INIT;
	cleanup_close int fd = -1;
	struct stat st;
	struct error e;

	if (!eq || !eq[1] || !name_ok(name))
		return error_set(err, ERR_USAGE, 0,
				 "%s: '%s' is not NAME=PATH (a kernel name without spaces, and "
				 "its code object)", from, spec);
	if (has_name(k, name))
		return error_set(err, ERR_USAGE, 0, "%s: kernel %s is replaced twice; give it once",
				 from, name);
	if (!realpath(eq + 1, abs))
		return error_set(err, ERR_USAGE, errno, "%s: %s: %s", from, eq + 1, strerror(errno));
	/* One open: what is checked is what is digested and copied later. */
	fd = open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return error_set(err, ERR_USAGE, errno, "%s: %s: %s", from, abs, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return error_set(err, ERR_USAGE, 0, "%s: %s is not a regular file", from, abs);
	if (check_header(fd, abs, from, err) < 0)
		return -1;
	if (file_content_digest_fd(fd, abs, &h, &e) < 0)
		return error_set(err, ERR_USAGE, e.status, "%s: %s", from, e.msg);
	digest = xasprintf(DIGEST_PREFIX "%016llx", h);
	push(k, name, digest, abs, fd);
	fd = -1;
	return 0;
}

int kernel_replacements_add_recorded(struct kernel_replacements *k, const char *name,
				     const char *digest, struct error *err)
{
	if (!name || !name_ok(name) || !digest || !digest_ok(digest) || has_name(k, name))
		return error_set(err, ERR_DATA, 0, "a recorded kernel replacement is malformed");
	push(k, name, digest, NULL, -1);
	return 0;
}

void kernel_replacements_release(struct kernel_replacements *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].name);
		free(k->v[i].digest);
		free(k->v[i].host_path);
		if (k->v[i].fd >= 0)
			close(k->v[i].fd);
	}
	free(k->v);
	k->v = NULL;
	k->n = 0;
}

void kernel_replacements_copy(struct kernel_replacements *dst,
			      const struct kernel_replacements *src)
{
	kernel_replacements_release(dst);
	for (size_t i = 0; i < src->n; i++)
		push(dst, src->v[i].name, src->v[i].digest, src->v[i].host_path,
		     src->v[i].fd >= 0 ? fcntl(src->v[i].fd, F_DUPFD_CLOEXEC, 0) : -1);
}

void kernel_replacement_file_name(const struct kernel_replacement *r, struct strbuf *out)
{
	strbuf_addf(out, "%s.hsaco", r->digest + strlen(DIGEST_PREFIX));
}

void kernel_replacement_mount_path(const struct kernel_replacement *r, struct strbuf *out)
{
	strbuf_addstr(out, KERNEL_REPLACE_MOUNT_DIR "/");
	kernel_replacement_file_name(r, out);
}

bool kernel_replacement_is(const struct kernel_replacement *r, unsigned long long h)
{
	char digest[sizeof(DIGEST_PREFIX) + DIGEST_HEX];

	snprintf(digest, sizeof(digest), DIGEST_PREFIX "%016llx", h);
	return !strcmp(digest, r->digest);
}

int kernel_replacement_keep(const struct kernel_replacement *r, const char *dst,
			    struct error *err)
{
	const char *src = r->host_path ? r->host_path : r->name;
	unsigned long long h = TEXT_FNV1A64_INIT;
	int rc = r->fd >= 0 ? file_content_copy_fd(r->fd, src, dst, 0644, &h, err)
			    : file_content_copy(src, dst, 0644, &h, err);

	if (rc < 0)
		return error_prefix(err, "keeping the code object for %s: ", r->name);
	if (!kernel_replacement_is(r, h)) {
		(void)remove(dst);
		return error_set(err, ERR_DATA, 0,
				 "%s changed since it was checked (kernel %s); give it again once "
				 "it is final", src, r->name);
	}
	return 0;
}

int kernel_replacements_attach(struct kernel_replacements *k, const char *dir,
			       struct error *err)
{
	for (size_t i = 0; i < k->n; i++) {
		cleanup_strbuf struct strbuf path = STRBUF_INIT;
		unsigned long long h = TEXT_FNV1A64_INIT;
		struct error e;

		strbuf_addf(&path, "%s/", dir);
		kernel_replacement_file_name(&k->v[i], &path);
		if (file_content_digest(path.buf, &h, &e) < 0)
			return error_set(err, ERR_DATA, 0,
					 "the code object replacing %s: %s; the sweep folder lost "
					 "it, start a new sweep", k->v[i].name, e.msg);
		if (!kernel_replacement_is(&k->v[i], h))
			return error_set(err, ERR_DATA, 0,
					 "%s is not the code object the sweep recorded for %s (its "
					 "content changed); start a new sweep", path.buf, k->v[i].name);
		free(k->v[i].host_path);
		k->v[i].host_path = strbuf_detach(&path, NULL);
		/* The checked copy is what replays now, not the user's file. */
		if (k->v[i].fd >= 0)
			close(k->v[i].fd);
		k->v[i].fd = -1;
	}
	return 0;
}
