#include "orchestrator/cli/cmd_json.h"
#include "common/json.h"
#include "orchestrator/cli/term_events.h"
#include "common/xalloc.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

cJSON *cmd_json_no_finding(int exit_code, const struct replay_failure *f, const char *run_dir)
{
	cJSON *j = cJSON_CreateObject();
	const char *stage = f ? replay_stage_name(f->stage) : NULL;

	cJSON_AddNullToObject(j, "outcome");
	cJSON_AddNumberToObject(j, "exit", exit_code);
	json_add_str_or_null(j, "stage", stage);
	if (stage && f->msg[0])
		cJSON_AddStringToObject(j, "error", f->msg);
	else
		cJSON_AddNullToObject(j, "error");
	json_add_str_or_null(j, "run_dir", run_dir);
	return j;
}

cJSON *cmd_json_finding(const cJSON *finding, int exit_code)
{
	cJSON *j = cJSON_Duplicate(finding, 1);

	cJSON_DeleteItemFromObjectCaseSensitive(j, "exit");
	cJSON_AddNumberToObject(j, "exit", exit_code);
	return j;
}

char *cmd_json_text(const cJSON *j)
{
	char *text = cJSON_Print(j);
	char *out = xasprintf("%s\n", text);

	free(text);
	return out;
}

bool cmd_json_requested(int argc, char **argv)
{
	bool json = false;

	/* The last --format wins, as in the parser. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--format") && i + 1 < argc)
			json = !strcmp(argv[++i], "json");
		else if (!strncmp(argv[i], "--format=", 9))
			json = !strcmp(argv[i] + 9, "json");
	}
	return json;
}

int cmd_usage_error(int argc, char **argv, const char *msg)
{
	struct replay_failure f;

	replay_fail(&f, term_events(), REPLAY_STAGE_USAGE, EXIT_USAGE, "%s", msg);
	if (cmd_json_requested(argc, argv)) {
		cJSON *j = cmd_json_no_finding(EXIT_USAGE, &f, NULL);
		char *text = cmd_json_text(j);

		fputs(text, stdout);
		fflush(stdout);
		free(text);
		cJSON_Delete(j);
	}
	return EXIT_USAGE;
}
