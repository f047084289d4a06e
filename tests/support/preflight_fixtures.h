/* Test helpers for the preflight module: fixture paths, scratch trees,
 * fake archives. Aborts the test (cr_assert) on any setup failure. */
#ifndef HRR_TESTS_SUPPORT_PREFLIGHT_FIXTURES_H
#define HRR_TESTS_SUPPORT_PREFLIGHT_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

/* <source root>/tests/fixtures/<rel> (caller frees). The root is
 * $HRR_SRCDIR, else found from the test binary (<root>/<build>/tests/x). */
char *pft_fixture(const char *rel);
/* A fresh directory under $TMPDIR (caller frees; remove with pft_rmtree). */
/* mkdir -p of dirname and write. */
void pft_write(const char *path, const void *data, size_t len);
void pft_writef(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* <dir>/events.bin: the 8-byte header (magic, version, flags 0), then
 * pad zero bytes; total_len < 8 writes a truncated header. */
void pft_write_events(const char *pid_dir, uint32_t magic, uint16_t version, size_t total_len);
/* A complete pid dir: events.bin with the real magic, format 8. */
void pft_make_pid_dir(const char *pid_dir);

#endif
