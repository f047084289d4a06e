/* A sweep's images' fates (sweep_image_fate.h), and their one codec. */
#include "orchestrator/sweep/sweep_image_fate.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/json.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#define FILE_MAX (1u << 20)

static const char *const names[] = {
	[IMAGE_FATE_REMOVED] = "removed",
	[IMAGE_FATE_USERS] = "the user's",
	[IMAGE_FATE_FITS] = "fits the budget",
	[IMAGE_FATE_IN_USE] = "in use",
	[IMAGE_FATE_HELD] = "held by another sweep",
	[IMAGE_FATE_NO_BUDGET] = "no budget",
};

void sweep_image_fates_init(struct sweep_image_fates *f, size_t n)
{
	f->v = xcalloc(n + 1, sizeof(*f->v));
	f->n = n;
	f->peak = 0;
	f->host[0] = '\0';
}

void sweep_image_fates_release(struct sweep_image_fates *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

const char *image_fate_name(enum image_fate f)
{
	return (size_t)f < sizeof(names) / sizeof(names[0]) ? names[f] : NULL;
}

bool image_fate_parse(const char *name, enum image_fate *out)
{
	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i] && !strcmp(names[i], name)) {
			*out = (enum image_fate)i;
			return true;
		}
	return false;
}

char *sweep_image_fates_path(const char *folder, const char *task)
{
	return task ? xasprintf("%s/images.%s.json", folder, task)
		    : xasprintf("%s/%s", folder, SWEEP_IMAGES_FILE);
}

int sweep_image_fates_write(const char *path, const struct sweep_image_fates *f,
			    struct error *err)
{
	cleanup_cjson cJSON *o = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(o, "images");
	cleanup_free char *text = NULL, *line = NULL;
	char host[sizeof(f->host)] = "";

	if (f->host[0])
		snprintf(host, sizeof(host), "%s", f->host);
	else if (gethostname(host, sizeof(host) - 1) < 0)
		host[0] = '\0';
	json_add_str_or_null(o, "host", host[0] ? host : NULL);
	cJSON_AddNumberToObject(o, "peak", (double)f->peak);
	for (size_t i = 0; i < f->n; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "pulled", (double)f->v[i].pulled);
		cJSON_AddNumberToObject(e, "removed", (double)f->v[i].removed);
		json_add_str_or_null(e, "fate", image_fate_name(f->v[i].fate));
		cJSON_AddItemToArray(a, e);
	}
	text = cJSON_PrintUnformatted(o);
	line = xasprintf("%s\n", text);
	return fs_write_atomic(path, line, strlen(line), 0644, err);
}

int sweep_image_fates_read(const char *path, struct sweep_image_fates *f, struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *o = NULL;
	const cJSON *it;
	size_t i = 0;

	if (fs_read_small_file(path, FILE_MAX, &text, err) < 0)
		return -1;
	o = cJSON_Parse(text.buf);
	if (!json_arr(o, "images"))
		return error_set(err, ERR_DATA, 0, "%s: not a sweep's images record", path);
	f->peak = json_int(o, "peak", 0, 1LL << 50, 0);
	snprintf(f->host, sizeof(f->host), "%s", json_str(o, "host") ? json_str(o, "host") : "");
	cJSON_ArrayForEach(it, json_arr(o, "images")) {
		if (i >= f->n)
			break;
		f->v[i].pulled = json_int(it, "pulled", 0, 1LL << 40, 0);
		f->v[i].removed = json_int(it, "removed", 0, 1LL << 40, 0);
		if (!image_fate_parse(json_str(it, "fate"), &f->v[i].fate))
			f->v[i].fate = IMAGE_FATE_UNKNOWN;
		i++;
	}
	return 0;
}
