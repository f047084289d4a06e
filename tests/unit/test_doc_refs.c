/* What the docs and comments cite exists: every `dir/file.c` or `.h` they
 * name is a file of the tree (relative to the root, or to the citing file's
 * folder for the simulator's includes), and every `name.md "Section"` names
 * a heading of that document (its first words: "GPU leases" stands for
 * "GPU leases (every replay)"). A file moved or a section renamed without
 * its citations fails here, naming the citing file. */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "tests/support/scratch.h"

#define TEXT_MAX (4u << 20)

static struct strvec found = STRVEC_INIT;
static size_t root_len;

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* Not cited text: version control, build trees, test inputs. */
static bool skipped_dir(const char *rel)
{
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	return base[0] == '.' || !strncmp(rel, "build", 5) || !strcmp(rel, "tests/fixtures");
}

static int collect(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *rel = path + root_len + (path[root_len] == '/');

	(void)st;
	(void)ftw;
	if (!*rel)
		return 0;
	if (flag == FTW_D && skipped_dir(rel))
		return FTW_SKIP_SUBTREE;
	/* This file's made-up citations test the checks themselves. */
	if (flag == FTW_F && !strcmp(rel, "tests/unit/test_doc_refs.c"))
		return 0;
	if (flag == FTW_F && (ends_with(rel, ".c") || ends_with(rel, ".h") || ends_with(rel, ".md") ||
			      ends_with(rel, ".1")))
		strvec_push(&found, rel);
	return 0;
}

static void texts(void)
{
	const char *root = test_source_root();

	strvec_clear(&found);
	root_len = strlen(root);
	cr_assert_eq(nftw(root, collect, 16, FTW_PHYS | FTW_ACTIONRETVAL), 0, "walking %s", root);
	cr_assert_gt(found.n, 100, "only %zu files under %s", found.n, root);
}

static void read_rel(const char *rel, struct strbuf *out)
{
	cleanup_free char *path = xasprintf("%s/%s", test_source_root(), rel);
	struct error err;

	strbuf_reset(out);
	cr_assert_geq(fs_read_small_file(path, TEXT_MAX, out, &err), 0, "%s", err.msg);
}

static bool exists_rel(const char *rel)
{
	cleanup_free char *path = xasprintf("%s/%s", test_source_root(), rel);
	struct stat st;

	return stat(path, &st) == 0;
}

static bool path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '/' || c == '-';
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether token names a file from the root or from a folder that holds
 * the citing file rel (a simulator source cites "sim-tools/sim_debug.h"). */
static bool names_a_file(const char *rel, const char *token)
{
	cleanup_free char *dir = xstrdup(rel);
	char *slash;

	if (exists_rel(token))
		return true;
	while ((slash = strrchr(dir, '/'))) {
		cleanup_free char *beside = NULL;

		*slash = '\0';
		beside = xasprintf("%s/%s", dir, token);
		if (exists_rel(beside))
			return true;
	}
	return false;
}

/* Every "a/b.c" or "a/b.h" in text that names no file. */
static void missing_paths(const char *rel, const char *text, struct strvec *bad)
{
	for (const char *p = text; (p = strchr(p, '.')); p++) {
		const char *start = p;
		cleanup_free char *token = NULL;

		if ((p[1] != 'c' && p[1] != 'h') || word_char(p[2]))
			continue;
		while (start > text && path_char(start[-1]))
			start--;
		token = xstrndup(start, (size_t)(p + 2 - start));
		if (!strchr(token, '/') || token[0] == '/' || token[0] == '.' ||
		    (start > text && start[-1] == '<'))
			continue;
		if (!names_a_file(rel, token))
			strvec_pushf(bad, "%s: %s", rel, token);
	}
}

/* Skip blanks and a comment's continuation ("\n * "). */
static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '*')
		p++;
	return p;
}

/* The quoted text at p (after its '"'), a wrapped comment line joined. */
static char *quoted(const char *p, const char **end)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *p && *p != '"'; p++) {
		if (*p == '\n') {
			p = skip_blank(p) - 1;
			strbuf_addch(&sb, ' ');
			continue;
		}
		strbuf_addch(&sb, *p);
	}
	*end = *p ? p + 1 : p;
	return strbuf_detach(&sb, NULL);
}

/* Whether doc (its text) has a heading that is section or starts with it. */
static bool has_heading(const char *doc, const char *section)
{
	size_t n = strlen(section);

	for (const char *line = doc; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *h = line;

		if (*h != '#')
			continue;
		while (*h == '#' || *h == ' ')
			h++;
		if (!strncmp(h, section, n) &&
		    (h[n] == '\n' || h[n] == '\0' || h[n] == ' ' || h[n] == ':' || h[n] == ','))
			return true;
	}
	return false;
}

/* Every name.md "Section" in text whose document lacks that heading. */
static void missing_sections(const char *rel, const char *text, struct strvec *bad)
{
	for (const char *p = text; (p = strstr(p, ".md")); p += 3) {
		const char *start = p, *q = p + 3;
		cleanup_free char *name = NULL, *doc_rel = NULL;
		cleanup_strbuf struct strbuf doc = STRBUF_INIT;

		while (start > text && (word_char(start[-1]) || start[-1] == '-'))
			start--;
		if (start == p || word_char(q[0]))
			continue;
		if (*q == ')')
			q++;
		if (*q != ' ' && *q != '\n')
			continue;
		q = skip_blank(q);
		if (*q != '"')
			continue;
		name = xstrndup(start, (size_t)(p + 3 - start));
		doc_rel = xasprintf("docs/%s", name);
		if (!exists_rel(doc_rel)) {
			free(doc_rel);
			doc_rel = xstrdup(name);
		}
		if (!exists_rel(doc_rel)) {
			strvec_pushf(bad, "%s: %s (no such document)", rel, name);
			continue;
		}
		read_rel(doc_rel, &doc);
		while (*q == '"') {
			cleanup_free char *section = quoted(q + 1, &q);

			if (!has_heading(doc.buf, section))
				strvec_pushf(bad, "%s: %s \"%s\"", rel, name, section);
			if (*q != ',')
				break;
			q = skip_blank(q + 1);
		}
	}
}

static void report(const struct strvec *bad, const char *what)
{
	cleanup_strbuf struct strbuf all = STRBUF_INIT;

	for (size_t i = 0; i < bad->n; i++)
		strbuf_addf(&all, "\n  %s", bad->v[i]);
	cr_expect_eq(bad->n, 0, "%zu %s:%s", bad->n, what, all.buf ? all.buf : "");
}

/* Run check over every collected file; report what it found. */
static void check_tree(void (*check)(const char *rel, const char *text, struct strvec *bad),
		       const char *what)
{
	cleanup_strvec struct strvec bad = STRVEC_INIT;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	texts();
	for (size_t i = 0; i < found.n; i++) {
		read_rel(found.v[i], &text);
		check(found.v[i], text.buf, &bad);
	}
	report(&bad, what);
	strvec_clear(&found);
}

Test(doc_refs, every_cited_c_or_h_path_exists)
{
	check_tree(missing_paths, "citations of files that do not exist");
}

Test(doc_refs, every_cited_doc_section_exists)
{
	check_tree(missing_sections, "citations of doc sections that do not exist");
}

/* The checks can fail: a made-up path and a made-up section are caught. */
Test(doc_refs, a_stale_citation_is_caught)
{
	cleanup_strvec struct strvec bad = STRVEC_INIT;

	missing_paths("orchestrator/cli/x.c", "see orchestrator/replay_unit.c and orchestrator/replay/replay_unit.c",
		      &bad);
	missing_sections("orchestrator/cli/x.c", "(docs/sweep.md \"Results and\n * history\", \"Statuses\")",
			 &bad);
	cr_assert_eq(bad.n, 2);
	cr_assert_str_eq(bad.v[0], "orchestrator/cli/x.c: orchestrator/replay_unit.c");
	cr_assert_str_eq(bad.v[1], "orchestrator/cli/x.c: sweep.md \"Results and history\"");
}
