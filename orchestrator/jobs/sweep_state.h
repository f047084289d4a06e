/* What the files of a sweep's job share while it runs
 * (orchestrator/jobs/sweep_job.h): the request, the sweep read or
 * planned, its folder, host, images, database and rules. */
#ifndef HRR_JOBS_SWEEP_STATE_H
#define HRR_JOBS_SWEEP_STATE_H

#include <stdbool.h>

#include "orchestrator/cluster/sweep_backend.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/jobs/sweep_end.h"
#include "orchestrator/jobs/sweep_request.h"
#include "orchestrator/replay/replay_unit.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "orchestrator/sweep/sweep_image.h"

struct sweep_work {
	const struct sweep_request *req;
	const struct job_events *ev;
	struct sweep_settings set;     /* from the run options, once adopted */
	struct sweep_meta meta;
	char *folder;
	struct replay_host host;
	bool host_open;
	struct sweep_image_env *imgs;
	struct image_setup image;      /* how each image is set up as its cases come */
	struct sweep_shared sh;
	struct history_db *db;
	struct known_issues known;
	bool have_known;
	bool resume;
	const struct sweep_backend *submit_to; /* the cases go there; NULL: they run here */
	const struct sweep_backend *task_of;   /* this is its task: no database, no reports */
	bool task;
};

/* err said through the job's events; end returned. */
enum sweep_end sweep_state_fail(const struct sweep_work *j, const struct error *err,
			      enum sweep_end end);

#endif
