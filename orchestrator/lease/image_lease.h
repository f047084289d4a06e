/* The images of a host's sweeps and bisections under --image-budget
 * (docs/sweep.md "--image-budget"), two kinds of files in the lock
 * directory every user shares, opened as the GPU leases are:
 *
 * * IMAGE_RECORD_FILE, what this tool pulled on this host: one JSON line
 *   per image (ID, reference, digest, size, its layers with their sizes,
 *   who pulled it, when pulled and last used), read and rewritten under an exclusive flock. An image not
 *   in it is the user's (it was on the engine before, or pulled by
 *   something else) and is never removed.
 * * IMAGE_HOLD_PREFIX<sweep>-<pid>, a running sweep's images it
 *   has pinned and not finished with, one a line (ID or digest
 *   reference), flocked for its life: the kernel drops a dead holder's
 *   lock, and an unlocked file holds nothing. */
#ifndef HRR_LEASE_IMAGE_LEASE_H
#define HRR_LEASE_IMAGE_LEASE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strvec.h"
#include "orchestrator/lease/image_layers.h"

#define IMAGE_RECORD_FILE "pulled-images"
#define IMAGE_HOLD_PREFIX "image-hold-"

struct pulled_image {
	char *id;         /* sha256:... */
	char *ref;        /* as the user gave it */
	char *digest;     /* the reference it was pulled by (repo@sha256:...), or NULL */
	char *owner;      /* who pulled it: "host:pid:start sweep <id>" */
	long long size;   /* bytes, as the engine counts them */
	long long pulled, last_used; /* epoch seconds */
	struct image_layers layers; /* none: not known (its size counts whole) */
};

struct pulled_images {
	struct pulled_image *v;
	size_t n;
};

void pulled_images_release(struct pulled_images *p);
struct pulled_image *pulled_images_find(const struct pulled_images *p, const char *id);
/* Add a copy of im, or replace the entry of its ID. */
void pulled_images_put(struct pulled_images *p, const struct pulled_image *im);
void pulled_images_drop(struct pulled_images *p, const char *id);
/* The disk the images take together, each distinct layer once. */
long long pulled_images_disk(const struct pulled_images *p);
/* Pure codec: the record's text (JSON lines) and back; lines that are not
 * an entry are skipped. */
char *pulled_images_format(const struct pulled_images *p);
void pulled_images_parse(const char *text, struct pulled_images *out);

/* The record, locked for the caller until image_record_close. */
struct image_record {
	int fd;
	struct pulled_images list;
};
int image_record_open(struct image_record *r, const char *dir, struct error *err)
	__attribute__((warn_unused_result));
/* r->list written back (still locked). */
int image_record_save(struct image_record *r, struct error *err)
	__attribute__((warn_unused_result));
void image_record_close(struct image_record *r);

struct image_hold {
	int fd;      /* -1: none */
	char *name;  /* IMAGE_HOLD_PREFIX<who> */
};
/* Take the hold file of who (a sweep's id and pid), listing names. */
int image_hold_take(struct image_hold *h, const char *dir, const char *who,
		    const struct strvec *names, struct error *err)
	__attribute__((warn_unused_result));
/* The names still needed, written anew. */
void image_hold_set(struct image_hold *h, const struct strvec *names);
void image_hold_release(struct image_hold *h, const char *dir);
/* Whether a live hold other than mine lists id or digest (either may be
 * NULL). */
bool image_held_by_others(const char *dir, const struct image_hold *mine, const char *id,
			  const char *digest);

#endif
