/* The runtime status table (runtime_status.h). Every row of ROCr's hsa.h
 * hsa_status_t and of hsa_ext_amd.h's additions, by name and code, with
 * the text hsa_status_string() gives it (shortened), and HIP's device-side
 * error codes with hipGetErrorString()'s text. docs/findings.md ("Runtime
 * statuses") is the same table for people, with the reasons. */
#include "orchestrator/finding/runtime_status.h"

#include <string.h>

/* The two statuses of a fault on the GPU (runtime_status_gpu_fault). */
#define HSA_MEMORY_FAULT 0x2b
#define HSA_EXCEPTION 0x1016

#define ROW(n, c, o, out, cls, m) { n, c, o, out, cls, m }
#define ABORTED(n, c, o, m) ROW(n, c, o, OUTCOME_ABORT, FAULT_REPLAY_ABORTED, m)

static const struct runtime_status table[] = {
	/* The workload touched memory it must not: a MAF. */
	ROW("HSA_STATUS_ERROR_MEMORY_FAULT", HSA_MEMORY_FAULT, RUNTIME_HSA_AMD, OUTCOME_MAF,
	    FAULT_ILLEGAL_MEMORY_ACCESS, "the agent attempted to access an inaccessible address"),
	ROW("HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", 0x29, RUNTIME_HSA_AMD, OUTCOME_MAF,
	    FAULT_ILLEGAL_MEMORY_ACCESS,
	    "the agent attempted to access memory beyond the largest legal address"),
	ROW("hipErrorIllegalAddress", 700, RUNTIME_HIP, OUTCOME_MAF, FAULT_ILLEGAL_MEMORY_ACCESS,
	    "an illegal memory access was encountered"),
	/* A kernel stopped on the GPU for a reason of its own. */
	ROW("HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION", 0x2a, RUNTIME_HSA_AMD, OUTCOME_ABORT,
	    FAULT_ILLEGAL_INSTRUCTION, "the agent attempted to execute an illegal shader instruction"),
	ROW("hipErrorAssert", 710, RUNTIME_HIP, OUTCOME_ABORT, FAULT_DEVICE_ASSERT,
	    "device-side assert triggered"),
	ROW("hipErrorLaunchFailure", 719, RUNTIME_HIP, OUTCOME_ABORT, FAULT_KERNEL_FAULT,
	    "unspecified launch failure"),
	ROW("hipErrorLaunchTimeOut", 702, RUNTIME_HIP, OUTCOME_HANG, FAULT_GPU_HANG,
	    "the launch timed out and was terminated"),
	ABORTED("HSA_STATUS_ERROR_EXCEPTION", HSA_EXCEPTION, RUNTIME_HSA,
		"an HSAIL operation resulted in a hardware exception"),
	/* The image's code does not fit this GPU. */
	ROW("HSA_STATUS_ERROR_INVALID_ISA", 0x100f, RUNTIME_HSA, OUTCOME_ABORT,
	    FAULT_CODE_OBJECT_MISMATCH, "the instruction set architecture is invalid"),
	ROW("HSA_STATUS_ERROR_INVALID_ISA_NAME", 0x1017, RUNTIME_HSA, OUTCOME_ABORT,
	    FAULT_CODE_OBJECT_MISMATCH, "the instruction set architecture name is invalid"),
	ROW("HSA_STATUS_ERROR_INVALID_CODE_OBJECT", 0x1010, RUNTIME_HSA, OUTCOME_ABORT,
	    FAULT_CODE_OBJECT_MISMATCH, "the code object is invalid"),
	ROW("HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS", 0x100d, RUNTIME_HSA, OUTCOME_ABORT,
	    FAULT_CODE_OBJECT_MISMATCH, "the arguments passed to a function are not compatible"),
	ROW("hipErrorNoBinaryForGpu", 209, RUNTIME_HIP, OUTCOME_ABORT, FAULT_CODE_OBJECT_MISMATCH,
	    "no kernel image is available for execution on the device"),
	ROW("HSA_STATUS_ERROR_OUT_OF_REGISTERS", 0x2d, RUNTIME_HSA_AMD, OUTCOME_ABORT,
	    FAULT_CODE_OBJECT_MISMATCH,
	    "the kernel requested more VGPRs than are available on this agent"),
	/* The runtime ran out of something. */
	ROW("HSA_STATUS_ERROR_OUT_OF_RESOURCES", 0x1008, RUNTIME_HSA, OUTCOME_ABORT,
	    FAULT_OUT_OF_RESOURCES, "the runtime failed to allocate the necessary resources"),
	ROW("HSA_STATUS_ERROR_INVALID_ALLOCATION", 0x1003, RUNTIME_HSA, OUTCOME_ABORT,
	    FAULT_OUT_OF_RESOURCES, "the requested allocation is not valid"),
	/* Not errors: the queue callback never aborts on them. */
	ROW("HSA_STATUS_SUCCESS", 0x0, RUNTIME_HSA, OUTCOME_UNKNOWN, FAULT_UNKNOWN,
	    "the function has been executed successfully"),
	ROW("HSA_STATUS_INFO_BREAK", 0x1, RUNTIME_HSA, OUTCOME_UNKNOWN, FAULT_UNKNOWN,
	    "a traversal over a list of elements has been interrupted"),
	/* Every other status: the replay stopped, the status is named. */
	ABORTED("HSA_STATUS_ERROR", 0x1000, RUNTIME_HSA, "a generic error has occurred"),
	ABORTED("HSA_STATUS_ERROR_INVALID_ARGUMENT", 0x1001, RUNTIME_HSA,
		"an argument does not meet a documented precondition"),
	ABORTED("HSA_STATUS_ERROR_INVALID_QUEUE_CREATION", 0x1002, RUNTIME_HSA,
		"the requested queue creation is not valid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_AGENT", 0x1004, RUNTIME_HSA, "the agent is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_REGION", 0x1005, RUNTIME_HSA,
		"the memory region is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_SIGNAL", 0x1006, RUNTIME_HSA, "the signal is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_QUEUE", 0x1007, RUNTIME_HSA, "the queue is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_PACKET_FORMAT", 0x1009, RUNTIME_HSA,
		"the AQL packet is malformed"),
	ABORTED("HSA_STATUS_ERROR_RESOURCE_FREE", 0x100a, RUNTIME_HSA,
		"an error has been detected while releasing a resource"),
	ABORTED("HSA_STATUS_ERROR_NOT_INITIALIZED", 0x100b, RUNTIME_HSA,
		"an API other than hsa_init was called while the runtime was not initialised"),
	ABORTED("HSA_STATUS_ERROR_REFCOUNT_OVERFLOW", 0x100c, RUNTIME_HSA,
		"the maximum reference count for the object has been reached"),
	ABORTED("HSA_STATUS_ERROR_INVALID_INDEX", 0x100e, RUNTIME_HSA, "the index is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_EXECUTABLE", 0x1011, RUNTIME_HSA,
		"the executable is invalid"),
	ABORTED("HSA_STATUS_ERROR_FROZEN_EXECUTABLE", 0x1012, RUNTIME_HSA,
		"the executable is frozen"),
	ABORTED("HSA_STATUS_ERROR_INVALID_SYMBOL_NAME", 0x1013, RUNTIME_HSA,
		"there is no symbol with the given name"),
	ABORTED("HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED", 0x1014, RUNTIME_HSA,
		"the variable is already defined"),
	ABORTED("HSA_STATUS_ERROR_VARIABLE_UNDEFINED", 0x1015, RUNTIME_HSA,
		"the variable is undefined"),
	ABORTED("HSA_STATUS_ERROR_INVALID_CODE_SYMBOL", 0x1018, RUNTIME_HSA,
		"the code object symbol is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL", 0x1019, RUNTIME_HSA,
		"the executable symbol is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_FILE", 0x1020, RUNTIME_HSA,
		"the file descriptor is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER", 0x1021, RUNTIME_HSA,
		"the code object reader is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_CACHE", 0x1022, RUNTIME_HSA, "the cache is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_WAVEFRONT", 0x1023, RUNTIME_HSA,
		"the wavefront is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP", 0x1024, RUNTIME_HSA,
		"the signal group is invalid"),
	ABORTED("HSA_STATUS_ERROR_INVALID_RUNTIME_STATE", 0x1025, RUNTIME_HSA,
		"the HSA runtime is not in the configuration state"),
	ABORTED("HSA_STATUS_ERROR_FATAL", 0x1026, RUNTIME_HSA,
		"the queue received an error that may require process termination"),
	ABORTED("HSA_STATUS_ERROR_INVALID_MEMORY_POOL", 0x28, RUNTIME_HSA_AMD,
		"the memory pool is invalid"),
	ABORTED("HSA_STATUS_CU_MASK_REDUCED", 0x2c, RUNTIME_HSA_AMD,
		"the CU mask was set but reduced to the CUs enabled for the process"),
	ABORTED("HSA_STATUS_ERROR_RESOURCE_BUSY", 0x2e, RUNTIME_HSA_AMD,
		"a resource is busy or temporarily unavailable"),
	ABORTED("HSA_STATUS_ERROR_NOT_SUPPORTED", 0x2f, RUNTIME_HSA_AMD,
		"the request is not supported by this system"),
};

static const struct runtime_status other =
	ABORTED(NULL, -1, RUNTIME_HSA, "a status this version does not know");

size_t runtime_status_count(void)
{
	return sizeof(table) / sizeof(table[0]);
}

const struct runtime_status *runtime_status_at(size_t i)
{
	return i < runtime_status_count() ? &table[i] : NULL;
}

const struct runtime_status *runtime_status_by_name(const char *p, size_t n)
{
	for (size_t i = 0; i < runtime_status_count(); i++)
		if (strlen(table[i].name) == n && !memcmp(table[i].name, p, n))
			return &table[i];
	return NULL;
}

static const struct runtime_status *by_code(long code, bool hip)
{
	for (size_t i = 0; i < runtime_status_count(); i++)
		if (table[i].code == code && (table[i].origin == RUNTIME_HIP) == hip)
			return &table[i];
	return NULL;
}

const struct runtime_status *runtime_status_by_hsa_code(long code)
{
	return by_code(code, false);
}

const struct runtime_status *runtime_status_by_hip_code(long code)
{
	return by_code(code, true);
}

bool runtime_status_gpu_fault(const struct runtime_status *st)
{
	return st && ((st->origin == RUNTIME_HSA && st->code == HSA_EXCEPTION) ||
		      (st->origin == RUNTIME_HSA_AMD && st->code == HSA_MEMORY_FAULT));
}

const struct runtime_status *runtime_status_other(void)
{
	return &other;
}
