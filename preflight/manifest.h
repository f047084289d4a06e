/* The per-pid manifest.json of an HRR archive, and the archive layout.
 * Manifests are untrusted input: size-limited, types checked, never a crash. */
#ifndef HRR_PREFLIGHT_MANIFEST_H
#define HRR_PREFLIGHT_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strvec.h"

#define MANIFEST_MAX_BYTES (4u << 20)
#define MANIFEST_MAX_DEVICES 64

struct manifest_device {
	int ordinal;
	char *name;          /* "Instinct MI300X" or NULL */
	char *gcn_arch_name; /* full recorded string "gfx942:sramecc+:xnack-" */
	char *arch;          /* normalised: before the first ':', lower case: "gfx942" */
};

struct manifest {
	long long pid;            /* -1 when absent */
	long long parent_pid;     /* -1 when absent */
	int complete;             /* 1 yes, 0 no, -1 absent */
	long long event_count;    /* -1 when absent */
	long long blob_count;     /* -1 when absent */
	struct strvec unreplayable_apis;

	bool has_metadata;        /* false = legacy capture */
	int schema_version;       /* -1 when absent */
	char *hip_runtime_version; /* "7.13.0" or NULL */
	char *comgr_version;       /* "2.8" or NULL */
	int device_count;          /* -1 when absent */
	int captured_device_count; /* -1 when absent */
	struct manifest_device *devices;
	size_t n_devices;
};

void manifest_init(struct manifest *m);
void manifest_release(struct manifest *m);
/* Pure: parse a manifest's text. A wrong type for a known key is an error
 * naming the key (ERR_DATA); unknown keys are ignored. */
int manifest_parse(struct manifest *m, const char *text, size_t len, struct error *err);
/* Read <pid_dir>/manifest.json (missing file: ERR_NOT_FOUND). */
int manifest_load(struct manifest *m, const char *pid_dir, struct error *err);

/* A capture's manifest as a replay's caller reads it, once: its device
 * count chooses the GPUs, the rest feeds the preflight, which notes why
 * there is none. */
struct capture_manifest {
	struct manifest m;
	bool loaded;
	char error[ERROR_MSG_MAX]; /* !loaded: manifest_load's message */
};
void capture_manifest_load(struct capture_manifest *c, const char *pid_dir);
void capture_manifest_release(struct capture_manifest *c);
/* The capture's device count; -1 when unknown. */
int capture_manifest_devices(const struct capture_manifest *c);

/* ---- archive layout ---- */

#define HRR_EVENTS_MAGIC 0x52524845u /* "EHRR" read little-endian */

/* Check <pid_dir>/events.bin exists and starts with the HRRE header;
 * *format_version gets its u16 version (may be NULL). ERR_NOT_FOUND when
 * missing, ERR_DATA on bad magic or a short file. */
int archive_check_events(const char *pid_dir, unsigned *format_version, struct error *err);

/* Resolve PATH (docs/cli.md): a pid-<pid> directory -> that one; a capture root
 * -> every pid-* subdirectory holding events.bin, sorted by name. Paths are
 * absolute and canonical. An empty result is an error naming PATH. */
int archive_resolve(const char *path, struct strvec *pid_dirs, struct error *err);

#endif
