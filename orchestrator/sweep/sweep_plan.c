#include "orchestrator/sweep/sweep_plan.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "preflight/manifest.h"

#define PID_SEARCH_DEPTH 3

static void case_release(struct sweep_case *c)
{
	free(c->name);
	free(c->archive);
	free(c->image);
	free(c->origin);
	free(c->extra_ld);
	free(c->playback);
	strvec_clear(&c->env);
}

void sweep_plan_release(struct sweep_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		case_release(&p->cases[i]);
	free(p->cases);
	p->cases = NULL;
	for (size_t i = 0; i < p->n_captures; i++) {
		capture_manifest_release(p->captures[i]);
		free(p->captures[i]);
	}
	free(p->captures);
	p->captures = NULL;
	p->n_captures = 0;
	p->n = p->alloc = 0;
}

void sweep_plan_shrink(struct sweep_plan *p)
{
	if (p->n && p->n < p->alloc) {
		p->cases = xrealloc(p->cases, p->n * sizeof(*p->cases));
		p->alloc = p->n;
	}
}

struct sweep_case *sweep_plan_push(struct sweep_plan *p)
{
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 16;
		p->cases = xrealloc(p->cases, p->alloc * sizeof(*p->cases));
	}
	struct sweep_case *c = &p->cases[p->n++];

	memset(c, 0, sizeof(*c));
	c->gpu_count = 1;
	c->timeout = c->progress_timeout = c->mount_clr = -1;
	c->expected_s = -1;
	strvec_init(&c->env);
	return c;
}

/* A pid directory has an events.bin; a bad one is still a case (preflight
 * reports it), only a missing one is not. */
static bool has_events(const char *dir)
{
	struct error err;

	return archive_check_events(dir, NULL, &err) == 0 || err.kind != ERR_NOT_FOUND;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* pid-* directories with events.bin below dir, at most depth levels down.
 * Symbolic links are followed, the depth bounds the walk. */
static void find_below(const char *dir, int depth, struct strvec *out)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		cleanup_free char *sub = xasprintf("%s/%s", dir, e->d_name);

		if (!is_dir(sub))
			continue;
		if (!strncmp(e->d_name, "pid-", 4) && has_events(sub))
			strvec_push(out, sub);
		else if (depth > 1)
			find_below(sub, depth - 1, out);
	}
	closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sweep_find_pid_dirs(const char *path, struct strvec *out, struct error *err)
{
	char abs[PATH_MAX];

	if (!realpath(path, abs))
		return error_set(err, ERR_USAGE, 0, "archive %s: %s", path,
				 "no such file or directory");
	if (!is_dir(abs))
		return error_set(err, ERR_USAGE, 0, "archive %s is not a directory", path);
	if (has_events(abs)) {
		strvec_push(out, abs);
		return 0;
	}
	size_t before = out->n;

	find_below(abs, PID_SEARCH_DEPTH, out);
	if (out->n == before)
		return error_set(err, ERR_USAGE, 0,
				 "archive %s holds no pid-* directory with events.bin (searched %d levels)",
				 path, PID_SEARCH_DEPTH);
	qsort(out->v + before, out->n - before, sizeof(char *), cmp_str);
	return 0;
}

/* The pid directory's manifest, read once for every case of it. */
static const struct capture_manifest *plan_capture(struct sweep_plan *p, const char *pid_dir)
{
	struct capture_manifest *c = xcalloc(1, sizeof(*c));

	capture_manifest_load(c, pid_dir);
	p->captures = xrealloc(p->captures, (p->n_captures + 1) * sizeof(*p->captures));
	p->captures[p->n_captures++] = c;
	return c;
}

/* Every argument's pid directories and absolute path, the names of their
 * cases (sweep_case_names), then the cases. */
struct matrix_args {
	struct strvec abs, *dirs, *names;
	size_t n;
};

static void matrix_args_release(struct matrix_args *m)
{
	for (size_t a = 0; a < m->n; a++) {
		strvec_clear(&m->dirs[a]);
		strvec_clear(&m->names[a]);
	}
	free(m->dirs);
	free(m->names);
	strvec_clear(&m->abs);
}

static int matrix_args_find(struct matrix_args *m, const char *const *archives, size_t n,
			    struct error *err)
{
	strvec_init(&m->abs);
	m->dirs = xcalloc(n ? n : 1, sizeof(*m->dirs));
	m->names = xcalloc(n ? n : 1, sizeof(*m->names));
	m->n = n;
	for (size_t a = 0; a < n; a++) {
		char abs[PATH_MAX];

		strvec_init(&m->dirs[a]);
		strvec_init(&m->names[a]);
		if (sweep_find_pid_dirs(archives[a], &m->dirs[a], err) < 0)
			return -1;
		if (!realpath(archives[a], abs))
			return error_errno(err, "archive %s", archives[a]);
		strvec_push(&m->abs, abs);
	}
	sweep_case_names((const char *const *)m->abs.v, m->dirs, n, m->names);
	return 0;
}

int sweep_plan_add_matrix(struct sweep_plan *p, const char *const *archives, size_t n_archives,
			  const char *const *images, size_t n_images, struct error *err)
{
	struct matrix_args m __attribute__((cleanup(matrix_args_release))) = { 0 };

	if (matrix_args_find(&m, archives, n_archives, err) < 0)
		return -1;
	for (size_t a = 0; a < n_archives; a++) {
		for (size_t d = 0; d < m.dirs[a].n; d++) {
			const struct capture_manifest *cap = plan_capture(p, m.dirs[a].v[d]);
			int gpus = capture_manifest_devices(cap) > 0 ? capture_manifest_devices(cap) : 1;

			for (size_t i = 0; i < n_images; i++) {
				struct sweep_case *c = sweep_plan_push(p);

				c->name = xstrdup(m.names[a].v[d]);
				c->archive = xstrdup(m.dirs[a].v[d]);
				c->image = xstrdup(images[i]);
				c->origin = xasprintf("--archive %s", archives[a]);
				c->gpu_count = gpus;
				c->capture = cap;
			}
		}
	}
	return 0;
}

/* A case read back from a sweep folder keeps no origin: it is the plan's. */
#define ORIGIN(c) ((c)->origin ? (c)->origin : "the sweep's plan")

int sweep_plan_check_duplicates(const struct sweep_plan *p, struct error *err)
{
	/* Quadratic is fine up to thousands of cases; a hash would hide the
	 * order the message names them in. */
	for (size_t i = 0; i < p->n; i++)
		for (size_t j = i + 1; j < p->n; j++) {
			const struct sweep_case *a = &p->cases[i], *b = &p->cases[j];

			if (strcmp(a->name, b->name) || strcmp(a->image, b->image))
				continue;
			return error_set(err, ERR_USAGE, 0,
					 "two cases named %s for image %s: %s (%s) and %s (%s); "
					 "give one a \"name\" in a --plan file",
					 a->name, a->image, a->archive, ORIGIN(a), b->archive,
					 ORIGIN(b));
		}
	return 0;
}

bool sweep_label_valid(const char *label)
{
	size_t n = strlen(label);

	if (!n || n > 64 || label[0] == '.' || label[0] == '-')
		return false;
	return strspn(label, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			     "0123456789._-") == n;
}

char *sweep_host_name(void)
{
	char host[256];

	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	return xstrdup(host);
}

void sweep_host_part(const char *host, struct strbuf *out)
{
	if (!host || !*host)
		host = "unknown";
	for (const unsigned char *p = (const unsigned char *)host; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '-')
			strbuf_addch(out, (char)*p);
		else
			strbuf_addf(out, "_%02x", *p);
	}
}

char *sweep_id_make(const char *label, const char *host, time_t when, unsigned random24)
{
	struct strbuf id = STRBUF_INIT;
	struct tm tm;
	char stamp[32];

	gmtime_r(&when, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	strbuf_addf(&id, "%s-%s-", label, stamp);
	sweep_host_part(host, &id);
	strbuf_addf(&id, "-%06x", random24 & 0xffffffu);
	return strbuf_detach(&id, NULL);
}

int sweep_shard_parse(const char *s, unsigned *i, unsigned *n, struct error *err)
{
	const char *arg = s;
	char *end;
	unsigned long a, b;

	a = strtoul(s, &end, 10);
	if (end == s || *end != '/' || s[0] == '-')
		goto bad;
	s = end + 1;
	b = strtoul(s, &end, 10);
	if (end == s || *end || s[0] == '-' || b == 0 || b > 100000 || a >= b)
		goto bad;
	*i = (unsigned)a;
	*n = (unsigned)b;
	return 0;
bad:
	return error_set(err, ERR_USAGE, 0, "--shard wants I/N with 0 <= I < N, not %s", arg);
}

struct by_expected {
	double w;
	size_t k;
	bool unknown; /* before every known one */
};

static int cmp_longest_first(const void *a, const void *b)
{
	const struct by_expected *x = a, *y = b;

	if (x->unknown != y->unknown)
		return x->unknown ? -1 : 1;
	if (x->w != y->w)
		return x->w < y->w ? 1 : -1;
	return (x->k > y->k) - (x->k < y->k);
}

void sweep_shard_balance(const double *expected, size_t n_cases, unsigned n, unsigned *out)
{
	cleanup_free struct by_expected *order = xcalloc(n_cases + 1, sizeof(*order));
	cleanup_free double *load = xcalloc(n ? n : 1, sizeof(double));
	double longest = 0;

	for (size_t k = 0; k < n_cases; k++)
		if (expected[k] > longest)
			longest = expected[k];
	if (longest <= 0)
		longest = 1; /* nothing known: every case alike */
	for (size_t k = 0; k < n_cases; k++)
		order[k] = (struct by_expected){ expected[k] < 0 ? longest : expected[k], k,
						 expected[k] < 0 };
	qsort(order, n_cases, sizeof(*order), cmp_longest_first);
	/* Longest processing time first: within 4/3 of the best split. */
	for (size_t r = 0; r < n_cases; r++) {
		unsigned best = 0;

		for (unsigned s = 1; s < n; s++)
			if (load[s] < load[best])
				best = s;
		load[best] += order[r].w;
		out[order[r].k] = best;
	}
}

size_t *sweep_plan_longest_first(const struct sweep_plan *p, const size_t *idx, size_t n)
{
	cleanup_free struct by_expected *order = xcalloc(n + 1, sizeof(*order));
	size_t *out = xcalloc(n + 1, sizeof(size_t));

	for (size_t j = 0; j < n; j++) {
		double e = p->cases[idx[j]].expected_s;

		order[j] = (struct by_expected){ e, j, e < 0 };
	}
	qsort(order, n, sizeof(*order), cmp_longest_first);
	for (size_t j = 0; j < n; j++)
		out[j] = idx[order[j].k];
	return out;
}

/* Shard i's entries of idx[0..m) (plan indexes) without a result. */
static size_t select_balanced(const struct sweep_plan *p, const size_t *idx, size_t m,
			      const bool *done, unsigned i, unsigned n, size_t *out)
{
	cleanup_free double *w = xcalloc(m + 1, sizeof(double));
	cleanup_free unsigned *to = xcalloc(m + 1, sizeof(unsigned));
	size_t k = 0;

	for (size_t j = 0; j < m; j++)
		w[j] = p->cases[idx[j]].expected_s;
	sweep_shard_balance(w, m, n, to);
	for (size_t j = 0; j < m; j++)
		if (to[j] == i && !(done && done[idx[j]]))
			out[k++] = idx[j];
	return k;
}

size_t sweep_shard_select(const struct sweep_plan *p, const bool *done, int group, unsigned i,
			  unsigned n, size_t *out)
{
	cleanup_free size_t *idx = xcalloc(p->n + 1, sizeof(size_t));
	size_t m = 0;

	for (size_t c = 0; c < p->n; c++)
		if (group <= 0 || p->cases[c].gpu_count == group)
			idx[m++] = c;
	return select_balanced(p, idx, m, done, i, n, out);
}

int sweep_shard_list_parse(const char *text, size_t plan_n, size_t **list, size_t *n,
			   struct error *err)
{
	size_t alloc = 16;

	*n = 0;
	*list = xcalloc(alloc, sizeof(size_t));
	for (const char *p = text; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		char *end;
		unsigned long k = strtoul(p, &end, 10);

		if (end == p || k >= plan_n || (*end && *end != '\n')) {
			free(*list);
			*list = NULL;
			return error_set(err, ERR_USAGE, 0, "'%.*s' is no case of the plan",
					 (int)strcspn(p, "\n"), p);
		}
		if (*n == alloc)
			*list = xrealloc(*list, (alloc *= 2) * sizeof(size_t));
		(*list)[(*n)++] = k;
	}
	return 0;
}

size_t sweep_shard_select_list(const struct sweep_plan *p, const size_t *list, size_t n_list,
			       const bool *done, unsigned i, unsigned n, size_t *out)
{
	return select_balanced(p, list, n_list, done, i, n, out);
}
