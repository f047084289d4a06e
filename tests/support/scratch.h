/* Scratch directories for tests: made under $TMPDIR (or /tmp), removed
 * whole afterwards. */
#ifndef HRR_TESTS_SUPPORT_SCRATCH_H
#define HRR_TESTS_SUPPORT_SCRATCH_H

/* "<tmp>/hrr-<tag>-XXXXXX", created; the caller frees the path. */
char *scratch_dir(const char *tag);
/* Remove path and everything under it (symlinks are not followed). NULL ok. */
void scratch_remove(const char *path);

/* Write a stand-in AMD GPU code object at path (what --replace-kernel
 * takes): an ELF64 little-endian header for EM_AMDGPU, then tail, so that
 * the same tail gives the same bytes. Asserts it was written. */
void scratch_code_object(const char *path, const char *tail);

/* The source tree the test binary was built from: $HRR_SRCDIR, else three
 * levels above the binary (<root>/<build>/tests/<binary>). */
const char *test_source_root(void);

/* The test image "hrr-<name>:<tag>", tag from $HRR_IMAGE_TAG (default
 * "dev"), so checkouts that build different simulators can test side by
 * side on one engine (images/build.sh reads the same variable). */
const char *test_image(const char *name);

#endif
