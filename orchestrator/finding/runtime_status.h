/* The one closed table of what the GPU runtime can report about a stopped
 * queue or a failed kernel, and what each report means for a finding: every
 * status of ROCr's hsa.h and hsa_ext_amd.h (by name and by code) and HIP's
 * device-side error codes, each with an outcome and a fault class
 * (docs/findings.md, "Runtime statuses"). Pure: no I/O, no state. */
#ifndef HRR_FINDING_RUNTIME_STATUS_H
#define HRR_FINDING_RUNTIME_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/finding/finding.h"

enum runtime_status_origin {
	RUNTIME_HSA,     /* hsa.h: hsa_status_t */
	RUNTIME_HSA_AMD, /* hsa_ext_amd.h: AMD's extension statuses */
	RUNTIME_HIP,     /* a HIP device-side error code (hipError_t) */
};

struct runtime_status {
	const char *name;   /* "HSA_STATUS_ERROR_MEMORY_FAULT", "hipErrorIllegalAddress" */
	long code;          /* 0x2b; 700 */
	enum runtime_status_origin origin;
	/* UNKNOWN: not an error (SUCCESS, INFO_BREAK): never a verdict. */
	enum finding_outcome outcome;
	enum finding_fault_class fault_class;
	const char *meaning; /* what the runtime says it means, for a note */
};

/* The rows, in the order docs/findings.md lists them. */
size_t runtime_status_count(void);
const struct runtime_status *runtime_status_at(size_t i);

/* A name spelled exactly (n bytes at p, not NUL-terminated); NULL when the
 * table has none. */
const struct runtime_status *runtime_status_by_name(const char *p, size_t n);
/* An HSA status code (hsa.h or hsa_ext_amd.h); NULL when unknown. */
const struct runtime_status *runtime_status_by_hsa_code(long code);
/* A HIP error code; NULL unless it is one of the device-side codes. */
const struct runtime_status *runtime_status_by_hip_code(long code);

/* Whether st is HSA_STATUS_ERROR_EXCEPTION or HSA_STATUS_ERROR_MEMORY_FAULT:
 * a queue stopped by a fault on the GPU, which the debug agent can report
 * on. NULL: no. */
bool runtime_status_gpu_fault(const struct runtime_status *st);

/* The row for a status this version does not know (an error name or code
 * outside the table): ABORT, replay_aborted, the status named in a note. */
const struct runtime_status *runtime_status_other(void);

#endif
