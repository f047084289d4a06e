/* Inside `history site`: the signature pages and the list of them
 * (orchestrator/site/site_signatures.c), after the label passes; the
 * index's "untriaged, first seen today" goes into g->fresh. */
#ifndef HRR_REPORT_SITE_SIGNATURES_H
#define HRR_REPORT_SITE_SIGNATURES_H

#include "orchestrator/site/site_gen.h"

int site_signatures_write(struct site_gen *g) __attribute__((warn_unused_result));

#endif
