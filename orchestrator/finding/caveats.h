/* The caveats hrr-playback prints beside its verdict (where allocations
 * were placed, which runtime libraries were mapped): their fields, and the
 * notes they give at finalisation (docs/findings.md "Caveats"). The lines
 * are read by classify_placement.c, their JSON and markdown are render.c's;
 * finding.c holds the fields in each finding and adds the notes. */
#ifndef HRR_FINDING_CAVEATS_H
#define HRR_FINDING_CAVEATS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strvec.h"
#include "preflight/preflight.h"

/* One allocation hrr-playback could not place at its recorded address
 * ("[HRR] Placement: <api> 0x... (<n> bytes) not placed at its recorded
 * address: ..."). */
struct placement_fallback {
	char *api;
	char *address;      /* "0x..." (the recorded address); NULL when not printed */
	long long bytes;    /* -1 when not printed */
};

/* hrr-playback's placement of allocations at their capture addresses
 * (orchestrator/finding/classify_placement.c, docs/formats.md "Placement"). */
#define FINDING_MAX_FALLBACKS 64
struct finding_placement {
	bool seen;                  /* a Placement line was printed */
	long long placed;           /* -1 unknown */
	long long fell_back;
	long long frees_deferred;
	struct placement_fallback fallbacks[FINDING_MAX_FALLBACKS];
	size_t n_fallbacks;
	long long fallback_lines;   /* fallback lines seen (>= n_fallbacks) */
	bool fallbacks_counted;     /* "further fallbacks are only counted" */
};

/* A finding's caveat fields, where the finding keeps them. */
struct finding_caveats {
	struct finding_placement *placement;
	struct strvec *runtime_libraries;
	struct strvec *playback_flags_unknown;
};

void finding_caveats_init(const struct finding_caveats *c);
void finding_caveats_release(const struct finding_caveats *c);
/* Fields fill gaps: a later input's placement only when the earlier has
 * none; runtime libraries likewise. */
void finding_caveats_merge(const struct finding_caveats *acc, const struct finding_caveats *later);
void finding_caveats_sanitize(const struct finding_caveats *c);

/* What the notes weigh besides the caveats. */
struct finding_caveats_subject {
	bool replay_failed;             /* MAF, FAIL, ABORT or HANG */
	const char *fault_address;      /* "0x...", or NULL */
	const struct stack_info *stack; /* run only: what preflight read; NULL: not read */
};
/* The notes, in order, pushed onto notes: upstream's placement caveat when
 * the replay failed with allocations moved (and whether the fault address
 * lies in one); a stack mixed from several ROCm installs; a HIP or comgr
 * other than the one preflight read (s->stack); flags the image's
 * hrr-playback does not know. */
void finding_caveats_notes(const struct finding_caveats *c, const struct finding_caveats_subject *s,
			   struct strvec *notes);

/* Pure helpers, tested alone. The ROCm install a library path belongs to
 * (the directory above its lib/ or lib64/), newly allocated; NULL when the
 * path has no such directory. */
char *finding_rocm_install(const char *path);
/* Whether address (hex text) lies in [base, base + bytes). */
bool finding_address_in(const char *address, const char *base, long long bytes);

#endif
