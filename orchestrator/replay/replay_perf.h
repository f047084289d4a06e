/* The timing replays of `--perf N` (docs/perf.md "Samples"): after a case's
 * replay passed, warmup + N more with hrr-playback's --timing and without
 * --sync-after-launch, each one sample of GPU and wall time. They never
 * change the verdict: a failing one ends the sampling, with a note. */
#ifndef HRR_REPLAY_REPLAY_PERF_H
#define HRR_REPLAY_REPLAY_PERF_H

#include "orchestrator/perf/perf_samples.h"
#include "orchestrator/replay/replay_desc.h"
#include "orchestrator/replay/replay_unit.h"

/* The description of a timing replay made from the verdict replay's d:
 * --timing, no --sync-after-launch, no debugger, quiet, no prompt. */
void replay_perf_desc(const struct replay_desc *d, struct replay_desc *t);

/* Samples are taken only after a verdict replay that passed: u's, the
 * one rule of `run --perf` and a sweep's worker. */
bool replay_perf_after(const struct replay_unit_result *u);

/* Run warmup + n timing replays of t on host; the samples (the warmup's
 * discarded) into out, which starts empty. Returns the signal that
 * interrupted them, 0 when none did. */
int replay_perf_sample(const struct replay_host *host, const struct replay_desc *t, int n,
		       int warmup, struct perf_samples *out);
/* k more timing replays of t, their samples appended to out (taken by
 * replay_perf_sample, without a note: sampling did not stop). Returns the
 * signal that interrupted them, 0 when none did. */
int replay_perf_more(const struct replay_host *host, const struct replay_desc *t, int k,
		     struct perf_samples *out);

#endif
