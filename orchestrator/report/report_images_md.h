/* summary.md's images section (docs/sweep.md "Reports"): each image's pin,
 * the ID its cases replayed, when it was pulled and what became of it,
 * the budget and the peak, and a cluster sweep's images per node. */
#ifndef HRR_REPORT_REPORT_IMAGES_MD_H
#define HRR_REPORT_REPORT_IMAGES_MD_H

#include "common/strbuf.h"
#include "orchestrator/report/report.h"

void report_images_md(const struct report *r, struct strbuf *out);

#endif
