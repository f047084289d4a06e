/* The registry client's HTTP: one curl easy handle, GET with the auth the
 * last challenge asked for, the Bearer token fetched from the challenge's
 * realm. Bodies are bounded; a registry is not trusted to be small. */
#include "docker/registry/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

#define BODY_MAX (8u << 20)
#define TIMEOUT_S 60L

struct registry_client {
	CURL *curl;
	char *base;        /* "http://127.0.0.1:5000" */
	char *username, *password;
	char *token;       /* Bearer token of token_scope */
	char *token_scope;
	bool basic;        /* the registry asked for Basic */
	unsigned requests;
};

int registry_open(struct registry_client **out, const char *host, const char *username,
		  const char *password, struct error *err)
{
	struct registry_client *c;

	*out = NULL;
	if (!host || !*host || strpbrk(host, "/ \t\r\n?#@"))
		return error_set(err, ERR_USAGE, 0, "registry host '%s' is not host[:port]",
				 host ? host : "");
	c = xcalloc(1, sizeof(*c));
	c->curl = curl_easy_init();
	if (!c->curl) {
		free(c);
		return error_set(err, ERR_SYSTEM, 0, "registry %s: curl_easy_init failed", host);
	}
	c->base = xasprintf("%s://%s", registry_host_is_loopback(host) ? "http" : "https", host);
	c->username = xstrdup_or_null(username);
	c->password = xstrdup_or_null(password);
	*out = c;
	return 0;
}

static void free_secret(char *s)
{
	if (s)
		explicit_bzero(s, strlen(s));
	free(s);
}

void registry_close(struct registry_client *c)
{
	if (!c)
		return;
	curl_easy_cleanup(c->curl);
	free(c->base);
	free(c->username);
	free_secret(c->password);
	free_secret(c->token);
	free(c->token_scope);
	free(c);
}

unsigned registry_requests(const struct registry_client *c)
{
	return c->requests;
}

const char *registry_base(const struct registry_client *c)
{
	return c->base;
}

void registry_response_release(struct registry_response *r)
{
	strbuf_release(&r->body);
	free(r->www_authenticate);
	free(r->link);
	free(r->digest);
	free(r->content_type);
	memset(r, 0, sizeof(*r));
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
	struct registry_response *r = ud;

	if (r->body.len + size * n > BODY_MAX) {
		r->too_big = true;
		return 0;
	}
	strbuf_add(&r->body, data, size * n);
	return size * n;
}

static void keep_header(char **dst, const char *line, size_t len, const char *name)
{
	size_t nl = strlen(name);

	if (len <= nl || strncasecmp(line, name, nl))
		return;
	line += nl;
	len -= nl;
	while (len && (*line == ' ' || *line == '\t'))
		line++, len--;
	while (len && (line[len - 1] == '\r' || line[len - 1] == '\n' || line[len - 1] == ' '))
		len--;
	free(*dst);
	*dst = xstrndup(line, len);
}

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
	struct registry_response *r = ud;
	size_t len = size * n;

	keep_header(&r->www_authenticate, data, len, "WWW-Authenticate:");
	keep_header(&r->link, data, len, "Link:");
	keep_header(&r->digest, data, len, "Docker-Content-Digest:");
	keep_header(&r->content_type, data, len, "Content-Type:");
	return len;
}

/* One GET of url with the given Authorization and Accept. */
static int get_once(struct registry_client *c, const char *url, const char *authorization,
		    bool basic, const char *accept, struct registry_response *r,
		    struct error *err)
{
	struct curl_slist *hdrs = NULL;
	cleanup_free char *auth_h = authorization ? xasprintf("Authorization: %s", authorization)
						  : NULL;
	cleanup_free char *accept_h = accept ? xasprintf("Accept: %s", accept) : NULL;
	char curl_err[CURL_ERROR_SIZE] = "";
	CURLcode rc;

	registry_response_release(r);
	if (auth_h)
		hdrs = curl_slist_append(hdrs, auth_h);
	if (accept_h)
		hdrs = curl_slist_append(hdrs, accept_h);
	curl_easy_reset(c->curl);
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, curl_err);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, TIMEOUT_S);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	/* Blobs redirect to storage; a redirect never carries our credentials
	 * to another host (curl drops Authorization across hosts). */
	curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c->curl, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "hrr-docker-replay-registry");
	if (basic && c->username) {
		curl_easy_setopt(c->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(c->curl, CURLOPT_USERNAME, c->username);
		curl_easy_setopt(c->curl, CURLOPT_PASSWORD, c->password ? c->password : "");
	}
	c->requests++;
	rc = curl_easy_perform(c->curl);
	curl_slist_free_all(hdrs);
	if (rc != CURLE_OK && !r->too_big)
		return error_set(err, ERR_CONNECT, 0, "registry %s: %s", url,
				 curl_err[0] ? curl_err : curl_easy_strerror(rc));
	if (r->too_big)
		return error_set(err, ERR_LIMIT, 0, "registry %s: answer larger than %u bytes", url,
				 BODY_MAX);
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &r->status);
	return 0;
}

/* GET the challenge's realm for a token: {"token": ...} or {"access_token": ...}. */
static int fetch_token(struct registry_client *c, const struct registry_challenge *ch,
		       struct error *err)
{
	struct registry_response r = { 0 };
	cleanup_free char *url = NULL, *svc = NULL, *scope = NULL;
	cleanup_cjson cJSON *j = NULL;
	const char *tok;

	svc = ch->service ? curl_easy_escape(c->curl, ch->service, 0) : NULL;
	scope = ch->scope ? curl_easy_escape(c->curl, ch->scope, 0) : NULL;
	url = xasprintf("%s%sservice=%s%s%s", ch->realm, strchr(ch->realm, '?') ? "&" : "?",
			svc ? svc : "", scope ? "&scope=" : "", scope ? scope : "");
	if (get_once(c, url, NULL, true, "application/json", &r, err) < 0)
		goto fail;
	if (r.status != 200) {
		error_set(err, ERR_HTTP, (int)r.status,
			  "registry token server %s refused a token (HTTP %ld)%s", ch->realm,
			  r.status, c->username ? "; check the credentials in config.json"
						: "; log in to the registry (docker login)");
		goto fail;
	}
	j = cJSON_ParseWithLength(r.body.buf ? r.body.buf : "", r.body.len);
	tok = json_str(j, "token");
	if (!tok)
		tok = json_str(j, "access_token");
	if (!tok || !*tok) {
		error_set(err, ERR_PROTOCOL, 0, "registry token server %s: no token in its answer",
			  ch->realm);
		goto fail;
	}
	free_secret(c->token);
	free(c->token_scope);
	c->token = xstrdup(tok);
	c->token_scope = xstrdup_or_null(ch->scope);
	registry_response_release(&r);
	return 0;
fail:
	registry_response_release(&r);
	return -1;
}

static char *bearer_of(const struct registry_client *c)
{
	return c->token ? xasprintf("Bearer %s", c->token) : NULL;
}

/* Answer a 401's challenge once: the next try carries what it asked for. */
static int answer_challenge(struct registry_client *c, const struct registry_response *r,
			    const char *url, struct error *err)
{
	struct registry_challenge ch;
	int rc;

	if (!r->www_authenticate || registry_challenge_parse(r->www_authenticate, &ch) < 0)
		return error_set(err, ERR_HTTP, 401, "registry %s: HTTP 401 without a usable "
				 "challenge", url);
	if (!ch.bearer) {
		registry_challenge_release(&ch);
		if (!c->username || c->basic)
			return error_set(err, ERR_HTTP, 401,
					 "registry %s refused %s (HTTP 401); log in to it (docker "
					 "login) or check config.json", c->base,
					 c->username ? "the credentials" : "anonymous access");
		c->basic = true;
		return 0;
	}
	rc = fetch_token(c, &ch, err);
	registry_challenge_release(&ch);
	return rc;
}

int registry_get(struct registry_client *c, const char *path, const char *accept,
		 struct registry_response *r, struct error *err)
{
	cleanup_free char *url = path[0] == '/' ? xasprintf("%s%s", c->base, path) : xstrdup(path);

	/* At most: the request, a Basic retry or a token fetch, a retry with
	 * it, and one more when a scope changes under a cached token. */
	for (int attempt = 0; attempt < 3; attempt++) {
		char *authz = bearer_of(c);
		int rc = get_once(c, url, authz, c->basic && !c->token, accept, r, err);

		free_secret(authz);
		if (rc < 0)
			return -1;
		if (r->status != 401)
			return 0;
		if (attempt < 2 && answer_challenge(c, r, url, err) < 0)
			return -1;
	}
	return error_set(err, ERR_HTTP, 401, "registry %s refused %s (HTTP 401); check the "
			 "credentials in config.json", c->base, path);
}
