/* Defaults of a replay description; the release of a result. */
#include "orchestrator/replay/replay_desc.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "orchestrator/replay/replay_json.h"

void replay_desc_init(struct replay_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->limits.stop_grace_s = 10;
	d->limits.progress_seconds = 30;
	d->diagnose_timeout_s = DIAGNOSE_TIMEOUT_DEFAULT_S;
	d->interrupt_fd = -1;
	d->create_by_id = true;
}

void replay_unit_result_release(struct replay_unit_result *r)
{
	free(r->run_dir);
	free(r->preflight_markdown);
	if (r->preflight_report)
		preflight_report_release(r->preflight_report);
	free(r->preflight_report);
	replay_finding_doc_free(r->finding_doc);
	free(r->finding_markdown);
	free(r->verdict.kernel);
	strvec_clear(&r->warnings);
	signature_release(&r->verdict.signature);
	memset(r, 0, sizeof(*r));
}
