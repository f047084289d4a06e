#include "orchestrator/cli/cmd_known.h"

#include "orchestrator/cli/term_events.h"

char *cmd_known_beside(const char *db_path)
{
	return known_load_beside(db_path);
}

int cmd_known_load(const char *path, enum known_from from, struct known_issues *out, bool *have,
		   struct error *err)
{
	return known_load(path, from, out, have, term_events(), err);
}
