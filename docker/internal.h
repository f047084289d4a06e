/* Private to docker/: the engine handle and the pure helpers (API
 * versions, base64, URL pieces, NDJSON splitter, tar reader, engine
 * flavour) that the unit tests and fuzzers reach directly. The transfer
 * object every request is built on is in docker/xfer.h. */
#ifndef HRR_DOCKER_INTERNAL_H
#define HRR_DOCKER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "docker/engine.h"

/* HRR_ENGINE_TIMEOUT (seconds, default 60): how long one request/response
 * call (create, start, inspect, remove, list, ping, ...) may take before the
 * engine counts as not answering (ERR_TIMEOUT), e.g. a dockerd stopped with
 * SIGSTOP, whose socket still accepts connections. Ordinary calls answer
 * in well under a second. Streams (wait, logs, attach, events, exec, pull,
 * archive) have no such limit: their callers pass a deadline and an
 * interrupt fd (struct engine_call_opts) instead. */
#define ENGINE_TIMEOUT_ENV "HRR_ENGINE_TIMEOUT"
#define ENGINE_TIMEOUT_DEFAULT_S 60L
#define ENGINE_TIMEOUT_MAX_S 86400L
#define ENGINE_CONNECT_TIMEOUT_S 30L
/* /_ping is tiny: a shorter bound, unless HRR_ENGINE_TIMEOUT is shorter. */
#define ENGINE_PING_TIMEOUT_S 30L
/* Longest unix socket path: sizeof(sockaddr_un.sun_path) - 1. */
#define ENGINE_UNIX_PATH_MAX 107
/* Bodies of small answers kept for error messages or final parsing. */
#define ENGINE_SMALL_BODY_MAX (64u << 10)

/* How an engine's Docker-compatible API differs where this client cares:
 * known from GET /version, asked only when it matters (a seccomp profile). */
enum engine_flavour {
	ENGINE_FLAVOUR_UNKNOWN = 0,
	ENGINE_FLAVOUR_DOCKER, /* dockerd: seccomp profile inline in SecurityOpt */
	ENGINE_FLAVOUR_PODMAN, /* podman system service: seccomp profile as a path */
};

/* A curl multi handle with the transfers it drives (see docker/xfer.h). */
struct engine_runner {
	CURLM *multi;
	struct engine_stream *head;
};

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
	long timeout_s;    /* request/response calls: HRR_ENGINE_TIMEOUT */
	/* The blocking calls run here one at a time, so they share its
	 * connection cache: one kept-alive connection per engine. */
	struct engine_runner runner;
	enum engine_flavour flavour; /* UNKNOWN until engine_flavour() asks */
};

/* ---- engine flavour (pure) ---- */
/* From a GET /version answer: Components[].Name or Platform.Name naming
 * Podman, else Docker. */
enum engine_flavour engine_flavour_from_version(const cJSON *version);
/* Asks GET /version once per engine and remembers the answer. */
int engine_flavour(struct engine *e, enum engine_flavour *out, struct error *err)
	__attribute__((warn_unused_result));

/* ---- API versions ("1.41") ---- */
int engine_version_parse(const char *s, int *major, int *minor);
/* < 0, 0, > 0 like strcmp; unparsable strings sort first. */
int engine_version_cmp(const char *a, const char *b);

/* ---- URL pieces (pure) ---- */
/* Percent-encode a path segment, keeping '/', ':' and '@' (image names). */
void engine_url_add_path(struct strbuf *sb, const char *segment);
/* Append "?k=v" or "&k=v" with v percent-encoded. */
void engine_url_add_query(struct strbuf *sb, const char *key, const char *value);

/* ---- JSON numbers from the engine (pure, docker/codec.c) ---- */
/* v's value when it is a number that fits in [lo, hi] whole; dflt
 * otherwise (not a number, NaN, out of range): never a cast out of range. */
long long engine_json_int(const cJSON *v, long long lo, long long hi, long long dflt);

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

/* ---- config.json credentials (pure, docker/auth.c) ---- */
/* What config.json text gives ref without running anything: *helper = the
 * credential helper registry_auth_header() would run first (credHelpers,
 * then credsStore) or NULL; *out = the X-Registry-Auth value from auths, or
 * NULL. Both caller-freed. Malformed text: ERR_DATA. */
int registry_auth_from_config_text(const char *text, size_t len, const struct image_ref *ref,
				   char **out, char **helper, struct error *err)
	__attribute__((warn_unused_result));

/* ---- pull progress (pure apart from cb, docker/images.c) ---- */
/* One NDJSON object of a pull's answer: an error object is the pull failing
 * midway (ERR_HTTP, status 200, naming ref and registry), anything else goes
 * to cb (may be NULL) as progress; not an object: ERR_PROTOCOL. */
int engine_pull_progress_line(const char *line, size_t len, const char *ref,
			      const char *registry, engine_pull_cb cb, void *ud,
			      struct error *err);

#endif
