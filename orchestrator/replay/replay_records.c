#include "orchestrator/replay/replay_records.h"
#include "common/cleanup.h"
#include "common/clock.h"
#include "common/fsutil.h"
#include "common/json.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "common/version.h"
#include "orchestrator/seccomp/seccomp_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *timings_json(const struct unit_run *pr)
{
	cJSON *t = cJSON_CreateObject();
	const struct replay_result *r = &pr->result;

	cJSON_AddNumberToObject(t, "pull_s", pr->desc->image->pull_s);
	if (pr->replayed) {
		cJSON_AddNumberToObject(t, "create_s", r->create_s);
		cJSON_AddNumberToObject(t, "start_s", r->start_s);
		if (r->first_output_s >= 0)
			cJSON_AddNumberToObject(t, "first_output_s", r->first_output_s);
		else
			cJSON_AddNullToObject(t, "first_output_s");
		cJSON_AddNumberToObject(t, "exit_s", r->exit_s);
		cJSON_AddNumberToObject(t, "remove_s", r->remove_s);
		cJSON_AddNumberToObject(t, "collect_s", pr->collect_s);
		cJSON_AddStringToObject(t, "container_started_at", r->started_at);
		cJSON_AddStringToObject(t, "container_finished_at", r->finished_at);
	}
	cJSON_AddNumberToObject(t, "wall_s", monotonic_now() - pr->t_begin);
	return t;
}

/* The create body as sent, but for the values of --env variables: run.json
 * may be read by others (a team's run folders), and -e is how secrets
 * reach a replay. Their names stay, so the record still says what was set. */
static cJSON *spec_without_secrets(cJSON *spec, const struct strvec *user_env)
{
	cJSON *env = cJSON_GetObjectItemCaseSensitive(spec, "Env");
	cJSON *e;

	cJSON_ArrayForEach(e, env) {
		for (size_t i = 0; user_env && cJSON_IsString(e) && i < user_env->n; i++) {
			const char *eq = strchr(user_env->v[i], '=');

			if (eq && strcmp(e->valuestring, user_env->v[i]) == 0) {
				cleanup_free char *masked = xasprintf("%.*s=<not recorded>",
								      (int)(eq - user_env->v[i]),
								      user_env->v[i]);

				cJSON_SetValuestring(e, masked);
				break;
			}
		}
	}
	return spec;
}

/* The preflight's verdict and the replay side it described, as
 * preflight.md says it for people: kept in the record for its readers (a
 * bisection's answer), who never read preflight.md's words back. */
static void records_add_preflight(cJSON *root, const struct preflight_report *p)
{
	if (!p)
		return;
	cJSON_AddStringToObject(root, "preflight", preflight_verdict_name(p->verdict));
	cJSON_AddStringToObject(root, "replay_stack",
				p->replay_side.len ? p->replay_side.buf : "unknown");
}

void records_write_run_json(const struct unit_run *pr)
{
	const struct image_facts *im = pr->desc->image;
	cleanup_cjson cJSON *root = cJSON_CreateObject();
	cJSON *img = cJSON_AddObjectToObject(root, "image");
	cJSON *gpus = cJSON_AddArrayToObject(root, "gpus");
	cJSON *devs = cJSON_AddArrayToObject(root, "devices");
	cJSON *c, *ex, *orch;
	cleanup_free char *text = NULL;
	cleanup_free char *path = NULL;
	struct error err;

	cJSON_AddStringToObject(root, "run_id", pr->run_id);
	cJSON_AddStringToObject(root, "run_dir", pr->run_dir);
	cJSON_AddStringToObject(root, "archive", pr->desc->pid_dir);
	cJSON_AddStringToObject(root, "started", pr->started);
	cJSON_AddStringToObject(img, "ref", im->ref);
	json_add_str_or_null(img, "id", im->id);
	json_add_str_or_null(img, "digest", im->digest);
	cJSON_AddBoolToObject(img, "pulled", im->pulled);
	for (size_t i = 0; i < pr->n_chosen; i++)
		cJSON_AddItemToArray(gpus, cJSON_CreateNumber(pr->chosen[i]));
	for (size_t i = 0; i < pr->n_devices; i++) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddStringToObject(d, "host", pr->devices[i].host_path);
		cJSON_AddStringToObject(d, "container", pr->devices[i].container_path);
		cJSON_AddNumberToObject(d, "gid", (double)pr->devices[i].gid);
		cJSON_AddItemToArray(devs, d);
	}
	if (pr->playback)
		cJSON_AddStringToObject(root, "playback", pr->playback);
	cJSON_AddBoolToObject(root, "overlay", pr->desc->overlay != NULL);
	records_add_preflight(root, pr->preflight);
	c = cJSON_AddObjectToObject(root, "container");
	if (pr->container_name)
		cJSON_AddStringToObject(c, "name", pr->container_name);
	json_add_str_or_null(c, "id", pr->result.container_id);
	cJSON_AddBoolToObject(c, "kept", pr->desc->keep);
	if (pr->devices_how) {
		cJSON *dv = cJSON_AddObjectToObject(c, "devices");

		cJSON_AddStringToObject(dv, "via", pr->devices_how);
		if (pr->cdi_devices.n)
			cJSON_AddItemToObject(dv, "cdi", cJSON_CreateStringArray(
				(const char *const *)pr->cdi_devices.v, (int)pr->cdi_devices.n));
		if (pr->devices_note[0])
			cJSON_AddStringToObject(dv, "note", pr->devices_note);
	}
	cJSON_AddBoolToObject(c, "removed", pr->result.removed);
	if (pr->seccomp_record)
		cJSON_AddItemToObject(root, "seccomp", seccomp_record_to_json(pr->seccomp_record));
	if (pr->spec)
		cJSON_AddItemToObject(c, "spec", spec_without_secrets(container_spec_to_json(pr->spec),
								      pr->desc->env));
	else
		cJSON_AddNullToObject(c, "spec");
	cJSON_AddItemToObject(root, "timings", timings_json(pr));
	ex = cJSON_AddObjectToObject(root, "exit");
	if (pr->replayed) {
		if (pr->result.exit_code >= 0)
			cJSON_AddNumberToObject(ex, "container_status", (double)pr->result.exit_code);
		else
			cJSON_AddNullToObject(ex, "container_status");
		cJSON_AddStringToObject(ex, "ended_by", finding_ended_by_name(pr->result.ended_by));
		if (pr->result.signal > 0)
			cJSON_AddNumberToObject(ex, "signal", pr->result.signal);
		else
			cJSON_AddNullToObject(ex, "signal");
		cJSON_AddBoolToObject(ex, "oom_killed", pr->result.oom_killed);
		cJSON_AddBoolToObject(ex, "log_complete", !pr->result.log_incomplete);
		cJSON_AddNumberToObject(ex, "log_dropped", (double)pr->result.log_dropped);
	}
	cJSON_AddNumberToObject(ex, "code", pr->exit_code);
	if (pr->stop_reason)
		cJSON_AddStringToObject(ex, "stopped_before_replay", pr->stop_reason);
	orch = cJSON_AddObjectToObject(root, "orchestrator");
	cJSON_AddStringToObject(orch, "version", HRR_DOCKER_REPLAY_VERSION);
	cJSON_AddStringToObject(orch, "owner", pr->host->owner);
	cJSON_AddStringToObject(orch, "engine", engine_host(pr->host->engine));
	cJSON_AddStringToObject(orch, "api_version", engine_api_version(pr->host->engine));
	cJSON_AddStringToObject(orch, "engine_name", engine_name(pr->host->engine));
	cJSON_AddStringToObject(orch, "engine_version", engine_server_version(pr->host->engine));
	if (pr->host->engine_drops_limits)
		cJSON_AddStringToObject(orch, "engine_limits", REPLAY_LIMITS_DROPPED);

	text = cJSON_Print(root);
	path = xasprintf("%s/run.json", pr->run_dir);
	if (fs_write_atomic(path, text, strlen(text), 0644, &err) < 0)
		strvec_push(pr->warnings, err.msg);
}

char *records_write_preflight(const char *run_dir, const struct preflight_report *r,
			      struct strvec *warnings)
{
	struct strbuf md = STRBUF_INIT;
	cleanup_free char *path = xasprintf("%s/preflight.md", run_dir);
	struct error err;

	preflight_render_markdown(r, &md);
	if (fs_write_atomic(path, md.buf, md.len, 0644, &err) < 0)
		strvec_push(warnings, err.msg);
	return strbuf_detach(&md, NULL);
}

void records_write_finding(const char *run_dir, const char *markdown, const char *json,
			   struct strvec *warnings)
{
	cleanup_free char *md_path = xasprintf("%s/finding.md", run_dir);
	cleanup_free char *json_path = xasprintf("%s/finding.json", run_dir);
	struct error err;

	if (fs_write_atomic(md_path, markdown, strlen(markdown), 0644, &err) < 0 ||
	    fs_write_atomic(json_path, json, strlen(json), 0644, &err) < 0)
		strvec_push(warnings, err.msg);
}
