/* An image of a sweep pinned as the sweep starts, resolved and never
 * pulled (docs/sweep.md "Images: pinned, pulled when their cases come"):
 * to its image ID when the engine holds it (unless --pull always), else to
 * the digest the registry names for its tag, asked through the registry
 * client with the credentials `pull` uses. */
#ifndef HRR_SWEEP_SWEEP_PIN_H
#define HRR_SWEEP_SWEEP_PIN_H

#include "common/error.h"
#include "docker/engine.h"
#include "orchestrator/replay/image.h"
#include "orchestrator/sweep/sweep_folder.h"

/* im->ref resolved into im->id or im->digest (and im->manifest_size when
 * the registry was asked). e may be NULL (no engine here: the registry
 * alone). ERR_USAGE for a malformed reference; with --pull never an image
 * the engine lacks is ERR_NOT_FOUND, as image_ensure says it. */
int sweep_pin_resolve(struct engine *e, enum pull_policy pull, struct sweep_image *im,
		      struct error *err) __attribute__((warn_unused_result));

/* What a case replays of im: its ID when pinned by ID, else its digest
 * reference; NULL when it has neither. */
const char *sweep_pin_name(const struct sweep_image *im);

#endif
