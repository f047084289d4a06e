/* The host CLR overlay of --mount-clr: which host hrr-playback and which
 * libamdhip64 directory get mounted over the image's (docs/cli.md), found
 * from the shell workflow's variables. */
#ifndef HRR_REPLAY_OVERLAY_H
#define HRR_REPLAY_OVERLAY_H

#include "common/error.h"
#include "orchestrator/replay/replay_plan.h"

struct overlay_sources {
	const char *host_playback; /* HRR_PLAYBACK */
	const char *clr_lib;       /* CLR_LIB */
	const char *clr_build;     /* CLR_BUILD */
	const char *rocr_lib;      /* ROCR_LIB */
	const char *rocm_path;     /* ROCM_PATH, default /opt/rocm */
};

/* Canonical host paths into ov (released by overlay_paths_release). A
 * missing piece: ERR_NOT_FOUND naming the variable to set. */
__attribute__((warn_unused_result))
int overlay_resolve(const struct overlay_sources *src, struct overlay_paths *ov,
		    struct error *err);

#endif
