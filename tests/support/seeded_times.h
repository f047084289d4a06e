/* Seeded GPU times for the statistics' simulations (splitmix64, then
 * Box-Muller): the same seed always gives the same samples, so the
 * simulations never flake. */
#ifndef HRR_TESTS_SEEDED_TIMES_H
#define HRR_TESTS_SEEDED_TIMES_H

#include <stddef.h>
#include <stdint.h>

/* A uniform value in (0, 1); *state advances. */
double seeded_uniform01(uint64_t *state);
/* n times of this mean and coefficient of variation, printed to 0.1 ms
 * as hrr-playback prints them. */
void seeded_times(uint64_t *state, double *x, size_t n, double mean, double cv);

#endif
