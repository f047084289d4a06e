/* Registry credentials the way the docker CLI finds them in config.json:
 * credHelpers[registry], then credsStore, then auths; the result is the
 * X-Registry-Auth header value (base64url of the auth JSON). */
#include "docker/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

extern char **environ;

#define CONFIG_MAX (4u << 20)
#define HELPER_OUTPUT_MAX (64u << 10)
#define HELPER_TIMEOUT_MS 30000
#define HUB_KEY "https://index.docker.io/v1/"

struct registry_creds {
	char *username;
	char *password;
	char *identity_token;
};

static void auth_creds_release(struct registry_creds *c)
{
	free(c->username);
	free(c->password);
	free(c->identity_token);
	memset(c, 0, sizeof(*c));
}

static bool auth_creds_present(const struct registry_creds *c)
{
	return c->identity_token || c->username;
}

static int auth_parse_config(const char *text, size_t len, const char *path, cJSON **out,
			     struct error *err)
{
	*out = cJSON_ParseWithLength(text, len);
	if (!*out || !cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		return error_set(err, ERR_DATA, 0, "%s is not a JSON object", path);
	}
	return 0;
}

static int auth_read_config(const char *path, cJSON **out, struct error *err)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	cleanup_strbuf struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	ssize_t n;

	*out = NULL;
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		error_errno(err, "reading registry credentials from %s", path);
		err->kind = ERR_DATA;
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error_errno(err, "reading registry credentials from %s", path);
			err->kind = ERR_DATA;
			return -1;
		}
		if (sb.len + (size_t)n > CONFIG_MAX)
			return error_set(err, ERR_LIMIT, 0, "%s is larger than %u bytes",
					 path, CONFIG_MAX);
		strbuf_add(&sb, buf, (size_t)n);
	}
	return auth_parse_config(sb.buf, sb.len, path, out, err);
}

/* The host part of an auths key: "https://host:5000/v1/" -> "host:5000". */
static char *auth_key_host(const char *key)
{
	const char *p = key;
	size_t len;

	if (!strncmp(p, "https://", 8))
		p += 8;
	else if (!strncmp(p, "http://", 7))
		p += 7;
	len = strcspn(p, "/");
	return xstrndup(p, len);
}

static bool auth_is_hub_host(const char *h)
{
	return !strcmp(h, "docker.io") || !strcmp(h, "index.docker.io") ||
	       !strcmp(h, "registry-1.docker.io");
}

static bool auth_key_matches(const char *entry_key, const struct image_ref *ref)
{
	cleanup_free char *host = auth_key_host(entry_key);

	if (!strcmp(ref->registry, "docker.io"))
		return auth_is_hub_host(host);
	return !strcmp(host, ref->registry);
}

/* Look key up in an object: the exact key, then any key naming the same
 * registry host (with or without scheme and path). */
static const cJSON *auth_lookup(const cJSON *obj, const struct image_ref *ref)
{
	const cJSON *it;
	const char *key = image_ref_auth_key(ref);

	if (!cJSON_IsObject(obj))
		return NULL;
	it = json_get(obj, key);
	if (it)
		return it;
	it = json_get(obj, ref->registry);
	if (it)
		return it;
	cJSON_ArrayForEach(it, obj)
		if (it->string && auth_key_matches(it->string, ref))
			return it;
	return NULL;
}

static const char *auth_json_str(const cJSON *obj, const char *name)
{
	const char *v = json_str(obj, name);

	return v && *v ? v : NULL;
}

static int auth_creds_from_entry(const cJSON *entry, const char *where,
				  struct registry_creds *c, struct error *err)
{
	const char *auth = auth_json_str(entry, "auth");
	const char *tok = auth_json_str(entry, "identitytoken");

	if (auth) {
		cleanup_strbuf struct strbuf dec = STRBUF_INIT;
		const char *colon;

		if (engine_base64_decode(auth, strlen(auth), &dec, err) < 0)
			return error_prefix(err, "%s: \"auth\": ", where);
		colon = memchr(dec.buf, ':', dec.len);
		if (!colon || memchr(dec.buf, '\0', dec.len))
			return error_set(err, ERR_DATA, 0,
					 "%s: \"auth\" does not decode to user:password", where);
		c->username = xstrndup(dec.buf, (size_t)(colon - dec.buf));
		c->password = xstrndup(colon + 1, dec.len - (size_t)(colon - dec.buf) - 1);
	} else if (auth_json_str(entry, "username")) {
		c->username = xstrdup(auth_json_str(entry, "username"));
		c->password = xstrdup(auth_json_str(entry, "password") ? auth_json_str(entry, "password") : "");
	}
	if (tok)
		c->identity_token = xstrdup(tok);
	return 0;
}

static long long auth_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Drain a helper's stdout and stderr, bounded in size and time. */
static int auth_helper_collect(const char *prog, pid_t pid, int out_fd, int err_fd,
			  struct strbuf *out, struct strbuf *errout, struct error *err)
{
	long long deadline = auth_now_ms() + HELPER_TIMEOUT_MS;
	struct pollfd pfd[2] = { { out_fd, POLLIN, 0 }, { err_fd, POLLIN, 0 } };
	char buf[4096];

	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		long long left = deadline - auth_now_ms();
		int r;

		if (left <= 0) {
			kill(pid, SIGKILL);
			return error_set(err, ERR_SYSTEM, ETIMEDOUT,
					 "credential helper %s did not answer within %d s",
					 prog, HELPER_TIMEOUT_MS / 1000);
		}
		r = poll(pfd, 2, (int)left);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			kill(pid, SIGKILL);
			return error_errno(err, "waiting for credential helper %s", prog);
		}
		for (int i = 0; i < 2; i++) {
			struct strbuf *sb = i ? errout : out;
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				pfd[i].fd = -1;
				continue;
			}
			if (sb->len + (size_t)n > HELPER_OUTPUT_MAX) {
				kill(pid, SIGKILL);
				return error_set(err, ERR_LIMIT, 0,
						 "credential helper %s wrote more than %u bytes",
						 prog, HELPER_OUTPUT_MAX);
			}
			strbuf_add(sb, buf, (size_t)n);
		}
	}
	return 0;
}

static int auth_helper_wait(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* `docker-credential-<suffix> get` with the server on stdin.
 * *found = false when the helper says it has nothing for that server. */
static int auth_helper_get(const char *suffix, const char *server, const char *origin,
		      struct registry_creds *c, bool *found, struct error *err)
{
	cleanup_free char *prog = xasprintf("docker-credential-%s", suffix);
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	cleanup_strbuf struct strbuf errout = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	cleanup_close int in_parent = -1, in_child = -1;
	cleanup_close int out_parent = -1, out_child = -1;
	cleanup_close int err_parent = -1, err_child = -1;
	posix_spawn_file_actions_t fa;
	char *argv[] = { prog, (char *)"get", NULL };
	int sv[2], p1[2], p2[2], status = 0, rc;
	const char *user, *secret;
	pid_t pid;

	*found = false;
	if (!*suffix || strchr(suffix, '/'))
		return error_set(err, ERR_DATA, 0, "config.json %s names a bad credential helper \"%s\"",
				 origin, suffix);
	/* stdin is a socket so that writing to a helper that exits without
	 * reading gives EPIPE (MSG_NOSIGNAL), not SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return error_errno(err, "running credential helper %s", prog);
	in_parent = sv[0];
	in_child = sv[1];
	if (pipe2(p1, O_CLOEXEC) < 0)
		return error_errno(err, "running credential helper %s", prog);
	out_parent = p1[0];
	out_child = p1[1];
	if (pipe2(p2, O_CLOEXEC) < 0)
		return error_errno(err, "running credential helper %s", prog);
	err_parent = p2[0];
	err_child = p2[1];

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in_child, 0);
	posix_spawn_file_actions_adddup2(&fa, out_child, 1);
	posix_spawn_file_actions_adddup2(&fa, err_child, 2);
	rc = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		errno = rc;
		error_errno(err, "running credential helper %s (config.json %s)", prog, origin);
		return -1;
	}
	close(steal_fd(&in_child));
	close(steal_fd(&out_child));
	close(steal_fd(&err_child));
	/* A helper may exit before reading: ignore EPIPE, its answer says why. */
	if (send(in_parent, server, strlen(server), MSG_NOSIGNAL) < 0 && errno != EPIPE &&
	    errno != ECONNRESET) {
		kill(pid, SIGKILL);
		auth_helper_wait(pid, &status);
		return error_errno(err, "writing to credential helper %s", prog);
	}
	close(steal_fd(&in_parent));
	rc = auth_helper_collect(prog, pid, out_parent, err_parent, &out, &errout, err);
	if (auth_helper_wait(pid, &status) < 0 && rc == 0)
		return error_errno(err, "waiting for credential helper %s", prog);
	if (rc < 0)
		return rc;
	strbuf_trim_trailing_newline(&out);
	strbuf_trim_trailing_newline(&errout);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (strstr(out.buf, "credentials not found") ||
		    strstr(errout.buf, "credentials not found"))
			return 0;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return error_set(err, ERR_SYSTEM, ENOENT,
					 "credential helper %s (config.json %s) could not run: %s",
					 prog, origin, errout.len ? errout.buf : "not found");
		return error_set(err, ERR_SYSTEM, 0,
				 "credential helper %s (config.json %s) failed for %s: %s",
				 prog, origin, server,
				 out.len ? out.buf : errout.len ? errout.buf : "no message");
	}
	j = cJSON_ParseWithLength(out.buf, out.len);
	if (!cJSON_IsObject(j))
		return error_set(err, ERR_DATA, 0,
				 "credential helper %s answered something that is not a JSON object",
				 prog);
	user = auth_json_str(j, "Username");
	secret = auth_json_str(j, "Secret");
	if (!secret)
		return 0;
	if (user && !strcmp(user, "<token>")) {
		c->identity_token = xstrdup(secret);
	} else {
		c->username = xstrdup(user ? user : "");
		c->password = xstrdup(secret);
	}
	*found = true;
	return 0;
}

static char *auth_config_dir(void)
{
	const char *d = getenv("DOCKER_CONFIG");
	const char *home;

	if (d && *d)
		return xstrdup(d);
	home = getenv("HOME");
	return xasprintf("%s/.docker", home && *home ? home : "/root");
}

/* The credential helper credHelpers names for ref, or NULL. */
static const char *auth_config_helper(const cJSON *cfg, const struct image_ref *ref)
{
	const char *h = json_str_of(auth_lookup(json_obj(cfg, "credHelpers"), ref));

	return h && *h ? h : NULL;
}

static int auth_config_auths(const cJSON *cfg, const char *path, const struct image_ref *ref,
			     struct registry_creds *c, struct error *err)
{
	const cJSON *entry = auth_lookup(json_obj(cfg, "auths"), ref);
	cleanup_free char *where = NULL;

	if (!cJSON_IsObject(entry))
		return 0;
	where = xasprintf("%s auths[\"%s\"]", path, entry->string);
	return auth_creds_from_entry(entry, where, c, err);
}

static int auth_find_creds(const struct image_ref *ref, struct registry_creds *c,
		      struct error *err)
{
	cleanup_free char *dir = auth_config_dir();
	cleanup_free char *path = xasprintf("%s/config.json", dir);
	cleanup_cjson cJSON *cfg = NULL;
	const char *server = image_ref_auth_key(ref);
	const char *helper;
	const char *store;
	bool found = false;

	if (auth_read_config(path, &cfg, err) < 0)
		return -1;
	if (!cfg)
		return 0;
	helper = auth_config_helper(cfg, ref);
	if (helper) {
		if (auth_helper_get(helper, server, "credHelpers", c, &found, err) < 0)
			return -1;
		if (found)
			return 0;
	}
	store = auth_json_str(cfg, "credsStore");
	if (store) {
		if (auth_helper_get(store, server, "credsStore", c, &found, err) < 0)
			return -1;
		if (found)
			return 0;
	}
	return auth_config_auths(cfg, path, ref, c, err);
}

/* The X-Registry-Auth value of c (base64url of the auth JSON). */
static char *auth_header(const struct registry_creds *c, const struct image_ref *ref)
{
	cleanup_cjson cJSON *j = cJSON_CreateObject();
	cleanup_free char *txt = NULL;
	char *out;

	if (c->identity_token) {
		cJSON_AddStringToObject(j, "identitytoken", c->identity_token);
	} else {
		cJSON_AddStringToObject(j, "username", c->username);
		cJSON_AddStringToObject(j, "password", c->password ? c->password : "");
	}
	cJSON_AddStringToObject(j, "serveraddress", image_ref_auth_key(ref));
	txt = cJSON_PrintUnformatted(j);
	if (!txt)
		xdie("out of memory (cJSON_PrintUnformatted)");
	out = engine_base64url_encode(txt, strlen(txt));
	/* The password was in txt; do not leave it in freed memory. */
	explicit_bzero(txt, strlen(txt));
	return out;
}

int registry_auth_header(const struct image_ref *ref, char **out, struct error *err)
{
	struct registry_creds c = { 0 };
	int rc;

	*out = NULL;
	rc = auth_find_creds(ref, &c, err);
	if (rc == 0 && auth_creds_present(&c))
		*out = auth_header(&c, ref);
	auth_creds_release(&c);
	return rc;
}

int registry_credentials(const struct image_ref *ref, char **username, char **password,
			 struct error *err)
{
	struct registry_creds c = { 0 };
	int rc;

	*username = *password = NULL;
	rc = auth_find_creds(ref, &c, err);
	if (rc == 0 && c.identity_token) {
		/* The docker CLI's convention for an identity token over Basic. */
		*username = xstrdup("<token>");
		*password = xstrdup(c.identity_token);
	} else if (rc == 0 && c.username) {
		*username = xstrdup(c.username);
		*password = xstrdup(c.password ? c.password : "");
	}
	auth_creds_release(&c);
	return rc;
}

int registry_auth_from_config_text(const char *text, size_t len, const struct image_ref *ref,
				   char **out, char **helper, struct error *err)
{
	struct registry_creds c = { 0 };
	cleanup_cjson cJSON *cfg = NULL;
	const char *h;
	const char *store;
	int rc;

	*out = NULL;
	*helper = NULL;
	if (auth_parse_config(text, len, "config.json", &cfg, err) < 0)
		return -1;
	h = auth_config_helper(cfg, ref);
	store = auth_json_str(cfg, "credsStore");
	if (h)
		*helper = xstrdup(h);
	else if (store)
		*helper = xstrdup(store);
	rc = auth_config_auths(cfg, "config.json", ref, &c, err);
	if (rc == 0 && auth_creds_present(&c))
		*out = auth_header(&c, ref);
	auth_creds_release(&c);
	return rc;
}
