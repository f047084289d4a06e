/* --timing: the GPU times the summary prints (images/sim/replay.c), made up
 * for tests of GPU-time regressions (docs/perf.md "The simulator"):
 *
 *   base     scenario gpu_ms=T (the replay's whole GPU kernel time), else
 *            the archive's launches times kernel_ms= (default 0.042 ms)
 *   slowdown the image's file /etc/hrr-sim/slowdown (HRR_SIM_SLOWDOWN_FILE
 *            names another): lines "FACTOR [GROUP]"; a line without GROUP
 *            applies to every archive, one with GROUP to archives whose
 *            scenario says perf_group=GROUP; the last matching line wins.
 *            So a registry can hold tags that get 10% slower from one tag
 *            on, for some archives only.
 *   jitter   HRR_SIM_JITTER=CV, a normal factor of that coefficient of
 *            variation, seeded from HRR_SIM_SEED when set, else from the
 *            clock and the pid (each replay its own draw).
 *
 * The simulator reports the time; it does not spend it. */
#include "sim.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t mix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double uniform01(uint64_t *state)
{
	return ((double)(mix(state) >> 11) + 0.5) / 9007199254740992.0;
}

/* The factor of the image's slowdown file for an archive of this group. */
static double slowdown(const char *group)
{
	const char *path = getenv("HRR_SIM_SLOWDOWN_FILE");
	double factor = 1.0;
	char line[256];
	FILE *f;

	if (!path || !*path)
		path = "/etc/hrr-sim/slowdown";
	if (!(f = fopen(path, "r")))
		return 1.0;
	while (fgets(line, sizeof(line), f)) {
		char name[128] = "";
		double v;
		int n = sscanf(line, "%lf %127s", &v, name);

		if (n < 1 || !(v > 0))
			continue;
		if (n == 1 || (group && !strcmp(group, name)))
			factor = v;
	}
	fclose(f);
	return factor;
}

double sim_gpu_kernel_ms(const struct scenario *sc, size_t kernels)
{
	double base = scenario_double(sc, "gpu_ms", -1);
	double cv = sim_parse_double(getenv("HRR_SIM_JITTER"), 0);
	const char *seed = getenv("HRR_SIM_SEED");
	uint64_t state;

	if (!(base >= 0))
		base = (double)kernels * scenario_double(sc, "kernel_ms", 0.042);
	base *= slowdown(scenario_get(sc, "perf_group"));
	if (!(cv > 0))
		return base;
	if (seed && *seed)
		state = strtoull(seed, NULL, 0);
	else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		state = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
	}
	/* Box-Muller */
	double z = sqrt(-2 * log(uniform01(&state))) * cos(2 * M_PI * uniform01(&state));
	double t = base * (1 + cv * z);

	return t > 0 ? t : 0;
}
