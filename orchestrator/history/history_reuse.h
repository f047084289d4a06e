/* What the history already knows of one replay, found by what makes it the
 * same replay: the archive's digest, the image ID and the run options'
 * fingerprint, on the same GPU product (`bisect` reuses it instead of
 * replaying), and the bisections' answers. */
#ifndef HRR_HISTORY_HISTORY_REUSE_H
#define HRR_HISTORY_HISTORY_REUSE_H

#include <stdbool.h>

#include "common/error.h"
#include "orchestrator/history/history_db.h"

struct history_known {
	bool found;
	char *outcome, *first_outcome; /* of the final and the first attempt */
	char *fault_class, *kernel, *sweep, *folder, *run_dir;
	char *case_name; /* as that sweep named the case */
	int attempts;
};
void history_known_release(struct history_known *k);

/* Where the replay would run: its GPUs' product as a result records it
 * (gfx target, KFD device_id -1 unknown; gfx NULL when unknown or more
 * than one) and the host. */
struct history_reuse_on {
	const char *gfx;
	long device_id;
	const char *host;
};

/* The latest replayed (state done) result of the triple on on's GPU
 * product, as the GPU-time comparisons key a case's nights (docs/bisect.md
 * "The search"): the same gfx target and device_id; on on's host when either
 * product is unknown. k->found false when there is none. */
int history_db_find_result(struct history_db *db, const char *digest, const char *image_id,
			   const char *run_options_fp, const struct history_reuse_on *on,
			   struct history_known *k, struct error *err)
	__attribute__((warn_unused_result));

struct history_bisect {
	const char *id, *good, *bad, *last_good, *first_bad, *verdict, *answer, *folder;
	const char *run_options_fp;
	long long finished;
};
int history_db_record_bisect(struct history_db *db, const struct history_bisect *b,
			     struct error *err) __attribute__((warn_unused_result));

#endif
