/* GPU leases (docs/sweep.md "GPU leases"): one lock file per GPU in a
 * directory every user of the host shares, held with flock(2) so the
 * kernel releases it when the holder dies. Every replay takes its GPUs
 * this way, a sweep's workers and a plain `run` alike, so two sweeps, a
 * sweep and ad-hoc runs, or `xargs -P16` never share a GPU.
 *
 * Leases are per host: with an engine on another host they protect
 * nothing. The module knows no engine: a container that still runs on a
 * GPU after its orchestrator died is reported by the caller's `held`
 * predicate. */
#ifndef HRR_LEASE_GPU_LEASE_H
#define HRR_LEASE_GPU_LEASE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define GPU_LEASE_DIR_DEFAULT "/run/lock/hrr-docker-replay"
/* What `make install` ships (into $(PREFIX)/lib/tmpfiles.d) to create it
 * at boot, root's and 1777. */
#define GPU_LEASE_TMPFILES "tmpfiles.d/hrr-docker-replay.conf"
#define GPU_LEASE_NAME_MAX 64
#define GPU_LEASE_OWNER_MAX 256

/* True when something outside the lock files holds the GPU (a running
 * labelled container); holder gets a label for the message. */
typedef bool (*gpu_lease_held_fn)(void *ctx, const char *gpu, char *holder, size_t holder_len);
/* Called once per wait, when the first GPU turns out busy. */
typedef void (*gpu_lease_wait_fn)(void *ctx, const char *gpu, const char *holder);

struct gpu_lease_opts {
	const char *dir;       /* NULL: $HRR_LOCK_DIR, else the default */
	const char *owner;     /* written into each file: "host:pid:start run <id>" */
	double wait_s;         /* < 0: no bound; 0: do not wait */
	gpu_lease_held_fn held;
	void *held_ctx;
	gpu_lease_wait_fn on_wait;
	void *wait_ctx;
	int (*cancelled)(void); /* non-zero stops the wait (ERR_CANCELLED); may be NULL */
};

struct gpu_lease {
	int *fds;
	size_t n;
	/* After ERR_BUSY: which of names[] was busy and who held it. */
	size_t busy;
	char busy_holder[GPU_LEASE_OWNER_MAX];
};

/* The lock directory in force: opts->dir, $HRR_LOCK_DIR, the default. */
const char *gpu_lease_dir(const char *dir);
/* Create the directory when missing (mode 1777, so every user can lock)
 * and check it: root's and 1777, or the caller's own (not writable by
 * others unless sticky); not a symlink. Else ERR_USAGE naming the fix. */
int gpu_lease_dir_prepare(const char *dir, struct error *err)
	__attribute__((warn_unused_result));

/* The file name of a GPU: its KFD unique_id (from the node's properties)
 * when it has one, else "gpu_id-<gpu_id>". */
void gpu_lease_name(const char *sysfs_root, int node, unsigned long gpu_id, char *out,
		    size_t len);

/* Take every GPU in names[] or none: each file is locked without blocking;
 * when one is busy all taken so far are released, the holder is reported
 * once (on_wait) and the set is tried again until the bound. A bound that
 * runs out: ERR_BUSY naming the GPU and its holder, both also in
 * l->busy (an index into names) and l->busy_holder. */
int gpu_lease_acquire(struct gpu_lease *l, const char *const *names, size_t n,
		      const struct gpu_lease_opts *o, struct error *err)
	__attribute__((warn_unused_result));
void gpu_lease_release(struct gpu_lease *l);

/* A file of the lock directory, opened without following a symlink,
 * created 0666 when missing (every user locks it), read-only when it is
 * someone else's; not a regular file is ERR_DATA. The other lock files
 * (the images', orchestrator/lease/image_lease.h) are opened the same way. */
int gpu_lease_open_file(const char *dir, const char *name, bool *writable, struct error *err)
	__attribute__((warn_unused_result));

/* Without taking it: is the GPU's lock held now? holder (may be NULL) gets
 * the owner label the holder wrote. */
bool gpu_lease_probe(const char *dir, const char *name, char *holder, size_t holder_len);

#endif
