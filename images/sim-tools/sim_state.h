/* What the simulator is doing, for the simulator's debug tools.
 *
 * A real GPU debugger reads a process's queues and dispatches from the
 * GPU driver; the simulator has none, so while it replays it keeps this
 * small file up to date and the image's `rocgdb` stand-in reads it after it
 * has really attached to the process with ptrace. Header-only, so the
 * simulator (static, no shared code) and the tools include the same code.
 *
 * Path: /dev/shm/hrr-sim-state (every container has a writable /dev/shm,
 * even FROM scratch with a read-only root), or $HRR_SIM_STATE_FILE.
 * Format: text, one key=value a line after a magic first line; unknown
 * keys are ignored, missing ones keep their defaults; at most 4 KiB.
 *
 *   hrr-sim-state 1
 *   pid=4242                  the replaying process (the one to attach to)
 *   kernel=void k<int>(int*)  the in-flight kernel, demangled (one line)
 *   grid=[1024,1,1]           work-items, as ROCgdb prints them
 *   workgroup=[256,1,1]
 *   queue=1                   queue number (ROCgdb's 1:<queue>)
 *   dispatch=7                dispatch number (1:<queue>:<dispatch>)
 *   packet=6                  the dispatch packet's id in its queue
 *   arch=gfx942               the agent's architecture and name
 *   device=MI300X
 *   kernel_entry=0x7f20f5e52900   the kernel's code address
 *   rocgdb=hang               optional: the rocgdb stand-in attaches and
 *                             then never answers (--diagnose-timeout tests)
 *
 * The writer replaces the file atomically (a temporary file, then rename),
 * so a reader never sees half of it. */
#ifndef HRR_SIM_STATE_H
#define HRR_SIM_STATE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIM_STATE_PATH "/dev/shm/hrr-sim-state"
#define SIM_STATE_ENV "HRR_SIM_STATE_FILE"
#define SIM_STATE_MAGIC "hrr-sim-state 1"
#define SIM_STATE_MAX 4096

struct sim_state {
	long pid;
	char kernel[1024];
	char grid[64];
	char workgroup[64];
	unsigned queue;
	unsigned long long dispatch;
	unsigned long long packet;
	char arch[32];
	char device[64];
	unsigned long long kernel_entry;
	char rocgdb[16];
};

static inline const char *sim_state_path(void)
{
	const char *p = getenv(SIM_STATE_ENV);

	return p && *p ? p : SIM_STATE_PATH;
}

static inline void sim_state_defaults(struct sim_state *s)
{
	memset(s, 0, sizeof(*s));
	s->pid = -1;
	strcpy(s->grid, "[1,1,1]");
	strcpy(s->workgroup, "[1,1,1]");
	s->queue = 1;
	s->dispatch = 1;
	strcpy(s->arch, "gfx942");
	strcpy(s->device, "MI300X");
	s->kernel_entry = 0x7f20f5e52900ull;
}

/* Copy a value into a fixed field, cut at its size and at a newline. */
static inline void sim_state_copy(char *dst, size_t size, const char *v)
{
	size_t n = strcspn(v, "\n");

	if (n >= size)
		n = size - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

/* 0, or -1 with errno. */
static inline int sim_state_write(const char *path, const struct sim_state *s)
{
	char tmp[4096 + 16], kernel[sizeof(s->kernel)];
	FILE *f;
	int rc;

	if (strlen(path) > 4096) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	sim_state_copy(kernel, sizeof(kernel), s->kernel);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%s\npid=%ld\nkernel=%s\ngrid=%s\nworkgroup=%s\nqueue=%u\n"
		   "dispatch=%llu\npacket=%llu\narch=%s\ndevice=%s\nkernel_entry=0x%llx\n",
		SIM_STATE_MAGIC, s->pid, kernel, s->grid, s->workgroup, s->queue, s->dispatch,
		s->packet, s->arch, s->device, s->kernel_entry);
	if (s->rocgdb[0])
		fprintf(f, "rocgdb=%s\n", s->rocgdb);
	rc = ferror(f) ? -1 : 0;
	if (fclose(f) != 0 || rc < 0 || rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

static inline void sim_state_set(struct sim_state *s, const char *key, const char *v)
{
	if (!strcmp(key, "pid"))
		s->pid = strtol(v, NULL, 10);
	else if (!strcmp(key, "kernel"))
		sim_state_copy(s->kernel, sizeof(s->kernel), v);
	else if (!strcmp(key, "grid"))
		sim_state_copy(s->grid, sizeof(s->grid), v);
	else if (!strcmp(key, "workgroup"))
		sim_state_copy(s->workgroup, sizeof(s->workgroup), v);
	else if (!strcmp(key, "queue"))
		s->queue = (unsigned)strtoul(v, NULL, 10);
	else if (!strcmp(key, "dispatch"))
		s->dispatch = strtoull(v, NULL, 10);
	else if (!strcmp(key, "packet"))
		s->packet = strtoull(v, NULL, 10);
	else if (!strcmp(key, "arch"))
		sim_state_copy(s->arch, sizeof(s->arch), v);
	else if (!strcmp(key, "device"))
		sim_state_copy(s->device, sizeof(s->device), v);
	else if (!strcmp(key, "kernel_entry"))
		s->kernel_entry = strtoull(v, NULL, 16);
	else if (!strcmp(key, "rocgdb"))
		sim_state_copy(s->rocgdb, sizeof(s->rocgdb), v);
}

/* 0, or -1 with errno (EINVAL: not a state file). */
static inline int sim_state_read(const char *path, struct sim_state *s)
{
	char buf[SIM_STATE_MAX + 1], *line, *save = NULL;
	size_t n;
	FILE *f = fopen(path, "r");

	sim_state_defaults(s);
	if (!f)
		return -1;
	n = fread(buf, 1, SIM_STATE_MAX, f);
	fclose(f);
	buf[n] = '\0';
	line = strtok_r(buf, "\n", &save);
	if (!line || strcmp(line, SIM_STATE_MAGIC)) {
		errno = EINVAL;
		return -1;
	}
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *eq = strchr(line, '=');

		if (eq) {
			*eq = '\0';
			sim_state_set(s, line, eq + 1);
		}
	}
	return 0;
}

#endif
