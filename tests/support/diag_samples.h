/* The GPU debuggers' sample outputs the diag_* unit tests parse. They live
 * in the fuzzers' seed corpora (tests/fuzz/corpus/diag_agent, diag_mi), so
 * one copy serves both. */
#ifndef HRR_TESTS_DIAG_SAMPLES_H
#define HRR_TESTS_DIAG_SAMPLES_H

#include <stddef.h>

/* tests/fuzz/corpus/<corpus>/<name>, whole; asserts it exists. Caller frees. */
char *diag_sample(const char *corpus, const char *name, size_t *len);

#endif
