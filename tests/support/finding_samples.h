/* Test helpers for the findings module: the sample logs under
 * tests/fuzz/corpus/classifier (shared with the classifier fuzzer as its
 * seed corpus), and one-call classification. cr_assert on setup failure. */
#ifndef HRR_TESTS_SUPPORT_FINDING_SAMPLES_H
#define HRR_TESTS_SUPPORT_FINDING_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/finding_json.h"

/* <source root>/tests/fuzz/corpus/classifier/<name> (caller frees). The
 * root is $HRR_SRCDIR, else found from the test binary
 * (<root>/<build>/tests/<binary>). */
char *fs_sample_path(const char *name);
/* The sample's bytes. */
void fs_sample_read(const char *name, struct strbuf *out);
/* Classify text fed in chunks of `chunk` bytes (0 = all at once). */
void fs_classify_text(const char *text, size_t len, size_t chunk, const char *source,
		      struct finding *out);
/* Classify a sample whole, source name = the sample's name. */
void fs_classify_sample(const char *name, struct finding *out);
/* Classify, then finalize with no archive context. */
void fs_analyze_sample(const char *name, struct finding *out);
/* finding_to_json() printed unformatted (caller frees). */
char *fs_json(const struct finding *f, const struct finding_context *ctx);
/* A note containing part / exactly this label. */
bool fs_has_note(const struct finding *f, const char *part);
bool fs_has_label(const struct finding *f, const char *label);
/* A fresh directory under $TMPDIR (caller frees) and its removal. */
void fs_write(const char *path, const char *text);

#endif
