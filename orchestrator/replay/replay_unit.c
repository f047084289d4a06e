/* The pipeline of one replay: preflight, run folder, devices, container
 * spec, the replay under the watchdog, the finding, the records
 * (docs/design.md). */
#include "orchestrator/replay/replay_unit.h"
#include "common/cleanup.h"
#include "common/clock.h"
#include "common/strbuf.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/finding_json.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/perf/perf_samples_json.h"
#include "orchestrator/replay/image_setup.h"
#include "orchestrator/replay/interrupt.h"
#include "orchestrator/replay/playback_help.h"
#include "orchestrator/replay/replay.h"
#include "orchestrator/replay/replay_devices.h"
#include "orchestrator/replay/replay_diagnose.h"
#include "orchestrator/replay/replay_json.h"
#include "orchestrator/replay/replay_records.h"
#include "orchestrator/replay/replay_unit_plan.h"
#include "orchestrator/replay/run_folder.h"
#include "orchestrator/replay/run_log.h"
#include "common/signals.h"
#include "orchestrator/seccomp/seccomp_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *pid_name_of(const char *pid_dir)
{
	const char *slash = strrchr(pid_dir, '/');

	return slash ? slash + 1 : pid_dir;
}

/* The preflight's report on the caller's choice of GPUs and the capture's
 * manifest (both read once, by the caller). */
static void run_preflight(const struct replay_host *h, const struct replay_desc *d,
			  struct preflight_report *report, struct replay_unit_result *res)
{
	__attribute__((cleanup(stack_info_release))) struct stack_info own_stack;
	const struct capture_manifest *cap = d->capture;
	const struct stack_info *stack = d->stack;
	struct preflight_input in;

	stack_info_init(&own_stack);
	if (d->gpus->error[0]) {
		/* A missing ordinal blocks even when preflight is skipped. */
		report->verdict = PREFLIGHT_BLOCK;
		strvec_push(&report->blocks, d->gpus->error);
		return;
	}
	if (h->have_topo) {
		memcpy(res->gpus, d->gpus->gpus, d->gpus->n * sizeof(int));
		res->n_gpus = d->gpus->n;
	}
	if (!stack && !d->skip_preflight) {
		replay_read_stack(h, d->image, d->overlay, d->extra_ld, NULL, &own_stack);
		stack = &own_stack;
	}
	memset(&in, 0, sizeof(in));
	in.manifest = cap->loaded ? &cap->m : NULL;
	in.host = h->have_topo ? &h->topo : NULL;
	in.chosen = res->gpus;
	in.n_chosen = res->n_gpus;
	in.stack = stack;
	in.strict_version = d->strict_version;
	in.strict_arch = d->strict_arch;
	in.skip = d->skip_preflight;
	in.manifest_error = cap->loaded ? NULL : cap->error;
	preflight_evaluate(&in, report);
	if (!h->have_topo && h->topo_error[0])
		strvec_pushf(&report->notes, "host GPUs: %s", h->topo_error);
}

/* The preflight's word on this replay: 0 to go on, else the exit code. */
static int preflight_gate(const struct replay_desc *d, const struct preflight_report *r,
			  struct replay_failure *f)
{
	enum events_answer answer;

	if (r->verdict == PREFLIGHT_BLOCK) {
		for (size_t i = 0; i + 1 < r->blocks.n; i++)
			events_error(d->events, "preflight blocked the replay: %s", r->blocks.v[i]);
		return replay_fail(f, d->events, REPLAY_STAGE_PREFLIGHT, EXIT_BLOCKED,
				   "preflight blocked the replay: %s",
				   r->blocks.n ? r->blocks.v[r->blocks.n - 1] : "?");
	}
	if (r->verdict != PREFLIGHT_CONFIRM || d->confirm == REPLAY_CONFIRM_ASSUME_YES)
		return 0;
	for (size_t i = 0; i < r->confirms.n; i++)
		events_error(d->events, "preflight: %s", r->confirms.v[i]);
	/* The caller asks (a terminal's prompt), or nobody can. */
	answer = d->confirm == REPLAY_CONFIRM_REFUSE ? EVENTS_ANSWER_NONE :
		 events_confirm(d->events, "Version mismatch detected. Do you want to continue?");
	if (answer == EVENTS_ANSWER_NONE)
		return replay_fail(f, d->events, REPLAY_STAGE_PREFLIGHT, EXIT_CONFIRM,
				   "version mismatch: re-run with HRR_CONTINUE=1 (or --yes) to replay anyway");
	if (answer != EVENTS_ANSWER_YES) {
		snprintf(f->msg, sizeof(f->msg), "declined by the user");
		f->stage = REPLAY_STAGE_PREFLIGHT;
		f->exit_code = EXIT_DECLINED;
		return EXIT_DECLINED;
	}
	return 0;
}

static int resolve_device_gids(struct unit_run *u, struct error *err)
{
	for (size_t i = 0; i < u->n_devices; i++) {
		struct stat st;

		if (stat(u->devices[i].host_path, &st) < 0)
			return error_errno(err, "device node %s", u->devices[i].host_path);
		if (!S_ISCHR(st.st_mode))
			return error_set(err, ERR_DATA, 0, "%s is not a character device",
					 u->devices[i].host_path);
		u->devices[i].gid = st.st_gid;
	}
	return 0;
}

static int to_run_log(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	run_log_write(ud, (int)stream, data, len);
	return 0;
}

/* `hrr-playback --info` in a container like the replay's, when the log
 * alone cannot name the kernel. */
static int playback_info(const struct unit_run *u, struct classifier *cls)
{
	struct container_spec spec;
	cleanup_free char *diag = xasprintf("%s/diagnostics", u->run_dir);
	cleanup_free char *path = xasprintf("%s/hrr-playback-info.txt", diag);
	struct run_log rl;
	struct error err;
	long status = -1;
	int ret = -1;

	unit_query_spec(u, "--info", &spec);
	error_clear(&err);
	if (mkdir(diag, 0755) < 0 && errno != EEXIST) {
		error_errno(&err, "%s", diag);
		goto out;
	}
	if (run_log_open(&rl, path, NULL, cls, &err) < 0)
		goto out;
	ret = unit_oneoff_run(u, &spec, to_run_log, &rl, &status, &err);
	run_log_close(&rl, NULL);
out:
	if (ret < 0 && err.kind != ERR_INTERRUPTED)
		events_info(u->desc->events, u->desc->verbosity,
			    "note: hrr-playback --info could not run: %s", err.msg);
	container_spec_release(&spec);
	return ret;
}

/* No replay: record why (run.json, preflight.md when it ran). */
static int stop_before_replay(struct unit_run *u, struct replay_unit_result *res,
			      const char *why)
{
	u->exit_code = res->failure.exit_code;
	u->stop_reason = xstrdup(why);
	if (u->preflight && !res->preflight_markdown)
		res->preflight_markdown = records_write_preflight(u->run_dir, u->preflight, u->warnings);
	records_write_run_json(u);
	return u->exit_code;
}

/* A signal read after the replay (during --info or a debugger step) ends
 * the unit like one during it: no further step, exit 5. */
static void note_interrupt(struct unit_run *u)
{
	if (u->iw && u->iw->first && !u->result.interrupt_signal)
		u->result.interrupt_signal = u->iw->first;
}

/* run --known-issues: the rule that matches the finding, named in its
 * finding.json and finding.md. The case is the pid directory as given;
 * the GPUs are their KFD unique_ids, as a sweep's results line has them. */
static void match_known(const struct unit_run *u, const struct signature *sig,
			struct finding_context *ctx)
{
	const struct replay_desc *d = u->desc;
	cleanup_strbuf struct strbuf uids = STRBUF_INIT;
	char host[256];

	if (!u->host->known)
		return;
	gpu_unique_ids_format(&uids, &u->host->topo, u->chosen, u->n_chosen);
	replay_host_name(host, sizeof(host));
	ctx->known_checked = true;
	ctx->known = known_issues_match(u->host->known,
					&(struct known_subject){ .sig = sig, .case_name = d->pid_dir,
								 .image = d->image->ref,
								 .gpu = uids.buf, .host = host },
					(long long)time(NULL));
}

/* finding.json and finding.md of a verdict: the diagnosis added, then
 * what the caller adds once the verdict is known (on_verdict: `run
 * --perf`'s samples), then written. */
static void write_finding(struct unit_run *u, const struct finding *f,
			  const struct finding_context *ctx, struct replay_unit_result *res)
{
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	cleanup_free char *json_text = NULL, *with_nl = NULL;

	res->has_verdict = true;
	res->finding_doc = xmalloc(sizeof(*res->finding_doc));
	res->finding_doc->json = finding_to_json(f, ctx);
	finding_render_markdown(f, ctx, &md);
	unit_diag_render(u->diag, res->finding_doc, &md);
	res->finding_markdown = strbuf_detach(&md, NULL);
	if (u->desc->on_verdict)
		u->desc->on_verdict(u->desc->on_verdict_ctx, res);
	if (res->perf)
		cJSON_AddItemToObject(res->finding_doc->json, "perf", perf_samples_to_json(res->perf));
	json_text = cJSON_Print(res->finding_doc->json);
	with_nl = xasprintf("%s\n", json_text);
	records_write_finding(u->run_dir, res->finding_markdown, with_nl, u->warnings);
}

/* The finding: the classifier's verdict on the log, completed by --info
 * when it can name the kernel, rendered and recorded. */
static void collect_finding(struct unit_run *u, struct classifier *cls, const char *log_path,
			    const struct preflight_report *pf, struct replay_unit_result *res)
{
	const struct replay_desc *d = u->desc;
	struct finding f;
	struct finding_context ctx;
	struct finding_run fr;
	double t_collect = monotonic_now();

	finding_init(&f);
	classifier_finish(cls, &f);
	memset(&fr, 0, sizeof(fr));
	fr.image = d->image->ref;
	fr.image_id = d->image->id;
	fr.image_digest = d->image->digest;
	fr.container_id = u->result.container_id;
	fr.gpus = u->chosen;
	fr.n_gpus = u->n_chosen;
	fr.devices = u->devices_how;
	fr.exit_code = (int)u->result.exit_code;
	fr.ended_by = u->result.ended_by;
	fr.signal = u->result.signal;
	fr.log = log_path;
	fr.run_dir = u->run_dir;

	memset(&ctx, 0, sizeof(ctx));
	ctx.archive_name = u->pid_name;
	ctx.manifest = d->capture->loaded ? &d->capture->m : NULL;
	ctx.archive_format_version = u->format_version;
	ctx.run = &fr;
	ctx.preflight = pf;
	ctx.multi_process = d->multi_process;
	ctx.stack = d->stack;

	if (finding_needs_info(&f) && !u->result.interrupt_signal) {
		struct classifier *info_cls = classifier_new("hrr-playback --info");
		struct finding later;

		finding_init(&later);
		if (playback_info(u, info_cls) == 0) {
			classifier_finish(info_cls, &later);
			finding_merge(&f, &later);
		}
		finding_release(&later);
		classifier_free(info_cls);
	}
	note_interrupt(u);
	if (u->diag) {
		unit_diag_after(u->diag, u, &f);
		if (!f.stop_reason && unit_diag_stop_reason(u->diag))
			f.stop_reason = xstrdup(unit_diag_stop_reason(u->diag));
	}
	note_interrupt(u);
	fr.wall_s = monotonic_now() - u->t_begin;
	finding_finalize(&f, &ctx);
	res->verdict = (struct replay_verdict){
		.outcome = f.outcome,
		.fault_class = f.fault_class,
		.kernel = f.kernel_name ? text_sanitized(f.kernel_name, TEXT_STRIP_ANSI) : NULL,
		.d2h_pass = f.d2h_pass < 0 ? -1 : f.d2h_pass,
		.d2h_fail = f.d2h_fail < 0 ? -1 : f.d2h_fail,
		.classifier_version = FINDING_CLASSIFIER_VERSION,
		.engine_oom_killed = f.saw_oom_marker,
		.gpu_kernel_ms = f.gpu_time_kernel_ms,
		.gpu_graph_ms = f.gpu_time_graph_ms,
		.gpu_total_ms = f.gpu_time_total_ms,
	};
	signature_of_finding(&res->verdict.signature, &f);
	/* The rules see the signature the verdict carries, as a sweep's
	 * import sees its results line's. */
	match_known(u, &res->verdict.signature, &ctx);
	write_finding(u, &f, &ctx, res);
	if (u->result.interrupt_signal)
		u->exit_code = EXIT_NO_VERDICT;
	else
		u->exit_code = f.outcome == OUTCOME_PASS ? EXIT_PASS : EXIT_NOT_PASS;
	finding_release(&f);
	u->collect_s = monotonic_now() - t_collect;
}

/* From the container spec to the finding: 0 with u->exit_code set, or the
 * exit code of a failure (recorded in res->failure). */
static int replay_and_classify(struct unit_run *u, const struct container_spec *spec,
			       struct interrupt_watch *iw, const struct preflight_report *pf,
			       struct replay_unit_result *res)
{
	const struct replay_desc *d = u->desc;
	cleanup_free char *log_path = xasprintf("%s/replay.log", u->run_dir);
	cleanup_strbuf struct strbuf gpus = STRBUF_INIT;
	struct classifier *cls = classifier_new("replay.log");
	struct replay_exec x;
	struct run_log rl;
	struct error err, lerr;
	int code, rc;

	if (run_log_open(&rl, log_path, d->verbosity >= 0 ? d->events : NULL, cls, &err) < 0) {
		code = replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_RECORDS,
				   EXIT_NO_VERDICT, "%s", err.msg);
		goto out;
	}
	run_log_set_limit(&rl, d->limits.log_limit_bytes);
	gpu_list_format(&gpus, u->chosen, u->n_chosen);
	events_info(d->events, d->verbosity, "replaying %s in %s on GPU %s (run %s)", u->pid_name,
		    d->image->ref, gpus.len ? gpus.buf : "none", u->run_id);
	memset(&x, 0, sizeof(x));
	x.engine = u->host->engine;
	x.timeout_s = d->limits.timeout_s;
	x.progress_timeout_s = d->limits.progress_timeout_s;
	x.stop_grace_s = d->limits.stop_grace_s;
	x.keep = d->keep;
	x.verbosity = d->verbosity;
	x.events = d->events;
	x.spec = spec;
	x.name = u->container_name;
	x.log = &rl;
	x.interrupt = iw;
	if (u->diag)
		unit_diag_exec(u->diag, u, &x);
	rc = replay_execute(&x, &u->result, &err);
	unit_take_warnings(u, &u->result.warnings);
	if (rc < 0) {
		run_log_close(&rl, NULL);
		code = replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_REPLAY,
				   EXIT_NO_VERDICT, "%s", err.msg);
		goto out;
	}
	u->replayed = true;
	if (run_log_close(&rl, &lerr) < 0) {
		/* The log is the evidence: without all of it there is no verdict. */
		code = replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_RECORDS,
				   EXIT_NO_VERDICT,
				   "%s: %s; the replay was %s, what was written is kept", log_path,
				   lerr.msg, u->result.log_write_failed ? "stopped" : "over");
		goto out;
	}
	u->result.log_dropped = rl.dropped;
	if (rl.dropped)
		strvec_pushf(u->warnings, "%s: --log-limit %llu bytes reached: %llu bytes of the "
			     "middle dropped (the verdict read all of it)", log_path,
			     (unsigned long long)rl.limit, (unsigned long long)rl.dropped);
	if (u->result.engine_lost) {
		code = replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_ENGINE,
				   EXIT_NO_VERDICT,
				   "the Docker engine is not answering any more: no verdict; the "
				   "partial log is kept in %s, and `gc` removes the container once "
				   "the engine is back", log_path);
		goto out;
	}
	collect_finding(u, cls, log_path, pf, res);
	code = 0;
out:
	classifier_free(cls);
	return code;
}

/* Who the replay runs as and under which seccomp profile (docs/security.md):
 * the caller's uid:gid unless --as-root, the replay profile unless asked
 * otherwise. */
static int container_identity(struct unit_run *u, bool allow_ptrace, struct error *err)
{
	const struct replay_desc *d = u->desc;
	static const struct seccomp_choice replay_profile = { SECCOMP_MODE_REPLAY, NULL };
	cleanup_strvec struct strvec notes = STRVEC_INIT;
	bool root_is_caller = false;

	/* Rootless Podman: root inside is the caller outside. */
	if (!d->as_root && engine_root_is_caller(u->host->engine, &root_is_caller, err) < 0)
		return -1;
	if (d->as_root || root_is_caller)
		snprintf(u->user, sizeof(u->user), "0:0");
	else
		snprintf(u->user, sizeof(u->user), "%u:%u", (unsigned)getuid(), (unsigned)getgid());
	if (seccomp_engine_option(u->host->engine, d->seccomp ? d->seccomp : &replay_profile,
				  allow_ptrace, &u->seccomp_profile, &u->seccomp_opt,
				  &u->seccomp_record, &notes, err) < 0)
		return -1;
	for (size_t i = 0; i < notes.n; i++)
		events_info(d->events, d->verbosity - 1, "note: %s", notes.v[i]);
	return 0;
}

/* Preflight passed: devices, spec, replay, finding. */
static int replay_stage(struct unit_run *u, struct interrupt_watch *iw,
			const struct preflight_report *pf, struct replay_unit_result *res)
{
	const struct replay_desc *d = u->desc;
	struct replay_plan_knobs k;
	struct replay_plan_input in;
	struct container_spec spec;
	struct unit_diag diag;
	struct error err;
	const char *why = res->failure.msg;
	int code;

	container_spec_init(&spec);
	unit_diag_prepare(u, &diag);
	u->diag = &diag;
	plan_devices(u->host->device_root, &u->host->topo, u->chosen, u->n_chosen, &u->devices,
		     &u->n_devices);
	if (resolve_device_gids(u, &err) < 0) {
		replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_HOST, EXIT_NO_VERDICT,
			    "%s (--device-root %s)", err.msg, u->host->device_root);
		why = err.msg; /* run.json says what, the message also where */
		goto stop;
	}
	if (unit_devices_choose(u, &err) < 0) {
		replay_fail(&res->failure, u->desc->events,
			    err.kind == ERR_USAGE ? REPLAY_STAGE_USAGE : REPLAY_STAGE_HOST,
			    err.kind == ERR_USAGE ? EXIT_USAGE : EXIT_NO_VERDICT, "%s", err.msg);
		goto stop;
	}
	if (u->devices_note[0] && strcmp(u->devices_how, "cdi"))
		events_info(d->events, d->verbosity, "note: devices: device nodes, not CDI: %s",
			    u->devices_note);
	else if (u->cdi_devices.n)
		events_info(d->events, d->verbosity - 1, "note: devices: CDI %s (%s)",
			    u->cdi_devices.v[0], u->devices_note);
	unit_plan_knobs(u, &k);
	unit_diag_knobs(&diag, u, &k);
	/* After the diagnostics' knobs: a hang-diagnostic run's profile lets
	 * rocgdb attach. */
	if (container_identity(u, k.allow_ptrace, &err) < 0) {
		replay_fail(&res->failure, u->desc->events,
			    err.kind == ERR_USAGE ? REPLAY_STAGE_USAGE : REPLAY_STAGE_ENGINE,
			    err.kind == ERR_USAGE ? EXIT_USAGE : EXIT_NO_VERDICT, "%s", err.msg);
		goto stop;
	}
	unit_plan_input(u, &k, &in);
	if (replay_plan_build(&in, &spec, &err) < 0) {
		replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_REPLAY, EXIT_NO_VERDICT,
			    "%s", err.msg);
		goto stop;
	}
	if (unit_playback_flags_check(u, &err) < 0) {
		replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_USAGE, EXIT_USAGE, "%s",
			    err.msg);
		goto stop;
	}
	u->spec = &spec;
	u->container_name = xasprintf("hrr-docker-replay-%s", u->run_id);
	if (interrupt_watch_poll(iw)) {
		res->failure.stage = REPLAY_STAGE_REPLAY;
		res->failure.exit_code = EXIT_NO_VERDICT;
		snprintf(res->failure.msg, sizeof(res->failure.msg), "interrupted");
		goto stop;
	}
	if (replay_and_classify(u, &spec, iw, pf, res))
		goto stop;
	records_write_run_json(u);
	code = u->exit_code;
	goto out;
stop:
	code = stop_before_replay(u, res, why);
out:
	u->diag = NULL;
	unit_diag_release(&diag);
	u->spec = NULL;
	container_spec_release(&spec);
	return code;
}

/* Preflight-only: the report and its exit code; no run folder. */
static int preflight_only(const struct preflight_report *pf, const struct replay_desc *d,
			  struct replay_unit_result *res)
{
	struct strbuf md = STRBUF_INIT;

	preflight_render_markdown(pf, &md);
	res->preflight_markdown = strbuf_detach(&md, NULL);
	switch (pf->verdict) {
	case PREFLIGHT_BLOCK:
		res->failure.stage = REPLAY_STAGE_PREFLIGHT;
		snprintf(res->failure.msg, sizeof(res->failure.msg), "preflight blocked the replay: %s",
			 pf->blocks.n ? pf->blocks.v[0] : "?");
		return res->failure.exit_code = EXIT_BLOCKED;
	case PREFLIGHT_CONFIRM:
		if (d->confirm == REPLAY_CONFIRM_ASSUME_YES)
			return 0;
		res->failure.stage = REPLAY_STAGE_PREFLIGHT;
		snprintf(res->failure.msg, sizeof(res->failure.msg),
			 "version mismatch: re-run with HRR_CONTINUE=1 (or --yes) to replay anyway");
		return res->failure.exit_code = EXIT_CONFIRM;
	default:
		return 0;
	}
}

/* What the run needs before the preflight: the playback path (the
 * overlay's, the caller's, or looked up in the image and cached). */
static int resolve_playback(struct unit_run *u, struct replay_unit_result *res)
{
	const struct replay_desc *d = u->desc;
	struct ours_probe probe = { .engine = u->host->engine, .image = d->image->id,
				    .image_name = d->image->ref };
	struct error err;
	int rc = image_playback_resolve(&probe, d->image, u->host->cache_dir, d->playback,
					d->overlay != NULL, &u->playback, &err);

	/* Best effort: gc removes a probe left behind (LABEL_PROBE). */
	(void)ours_probe_release(&probe, ERROR_DISCARD);
	if (rc < 0)
		return replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_IMAGE,
				   EXIT_NO_VERDICT, "%s", err.msg);
	return 0;
}

static int unit_body(struct unit_run *u, struct preflight_report *pf, struct interrupt_watch *iw,
		     struct replay_unit_result *res)
{
	const struct replay_desc *d = u->desc;
	struct error err;
	int code;

	if (!d->archive_format_version &&
	    archive_check_events(d->pid_dir, &u->format_version, &err) < 0)
		return replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_ARCHIVE,
				   EXIT_NO_VERDICT, "%s: %s", d->pid_dir, err.msg);
	if (d->mode == REPLAY_MODE_PREFLIGHT_ONLY) {
		run_preflight(u->host, d, pf, res);
		return preflight_only(pf, d, res);
	}
	if ((code = resolve_playback(u, res)))
		return code;
	if (d->run_id)
		snprintf(u->run_id, sizeof(u->run_id), "%s", d->run_id);
	else
		run_id_new(u->run_id);
	if (run_folder_create(u->host->workdir, u->pid_name, u->run_id, &u->run_dir, &err) < 0)
		return replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_WORKDIR,
				   EXIT_NO_VERDICT, "%s", err.msg);
	if (unit_kernels_keep(u, &err) < 0)
		return replay_fail(&res->failure, u->desc->events, REPLAY_STAGE_USAGE, EXIT_USAGE,
				   "--replace-kernel: %s", err.msg);
	run_preflight(u->host, d, pf, res);
	u->chosen = res->gpus;
	u->n_chosen = res->n_gpus;
	u->preflight = pf;
	if ((code = preflight_gate(d, pf, &res->failure)))
		return stop_before_replay(u, res, code == EXIT_BLOCKED ? "preflight blocked" :
					  code == EXIT_CONFIRM ? "confirmation needed" :
					  "declined by the user");
	for (size_t i = 0; i < pf->warnings.n; i++)
		events_info(d->events, d->verbosity, "preflight warning: %s", pf->warnings.v[i]);
	res->preflight_markdown = records_write_preflight(u->run_dir, pf, u->warnings);
	return replay_stage(u, iw, pf, res);
}

int replay_unit_run(const struct replay_host *host, const struct replay_desc *d,
		    struct replay_unit_result *res)
{
	struct unit_run u;
	struct preflight_report pf;
	struct interrupt_watch iw;
	int code;

	memset(res, 0, sizeof(*res));
	strvec_init(&res->warnings);
	memset(&u, 0, sizeof(u));
	strvec_init(&u.cdi_devices);
	u.warnings = &res->warnings;
	preflight_report_init(&pf);
	interrupt_watch_init(&iw, d->interrupt_fd);
	u.host = host;
	u.desc = d;
	u.iw = &iw;
	u.pid_name = pid_name_of(d->pid_dir);
	u.t_begin = monotonic_now();
	u.format_version = d->archive_format_version;
	utc_iso(u.started, sizeof(u.started));

	code = unit_body(&u, &pf, &iw, res);
	res->exit_code = code;
	res->preflight = pf.verdict;
	if (res->preflight_markdown) {
		res->preflight_report = xmalloc(sizeof(*res->preflight_report));
		*res->preflight_report = pf; /* taken: pf starts over empty */
		preflight_report_init(&pf);
	}
	res->interrupt_signal = iw.first ? iw.first : u.result.interrupt_signal;
	snprintf(res->run_id, sizeof(res->run_id), "%s", u.run_id);
	res->run_dir = u.run_dir;
	res->timings.pull_s = d->image ? d->image->pull_s : 0;
	res->timings.create_s = u.replayed ? u.result.create_s : -1;
	res->timings.start_s = u.replayed ? u.result.start_s : -1;
	res->timings.first_output_s = u.replayed ? u.result.first_output_s : -1;
	res->timings.exit_s = u.replayed ? u.result.exit_s : -1;
	res->timings.remove_s = u.replayed ? u.result.remove_s : -1;
	res->timings.collect_s = u.replayed ? u.collect_s : -1;
	res->timings.wall_s = monotonic_now() - u.t_begin;

	preflight_report_release(&pf);
	plan_devices_free(u.devices, u.n_devices);
	strvec_clear(&u.cdi_devices);
	kernel_replacements_release(&u.kernels);
	seccomp_record_free(u.seccomp_record);
	free(u.seccomp_opt);
	free(u.seccomp_profile);
	replay_result_release(&u.result);
	free(u.container_name);
	free(u.stop_reason);
	free(u.playback);
	return code;
}
