#include "orchestrator/jobs/known_load.h"

#include <libgen.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/strvec.h"
#include "common/xalloc.h"

char *known_load_beside(const char *db_path)
{
	cleanup_free char *dir = xstrdup(db_path);

	return xasprintf("%s/known-issues.yaml", dirname(dir));
}

int known_load(const char *path, bool missing_ok, struct known_issues *out, bool *have,
	       const struct job_events *ev, struct error *err)
{
	struct strvec expired = STRVEC_INIT;

	*have = false;
	if (known_issues_load(path, out, err) < 0) {
		if (missing_ok && err->kind == ERR_NOT_FOUND)
			return 0;
		err->kind = ERR_USAGE;
		return -1;
	}
	*have = true;
	/* An expired rule is a reviewed line that stopped working: said
	 * every time, so nobody mistakes its failures for new ones. */
	known_issues_expired(out, (long long)time(NULL), &expired);
	for (size_t i = 0; i < expired.n; i++)
		events_warning(ev, "%s", expired.v[i]);
	strvec_clear(&expired);
	return 0;
}
