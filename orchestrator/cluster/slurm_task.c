#include "orchestrator/cluster/slurm_task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/cluster/slurm.h"
#include "preflight/topology.h"

#define DRM_MAJOR 226

bool slurm_task_here(void)
{
	const char *id = getenv("SLURM_JOB_ID");

	return id && *id;
}

int slurm_task_map(const int *indexes, size_t n, const struct strvec *files,
		   const int *file_minors, const struct gpu_topology *topo, int *ordinals,
		   struct error *err)
{
	for (size_t i = 0; i < n; i++) {
		int idx = indexes[i], minor;
		size_t g;

		if (idx < 0 || (size_t)idx >= files->n)
			return error_set(err, ERR_DATA, 0,
					 "Slurm allocated GPU index %d, but gres.conf lists %zu GPU "
					 "file(s) for this node",
					 idx, files->n);
		minor = file_minors[idx];
		if (minor < 0)
			return error_set(err, ERR_DATA, 0,
					 "gres.conf GPU %d (%s) is not a DRM render node", idx,
					 files->v[idx]);
		for (g = 0; g < topo->n_gpus && topo->gpus[g].drm_render_minor != minor; g++)
			;
		if (g == topo->n_gpus)
			return error_set(err, ERR_DATA, 0,
					 "gres.conf GPU %d (%s, render minor %d) is no KFD GPU of this "
					 "host",
					 idx, files->v[idx], minor);
		ordinals[i] = (int)g;
	}
	return 0;
}

/* The slurm.conf in force: SLURM_CONF, else scontrol's word, else NULL. */
static char *slurm_conf(const struct slurm_runner *run)
{
	const char *env = getenv("SLURM_CONF");
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct error err;
	const char *p;

	if (env && *env)
		return xstrdup(env);
	if (slurm_run_ok(run, (const char *const[]){ "scontrol", "show", "config", NULL }, &out,
			 &err) < 0 ||
	    !(p = strstr(out.buf, "\nSLURM_CONF")))
		return NULL;
	p = strchr(p, '=');
	if (!p)
		return NULL;
	p += strspn(p, "= ");
	return xstrndup(p, strcspn(p, " \n"));
}

static char *node_name(void)
{
	const char *env = getenv("SLURMD_NODENAME");
	char host[256];

	if (env && *env)
		return xstrdup(env);
	if (gethostname(host, sizeof(host)) < 0)
		return xstrdup("localhost");
	host[sizeof(host) - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	return xstrdup(host);
}

int slurm_task_gpus(const struct slurm_runner *run, const struct gpu_topology *topo,
		    int *ordinals, size_t max, size_t *n, struct strbuf *how, struct error *err)
{
	const char *var = "SLURM_STEP_GPUS", *list = getenv(var);
	cleanup_free char *conf = NULL, *gres = NULL, *node = node_name();
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_strvec struct strvec files = STRVEC_INIT;
	cleanup_free int *minors = NULL;
	int idx[GPU_MAX];

	if (!list || !*list)
		list = getenv(var = "SLURM_JOB_GPUS");
	if (!list || !*list)
		return error_set(err, ERR_USAGE, 0,
				 "this Slurm task has no GPUs (neither SLURM_STEP_GPUS nor "
				 "SLURM_JOB_GPUS is set: submit with --gres=gpu:N)");
	if (slurm_index_list_parse(list, idx, max < 64 ? max : 64, n, err) < 0)
		return -1;
	conf = slurm_conf(run);
	gres = slurm_gres_conf_path(conf);
	if (fs_read_small_file(gres, 1u << 20, &text, err) < 0)
		return error_prefix(err, "the GPUs of this task (gres.conf %s): ", gres);
	if (slurm_gres_gpu_files(text.buf, node, &files, err) < 0)
		return -1;
	minors = xcalloc(files.n + 1, sizeof(int));
	for (size_t i = 0; i < files.n; i++) {
		struct stat st;

		minors[i] = stat(files.v[i], &st) == 0 && S_ISCHR(st.st_mode) &&
					    major(st.st_rdev) == DRM_MAJOR
				    ? (int)minor(st.st_rdev)
				    : -1;
	}
	if (slurm_task_map(idx, *n, &files, minors, topo, ordinals, err) < 0)
		return -1;
	strbuf_addf(how, "%s=%s ->", var, list);
	for (size_t i = 0; i < *n; i++)
		strbuf_addf(how, " %s (GPU %d)", files.v[idx[i]], ordinals[i]);
	return 0;
}

long slurm_task_time_left(const struct slurm_runner *run)
{
	const char *job = getenv("SLURM_ARRAY_JOB_ID"), *task = getenv("SLURM_ARRAY_TASK_ID");
	cleanup_free char *spec = NULL;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct error err;
	bool ok;
	long left;

	spec = job && task ? xasprintf("%s_%s", job, task) : xstrdup(getenv("SLURM_JOB_ID") ?: "");
	if (!*spec || slurm_run_ok(run, (const char *const[]){ "squeue", "-h", "-j", spec, "-o", "%L",
							   NULL },
				   &out, &err) < 0)
		return -2;
	strbuf_trim_trailing_newline(&out);
	out.buf[strcspn(out.buf, "\n")] = '\0';
	left = slurm_time_left_parse(out.buf, &ok);
	return ok ? left : -2;
}
