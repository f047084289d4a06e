/* The replay container's seccomp profile (docs/engine.md, docs/cli.md).
 *
 * The engine's default profile denies the NUMA memory-policy calls the ROCm
 * runtime makes (mbind, set_mempolicy, get_mempolicy, move_pages: allowed
 * there only with CAP_SYS_NICE), which is why ROCm guides say "run with
 * seccomp=unconfined". Instead this module writes the profile the replay
 * needs: an allow-list in the spirit of the default's, those four calls, and
 * ptrace only for hang-diagnostic runs (this host's kernel has no Yama, so
 * only seccomp stops a same-uid ptrace). Every syscall name is checked and
 * resolved with libseccomp for the engine's architecture before the profile
 * leaves this process.
 *
 * Output is the Docker/OCI profile JSON (defaultAction, defaultErrnoRet,
 * archMap, syscalls[]); how an engine takes it (inline for dockerd, a path
 * for Podman) is docker/'s business. The profile as a tree, the engine's
 * option and run.json's record are seccomp_json.h's. */
#ifndef HRR_SECCOMP_SECCOMP_PROFILE_H
#define HRR_SECCOMP_SECCOMP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"

enum seccomp_mode {
	SECCOMP_MODE_REPLAY = 0,  /* this module's profile (the default) */
	SECCOMP_MODE_DEFAULT,     /* the engine's own default profile */
	SECCOMP_MODE_UNCONFINED,  /* no filter at all */
	SECCOMP_MODE_FILE,        /* a site's profile from a file */
};

struct seccomp_choice {
	enum seccomp_mode mode;
	char *path;               /* SECCOMP_MODE_FILE only (owned) */
};

/* "default", "replay", "unconfined", or a path (anything else, which must
 * not be empty). Pure: the file is not read here. */
int seccomp_choice_parse(const char *arg, struct seccomp_choice *out, struct error *err)
	__attribute__((warn_unused_result));
void seccomp_choice_release(struct seccomp_choice *c);
const char *seccomp_mode_name(enum seccomp_mode mode);

/* The engine's /version "Arch" (Go's GOARCH: amd64, arm64, ppc64le,
 * s390x) as libseccomp's SCMP_ARCH_* token. Others: ERR_USAGE. */
int seccomp_arch_from_engine(const char *engine_arch, uint32_t *out, struct error *err)
	__attribute__((warn_unused_result));

struct seccomp_profile_opts {
	uint32_t arch;            /* SCMP_ARCH_* (seccomp_arch_from_engine) */
	bool allow_ptrace;        /* hang-diagnostic runs: debuggers attach */
	/* Names libseccomp does not know at all are an error (tests) instead
	 * of a note (runs: an older libseccomp than the list). */
	bool strict;
};

/* The profile, printed unformatted into json (appended); as a tree:
 * seccomp_json.h. Names the architecture (and its compat
 * sub-architectures) lacks are left out with a note in *notes ("skipped
 * <name>: not a syscall on <arch>"); notes may be NULL. */
int seccomp_profile_build(const struct seccomp_profile_opts *o, struct strbuf *json,
			  struct strvec *notes, struct error *err)
	__attribute__((warn_unused_result));

/* The check the profile's lists go through, for names given by the caller:
 * how many of names[0..n) arch (or a compat sub-architecture) has; the
 * others are noted, or with strict a name libseccomp does not know is an
 * error. */
int seccomp_names_check(uint32_t arch, const char *const *names, size_t n, bool strict,
			struct strvec *notes, struct error *err)
	__attribute__((warn_unused_result));

/* Check a site's profile (SECCOMP_MODE_FILE): a JSON object with a string
 * defaultAction "SCMP_ACT_*" and a syscalls array whose entries carry an
 * action and names libseccomp knows for arch. ERR_DATA naming what is
 * wrong. */
int seccomp_profile_validate(const char *text, size_t len, uint32_t arch, struct error *err)
	__attribute__((warn_unused_result));

#endif
