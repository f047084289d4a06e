/* The plan of a replay like the unit's (replay_unit_plan.h). */
#include "orchestrator/replay/replay_unit_plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/clock.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/replay/interrupt.h"

void unit_plan_input(const struct unit_run *u, const struct replay_plan_knobs *k,
		     struct replay_plan_input *in)
{
	const struct replay_desc *d = u->desc;

	memset(in, 0, sizeof(*in));
	in->knobs = k;
	in->pid_dir = d->pid_dir;
	in->pid_name = u->pid_name;
	in->image_ref = d->image->ref;
	in->image_id = d->create_by_id ? d->image->id : NULL;
	in->image_repository = d->image->repository;
	in->image_env = &d->image->env;
	in->playback = u->playback;
	in->overlay = d->overlay;
	in->devices = u->devices;
	in->n_devices = u->n_devices;
	in->cdi_devices = &u->cdi_devices;
	in->kfd_from_cdi = u->kfd_from_cdi;
	in->n_gpus = u->n_chosen;
	in->run_id = u->run_id;
	in->owner = u->host->owner;
	in->archive_label = d->pid_dir;
	in->user = u->user[0] ? u->user : NULL;
	in->seccomp_profile = u->seccomp_profile;
	in->seccomp_opt = u->seccomp_opt;
}

void unit_query_spec(const struct unit_run *u, const char *flag, struct container_spec *spec)
{
	struct replay_plan_knobs k;
	struct replay_plan_input in;

	unit_plan_knobs(u, &k);
	unit_plan_input(u, &k, &in);
	container_spec_init(spec);
	replay_plan_build_query(&in, flag, spec);
}

void unit_plan_knobs(const struct unit_run *u, struct replay_plan_knobs *k)
{
	const struct replay_desc *d = u->desc;

	memset(k, 0, sizeof(*k));
	k->extra_ld = d->extra_ld;
	k->hip_hrr_env = d->hip_hrr_env;
	k->env = d->env;
	k->cap_add = d->cap_add;
	k->playback_args = d->playback_args;
	k->replace_kernels = u->kernels.n ? &u->kernels : d->replace_kernels;
	k->progress_seconds = d->limits.progress_seconds;
	k->stop_grace_s = d->limits.stop_grace_s;
	k->memory_bytes = d->limits.memory_bytes;
	k->no_sync = d->no_sync;
	k->timing = d->timing;
	k->keep = d->keep;
}

int unit_kernels_keep(struct unit_run *u, struct error *err)
{
	cleanup_free char *dir = xasprintf("%s/kernels", u->run_dir);

	if (!u->desc->replace_kernels)
		return 0;
	kernel_replacements_copy(&u->kernels, u->desc->replace_kernels);
	for (size_t i = 0; i < u->kernels.n; i++) {
		struct kernel_replacement *r = &u->kernels.v[i];
		cleanup_strbuf struct strbuf dst = STRBUF_INIT;

		if (r->fd < 0)
			continue;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return error_errno(err, "%s", dir);
		strbuf_addf(&dst, "%s/", dir);
		kernel_replacement_file_name(r, &dst);
		if (kernel_replacement_keep(r, dst.buf, err) < 0)
			return -1;
		free(r->host_path);
		r->host_path = strbuf_detach(&dst, NULL);
		close(r->fd);
		r->fd = -1;
	}
	return 0;
}

long unit_oneoff_seconds(const struct replay_limits *l)
{
	return (l->timeout_s > 0 ? l->timeout_s : UNIT_ONEOFF_DEFAULT_S) + l->stop_grace_s;
}

int unit_oneoff_run(const struct unit_run *u, const struct container_spec *spec,
		    engine_frame_cb cb, void *ud, long *status, struct error *err)
{
	struct engine *e = u->host->engine;
	const struct engine_call_opts opts = {
		.deadline = monotonic_now() + (double)unit_oneoff_seconds(&u->desc->limits),
		.interrupt_fd = u->desc->interrupt_fd,
	};
	cleanup_free char *id = NULL;
	int ret = -1;

	/* A signal an earlier step read no longer makes the pipe readable. */
	if (u->iw && interrupt_watch_poll(u->iw))
		return error_set(err, ERR_INTERRUPTED, 0, "interrupted");
	if (engine_container_create(e, NULL, spec, &id, err) == 0 &&
	    engine_container_start(e, id, err) == 0 &&
	    engine_container_wait_opts(e, id, "not-running", &opts, status, err) == 0 &&
	    engine_container_logs_opts(e, id, false, cb, ud, &opts, err) == 0)
		ret = 0;
	/* Never with the interrupt fd: a readable pipe would abort the
	 * removal. Best effort: gc removes what is left (it carries our
	 * labels). */
	if (id)
		(void)engine_container_remove(e, id, true, ERROR_DISCARD);
	if (ret < 0 && u->iw)
		(void)interrupt_watch_poll(u->iw);
	return ret;
}
