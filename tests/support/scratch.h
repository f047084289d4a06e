/* Scratch directories for tests: made under $TMPDIR (or /tmp), removed
 * whole afterwards. */
#ifndef HRR_TESTS_SUPPORT_SCRATCH_H
#define HRR_TESTS_SUPPORT_SCRATCH_H

/* "<tmp>/hrr-<tag>-XXXXXX", created; the caller frees the path. */
char *scratch_dir(const char *tag);
/* Remove path and everything under it (symlinks are not followed). NULL ok. */
void scratch_remove(const char *path);

#endif
