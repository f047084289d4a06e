/* The small value parsers the option layer shares: the replay options
 * (replay_options.c) and the sweep's own (sweep_options.c) both read GPU
 * lists, sizes and booleans. Pure, and depending on no slice, so every
 * slice points here. */
#include "orchestrator/cli/option_values.h"
#include "common/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int options_parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off", "" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcasecmp(s, yes[i]))
			return 1;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (!strcasecmp(s, no[i]))
			return 0;
	return -1;
}

int options_parse_bytes(const char *what, const char *s, long long *out, struct error *err)
{
	static const char units[] = "kmgt";
	const long long min = 6LL << 20, max = 1LL << 50;
	char *end;
	long long v;
	const char *u;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || v <= 0 || *s == '-' || *s == '+')
		goto bad;
	if (*end) {
		u = strchr(units, *end | 0x20);
		if (!u || end[1])
			goto bad;
		for (long i = 0; i <= u - units; i++) {
			if (v > max / 1024)
				goto bad;
			v *= 1024;
		}
	}
	if (v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	return error_set(err, ERR_USAGE, 0,
			 "%s: '%s' is not a size from 6m to 1024t (bytes, or k/m/g/t)", what, s);
}

int options_parse_gpu_list(const char *s, int *out, size_t max, size_t *n, struct error *err)
{
	const char *p = s;

	*n = 0;
	if (!*s)
		return error_set(err, ERR_USAGE, 0, "--gpu: empty list; give ordinals like 0 or 0,1");
	while (*p) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v < 0 || v > INT_MAX || (*end && *end != ','))
			return error_set(err, ERR_USAGE, 0,
					 "--gpu: '%s' is not a list of GPU ordinals like 0 or 0,1", s);
		for (size_t i = 0; i < *n; i++)
			if (out[i] == (int)v)
				return error_set(err, ERR_USAGE, 0,
						 "--gpu: ordinal %ld is listed twice in '%s'", v, s);
		if (*n == max)
			return error_set(err, ERR_USAGE, 0, "--gpu: more than %zu ordinals", max);
		out[(*n)++] = (int)v;
		p = *end ? end + 1 : end;
		if (*end == ',' && !*p)
			return error_set(err, ERR_USAGE, 0,
					 "--gpu: '%s' ends with a comma", s);
	}
	return 0;
}

int options_parse_long(const char *from, const char *s, long min, long *out, struct error *err)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < min)
		return error_set(err, ERR_USAGE, 0, "%s: '%s' is not a whole number >= %ld", from, s,
				 min);
	*out = n;
	return 0;
}

void options_set_string(char **dst, const char *s)
{
	free(*dst);
	*dst = xstrdup(s);
}
