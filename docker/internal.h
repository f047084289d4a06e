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
 * known from the headers of the one /_ping (Server, Libpod-Api-Version),
 * or from GET /version when DOCKER_API_VERSION skipped the ping. */
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
	enum engine_flavour flavour; /* UNKNOWN until the ping or engine_flavour() */
	char server_version[64];     /* "20.10.24+dfsg1", "4.3.1"; "" = unknown */
	/* Podman only, asked once when a create needs it (docker/podman.c) */
	bool podman_host_known;
	bool podman_rootless;
	bool podman_cgroup_v1;
	bool podman_limits_known;
	long long podman_nofile;     /* the service's hard limits; 0 = unknown */
	long long podman_nproc;
};

/* ---- engine flavour (pure) ---- */
/* From a GET /version answer: Components[].Name or Platform.Name naming
 * Podman, else Docker. */
enum engine_flavour engine_flavour_from_version(const cJSON *version);
/* Asks GET /version once per engine and remembers the answer. */
int engine_flavour(struct engine *e, enum engine_flavour *out, struct error *err)
	__attribute__((warn_unused_result));

/* From /_ping's Server and Libpod-Api-Version headers (either may be
 * NULL): sets e->flavour and e->server_version when they tell. */
void engine_identity_from_ping(struct engine *e, const char *server, const char *libpod);

/* A refusal of a too old API version (400, Docker 29 below 1.44): msg
 * gets what to do about a pinned DOCKER_API_VERSION (pin may be NULL). */
void engine_too_old_hint(long status, const char *pin, struct strbuf *msg);

/* A Docker Hub repository as dockerd writes it: an official image's
 * "library/<name>" (no further slash) is "<name>"; others as they are
 * (docker/ref.c). */
const char *image_ref_hub_short(const char *repository);

/* ---- Podman's differences (docker/podman.c) ---- */
/* What Podman needs besides the container spec: the limits it must be
 * told (nofile and nproc the spec leaves out, capped at the service's own:
 * root Podman gives 1048576, which start may not be allowed to set) and
 * the spec's SecurityOpt with a seccomp profile as a file path on the
 * service's host (its compatible create takes no inline profile, podman
 * #27710; over tcp:// that file cannot be written: ERR_USAGE). */
struct podman_extras {
	struct container_ulimit limits[2];
	size_t n_limits;
	struct strvec security_opt;
};
/* seccomp: the spec's profile text, or NULL. */
int podman_extras_for(struct engine *e, const struct container_spec *s, const char *seccomp,
		      struct podman_extras *x, struct error *err)
	__attribute__((warn_unused_result));
void podman_extras_release(struct podman_extras *x);
/* Pure pieces of the compatible create body (docker/spec.c): a JSON
 * array of the strings; a Ulimits entry {"Name", "Soft", "Hard"}. */
cJSON *engine_json_strings(const struct strvec *sv);
cJSON *engine_ulimit_json(const struct container_ulimit *u);
/* Pure: the profile text starts as a JSON object does (after white
 * space). It is not parsed: see engine_container_create(). */
bool engine_seccomp_is_object(const char *profile_json);
/* Pure: container_spec_to_json() with the profile text given apart
 * (seccomp, or NULL for none): what a create sends. */
cJSON *container_spec_body(const struct container_spec *s, const char *seccomp);
/* Pure: the compatible create body of the spec (container_spec_body)
 * given the extras. */
void podman_body_apply(cJSON *body, const struct podman_extras *x);
/* After a create on rootless Podman: a container given device nodes and
 * their groups must keep the caller's groups (run.oci.keep_original_groups
 * with crun). *recreate: the container lacks the annotation and must be
 * created again with podman_create_keeping_groups; ERR_USAGE when the
 * runtime drops groups whatever is asked. */
int podman_check_created(struct engine *e, const struct container_spec *s, const char *id,
			 bool *recreate, struct error *err) __attribute__((warn_unused_result));
/* Create through Podman's own API with the keep-groups annotation; failing
 * that, ERR_USAGE naming the containers.conf line. */
int podman_create_keeping_groups(struct engine *e, const struct container_spec *s,
				 const struct podman_extras *x, const char *name, char **id_out,
				 struct error *err) __attribute__((warn_unused_result));
/* A spec with CDI devices, created through Podman's own API (its
 * compatible create ignores DeviceRequests), keeping a rootless caller's
 * groups. */
int podman_create_cdi(struct engine *e, const struct container_spec *s,
		      const struct podman_extras *x, const char *name, char **id_out,
		      struct error *err) __attribute__((warn_unused_result));
/* Pure: Podman's SpecGenerator for the spec and its extras, with the OCI
 * annotation key=value (none when key is NULL); NULL when the spec asks
 * what it has no field for (docker/libpod.c). */
cJSON *podman_libpod_spec(const struct container_spec *s, const struct podman_extras *x,
			  const char *name, const char *key, const char *value);
/* POST /libpod/containers/create of podman_libpod_spec; ERR_USAGE when
 * there is none. */
int podman_libpod_create(struct engine *e, const struct container_spec *s,
			 const struct podman_extras *x, const char *name, const char *key,
			 const char *value, char **id_out, struct error *err)
	__attribute__((warn_unused_result));
/* Rewrites a Podman event as dockerd names it: "remove" -> "destroy".
 * Returns false for events dockerd has no equivalent of (init, cleanup),
 * which are skipped. */
bool podman_event_normalize(cJSON *event);
/* Podman's path stat as dockerd's: linkTarget "" for a non-link, name the
 * requested path's base name. */
void podman_path_stat_normalize(cJSON *stat, const char *path);
/* Podman's image (inspect, or one of the list) as dockerd's: RepoTags
 * without "localhost/" and as dockerd names Docker Hub's ("ubuntu:22.04",
 * "rocm/vllm:x", not "docker.io/library/..."), no RepoDigests of Podman's
 * own (localhost/...) manifests. */
void podman_image_normalize(cJSON *inspect);
/* Podman's error answers that mean what another dockerd status means
 * (docker/podman_errors.c):
 * kill of a stopped container (500 "container state improper") is 409,
 * and msg (the engine's message) then says "not running" as dockerd's. */
long podman_error_status(long status, const char *body, size_t len, struct strbuf *msg);

/* ---- API versions ("1.41") ---- */
int engine_version_parse(const char *s, int *major, int *minor);
/* < 0, 0, > 0 like strcmp; unparsable strings sort first. */
int engine_version_cmp(const char *a, const char *b);

/* ---- URL pieces (pure) ---- */
/* Percent-encode a path segment, keeping '/', ':' and '@' (image names). */
void engine_url_add_path(struct strbuf *sb, const char *segment);
/* Append "?k=v" or "&k=v" with v percent-encoded. */
void engine_url_add_query(struct strbuf *sb, const char *key, const char *value);
/* Append the query "filters={"<key>":["<value>"]}" (one filter of the
 * list endpoints), percent-encoded. */
void engine_url_add_filter(struct strbuf *sb, const char *key, const char *value);

/* ---- the engine's answers into the types of engine.h (pure,
 * docker/answers.c); a list or an inspect answer not of its JSON type is
 * ERR_PROTOCOL ---- */
int engine_container_list_parse(const cJSON *answer, struct engine_containers *out,
				struct error *err) __attribute__((warn_unused_result));
int engine_container_info_parse(const cJSON *inspect, struct engine_container_info *out,
				struct error *err) __attribute__((warn_unused_result));
/* fill st from a /containers/{id}/json answer; no State.Status: ERR_PROTOCOL. */
int container_state_from_json(const cJSON *inspect, struct container_state *st,
			      struct error *err);
int engine_image_info_parse(const cJSON *inspect, struct engine_image_info *out,
			    struct error *err) __attribute__((warn_unused_result));
/* The answer of GET /images/{name}/history; not a list: ERR_PROTOCOL. */
int engine_image_history_parse(const cJSON *answer, struct engine_image_history *out,
			       struct error *err) __attribute__((warn_unused_result));
/* The answer of GET /images/json (already normalized, see
 * podman_image_normalize) appended to *out. */
int engine_image_list_parse(const cJSON *answer, struct engine_image_tags *out,
			    struct error *err) __attribute__((warn_unused_result));
void engine_version_info_parse(const cJSON *version, struct engine_version_info *out);
void engine_path_stat_parse(const cJSON *stat, struct engine_path_stat *out);
/* ev's strings point into event. */
void engine_event_parse(const cJSON *event, struct engine_event *ev);
/* The raw answer, for tests that look at what no caller reads. */
int engine_container_inspect_json(struct engine *e, const char *id, cJSON **out,
				  struct error *err) __attribute__((warn_unused_result));

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
