#include "orchestrator/replay/replay.h"
#include "common/cleanup.h"
#include "common/clock.h"
#include "common/xalloc.h"
#include "common/signals.h"
#include "orchestrator/replay/watchdog.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long the log may trail the exit, and how long SIGKILL may take, before
 * we stop waiting: both only matter when the engine itself misbehaves. */
#define LOG_DRAIN_S 10.0
#define KILL_WAIT_S 30.0
#define WAIT_REGISTER_S 30.0
#define QUIT_QUIET_S 1.0

void replay_result_release(struct replay_result *r)
{
	free(r->container_id);
	strvec_clear(&r->warnings);
	memset(r, 0, sizeof(*r));
	strvec_init(&r->warnings);
}

void replay_ending(enum replay_stop stop, long timeout_s, long progress_timeout_s,
		   int interrupt_signal, bool oom_killed, long exit_code,
		   struct strbuf *marker, enum finding_ended_by *ended_by, int *signal_out)
{
	struct marker m = { .ended_by = ENDED_EXIT };

	*signal_out = -1;
	switch (stop) {
	case REPLAY_STOP_TIMEOUT:
		m.ended_by = ENDED_TIMEOUT;
		m.seconds = timeout_s;
		break;
	case REPLAY_STOP_PROGRESS:
		m.ended_by = ENDED_PROGRESS_TIMEOUT;
		m.seconds = progress_timeout_s;
		break;
	case REPLAY_STOP_INTERRUPT:
		m.ended_by = ENDED_INTERRUPT;
		m.signal_name = signal_name(interrupt_signal);
		break;
	case REPLAY_STOP_LOG_FAILED:
		/* Nothing can be appended to a log that cannot be written. */
		*ended_by = ENDED_INTERRUPT;
		return;
	case REPLAY_STOP_NONE:
		if (oom_killed) {
			m.ended_by = ENDED_OOM;
		} else if (exit_code > 128 && exit_code < 128 + 65) {
			m.ended_by = ENDED_SIGNAL;
			m.signal = (int)(exit_code - 128);
			*signal_out = m.signal;
		}
		break;
	}
	marker_format(marker, &m);
	*ended_by = m.ended_by;
}

struct log_sink {
	struct run_log *log;
	struct watchdog *watchdog;
	double start;
	double first_output;
	double last_data;
	double quiet_s, quiet_end_s; /* see replay_result */
};

static int on_log(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	struct log_sink *s = ud;
	double now = monotonic_now();

	if (s->first_output < 0)
		s->first_output = now - s->start;
	if (now - s->last_data >= REPLAY_QUIET_MIN_S) {
		s->quiet_s = now - s->last_data;
		s->quiet_end_s = now - s->start;
	}
	s->last_data = now;
	watchdog_saw_output(s->watchdog, now);
	run_log_write(s->log, (int)stream, data, len);
	return 0;
}

/* An engine that cannot be reached, does not answer in time, or hangs up
 * without answering (a kept connection to a dockerd that was killed). */
static bool engine_gone(const struct error *err)
{
	return err->kind == ERR_CONNECT || err->kind == ERR_TIMEOUT || err->kind == ERR_PROTOCOL;
}

/* false when the engine is gone: nothing more can be learnt from it. */
static bool send_signal(struct engine *e, struct replay_result *r, const char *sig)
{
	struct error err;

	/* 409: it already stopped, which is what we wanted. */
	if (engine_container_kill(e, r->container_id, sig, &err) < 0 && err.status != 409) {
		strvec_pushf(&r->warnings, "%s to the replay failed: %s", sig, err.msg);
		return !engine_gone(&err);
	}
	return true;
}

static void remove_container(const struct replay_exec *x, struct replay_result *r)
{
	struct error err;
	double t0 = monotonic_now();

	if (engine_container_remove(x->engine, r->container_id, true, &err) < 0 &&
	    err.kind != ERR_NOT_FOUND) {
		strvec_pushf(&r->warnings, "could not remove container %.12s: %s "
			     "(hrr-docker-replay gc removes it later)", r->container_id, err.msg);
		return;
	}
	/* Confirm: a container that still inspects is not gone. */
	if (engine_container_inspect(x->engine, r->container_id, NULL, &err) < 0 &&
	    err.kind == ERR_NOT_FOUND)
		r->removed = true;
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

/* One replay while it runs: the streams, the deadlines, how it is being
 * stopped. */
struct exec_state {
	const struct replay_exec *x;
	struct replay_result *r;
	struct engine_loop *loop;
	struct engine_stream *wait;
	struct engine_stream *logs;
	struct watchdog wd;
	struct log_sink sink;
	enum replay_stop stop;
	enum { RUNNING, QUIT_SENT, TERM_SENT, KILL_SENT } state;
	double quit_at, quit_deadline, term_deadline, kill_deadline, exited_at;
	bool marker_written;     /* the stop marker went out before SIGQUIT */
	int signals_seen;
};

/* Create, register the wait, attach, start: the container runs and its
 * log is followed. < 0: err filled, the container is still to be removed. */
static int start_replay(struct exec_state *s, double t0, struct error *err)
{
	const struct replay_exec *x = s->x;
	struct replay_result *r = s->r;
	struct error aerr;

	if (engine_container_create(x->engine, x->name, x->spec, &r->container_id, err) < 0)
		return error_prefix(err, "creating the replay container: ");
	r->create_s = monotonic_now() - t0;
	if (engine_loop_new(&s->loop, err) < 0)
		return -1;
	if (engine_wait_stream(x->engine, r->container_id, "next-exit", &s->wait, err) < 0 ||
	    engine_loop_add(s->loop, s->wait, err) < 0 || wait_registered(s->loop, s->wait, err) < 0)
		return -1;
	if (interrupt_watch_poll(x->interrupt))
		return error_set(err, ERR_CANCELLED, 0, "interrupted by %s before the replay started",
				 signal_name(x->interrupt->first));
	/* Attached before start, the stream holds every byte the replay
	 * writes; following /logs instead would read the engine's log file,
	 * which loses output once it rotates. */
	if (engine_attach_stream(x->engine, r->container_id, false, on_log, &s->sink, &s->logs,
				 &aerr) < 0 || engine_loop_add(s->loop, s->logs, &aerr) < 0) {
		strvec_pushf(&r->warnings, "cannot attach to the replay (%s); "
			     "following the engine's log instead", aerr.msg);
		engine_stream_free(s->logs);
		s->logs = NULL;
	}
	if (engine_container_start(x->engine, r->container_id, err) < 0)
		return error_prefix(err, "starting the replay container: ");
	s->sink.start = monotonic_now();
	s->sink.last_data = s->sink.start;
	r->start_s = s->sink.start - t0;
	utc_iso(r->started_at, sizeof(r->started_at));
	watchdog_start(&s->wd, (double)x->timeout_s, (double)x->progress_timeout_s, s->sink.start);
	/* Following /logs works only after start: on a created container the
	 * engine answers an empty body at once. */
	if (!s->logs && (engine_logs_stream(x->engine, r->container_id, true, false, on_log,
					    &s->sink, &s->logs, err) < 0 ||
			 engine_loop_add(s->loop, s->logs, err) < 0)) {
		error_prefix(err, "following the replay log: ");
		send_signal(x->engine, r, "SIGKILL");
		return -1;
	}
	return 0;
}

/* SIGTERM and the grace, or SIGKILL at once without one. */
static void send_stop(struct exec_state *s, double now)
{
	const struct replay_exec *x = s->x;

	if (x->stop_grace_s > 0) {
		s->r->engine_lost |= !send_signal(x->engine, s->r, "SIGTERM");
		s->state = TERM_SENT;
		s->term_deadline = now + (double)x->stop_grace_s;
	} else {
		s->r->engine_lost |= !send_signal(x->engine, s->r, "SIGKILL");
		s->state = KILL_SENT;
		s->kill_deadline = now + KILL_WAIT_S;
	}
}

/* The debug agent's wave dump: the stop marker first, so a replay that
 * dies of SIGQUIT (no agent in it) still reads as stopped by the
 * watchdog, then SIGQUIT, then quit_wait_s for the agent to print before
 * the usual stop. */
static void quit_first(struct exec_state *s, double now)
{
	const struct replay_exec *x = s->x;
	cleanup_strbuf struct strbuf marker = STRBUF_INIT;
	enum finding_ended_by ended_by;
	int sig;

	replay_ending(s->stop, x->timeout_s, x->progress_timeout_s, 0, false, -1, &marker,
		      &ended_by, &sig);
	run_log_marker(x->log, "%s", marker.buf);
	s->marker_written = true;
	events_info(x->events, x->verbosity,
		    "sending SIGQUIT for the debug agent's wave dump (up to %.0f s)",
		    x->quit_wait_s);
	s->r->quit_sent = true;
	s->r->engine_lost |= !send_signal(x->engine, s->r, "SIGQUIT");
	s->state = QUIT_SENT;
	s->quit_at = now;
	s->quit_deadline = now + x->quit_wait_s;
}

/* The agent printed after SIGQUIT and has been quiet since for
 * QUIT_QUIET_S: its dump is complete, the stop need not wait longer. */
static bool dump_done(const struct exec_state *s, double now)
{
	return s->sink.last_data > s->quit_at && now - s->sink.last_data >= QUIT_QUIET_S;
}

/* A deadline or an interrupt while running: SIGTERM and the grace, or
 * SIGKILL at once without one. */
static void begin_stop(struct exec_state *s, int sig, double now)
{
	const struct replay_exec *x = s->x;
	enum watchdog_action a = watchdog_check(&s->wd, now);

	if (sig) {
		s->stop = REPLAY_STOP_INTERRUPT;
		s->r->interrupt_signal = sig;
	} else if (a == WATCHDOG_TIMEOUT) {
		s->stop = REPLAY_STOP_TIMEOUT;
	} else if (a == WATCHDOG_PROGRESS_TIMEOUT) {
		s->stop = REPLAY_STOP_PROGRESS;
	} else if (x->log->write_failed) {
		/* A replay whose log cannot be kept gives no verdict: stop it now
		 * rather than run it blind to the end. */
		s->stop = REPLAY_STOP_LOG_FAILED;
		strvec_pushf(&s->r->warnings, "%s: stopping the replay", x->log->write_error.msg);
	}
	if (s->stop == REPLAY_STOP_NONE)
		return;
	s->r->stop_s = now - s->sink.start;
	if (s->stop == REPLAY_STOP_INTERRUPT)
		events_info(x->events, x->verbosity,
			    "%s received: stopping the replay (up to %ld s); "
			    "Ctrl-C again to kill now", signal_name(sig), x->stop_grace_s);
	else if (s->stop != REPLAY_STOP_LOG_FAILED)
		events_info(x->events, x->verbosity,
			    "replay %s: stopping it (SIGTERM, then SIGKILL after %lds)",
			    s->stop == REPLAY_STOP_TIMEOUT ? "timed out" : "went silent",
			    x->stop_grace_s);
	if (s->stop != REPLAY_STOP_INTERRUPT && x->before_stop)
		x->before_stop(x->before_stop_ctx, s->r->container_id);
	if (x->quit_wait_s > 0 && (s->stop == REPLAY_STOP_TIMEOUT || s->stop == REPLAY_STOP_PROGRESS)) {
		quit_first(s, now);
		return;
	}
	send_stop(s, now);
}

/* One turn of the loop after a wake-up: 1 when the replay is over and its
 * log drained (or given up on), else 0. */
static int loop_turn(struct exec_state *s)
{
	const struct replay_exec *x = s->x;
	struct interrupt_watch *iw = x->interrupt;
	double now = monotonic_now();
	int sig = interrupt_watch_poll(iw);

	/* Another Ctrl-C during the grace period: the user will not wait. */
	if (s->state == TERM_SENT && s->exited_at < 0 && iw->count > s->signals_seen) {
		events_info(x->events, x->verbosity, "%s again: SIGKILL now", signal_name(sig));
		s->term_deadline = now;
	}
	s->signals_seen = iw->count;
	if (s->state == RUNNING && s->exited_at < 0)
		begin_stop(s, sig, now);
	if (s->state == QUIT_SENT && s->exited_at < 0 &&
	    (now >= s->quit_deadline || sig || dump_done(s, now)))
		send_stop(s, now);
	/* A stop the engine cannot hear: waiting longer learns nothing. */
	if (s->r->engine_lost)
		return 1;
	if (s->state == TERM_SENT && s->exited_at < 0 && now >= s->term_deadline) {
		s->r->engine_lost |= !send_signal(x->engine, s->r, "SIGKILL");
		s->state = KILL_SENT;
		s->kill_deadline = now + KILL_WAIT_S;
	}
	if (s->state == KILL_SENT && s->exited_at < 0 && now >= s->kill_deadline) {
		strvec_pushf(&s->r->warnings, "the replay did not exit %.0fs after SIGKILL",
			     KILL_WAIT_S);
		return 1;
	}
	if (engine_stream_done(s->wait) && s->exited_at < 0) {
		s->exited_at = now;
		s->r->exit_s = now - s->sink.start;
	}
	if (s->exited_at >= 0 && engine_stream_done(s->logs))
		return 1;
	/* The log may trail the exit while data still flows; only an engine
	 * gone quiet ends the wait, and that is said. */
	if (s->exited_at >= 0 &&
	    now - (s->sink.last_data > s->exited_at ? s->sink.last_data : s->exited_at) > LOG_DRAIN_S) {
		strvec_pushf(&s->r->warnings, "the engine sent no more of the replay log "
			     "%.0fs after the replay exited; replay.log may be incomplete", LOG_DRAIN_S);
		s->r->log_incomplete = true;
		return 1;
	}
	return 0;
}

static void run_loop(struct exec_state *s, struct error *err)
{
	for (;;) {
		double now = monotonic_now();
		int timeout_ms = 1000;

		if (s->state == RUNNING)
			timeout_ms = watchdog_next_ms(&s->wd, now, 1000);
		else if (s->state == TERM_SENT)
			timeout_ms = clock_ms_until(s->term_deadline, now, 1000);
		else if (s->state == QUIT_SENT)
			timeout_ms = clock_ms_until(s->quit_deadline, now, 250);
		if (engine_loop_poll(s->loop, timeout_ms, s->x->interrupt->fd, err) < 0)
			return;
		run_log_flush(s->x->log);
		if (loop_turn(s))
			return;
	}
}

/* The engine sets OOMKilled from an event of its own that may trail the
 * exit: a SIGKILL under a memory limit is asked about again, every 100 ms
 * for up to 5 s (1 s was seen too short on a loaded CI machine), before
 * it is taken for a plain kill. Only such a kill waits. */
#define OOM_SETTLE_TRIES 50

static bool oom_reported_late(const struct replay_exec *x, const char *id)
{
	for (int i = 0; i < OOM_SETTLE_TRIES; i++) {
		struct engine_container_info c;
		bool oom;

		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
		oom = engine_container_inspect(x->engine, id, &c, ERROR_DISCARD) == 0 &&
		      c.has_state && c.state.oom_killed;
		engine_container_info_release(&c);
		if (oom)
			return true;
	}
	return false;
}

/* The streams' last word, then the container's: exit status, OOM, times. */
static long collect_exit(struct exec_state *s)
{
	struct replay_result *r = s->r;
	struct engine_container_info c = { 0 };
	const struct container_state *st = &c.state;
	struct error e;
	long status = -1;

	r->first_output_s = s->sink.first_output;
	r->quiet_s = s->sink.quiet_s;
	r->quiet_end_s = s->sink.quiet_end_s;
	if (engine_stream_done(s->wait) && engine_wait_status(s->wait, &status, &e) < 0)
		status = -1;
	if (engine_stream_done(s->logs) && engine_stream_result(s->logs, &e) < 0) {
		strvec_pushf(&r->warnings, "replay log stream: %s", e.msg);
		r->log_incomplete = true;
	}
	engine_stream_free(s->logs);
	engine_stream_free(s->wait);
	s->logs = s->wait = NULL;
	engine_loop_free(s->loop);
	s->loop = NULL;

	if (r->engine_lost) {
		/* Already known not to answer: asking again costs a timeout each. */
	} else if (engine_container_inspect(s->x->engine, r->container_id, &c, &e) < 0) {
		/* Killed, restarting, stopped: nothing it said about the end holds. */
		if (status < 0 && engine_gone(&e)) {
			r->engine_lost = true;
			strvec_push(&r->warnings, e.msg);
		}
	} else if (c.has_state) {
		r->oom_killed = st->oom_killed;
		if (status < 0 && !st->running)
			status = st->exit_code;
		snprintf(r->finished_at, sizeof(r->finished_at), "%s", st->finished_at);
		if (!r->started_at[0])
			snprintf(r->started_at, sizeof(r->started_at), "%s", st->started_at);
	}
	engine_container_info_release(&c);
	if (status == 128 + SIGKILL && !r->oom_killed && !r->engine_lost && s->x->spec->memory > 0)
		r->oom_killed = oom_reported_late(s->x, r->container_id);
	if (!r->finished_at[0])
		utc_iso(r->finished_at, sizeof(r->finished_at));
	return status;
}

int replay_execute(const struct replay_exec *x, struct replay_result *r, struct error *err)
{
	struct exec_state s;
	cleanup_strbuf struct strbuf marker = STRBUF_INIT;
	double t0 = monotonic_now();
	long status;

	memset(r, 0, sizeof(*r));
	strvec_init(&r->warnings);
	r->exit_code = -1;
	r->signal = -1;
	r->first_output_s = -1;
	r->stop_s = -1;
	r->ended_by = ENDED_EXIT;
	memset(&s, 0, sizeof(s));
	s.x = x;
	s.r = r;
	s.sink.log = x->log;
	s.sink.watchdog = &s.wd;
	s.sink.first_output = -1;
	s.exited_at = -1;
	s.signals_seen = x->interrupt->count;

	if (start_replay(&s, t0, err) < 0) {
		engine_stream_free(s.logs);
		engine_stream_free(s.wait);
		engine_loop_free(s.loop);
		/* Best effort: gc removes what is left (it carries our labels). */
		if (r->container_id)
			(void)engine_container_remove(x->engine, r->container_id, true, ERROR_DISCARD);
		return -1;
	}
	run_loop(&s, err);
	status = collect_exit(&s);
	r->exit_code = status;
	r->log_write_failed = s.stop == REPLAY_STOP_LOG_FAILED;
	replay_ending(s.stop, x->timeout_s, x->progress_timeout_s, r->interrupt_signal,
		      r->oom_killed, status, &marker, &r->ended_by, &r->signal);
	if (r->engine_lost)
		run_log_marker(x->log, "the engine stopped answering: how the replay ended is unknown");
	else if (marker.len && !s.marker_written)
		run_log_marker(x->log, "%s", marker.buf);
	if (!x->keep)
		remove_container(x, r);
	return 0;
}
