/* Pure parsers of option values, shared by the slices of the option
 * table (orchestrator/cli/options_table.h; exposed for tests). */
#ifndef HRR_CLI_OPTION_VALUES_H
#define HRR_CLI_OPTION_VALUES_H

#include <stddef.h>

#include "common/error.h"

/* Parse "0", "1,3" into ordinals. */
__attribute__((warn_unused_result))
int options_parse_gpu_list(const char *s, int *out, size_t max, size_t *n, struct error *err);
/* "512m", "2g", "1048576": bytes (k, m, g, t: powers of 1024), from 6 MiB
 * (the engine's minimum) to 1 PiB. */
__attribute__((warn_unused_result))
int options_parse_bytes(const char *what, const char *s, long long *out, struct error *err);
/* "1"/"true"/"yes"/"on" -> 1, "0"/"false"/"no"/"off"/"" -> 0, else -1. */
int options_parse_bool(const char *s);
/* A whole number >= min; `from` names the option for the message. */
__attribute__((warn_unused_result))
int options_parse_long(const char *from, const char *s, long min, long *out, struct error *err);
/* *dst becomes a copy of s (a string option given again replaces it). */
void options_set_string(char **dst, const char *s);

#endif
