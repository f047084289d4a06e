#include "orchestrator/jobs/sweep_state.h"

enum sweep_end sweep_state_fail(const struct sweep_work *j, const struct error *err,
			      enum sweep_end end)
{
	events_error(j->ev, "%s", err->msg);
	return end;
}
