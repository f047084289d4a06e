/* --devices nodes|cdi|auto (orchestrator/replay/replay_devices.h). */
#include "orchestrator/replay/replay_devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "preflight/cdi.h"

static bool spec_gives_kfd(const struct cdi_spec *s)
{
	for (size_t i = 0; i < s->n_nodes; i++)
		if (!strcmp(s->nodes[i].path, "/dev/kfd"))
			return true;
	return false;
}

/* auto without CDI: nodes, and why (said with -v, kept in run.json). */
static int use_nodes(struct unit_run *u, const char *why)
{
	u->devices_how = "nodes";
	snprintf(u->devices_note, sizeof(u->devices_note), "%s", why ? why : "");
	return 0;
}

/* The spec's devices for the chosen GPUs, by their render minors. */
static int match_spec(struct unit_run *u, const struct cdi_spec *spec, struct cdi_match *m,
		      struct error *err)
{
	cleanup_free int *minors = xcalloc(u->n_chosen + 1, sizeof(int));

	for (size_t i = 0; i < u->n_chosen; i++)
		minors[i] = u->host->topo.gpus[u->chosen[i]].drm_render_minor;
	return cdi_match_gpus(spec, u->chosen, minors, u->n_chosen, m, err);
}

int unit_devices_choose(struct unit_run *u, struct error *err)
{
	bool want = u->host->devices == DEVICES_CDI, on = false;
	const char *env = getenv(CDI_SPEC_DIRS_ENV);
	cleanup_free char *engine_dirs = NULL;
	struct cdi_spec spec;
	struct cdi_match m;
	struct error why;

	if (u->host->devices == DEVICES_NODES || !u->n_chosen)
		return use_nodes(u, NULL);
	/* auto on a host without a spec asks the engine nothing */
	if (!want && cdi_load(env && *env ? env : CDI_SPEC_DIRS_DEFAULT, &spec, &why) < 0)
		return use_nodes(u, NULL);
	if (!want)
		cdi_spec_release(&spec);
	if (engine_cdi_enabled(u->host->engine, &on, &engine_dirs, err) < 0)
		return -1;
	if (!on) {
		if (want)
			return error_set(err, ERR_USAGE, 0,
					 "--devices cdi: the engine at %s has CDI off (GET /info lists no CDISpecDirs); turn on \"features\": {\"cdi\": true} in its daemon.json (Docker before 28.2) or use --devices nodes",
					 engine_host(u->host->engine));
		return use_nodes(u, "the engine has CDI off");
	}
	if (cdi_load(env && *env ? env : engine_dirs, &spec, want ? err : &why) < 0)
		return want ? error_prefix(err, "--devices cdi: ") : use_nodes(u, why.msg);
	if (match_spec(u, &spec, &m, want ? err : &why) < 0) {
		cdi_spec_release(&spec);
		return want ? error_prefix(err, "--devices cdi: ") : use_nodes(u, why.msg);
	}
	if (m.extra[0]) {
		int rc = want ? error_set(err, ERR_USAGE, 0,
					  "--devices cdi: %s, which the replay must not get; use --devices nodes",
					  m.extra)
			      : use_nodes(u, m.extra);

		cdi_match_release(&m);
		cdi_spec_release(&spec);
		return rc;
	}
	u->devices_how = "cdi";
	u->kfd_from_cdi = spec_gives_kfd(&spec);
	for (size_t i = 0; i < m.names.n; i++)
		strvec_push(&u->cdi_devices, m.names.v[i]);
	snprintf(u->devices_note, sizeof(u->devices_note), "from %s", spec.file);
	cdi_match_release(&m);
	cdi_spec_release(&spec);
	return 0;
}
