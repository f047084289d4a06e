/* The plan's cases file in a sweep folder (docs/formats.md "Sweep plan files"):
 * one case a line, in plan order, so a large sweep's plan is read a line
 * at a time and never parsed whole. */
#ifndef HRR_SWEEP_SWEEP_PLAN_LINES_H
#define HRR_SWEEP_SWEEP_PLAN_LINES_H

#include <stddef.h>

#include "common/error.h"
#include "orchestrator/sweep/sweep_plan.h"

/* Pure: line lineno of the cases file path (its text without the
 * newline, len bytes) as a new case at the end of p. Not one JSON object,
 * a NUL in it, or a case that is not one: ERR_DATA naming path and line. */
int sweep_plan_line_add(struct sweep_plan *p, const char *line, size_t len, const char *path,
			size_t lineno, struct error *err) __attribute__((warn_unused_result));

/* Every case of p as a compact JSON object a line (each case's env names,
 * the values "<not recorded>": they go to the private file), to path
 * (0644), in place at once as fs_write_atomic puts a file. */
int sweep_plan_lines_write(const struct sweep_plan *p, const char *path, struct error *err)
	__attribute__((warn_unused_result));

/* The cases of path a line at a time onto p; the file must hold n_cases
 * whole lines (what plan.json says it holds): fewer, more, a line cut
 * short or a bad one is ERR_DATA naming path (and the line). Opened as
 * fs_read_small_file opens: a regular file, at most max_bytes. */
int sweep_plan_lines_read(struct sweep_plan *p, const char *path, size_t n_cases,
			  size_t max_bytes, struct error *err) __attribute__((warn_unused_result));

#endif
