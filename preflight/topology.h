/* Host GPUs from the KFD topology in sysfs (no ROCm tool needed). */
#ifndef HRR_PREFLIGHT_TOPOLOGY_H
#define HRR_PREFLIGHT_TOPOLOGY_H

#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"

/* The most GPU ordinals anything names: --gpu, a sweep's pool, a case, a
 * lease, the quarantine. The one cap, so that lists pass between them
 * without truncation. */
#define GPU_MAX 64

struct gpu_node {
	int node;                 /* topology node number */
	unsigned long gpu_id;
	unsigned long gfx_target_version; /* 90402 */
	char arch[16];            /* "gfx942" */
	int drm_render_minor;     /* 128 -> /dev/dri/renderD128; -1 if absent */
	unsigned long long unique_id; /* the properties' unique_id: stable across boots; 0 unknown */
	unsigned long device_id;  /* the properties' device_id (the PCI device: the product); 0 unknown */
};

struct gpu_topology {
	struct gpu_node *gpus;    /* GPU nodes (gpu_id != 0) sorted by node number: index = ordinal */
	size_t n_gpus;
	/* The amdgpu driver's version, <sysfs_root>/module/amdgpu/version
	 * (a DKMS driver has one; an in-tree driver does not): "" unknown. */
	char driver[64];
};

/* The one way GPU ordinals are written: "0,1" (appended to out). */
void gpu_list_format(struct strbuf *out, const int *gpus, size_t n);
/* The KFD unique_id of the GPU at ordinal; 0 when unknown or out of range. */
unsigned long long gpu_unique_id(const struct gpu_topology *t, int ordinal);
/* The one way a replay's GPUs are written by identity (results lines,
 * known-issue rules' gpu:): their unique_ids, "1700,1701" (appended). */
void gpu_unique_ids_format(struct strbuf *out, const struct gpu_topology *t, const int *gpus,
			   size_t n);

/* The GPU at ordinal, NULL when out of range. */
const struct gpu_node *gpu_topology_node(const struct gpu_topology *t, int ordinal);

/* The one GPU product (arch and device_id) of the GPUs at gpus[0..n)
 * (n 0: every GPU): the first of them, or NULL when they are of more
 * than one product, an ordinal is out of range or an arch is unknown. */
const struct gpu_node *gpu_topology_one_product(const struct gpu_topology *t, const int *gpus,
						size_t n);

/* Read <sysfs_root>/class/kfd/kfd/topology/nodes/<N>/{gpu_id,properties}
 * and the driver's version (optional; one printable word, else unknown).
 * No topology directory: ERR_NOT_FOUND ("no AMD GPU found under <root>"). */
int gpu_topology_read(struct gpu_topology *t, const char *sysfs_root, struct error *err);
void gpu_topology_release(struct gpu_topology *t);
/* Pure: 90402 -> "gfx942", 90010 -> "gfx90a", 110501 -> "gfx1151". */
void gfx_arch_name(unsigned long gfx_target_version, char *out, size_t outlen);

#endif
