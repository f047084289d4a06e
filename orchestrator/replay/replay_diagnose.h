/* The replay unit's debugger steps (docs/gpu-debug-tools.md): which tools
 * the image has, what the replay container gets for them (ptrace, the
 * diagnostics mount, the agent's environment), rocgdb before a hang is
 * stopped, the agent rerun after a GPU fault, and the diagnosis in the
 * finding. Internal to the replay unit. */
#ifndef HRR_REPLAY_REPLAY_DIAGNOSE_H
#define HRR_REPLAY_REPLAY_DIAGNOSE_H

#include <stdbool.h>

#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/diagnosis/diagnosis.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/replay/replay.h"
#include "orchestrator/replay/replay_records.h"

struct unit_diag {
	const struct unit_run *u;
	enum diagnose_mode mode;
	char *agent_lib;          /* in the image, or NULL */
	bool agent_looked;        /* agent_lib was looked up */
	char *rocgdb;             /* in the image, or NULL */
	char *diag_dir;           /* <run_dir>/diagnostics (host) */
	struct strvec env;        /* the replay's --env, plus the agent's for an agent run */
	bool agent_run;           /* the first run is an agent run (--diagnose agent) */
	bool have;                /* d holds a diagnosis */
	struct diagnosis d;
};

/* Which tools the image has, as far as mode needs them (one probe each). */
void unit_diag_prepare(const struct unit_run *u, struct unit_diag *g);
void unit_diag_release(struct unit_diag *g);

/* The first run's knobs: ptrace and the diagnostics mount when rocgdb may
 * attach, the agent's environment for an agent run. */
void unit_diag_knobs(struct unit_diag *g, const struct unit_run *u, struct replay_plan_knobs *k);
/* The first run's watchdog: rocgdb before the stop of a hang; an agent
 * run's limits x4. */
void unit_diag_exec(struct unit_diag *g, const struct unit_run *u, struct replay_exec *x);

/* After the first run's verdict: collect an agent run, or rerun under the
 * agent after a GPU fault; a HANG without a kernel takes the in-flight
 * dispatch's (with a note). */
void unit_diag_after(struct unit_diag *g, const struct unit_run *u, struct finding *f);
/* The diagnosis into finding.json's object and finding.md's text. */
/* The debugger's stop reason ("MEMORY_VIOLATION"), a part of the
 * finding's signature; NULL when no diagnosis named one. */
const char *unit_diag_stop_reason(const struct unit_diag *g);
struct replay_finding_doc;
/* The diagnosis into finding.json's document (its "diagnosis", null when
 * none; doc may be NULL) and as markdown into md (may be NULL). */
void unit_diag_render(const struct unit_diag *g, struct replay_finding_doc *doc,
		      struct strbuf *md);

#endif
