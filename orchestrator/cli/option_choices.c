/* The options whose value is one word of a fixed set (options_table.h). */
#include "orchestrator/cli/options.h"
#include "orchestrator/cli/options_table.h"

#include <string.h>

/* The options whose value is one word of a fixed set: the words, the value
 * each stands for, and what the error lists. */
struct choice {
	const char *word;
	int value;
};

static const struct choice format_choices[] = {
	{ "markdown", FORMAT_MARKDOWN }, { "md", FORMAT_MARKDOWN }, { "json", FORMAT_JSON }, { 0 }
};
static const struct choice engine_choices[] = {
	{ "auto", ENGINE_MODE_AUTO }, { "podman-service", ENGINE_MODE_PODMAN_SERVICE }, { 0 }
};
static const struct choice pull_choices[] = {
	{ "missing", PULL_MISSING }, { "always", PULL_ALWAYS }, { "never", PULL_NEVER }, { 0 }
};

static const struct choice devices_choices[] = {
	{ "auto", DEVICES_AUTO }, { "nodes", DEVICES_NODES }, { "cdi", DEVICES_CDI }, { 0 }
};

static int pick_choice(const struct choice *c, const char *val, const char *from,
		       const char *what, const char *words, int *out, struct error *err)
{
	for (; c->word; c++)
		if (!strcmp(c->word, val)) {
			*out = c->value;
			return 0;
		}
	return error_set(err, ERR_USAGE, 0, "%s: '%s' is not %s; use %s", from, val, what, words);
}

int options_apply_choice(struct options *o, enum option_id id, const char *val,
			 const char *from, struct error *err)
{
	int v = 0;

	switch (id) {
	case OPT_FORMAT:
		if (pick_choice(format_choices, val, from, "a format", "markdown or json", &v, err) < 0)
			return -1;
		o->format = (enum output_format)v;
		return 0;
	case OPT_ENGINE:
		if (pick_choice(engine_choices, val, from, "an engine mode", "auto or podman-service",
				&v, err) < 0)
			return -1;
		o->engine_mode = (enum engine_mode)v;
		return 0;
	case OPT_PULL:
		if (pick_choice(pull_choices, val, from, "a pull policy", "always, missing or never",
				&v, err) < 0)
			return -1;
		o->pull = (enum pull_policy)v;
		return 0;
	case OPT_DEVICES:
		if (pick_choice(devices_choices, val, from, "a device mode", "nodes, cdi or auto", &v,
				err) < 0)
			return -1;
		o->devices = (enum device_mode)v;
		return 0;
	case OPT_DIAGNOSE:
		if (diagnose_mode_parse(val, &o->diagnose, err) < 0)
			return error_set(err, ERR_USAGE, 0,
					 "%s: '%s' is not a diagnose mode; use off, auto, agent, hang or all",
					 from, val);
		return 0;
	default:
		return error_set(err, ERR_USAGE, 0, "internal: %s is not a choice", from);
	}
}
