/* Opening an engine: DOCKER_HOST parsing, TLS files, the request timeout,
 * API version negotiation (once per engine); ping, version and flavour. */
#include "docker/xfer.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

#define DEFAULT_DOCKER_HOST "unix:///var/run/docker.sock"
/* Where a rootless Podman service listens when XDG_RUNTIME_DIR is unset. */
#define ENGINE_ROOTLESS_DIR "/run/user"
/* What an engine that sends no API-Version header speaks (Docker's rule). */
#define ENGINE_API_VERSION_UNKNOWN "1.24"

int engine_version_parse(const char *s, int *major, int *minor)
{
	char *end;
	long ma, mi;

	if (!s || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	ma = strtol(s, &end, 10);
	if (errno || *end != '.' || !isdigit((unsigned char)end[1]) || ma > 1000)
		return -1;
	mi = strtol(end + 1, &end, 10);
	if (errno || *end || mi > 1000)
		return -1;
	*major = (int)ma;
	*minor = (int)mi;
	return 0;
}

int engine_version_cmp(const char *a, const char *b)
{
	int amaj, amin, bmaj, bmin;
	bool aok = engine_version_parse(a, &amaj, &amin) == 0;
	bool bok = engine_version_parse(b, &bmaj, &bmin) == 0;

	if (!aok || !bok)
		return (int)aok - (int)bok;
	if (amaj != bmaj)
		return amaj < bmaj ? -1 : 1;
	if (amin != bmin)
		return amin < bmin ? -1 : 1;
	return 0;
}

static void engine_set_version(struct engine *e, const char *v)
{
	snprintf(e->api_version, sizeof(e->api_version), "%s", v);
}

static int engine_open_unix(struct engine *e, const char *path, struct error *err)
{
	const curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);

	if (!*path)
		return error_set(err, ERR_USAGE, 0, "DOCKER_HOST=%s names no socket path",
				 e->host);
	if (strlen(path) > ENGINE_UNIX_PATH_MAX)
		return error_set(err, ERR_USAGE, 0,
				 "DOCKER_HOST=%s: the socket path is %zu bytes, longer than the %d a unix socket address holds",
				 e->host, strlen(path), ENGINE_UNIX_PATH_MAX);
	if (!(cv->features & CURL_VERSION_UNIX_SOCKETS))
		return error_set(err, ERR_USAGE, 0,
				 "this libcurl (%s) cannot talk over unix sockets; use a tcp:// DOCKER_HOST",
				 cv->version);
	e->is_unix = true;
	e->socket_path = xstrdup(path);
	e->base_url = xstrdup("http://localhost");
	return 0;
}

static int engine_tls_file(struct engine *e, const char *dir, const char *name, char **out,
		    struct error *err)
{
	char *path = xasprintf("%s/%s", dir, name);

	if (access(path, R_OK) < 0) {
		error_errno(err, "DOCKER_TLS_VERIFY is set for %s but %s is not readable",
			    e->host, path);
		err->kind = ERR_USAGE;
		free(path);
		return -1;
	}
	*out = path;
	return 0;
}

static int engine_open_tcp(struct engine *e, const char *rest, struct error *err)
{
	const char *verify = getenv("DOCKER_TLS_VERIFY");
	const char *slash, *bracket, *colon;
	cleanup_free char *hostport = NULL;
	cleanup_free char *dir = NULL;
	size_t len = strlen(rest);

	while (len && rest[len - 1] == '/')
		len--;
	hostport = xstrndup(rest, len);
	if (!*hostport)
		return error_set(err, ERR_USAGE, 0, "DOCKER_HOST=%s names no host", e->host);
	slash = strchr(hostport, '/');
	if (slash)
		return error_set(err, ERR_USAGE, 0,
				 "DOCKER_HOST=%s: a path after host:port is not supported",
				 e->host);
	e->tls = verify && *verify;
	bracket = strrchr(hostport, ']');
	colon = strrchr(bracket ? bracket : hostport, ':');
	if (colon && !colon[1])
		return error_set(err, ERR_USAGE, 0, "DOCKER_HOST=%s: empty port", e->host);
	if (!colon) {
		char *with_port = xasprintf("%s:%d", hostport, e->tls ? 2376 : 2375);

		free(hostport);
		hostport = with_port;
	}
	e->base_url = xasprintf("%s://%s", e->tls ? "https" : "http", hostport);
	if (!e->tls)
		return 0;
	if (getenv("DOCKER_CERT_PATH") && *getenv("DOCKER_CERT_PATH")) {
		dir = xstrdup(getenv("DOCKER_CERT_PATH"));
	} else {
		const char *home = getenv("HOME");

		dir = xasprintf("%s/.docker", home && *home ? home : "/root");
	}
	if (engine_tls_file(e, dir, "ca.pem", &e->tls_ca, err) < 0 ||
	    engine_tls_file(e, dir, "cert.pem", &e->tls_cert, err) < 0 ||
	    engine_tls_file(e, dir, "key.pem", &e->tls_key, err) < 0)
		return -1;
	return 0;
}

static int engine_parse_host(struct engine *e, struct error *err)
{
	const char *h = e->host;

	if (!strncmp(h, "unix://", 7))
		return engine_open_unix(e, h + 7, err);
	if (!strncmp(h, "tcp://", 6))
		return engine_open_tcp(e, h + 6, err);
	if (!strncmp(h, "ssh://", 6))
		return error_set(err, ERR_USAGE, 0,
				 "DOCKER_HOST=%s: ssh:// engines are not supported; forward the socket instead (ssh -nNT -L /tmp/docker.sock:/var/run/docker.sock HOST) and use DOCKER_HOST=unix:///tmp/docker.sock",
				 h);
	return error_set(err, ERR_USAGE, 0,
			 "DOCKER_HOST=%s is not supported: use unix:///path or tcp://host:port", h);
}

static long engine_ping_timeout(const struct engine *e)
{
	return e->timeout_s < ENGINE_PING_TIMEOUT_S ? e->timeout_s : ENGINE_PING_TIMEOUT_S;
}

/* HRR_ENGINE_TIMEOUT: whole seconds, 1 to a day. */
static int engine_read_timeout(struct engine *e, struct error *err)
{
	const char *v = getenv(ENGINE_TIMEOUT_ENV);
	char *end;
	long t;

	e->timeout_s = ENGINE_TIMEOUT_DEFAULT_S;
	if (!v || !*v)
		return 0;
	errno = 0;
	t = strtol(v, &end, 10);
	if (errno || *end || t < 1 || t > ENGINE_TIMEOUT_MAX_S)
		return error_set(err, ERR_USAGE, 0,
				 "%s=%s is not a number of seconds from 1 to %ld",
				 ENGINE_TIMEOUT_ENV, v, ENGINE_TIMEOUT_MAX_S);
	e->timeout_s = t;
	return 0;
}

/* The one /_ping of an engine's life: the rest of its requests reuse the
 * version it settles and the connection it opened. */
static int engine_negotiate(struct engine *e, struct error *err)
{
	struct engine_stream *s = engine_xfer_new(e, "GET", "/_ping", true);
	const char *theirs;
	int rc = -1, major, minor;

	s->want_header = "API-Version";
	s->want_identity = true;
	engine_xfer_set_timeout(s, engine_ping_timeout(e));
	if (engine_xfer_run(s, NULL, err) < 0)
		goto out;
	if (s->status != 200) {
		engine_xfer_http_error(s, err);
		error_prefix(err, "negotiating the API version with the Docker engine at %s: ",
			     e->host);
		goto out;
	}
	theirs = s->header_value && *s->header_value ? s->header_value
						       : ENGINE_API_VERSION_UNKNOWN;
	if (engine_version_parse(theirs, &major, &minor) < 0) {
		error_set(err, ERR_PROTOCOL, 0,
			  "the Docker engine at %s announced an unreadable API version \"%.32s\"",
			  e->host, theirs);
		goto out;
	}
	if (engine_version_cmp(theirs, ENGINE_API_VERSION_MIN) < 0) {
		error_set(err, ERR_CONNECT, 0,
			  "the Docker engine at %s speaks API %s, older than %s, the oldest this client supports; upgrade the engine",
			  e->host, theirs, ENGINE_API_VERSION_MIN);
		goto out;
	}
	engine_set_version(e, engine_version_cmp(theirs, ENGINE_API_VERSION_MAX) > 0
				      ? ENGINE_API_VERSION_MAX : theirs);
	engine_identity_from_ping(e, s->server, s->libpod_version);
	rc = 0;
out:
	engine_stream_free(s);
	return rc;
}

static int engine_open_one(struct engine **out, const char *docker_host, struct error *err)
{
	struct engine *e;
	const char *pin = getenv("DOCKER_API_VERSION");
	int major, minor;

	e = xcalloc(1, sizeof(*e));
	e->host = xstrdup(docker_host);
	if (engine_read_timeout(e, err) < 0 || engine_parse_host(e, err) < 0 ||
	    engine_runner_init(&e->runner, err) < 0)
		goto fail;
	if (pin && *pin) {
		if (engine_version_parse(pin, &major, &minor) < 0) {
			error_set(err, ERR_USAGE, 0,
				  "DOCKER_API_VERSION=%s is not an API version like %s",
				  pin, ENGINE_API_VERSION_MIN);
			goto fail;
		}
		if (engine_version_cmp(pin, ENGINE_API_VERSION_MIN) < 0) {
			error_set(err, ERR_USAGE, 0,
				  "DOCKER_API_VERSION=%s is older than %s, the oldest API version this client speaks",
				  pin, ENGINE_API_VERSION_MIN);
			goto fail;
		}
		engine_set_version(e, pin);
	} else if (engine_negotiate(e, err) < 0) {
		goto fail;
	}
	*out = e;
	return 0;
fail:
	engine_close(e);
	return -1;
}

static bool engine_socket_exists(const char *host)
{
	struct stat st;

	return !strncmp(host, "unix://", 7) && stat(host + 7, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Without DOCKER_HOST: dockerd's socket, else a Podman service the caller
 * may use, its own rootless one first, then root's. The error is
 * dockerd's when none answers, as before Podman was looked for. */
static int engine_discover(struct engine **out, struct error *err)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char *cand[4];
	size_t n = 0;
	int rc;

	if (engine_open_one(out, DEFAULT_DOCKER_HOST, err) == 0)
		return 0;
	if (err->kind != ERR_CONNECT)
		return -1;
	if (xdg && *xdg)
		cand[n++] = xasprintf("unix://%s/podman/podman.sock", xdg);
	cand[n++] = xasprintf("unix://" ENGINE_ROOTLESS_DIR "/%u/podman/podman.sock",
			      (unsigned)getuid());
	cand[n++] = xstrdup(ENGINE_PODMAN_ROOT_HOST);
	rc = -1;
	for (size_t i = 0; i < n; i++) {
		struct error again;

		if (rc < 0 && (i == 0 || strcmp(cand[i], cand[i - 1])) &&
		    engine_socket_exists(cand[i]) && engine_open_one(out, cand[i], &again) == 0)
			rc = 0;
		free(cand[i]);
	}
	return rc;
}

int engine_open(struct engine **out, const char *docker_host, struct error *err)
{
	engine_curl_init();
	if (!docker_host || !*docker_host)
		docker_host = getenv("DOCKER_HOST");
	if (!docker_host || !*docker_host)
		return engine_discover(out, err);
	return engine_open_one(out, docker_host, err);
}

void engine_close(struct engine *e)
{
	if (!e)
		return;
	engine_runner_release(&e->runner); /* closes the kept-alive connection */
	free(e->host);
	free(e->socket_path);
	free(e->base_url);
	free(e->tls_ca);
	free(e->tls_cert);
	free(e->tls_key);
	free(e);
}

const char *engine_api_version(const struct engine *e)
{
	return e->api_version;
}

const char *engine_host(const struct engine *e)
{
	return e->host;
}

bool engine_is_unix(const struct engine *e)
{
	return e->is_unix;
}

/* "Libpod/4.3.1 (linux)" -> "4.3.1" */
static void engine_server_product(const char *server, const char *product, char *out,
				  size_t size)
{
	size_t n = strlen(product), len;

	if (!server || strncasecmp(server, product, n) || server[n] != '/')
		return;
	server += n + 1;
	len = strcspn(server, " ");
	snprintf(out, size, "%.*s", (int)len, server);
}

void engine_identity_from_ping(struct engine *e, const char *server, const char *libpod)
{
	if ((libpod && *libpod) || (server && !strncasecmp(server, "Libpod/", 7))) {
		e->flavour = ENGINE_FLAVOUR_PODMAN;
		if (libpod && *libpod)
			snprintf(e->server_version, sizeof(e->server_version), "%s", libpod);
		else
			engine_server_product(server, "Libpod", e->server_version,
					      sizeof(e->server_version));
	} else if (server && !strncasecmp(server, "Docker/", 7)) {
		e->flavour = ENGINE_FLAVOUR_DOCKER;
		engine_server_product(server, "Docker", e->server_version,
				      sizeof(e->server_version));
	}
}

const char *engine_name(const struct engine *e)
{
	switch (e->flavour) {
	case ENGINE_FLAVOUR_DOCKER:
		return "dockerd";
	case ENGINE_FLAVOUR_PODMAN:
		return "podman";
	default:
		return "unknown";
	}
}

const char *engine_server_version(const struct engine *e)
{
	return e->server_version;
}

int engine_ping(struct engine *e, struct error *err)
{
	struct engine_stream *s = engine_xfer_new(e, "GET", "/_ping", true);
	int rc = -1;

	engine_xfer_set_timeout(s, engine_ping_timeout(e));
	if (engine_xfer_run(s, NULL, err) < 0)
		goto out;
	if (s->status != 200) {
		engine_xfer_http_error(s, err);
		goto out;
	}
	rc = 0;
out:
	engine_stream_free(s);
	return rc;
}

int engine_version(struct engine *e, struct engine_version_info *out, struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_cjson cJSON *j = NULL;

	memset(out, 0, sizeof(*out));
	if (engine_request_json(e, "GET", "/version", NULL, ok, false, 0, &j, err) < 0)
		return -1;
	if (!cJSON_IsObject(j))
		return error_set(err, ERR_PROTOCOL, 0,
				 "the Docker engine's /version answer is not an object");
	engine_version_info_parse(j, out);
	return 0;
}

int engine_flavour(struct engine *e, enum engine_flavour *out, struct error *err)
{
	struct engine_version_info v;

	if (e->flavour == ENGINE_FLAVOUR_UNKNOWN) {
		if (engine_version(e, &v, err) < 0)
			return error_prefix(err, "telling dockerd from Podman: ");
		e->flavour = v.podman ? ENGINE_FLAVOUR_PODMAN : ENGINE_FLAVOUR_DOCKER;
		if (v.version && !e->server_version[0])
			snprintf(e->server_version, sizeof(e->server_version), "%s", v.version);
		engine_version_info_release(&v);
	}
	*out = e->flavour;
	return 0;
}

const char *engine_goarch(const char *machine)
{
	static const struct { const char *machine, *go; } names[] = {
		{ "x86_64", "amd64" }, { "aarch64", "arm64" }, { "i686", "386" },
		{ "i386", "386" }, { "armv7l", "arm" }, { "riscv64", "riscv64" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(machine, names[i].machine))
			return names[i].go;
	return machine; /* ppc64le, s390x: the same in both */
}

int engine_arch(struct engine *e, char **out, struct error *err)
{
	struct engine_version_info v;
	struct utsname u;

	*out = NULL;
	if (e->is_unix && e->flavour == ENGINE_FLAVOUR_PODMAN && uname(&u) == 0) {
		*out = xstrdup(engine_goarch(u.machine));
		return 0;
	}
	if (engine_version(e, &v, err) < 0)
		return -1;
	*out = xstrdup(v.arch ? v.arch : "");
	engine_version_info_release(&v);
	return 0;
}
