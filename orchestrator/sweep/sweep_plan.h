/* A sweep's case list (docs/sweep.md "Commands", "Options"):
 * the matrix of --archive x --image, the cases of a --plan file, their
 * names, the sweep id, and the shard a task runs. plan.json is this list in
 * a fixed order; every later step (workers, resume, shards, the merge)
 * reads it back instead of expanding again. */
#ifndef HRR_SWEEP_SWEEP_PLAN_H
#define HRR_SWEEP_SWEEP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "preflight/manifest.h"

struct sweep_case {
	char *name;          /* relative name, history key with the image */
	char *archive;       /* absolute pid directory */
	char *image;         /* reference as given */
	char *origin;        /* where it came from, for error messages; NULL:
			      * read back from the sweep folder */
	int gpu_count;       /* >= 1 */
	int timeout;         /* seconds; -1: the run option */
	int progress_timeout;/* seconds; -1: the run option */
	int mount_clr;       /* -1: the run option, else 0/1 */
	char *extra_ld;      /* NULL: the run option */
	char *playback;      /* NULL: the run option */
	struct strvec env;   /* KEY=VALUE added to the run's --env */
	/* The capture's manifest, read once when the plan was made from
	 * --archive (its device count is gpu_count) and handed to the worker;
	 * NULL (a --plan file, a plan read back): the worker reads it. Owned
	 * by the plan. */
	const struct capture_manifest *capture;
	double expected_s;   /* how long the history says it runs; < 0 unknown */
};

struct sweep_plan {
	struct sweep_case *cases;
	size_t n, alloc;
	struct capture_manifest **captures; /* what the cases' capture point to */
	size_t n_captures;
};

void sweep_plan_release(struct sweep_plan *p);
/* The case array no larger than its cases (a plan read back is held for
 * the whole sweep). */
void sweep_plan_shrink(struct sweep_plan *p);
/* A new case at the end, with defaults (gpu_count 1, the rest unset). */
struct sweep_case *sweep_plan_push(struct sweep_plan *p);

/* The pid directories under an --archive argument: the directory itself when
 * it holds events.bin, else every pid-* directory with events.bin found to
 * depth 3, sorted. Absolute paths. None found: ERR_USAGE naming path. */
int sweep_find_pid_dirs(const char *path, struct strvec *out, struct error *err)
	__attribute__((warn_unused_result));

/* Pure: the default case name of pid_dir found under arg: arg's last
 * component, then pid_dir relative to arg ("library/vllm/capture.hrr/pid-1").
 * Both absolute and canonical. */
char *sweep_case_name(const char *arg_abs, const char *pid_dir_abs);
/* Pure: the same prefixed with the argument's last `parents` parent
 * directories ("a/capture.hrr/pid-1" for /x/a/capture.hrr at 1). */
char *sweep_case_name_at(const char *arg_abs, const char *pid_dir_abs, int parents);
/* Pure: how many parent directories arg_abs has (2 for /x/a/capture.hrr). */
int sweep_case_name_parents_max(const char *arg_abs);
/* Pure: the names of the cases of n_args --archive arguments (args_abs[a],
 * its pid directories pid_dirs[a]) into names[a], one per pid directory.
 * Each is sweep_case_name's; when names of separate arguments meet, each of
 * those arguments adds parent directories, one at a time, until none meet
 * (or it has none left). A name that met none keeps its form. */
void sweep_case_names(const char *const *args_abs, const struct strvec *pid_dirs, size_t n_args,
		      struct strvec *names);

/* Every pid dir of every archive against every image (archive order, then
 * image order). gpu_count from the manifest's device_count (1 without). */
int sweep_plan_add_matrix(struct sweep_plan *p, const char *const *archives, size_t n_archives,
			  const char *const *images, size_t n_images, struct error *err)
	__attribute__((warn_unused_result));

/* The cases of a --plan file. Relative archive paths are relative to the
 * plan file's directory. Not JSON, a missing field, a wrong type or a
 * missing archive: ERR_USAGE naming the file and the case. */
int sweep_plan_add_file(struct sweep_plan *p, const char *plan_path, struct error *err)
	__attribute__((warn_unused_result));
/* The same from text (path only names it in messages; base_dir resolves
 * relative archives). */
int sweep_plan_add_json(struct sweep_plan *p, const char *text, const char *path,
			const char *base_dir, struct error *err) __attribute__((warn_unused_result));

/* Two cases with the same name and image: ERR_USAGE naming both archives. */
int sweep_plan_check_duplicates(const struct sweep_plan *p, struct error *err)
	__attribute__((warn_unused_result));

/* What plan.json keeps of a case's env value (sweep_plan_json.h). */
#define SWEEP_NOT_RECORDED "<not recorded>"

/* A label is [A-Za-z0-9._-]{1,64}, not starting with '.' or '-': it becomes
 * part of a folder name. */
bool sweep_label_valid(const char *label);
/* The host's name (gethostname), "unknown" without one: a sweep's host.
 * Caller frees. */
char *sweep_host_name(void);
/* Pure: host as a part of a folder name, one to one (two hosts never
 * give the same part): letters, digits, '.' and '-' as they are, any other
 * byte '_' and two hex digits; an empty or missing host is "unknown". */
void sweep_host_part(const char *host, struct strbuf *out);
/* Pure: "<label>-<YYYYmmddTHHMMSSZ>-<host part>-<6 hex>" from a UTC time,
 * the host that runs the sweep and 24 random bits: two hosts never make
 * the same id. (Ids before the host part, "<label>-<stamp>-<6 hex>", are
 * still ids: nothing reads an id's parts back.) */
char *sweep_id_make(const char *label, const char *host, time_t when, unsigned random24);

/* "I/N" with 0 <= I < N. */
int sweep_shard_parse(const char *s, unsigned *i, unsigned *n, struct error *err)
	__attribute__((warn_unused_result));
/* Pure: a copy of the plan indexes idx[0..n) ordered longest expected_s
 * first, unknown ones before all (ties in the given order). Caller frees. */
size_t *sweep_plan_longest_first(const struct sweep_plan *p, const size_t *idx, size_t n);
/* Pure: which of n shards each of n_cases cases goes to (out[k]), balanced
 * by expected duration: longest first (unknown ones first, as long as the
 * longest known, ties in the given order), each to the shard expecting the
 * least so far (ties to the lowest). Cases with nothing known go round
 * robin, as `k mod n`. */
void sweep_shard_balance(const double *expected, size_t n_cases, unsigned n, unsigned *out);
/* The cases shard I/N runs: among the cases with gpu_count == group (0: all
 * cases form one group), balanced over N by expected_s
 * (sweep_shard_balance), those sent to I that have no result yet (done[k]
 * false). Returns the count written to out (plan indexes, plan order). */
size_t sweep_shard_select(const struct sweep_plan *p, const bool *done, int group, unsigned i,
			  unsigned n, size_t *out);
/* A cluster array's cases file (plan indexes, one a line) into list
 * (caller frees); an index outside the plan is ERR_USAGE. */
int sweep_shard_list_parse(const char *text, size_t plan_n, size_t **list, size_t *n,
			   struct error *err) __attribute__((warn_unused_result));
/* Shard I/N of such a list: its entries balanced over N by the plan's
 * expected_s (sweep_shard_balance), those sent to I without a result yet
 * (done[plan index] false). The list is fixed when the array is
 * submitted, and the plan with it, so tasks starting after others
 * finished split it alike. Returns the count written to out. */
size_t sweep_shard_select_list(const struct sweep_plan *p, const size_t *list, size_t n_list,
			       const bool *done, unsigned i, unsigned n, size_t *out);

#endif
