/* The GPU-time samples of one case (docs/perf.md "Samples"): what the
 * timing replays of `--perf N` measured, as a results line carries them
 * ("perf": {"samples": [...], "warmup": K, "note": ...}; its codec is
 * perf_samples_json.h). Pure. */
#ifndef HRR_PERF_SAMPLES_H
#define HRR_PERF_SAMPLES_H

#include <stddef.h>

/* The most samples a case keeps (--perf's maximum). */
#define PERF_RUNS_MAX 100

struct perf_sample {
	double kernel_ms, graph_ms, total_ms; /* hrr-playback --timing; < 0 not printed */
	double wall_ms;                       /* the timing replay's whole unit call */
};

struct perf_samples {
	/* As many as were taken (a sweep's report keeps every passing case's
	 * samples: room for PERF_RUNS_MAX each would be 3 KB a case). */
	struct perf_sample *v;
	size_t n, alloc;
	int warmup;  /* timing replays discarded before these */
	int adaptive; /* of n, the samples --perf-adaptive added (docs/perf.md) */
	/* Why sampling ended early or gave nothing, and how many samples
	 * --perf-adaptive added; NULL: the N asked for, all taken. */
	char *note;
};

void perf_samples_release(struct perf_samples *s);
/* Append a sample; a full set keeps its first PERF_RUNS_MAX. */
void perf_samples_add(struct perf_samples *s, const struct perf_sample *x);
/* Set the note (a copy), replacing any. */
void perf_samples_note(struct perf_samples *s, const char *note);
/* The kernel times (ms) of the samples that have one, into out (room for
 * s->n); returns their count. */
size_t perf_samples_kernel_ms(const struct perf_samples *s, double *out);

#endif
