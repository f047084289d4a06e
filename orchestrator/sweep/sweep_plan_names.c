/* The default names of the cases of several --archive arguments (the case
 * names of docs/sweep.md "Commands"): every capture root is called
 * capture.hrr, so names from separate arguments may collide; those
 * arguments' names grow by parent directories until they differ. Pure:
 * paths in, names out. */
#include "orchestrator/sweep/sweep_plan.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

char *sweep_case_name(const char *arg_abs, const char *pid_dir_abs)
{
	size_t alen = strlen(arg_abs);

	while (alen > 1 && arg_abs[alen - 1] == '/')
		alen--;
	const char *last = arg_abs + alen;

	while (last > arg_abs && last[-1] != '/')
		last--;
	size_t llen = (size_t)(arg_abs + alen - last);

	if (!llen) /* the root directory itself */
		return xstrdup(pid_dir_abs[0] == '/' ? pid_dir_abs + 1 : pid_dir_abs);
	if (!strncmp(pid_dir_abs, arg_abs, alen) && pid_dir_abs[alen] == '/')
		return xasprintf("%.*s/%s", (int)llen, last, pid_dir_abs + alen + 1);
	return xstrndup(last, llen);
}

char *sweep_case_name_at(const char *arg_abs, const char *pid_dir_abs, int parents)
{
	char *name = sweep_case_name(arg_abs, pid_dir_abs);
	size_t alen = strlen(arg_abs);

	while (alen > 1 && arg_abs[alen - 1] == '/')
		alen--;
	/* Step back over the argument's last component, then over parents. */
	size_t end = alen;

	while (end > 0 && arg_abs[end - 1] != '/')
		end--;
	size_t start = end;

	for (int k = 0; k < parents && start > 1; k++) {
		start--; /* the '/' before */
		while (start > 0 && arg_abs[start - 1] != '/')
			start--;
	}
	if (start == end)
		return name;
	char *grown = xasprintf("%.*s%s", (int)(end - start), arg_abs + start, name);

	free(name);
	return grown;
}

int sweep_case_name_parents_max(const char *arg_abs)
{
	int n = 0;
	size_t alen = strlen(arg_abs);

	while (alen > 1 && arg_abs[alen - 1] == '/')
		alen--;
	for (size_t i = 1; i < alen; i++) /* a '/' after the first starts a component */
		if (arg_abs[i] == '/' && arg_abs[i - 1] != '/')
			n++;
	return n;
}

struct named {
	const char *name;
	size_t arg;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->arg > y->arg) - (x->arg < y->arg);
}

/* Marks grow[a] for every argument a whose names meet another argument's
 * and that still has a parent to add. Returns how many it marked. */
static size_t mark_collisions(const struct strvec *names, size_t n_args, const int *parents,
			      const int *max, bool *grow)
{
	size_t total = 0, k = 0, marked = 0;

	for (size_t a = 0; a < n_args; a++)
		total += names[a].n;
	cleanup_free struct named *all = xcalloc(total ? total : 1, sizeof(*all));

	for (size_t a = 0; a < n_args; a++)
		for (size_t d = 0; d < names[a].n; d++)
			all[k++] = (struct named){ names[a].v[d], a };
	qsort(all, total, sizeof(*all), cmp_named);
	memset(grow, 0, n_args * sizeof(*grow));
	for (size_t i = 0; i < total;) {
		size_t j = i + 1;

		while (j < total && !strcmp(all[j].name, all[i].name))
			j++;
		/* Sorted by argument within a run: first and last differ iff
		 * more than one argument made this name. */
		if (all[i].arg != all[j - 1].arg)
			for (size_t r = i; r < j; r++) {
				size_t a = all[r].arg;

				if (!grow[a] && parents[a] < max[a]) {
					grow[a] = true;
					marked++;
				}
			}
		i = j;
	}
	return marked;
}

void sweep_case_names(const char *const *args_abs, const struct strvec *pid_dirs, size_t n_args,
		      struct strvec *names)
{
	cleanup_free int *parents = xcalloc(n_args ? n_args : 1, sizeof(int));
	cleanup_free int *max = xcalloc(n_args ? n_args : 1, sizeof(int));
	cleanup_free bool *grow = xcalloc(n_args ? n_args : 1, sizeof(bool));

	for (size_t a = 0; a < n_args; a++)
		max[a] = sweep_case_name_parents_max(args_abs[a]);
	for (;;) {
		for (size_t a = 0; a < n_args; a++) {
			strvec_clear(&names[a]);
			for (size_t d = 0; d < pid_dirs[a].n; d++)
				strvec_push_nodup(&names[a], sweep_case_name_at(args_abs[a],
										pid_dirs[a].v[d],
										parents[a]));
		}
		/* Each round adds a parent to at least one argument, and no
		 * argument has more than its path holds: this ends. The same
		 * directory given twice stays a collision for the duplicate
		 * check to name. */
		if (!mark_collisions(names, n_args, parents, max, grow))
			return;
		for (size_t a = 0; a < n_args; a++)
			parents[a] += grow[a];
	}
}
