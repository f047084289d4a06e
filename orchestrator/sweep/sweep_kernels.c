#include "orchestrator/sweep/sweep_kernels.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/file_content.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

int sweep_kernels_store(const char *folder, const struct kernel_replacements *k,
			struct error *err)
{
	cleanup_free char *dir = xasprintf("%s/%s", folder, SWEEP_KERNELS_DIR);

	if (!k->n)
		return 0;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return error_errno(err, "%s", dir);
	for (size_t i = 0; i < k->n; i++) {
		cleanup_strbuf struct strbuf dst = STRBUF_INIT;

		strbuf_addf(&dst, "%s/", dir);
		kernel_replacement_file_name(&k->v[i], &dst);
		if (kernel_replacement_keep(&k->v[i], dst.buf, err) < 0)
			return -1;
	}
	return 0;
}

int sweep_kernels_attach(const char *folder, struct kernel_replacements *k, struct error *err)
{
	cleanup_free char *dir = xasprintf("%s/%s", folder, SWEEP_KERNELS_DIR);

	return kernel_replacements_attach(k, dir, err);
}
