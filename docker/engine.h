/* A Docker Engine API client over libcurl. It knows nothing of HRR.
 *
 * Conventions: every fallible function returns < 0 and fills *err
 * (common/error.h): kind ERR_CONNECT when the engine does not answer,
 * ERR_HTTP with status = the HTTP code and msg = the engine's "message"
 * (a 404 naming a container, image, exec or path: kind ERR_NOT_FOUND,
 * status 404; a 304 from start/stop is success),
 * ERR_PROTOCOL for malformed/truncated answers, ERR_LIMIT when an answer
 * exceeds a bound, ERR_TIMEOUT when the engine stops answering a
 * request/response call (HRR_ENGINE_TIMEOUT seconds, default 60) or a
 * caller's deadline passes, ERR_INTERRUPTED when a caller's interrupt fd
 * becomes readable. Non-streaming bodies are capped (ENGINE_BODY_MAX);
 * streams are handled in bounded memory whatever their length.
 *
 * An engine keeps one connection for its request/response calls and
 * negotiates the API version once; use it from one thread at a time.
 *
 * This header is the whole public API; one file per group of endpoints
 * implements it (connect.c opens an engine and negotiates, containers.c,
 * images.c, exec.c, archive.c, the streams in wait.c, stdio.c, events.c),
 * all on the transfer object of xfer.h, which no caller outside docker/
 * sees. The header is a leaf: it includes only common/, and the files
 * that implement it sit above it, not beside it as one engine.c would. */
#ifndef HRR_DOCKER_ENGINE_H
#define HRR_DOCKER_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"

/* Newest API version this client was tested against (Docker 28.5 in the
 * engine matrix, docs/engines.md), and the oldest it still speaks (Debian
 * bookworm's engine). */
#define ENGINE_API_VERSION_MAX "1.51"
#define ENGINE_API_VERSION_MIN "1.41"
#define ENGINE_BODY_MAX (16u << 20)
#define ENGINE_LINE_MAX (1u << 20) /* one NDJSON object (pull, events) */

struct engine;

/* Bounds for a call that can wait as long as a container runs (wait,
 * logs, exec, pull, archive stream). A NULL opts means no bound. */
struct engine_call_opts {
	/* Seconds on CLOCK_MONOTONIC; <= 0 = none. Past it: ERR_TIMEOUT. */
	double deadline;
	/* Readable = give up now (a signal self-pipe; it is not read, so the
	 * caller still sees it): ERR_INTERRUPTED. < 0 = none. */
	int interrupt_fd;
};

/* Where root's Podman service listens. */
#define ENGINE_PODMAN_ROOT_HOST "unix:///run/podman/podman.sock"

/* docker_host: NULL = $DOCKER_HOST; when that is unset too, the first of
 * unix:///var/run/docker.sock, the caller's rootless Podman service
 * ($XDG_RUNTIME_DIR/podman/podman.sock, /run/user/<uid>/podman/podman.sock)
 * and root's (ENGINE_PODMAN_ROOT_HOST) that answers; dockerd's error when
 * none does. dockerd and Podman's Docker-compatible service are told apart
 * by the ping's headers; Podman's differences are absorbed here
 * (docs/engines.md).
 * Supports unix:// and tcp:// (TLS when $DOCKER_TLS_VERIFY is set, certs
 * from $DOCKER_CERT_PATH or ~/.docker). ssh:// is refused with a clear
 * message. Negotiates the API version with GET /_ping unless
 * $DOCKER_API_VERSION pins it; an engine older than ENGINE_API_VERSION_MIN
 * is an error naming both versions. Errors: ERR_USAGE for a DOCKER_HOST,
 * pin or TLS setup this cannot use; ERR_CONNECT when the engine does not
 * answer or is too old. */
int engine_open(struct engine **out, const char *docker_host, struct error *err);
void engine_close(struct engine *e);
const char *engine_api_version(const struct engine *e); /* "1.41" */
const char *engine_host(const struct engine *e);        /* as configured */
bool engine_is_unix(const struct engine *e);
/* "dockerd", "podman", or "unknown" (DOCKER_API_VERSION skipped the ping
 * and nothing asked /version yet). */
const char *engine_name(const struct engine *e);
/* The engine's own version ("20.10.24+dfsg1", "4.3.1"), "" when unknown. */
const char *engine_server_version(const struct engine *e);
/* Whether the engine applies a container's PidsLimit and Memory. false:
 * rootless Podman on cgroup v1, which accepts both without a warning and
 * drops them (asks GET /libpod/info once). */
int engine_applies_limits(struct engine *e, bool *applies, struct error *err)
	__attribute__((warn_unused_result));
/* Whether uid 0 in a container is the service's own user on the host
 * (rootless Podman's user namespace): a container meant to run as the
 * caller then runs as root inside, since any other uid maps to a
 * subordinate id that cannot write the caller's folders. */
int engine_root_is_caller(struct engine *e, bool *out, struct error *err)
	__attribute__((warn_unused_result));

/* Whether the engine injects CDI devices: dockerd when GET /info lists
 * CDISpecDirs (on by default from 28.2, opt-in before through the
 * daemon's features.cdi); Podman always (its own create). *dirs (may be
 * NULL) gets the engine's spec dirs, colon-separated (caller frees). */
int engine_cdi_enabled(struct engine *e, bool *on, char **dirs, struct error *err)
	__attribute__((warn_unused_result));

/* The engine's architecture as Go names it ("amd64", "arm64", ...): GET
 * /version's Arch, except for Podman on a unix socket, which shares this
 * kernel, so uname(2) says it with no request (Podman's GET /version runs
 * its runtime and conmon to report their versions: 0.1-1.7 s a replay).
 * *out: caller frees. */
int engine_arch(struct engine *e, char **out, struct error *err)
	__attribute__((warn_unused_result));
/* Pure: uname's machine ("x86_64") as Go's GOARCH ("amd64"); others as
 * they are. */
const char *engine_goarch(const char *machine);

int engine_ping(struct engine *e, struct error *err);

/* ---- the engine's answers, each parsed once here (docker/answers.c) ---- */

/* Labels (or an event's attributes) as the engine sent them. */
struct engine_labels {
	char **keys;
	char **values;
	size_t n;
};
/* The value of key, NULL when absent. */
const char *engine_labels_get(const struct engine_labels *l, const char *key);
void engine_labels_release(struct engine_labels *l);

/* GET /version: what the engine says of itself. */
struct engine_version_info {
	char *version;     /* "20.10.24+dfsg1", "4.3.1"; NULL when not said */
	char *api_version; /* "1.51"; NULL when not said */
	char *arch;        /* "amd64"; NULL when not said */
	bool podman;       /* Platform.Name or a Components[].Name names Podman */
};
void engine_version_info_release(struct engine_version_info *v);
int engine_version(struct engine *e, struct engine_version_info *out, struct error *err);

/* ---- image references and registry auth (docker/ref.c, docker/auth.c) --- */

struct image_ref {
	char *registry;   /* "docker.io" when none is named */
	char *repository; /* path without registry: "library/ubuntu", "rocm/vllm" */
	char *name;       /* as given, without tag/digest: "ubuntu", "127.0.0.1:5000/x" */
	char *tag;        /* "latest" when neither tag nor digest is given */
	char *digest;     /* "sha256:..." or NULL */
};

int image_ref_parse(struct image_ref *ref, const char *s, struct error *err);
void image_ref_release(struct image_ref *ref);
/* The key under which config.json stores credentials for ref's registry:
 * "https://index.docker.io/v1/" for Docker Hub, else the registry host. */
const char *image_ref_auth_key(const struct image_ref *ref);
/* The name as dockerd lists and filters it ("ubuntu", "rocm/vllm",
 * "127.0.0.1:5000/x"): Docker Hub's "docker.io/" and "library/" left
 * off. Its image list's reference filter matches only that spelling.
 * Caller frees. */
char *image_ref_familiar_name(const struct image_ref *ref);

/* X-Registry-Auth value (base64url of the auth JSON) for the registry of
 * ref, from $DOCKER_CONFIG/config.json (default ~/.docker/config.json):
 * credHelpers, credsStore (runs docker-credential-<x> get), auths.
 * *out = NULL when no credentials are configured (not an error). */
int registry_auth_header(const struct image_ref *ref, char **out, struct error *err);
/* The same credentials as a username and password for a client that talks
 * to the registry itself; both NULL when none are configured. */
int registry_credentials(const struct image_ref *ref, char **username, char **password,
			 struct error *err);

/* ---- images ---- */

/* DELETE /images/{name} (untag, and remove when no tag is left; never
 * forced: an image a container uses stays). A missing one is not an error. */
int engine_image_remove(struct engine *e, const char *name, struct error *err);

/* GET /images/json?filters={"dangling":["true"]}: into ids, the IDs of the
 * untagged images whose RepoDigests name digest_ref ("repo@sha256:..."),
 * exactly: what a failed pull of that reference may have left. An untagged
 * image naming no digest is never listed (nothing ties it to a pull). */
int engine_image_dangling_of(struct engine *e, const char *digest_ref, struct strvec *ids,
			     struct error *err) __attribute__((warn_unused_result));

/* What an image inspect tells (as dockerd names it, see
 * podman_image_normalize). */
struct engine_image_info {
	char *id;          /* "sha256:..." */
	char *digest;      /* the first RepoDigests entry, NULL when none (built here) */
	struct strvec repo_digests; /* every RepoDigests entry */
	struct strvec env; /* Config.Env; newer APIs leave an empty one out */
	long long size;    /* Size: bytes on the engine, its layers counted; -1 not said */
	struct strvec layers; /* RootFS.Layers: the diff IDs, base first */
};
void engine_image_info_release(struct engine_image_info *i);

/* GET /images/{name}/json. A missing image: returns -1 with kind
 * ERR_NOT_FOUND and status 404; an answer without an Id: ERR_PROTOCOL. */
int engine_image_inspect(struct engine *e, const char *name, struct engine_image_info *out,
			 struct error *err);

/* GET /images/{name}/history: each history entry's Size, oldest first
 * (the engine answers newest first). An entry that made no layer has
 * size 0, but so may one whose layer is empty: pairing the sizes with
 * RootFS.Layers is the caller's. Podman's compat API serves it too. */
struct engine_image_history {
	long long *sizes; /* bytes; -1 not said */
	size_t n;
};
void engine_image_history_release(struct engine_image_history *h);
int engine_image_history(struct engine *e, const char *name, struct engine_image_history *out,
			 struct error *err) __attribute__((warn_unused_result));

/* One tag an image list names: an image with several tags is one entry
 * each, an untagged image none. */
struct engine_image_tag {
	char *ref;         /* "name:tag" as the engine's RepoTags spell it */
	char *id;          /* "sha256:..." */
	long long created; /* the image's Created, epoch seconds; -1 unknown */
};
struct engine_image_tags {
	struct engine_image_tag *v;
	size_t n;
};
void engine_image_tags_release(struct engine_image_tags *t);

/* GET /images/json?filters={"reference":[reference]}: the tags of the
 * images whose name matches reference ("name", "name:tag", globs as the
 * engine takes them; NULL every image). The engine's matching is a
 * pre-filter, not a promise: an image listed keeps all its RepoTags, of
 * other repositories too, so callers match the names themselves. */
int engine_image_list(struct engine *e, const char *reference, struct engine_image_tags *out,
		      struct error *err) __attribute__((warn_unused_result));

struct engine_pull_event {
	const char *status;   /* "Downloading", "Pull complete", ... (may be NULL) */
	const char *id;       /* layer id (may be NULL) */
	const char *progress; /* engine's text bar (may be NULL) */
	long long current;    /* progressDetail, -1 when absent */
	long long total;
};
typedef void (*engine_pull_cb)(const struct engine_pull_event *ev, void *ud);

/* POST /images/create. Always sends a tag (default latest) or pulls by
 * digest, never all tags. registry_auth: X-Registry-Auth value or NULL.
 * Refused before streaming: ERR_HTTP with the engine's status (404 no such
 * image, 500 e.g. missing credentials). A pull that fails midway is still
 * HTTP 200 with errorDetail/error in a late object: ERR_HTTP, status 200,
 * msg = that message. Every object is scanned. */
int engine_pull_image(struct engine *e, const char *ref, const char *registry_auth,
		      engine_pull_cb cb, void *ud, struct error *err);
int engine_pull_image_opts(struct engine *e, const char *ref, const char *registry_auth,
			   engine_pull_cb cb, void *ud, const struct engine_call_opts *opts,
			   struct error *err) __attribute__((warn_unused_result));

/* ---- containers ---- */

struct container_device {
	char *path_on_host;
	char *path_in_container;
	char *cgroup_permissions; /* "rwm" when NULL */
};

struct container_mount { /* Type "bind" in HostConfig.Mounts */
	char *source;
	char *target;
	bool read_only;
};

struct container_ulimit {
	char *name;
	long long soft;
	long long hard;
};

struct container_spec {
	char *image;
	struct strvec entrypoint; /* empty = image default; orchestrator always sets it */
	struct strvec cmd;
	struct strvec env;        /* "K=V" */
	struct strvec labels;     /* "k=v", split at the first '=' */
	char *working_dir;        /* NULL = image default */
	char *user;               /* NULL = image default */
	int stop_timeout;         /* seconds; < 0 = unset */

	/* HostConfig */
	struct container_device *devices;
	size_t n_devices;
	/* CDI device names ("amd.com/gpu=0"): HostConfig.DeviceRequests
	 * {"Driver": "cdi", "DeviceIDs": [...]} on dockerd; on Podman,
	 * whose compatible create ignores DeviceRequests, its own create. */
	struct strvec cdi_devices;
	struct container_mount *mounts;
	size_t n_mounts;
	struct container_ulimit *ulimits;
	size_t n_ulimits;
	struct strvec group_add;  /* numeric GIDs as strings */
	struct strvec cap_add;
	struct strvec cap_drop;   /* "ALL" */
	struct strvec security_opt; /* "no-new-privileges", ... */
	/* A seccomp profile (a JSON object's text, compact if the caller
	 * wants it compact on the wire), NULL = the engine's default. It is
	 * sent as it is, never parsed again here (inline for dockerd, a file
	 * for Podman). */
	char *seccomp_profile;
	char *network_mode;       /* "none" */
	bool init;
	bool readonly_rootfs;
	bool auto_remove;
	long long pids_limit;     /* 0 = unset */
	long long memory;         /* bytes, 0 = unset */
	long long shm_size;       /* bytes, 0 = unset */
	long long log_max_bytes;  /* LogConfig json-file max-size, sent as "10m"; 0 = engine default */
	char *log_max_file;       /* "1" */
};

void container_spec_init(struct container_spec *s);
void container_spec_release(struct container_spec *s);
void container_spec_add_device(struct container_spec *s, const char *host,
			       const char *in_container, const char *perms);
void container_spec_add_mount(struct container_spec *s, const char *source,
			      const char *target, bool read_only);
void container_spec_add_ulimit(struct container_spec *s, const char *name,
			       long long soft, long long hard);
/* Pure: the body of POST /containers/create (caller frees), as dockerd
 * takes it: a seccomp profile inline, "seccomp=<its text>". */
cJSON *container_spec_to_json(const struct container_spec *s);

/* POST /containers/create?name= (name may be NULL). *id_out: caller frees.
 * A missing image is ERR_HTTP 404 (the one 404 that is not ERR_NOT_FOUND:
 * the container is not what is missing). A seccomp profile that is not a
 * JSON object is ERR_USAGE. The engine's flavour is asked once (GET
 * /version, when the ping did not tell): Podman's create is its own
 * (docker/podman.c, docker/libpod.c), from the same spec. */
int engine_container_create(struct engine *e, const char *name,
			    const struct container_spec *spec, char **id_out,
			    struct error *err);
int engine_container_start(struct engine *e, const char *id, struct error *err);   /* 304 = ok */
int engine_container_stop(struct engine *e, const char *id, int timeout_s,
			  struct error *err); /* 304 = ok; bounded by timeout_s + slack */
int engine_container_kill(struct engine *e, const char *id, const char *signal,
			  struct error *err); /* 409 not running -> ERR_HTTP 409 */
int engine_container_remove(struct engine *e, const char *id, bool force,
			    struct error *err); /* 404 -> ERR_NOT_FOUND */

struct container_state {
	char status[32]; /* "created", "running", "exited", ... */
	bool running;
	bool oom_killed;
	int exit_code;
	long pid;
	char started_at[64];
	char finished_at[64];
	char error[256];
};

/* What a container inspect tells. */
struct engine_container_info {
	char *id;
	bool has_state;              /* State had a Status: state is filled */
	struct container_state state;
	struct strvec device_paths;  /* HostConfig.Devices[].PathOnHost */
	bool tty;                    /* Config.Tty: its output is not framed */
};
void engine_container_info_release(struct engine_container_info *c);
/* GET /containers/{id}/json. out may be NULL: whether it still exists. */
int engine_container_inspect(struct engine *e, const char *id,
			     struct engine_container_info *out, struct error *err);

/* One container of a list answer (an entry without an Id is left out). */
struct engine_container {
	char *id;
	char *state;       /* "created", "running", ...; NULL when not said */
	long long created; /* epoch seconds; -1 when not said */
	struct engine_labels labels;
};
struct engine_containers {
	struct engine_container *v;
	size_t n;
};
void engine_containers_release(struct engine_containers *l);

/* GET /containers/json?all=1&filters={"label":[label_filter]} ; label_filter
 * is "key" or "key=value". */
int engine_container_list(struct engine *e, const char *label_filter,
			  struct engine_containers *out, struct error *err);

/* ---- the archive endpoint ---- */

/* A path's X-Docker-Container-Path-Stat (as dockerd gives it). */
struct engine_path_stat {
	char *name;
	long long size;    /* -1 when not said */
	bool has_mode;
	uint64_t mode;     /* Go's os.FileMode bits; 0 when not said or out of range */
	char *link_target; /* NULL when not a symbolic link */
};
void engine_path_stat_release(struct engine_path_stat *st);
#define ENGINE_MODE_DIR (1ULL << 31)     /* Go's os.ModeDir */
#define ENGINE_MODE_SYMLINK (1ULL << 27) /* Go's os.ModeSymlink */

/* HEAD /containers/{id}/archive?path=: the decoded X-Docker-Container-Path-Stat.
 * Missing path: ERR_NOT_FOUND. */
int engine_container_path_stat(struct engine *e, const char *id, const char *path,
			       struct engine_path_stat *out, struct error *err);
/* GET .../archive?path= and return the content of the single regular file
 * at path (extracted from the tar stream), at most max_bytes (ERR_LIMIT
 * beyond). */
int engine_container_read_file(struct engine *e, const char *id, const char *path,
			       size_t max_bytes, struct strbuf *out, struct error *err);
/* GET .../archive?path= raw tar stream to cb (return non-zero to abort). */
typedef int (*engine_data_cb)(const char *data, size_t len, void *ud);
int engine_container_get_archive(struct engine *e, const char *id, const char *path,
				 engine_data_cb cb, void *ud, struct error *err);
int engine_container_get_archive_opts(struct engine *e, const char *id, const char *path,
				      engine_data_cb cb, void *ud,
				      const struct engine_call_opts *opts, struct error *err)
	__attribute__((warn_unused_result));

/* ---- the log frame demuxer (pure, docker/demux.c) ---- */

enum engine_stream_id { ENGINE_STDIN = 0, ENGINE_STDOUT = 1, ENGINE_STDERR = 2 };
/* Called with payload pieces as they arrive; a frame may be delivered in
 * several pieces (never buffered whole: a frame may announce 4 GiB). */
typedef int (*engine_frame_cb)(enum engine_stream_id stream, const char *data,
			       size_t len, void *ud);

struct engine_demux {
	unsigned char header[8];
	size_t header_len;     /* bytes of the current header seen so far */
	uint64_t remaining;    /* payload bytes of the current frame still due */
	enum engine_stream_id stream;
	bool raw;              /* Tty: true containers send unframed bytes */
	engine_frame_cb cb;
	void *ud;
};
void engine_demux_init(struct engine_demux *d, bool raw, engine_frame_cb cb, void *ud);
/* Feed any chunk. Returns < 0 on a bad header (stream byte > 2) or when
 * cb returns non-zero. */
int engine_demux_feed(struct engine_demux *d, const char *data, size_t len,
		      struct error *err);
/* At end of stream: an error when it ended inside a header or a frame. */
int engine_demux_finish(const struct engine_demux *d, struct error *err);

/* ---- streaming requests driven by one event loop (libcurl multi) ---- */

/* A stream is a transfer (docker/xfer.h) that runs in a caller's loop;
 * each has a connection of its own, as long as it lasts. */
struct engine_stream;
struct engine_loop;

int engine_loop_new(struct engine_loop **out, struct error *err);
void engine_loop_free(struct engine_loop *l);
/* Start a stream in the loop. The loop owns it until it completes and it
 * is removed with engine_stream_free(). For a wait stream this also polls
 * the loop (up to 30 s) until the engine has answered the headers, i.e.
 * registered the wait, and fails with the stream's error if the engine
 * refused it: once it returns 0 the container may be started. Other
 * streams of the loop may see their callbacks run meanwhile. */
int engine_loop_add(struct engine_loop *l, struct engine_stream *s, struct error *err);
/* The same, the wait for the engine's answer bounded by opts too (at most
 * 30 s whatever its deadline): ERR_TIMEOUT, ERR_INTERRUPTED. The stream
 * stays in the loop either way; engine_stream_free() removes it. */
int engine_loop_add_opts(struct engine_loop *l, struct engine_stream *s,
			 const struct engine_call_opts *opts, struct error *err)
	__attribute__((warn_unused_result));
/* Wait up to timeout_ms for activity (curl_multi_poll), also waking when
 * extra_fd (>= 0, e.g. a signal self-pipe) becomes readable. Processes
 * data and completions. Returns < 0 only on a loop failure. */
int engine_loop_poll(struct engine_loop *l, int timeout_ms, int extra_fd,
		     struct error *err);

/* The response's status line and headers have arrived. For a wait stream
 * this is the engine's word that the wait is registered: only then may the
 * container be started, or a fast exit is missed by condition=next-exit. */
bool engine_stream_responded(const struct engine_stream *s);

/* A finished stream: done = true; its outcome via engine_stream_result(). */
bool engine_stream_done(const struct engine_stream *s);
int engine_stream_result(const struct engine_stream *s, struct error *err);
/* Remove from its loop (if any) and free. NULL is fine. Not from inside
 * one of its own callbacks. engine_loop_free() before the loop's streams
 * is fine too: unfinished ones end as ERR_CANCELLED. */
void engine_stream_free(struct engine_stream *s);

/* POST /containers/{id}/wait?condition=<cond> (cond: "next-exit",
 * "not-running", "removed"). Register BEFORE start. No transfer timeout.
 * When done: engine_wait_status() gives StatusCode. */
int engine_wait_stream(struct engine *e, const char *id, const char *condition,
		       struct engine_stream **out, struct error *err);
int engine_wait_status(const struct engine_stream *s, long *status_code,
		       struct error *err);

/* GET /containers/{id}/logs?follow=&stdout=1&stderr=1 ; frames demuxed to
 * cb. raw = the container has a TTY (no framing). */
int engine_logs_stream(struct engine *e, const char *id, bool follow, bool raw,
		       engine_frame_cb cb, void *ud, struct engine_stream **out,
		       struct error *err);

/* POST /containers/{id}/attach?stream=1&stdout=1&stderr=1, registered
 * BEFORE start (engine_loop_add returns once the engine answered): every
 * byte the container writes, as it is written, until it exits. Prefer it
 * to following /logs, which reads the engine's json-file copy and loses
 * output once that file rotates. raw = the container has a TTY. */
int engine_attach_stream(struct engine *e, const char *id, bool raw, engine_frame_cb cb,
			 void *ud, struct engine_stream **out, struct error *err);

/* One event, as dockerd names it (podman_event_normalize); valid during
 * the callback only. */
struct engine_event {
	const char *type;   /* "container", "image", ...; NULL when not said */
	const char *action; /* "create", "start", "die", "destroy", ... */
	const char *id;     /* Actor.ID */
	struct engine_labels attributes; /* Actor.Attributes */
};
/* GET /events?filters=<json> (filters may be NULL); each event to cb
 * (return non-zero to stop). since/until: unix seconds, 0 = unset. */
typedef int (*engine_event_cb)(const struct engine_event *event, void *ud);
int engine_events_stream(struct engine *e, const char *filters_json, long long since,
			 long long until, engine_event_cb cb, void *ud,
			 struct engine_stream **out, struct error *err);

/* The same endpoints as blocking calls, run on the engine's connection.
 * Without opts they wait as long as the container runs; with opts they
 * end at its deadline (ERR_TIMEOUT) or interrupt fd (ERR_INTERRUPTED). */
int engine_container_wait(struct engine *e, const char *id, const char *condition,
			  long *status_code, struct error *err);
int engine_container_wait_opts(struct engine *e, const char *id, const char *condition,
			       const struct engine_call_opts *opts, long *status_code,
			       struct error *err) __attribute__((warn_unused_result));
int engine_container_logs(struct engine *e, const char *id, bool follow,
			  engine_frame_cb cb, void *ud, struct error *err);
int engine_container_logs_opts(struct engine *e, const char *id, bool follow,
			       engine_frame_cb cb, void *ud,
			       const struct engine_call_opts *opts, struct error *err)
	__attribute__((warn_unused_result));

/* ---- exec ---- */

/* POST /containers/{id}/exec then POST /exec/{id}/start (Detach false,
 * Tty false), output demuxed to cb; then GET /exec/{id}/json for ExitCode. */
int engine_exec(struct engine *e, const char *container_id, const struct strvec *cmd,
		const char *user, bool privileged, engine_frame_cb cb, void *ud,
		long *exit_code, struct error *err);
int engine_exec_opts(struct engine *e, const char *container_id, const struct strvec *cmd,
		     const char *user, bool privileged, engine_frame_cb cb, void *ud,
		     const struct engine_call_opts *opts, long *exit_code, struct error *err)
	__attribute__((warn_unused_result));

#endif
