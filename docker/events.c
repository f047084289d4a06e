/* The events endpoint, GET /events: newline-delimited event objects, each
 * handed to the caller's callback as it arrives. */
#include "docker/xfer.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

struct events_state {
	struct engine_lines lines; /* first: engine_xfer_lines_sink() */
	bool podman;               /* events renamed as dockerd's */
	engine_event_cb cb;
	void *ud;
	const char *what; /* the transfer's, for messages */
};

static int events_line(const char *line, size_t len, void *ud, struct error *err)
{
	struct events_state *ev = ud;
	cleanup_cjson cJSON *j = cJSON_ParseWithLength(line, len);
	struct engine_event event;
	int stop;

	if (!cJSON_IsObject(j))
		return error_set(err, ERR_PROTOCOL, 0, "%s: malformed event from the Docker engine",
				 ev->what);
	if (ev->podman && !podman_event_normalize(j))
		return 0;
	engine_event_parse(j, &event);
	stop = ev->cb(&event, ev->ud);
	engine_labels_release(&event.attributes);
	if (stop)
		return error_set(err, ERR_CANCELLED, 0, "event stream stopped by its consumer");
	return 0;
}

static void events_release(void *state)
{
	struct events_state *ev = state;

	engine_lines_release(&ev->lines);
	free(ev);
}

static const struct engine_xfer_kind events_kind = {
	.sink = engine_xfer_lines_sink,
	.finish = engine_xfer_lines_finish,
	.release = events_release,
};

int engine_events_stream(struct engine *e, const char *filters_json, long long since,
			 long long until, engine_event_cb cb, void *ud,
			 struct engine_stream **out, struct error *err)
{
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	struct events_state *ev = xcalloc(1, sizeof(*ev));
	struct engine_stream *s;
	char num[32];

	(void)err;
	strbuf_addstr(&path, "/events");
	if (since > 0) {
		snprintf(num, sizeof(num), "%lld", since);
		engine_url_add_query(&path, "since", num);
	}
	if (until > 0) {
		snprintf(num, sizeof(num), "%lld", until);
		engine_url_add_query(&path, "until", num);
	}
	if (filters_json && *filters_json)
		engine_url_add_query(&path, "filters", filters_json);
	s = engine_xfer_new(e, "GET", path.buf, false);
	ev->podman = s->podman;
	ev->cb = cb;
	ev->ud = ud;
	ev->what = s->what;
	engine_lines_init(&ev->lines, ENGINE_LINE_MAX, events_line, ev);
	engine_xfer_set_kind(s, &events_kind, ev);
	engine_xfer_set_timeout(s, 0);
	*out = s;
	return 0;
}
