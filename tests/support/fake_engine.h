/* A fake Docker engine for fault tests: a thread serving canned raw HTTP
 * answers on a unix socket, one request at a time, closing each connection
 * after its answer unless keep-alive is asked for. Point engine_open() at
 * fake_engine_host(). */
#ifndef HRR_TESTS_SUPPORT_FAKE_ENGINE_H
#define HRR_TESTS_SUPPORT_FAKE_ENGINE_H

#include <stddef.h>

struct fake_engine;

/* Aborts the test (cr_assert) when it cannot listen. */
struct fake_engine *fake_engine_start(void);
/* Stops the thread, removes the socket; NULL is fine. */
void fake_engine_stop(struct fake_engine *fe);
/* "unix:///tmp/hrr-fake-XXXXXX/engine.sock" */
const char *fake_engine_host(const struct fake_engine *fe);

/* Requests whose "METHOD /path?query" starts with prefix get exactly the
 * bytes raw[0..len) (status line, headers, body) and then EOF. The route
 * added last wins. Unmatched requests get a 404 JSON answer. */
void fake_engine_route(struct fake_engine *fe, const char *prefix, const void *raw,
		       size_t len);
void fake_engine_route_str(struct fake_engine *fe, const char *prefix, const char *raw);
/* A well-formed answer with Content-Length and, when given, one extra
 * header line ("Api-Version: 1.45"). */
void fake_engine_route_json(struct fake_engine *fe, const char *prefix, int status,
			    const char *extra_header, const char *body);

/* A request matching prefix is read and never answered (an engine that
 * stopped, e.g. SIGSTOP): its connection stays open until the client
 * closes it. */
void fake_engine_route_hang(struct fake_engine *fe, const char *prefix);
/* From now on: route_json answers without "Connection: close" and a
 * connection stays open for the next request unless an answer carries
 * "Connection: close". Call before adding routes. */
void fake_engine_keep_alive(struct fake_engine *fe);
/* How many connections the fake engine accepted so far. */
size_t fake_engine_connection_count(struct fake_engine *fe);

/* How many requests were served, and a copy of request i's head and body
 * (caller frees). */
size_t fake_engine_request_count(struct fake_engine *fe);
char *fake_engine_request(struct fake_engine *fe, size_t i);
/* The first recorded request whose line starts with prefix, or NULL
 * (caller frees). */
char *fake_engine_find_request(struct fake_engine *fe, const char *prefix);

#endif
