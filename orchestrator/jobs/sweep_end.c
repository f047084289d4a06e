#include "orchestrator/jobs/sweep_end.h"

#include "orchestrator/sweep/sweep_status.h"

enum sweep_end sweep_end_of_code(int code)
{
	switch (code) {
	case SWEEP_EXIT_OK:
		return SWEEP_END_OK;
	case SWEEP_EXIT_FAILED:
		return SWEEP_END_FAILED;
	case SWEEP_EXIT_NO_GPU:
		return SWEEP_END_NO_GPU;
	case SWEEP_EXIT_USAGE:
		return SWEEP_END_USAGE;
	case SWEEP_EXIT_GPU_BUSY:
		return SWEEP_END_GPU_BUSY;
	default:
		return SWEEP_END_INFRA;
	}
}
