#include "orchestrator/replay.h"
#include "common/cleanup.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include "orchestrator/say.h"
#include "orchestrator/signals.h"
#include "orchestrator/watchdog.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long the log may trail the exit, and how long SIGKILL may take, before
 * we stop waiting: both only matter when the engine itself misbehaves. */
#define LOG_DRAIN_S 10.0
#define KILL_WAIT_S 30.0
#define WAIT_REGISTER_S 30.0

void replay_result_release(struct replay_result *r)
{
	free(r->container_id);
	memset(r, 0, sizeof(*r));
}

void replay_ending(enum replay_stop stop, long timeout_s, long progress_timeout_s,
		   int interrupt_signal, bool oom_killed, long exit_code,
		   struct strbuf *marker, const char **ended_by, int *signal_out)
{
	*signal_out = -1;
	switch (stop) {
	case REPLAY_STOP_TIMEOUT:
		strbuf_addf(marker, "replay timed out after %lds", timeout_s);
		*ended_by = "timeout";
		return;
	case REPLAY_STOP_PROGRESS:
		strbuf_addf(marker, "replay timed out after %lds without output",
			    progress_timeout_s);
		*ended_by = "progress-timeout";
		return;
	case REPLAY_STOP_INTERRUPT:
		strbuf_addf(marker, "replay interrupted by the user (%s)",
			    signal_name(interrupt_signal));
		*ended_by = "interrupt";
		return;
	case REPLAY_STOP_NONE:
		break;
	}
	if (oom_killed) {
		strbuf_addstr(marker, "replay killed by the engine: out of memory");
		*ended_by = "oom";
		return;
	}
	if (exit_code > 128 && exit_code < 128 + 65) {
		*signal_out = (int)(exit_code - 128);
		strbuf_addf(marker, "replay killed by signal %d", *signal_out);
		*ended_by = "signal";
		return;
	}
	*ended_by = "exit";
}

struct log_sink {
	struct run_log *log;
	struct watchdog *watchdog;
	double start;
	double first_output;
	double last_data;
};

static int on_log(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	struct log_sink *s = ud;
	double now = monotonic_now();

	if (s->first_output < 0)
		s->first_output = now - s->start;
	s->last_data = now;
	watchdog_saw_output(s->watchdog, now);
	run_log_write(s->log, (int)stream, data, len);
	return 0;
}

static void send_signal(struct engine *e, const char *id, const char *sig)
{
	struct error err;

	/* 409: it already stopped, which is what we wanted. */
	if (engine_container_kill(e, id, sig, &err) < 0 && err.status != 409)
		say_warning("%s to the replay failed: %s",
			sig, err.msg);
}

static void remove_container(const struct replay_exec *x, struct replay_result *r)
{
	struct error err;
	cJSON *gone = NULL;
	double t0 = monotonic_now();

	if (engine_container_remove(x->engine, r->container_id, true, &err) < 0 &&
	    err.kind != ERR_NOT_FOUND) {
		say_warning("could not remove container %.12s: %s "
			"(hrr-docker-replay gc removes it later)", r->container_id, err.msg);
		return;
	}
	/* Confirm: a container that still inspects is not gone. */
	if (engine_container_inspect(x->engine, r->container_id, &gone, &err) < 0 &&
	    err.kind == ERR_NOT_FOUND)
		r->removed = true;
	cJSON_Delete(gone);
	r->remove_s = monotonic_now() - t0;
}

static int wait_registered(struct engine_loop *loop, struct engine_stream *wait,
			   struct error *err)
{
	double deadline = monotonic_now() + WAIT_REGISTER_S;

	while (!engine_stream_responded(wait) && !engine_stream_done(wait)) {
		if (monotonic_now() > deadline)
			return error_set(err, ERR_PROTOCOL, 0,
					 "the engine did not acknowledge the wait request within %.0fs",
					 WAIT_REGISTER_S);
		if (engine_loop_poll(loop, 100, -1, err) < 0)
			return -1;
	}
	if (engine_stream_done(wait) && engine_stream_result(wait, err) < 0)
		return error_prefix(err, "waiting for the replay container: ");
	return 0;
}

int replay_execute(const struct replay_exec *x, struct replay_result *r, struct error *err)
{
	struct interrupt_watch *iw = x->interrupt;
	struct engine_loop *loop = NULL;
	struct engine_stream *wait = NULL;
	struct engine_stream *logs = NULL;
	struct watchdog wd;
	struct log_sink sink = { .log = x->log, .watchdog = &wd, .first_output = -1 };
	enum replay_stop stop = REPLAY_STOP_NONE;
	enum { RUNNING, TERM_SENT, KILL_SENT } state = RUNNING;
	double t0 = monotonic_now(), now, term_deadline = 0, kill_deadline = 0;
	double exited_at = -1;
	cleanup_strbuf struct strbuf marker = STRBUF_INIT;
	cleanup_cjson cJSON *inspect = NULL;
	struct container_state st;
	long status = -1;
	int signals_seen = iw->count;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	r->signal = -1;
	r->first_output_s = -1;
	r->ended_by = "exit";

	if (engine_container_create(x->engine, x->name, x->spec, &r->container_id, err) < 0)
		return error_prefix(err, "creating the replay container: ");
	r->create_s = monotonic_now() - t0;
	if (engine_loop_new(&loop, err) < 0)
		goto fail_remove;
	if (engine_wait_stream(x->engine, r->container_id, "next-exit", &wait, err) < 0 ||
	    engine_loop_add(loop, wait, err) < 0 || wait_registered(loop, wait, err) < 0)
		goto fail_remove;
	if (interrupt_watch_poll(iw)) {
		error_set(err, ERR_CANCELLED, 0, "interrupted by %s before the replay started",
			  signal_name(iw->first));
		goto fail_remove;
	}
	/* Attached before start, the stream holds every byte the replay
	 * writes; following /logs instead would read the engine's log file,
	 * which loses output once it rotates. */
	{
		struct error aerr;

		if (engine_attach_stream(x->engine, r->container_id, false, on_log, &sink, &logs,
					 &aerr) < 0 || engine_loop_add(loop, logs, &aerr) < 0) {
			say_warning("cannot attach to the replay (%s); "
				"following the engine's log instead", aerr.msg);
			engine_stream_free(logs);
			logs = NULL;
		}
	}
	if (engine_container_start(x->engine, r->container_id, err) < 0) {
		error_prefix(err, "starting the replay container: ");
		goto fail_remove;
	}
	sink.start = monotonic_now();
	sink.last_data = sink.start;
	r->start_s = sink.start - t0;
	utc_iso(r->started_at, sizeof(r->started_at));
	watchdog_start(&wd, (double)x->timeout_s, (double)x->progress_timeout_s, sink.start);
	/* Following /logs works only after start: on a created container the
	 * engine answers an empty body at once. */
	if (!logs && (engine_logs_stream(x->engine, r->container_id, true, false, on_log, &sink,
					 &logs, err) < 0 || engine_loop_add(loop, logs, err) < 0)) {
		error_prefix(err, "following the replay log: ");
		send_signal(x->engine, r->container_id, "SIGKILL");
		goto fail_remove;
	}

	for (;;) {
		int timeout_ms = 1000;
		int sig;

		now = monotonic_now();
		if (state == RUNNING)
			timeout_ms = watchdog_next_ms(&wd, now, 1000);
		else if (state == TERM_SENT)
			timeout_ms = term_deadline > now ? (int)((term_deadline - now) * 1000) + 1 : 0;
		if (engine_loop_poll(loop, timeout_ms, iw->fd, err) < 0)
			break;
		run_log_flush(x->log);
		now = monotonic_now();
		sig = interrupt_watch_poll(iw);
		/* Another Ctrl-C during the grace period: the user will not wait. */
		if (state == TERM_SENT && exited_at < 0 && iw->count > signals_seen) {
			say_info(x->verbosity, "%s again: SIGKILL now", signal_name(sig));
			term_deadline = now;
		}
		signals_seen = iw->count;
		if (state == RUNNING && exited_at < 0) {
			enum watchdog_action a = watchdog_check(&wd, now);

			if (sig) {
				stop = REPLAY_STOP_INTERRUPT;
				r->interrupt_signal = sig;
			} else if (a == WATCHDOG_TIMEOUT) {
				stop = REPLAY_STOP_TIMEOUT;
			} else if (a == WATCHDOG_PROGRESS_TIMEOUT) {
				stop = REPLAY_STOP_PROGRESS;
			}
			if (stop != REPLAY_STOP_NONE) {
				if (stop == REPLAY_STOP_INTERRUPT)
					say_info(x->verbosity, "%s received: stopping the replay (up to %ld s); "
						 "Ctrl-C again to kill now", signal_name(sig), x->stop_grace_s);
				else
					say_info(x->verbosity, "replay %s: stopping it (SIGTERM, then SIGKILL after %lds)",
					    stop == REPLAY_STOP_TIMEOUT ? "timed out" : "went silent",
					    x->stop_grace_s);
				if (x->stop_grace_s > 0) {
					send_signal(x->engine, r->container_id, "SIGTERM");
					state = TERM_SENT;
					term_deadline = now + (double)x->stop_grace_s;
				} else {
					send_signal(x->engine, r->container_id, "SIGKILL");
					state = KILL_SENT;
					kill_deadline = now + KILL_WAIT_S;
				}
			}
		}
		if (state == TERM_SENT && exited_at < 0 && now >= term_deadline) {
			send_signal(x->engine, r->container_id, "SIGKILL");
			state = KILL_SENT;
			kill_deadline = now + KILL_WAIT_S;
		}
		if (state == KILL_SENT && exited_at < 0 && now >= kill_deadline) {
			say_warning("the replay did not exit %.0fs after SIGKILL",
				KILL_WAIT_S);
			break;
		}
		if (engine_stream_done(wait) && exited_at < 0) {
			exited_at = now;
			r->exit_s = now - sink.start;
		}
		if (exited_at >= 0 && engine_stream_done(logs))
			break;
		/* The log may trail the exit while data still flows; only an
		 * engine gone quiet ends the wait, and that is said. */
		if (exited_at >= 0 && now - (sink.last_data > exited_at ? sink.last_data : exited_at) >
					      LOG_DRAIN_S) {
			say_warning("the engine sent no more of the replay log "
				"%.0fs after the replay exited; replay.log may be incomplete", LOG_DRAIN_S);
			r->log_incomplete = true;
			break;
		}
	}
	r->first_output_s = sink.first_output;

	if (engine_stream_done(wait)) {
		struct error werr;

		if (engine_wait_status(wait, &status, &werr) < 0)
			status = -1;
	}
	if (engine_stream_done(logs)) {
		struct error lerr;

		if (engine_stream_result(logs, &lerr) < 0) {
			say_warning("replay log stream: %s", lerr.msg);
			r->log_incomplete = true;
		}
	}
	engine_stream_free(logs);
	engine_stream_free(wait);
	logs = wait = NULL;
	engine_loop_free(loop);
	loop = NULL;

	memset(&st, 0, sizeof(st));
	st.exit_code = -1;
	{
		struct error ierr;

		if (engine_container_inspect(x->engine, r->container_id, &inspect, &ierr) == 0 &&
		    container_state_from_json(inspect, &st, &ierr) == 0) {
			r->oom_killed = st.oom_killed;
			if (status < 0 && !st.running)
				status = st.exit_code;
			snprintf(r->finished_at, sizeof(r->finished_at), "%s", st.finished_at);
			if (!r->started_at[0])
				snprintf(r->started_at, sizeof(r->started_at), "%s", st.started_at);
		}
	}
	if (!r->finished_at[0])
		utc_iso(r->finished_at, sizeof(r->finished_at));
	r->exit_code = status;
	replay_ending(stop, x->timeout_s, x->progress_timeout_s, r->interrupt_signal,
		      r->oom_killed, status, &marker, &r->ended_by, &r->signal);
	if (marker.len) {
		run_log_marker(x->log, "%s", marker.buf);
	}
	if (!x->keep)
		remove_container(x, r);
	return 0;

fail_remove:
	engine_stream_free(logs);
	engine_stream_free(wait);
	engine_loop_free(loop);
	/* Best effort: gc removes what is left (it carries our labels). */
	(void)engine_container_remove(x->engine, r->container_id, true, ERROR_DISCARD);
	return ret;
}
