#include "tests/support/report_text.h"

#include <stdio.h>
#include <stdlib.h>

#include "orchestrator/cli/sweep_exit.h"

typedef int (*to_file_fn)(const void *ctx, FILE *f, struct error *err);

/* What fn writes, appended to out: the stream's text and length are set
 * by fclose, so they are read only after it. */
static int text_of(to_file_fn fn, const void *ctx, struct strbuf *out, struct error *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f)
		return -1;
	rc = fn(ctx, f, err);
	fclose(f);
	strbuf_add(out, text, len);
	free(text);
	return rc;
}

struct render_call {
	report_render_fn fn;
	const struct report *r;
};

static int render_call(const void *ctx, FILE *f, struct error *err)
{
	const struct render_call *c = ctx;

	return c->fn(c->r, f, err);
}

int report_text(report_render_fn fn, const struct report *r, struct strbuf *out,
		struct error *err)
{
	struct render_call c = { fn, r };

	return text_of(render_call, &c, out, err);
}

struct sweep_call {
	struct history_db *db;
	const struct sweep_meta *m;
	const char *folder;
	const struct sweep_finish *fin;
	int *exit_code;
};

static int sweep_call(const void *ctx, FILE *f, struct error *err)
{
	const struct sweep_call *c = ctx;
	enum sweep_end end = SWEEP_END_INFRA;
	int rc = sweep_finish_write(c->db, c->m, c->folder, c->fin, &end, f, err);

	/* The tests assert the command's exit code. */
	*c->exit_code = sweep_exit_of(end);
	return rc;
}

int report_text_sweep(struct history_db *db, const struct sweep_meta *m, const char *folder,
		      const struct sweep_finish *fin, int *exit_code, struct strbuf *out,
		      struct error *err)
{
	struct sweep_call c = { db, m, folder, fin, exit_code };

	return text_of(sweep_call, &c, out, err);
}
