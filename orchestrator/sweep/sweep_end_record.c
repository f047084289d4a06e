/* A sweep folder's end record (sweep_end_record.h), and its one codec. */
#include "orchestrator/sweep/sweep_end_record.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/json.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

int sweep_end_record_write(const char *folder, enum sweep_state state, long long finished,
			   struct error *err)
{
	cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_END_FILE);
	cleanup_cjson cJSON *o = cJSON_CreateObject();
	cleanup_free char *text = NULL, *line = NULL;

	cJSON_AddStringToObject(o, "state", sweep_state_name(state));
	cJSON_AddNumberToObject(o, "finished", (double)finished);
	text = cJSON_PrintUnformatted(o);
	line = xasprintf("%s\n", text);
	return fs_write_atomic(path, line, strlen(line), 0644, err);
}

int sweep_end_record_read(const char *folder, enum sweep_state *state, long long *finished,
			  struct error *err)
{
	cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_END_FILE);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *o = NULL;

	if (fs_read_small_file(path, 4096, &text, err) < 0)
		return -1;
	o = cJSON_Parse(text.buf);
	if (!sweep_state_parse(json_str(o, "state"), state))
		return error_set(err, ERR_DATA, 0, "%s: not a sweep's end record", path);
	*finished = json_int(o, "finished", 0, 1LL << 40, 0);
	return 0;
}
