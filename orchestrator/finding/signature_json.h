/* A failure signature's codec: struct signature <-> the "signature"
 * object of finding.json and of a results line (docs/findings.md
 * "Signature"). */
#ifndef HRR_FINDING_SIGNATURE_JSON_H
#define HRR_FINDING_SIGNATURE_JSON_H

#include <cjson/cJSON.h>

#include "orchestrator/finding/signature.h"

/* {"id", "outcome", "fault_class", "kernel_family", "evidence",
 * "stop_reason", "partial"}, or a JSON null when s is unset. */
cJSON *signature_to_json(const struct signature *s);
/* The object signature_to_json wrote (anything else leaves s unset). */
void signature_from_json(struct signature *s, const cJSON *o);

#endif
