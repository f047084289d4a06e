/* The containers this tool creates, in one place: their labels, the owner
 * identity that lets `gc` tell a dead run's container from a live one, the
 * hardening every one of them gets, and the probe container spec. The
 * replay and `--info` specs are built by orchestrator/replay/replay_plan.c on top
 * of these; `gc` finds what they label. Change a label or the hardening
 * here and every creator and `gc` follow. */
#ifndef HRR_CONTAINERS_OURS_H
#define HRR_CONTAINERS_OURS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "docker/engine.h"

/* Labels. Every container of ours carries LABEL_OWNER or LABEL_PROBE. */
#define LABEL_RUN "hrr-docker-replay.run"         /* the run id */
#define LABEL_OWNER "hrr-docker-replay.owner"     /* owner label, below */
#define LABEL_ARCHIVE "hrr-docker-replay.archive" /* the pid directory */
#define LABEL_IMAGE "hrr-docker-replay.image"     /* the image reference as given */
#define LABEL_KEEP "hrr-docker-replay.keep"       /* --keep: gc leaves it unless --all */
#define LABEL_PROBE "hrr-docker-replay.probe"     /* a created, never-started probe */

/* The start time of process pid (clock ticks since boot, /proc/<pid>/stat
 * field 22), 0 when the process does not exist. Together with the pid it
 * tells a live orchestrator from a recycled pid. */
unsigned long long process_start_ticks(pid_t pid);
/* The inode of this process's pid namespace, 0 when unknown: a pid in an
 * owner label means something only in the namespace that wrote it. */
unsigned long long pid_namespace_self(void);
/* "<host>:<pid>:<start ticks>:<uid>:<pid namespace>" of this process
 * (caller frees). */
char *owner_label_self(void);
/* Pure: split an owner label. The uid and the pid namespace were added
 * later: a label without the uid parses with *uid = (uid_t)-1. uid may be
 * NULL. Each number is digits only and must fit its type. */
__attribute__((warn_unused_result))
int owner_label_parse(const char *label, char *host, size_t hostlen, pid_t *pid,
		      unsigned long long *start, uid_t *uid);

/* The label's pid namespace, 0 when it names none (or is malformed). */
unsigned long long owner_label_pidns(const char *label);

/* What identifies a run's containers (the replay and its --info). */
struct ours_labels {
	const char *run_id;
	const char *owner;
	const char *archive;
	const char *image;
	bool keep;
};
void ours_add_labels(struct container_spec *s, const struct ours_labels *l);

/* What every container of ours gets: no network, all capabilities dropped
 * (cap_add of the caller comes on top), no-new-privileges, no core dumps
 * (GPU cores are tens of GB per process), an init as pid 1. */
void ours_harden(struct container_spec *s);

/* A created, never-started container of image (an ID or a reference), for
 * reading files out of it through the archive endpoint; labelled
 * LABEL_PROBE=1, LABEL_IMAGE=image_name (NULL: image) and LABEL_OWNER (this
 * process) so `gc` finds it and knows whose it is. */
void ours_probe_spec(struct container_spec *s, const char *image, const char *image_name);

/* One probe container of an image, created when a lookup first needs it
 * and shared by the lookups of that image (stack versions, hrr-playback's
 * path), so a cold cache costs one container, not one per lookup. */
struct ours_probe {
	struct engine *engine;
	const char *image;      /* created from: an image ID or a reference */
	const char *image_name; /* its LABEL_IMAGE (NULL: image) */
	char *id;               /* NULL until created */
};
/* The container's ID, creating it on first use. */
__attribute__((warn_unused_result))
int ours_probe_get(struct ours_probe *p, const char **id, struct error *err);
/* Remove the container if one was created. < 0 when the removal failed
 * (gc removes it later: it carries LABEL_PROBE). */
int ours_probe_release(struct ours_probe *p, struct error *err);

#endif
