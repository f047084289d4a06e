/* --image-budget (docs/sweep.md "--image-budget"): the disk the images
 * this tool pulled take on the engine stays at or below the budget. Before
 * an image's pull, images this tool pulled (the host's record,
 * orchestrator/lease/image_lease.h) that no one needs any more are
 * removed, least recently used first; the sweep's own images still to
 * run, the images other sweeps or bisections hold, an image a container
 * uses and the user's images (never in the record) are never removed.
 * What it does is said to the events; failures to remove are warnings. */
#ifndef HRR_SWEEP_SWEEP_BUDGET_H
#define HRR_SWEEP_SWEEP_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "common/events.h"
#include "docker/engine.h"
#include "orchestrator/lease/image_lease.h"
#include "orchestrator/sweep/sweep_ahead.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "orchestrator/sweep/sweep_image_fate.h"

struct sweep_budget {
	long long limit;        /* bytes; 0: no budget (nothing here runs) */
	const char *dir;        /* the lock directory */
	struct engine *engine;
	const struct sweep_meta *meta;
	const struct job_events *ev;
	char *owner;            /* "<owner label> sweep <id>" */
	size_t *left;           /* per image: its cases not ended yet */
	char **ids;             /* per image: its ID once pulled or found */
	bool *ours;             /* per image: this tool pulled it */
	struct image_hold hold;
	long long used, peak;   /* bytes the tool's pulled images take, now and at most */
	const char *fates_path; /* the run's images' fates file in the sweep folder; NULL none */
	struct sweep_image_fates fates;
};

/* limit 0: nothing is removed and nothing recorded, but the sweep still
 * holds its images (another sweep's budget leaves them alone); a hold that
 * cannot be taken is a warning under a budget. fates_path (may be NULL):
 * the file of the images' fates (sweep_image_fate.h) an earlier run left
 * and the finish writes anew. */
void sweep_budget_init(struct sweep_budget *b, const struct sweep_meta *m, struct engine *e,
		       long long limit, const char *owner, const char *fates_path,
		       const struct job_events *ev);
void sweep_budget_release(struct sweep_budget *b);
/* Every case queued: the hold lists the sweep's images from now on. */
void sweep_budget_hold(struct sweep_budget *b);
/* A case of image i queued (before the sweep starts) / ended for good. */
void sweep_budget_case_queued(struct sweep_budget *b, size_t i);
void sweep_budget_case_ended(struct sweep_budget *b, size_t i);

enum budget_room { BUDGET_GO, BUDGET_WAIT };
/* Before image i is pulled: room made for it (its manifest's size when
 * known). BUDGET_WAIT: it does not fit until the sweep's own running
 * images are done; ask again when a case ends. */
enum budget_room sweep_budget_before_pull(struct sweep_budget *b, size_t i);
/* Before image i is pulled ahead, while another image's cases run
 * (sweep_ahead.h): HERE when the engine has it already; FITS when there
 * is no budget, or room was made for it without removing anything the
 * sweep still needs (its own images with cases left are never removed);
 * NONE otherwise, or when the record cannot be read. */
enum ahead_room sweep_budget_ahead(struct sweep_budget *b, size_t i);
/* After image i was set up, or pulled ahead: id is its ID, pulled
 * whether this set-up or pull brought it (then it enters the host's
 * record as the tool's, and its fate says when). A set-up that finds an
 * image pulled ahead says pulled false: the pull ahead said it already. */
void sweep_budget_after_pull(struct sweep_budget *b, size_t i, const char *id, bool pulled);
/* At the sweep's end: what it pulled stays only as far as it fits; each
 * image's fate written to the folder. */
void sweep_budget_finish(struct sweep_budget *b);

/* `gc --pulled-images`: the images of the host's record that no live hold
 * lists and that were last used more than older_than_s ago (0: any),
 * removed as the budget removes them (the pinned reference untagged,
 * never forced). One line per image into removed (or, with dry_run, what
 * would be) and into kept (why not). < 0 when the record cannot be used. */
int sweep_budget_gc(struct engine *e, long long older_than_s, bool dry_run,
		    struct strvec *removed, struct strvec *kept, struct error *err)
	__attribute__((warn_unused_result));

#endif
