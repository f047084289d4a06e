/* The README's own commands, run from a copy of it on this machine, so the
 * README cannot drift from what works. Its ```sh blocks run in the source
 * tree with the built binary first on PATH, the test image's tag in place
 * of hrr-sim:dev and this test's workdir; ```sh gpu (a real AMD GPU) and
 * ```sh setup (changes the system) blocks are skipped; every other block
 * must exit 0. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"

TestSuite(run_readme, .init = tenv_init, .fini = tenv_fini, .timeout = 300);

/* The ```sh blocks of text, in order; skipped counts gpu/setup ones. */
static void sh_blocks(const char *text, struct strvec *blocks, size_t *skipped)
{
	cleanup_strbuf struct strbuf cur = STRBUF_INIT;
	enum { OUTSIDE, RUN, SKIP } state = OUTSIDE;
	const char *line = text;

	while (*line) {
		size_t len = strcspn(line, "\n");

		if (state == OUTSIDE && !strncmp(line, "```", 3)) {
			cleanup_free char *info = xstrndup(line + 3, len - 3);

			if (!strcmp(info, "sh"))
				state = RUN;
			else if (!strncmp(info, "sh ", 3))
				state = SKIP;
			else
				state = SKIP + 1; /* another language: not commands */
		} else if (state != OUTSIDE && len == 3 && !strncmp(line, "```", 3)) {
			if (state == RUN)
				strvec_push(blocks, cur.buf);
			else if (state == SKIP)
				(*skipped)++;
			strbuf_reset(&cur);
			state = OUTSIDE;
		} else if (state != OUTSIDE) {
			strbuf_add(&cur, line, len);
			strbuf_addch(&cur, '\n');
		}
		line += len + (line[len] == '\n');
	}
}

/* The block with the test image's tag instead of the demo's. */
static char *retagged(const char *block)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = block, *hit;

	while ((hit = strstr(p, "hrr-sim:dev"))) {
		strbuf_add(&out, p, (size_t)(hit - p));
		strbuf_addstr(&out, test_image("sim"));
		p = hit + strlen("hrr-sim:dev");
	}
	strbuf_addstr(&out, p);
	return strbuf_detach(&out, NULL);
}

Test(run_readme, every_command_block_runs)
{
	char cwd[PATH_MAX];
	const char *bin = getenv("HRR_BIN");
	cleanup_strbuf struct strbuf readme = STRBUF_INIT;
	cleanup_strvec struct strvec blocks = STRVEC_INIT;
	cleanup_free char *copy = xasprintf("%s/README.md", tenv.root);
	cleanup_free char *bindir = xasprintf("%s/bin", tenv.root);
	cleanup_free char *link = xasprintf("%s/hrr-docker-replay", bindir);
	cleanup_free char *cmd = NULL;
	size_t skipped = 0;

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert(read_text("README.md", &readme), "run from the top of the source tree");
	cmd = xasprintf("cp README.md %s && mkdir -p %s && ln -sf %s %s", copy, bindir,
			bin && *bin ? bin : "$PWD/build/hrr-docker-replay", link);
	cr_assert_eq(system(cmd), 0);
	strbuf_reset(&readme);
	cr_assert(read_text(copy, &readme));
	sh_blocks(readme.buf, &blocks, &skipped);
	cr_assert_geq(blocks.n, 3, "the README lost its runnable examples");
	cr_assert_geq(skipped, 2, "the gpu/setup blocks are still marked");

	for (size_t i = 0; i < blocks.n; i++) {
		cleanup_free char *script = xasprintf("%s/block-%zu.sh", tenv.root, i);
		cleanup_free char *log = xasprintf("%s/block-%zu.log", tenv.root, i);
		cleanup_free char *text = retagged(blocks.v[i]);
		cleanup_free char *run = NULL;
		cleanup_strbuf struct strbuf out = STRBUF_INIT;
		FILE *f = fopen(script, "w");
		int status;

		cr_assert_not_null(f);
		/* a sweep's history database in the test's workdir, not $HOME */
		fprintf(f, "set -euo pipefail\ncd '%s'\nexport PATH='%s':\"$PATH\" HRR_BIN='%s' "
			   "HRR_TRIAGE_WORKDIR='%s' XDG_DATA_HOME='%s/data'\n%s", cwd, bindir, link,
			tenv.workdir, tenv.workdir, text);
		fclose(f);
		run = xasprintf("bash %s >%s 2>&1", script, log);
		status = system(run);
		read_text(log, &out);
		cr_assert_eq(status, 0, "README block %zu failed:\n%s\n--- output:\n%s", i,
			     blocks.v[i], out.buf);
	}
}
