/* The option table, shared by the parser (options.c) and the help
 * (options_help.c): one row per option, its env twin and the commands
 * that take it, in slices (each module's rows with the code that applies
 * them). Internal to the command layer. */
#ifndef HRR_CLI_OPTIONS_TABLE_H
#define HRR_CLI_OPTIONS_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/cli/option_ids.h"
#include "common/error.h"
#include "orchestrator/cli/command_ids.h"

struct options;
struct sweep_options;

/* Which commands take an option. */
#define FOR_RUN (1u << CMD_RUN)
#define FOR_PREFLIGHT (1u << CMD_PREFLIGHT)
#define FOR_GC (1u << CMD_GC)
#define FOR_ANALYZE (1u << CMD_ANALYZE)
#define FOR_SWEEP (1u << CMD_SWEEP)
#define FOR_HISTORY (1u << CMD_HISTORY)
#define FOR_BISECT (1u << CMD_BISECT)
#define FOR_REPLAY (FOR_RUN | FOR_PREFLIGHT)
#define FOR_ALL (FOR_RUN | FOR_PREFLIGHT | FOR_GC | FOR_ANALYZE | FOR_SWEEP | FOR_HISTORY | FOR_BISECT)

struct option_def {
	enum option_id id;
	const char *name;
	char short_name;
	const char *arg;  /* NULL: a flag */
	const char *env;  /* the env twin, or NULL */
	unsigned commands;
	const char *help;
};

/* Apply one option of a slice: val from argv, or from its env twin
 * (from_env); `from` names the source for messages: "--timeout" or
 * "HRR_REPLAY_TIMEOUT". */
typedef int option_apply_fn(struct options *o, enum option_id id, const char *val,
			    const char *from, bool from_env, struct error *err);
/* The same for a slice that sets only struct sweep_options (the sweep's,
 * history's and bisection's options): the parser hands it o->sweep, so
 * its file needs neither orchestrator/cli/options.h nor a way back into the parser. */
typedef int sweep_option_apply_fn(struct sweep_options *s, enum option_id id, const char *val,
				  const char *from, bool from_env, struct error *err);

/* One module's rows and the code that applies them, in that module's
 * file; options.c lists the slices. Exactly one of the two is set. */
struct option_slice {
	const struct option_def *rows;
	size_t n;
	option_apply_fn *apply;
	sweep_option_apply_fn *apply_sweep;
};

/* A slice's definition, next to its rows: the count follows the array. */
#define OPTION_SLICE(rows, apply) { rows, sizeof(rows) / sizeof((rows)[0]), apply, NULL }
#define SWEEP_OPTION_SLICE(rows, apply) { rows, sizeof(rows) / sizeof((rows)[0]), NULL, apply }

extern const struct option_slice replay_option_slice;  /* orchestrator/cli/replay_options.c */
extern const struct option_slice sweep_option_slice;   /* orchestrator/cli/sweep_options.c */
extern const struct option_slice history_option_slice; /* orchestrator/cli/history_options.c */
extern const struct option_slice bisect_option_slice;  /* orchestrator/cli/bisect_options.c */
extern const struct option_slice perf_option_slice;    /* orchestrator/cli/perf_options.c */
extern const struct option_slice general_option_slice; /* orchestrator/cli/general_options.c */

/* Every row, slice after slice, in the order --help lists them. */
size_t option_count(void);
const struct option_def *option_at(size_t i);

/* --format, --engine, --pull, --devices, --diagnose: one word of a fixed
 * set each (orchestrator/cli/option_choices.c). */
int options_apply_choice(struct options *o, enum option_id id, const char *val,
			 const char *from, struct error *err) __attribute__((warn_unused_result));

/* Whether cmd takes d: a sweep takes every run option but --gpu and -o
 * (each case gets them), plus its own; a bisection the sweep's run
 * options but --image (its images are the candidates), plus its own. */
bool option_applies(const struct option_def *d, enum command cmd);

#endif
