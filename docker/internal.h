/* Private to docker/: the engine handle, the transfer object every request
 * is built on, and the pure helpers (base64, URL pieces, NDJSON splitter,
 * tar reader) that the unit tests reach directly. */
#ifndef HRR_DOCKER_INTERNAL_H
#define HRR_DOCKER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "docker/engine.h"

/* Ordinary requests answer in well under a second; this only catches an
 * engine that accepted the connection and then stalled. */
#define ENGINE_REQUEST_TIMEOUT_S 120L
#define ENGINE_CONNECT_TIMEOUT_S 30L
#define ENGINE_PING_TIMEOUT_S 30L
/* Longest unix socket path: sizeof(sockaddr_un.sun_path) - 1. */
#define ENGINE_UNIX_PATH_MAX 107
/* Bodies of small answers kept for error messages or final parsing. */
#define ENGINE_SMALL_BODY_MAX (64u << 10)

struct engine {
	char *host;        /* as configured: "unix:///var/run/docker.sock" */
	char *socket_path; /* unix:// only */
	char *base_url;    /* "http://localhost", "https://host:2376" */
	bool is_unix;
	bool tls;
	char *tls_ca;
	char *tls_cert;
	char *tls_key;
	char api_version[16];
};

/* ---- API versions ("1.41") ---- */
int engine_version_parse(const char *s, int *major, int *minor);
/* < 0, 0, > 0 like strcmp; unparsable strings sort first. */
int engine_version_cmp(const char *a, const char *b);

/* ---- URL pieces (pure) ---- */
/* Percent-encode a path segment, keeping '/', ':' and '@' (image names). */
void engine_url_add_path(struct strbuf *sb, const char *segment);
/* Append "?k=v" or "&k=v" with v percent-encoded. */
void engine_url_add_query(struct strbuf *sb, const char *key, const char *value);

/* ---- base64 (pure) ---- */
/* Standard alphabet with padding. */
char *engine_base64_encode(const void *data, size_t len);
/* URL-safe alphabet ('-', '_') with padding: what X-Registry-Auth uses. */
char *engine_base64url_encode(const void *data, size_t len);
/* Accepts both alphabets, padding optional, no whitespace. */
int engine_base64_decode(const char *s, size_t len, struct strbuf *out,
			 struct error *err);

/* ---- NDJSON splitter (pure): at most ENGINE_LINE_MAX bytes a line ---- */
typedef int (*engine_line_cb)(const char *line, size_t len, void *ud,
			      struct error *err);
struct engine_lines {
	struct strbuf partial;
	size_t max;
	engine_line_cb cb;
	void *ud;
};
void engine_lines_init(struct engine_lines *l, size_t max, engine_line_cb cb, void *ud);
void engine_lines_release(struct engine_lines *l);
/* cb gets each line without its "\n" / "\r\n"; blank lines are skipped.
 * cb's return value is passed back when it is non-zero. */
int engine_lines_feed(struct engine_lines *l, const char *data, size_t len,
		      struct error *err);
/* A last line without a newline is handed to cb too. */
int engine_lines_finish(struct engine_lines *l, struct error *err);

/* ---- tar reader (pure): the content of the one regular file at the
 * head of a tar stream, as GET /containers/{id}/archive sends it ---- */
enum engine_tar_state {
	TAR_HEADER,
	TAR_META,  /* PAX / GNU long-name content */
	TAR_DATA,
	TAR_PAD,
	TAR_DONE,
};
struct engine_tar {
	enum engine_tar_state state;
	unsigned char hdr[512];
	size_t hdr_len;
	uint64_t remaining; /* of the current entry's content */
	uint64_t pad;       /* zero bytes up to the next 512 boundary */
	char meta_type;
	struct strbuf meta;
	bool have_pax_size;
	uint64_t pax_size;
	size_t max_bytes;
	struct strbuf *out;
	const char *what; /* the path, for messages */
};
void engine_tar_init(struct engine_tar *t, struct strbuf *out, size_t max_bytes,
		     const char *what);
void engine_tar_release(struct engine_tar *t);
/* Returns 1 once the file is complete (the rest may be ignored), 0 when it
 * wants more, < 0 on a malformed archive, a non-regular file, or a file
 * larger than max_bytes (ERR_LIMIT). */
int engine_tar_feed(struct engine_tar *t, const char *data, size_t len,
		    struct error *err);
int engine_tar_finish(const struct engine_tar *t, struct error *err);

/* ---- transfers: one easy handle, run blocking or inside an engine_loop --- */

/* Returns < 0 with err filled to abort the transfer with that error,
 * 0 to go on, ENGINE_SINK_STOP when it has all it wants (success). */
#define ENGINE_SINK_STOP 1
typedef int (*engine_sink_fn)(struct engine_stream *s, const char *data, size_t len,
			      struct error *err);
/* At a clean end of a successful (2xx) answer. */
typedef int (*engine_finish_fn)(struct engine_stream *s, struct error *err);
typedef void (*engine_release_fn)(struct engine_stream *s);

struct engine_stream {
	CURL *h;
	struct curl_slist *headers;
	struct engine_loop *loop;
	struct engine_stream *loop_next;
	struct engine_stream *loop_prev;
	char errbuf[CURL_ERROR_SIZE];

	char *what;        /* "GET /containers/x/logs", for messages */
	char *host;        /* the engine as configured, for messages */
	char *socket_path; /* to tell "no socket" from "refused" */
	long timeout_s;    /* 0 = none (streams) */

	long status;
	bool status_known;
	bool headers_done;
	bool sink_active;  /* a 2xx answer going to sink */
	bool sink_failed;  /* sink set s->err itself */
	bool sink_stopped; /* sink returned ENGINE_SINK_STOP */
	bool cancelled;    /* a user callback returned non-zero */
	bool limit_hit;
	bool done;
	bool not_found_404; /* a 404 answer is ERR_NOT_FOUND */
	bool await_headers; /* engine_loop_add waits for the answer's headers */
	int rc;
	struct error err;

	struct strbuf body; /* non-2xx answers, and 2xx ones without a sink */
	size_t body_max;
	const char *want_header;
	char *header_value;

	engine_sink_fn sink;
	engine_finish_fn finish;
	engine_release_fn release;

	/* per kind (only the ones a kind sets up are used) */
	struct engine_demux demux;
	struct engine_lines lines;
	bool lines_init;
	struct engine_tar tar;
	bool tar_init;
	engine_frame_cb frame_cb;
	engine_event_cb event_cb;
	engine_pull_cb pull_cb;
	engine_data_cb data_cb;
	void *ud;
	long wait_status;
	bool wait_have_status;
	char *pull_ref;      /* for messages */
	char *pull_registry;
};

void engine_curl_init(void); /* curl_global_init, once per process */

/* A transfer of METHOD to the engine's path (relative to /v1.NN unless
 * unversioned). Defaults: ENGINE_REQUEST_TIMEOUT_S, body captured up to
 * ENGINE_BODY_MAX, no sink. */
struct engine_stream *engine_xfer_new(struct engine *e, const char *method,
				      const char *path, bool unversioned);
void engine_xfer_set_json(struct engine_stream *s, const cJSON *body);
void engine_xfer_add_header(struct engine_stream *s, const char *header);
void engine_xfer_set_timeout(struct engine_stream *s, long seconds);
/* Record the outcome of a finished transfer in s->rc / s->err. */
void engine_xfer_complete(struct engine_stream *s, CURLcode code);
/* Blocking: run it to the end. Returns s->rc and copies s->err to err. */
int engine_xfer_perform(struct engine_stream *s, struct error *err);
/* The error of a non-2xx answer: ERR_HTTP (or ERR_NOT_FOUND for a 404 when
 * not_found_404) with the engine's {"message"}. */
int engine_xfer_http_error(const struct engine_stream *s, struct error *err);

/* One blocking request whose answer must have one of the ok statuses
 * (0-terminated list, e.g. {200, 0}); *out gets the parsed JSON answer
 * when out != NULL. */
int engine_request_json(struct engine *e, const char *method, const char *path,
			const cJSON *body, const long *ok, bool not_found_404,
			long timeout_s, cJSON **out, struct error *err);

/* Parse a whole JSON answer; ERR_PROTOCOL naming what when malformed. */
int engine_parse_json(const char *data, size_t len, const char *what, cJSON **out,
		      struct error *err);

/* Shared by the stream kinds: the demuxer / NDJSON sinks. */
int engine_stream_sink_demux(struct engine_stream *s, const char *data, size_t len,
			     struct error *err);
int engine_stream_finish_demux(struct engine_stream *s, struct error *err);

#endif
