#include "orchestrator/report/result_marks.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

/* As much as the sweep's own reader takes of one results file. */
#define MARKS_FILE_MAX (256u << 20)

static char *dup_or_null(const cJSON *o, const char *k)
{
	const char *s = json_str(o, k);

	return s ? xstrdup(s) : NULL;
}

static void mark_clear(struct result_mark *k)
{
	char **s[] = { &k->sig_id, &k->sig_class, &k->sig_family, &k->known_id, &k->known_link,
		       &k->known_owner };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		free(*s[i]);
		*s[i] = NULL;
	}
}

static struct result_mark *slot(struct result_marks *m, const char *case_name, const char *image)
{
	for (size_t i = m->n; i-- > 0;)
		if (!strcmp(m->v[i].case_name, case_name) && !strcmp(m->v[i].image, image))
			return &m->v[i];
	if (m->n == m->alloc) {
		m->alloc = m->alloc ? 2 * m->alloc : 32;
		m->v = xrealloc(m->v, m->alloc * sizeof(*m->v));
	}
	memset(&m->v[m->n], 0, sizeof(m->v[0]));
	m->v[m->n].case_name = xstrdup(case_name);
	m->v[m->n].image = xstrdup(image);
	return &m->v[m->n++];
}

void result_marks_add_line(struct result_marks *m, const char *line)
{
	cleanup_cjson cJSON *j = cJSON_Parse(line);
	const char *case_name = json_str(j, "case"), *image = json_str(j, "image");
	const cJSON *att = cJSON_GetObjectItemCaseSensitive(j, "attempt");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(j, "signature");
	const cJSON *known = cJSON_GetObjectItemCaseSensitive(j, "known");
	int attempt = cJSON_IsNumber(att) ? att->valueint : 0;
	struct result_mark *k;

	if (!case_name || !image)
		return;
	k = slot(m, case_name, image);
	if (attempt < k->attempt)
		return;
	k->attempt = attempt;
	mark_clear(k);
	if (!cJSON_IsObject(sig) || !json_str(sig, "id"))
		return;
	k->sig_id = dup_or_null(sig, "id");
	k->sig_class = dup_or_null(sig, "fault_class");
	k->sig_family = dup_or_null(sig, "kernel_family");
	if (cJSON_IsObject(known) && json_str(known, "id")) {
		k->known_id = dup_or_null(known, "id");
		k->known_link = dup_or_null(known, "link");
		k->known_owner = dup_or_null(known, "owner");
	}
}

static int is_results_file(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return !strncmp(e->d_name, "results", 7) && n >= 13 && !strcmp(e->d_name + n - 6, ".jsonl");
}

/* Whole lines only: a torn last line is skipped, as the sweep skips it. */
static void load_file(struct result_marks *m, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	cleanup_fclose FILE *f = NULL;
	cleanup_free char *line = NULL;
	size_t cap = 0, total = 0;
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	while ((n = getline(&line, &cap, f)) > 0 && (total += (size_t)n) <= MARKS_FILE_MAX)
		if (line[n - 1] == '\n' && strlen(line) == (size_t)n) {
			line[n - 1] = '\0';
			result_marks_add_line(m, line);
		}
}

static int by_case(const void *a, const void *b)
{
	const struct result_mark *x = a, *y = b;
	int c = strcmp(x->case_name, y->case_name);

	return c ? c : strcmp(x->image, y->image);
}

void result_marks_sort(struct result_marks *m)
{
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), by_case);
}

void result_marks_load(struct result_marks *m, const char *folder)
{
	struct dirent **names;
	int n = scandir(folder, &names, is_results_file, alphasort);

	for (int i = 0; i < n; i++) {
		cleanup_free char *path = xasprintf("%s/%s", folder, names[i]->d_name);

		load_file(m, path);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	result_marks_sort(m);
}

const struct result_mark *result_marks_find(const struct result_marks *m, const char *case_name,
					    const char *image)
{
	struct result_mark key = { .case_name = (char *)case_name, .image = (char *)image };
	const struct result_mark *k = m->n ? bsearch(&key, m->v, m->n, sizeof(*m->v), by_case) : NULL;

	return k && k->sig_id ? k : NULL;
}

void result_marks_release(struct result_marks *m)
{
	for (size_t i = 0; i < m->n; i++) {
		mark_clear(&m->v[i]);
		free(m->v[i].case_name);
		free(m->v[i].image);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}
