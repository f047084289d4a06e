/* The archive endpoint: stat a path (HEAD), read one file out of the tar
 * stream (GET, through the tar reader of docker/tar.c), or pass the raw tar
 * on. */
#include "docker/xfer.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

static void archive_path(struct strbuf *sb, const char *id, const char *path)
{
	strbuf_addstr(sb, "/containers/");
	engine_url_add_path(sb, id);
	strbuf_addstr(sb, "/archive");
	engine_url_add_query(sb, "path", path);
}

int engine_container_path_stat(struct engine *e, const char *id, const char *path,
			       struct engine_path_stat *out, struct error *err)
{
	cleanup_strbuf struct strbuf url = STRBUF_INIT;
	cleanup_strbuf struct strbuf json = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	struct engine_stream *s;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	archive_path(&url, id, path);
	s = engine_xfer_new(e, "HEAD", url.buf, false);
	s->want_header = "X-Docker-Container-Path-Stat";
	if (engine_xfer_run(s, NULL, err) < 0)
		goto out;
	if (s->status == 404) {
		error_set(err, ERR_NOT_FOUND, 404, "%s: no such file in container %s", path, id);
		goto out;
	}
	if (s->status != 200) {
		engine_xfer_http_error(s, err);
		goto out;
	}
	if (!s->header_value) {
		error_set(err, ERR_PROTOCOL, 0,
			  "the Docker engine sent no X-Docker-Container-Path-Stat for %s", path);
		goto out;
	}
	if (engine_base64_decode(s->header_value, strlen(s->header_value), &json, err) < 0) {
		error_prefix(err, "X-Docker-Container-Path-Stat of %s: ", path);
		err->kind = ERR_PROTOCOL;
		goto out;
	}
	if (engine_parse_json(json.buf, json.len, s->what, &j, err) < 0)
		goto out;
	if (!cJSON_IsObject(j)) {
		error_set(err, ERR_PROTOCOL, 0, "X-Docker-Container-Path-Stat of %s is not an object",
			  path);
		goto out;
	}
	if (s->podman)
		podman_path_stat_normalize(j, path);
	engine_path_stat_parse(j, out);
	rc = 0;
out:
	engine_stream_free(s);
	return rc;
}

static int archive_tar_sink(struct engine_stream *s, const char *data, size_t len,
			    struct error *err)
{
	int r = engine_tar_feed(s->state, data, len, err);

	return r < 0 ? -1 : r == 1 ? ENGINE_SINK_STOP : 0;
}

static int archive_tar_finish(struct engine_stream *s, struct error *err)
{
	return engine_tar_finish(s->state, err);
}

static void archive_tar_release(void *state)
{
	engine_tar_release(state);
	free(state);
}

static const struct engine_xfer_kind archive_tar_kind = {
	.sink = archive_tar_sink,
	.finish = archive_tar_finish,
	.release = archive_tar_release,
};

/* A single file is small (max_bytes): the request timeout applies. */
int engine_container_read_file(struct engine *e, const char *id, const char *path,
			       size_t max_bytes, struct strbuf *out, struct error *err)
{
	cleanup_strbuf struct strbuf url = STRBUF_INIT;
	struct engine_stream *s;
	struct engine_tar *t = xcalloc(1, sizeof(*t));
	size_t old_len = out->len;
	int rc;

	/* Podman's GET follows a symbolic link where dockerd sends the link:
	 * refuse it as the tar reader refuses dockerd's link entry. */
	if (e->flavour == ENGINE_FLAVOUR_PODMAN) {
		struct engine_path_stat st;

		if (engine_container_path_stat(e, id, path, &st, err) < 0) {
			free(t);
			return -1;
		}
		if (st.link_target) {
			error_set(err, ERR_DATA, 0, "%s is a symbolic link (to %.100s), not a file",
				  path, st.link_target);
			engine_path_stat_release(&st);
			free(t);
			return -1;
		}
		engine_path_stat_release(&st);
	}
	archive_path(&url, id, path);
	s = engine_xfer_new(e, "GET", url.buf, false);
	engine_tar_init(t, out, max_bytes, path);
	engine_xfer_set_kind(s, &archive_tar_kind, t);
	rc = engine_xfer_run(s, NULL, err);
	engine_stream_free(s);
	if (rc < 0 && out->len > old_len)
		strbuf_setlen(out, old_len);
	return rc;
}

struct archive_data {
	engine_data_cb cb;
	void *ud;
};

static int archive_data_sink(struct engine_stream *s, const char *data, size_t len,
			     struct error *err)
{
	struct archive_data *a = s->state;

	if (a->cb(data, len, a->ud))
		return error_set(err, ERR_CANCELLED, 0, "archive stream stopped by its consumer");
	return 0;
}

static const struct engine_xfer_kind archive_data_kind = {
	.sink = archive_data_sink,
	.release = free,
};

int engine_container_get_archive_opts(struct engine *e, const char *id, const char *path,
				      engine_data_cb cb, void *ud,
				      const struct engine_call_opts *opts, struct error *err)
{
	cleanup_strbuf struct strbuf url = STRBUF_INIT;
	struct archive_data *a = xcalloc(1, sizeof(*a));
	struct engine_stream *s;
	int rc;

	archive_path(&url, id, path);
	s = engine_xfer_new(e, "GET", url.buf, false);
	a->cb = cb;
	a->ud = ud;
	engine_xfer_set_kind(s, &archive_data_kind, a);
	/* A whole directory may be large: no overall limit; the caller's
	 * deadline bounds it and cb can stop it. */
	engine_xfer_set_timeout(s, 0);
	rc = engine_xfer_run(s, opts, err);
	engine_stream_free(s);
	return rc;
}

int engine_container_get_archive(struct engine *e, const char *id, const char *path,
				 engine_data_cb cb, void *ud, struct error *err)
{
	return engine_container_get_archive_opts(e, id, path, cb, ud, NULL, err);
}
