#include "orchestrator/cli/sweep_exit.h"

#include "orchestrator/sweep/sweep_status.h"

int sweep_exit_of(enum sweep_end end)
{
	switch (end) {
	case SWEEP_END_OK:
		return SWEEP_EXIT_OK;
	case SWEEP_END_FAILED:
		return SWEEP_EXIT_FAILED;
	case SWEEP_END_NO_GPU:
		return SWEEP_EXIT_NO_GPU;
	case SWEEP_END_USAGE:
		return SWEEP_EXIT_USAGE;
	case SWEEP_END_GPU_BUSY:
		return SWEEP_EXIT_GPU_BUSY;
	case SWEEP_END_INFRA:
		break;
	}
	return SWEEP_EXIT_INFRA;
}
