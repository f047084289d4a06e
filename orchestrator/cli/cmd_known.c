#include "orchestrator/cli/cmd_known.h"

#include <libgen.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/say.h"
#include "common/strvec.h"
#include "common/text.h"
#include "common/xalloc.h"

char *cmd_known_beside(const char *db_path)
{
	cleanup_free char *dir = xstrdup(db_path);

	return xasprintf("%s/known-issues.yaml", dirname(dir));
}

/* Someone else's shared file may mark failures known, but not choose
 * where the alarms go: its planter would receive every case, kernel and
 * report path. */
static void drop_foreign_notify(struct known_issues *k, const struct stat *st)
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

		say_warning("%s belongs to uid %u, not to you or root: its notify: URLs are "
			    "ignored", path, (unsigned)st->st_uid);
	}
}

int cmd_known_load(const char *path, enum cmd_known_from from, struct known_issues *out,
		   bool *have, struct error *err)
{
	enum owned_file_rule rule = from == CMD_KNOWN_NAMED ? OWNED_FILE_SHARED : OWNED_FILE_MINE;
	struct strvec expired = STRVEC_INIT;
	struct stat st;

	*have = false;
	if (known_issues_load(path, rule, out, &st, err) < 0) {
		if (from == CMD_KNOWN_BESIDE_IF_ANY && err->kind == ERR_NOT_FOUND)
			return 0;
		err->kind = ERR_USAGE;
		return -1;
	}
	*have = true;
	if (from == CMD_KNOWN_NAMED)
		drop_foreign_notify(out, &st);
	/* An expired rule is a reviewed line that stopped working: said
	 * every time, so nobody mistakes its failures for new ones. */
	known_issues_expired(out, (long long)time(NULL), &expired);
	for (size_t i = 0; i < expired.n; i++)
		say_warning("%s", expired.v[i]);
	strvec_clear(&expired);
	return 0;
}
