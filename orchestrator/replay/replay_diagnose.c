/* The replay unit's debugger steps (see replay_diagnose.h). */
#include "orchestrator/replay/replay_diagnose.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "orchestrator/diagnosis/diagnosis_json.h"
#include "orchestrator/finding/runtime_status.h"
#include "orchestrator/replay/diagnose.h"
#include "orchestrator/replay/image.h"
#include "orchestrator/replay/interrupt.h"
#include "orchestrator/replay/replay_json.h"
#include "orchestrator/replay/replay_unit_plan.h"
#include "orchestrator/replay/run_log.h"

static void find_agent(struct unit_diag *g, const struct unit_run *u)
{
	struct error err;

	if (g->agent_looked)
		return;
	g->agent_looked = true;
	if (image_find_tool(u->host->engine, u->desc->image, DIAGNOSE_TOOL_AGENT, &g->agent_lib,
			    &err) < 0)
		events_info(u->desc->events, u->desc->verbosity, "note: %s", err.msg);
}

void unit_diag_prepare(const struct unit_run *u, struct unit_diag *g)
{
	const struct replay_desc *d = u->desc;
	struct error err;

	memset(g, 0, sizeof(*g));
	strvec_init(&g->env);
	diagnosis_init(&g->d, DIAGNOSIS_AGENT);
	g->mode = d->diagnose;
	g->diag_dir = xasprintf("%s/%s", u->run_dir, DIAGNOSE_DIR);
	for (size_t i = 0; d->env && i < d->env->n; i++)
		strvec_push(&g->env, d->env->v[i]);
	if (g->mode == DIAGNOSE_OFF || !u->host->engine)
		return;
	/* What must be known before the container is created: the agent for an
	 * agent run, rocgdb for ptrace. The agent for a rerun is looked up only
	 * after a fault (after_fault): a run that passes costs no probe. A
	 * lookup that fails leaves the tool absent: the diagnosis says so. */
	if (g->mode == DIAGNOSE_AGENT)
		find_agent(g, u);
	if ((g->mode == DIAGNOSE_HANG || g->mode == DIAGNOSE_ALL) &&
	    image_find_tool(u->host->engine, d->image, DIAGNOSE_TOOL_ROCGDB, &g->rocgdb, &err) < 0)
		events_info(d->events, d->verbosity, "note: %s", err.msg);
	g->agent_run = diagnose_agent_first(g->mode) && g->agent_lib;
}

void unit_diag_release(struct unit_diag *g)
{
	free(g->agent_lib);
	free(g->rocgdb);
	free(g->diag_dir);
	strvec_clear(&g->env);
	diagnosis_release(&g->d);
}

/* diagnostics/ and its code-objects/, writable by whichever user the image
 * runs as (the workdir above is ours alone, 0700). */
static int make_diag_dir(const struct unit_diag *g, struct error *err)
{
	cleanup_free char *cos = xasprintf("%s/%s", g->diag_dir, DIAGNOSE_CODE_OBJECTS);

	if (fs_mkdir_p(cos, 0777, err) < 0)
		return -1;
	if (chmod(g->diag_dir, 0777) < 0 || chmod(cos, 0777) < 0)
		return error_errno(err, "chmod %s", cos);
	return 0;
}

static void agent_env(struct unit_diag *g)
{
	diagnose_agent_env(&g->env, DIAGNOSE_MOUNT "/" DIAGNOSE_CODE_OBJECTS);
}

void unit_diag_knobs(struct unit_diag *g, const struct unit_run *u, struct replay_plan_knobs *k)
{
	struct error err;
	bool rocgdb = diagnose_rocgdb(g->mode, g->rocgdb != NULL, g->agent_run);

	if (!g->agent_run && !rocgdb)
		return;
	if (make_diag_dir(g, &err) < 0) {
		events_info(u->desc->events, u->desc->verbosity, "note: no diagnostics: %s",
			    err.msg);
		return;
	}
	k->diagnostics_dir = g->diag_dir;
	k->allow_ptrace = diagnose_needs_ptrace(g->mode, g->rocgdb != NULL, g->agent_run);
	if (g->agent_run) {
		agent_env(g);
		k->env = &g->env;
	}
}

static void hang_hook(void *ctx, const char *container_id)
{
	struct unit_diag *g = ctx;
	const struct unit_run *u = g->u;
	struct diagnose_hang_in in = {
		.docker_host = engine_host(u->host->engine),
		.container_id = container_id,
		.rocgdb = g->rocgdb,
		.timeout_s = u->desc->diagnose_timeout_s,
		.run_dir = u->run_dir,
	};

	events_info(u->desc->events, u->desc->verbosity,
		    "asking rocgdb which dispatch is stuck (up to %ld s)", in.timeout_s);
	diagnosis_release(&g->d);
	diagnose_hang(&in, &g->d);
	g->have = true;
	events_info(u->desc->events, u->desc->verbosity, "rocgdb: %s",
		    g->d.summary ? g->d.summary : "done");
}

void unit_diag_exec(struct unit_diag *g, const struct unit_run *u, struct replay_exec *x)
{
	g->u = u;
	if (g->agent_run) {
		x->timeout_s = diagnose_agent_limit(x->timeout_s);
		x->progress_timeout_s = diagnose_agent_limit(x->progress_timeout_s);
		x->quit_wait_s = DIAGNOSE_AGENT_QUIT_WAIT_S;
	}
	if (diagnose_rocgdb(g->mode, g->rocgdb != NULL, g->agent_run)) {
		x->before_stop = hang_hook;
		x->before_stop_ctx = g;
	}
}

static bool says_hsa_fault(const char *s)
{
	return s && (strstr(s, "HSA_STATUS_ERROR_EXCEPTION") ||
		     strstr(s, "HSA_STATUS_ERROR_MEMORY_FAULT"));
}

/* A GPU fault the agent can report on: a memory fault, or a queue that
 * aborted with an HSA exception or memory fault (the runtime's reason as
 * the log gave it, or the status the classifier read). */
static bool gpu_fault(const struct finding *f)
{
	if (f->outcome == OUTCOME_MAF || f->fault_class == FAULT_ILLEGAL_MEMORY_ACCESS ||
	    f->fault_class == FAULT_READ_ONLY_PAGE_FAULT)
		return true;
	if (f->outcome != OUTCOME_ABORT)
		return false;
	return says_hsa_fault(f->fault_reason) || runtime_status_gpu_fault(f->runtime_status);
}

/* The rerun's watchdog: a fault rerun gets the first run's limits x4; a
 * hang rerun the first run's time to its stop, then SIGQUIT. */
struct rerun_limits {
	long timeout_s, progress_timeout_s;
	double quit_wait_s;
	bool quit_sent;  /* out */
	long exit_code;  /* out */
};

/* The same archive once more, under the agent: its log and the code
 * objects it saves go to diagnostics/; no verdict is taken from it. Its
 * container is the plain run's (unit_plan_knobs: the same capabilities
 * and seccomp profile), plus the agent's environment and the mount. */
static int agent_rerun(struct unit_diag *g, const struct unit_run *u, struct rerun_limits *lim,
		       struct error *err)
{
	const struct replay_desc *d = u->desc;
	cleanup_free char *log = xasprintf("%s/%s", g->diag_dir, DIAGNOSE_AGENT_LOG);
	cleanup_free char *name = xasprintf("hrr-docker-replay-%s-agent", u->run_id);
	struct replay_plan_knobs plain, k;
	struct replay_plan_input in;
	struct container_spec spec;
	struct interrupt_watch iw;
	struct replay_result r;
	struct replay_exec x;
	struct run_log rl;
	int ret = -1;

	if (make_diag_dir(g, err) < 0)
		return -1;
	agent_env(g);
	unit_plan_knobs(u, &plain);
	replay_plan_agent_knobs(&plain, &g->env, g->diag_dir, &k);
	unit_plan_input(u, &k, &in);
	container_spec_init(&spec);
	memset(&r, 0, sizeof(r));
	if (replay_plan_build(&in, &spec, err) < 0)
		goto out;
	if (run_log_open(&rl, log, d->verbosity > 0 ? d->events : NULL, NULL, err) < 0)
		goto out;
	/* The unit's watch: a signal read here still stops the steps after. */
	if (!u->iw)
		interrupt_watch_init(&iw, d->interrupt_fd);
	memset(&x, 0, sizeof(x));
	x.engine = u->host->engine;
	x.timeout_s = lim->timeout_s;
	x.progress_timeout_s = lim->progress_timeout_s;
	x.quit_wait_s = lim->quit_wait_s;
	x.stop_grace_s = d->limits.stop_grace_s;
	x.verbosity = d->verbosity;
	x.events = d->events;
	x.spec = &spec;
	x.name = name;
	x.log = &rl;
	x.interrupt = u->iw ? u->iw : &iw;
	ret = replay_execute(&x, &r, err);
	unit_take_warnings(u, &r.warnings);
	lim->quit_sent = r.quit_sent;
	lim->exit_code = r.exit_code;
	run_log_close(&rl, NULL);
out:
	replay_result_release(&r);
	container_spec_release(&spec);
	return ret;
}

static int objdump_to(enum engine_stream_id s, const char *data, size_t len, void *ud)
{
	if (s == ENGINE_STDOUT && ((struct strbuf *)ud)->len < DIAGNOSE_FILES_MAX)
		strbuf_add(ud, data, len);
	return 0;
}

/* llvm-objdump, from the image, on a saved code object, in a container
 * like the replay's --info one (same labels and hardening, no devices). */
static int run_objdump(const struct unit_run *u, const struct unit_diag *g, const char *objdump,
		       const char *file, struct strbuf *out, struct error *err)
{
	struct container_spec spec;
	long status = -1;
	int ret;

	unit_query_spec(u, "--info", &spec);
	strvec_clear(&spec.entrypoint);
	strvec_push(&spec.entrypoint, objdump);
	strvec_clear(&spec.cmd);
	strvec_push(&spec.cmd, "--disassemble-all");
	strvec_pushf(&spec.cmd, "%s/%s/%s", DIAGNOSE_MOUNT, DIAGNOSE_CODE_OBJECTS, file);
	container_spec_add_mount(&spec, g->diag_dir, DIAGNOSE_MOUNT, true);
	ret = unit_oneoff_run(u, &spec, objdump_to, out, &status, err);
	if (ret == 0 && status != 0)
		ret = error_set(err, ERR_DATA, 0, "llvm-objdump exited %ld", status);
	container_spec_release(&spec);
	return ret;
}

/* The saved code object the report's wave names, by its file name. */
static char *suspect_code_object(const struct unit_diag *g)
{
	const char *uri = g->d.code_objects.n ? g->d.code_objects.v[0] : NULL;
	const char *prefix = DIAGNOSE_DIR "/" DIAGNOSE_CODE_OBJECTS "/";

	for (size_t i = 0; uri && i < g->d.files.n; i++)
		if (!strncmp(g->d.files.v[i], prefix, strlen(prefix)) &&
		    diag_agent_saved_name_matches(g->d.files.v[i] + strlen(prefix), uri))
			return xstrdup(g->d.files.v[i] + strlen(prefix));
	return NULL;
}

/* diagnostics/disassembly.txt: the instructions around the faulting pc. */
static void disassemble(struct unit_diag *g, const struct unit_run *u)
{
	cleanup_free char *objdump = NULL;
	cleanup_free char *file = suspect_code_object(g);
	cleanup_free char *path = xasprintf("%s/%s", g->diag_dir, DIAGNOSE_DISASSEMBLY);
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	cleanup_strbuf struct strbuf win = STRBUF_INIT;
	unsigned long long off;
	struct error err;

	if (!file || !g->d.pc || !g->d.loaded_at ||
	    diagnose_pc_offset(g->d.pc, g->d.loaded_at, &off) < 0)
		return;
	if (image_find_tool(u->host->engine, u->desc->image, DIAGNOSE_TOOL_OBJDUMP, &objdump,
			    &err) < 0 || !objdump) {
		diagnosis_add_note(&g->d, "no llvm-objdump in the image: no disassembly");
		return;
	}
	if (run_objdump(u, g, objdump, file, &out, &err) < 0 ||
	    diagnose_disassembly_window(out.buf, out.len, off, DIAGNOSE_DISASSEMBLY_RADIUS, &win,
					&err) < 0 ||
	    fs_write_atomic(path, win.buf, win.len, 0644, &err) < 0) {
		diagnosis_add_note(&g->d, "no disassembly: %s", err.msg);
		return;
	}
	diagnosis_add_file(&g->d, DIAGNOSE_DIR "/" DIAGNOSE_DISASSEMBLY);
}

static void after_fault(struct unit_diag *g, const struct unit_run *u)
{
	struct rerun_limits lim = { 0 };
	struct error err;

	if (g->mode == DIAGNOSE_AUTO || g->mode == DIAGNOSE_ALL)
		find_agent(g, u);
	if (!diagnose_agent_rerun(g->mode, true, g->agent_lib != NULL)) {
		if (g->mode == DIAGNOSE_AUTO || g->mode == DIAGNOSE_ALL) {
			diagnosis_set_status(&g->d, DIAGNOSIS_NOT_AVAILABLE,
					     "the image has no %s", DIAGNOSE_AGENT_LIB);
			g->have = true;
		}
		return;
	}
	events_info(u->desc->events, u->desc->verbosity,
		    "GPU fault: replaying once more under rocm-debug-agent "
		    "(watchdog x%d) to name the kernel", DIAGNOSE_AGENT_WATCHDOG_SCALE);
	diagnosis_release(&g->d);
	lim.timeout_s = diagnose_agent_limit(u->desc->limits.timeout_s);
	lim.progress_timeout_s = diagnose_agent_limit(u->desc->limits.progress_timeout_s);
	if (agent_rerun(g, u, &lim, &err) < 0) {
		diagnosis_set_status(&g->d, DIAGNOSIS_FAILED, "the rerun under the agent failed: %s",
				     err.msg);
	} else {
		diagnosis_release(&g->d);
		diagnose_agent_collect(u->run_dir, DIAGNOSE_DIR "/" DIAGNOSE_AGENT_LOG, &g->d);
		if (g->d.status == DIAGNOSIS_OK)
			disassemble(g, u);
	}
	g->have = true;
}

/* Parse a SIGQUIT rerun's (or agent run's) log into the diagnosis. */
static void collect_quit(struct unit_diag *g, const struct unit_run *u, const char *log_rel,
			 bool quit_sent, long exit_code)
{
	cleanup_free char *log = xasprintf("%s/%s", u->run_dir, log_rel);
	struct diag_agent_report r;

	diagnosis_release(&g->d);
	diag_agent_report_init(&r);
	if (diagnose_agent_parse_file(log, &r) < 0)
		diagnosis_add_note(&g->d, "the log %s could not be read back", log_rel);
	diagnosis_add_file(&g->d, log_rel);
	diagnosis_from_agent_quit(&g->d, &r, quit_sent, exit_code);
	diag_agent_report_release(&r);
	g->have = true;
}

/* A hang the watchdog stopped, named without ptrace: the agent rerun
 * with SIGQUIT at the first run's time to its stop. */
static void after_hang(struct unit_diag *g, const struct unit_run *u)
{
	struct rerun_limits lim = { 0 };
	struct error err;

	find_agent(g, u);
	if (!g->agent_lib) {
		diagnosis_release(&g->d);
		diagnosis_set_status(&g->d, DIAGNOSIS_NOT_AVAILABLE, "the image has no %s (naming a "
				     "hung kernel without ptrace needs it)", DIAGNOSE_AGENT_LIB);
		g->have = true;
		return;
	}
	lim.timeout_s = diagnose_agent_hang_limit(u->result.stop_s);
	lim.quit_wait_s = DIAGNOSE_AGENT_QUIT_WAIT_S;
	events_info(u->desc->events, u->desc->verbosity,
		    "hang: replaying once more under rocm-debug-agent for %ld s, "
		    "then SIGQUIT for its wave dump", lim.timeout_s);
	if (agent_rerun(g, u, &lim, &err) < 0) {
		diagnosis_release(&g->d);
		diagnosis_set_status(&g->d, DIAGNOSIS_FAILED, "the rerun under the agent failed: %s",
				     err.msg);
		g->have = true;
		return;
	}
	collect_quit(g, u, DIAGNOSE_DIR "/" DIAGNOSE_AGENT_LOG, lim.quit_sent, lim.exit_code);
}

/* The GPU's own hang detection ended the run (HW exception "GPU Hang"):
 * the agent rerun, sent SIGQUIT once it has been silent half as long as
 * the first run was before the exception (the agent does not print waves
 * on a GPU reset: they must be caught while stuck). */
static void after_gpu_hang(struct unit_diag *g, const struct unit_run *u)
{
	cleanup_free char *log = xasprintf("%s/%s", g->diag_dir, DIAGNOSE_AGENT_LOG);
	struct rerun_limits lim = { 0 };
	struct diag_agent_report r;
	struct error err;

	find_agent(g, u);
	diagnosis_release(&g->d);
	g->have = true;
	if (!g->agent_lib) {
		diagnosis_set_status(&g->d, DIAGNOSIS_NOT_AVAILABLE, "the image has no %s (naming "
				     "the waves of a GPU Hang needs it)", DIAGNOSE_AGENT_LIB);
		return;
	}
	diagnose_gpu_hang_limits(u->result.exit_s, u->result.quiet_s, u->result.quiet_end_s,
				 &lim.timeout_s, &lim.progress_timeout_s);
	lim.quit_wait_s = DIAGNOSE_AGENT_QUIT_WAIT_S;
	events_info(u->desc->events, u->desc->verbosity,
		    "GPU Hang: replaying once more under rocm-debug-agent, "
		    "SIGQUIT after %ld s of silence for its wave dump (at most %ld s)",
		    lim.progress_timeout_s, lim.timeout_s);
	if (agent_rerun(g, u, &lim, &err) < 0) {
		diagnosis_set_status(&g->d, DIAGNOSIS_FAILED, "the rerun under the agent failed: %s",
				     err.msg);
		return;
	}
	diag_agent_report_init(&r);
	if (diagnose_agent_parse_file(log, &r) < 0)
		diagnosis_add_note(&g->d, "the log %s could not be read back", DIAGNOSE_AGENT_LOG);
	diagnosis_add_file(&g->d, DIAGNOSE_DIR "/" DIAGNOSE_AGENT_LOG);
	diagnosis_from_agent_gpu_hang(&g->d, &r, lim.quit_sent, lim.exit_code,
				      lim.progress_timeout_s);
	diag_agent_report_release(&r);
}

static bool watchdog_stopped(const struct unit_run *u)
{
	return u->result.ended_by == ENDED_TIMEOUT || u->result.ended_by == ENDED_PROGRESS_TIMEOUT;
}

void unit_diag_after(struct unit_diag *g, const struct unit_run *u, struct finding *f)
{
	if (g->mode == DIAGNOSE_OFF || u->result.interrupt_signal)
		return;
	if (g->agent_run && u->result.quit_sent) {
		collect_quit(g, u, "replay.log", true, u->result.exit_code);
	} else if (g->agent_run) {
		diagnosis_release(&g->d);
		diagnose_agent_collect(u->run_dir, "replay.log", &g->d);
		/* Not "not loaded": the agent prints nothing on a GPU reset. */
		if (f->fault_class == FAULT_GPU_HANG && g->d.status != DIAGNOSIS_OK)
			diagnosis_set_status(&g->d, DIAGNOSIS_NOT_RUN, "the agent run ended with the "
					     "GPU Hang before any SIGQUIT, and the agent prints no wave "
					     "on a GPU reset (--diagnose auto reruns it and sends SIGQUIT "
					     "while it is stuck)");
		g->have = true;
	} else if (f->fault_class == FAULT_GPU_HANG && diagnose_agent_gpu_hang(g->mode)) {
		/* The process ended by itself: no watchdog stop, so no rocgdb. */
		after_gpu_hang(g, u);
	} else if (f->outcome == OUTCOME_HANG && g->rocgdb &&
		   (g->mode == DIAGNOSE_HANG || g->mode == DIAGNOSE_ALL)) {
		/* rocgdb looked before the stop (hang_hook). */
	} else if (f->outcome == OUTCOME_HANG && watchdog_stopped(u) &&
		   diagnose_agent_hang(g->mode, g->rocgdb != NULL)) {
		after_hang(g, u);
	} else if (f->outcome == OUTCOME_HANG && (g->mode == DIAGNOSE_HANG || g->mode == DIAGNOSE_ALL)) {
		diagnosis_release(&g->d);
		g->d.tool = DIAGNOSIS_ROCGDB;
		if (f->saw_watchdog)
			diagnosis_set_status(&g->d, DIAGNOSIS_NOT_RUN, "hrr-playback's own watchdog "
					     "ended the replay before hrr-docker-replay's: no debugger "
					     "was run");
		else
			diagnosis_set_status(&g->d, DIAGNOSIS_NOT_RUN, "the replay ended by itself "
					     "(%s) before a watchdog stopped it: no debugger was run",
					     finding_fault_class_name(f->fault_class));
		g->have = true;
	} else if (gpu_fault(f)) {
		after_fault(g, u);
	}
	/* A hang's kernel, when the log named none, is the in-flight dispatch's. */
	if (g->have && g->d.status == DIAGNOSIS_OK && g->d.kernel && f->outcome == OUTCOME_HANG &&
	    !f->kernel_name) {
		f->kernel_name = xstrdup(g->d.kernel);
		strvec_push(&f->notes, g->d.tool == DIAGNOSIS_ROCGDB
				       ? "kernel: the dispatch rocgdb found in flight before the stop "
					 "(see Diagnosis)"
				       : g->d.running >= 0
				       ? "kernel: the wave rocm-debug-agent dumped on SIGQUIT in the "
					 "rerun (see Diagnosis)"
				       : "kernel: the wave rocm-debug-agent reported in the rerun "
					 "(see Diagnosis)");
	}
}

const char *unit_diag_stop_reason(const struct unit_diag *g)
{
	return g && g->have && g->d.status == DIAGNOSIS_OK ? g->d.reason : NULL;
}

void unit_diag_render(const struct unit_diag *g, struct replay_finding_doc *doc,
		      struct strbuf *md)
{
	cJSON *finding = doc ? doc->json : NULL;

	if (!g || !g->have) {
		if (finding)
			cJSON_AddNullToObject(finding, "diagnosis");
		return;
	}
	if (finding)
		cJSON_AddItemToObject(finding, "diagnosis", diagnosis_to_json(&g->d));
	if (md)
		diagnosis_render_markdown(&g->d, md);
}
