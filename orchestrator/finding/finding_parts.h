/* What finding.c and finding_finalize.c share. Not part of the module's
 * interface. */
#ifndef HRR_FINDING_PARTS_H
#define HRR_FINDING_PARTS_H

#include <stddef.h>

struct strvec;

/* A finding's caveat fields, for caveats.c (which knows no finding). */
#define CAVEATS_OF(f) { &(f)->placement, &(f)->runtime_libraries, &(f)->playback_flags_unknown }

/* Push s unless sv holds it already or holds cap strings. */
void finding_push_unique(struct strvec *sv, const char *s, size_t cap);

#endif
