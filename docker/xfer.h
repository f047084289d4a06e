/* Private to docker/: the transfer, the one object every engine request is
 * built on, and the runners that drive transfers.
 *
 * Life cycle of a transfer, the same for every endpoint:
 *   engine_xfer_new()            an easy handle aimed at the engine
 *   engine_xfer_set_kind() ...   what the answer is for: a kind's sink and
 *                                finish hooks, and its own state
 *   engine_xfer_run()            blocking, on the engine's runner, bounded
 *     or engine_loop_add()       by the caller's deadline and interrupt fd;
 *                                or as a stream in a caller's loop
 *   (completion)                 recorded by whichever runner drove it
 *   engine_stream_free()         leaves its runner, the kind's release hook
 *                                frees the kind's state, then the rest.
 * Nothing else creates, completes or frees a transfer. */
#ifndef HRR_DOCKER_XFER_H
#define HRR_DOCKER_XFER_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

#include "docker/internal.h"

/* A sink returns < 0 with err filled to abort the transfer with that
 * error, 0 to go on, ENGINE_SINK_STOP when it has all it wants (success). */
#define ENGINE_SINK_STOP 1

/* One kind of answer (wait, stdio, events, pull, tar, raw archive). A 2xx
 * answer's body goes to sink as it arrives (without a sink it is captured
 * in s->body up to s->body_max); finish runs at its clean end; release
 * frees the state the kind gave engine_xfer_set_kind(). */
struct engine_xfer_kind {
	int (*sink)(struct engine_stream *s, const char *data, size_t len, struct error *err);
	int (*finish)(struct engine_stream *s, struct error *err);
	void (*release)(void *state);
};

struct engine_stream {
	CURL *h;
	struct curl_slist *headers;
	struct engine_runner *home;   /* the engine's runner, for engine_xfer_run */
	struct engine_runner *runner; /* the runner driving it now, or NULL */
	struct engine_stream *next;   /* in runner's list */
	struct engine_stream *prev;
	char errbuf[CURL_ERROR_SIZE];

	char *what;        /* "GET /containers/x/logs", for messages */
	char *host;        /* the engine as configured, for messages */
	char *socket_path; /* to tell "no socket" from "refused" */
	long timeout_s;    /* 0 = none (streams) */

	long status;
	bool status_known;
	bool headers_done;
	bool sink_active;   /* a 2xx answer going to the kind's sink */
	bool sink_failed;   /* the sink set s->err itself */
	bool sink_stopped;  /* the sink returned ENGINE_SINK_STOP */
	bool limit_hit;
	bool done;
	bool not_found_404; /* a 404 answer is ERR_NOT_FOUND */
	bool await_headers; /* engine_loop_add waits for the answer's headers */
	bool podman;        /* the engine is Podman (docker/podman.c) */
	int rc;
	struct error err;

	struct strbuf body; /* non-2xx answers, and 2xx ones without a sink */
	size_t body_max;
	const char *want_header;
	char *header_value;
	/* /_ping only: keep Server and Libpod-Api-Version too, which tell
	 * dockerd from Podman without another request. */
	bool want_identity;
	char *server;         /* "Docker/20.10.24+dfsg1 (linux)", "Libpod/4.3.1 (linux)" */
	char *libpod_version; /* "4.3.1"; NULL from dockerd */

	const struct engine_xfer_kind *kind; /* NULL: the answer is captured */
	void *state;                         /* the kind's, freed by its release */
};

/* curl_global_init, once per process, whoever comes first (engine_open,
 * engine_loop_new). docker/ is the only user of libcurl in the program. */
void engine_curl_init(void);

/* Whether an interrupt fd (>= 0) is readable now. */
bool engine_fd_readable(int fd);

/* ---- runners: a multi handle and the transfers it drives ---- */
int engine_runner_init(struct engine_runner *r, struct error *err)
	__attribute__((warn_unused_result));
/* Transfers still attached end as ERR_CANCELLED ("abandoned"). */
void engine_runner_release(struct engine_runner *r);
int engine_runner_attach(struct engine_runner *r, struct engine_stream *s,
			 struct error *err) __attribute__((warn_unused_result));
/* Wait up to timeout_ms for activity (also waking when extra_fd >= 0 is
 * readable), move data, and complete the transfers that finished. */
int engine_runner_step(struct engine_runner *r, int timeout_ms, int extra_fd,
		       struct error *err) __attribute__((warn_unused_result));

/* ---- the transfer ---- */

/* A transfer of METHOD to the engine's path (relative to /v1.NN unless
 * unversioned). Defaults: the engine's request timeout (HRR_ENGINE_TIMEOUT),
 * body captured up to ENGINE_BODY_MAX, no kind. */
struct engine_stream *engine_xfer_new(struct engine *e, const char *method,
				      const char *path, bool unversioned);
/* kind's release hook owns state from here on, also when this fails. */
void engine_xfer_set_kind(struct engine_stream *s, const struct engine_xfer_kind *kind,
			  void *state);
void engine_xfer_set_json(struct engine_stream *s, const cJSON *body);
void engine_xfer_add_header(struct engine_stream *s, const char *header);
/* 0 = none: a stream, bounded by its caller's deadline instead. */
void engine_xfer_set_timeout(struct engine_stream *s, long seconds);
/* Blocking: run it to the end on the engine's runner (its kept-alive
 * connection). opts (NULL = none) bounds it: ERR_TIMEOUT at the deadline,
 * ERR_INTERRUPTED when the interrupt fd is readable. Returns s->rc and
 * copies s->err to err. */
int engine_xfer_run(struct engine_stream *s, const struct engine_call_opts *opts,
		    struct error *err) __attribute__((warn_unused_result));
/* The error of a transfer curl could not complete (docker/xfer_error.c). */
void engine_xfer_transport_error(struct engine_stream *s, CURLcode code);
/* The error of a non-2xx answer: ERR_HTTP (or ERR_NOT_FOUND for a 404 when
 * not_found_404) with the engine's {"message"}. */
int engine_xfer_http_error(const struct engine_stream *s, struct error *err);

/* One blocking request whose answer must have one of the ok statuses
 * (0-terminated list, e.g. {200, 0}); *out gets the parsed JSON answer
 * when out != NULL. timeout_s 0 = the engine's request timeout. */
int engine_request_json(struct engine *e, const char *method, const char *path,
			const cJSON *body, const long *ok, bool not_found_404,
			long timeout_s, cJSON **out, struct error *err)
	__attribute__((warn_unused_result));

/* Parse a whole JSON answer; ERR_PROTOCOL naming what when malformed. */
int engine_parse_json(const char *data, size_t len, const char *what, cJSON **out,
		      struct error *err) __attribute__((warn_unused_result));

/* ---- NDJSON kinds (events, pull): their state starts with the splitter */
int engine_xfer_lines_sink(struct engine_stream *s, const char *data, size_t len,
			   struct error *err);
int engine_xfer_lines_finish(struct engine_stream *s, struct error *err);

/* ---- the stdio kind (docker/stdio.c), also used by exec ---- */
/* Framed (or raw) container output demuxed to cb; no transfer timeout. */
void engine_xfer_set_stdio(struct engine_stream *s, bool raw, engine_frame_cb cb, void *ud);

#endif
