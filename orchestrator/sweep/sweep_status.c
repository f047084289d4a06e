#include "orchestrator/sweep/sweep_status.h"

#include <string.h>

static const char *const status_names[ST__COUNT] = {
	[ST_PASS] = "pass",
	[ST_REGRESSED] = "regressed",
	[ST_FIXED] = "fixed",
	[ST_STILL_FAILING] = "still-failing",
	[ST_CHANGED] = "changed",
	[ST_RECLASSIFIED] = "reclassified",
	[ST_FLAKY] = "flaky",
	[ST_NEW] = "new",
	[ST_GONE] = "gone",
	[ST_BLOCKED] = "blocked",
	[ST_NEEDS_CONFIRM] = "needs-confirm",
	[ST_ERROR] = "error",
	[ST_MISSING] = "missing",
};

const enum sweep_status sweep_status_report_order[ST__COUNT] = {
	ST_REGRESSED, ST_CHANGED, ST_MISSING, ST_ERROR, ST_FIXED, ST_FLAKY,
	ST_STILL_FAILING, ST_RECLASSIFIED, ST_NEW, ST_BLOCKED, ST_NEEDS_CONFIRM,
	ST_GONE, ST_PASS,
};

const char *sweep_status_name(enum sweep_status s)
{
	return (unsigned)s < ST__COUNT ? status_names[s] : "?";
}

static const char *const state_names[] = {
	[SWEEP_FINISHED] = "finished",
	[SWEEP_PARTIAL] = "partial",
	[SWEEP_INTERRUPTED] = "interrupted",
};

const char *sweep_state_name(enum sweep_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "?";
}

bool sweep_state_parse(const char *name, enum sweep_state *out)
{
	for (size_t i = 0; name && i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (!strcmp(name, state_names[i])) {
			*out = (enum sweep_state)i;
			return true;
		}
	return false;
}

static int status_parse_n(const char *name, size_t len)
{
	for (int i = 0; i < ST__COUNT; i++)
		if (strlen(status_names[i]) == len && !memcmp(status_names[i], name, len))
			return i;
	return -1;
}

int sweep_status_parse(const char *name)
{
	return status_parse_n(name, strlen(name));
}

/* The words of --fail-on that are not statuses, with their bits. */
static const struct {
	const char *name;
	sweep_status_mask bit;
} fail_words[] = {
	{ "perf-slower", SWEEP_FAIL_PERF_SLOWER },
	{ "untriaged", SWEEP_FAIL_UNTRIAGED },
};

static sweep_status_mask fail_word_parse_n(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(fail_words) / sizeof(fail_words[0]); i++)
		if (strlen(fail_words[i].name) == len && !memcmp(fail_words[i].name, name, len))
			return fail_words[i].bit;
	return 0;
}

int sweep_status_mask_parse(const char *list, sweep_status_mask *out, const char **bad_name,
			    size_t *bad_len)
{
	sweep_status_mask m = 0;
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		int s = len ? status_parse_n(p, len) : -1;
		sweep_status_mask word = s < 0 && len ? fail_word_parse_n(p, len) : 0;

		if (s < 0 && !word) {
			*bad_name = p;
			*bad_len = len;
			return -1;
		}
		m |= s < 0 ? word : SWEEP_STATUS_BIT(s);
		p += len;
		if (*p == ',')
			p++;
	}
	*out = m;
	return 0;
}

int sweep_exit_code(const size_t counts[ST__COUNT], size_t untriaged, size_t perf_slower,
		    bool interrupted, sweep_status_mask fail_on)
{
	if (untriaged && (fail_on & SWEEP_FAIL_UNTRIAGED))
		return SWEEP_EXIT_FAILED;
	if (perf_slower && (fail_on & SWEEP_FAIL_PERF_SLOWER))
		return SWEEP_EXIT_FAILED;
	for (int s = 0; s < ST__COUNT; s++)
		if (counts[s] && (fail_on & SWEEP_STATUS_BIT(s)))
			return SWEEP_EXIT_FAILED;
	if (counts[ST_ERROR] || interrupted)
		return SWEEP_EXIT_INFRA;
	return SWEEP_EXIT_OK;
}
