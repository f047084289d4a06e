#include "orchestrator/cluster/slurm.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

int slurm_index_list_parse(const char *s, int *out, size_t max, size_t *n, struct error *err)
{
	const char *p = s;

	*n = 0;
	while (p && *p) {
		char *end;
		long a, b;

		errno = 0;
		a = strtol(p, &end, 10);
		if (end == p || a < 0 || errno)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || errno)
				goto bad;
		}
		for (long i = a; i <= b; i++) {
			if (*n == max)
				return error_set(err, ERR_USAGE, 0, "GPU index list '%s': more than %zu",
						 s, max);
			out[(*n)++] = (int)i;
		}
		if (*end && *end != ',')
			goto bad;
		p = *end ? end + 1 : end;
	}
	if (*n)
		return 0;
bad:
	return error_set(err, ERR_USAGE, 0, "GPU index list '%s' is not like 0-2,5", s ? s : "");
}

/* One "prefix[a-b,c]suffix" or plain word into out (hostlists, File=). */
static int expand_brackets(const char *word, struct strvec *out)
{
	const char *open = strchr(word, '['), *close = open ? strchr(open, ']') : NULL;

	if (!open) {
		strvec_push(out, word);
		return 0;
	}
	if (!close)
		return -1;
	for (const char *p = open + 1; p < close;) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		int width = (int)(end - p);

		if (end == p)
			return -1;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long i = a; i <= b; i++)
			strvec_pushf(out, "%.*s%0*ld%s", (int)(open - word), word, width, i, close + 1);
		p = *end == ',' ? end + 1 : end;
		if (p < close && *end != ',')
			return -1;
	}
	return 0;
}

/* Whether a NodeName= value ("a,b", "n[01-04]", "ALL"?) names node. */
static bool names_node(const char *list, const char *node)
{
	cleanup_strvec struct strvec names = STRVEC_INIT;
	const char *p = list;

	while (*p) {
		size_t len = 0;
		int depth = 0;

		for (; p[len] && (depth || p[len] != ','); len++)
			depth += p[len] == '[' ? 1 : p[len] == ']' ? -1 : 0;
		cleanup_free char *word = xstrndup(p, len);

		if (expand_brackets(word, &names) < 0)
			strvec_push(&names, word);
		p += len + (p[len] == ',');
	}
	for (size_t i = 0; i < names.n; i++)
		if (!strcmp(names.v[i], node))
			return true;
	return false;
}

/* The value of key=... among the line's words, or NULL. */
static const char *word_value(const struct strvec *words, const char *key)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i < words->n; i++)
		if (!strncasecmp(words->v[i], key, kl) && words->v[i][kl] == '=')
			return words->v[i] + kl + 1;
	return NULL;
}

int slurm_gres_gpu_files(const char *text, const char *node, struct strvec *files,
			 struct error *err)
{
	const char *line = text;
	unsigned lineno = 0;

	while (line && *line) {
		size_t len = strcspn(line, "\n");
		cleanup_free char *l = xstrndup(line, len);
		cleanup_strvec struct strvec words = STRVEC_INIT;
		char *save = NULL, *hash = strchr(l, '#');
		const char *name, *nodes, *file;

		lineno++;
		line += len + (line[len] == '\n');
		if (hash)
			*hash = '\0';
		for (char *w = strtok_r(l, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save))
			strvec_push(&words, w);
		name = word_value(&words, "Name");
		nodes = word_value(&words, "NodeName");
		file = word_value(&words, "File");
		if (!name || strcasecmp(name, "gpu") || !file || (nodes && !names_node(nodes, node)))
			continue;
		if (expand_brackets(file, files) < 0)
			return error_set(err, ERR_USAGE, 0, "gres.conf line %u: File=%s is not readable",
					 lineno, file);
	}
	return 0;
}

char *slurm_gres_conf_path(const char *slurm_conf)
{
	const char *conf = slurm_conf && *slurm_conf ? slurm_conf : "/etc/slurm/slurm.conf";
	const char *slash = strrchr(conf, '/');

	if (!slash)
		return xstrdup("gres.conf");
	return xasprintf("%.*s/gres.conf", (int)(slash - conf), conf);
}

long slurm_time_left_parse(const char *s, bool *ok)
{
	long f[4] = { 0 }, days = 0;
	int n = 0;
	const char *p = s;

	*ok = false;
	if (!s || !*s)
		return -2;
	if (!strcmp(s, "UNLIMITED")) {
		*ok = true;
		return SLURM_TIME_UNLIMITED;
	}
	const char *dash = strchr(s, '-');

	if (dash) {
		char *end;

		days = strtol(s, &end, 10);
		if (end != dash || days < 0)
			return -2;
		p = dash + 1;
	}
	while (n < 3) {
		char *end;

		if (!isdigit((unsigned char)*p))
			return -2;
		f[n++] = strtol(p, &end, 10);
		p = end;
		if (*p != ':')
			break;
		p++;
	}
	if (*p)
		return -2;
	*ok = true;
	/* mm:ss, hh:mm:ss; "d-hh" and "d-hh:mm" count from hours. */
	if (dash && n < 3) {
		long h = f[0], m = n > 1 ? f[1] : 0;

		return days * 86400 + h * 3600 + m * 60;
	}
	if (n == 1)
		return f[0] * 60; /* minutes */
	if (n == 2)
		return days * 86400 + f[0] * 60 + f[1];
	return days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
}

unsigned slurm_tasks_for(size_t n_cases, long tasks_opt)
{
	size_t n = tasks_opt > 0 ? (size_t)tasks_opt : SLURM_MAX_TASKS_DEFAULT;

	if (n > n_cases)
		n = n_cases;
	return n ? (unsigned)n : 1;
}

static void push_user_opts(struct strvec *argv, const struct strvec *user)
{
	for (size_t i = 0; user && i < user->n; i++)
		strvec_push(argv, user->v[i]);
}

void slurm_sbatch_array_argv(const struct slurm_array_req *q, struct strvec *argv)
{
	strvec_push(argv, "sbatch");
	strvec_push(argv, "--parsable");
	strvec_pushf(argv, "--job-name=%s", q->job_name);
	if (q->max_running > 0)
		strvec_pushf(argv, "--array=0-%u%%%ld", q->n_tasks - 1, q->max_running);
	else
		strvec_pushf(argv, "--array=0-%u", q->n_tasks - 1);
	strvec_pushf(argv, "--gres=gpu:%d", q->gpus);
	strvec_pushf(argv, "--output=%s", q->output);
	push_user_opts(argv, q->user_opts);
	strvec_push(argv, q->script);
}

void slurm_sbatch_merge_argv(const char *job_name, const char *script, const char *output,
			     const char *const *after, size_t n_after,
			     const struct strvec *user_opts, struct strvec *argv)
{
	cleanup_strbuf struct strbuf dep = STRBUF_INIT;

	strbuf_addstr(&dep, "--dependency=afterany");
	for (size_t i = 0; i < n_after; i++)
		strbuf_addf(&dep, ":%s", after[i]);
	strvec_push(argv, "sbatch");
	strvec_push(argv, "--parsable");
	strvec_pushf(argv, "--job-name=%s", job_name);
	if (n_after)
		strvec_push(argv, dep.buf);
	strvec_pushf(argv, "--output=%s", output);
	push_user_opts(argv, user_opts);
	strvec_push(argv, script);
}

int slurm_parsable_job_id(const char *out, char **id, struct error *err)
{
	size_t len = strspn(out, "0123456789");

	if (!len || (out[len] && out[len] != ';' && out[len] != '\n'))
		return error_set(err, ERR_DATA, 0, "sbatch answered '%.80s', not a job id", out);
	*id = xstrndup(out, len);
	return 0;
}

void slurm_pattern_escape(struct strbuf *out, const char *text)
{
	for (const char *p = text; *p; p++) {
		if (*p == '%')
			strbuf_addch(out, '%');
		strbuf_addch(out, *p);
	}
}

void slurm_shell_quote(struct strbuf *out, const char *text)
{
	strbuf_addch(out, '\'');
	for (const char *p = text; *p; p++)
		if (*p == '\'')
			strbuf_addstr(out, "'\\''");
		else
			strbuf_addch(out, *p);
	strbuf_addch(out, '\'');
}
