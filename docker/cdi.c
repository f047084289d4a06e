/* Whether an engine injects CDI devices (engine_cdi_enabled, docker/engine.h). */
#include "docker/xfer.h"

#include <stdlib.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#define PODMAN_CDI_DIRS "/etc/cdi:/var/run/cdi"

int engine_cdi_enabled(struct engine *e, bool *on, char **dirs, struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_cjson cJSON *info = NULL;
	cleanup_strbuf struct strbuf sb = STRBUF_INIT;
	enum engine_flavour flavour;
	const cJSON *it;

	*on = false;
	if (dirs)
		*dirs = NULL;
	if (engine_flavour(e, &flavour, err) < 0)
		return -1;
	if (flavour == ENGINE_FLAVOUR_PODMAN) {
		/* Podman has read CDI specs since 4.1, from these dirs unless
		 * containers.conf's cdi_spec_dirs says otherwise. */
		*on = true;
		if (dirs)
			*dirs = xstrdup(PODMAN_CDI_DIRS);
		return 0;
	}
	if (engine_request_json(e, "GET", "/info", NULL, ok, true, 0, &info, err) < 0)
		return error_prefix(err, "asking the engine whether CDI is on: ");
	/* Absent (before API 1.45, or CDI off) or empty: off. */
	cJSON_ArrayForEach(it, json_arr(info, "CDISpecDirs")) {
		const char *dir = json_str_of(it);

		if (dir && *dir)
			strbuf_addf(&sb, "%s%s", sb.len ? ":" : "", dir);
	}
	*on = sb.len > 0;
	if (dirs && *on)
		*dirs = xstrdup(sb.buf);
	return 0;
}
