/* `--replace-kernel NAME=PATH` (docs/cli.md): hrr-playback launches kernel
 * NAME from the code object at PATH instead of the captured one. The file
 * is opened once and kept open: its header is checked (an AMD GPU ELF
 * code object) and its digest taken through that one descriptor, and what
 * is replayed is a copy made from it (a sweep's folder, a run's own run
 * folder), so a file swapped at PATH afterwards is never replayed. It is
 * named by its content digest (what fingerprints carry: same bytes, same
 * run options wherever the file lives) and mounted read-only at a path
 * made of that digest. */
#ifndef HRR_REPLAY_KERNEL_REPLACE_H
#define HRR_REPLAY_KERNEL_REPLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"

#define KERNEL_REPLACE_MOUNT_DIR "/opt/hrr/kernels"
#define KERNEL_REPLACE_MAX_NAME 1024

struct kernel_replacement {
	char *name;      /* the kernel as the capture names it */
	char *digest;    /* "fnv1a64:<16 hex>" of the code object */
	char *host_path; /* where it is on this host; NULL until a sweep attaches its copy */
	/* The file as checked, open (the command line's), or -1: host_path is
	 * then a copy this tool made and checked (a sweep folder's). */
	int fd;
};

struct kernel_replacements {
	struct kernel_replacement *v;
	size_t n;
};

#define KERNEL_REPLACEMENTS_INIT { NULL, 0 }

/* NAME=PATH from the command line: PATH read and checked, digest taken.
 * ERR_USAGE naming the input and what is wrong with it. */
int kernel_replacements_add_file(struct kernel_replacements *k, const char *spec,
				 const char *from, struct error *err)
	__attribute__((warn_unused_result));
/* A replacement recorded before (a sweep's run options): name and digest,
 * no file yet. ERR_DATA when either is malformed. */
int kernel_replacements_add_recorded(struct kernel_replacements *k, const char *name,
				     const char *digest, struct error *err)
	__attribute__((warn_unused_result));
void kernel_replacements_release(struct kernel_replacements *k);
void kernel_replacements_copy(struct kernel_replacements *dst,
			      const struct kernel_replacements *src);

/* Pure. The first 20 bytes of a file are those of an AMD GPU code object
 * (ELF, 64-bit, little-endian, EM_AMDGPU): NULL, else what they are not. */
const char *kernel_code_object_header_problem(const unsigned char *head, size_t n);
/* Pure. The code object's file name, from its digest ("<16 hex>.hsaco"),
 * and its path inside the container. */
void kernel_replacement_file_name(const struct kernel_replacement *r, struct strbuf *out);
void kernel_replacement_mount_path(const struct kernel_replacement *r, struct strbuf *out);

/* Pure. Whether h (text_fnv1a64 of a file's content) is r's digest. */
bool kernel_replacement_is(const struct kernel_replacement *r, unsigned long long h);

/* Copy r's code object as checked (from its descriptor, else from its
 * host path) to dst, and check the copy has r's digest: ERR_DATA naming
 * the file when it changed since it was checked. */
int kernel_replacement_keep(const struct kernel_replacement *r, const char *dst,
			    struct error *err) __attribute__((warn_unused_result));

/* Attach each replacement's host file from dir (<dir>/<file name>),
 * checking its content against the digest: ERR_DATA when it differs or
 * is missing. The user's file, if open, is closed: the copy replays. */
int kernel_replacements_attach(struct kernel_replacements *k, const char *dir,
			       struct error *err) __attribute__((warn_unused_result));

#endif
