/* The state of one replay while replay_unit_run() runs it, shared by the
 * unit's stages: the preflight and plan (replay_unit_plan.c), the replay
 * (replay_unit.c), the debuggers (replay_diagnose.c), the records
 * (replay_records.c). Internal to orchestrator/replay/. */
#ifndef HRR_REPLAY_UNIT_RUN_H
#define HRR_REPLAY_UNIT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strvec.h"
#include "preflight/preflight.h"
#include "orchestrator/replay/kernel_replace.h"
#include "orchestrator/replay/replay.h"
#include "orchestrator/replay/replay_desc.h"
#include "orchestrator/replay/replay_host.h"
#include "orchestrator/replay/replay_plan.h"

struct unit_diag;
struct interrupt_watch;

/* One replay while the unit runs it. */
struct unit_run {
	const struct replay_host *host;
	const struct replay_desc *desc;
	char *playback;               /* resolved, inside the container */
	const char *pid_name;         /* "pid-1234" */
	unsigned format_version;      /* the archive's, 0 unknown */
	char run_id[7];
	char *run_dir;
	char started[40];
	char *container_name;
	/* The replay container's, while the unit runs (run.json's "spec";
	 * NULL before it is built). */
	const struct container_spec *spec;
	char user[32];                /* "uid:gid" the replay runs as */
	char *seccomp_profile;        /* the profile's JSON, NULL = none of ours */
	char *seccomp_opt;            /* "seccomp=unconfined", or NULL */
	struct seccomp_record *seccomp_record; /* run.json's "seccomp" (seccomp_json.h) */
	struct plan_device *devices;
	size_t n_devices;
	/* --devices' outcome (replay_devices.c): "nodes" or "cdi", the CDI
	 * names given, whether the spec adds /dev/kfd itself, and why auto
	 * chose nodes ("" when it did not have to). */
	const char *devices_how;
	struct strvec cdi_devices;
	/* --replace-kernel's code objects as replayed: copies in the run
	 * folder, made from the files as checked (replay_unit_plan.c). */
	struct kernel_replacements kernels;
	bool kfd_from_cdi;
	char devices_note[ERROR_MSG_MAX];
	struct replay_result result;
	bool replayed;
	int exit_code;
	char *stop_reason;            /* why there was no replay, or NULL */
	double t_begin;
	double collect_s;
	const int *chosen;
	size_t n_chosen;
	const struct preflight_report *preflight; /* NULL: not reached */
	struct unit_diag *diag;       /* the debugger steps (replay_diagnose.h), NULL: none */
	/* The user's interrupts, read by every step of the unit (the replay, the
	 * agent rerun, the one-off containers), so a signal one step read is
	 * still seen by the next; NULL: none. */
	struct interrupt_watch *iw;
	/* The result's warnings (replay_unit_result.warnings): what went
	 * wrong without changing the verdict, said by the unit's caller. */
	struct strvec *warnings;
};

/* Move a step's warnings (a replay_result's) into the unit's, in order. */
static inline void unit_take_warnings(const struct unit_run *u, struct strvec *from)
{
	for (size_t i = 0; i < from->n; i++)
		strvec_push(u->warnings, from->v[i]);
	strvec_clear(from);
}

#endif
