/* The code objects of a sweep's --replace-kernel, kept in its folder
 * (<folder>/kernels/<digest>.hsaco): a Slurm task on another node or a
 * `--resume` days later replays with the bytes the sweep started with,
 * checked against the recorded digest, not whatever the user's path holds
 * by then (docs/sweep.md "The sweep folder"). */
#ifndef HRR_SWEEP_SWEEP_KERNELS_H
#define HRR_SWEEP_SWEEP_KERNELS_H

#include "common/error.h"
#include "orchestrator/replay/kernel_replace.h"

#define SWEEP_KERNELS_DIR "kernels"

/* Copy each code object (host files set) into the folder; ERR_DATA when
 * a file no longer has the content checked when the options were read. */
int sweep_kernels_store(const char *folder, const struct kernel_replacements *k,
			struct error *err) __attribute__((warn_unused_result));
/* Point each recorded replacement at the folder's copy, checked. */
int sweep_kernels_attach(const char *folder, struct kernel_replacements *k, struct error *err)
	__attribute__((warn_unused_result));

#endif
