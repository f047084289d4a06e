/* A replay's finding.json document, as the result of replay_unit_run
 * holds it (struct replay_unit_result's finding_doc, replay_desc.h), for
 * the edges that print it as JSON: `run --format json` prints a copy with
 * "exit". What a caller decides by is the typed verdict (struct
 * replay_verdict); nothing reads a field back out of this document. */
#ifndef HRR_REPLAY_REPLAY_JSON_H
#define HRR_REPLAY_REPLAY_JSON_H

#include <stdlib.h>

#include <cjson/cJSON.h>

struct replay_finding_doc {
	cJSON *json;
};

/* finding.json's object as written; NULL when there was no verdict (d
 * NULL). */
static inline const cJSON *replay_finding_json(const struct replay_finding_doc *d)
{
	return d ? d->json : NULL;
}

static inline void replay_finding_doc_free(struct replay_finding_doc *d)
{
	if (d)
		cJSON_Delete(d->json);
	free(d);
}

#endif
