/* The baseline's verdicts before a sweep runs (see sweep_baseline.h). */
#include "orchestrator/history/sweep_baseline.h"

#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"

struct load {
	const struct sweep_meta *meta;
	enum sweep_base *out;
};

/* The baseline's own statuses against nothing: a done final attempt is
 * new (or flaky, which passed); anything else never ran to a verdict. */
static int take_row(void *ctx, const struct history_status_row *row)
{
	struct load *l = ctx;
	const struct sweep_plan *p = &l->meta->plan;

	if (row->status != ST_NEW && row->status != ST_FLAKY)
		return 0;
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->cases[i].name, row->case_name) &&
		    !strcmp(p->cases[i].image, row->image))
			l->out[i] = finding_outcome_is(row->outcome, OUTCOME_PASS) ? BASE_PASS
										   : BASE_FAILED;
	return 0;
}

int sweep_baseline_load(struct history_db *db, const struct sweep_meta *meta,
			enum sweep_base *out, struct error *err)
{
	cleanup_free char *baseline = NULL;
	struct load l = { .meta = meta, .out = out };

	memset(out, 0, meta->plan.n * sizeof(*out));
	if (meta->baseline)
		baseline = xstrdup(meta->baseline);
	else if (history_db_previous(db, meta->label, meta->id, &baseline, err) < 0)
		return -1;
	if (!baseline)
		return 0;
	return history_db_statuses(db, baseline, NULL, take_row, &l, err);
}
