#include "orchestrator/replay/replay_plan.h"
#include "orchestrator/replay/diagnose.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plan_devices(const char *device_root, const struct gpu_topology *host,
		  const int *chosen, size_t n_chosen, struct plan_device **out, size_t *n_out)
{
	struct plan_device *d = xcalloc(n_chosen + 1, sizeof(*d));
	size_t n = 0;

	d[n].host_path = xasprintf("%s/kfd", device_root);
	d[n].container_path = xstrdup("/dev/kfd");
	d[n].gid = (gid_t)-1;
	n++;
	for (size_t i = 0; i < n_chosen; i++) {
		const struct gpu_node *g = &host->gpus[chosen[i]];

		if (g->drm_render_minor < 0)
			continue;
		d[n].host_path = xasprintf("%s/dri/renderD%d", device_root, g->drm_render_minor);
		d[n].container_path = xasprintf("/dev/dri/renderD%d", g->drm_render_minor);
		d[n].gid = (gid_t)-1;
		n++;
	}
	*out = d;
	*n_out = n;
}

void plan_devices_free(struct plan_device *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++) {
		free(d[i].host_path);
		free(d[i].container_path);
	}
	free(d);
}

void overlay_paths_release(struct overlay_paths *o)
{
	free(o->host_playback);
	free(o->clr_lib);
	free(o->rocr_lib);
	memset(o, 0, sizeof(*o));
}

const char *env_list_get(const struct strvec *env, const char *key)
{
	long i = env ? strvec_find_key(env, key) : -1;

	return i < 0 ? NULL : env->v[i] + strlen(key) + 1;
}

static void push_unique(struct strvec *out, const char *dir, size_t len)
{
	if (!len)
		return;
	for (size_t i = 0; i < out->n; i++)
		if (strlen(out->v[i]) == len && !strncmp(out->v[i], dir, len))
			return;
	strvec_push_nodup(out, xstrndup(dir, len));
}

static bool is_vllm_image(const char *repository)
{
	return repository && (!strcmp(repository, "rocm/vllm") ||
			      !strcmp(repository, "library/rocm/vllm"));
}

static void add_image_dirs(const struct strvec *extra_ld, const char *image_repository,
			   const struct strvec *image_env, struct strvec *out)
{
	const char *ld;

	if (extra_ld && extra_ld->n) {
		for (size_t i = 0; i < extra_ld->n; i++)
			push_unique(out, extra_ld->v[i], strlen(extra_ld->v[i]));
	} else if (is_vllm_image(image_repository)) {
		push_unique(out, VLLM_EXTRA_LD, strlen(VLLM_EXTRA_LD));
	}
	push_unique(out, "/opt/rocm/lib", strlen("/opt/rocm/lib"));
	ld = env_list_get(image_env, "LD_LIBRARY_PATH");
	while (ld && *ld) {
		size_t len = strcspn(ld, ":");

		push_unique(out, ld, len);
		ld += len;
		if (*ld)
			ld++;
	}
}

void plan_image_library_dirs(const struct strvec *extra_ld, const char *image_repository,
			     const struct strvec *image_env, struct strvec *out)
{
	add_image_dirs(extra_ld, image_repository, image_env, out);
}

void plan_library_dirs(const struct strvec *extra_ld, const char *image_repository,
		       const struct strvec *image_env, bool overlay, struct strvec *out)
{
	if (overlay) {
		push_unique(out, OVERLAY_LIB, strlen(OVERLAY_LIB));
		push_unique(out, OVERLAY_ROCR, strlen(OVERLAY_ROCR));
	}
	add_image_dirs(extra_ld, image_repository, image_env, out);
}

static void join(struct strbuf *sb, const struct strvec *v, const char *sep)
{
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			strbuf_addstr(sb, sep);
		strbuf_addstr(sb, v->v[i]);
	}
}

/* What the replay and its --info share: image, entrypoint, the pid
 * directory, labels, the overlay mounts, the hardening. */
static void plan_common(const struct replay_plan_input *in, struct container_spec *s,
			const char *target, bool keep)
{
	struct ours_labels labels = { .run_id = in->run_id, .owner = in->owner,
				      .archive = in->archive_label, .image = in->image_ref,
				      .keep = keep };

	s->image = xstrdup(in->image_id ? in->image_id : in->image_ref);
	strvec_push(&s->entrypoint, in->playback);
	ours_add_labels(s, &labels);
	container_spec_add_mount(s, in->pid_dir, target, true);
	if (in->overlay) {
		container_spec_add_mount(s, in->overlay->host_playback, OVERLAY_PLAYBACK, true);
		container_spec_add_mount(s, in->overlay->clr_lib, OVERLAY_LIB, true);
		if (in->overlay->rocr_lib)
			container_spec_add_mount(s, in->overlay->rocr_lib, OVERLAY_ROCR, true);
	}
	ours_harden(s);
	if (in->user)
		s->user = xstrdup(in->user);
	if (in->seccomp_profile)
		s->seccomp_profile = xstrdup(in->seccomp_profile);
	if (in->seccomp_opt)
		strvec_push(&s->security_opt, in->seccomp_opt);
}

static void add_devices(const struct replay_plan_input *in, struct container_spec *s)
{
	for (size_t i = 0; i < in->n_devices; i++) {
		const struct plan_device *d = &in->devices[i];
		bool seen = false;
		/* devices[0] is /dev/kfd, the rest the render nodes */
		bool by_cdi = in->cdi_devices && in->cdi_devices->n && (i > 0 || in->kfd_from_cdi);

		if (!by_cdi)
			container_spec_add_device(s, d->host_path, d->container_path, "rwm");
		if (d->gid == (gid_t)-1 || d->gid == 0)
			continue;
		for (size_t j = 0; j < s->group_add.n; j++)
			if ((gid_t)strtoul(s->group_add.v[j], NULL, 10) == d->gid)
				seen = true;
		if (!seen)
			strvec_pushf(&s->group_add, "%u", (unsigned)d->gid);
	}
	for (size_t i = 0; in->cdi_devices && i < in->cdi_devices->n; i++)
		strvec_push(&s->cdi_devices, in->cdi_devices->v[i]);
}

/* The replay's LD_LIBRARY_PATH: hrr-playback is linked against HIP, so
 * even `--info` and `--help` need the loader to find it where the replay
 * does (the overlay, --extra-ld, the image's SDK directories). */
static void add_library_path(const struct replay_plan_input *in, struct container_spec *s)
{
	cleanup_strvec struct strvec dirs = STRVEC_INIT;
	cleanup_strbuf struct strbuf sb = STRBUF_INIT;

	plan_library_dirs(in->knobs ? in->knobs->extra_ld : NULL, in->image_repository,
			  in->image_env, in->overlay != NULL, &dirs);
	strbuf_addstr(&sb, "LD_LIBRARY_PATH=");
	join(&sb, &dirs, ":");
	strvec_push(&s->env, sb.buf);
}

static int add_replacements(const struct kernel_replacements *k, struct container_spec *s,
			    struct error *err)
{
	for (size_t i = 0; k && i < k->n; i++) {
		cleanup_strbuf struct strbuf inside = STRBUF_INIT;

		/* A sweep attaches its own copy before any replay. */
		if (!k->v[i].host_path)
			return error_set(err, ERR_USAGE, 0, "replay plan: no code object for kernel %s",
					 k->v[i].name);
		kernel_replacement_mount_path(&k->v[i], &inside);
		container_spec_add_mount(s, k->v[i].host_path, inside.buf, true);
		strvec_push(&s->cmd, "--replace-kernel");
		strvec_pushf(&s->cmd, "%s=%s", k->v[i].name, inside.buf);
	}
	return 0;
}

int replay_plan_build(const struct replay_plan_input *in, struct container_spec *s,
		      struct error *err)
{
	const struct replay_plan_knobs *k = in->knobs;
	cleanup_strbuf struct strbuf sb = STRBUF_INIT;
	cleanup_free char *target = NULL;

	if (!in->playback || in->playback[0] != '/')
		return error_set(err, ERR_USAGE, 0, "replay plan: no hrr-playback path");
	target = xasprintf("%s/%s", ARCHIVE_MOUNT_ROOT, in->pid_name);
	plan_common(in, s, target, k->keep);
	if (!k->no_sync)
		strvec_push(&s->cmd, "--sync-after-launch");
	if (k->timing)
		strvec_push(&s->cmd, "--timing");
	playback_args_argv(k->playback_args, &s->cmd);
	if (add_replacements(k->replace_kernels, s, err) < 0)
		return -1;
	/* The archive last: hrr-playback reads the last word that is not an
	 * option as the archive, so a flag's value before it never is. */
	strvec_push(&s->cmd, target);

	/* Environment, later entries win inside the engine: host HIP_HRR_*,
	 * then ours, then --env (the user's explicit word is last). */
	for (size_t i = 0; k->hip_hrr_env && i < k->hip_hrr_env->n; i++)
		if (strncmp(k->hip_hrr_env->v[i], "HIP_HRR_REPLAY_PROGRESS_SECONDS=", 32))
			strvec_push(&s->env, k->hip_hrr_env->v[i]);
	strvec_pushf(&s->env, "HIP_HRR_REPLAY_PROGRESS_SECONDS=%ld", k->progress_seconds);
	strbuf_addstr(&sb, "HIP_VISIBLE_DEVICES=");
	for (size_t i = 0; i < in->n_gpus; i++)
		strbuf_addf(&sb, i ? ",%zu" : "%zu", i);
	strvec_push(&s->env, sb.buf);
	add_library_path(in, s);
	for (size_t i = 0; k->env && i < k->env->n; i++)
		strvec_push(&s->env, k->env->v[i]);

	add_devices(in, s);
	for (size_t i = 0; k->cap_add && i < k->cap_add->n; i++)
		strvec_push(&s->cap_add, k->cap_add->v[i]);
	if (k->allow_ptrace)
		strvec_push(&s->cap_add, "SYS_PTRACE");
	if (k->diagnostics_dir)
		container_spec_add_mount(s, k->diagnostics_dir, DIAGNOSE_MOUNT, false);
	s->pids_limit = REPLAY_PIDS_LIMIT;
	s->memory = k->memory_bytes;
	s->stop_timeout = (int)k->stop_grace_s;
	s->log_max_bytes = REPLAY_LOG_MAX_BYTES;
	s->log_max_file = xstrdup(REPLAY_LOG_MAX_FILE);
	return 0;
}

void replay_plan_build_query(const struct replay_plan_input *in, const char *flag,
			     struct container_spec *s)
{
	cleanup_free char *target = xasprintf("%s/%s", ARCHIVE_MOUNT_ROOT, in->pid_name);

	/* Removed by the run whatever --keep says: never kept. */
	plan_common(in, s, target, false);
	strvec_push(&s->cmd, target);
	add_library_path(in, s);
	strvec_push(&s->cmd, flag);
}

void replay_plan_agent_knobs(const struct replay_plan_knobs *plain, const struct strvec *env,
			     const char *diagnostics_dir, struct replay_plan_knobs *out)
{
	*out = *plain;
	out->env = env;
	out->diagnostics_dir = diagnostics_dir;
	out->keep = false;
	out->allow_ptrace = false;
}
