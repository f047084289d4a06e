#include "preflight/gpu_choice.h"

#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/strbuf.h"

static void choice_reset(struct gpu_choice *c)
{
	c->n = 0;
	c->error[0] = '\0';
}

int gpu_choice_named(struct gpu_choice *c, const struct gpu_topology *host, const int *gpus,
		     size_t n, const char *from_env)
{
	cleanup_strbuf struct strbuf msg = STRBUF_INIT;

	choice_reset(c);
	if (!host)
		return 0;
	for (size_t i = 0; i < n && i < GPU_MAX; i++) {
		int g = gpus[i];

		if (g >= 0 && (size_t)g < host->n_gpus) {
			c->gpus[c->n++] = g;
			continue;
		}
		strbuf_addf(&msg, "requested replay GPU %d but replay environment only has %zu GPU(s)",
			    g, host->n_gpus);
		if (host->n_gpus)
			strbuf_addf(&msg, " (0..%zu)", host->n_gpus - 1);
		if (from_env) {
			strbuf_addf(&msg, " (%s=", from_env);
			gpu_list_format(&msg, gpus, n);
			strbuf_addstr(&msg, " from the environment)");
		}
		snprintf(c->error, sizeof(c->error), "%s", msg.buf);
		c->n = 0;
		return -1;
	}
	return 0;
}

size_t gpu_choice_need(int device_count, const struct gpu_topology *host)
{
	size_t need = device_count < 1 ? 1 : (size_t)device_count;

	if (need > host->n_gpus)
		need = host->n_gpus;
	return need > GPU_MAX ? GPU_MAX : need;
}

void gpu_choice_lowest(struct gpu_choice *c, size_t need)
{
	choice_reset(c);
	for (size_t i = 0; i < need && i < GPU_MAX; i++)
		c->gpus[c->n++] = (int)i;
}

void gpu_choice_given(struct gpu_choice *c, const int *gpus, size_t n)
{
	choice_reset(c);
	for (size_t i = 0; i < n && i < GPU_MAX; i++)
		c->gpus[c->n++] = gpus[i];
}
