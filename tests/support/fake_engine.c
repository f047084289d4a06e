#include "tests/support/fake_engine.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#define FAKE_REQUEST_MAX (1u << 20)
#define FAKE_CONN_MAX 16

struct fake_route {
	char *prefix;
	struct strbuf raw;
	bool hang; /* read the request, never answer */
};

struct fake_engine {
	char dir[32];
	char path[64];
	char host[160];
	int listen_fd;
	int stop_pipe[2];
	pthread_t thread;
	pthread_mutex_t lock;
	struct fake_route *routes;
	size_t n_routes;
	struct strvec requests;
	bool keep_alive;
	size_t accepted;
	int conns[FAKE_CONN_MAX];
	size_t n_conns;
};

/* Read one request: head up to the blank line, then Content-Length bytes,
 * so that closing afterwards never resets unread data. */
static int fake_read_request(int fd, struct strbuf *req)
{
	char buf[4096];
	size_t head_end = 0, want = 0;

	for (;;) {
		ssize_t n;

		if (!head_end) {
			char *p = strstr(req->buf, "\r\n\r\n");

			if (p) {
				const char *cl;

				head_end = (size_t)(p - req->buf) + 4;
				cl = strcasestr(req->buf, "\r\nContent-Length:");
				if (cl && cl < p)
					want = strtoul(cl + 17, NULL, 10);
			}
		}
		if (head_end && req->len >= head_end + want)
			return 0;
		if (req->len > FAKE_REQUEST_MAX)
			return -1;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		strbuf_add(req, buf, (size_t)n);
	}
}

static void fake_write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

/* Serves one request on fd; returns true when the connection stays open
 * for the next one (keep-alive mode, an answer without "Connection:
 * close", or a route that never answers). */
static bool fake_serve(struct fake_engine *fe, int fd)
{
	struct strbuf req = STRBUF_INIT;
	struct strbuf answer = STRBUF_INIT;
	const char *sp1, *sp2;
	size_t line_len = 0;
	bool matched = false, hang = false, keep = false;

	if (fake_read_request(fd, &req) < 0)
		goto out;
	sp1 = strchr(req.buf, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (sp2)
		line_len = (size_t)(sp2 - req.buf);
	pthread_mutex_lock(&fe->lock);
	strvec_push(&fe->requests, req.buf);
	for (size_t i = fe->n_routes; i-- > 0;) {
		const struct fake_route *r = &fe->routes[i];
		size_t plen = strlen(r->prefix);

		if (plen <= line_len && !strncmp(req.buf, r->prefix, plen)) {
			strbuf_add(&answer, r->raw.buf, r->raw.len);
			hang = r->hang;
			matched = true;
			break;
		}
	}
	keep = fe->keep_alive;
	pthread_mutex_unlock(&fe->lock);
	if (hang) {
		keep = true;
		goto out;
	}
	if (!matched) {
		static const char body[] = "{\"message\":\"fake engine: no route\"}";

		strbuf_addf(&answer,
			    "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
			    "Content-Length: %zu\r\n%s\r\n%s",
			    sizeof(body) - 1, keep ? "" : "Connection: close\r\n", body);
	}
	fake_write_all(fd, answer.buf, answer.len);
	if (keep && !strcasestr(answer.buf, "\r\nConnection: close\r\n"))
		goto out;
	keep = false;
	shutdown(fd, SHUT_WR);
out:
	strbuf_release(&req);
	strbuf_release(&answer);
	return keep;
}

static void fake_close_conn(struct fake_engine *fe, size_t i)
{
	close(fe->conns[i]);
	fe->conns[i] = fe->conns[--fe->n_conns];
}

static void fake_accept(struct fake_engine *fe)
{
	int fd = accept4(fe->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	pthread_mutex_lock(&fe->lock);
	fe->accepted++;
	pthread_mutex_unlock(&fe->lock);
	if (fe->n_conns == FAKE_CONN_MAX)
		fake_close_conn(fe, 0);
	fe->conns[fe->n_conns++] = fd;
}

/* Every open connection is watched, so a client that keeps one idle
 * while it opens another is served on both. */
static void *fake_thread(void *arg)
{
	struct fake_engine *fe = arg;

	for (;;) {
		struct pollfd p[2 + FAKE_CONN_MAX];
		size_t n = fe->n_conns;

		p[0] = (struct pollfd){ fe->listen_fd, POLLIN, 0 };
		p[1] = (struct pollfd){ fe->stop_pipe[0], POLLIN, 0 };
		for (size_t i = 0; i < n; i++)
			p[2 + i] = (struct pollfd){ fe->conns[i], POLLIN, 0 };
		if (poll(p, 2 + n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		for (size_t i = n; i-- > 0;)
			if (p[2 + i].revents && !fake_serve(fe, fe->conns[i]))
				fake_close_conn(fe, i);
		if (p[0].revents)
			fake_accept(fe);
	}
	while (fe->n_conns)
		fake_close_conn(fe, 0);
	return NULL;
}

struct fake_engine *fake_engine_start(void)
{
	struct fake_engine *fe = xcalloc(1, sizeof(*fe));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(fe->dir, sizeof(fe->dir), "/tmp/hrr-fake-XXXXXX");
	cr_assert(mkdtemp(fe->dir), "mkdtemp: %s", strerror(errno));
	snprintf(fe->path, sizeof(fe->path), "%s/engine.sock", fe->dir);
	snprintf(fe->host, sizeof(fe->host), "unix://%s", fe->path);
	cr_assert_lt(strlen(fe->path), sizeof(sa.sun_path));
	memcpy(sa.sun_path, fe->path, strlen(fe->path) + 1);
	fe->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert(fe->listen_fd >= 0);
	cr_assert(bind(fe->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "bind: %s",
		  strerror(errno));
	cr_assert(listen(fe->listen_fd, 16) == 0);
	cr_assert(pipe2(fe->stop_pipe, O_CLOEXEC) == 0);
	pthread_mutex_init(&fe->lock, NULL);
	strvec_init(&fe->requests);
	cr_assert(pthread_create(&fe->thread, NULL, fake_thread, fe) == 0);
	return fe;
}

void fake_engine_stop(struct fake_engine *fe)
{
	if (!fe)
		return;
	(void)!write(fe->stop_pipe[1], "x", 1);
	pthread_join(fe->thread, NULL);
	close(fe->stop_pipe[0]);
	close(fe->stop_pipe[1]);
	close(fe->listen_fd);
	unlink(fe->path);
	rmdir(fe->dir);
	for (size_t i = 0; i < fe->n_routes; i++) {
		free(fe->routes[i].prefix);
		strbuf_release(&fe->routes[i].raw);
	}
	free(fe->routes);
	strvec_clear(&fe->requests);
	pthread_mutex_destroy(&fe->lock);
	free(fe);
}

const char *fake_engine_host(const struct fake_engine *fe)
{
	return fe->host;
}

void fake_engine_route(struct fake_engine *fe, const char *prefix, const void *raw,
		       size_t len)
{
	struct fake_route *r;

	pthread_mutex_lock(&fe->lock);
	fe->routes = xrealloc(fe->routes, (fe->n_routes + 1) * sizeof(*fe->routes));
	r = &fe->routes[fe->n_routes++];
	r->prefix = xstrdup(prefix);
	r->hang = false;
	strbuf_init(&r->raw, 0);
	strbuf_add(&r->raw, raw, len);
	pthread_mutex_unlock(&fe->lock);
}

void fake_engine_route_hang(struct fake_engine *fe, const char *prefix)
{
	fake_engine_route(fe, prefix, "", 0);
	pthread_mutex_lock(&fe->lock);
	fe->routes[fe->n_routes - 1].hang = true;
	pthread_mutex_unlock(&fe->lock);
}

void fake_engine_keep_alive(struct fake_engine *fe)
{
	pthread_mutex_lock(&fe->lock);
	fe->keep_alive = true;
	pthread_mutex_unlock(&fe->lock);
}

size_t fake_engine_connection_count(struct fake_engine *fe)
{
	size_t n;

	pthread_mutex_lock(&fe->lock);
	n = fe->accepted;
	pthread_mutex_unlock(&fe->lock);
	return n;
}

void fake_engine_route_str(struct fake_engine *fe, const char *prefix, const char *raw)
{
	fake_engine_route(fe, prefix, raw, strlen(raw));
}

void fake_engine_route_json(struct fake_engine *fe, const char *prefix, int status,
			    const char *extra_header, const char *body)
{
	struct strbuf sb = STRBUF_INIT;
	bool keep;

	pthread_mutex_lock(&fe->lock);
	keep = fe->keep_alive;
	pthread_mutex_unlock(&fe->lock);
	strbuf_addf(&sb, "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n", status);
	if (extra_header)
		strbuf_addf(&sb, "%s\r\n", extra_header);
	strbuf_addf(&sb, "Content-Length: %zu\r\n%s\r\n%s", strlen(body),
		    keep ? "" : "Connection: close\r\n", body);
	fake_engine_route(fe, prefix, sb.buf, sb.len);
	strbuf_release(&sb);
}

size_t fake_engine_request_count(struct fake_engine *fe)
{
	size_t n;

	pthread_mutex_lock(&fe->lock);
	n = fe->requests.n;
	pthread_mutex_unlock(&fe->lock);
	return n;
}

char *fake_engine_request(struct fake_engine *fe, size_t i)
{
	char *r = NULL;

	pthread_mutex_lock(&fe->lock);
	if (i < fe->requests.n)
		r = xstrdup(fe->requests.v[i]);
	pthread_mutex_unlock(&fe->lock);
	return r;
}

char *fake_engine_find_request(struct fake_engine *fe, const char *prefix)
{
	char *r = NULL;

	pthread_mutex_lock(&fe->lock);
	for (size_t i = 0; i < fe->requests.n && !r; i++)
		if (!strncmp(fe->requests.v[i], prefix, strlen(prefix)))
			r = xstrdup(fe->requests.v[i]);
	pthread_mutex_unlock(&fe->lock);
	return r;
}
