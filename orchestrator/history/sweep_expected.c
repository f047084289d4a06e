/* The history's last durations of the planned cases (see sweep_expected.h). */
#include "orchestrator/history/sweep_expected.h"

#include "orchestrator/history/history_sql.h"

int sweep_expected_load(struct history_db *db, struct sweep_plan *plan, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;

	/* results_case finds the case's few rows; the latest sweep wins. An
	 * error's time is the engine's, not the replay's. */
	if (history_sql_prepare(db,
		    "SELECT r.duration FROM results r JOIN sweeps s ON s.id = r.sweep"
		    " WHERE r.case_name = ?1 AND r.image_ref = ?2 AND r.state = 'done'"
		    " AND r.duration > 0"
		    " ORDER BY s.started_us DESC, r.attempt DESC LIMIT 1",
		    &st, err) < 0)
		return -1;
	for (size_t i = 0; i < plan->n; i++) {
		struct sweep_case *c = &plan->cases[i];
		int rc;

		history_reset(st);
		bind_text(st, 1, c->name);
		bind_text(st, 2, c->image);
		rc = history_step(st);
		if (rc == HISTORY_ROW)
			c->expected_s = history_col_double(st, 0);
		else if (rc != HISTORY_DONE)
			return history_sql_error(db, rc, "read", err);
	}
	return 0;
}
