#include "orchestrator/cli/cmd_known.h"

#include <libgen.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/say.h"
#include "common/strvec.h"
#include "common/xalloc.h"

char *cmd_known_beside(const char *db_path)
{
	cleanup_free char *dir = xstrdup(db_path);

	return xasprintf("%s/known-issues.yaml", dirname(dir));
}

int cmd_known_load(const char *path, bool missing_ok, struct known_issues *out, bool *have,
		   struct error *err)
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
		say_warning("%s", expired.v[i]);
	strvec_clear(&expired);
	return 0;
}
