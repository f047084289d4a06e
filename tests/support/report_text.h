/* A report's text for a test's asserts: the renderers and
 * sweep_finish_write write into a FILE, the tests read a string. */
#ifndef HRR_TESTS_SUPPORT_REPORT_TEXT_H
#define HRR_TESTS_SUPPORT_REPORT_TEXT_H

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/jobs/sweep_finish.h"

/* fn's output appended to out; fn's return value (-1 when no stream). */
int report_text(report_render_fn fn, const struct report *r, struct strbuf *out,
		struct error *err);

/* sweep_finish_write, what it shows appended to out. */
int report_text_sweep(struct history_db *db, const struct sweep_meta *m, const char *folder,
		      const struct sweep_finish *f, int *exit_code, struct strbuf *out,
		      struct error *err);

#endif
