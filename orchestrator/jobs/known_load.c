#include "orchestrator/jobs/known_load.h"

#include <libgen.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/owned_file.h"
#include "common/strvec.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_db.h"

char *known_load_beside(const char *db_path)
{
	cleanup_free char *dir = NULL;

	if (history_db_is_server(db_path))
		return NULL;
	dir = xstrdup(db_path);
	return xasprintf("%s/known-issues.yaml", dirname(dir));
}

/* Someone else's shared file may mark failures known, but not choose
 * where the alarms go: its planter would receive every case, kernel and
 * report path. */
static void drop_foreign_notify(struct known_issues *k, const struct stat *st,
				const struct job_events *ev)
{
	bool any = false;

	if (st->st_uid == geteuid() || st->st_uid == 0)
		return;
	for (size_t i = 0; i < k->n_owners; i++) {
		any |= k->owners[i].notify.n > 0;
		strvec_clear(&k->owners[i].notify);
	}
	if (any) {
		cleanup_free char *path = text_sanitized(k->path, 0);

		events_warning(ev, "%s belongs to uid %u, not to you or root: its notify: URLs are "
			       "ignored", path, (unsigned)st->st_uid);
	}
}

int known_load(const char *path, enum known_from from, struct known_issues *out, bool *have,
	       const struct job_events *ev, struct error *err)
{
	enum owned_file_rule rule = from == KNOWN_NAMED ? OWNED_FILE_SHARED : OWNED_FILE_MINE;
	struct strvec expired = STRVEC_INIT;
	struct stat st;

	*have = false;
	if (known_issues_load(path, rule, out, &st, err) < 0) {
		if (from == KNOWN_BESIDE_IF_ANY && err->kind == ERR_NOT_FOUND)
			return 0;
		err->kind = ERR_USAGE;
		return -1;
	}
	*have = true;
	if (from == KNOWN_NAMED)
		drop_foreign_notify(out, &st, ev);
	/* An expired rule is a reviewed line that stopped working: said
	 * every time, so nobody mistakes its failures for new ones. */
	known_issues_expired(out, (long long)time(NULL), &expired);
	for (size_t i = 0; i < expired.n; i++)
		events_warning(ev, "%s", expired.v[i]);
	strvec_clear(&expired);
	return 0;
}
