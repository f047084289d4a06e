/* exec: create, start attached (framed output until the process ends),
 * then read the exit code. */
#include "docker/xfer.h"

#include <limits.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

/* After the output stream closes the engine may still mark the exec as
 * running for a moment. */
#define EXEC_SETTLE_MS 10000

static int exec_inspect_exit(struct engine *e, const char *exec_id, long *exit_code,
			     struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	struct timespec pause = { 0, 10 * 1000 * 1000 };

	strbuf_addstr(&path, "/exec/");
	engine_url_add_path(&path, exec_id);
	strbuf_addstr(&path, "/json");
	for (int waited = 0;; waited += 10) {
		cleanup_cjson cJSON *j = NULL;
		const cJSON *code;

		if (engine_request_json(e, "GET", path.buf, NULL, ok, true, 0, &j, err) < 0)
			return -1;
		code = json_get(j, "ExitCode");
		if (!json_bool(j, "Running", false) && cJSON_IsNumber(code)) {
			*exit_code = (long)json_int_of(code, INT_MIN, INT_MAX, -1);
			return 0;
		}
		if (waited >= EXEC_SETTLE_MS)
			return error_set(err, ERR_PROTOCOL, 0,
					 "exec %s still running %d s after its output ended",
					 exec_id, EXEC_SETTLE_MS / 1000);
		nanosleep(&pause, NULL);
	}
}

int engine_exec_opts(struct engine *e, const char *container_id, const struct strvec *cmd,
		     const char *user, bool privileged, engine_frame_cb cb, void *ud,
		     const struct engine_call_opts *opts, long *exit_code, struct error *err)
{
	static const long created[] = { 201, 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	cleanup_cjson cJSON *body = cJSON_CreateObject();
	cleanup_cjson cJSON *ans = NULL;
	cleanup_cjson cJSON *start = cJSON_CreateObject();
	cleanup_free char *exec_id = NULL;
	struct engine_stream *s;
	const char *id;
	cJSON *argv;
	int rc;

	if (!cmd->n)
		return error_set(err, ERR_USAGE, 0, "exec in %s: empty command", container_id);
	argv = cJSON_AddArrayToObject(body, "Cmd");
	for (size_t i = 0; i < cmd->n; i++)
		cJSON_AddItemToArray(argv, cJSON_CreateString(cmd->v[i]));
	cJSON_AddBoolToObject(body, "AttachStdin", false);
	cJSON_AddBoolToObject(body, "AttachStdout", true);
	cJSON_AddBoolToObject(body, "AttachStderr", true);
	cJSON_AddBoolToObject(body, "Tty", false);
	cJSON_AddBoolToObject(body, "Privileged", privileged);
	if (user && *user)
		cJSON_AddStringToObject(body, "User", user);
	strbuf_addstr(&path, "/containers/");
	engine_url_add_path(&path, container_id);
	strbuf_addstr(&path, "/exec");
	if (engine_request_json(e, "POST", path.buf, body, created, true, 0, &ans, err) < 0)
		return -1;
	id = json_str(ans, "Id");
	if (!id || !*id)
		return error_set(err, ERR_PROTOCOL, 0,
				 "the Docker engine created an exec in %s but sent no Id",
				 container_id);
	exec_id = xstrdup(id);

	strbuf_reset(&path);
	strbuf_addstr(&path, "/exec/");
	engine_url_add_path(&path, exec_id);
	strbuf_addstr(&path, "/start");
	cJSON_AddBoolToObject(start, "Detach", false);
	cJSON_AddBoolToObject(start, "Tty", false);
	s = engine_xfer_new(e, "POST", path.buf, false);
	engine_xfer_set_json(s, start);
	/* The command may run as long as it likes: the caller's deadline
	 * bounds it and cb can stop it. */
	engine_xfer_set_stdio(s, false, cb, ud);
	rc = engine_xfer_run(s, opts, err);
	engine_stream_free(s);
	if (rc < 0)
		return -1;
	return exec_inspect_exit(e, exec_id, exit_code, err);
}

int engine_exec(struct engine *e, const char *container_id, const struct strvec *cmd,
		const char *user, bool privileged, engine_frame_cb cb, void *ud,
		long *exit_code, struct error *err)
{
	return engine_exec_opts(e, container_id, cmd, user, privileged, cb, ud, NULL,
				exit_code, err);
}
