/* What one host shares between replays (engine connection, GPUs, workdir,
 * owner label) and the failure record (replay_host.h). */
#include "orchestrator/replay/replay_host.h"
#include "orchestrator/replay/exit_codes.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/containers/ours.h"
#include "docker/engine.h"
#include "orchestrator/replay/run_folder.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *replay_stage_name(enum replay_stage s)
{
	static const char *const names[] = {
		[REPLAY_STAGE_NONE] = NULL,
		[REPLAY_STAGE_USAGE] = "usage",
		[REPLAY_STAGE_ARCHIVE] = "archive",
		[REPLAY_STAGE_INPUT] = "input",
		[REPLAY_STAGE_WORKDIR] = "workdir",
		[REPLAY_STAGE_ENGINE] = "engine",
		[REPLAY_STAGE_HOST] = "host",
		[REPLAY_STAGE_PULL] = "pull",
		[REPLAY_STAGE_IMAGE] = "image",
		[REPLAY_STAGE_PREFLIGHT] = "preflight",
		[REPLAY_STAGE_REPLAY] = "replay",
		[REPLAY_STAGE_RECORDS] = "records",
	};

	return (size_t)s < sizeof(names) / sizeof(names[0]) ? names[s] : NULL;
}

int replay_fail(struct replay_failure *f, const struct job_events *ev, enum replay_stage stage,
		int exit_code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	f->stage = stage;
	f->exit_code = exit_code;
	events_error(ev, "%s", f->msg);
	return exit_code;
}

static int host_topology(struct replay_host *h, const struct replay_host_config *cfg,
			 struct replay_failure *f)
{
	struct error err;

	if (gpu_topology_read(&h->topo, cfg->sysfs_root, &err) == 0) {
		h->have_topo = true;
		if (h->topo.n_gpus > 0)
			return 0;
		snprintf(h->topo_error, sizeof(h->topo_error),
			 "no AMD GPU found under %s (the KFD topology lists no GPU node)",
			 cfg->sysfs_root);
		gpu_topology_release(&h->topo);
		h->have_topo = false;
	} else {
		snprintf(h->topo_error, sizeof(h->topo_error), "%s", err.msg);
	}
	if (!cfg->need_gpu)
		return 0;
	return replay_fail(f, cfg->events, REPLAY_STAGE_HOST, EXIT_NO_VERDICT,
			   "%s; replay needs one (point --sysfs-root at the KFD topology; on a machine "
			   "without a GPU, examples/try.sh runs it on a fake host: README.md, "
			   "\"Try it without a GPU\")", h->topo_error);
}

/* <workdir>/cache/<uid>: a workdir may be a team's shared directory, the
 * cache is not (what it holds picks the replay's entrypoint and preflight's
 * versions). Created 0700, refused when it is not the caller's. */
static int host_cache(struct replay_host *h, struct error *err)
{
	cleanup_free char *parent = xasprintf("%s/cache", h->workdir);

	if (mkdir(parent, 0755) < 0 && errno != EEXIST)
		return error_errno(err, "cannot create %s", parent);
	h->cache_dir = xasprintf("%s/%u", parent, (unsigned)geteuid());
	if (fs_private_dir(h->cache_dir, err) < 0)
		return error_prefix(err, "the cache: ");
	return 0;
}

/* Which engine answered, and whether it applies the replay's cgroup
 * limits: rootless Podman on cgroup v1 accepts and drops them. */
static int host_engine_limits(struct replay_host *h, const struct replay_host_config *cfg,
			      struct error *err)
{
	bool applies;

	if (cfg->verbosity > 0)
		events_info(cfg->events, cfg->verbosity, "engine: %s %s at %s (API %s)",
			    engine_name(h->engine), engine_server_version(h->engine),
			    engine_host(h->engine), engine_api_version(h->engine));
	if (engine_applies_limits(h->engine, &applies, err) < 0)
		return -1;
	h->engine_drops_limits = !applies;
	if (!applies)
		events_warning(cfg->events, "%s", REPLAY_LIMITS_DROPPED);
	return 0;
}

int replay_host_open(struct replay_host *h, const struct replay_host_config *cfg,
		     struct replay_failure *f)
{
	const struct job_events *ev = cfg->events;
	struct error err;

	memset(h, 0, sizeof(*h));
	h->owner = owner_label_self();
	h->device_root = xstrdup(cfg->device_root ? cfg->device_root : "/dev");
	h->devices = cfg->devices;
	h->events = cfg->events;
	if (workdir_prepare(cfg->workdir, cfg->archives, cfg->n_archives, &h->workdir, &err) < 0)
		return replay_fail(f, ev,
				   err.kind == ERR_USAGE ? REPLAY_STAGE_USAGE : REPLAY_STAGE_WORKDIR,
				   err.kind == ERR_USAGE ? EXIT_USAGE : EXIT_NO_VERDICT, "%s",
				   err.msg);
	if (host_cache(h, &err) < 0)
		return replay_fail(f, ev, REPLAY_STAGE_WORKDIR, EXIT_NO_VERDICT, "%s", err.msg);
	if (engine_open(&h->engine, NULL, &err) < 0)
		return replay_fail(f, ev, REPLAY_STAGE_ENGINE, EXIT_NO_VERDICT, "%s", err.msg);
	if (host_engine_limits(h, cfg, &err) < 0)
		return replay_fail(f, ev, REPLAY_STAGE_ENGINE, EXIT_NO_VERDICT, "%s", err.msg);
	if (!engine_is_unix(h->engine))
		events_info(ev, cfg->verbosity,
			    "note: DOCKER_HOST=%s is not a unix socket: the archive, "
			    "overlay, device and sysfs paths must exist on the engine's host",
			    engine_host(h->engine));
	return host_topology(h, cfg, f);
}

void replay_host_release(struct replay_host *h)
{
	if (h->engine)
		engine_close(h->engine);
	if (h->have_topo)
		gpu_topology_release(&h->topo);
	free(h->device_root);
	free(h->workdir);
	free(h->cache_dir);
	free(h->owner);
	memset(h, 0, sizeof(*h));
}

void replay_host_name(char *buf, size_t n)
{
	const char *slurm = getenv("SLURMD_NODENAME");

	if (slurm && *slurm)
		snprintf(buf, n, "%s", slurm);
	else if (gethostname(buf, n - 1) < 0)
		snprintf(buf, n, "unknown");
	buf[n - 1] = '\0';
}
