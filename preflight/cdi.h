/* CDI specs (the Container Device Interface, cdi-spec's JSON form, as the
 * AMD Container Toolkit's `amd-ctk cdi generate` writes /etc/cdi/amd.json):
 * which CDI device is which GPU, decided from the device nodes each device
 * adds (its render node's minor against KFD's drm_render_minor), never from
 * the device's name. The parser and the matcher are pure; cdi_load() reads
 * the spec dirs and fills in the minors of nodes that name none from the
 * host's device nodes. */
#ifndef HRR_PREFLIGHT_CDI_H
#define HRR_PREFLIGHT_CDI_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strvec.h"

#define CDI_KIND_AMD_GPU "amd.com/gpu"
#define CDI_SPEC_DIRS_DEFAULT "/etc/cdi:/var/run/cdi"

/* --devices: how a replay's GPUs reach its container. */
enum device_mode { DEVICES_AUTO = 0, DEVICES_NODES, DEVICES_CDI };
#define DRM_MAJOR 226

struct cdi_node {
	char *path;      /* inside the container: "/dev/dri/renderD128" */
	char *host_path; /* on the host; NULL = path */
	long major;      /* -1 = not in the spec (the node on the host says) */
	long minor;
};

struct cdi_device {
	char *name;             /* "0", "all" */
	struct cdi_node *nodes;
	size_t n_nodes;
	bool other_edits;       /* env, mounts, hooks, ...: more than device nodes */
};

struct cdi_spec {
	char *file;             /* where it was read, for messages */
	char *kind;             /* "amd.com/gpu" */
	struct cdi_device *devices;
	size_t n_devices;
	struct cdi_node *nodes; /* spec-level containerEdits.deviceNodes */
	size_t n_nodes;
	bool other_edits;       /* spec-level edits other than device nodes */
};

/* Pure: one spec's JSON text. Not a CDI spec (no cdiVersion, kind or
 * devices): ERR_DATA naming file. */
int cdi_spec_parse(const char *text, size_t len, const char *file, struct cdi_spec *out,
		   struct error *err);
void cdi_spec_release(struct cdi_spec *s);

/* A node that is a render node (major 226, minor >= 128): its minor, else -1. */
long cdi_node_render_minor(const struct cdi_node *n);

struct cdi_match {
	struct strvec names;  /* fully qualified: "amd.com/gpu=0", one per GPU */
	/* Empty: the devices add exactly /dev/kfd and the chosen GPUs' nodes.
	 * Else why not (a hook, a mount, a spec-level edit, a node of no
	 * chosen GPU), for auto's note. */
	char extra[256];
};

/* Pure: the spec's device for each render minor, in order. A GPU no single
 * device covers (a device with exactly that render node among its nodes)
 * is ERR_NOT_FOUND naming the GPU's ordinal, its render node and the spec
 * file; a device that also adds another GPU's render node is never chosen
 * (isolation). */
int cdi_match_gpus(const struct cdi_spec *s, const int *ordinals, const int *render_minors,
		   size_t n, struct cdi_match *out, struct error *err);
void cdi_match_release(struct cdi_match *m);

/* The first spec of kind amd.com/gpu in dirs (a colon-separated list,
 * files *.json in name order, as CDI orders them), its nodes' minors
 * completed from the host's nodes. None: ERR_NOT_FOUND. */
int cdi_load(const char *dirs, struct cdi_spec *out, struct error *err);

#endif
