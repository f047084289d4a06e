#include "orchestrator/jobs/sweep_cases.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

char *sweep_cases_task_tag(const struct sweep_work *j)
{
	return j->req->have_shard ? sweep_backends_task_tag() : NULL;
}

char *sweep_cases_results_path(const char *folder, const char *tag)
{
	return tag ? xasprintf("%s/results.%s.jsonl", folder, tag)
		   : xasprintf("%s/%s", folder, SWEEP_RESULTS_FILE);
}

/* A shard I/N of the listed plan indexes (what a submission wrote for
 * one array when it submitted it). */
static int shard_of_list(const struct sweep_work *j, const bool *done, size_t *cases, size_t *n,
			 struct error *err)
{
	const struct sweep_request *req = j->req;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_free size_t *list = NULL;
	size_t n_list;

	if (fs_read_small_file(req->shard_cases, 16u << 20, &text, err) < 0 ||
	    sweep_shard_list_parse(text.buf, j->meta.plan.n, &list, &n_list, err) < 0)
		return error_prefix(err, "--shard-cases %s: ", req->shard_cases);
	*n = sweep_shard_select_list(&j->meta.plan, list, n_list, done, req->shard_i, req->shard_n,
				     cases);
	return 0;
}

int sweep_cases_select(struct sweep_work *j, size_t **cases, size_t *n, int **next_attempt,
		       struct error *err)
{
	const struct sweep_request *req = j->req;
	size_t np = j->meta.plan.n;
	bool *done = xcalloc(np + 1, sizeof(bool));

	*cases = xcalloc(np + 1, sizeof(size_t));
	*next_attempt = xcalloc(np + 1, sizeof(int));
	if (sweep_done_cases_read(&j->meta.plan, j->folder, done, *next_attempt, NULL, err) < 0) {
		free(done);
		return -1;
	}
	if (req->shard_cases) {
		if (shard_of_list(j, done, *cases, n, err) < 0) {
			free(done);
			return -1;
		}
	} else if (req->have_shard)
		*n = sweep_shard_select(&j->meta.plan, done, 0, req->shard_i, req->shard_n, *cases);
	else
		for (size_t i = *n = 0; i < np; i++)
			if (!done[i])
				(*cases)[(*n)++] = i;
	free(done);
	return 0;
}
