#include "tests/support/seeded_times.h"

#include <math.h>

double seeded_uniform01(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

void seeded_times(uint64_t *state, double *x, size_t n, double mean, double cv)
{
	for (size_t i = 0; i < n; i++) {
		double z = sqrt(-2 * log(seeded_uniform01(state))) *
			   cos(2 * M_PI * seeded_uniform01(state));

		x[i] = round(mean * (1 + cv * z) * 10) / 10;
	}
}
