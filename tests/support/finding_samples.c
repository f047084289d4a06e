#include "tests/support/finding_samples.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding_json.h"
#include "tests/support/scratch.h"

char *fs_sample_path(const char *name)
{
	return xasprintf("%s/tests/fuzz/corpus/classifier/%s", test_source_root(), name);
}

void fs_sample_read(const char *name, struct strbuf *out)
{
	cleanup_free char *path = fs_sample_path(name);
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[8192];
	ssize_t n;

	cr_assert(fd >= 0, "sample %s: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(out, buf, (size_t)n);
	cr_assert(n == 0, "reading %s: %s", path, strerror(errno));
}

void fs_classify_text(const char *text, size_t len, size_t chunk, const char *source,
		      struct finding *out)
{
	struct classifier *c = classifier_new(source);

	if (!chunk)
		chunk = len ? len : 1;
	for (size_t off = 0; off < len; off += chunk)
		classifier_feed(c, text + off, len - off < chunk ? len - off : chunk);
	classifier_finish(c, out);
	classifier_free(c);
}

void fs_classify_sample(const char *name, struct finding *out)
{
	struct strbuf text = STRBUF_INIT;

	fs_sample_read(name, &text);
	fs_classify_text(text.buf, text.len, 0, name, out);
	strbuf_release(&text);
}

void fs_analyze_sample(const char *name, struct finding *out)
{
	fs_classify_sample(name, out);
	finding_finalize(out, NULL);
}

char *fs_json(const struct finding *f, const struct finding_context *ctx)
{
	cleanup_cjson cJSON *j = finding_to_json(f, ctx);

	cr_assert(j);
	return cJSON_PrintUnformatted(j);
}

void fs_write(const char *path, const char *text)
{
	cleanup_fclose FILE *fp = fopen(path, "w");

	cr_assert(fp, "%s: %s", path, strerror(errno));
	cr_assert(fputs(text, fp) >= 0);
}

bool fs_has_note(const struct finding *f, const char *part)
{
	for (size_t i = 0; i < f->notes.n; i++)
		if (strstr(f->notes.v[i], part))
			return true;
	return false;
}

bool fs_has_label(const struct finding *f, const char *label)
{
	for (size_t i = 0; i < f->labels.n; i++)
		if (!strcmp(f->labels.v[i], label))
			return true;
	return false;
}
