/* Reading an HRR archive the way hrr-playback's reader does: resolve the pid
 * directory, check the events.bin header, walk the records (keeping what
 * precedes a torn tail), and print --info. Every message on failure is the
 * real reader's. Nothing here writes.
 *
 * events.bin records, little-endian, packed:
 *   header (32 bytes): u16 event_type, u64 sequence_id, u64 timestamp_ns,
 *                      u64 thread_id, u32 payload_length (whole record,
 *                      header included), u8 reserved[2]
 *   kernel launch payload (after the header): u64 stream, u16 name_len,
 *     name, u64 co_hash_lo, u64 co_hash_hi, u32 grid[3], u32 block[3],
 *     u32 shared_mem, u16 num_args, u16 num_snapshots, then per argument
 *     u8 value_kind (1 = device pointer), u16 size, <size> bytes
 *   memcpy payload: u64 dst, u64 src, u64 size, u32 kind (2 = DtoH),
 *     u64 blob_hash_lo, u64 blob_hash_hi
 *   trailer (44 bytes): header with event_type 0xFFFF and payload_length 44,
 *     u64 total_events, u32 magic 0x464F4548 ("HEOF")
 */
#include "sim.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *const api_names[SIM_API_COUNT] = {
	[SIM_API_REGISTER_FATBINARY] = "__hipRegisterFatBinary",
	[SIM_API_SET_DEVICE] = "hipSetDevice",
	[SIM_API_MALLOC] = "hipMalloc",
	[SIM_API_FREE] = "hipFree",
	[SIM_API_MEMCPY] = "hipMemcpy",
	[SIM_API_MEMCPY_ASYNC] = "hipMemcpyAsync",
	[SIM_API_MEMCPY_HTOD] = "hipMemcpyHtoD",
	[SIM_API_MEMCPY_DTOH] = "hipMemcpyDtoH",
	[SIM_API_STREAM_CREATE] = "hipStreamCreate",
	[SIM_API_STREAM_SYNCHRONIZE] = "hipStreamSynchronize",
	[SIM_API_DEVICE_SYNCHRONIZE] = "hipDeviceSynchronize",
	[SIM_API_MODULE_LOAD_DATA] = "hipModuleLoadData",
	[SIM_API_MODULE_GET_FUNCTION] = "hipModuleGetFunction",
	[SIM_API_MODULE_LAUNCH_KERNEL] = "hipModuleLaunchKernel",
	[SIM_API_EXT_MODULE_LAUNCH_KERNEL] = "hipExtModuleLaunchKernel",
	[SIM_API_LAUNCH_KERNEL] = "hipLaunchKernel",
	[SIM_API_EVENT_CREATE] = "hipEventCreate",
	[SIM_API_EVENT_RECORD] = "hipEventRecord",
	[SIM_API_MEMSET_ASYNC] = "hipMemsetAsync",
};

const char *sim_api_name(unsigned type)
{
	return type < SIM_API_COUNT && api_names[type] ? api_names[type] : "UNKNOWN";
}

int sim_api_is_launch(unsigned type)
{
	return type == SIM_API_MODULE_LAUNCH_KERNEL ||
	       type == SIM_API_EXT_MODULE_LAUNCH_KERNEL || type == SIM_API_LAUNCH_KERNEL;
}

/* ---- small helpers shared by the simulator ---- */

_Noreturn void sim_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("hrr-playback (sim): ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void *sim_grow(void *p, size_t *alloc, size_t need, size_t elem)
{
	size_t n = *alloc;

	if (need <= n)
		return p;
	n = n ? n : 8;
	while (n < need)
		n *= 2;
	p = realloc(p, n * elem);
	if (!p)
		sim_die("out of memory");
	*alloc = n;
	return p;
}

char *sim_strdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		sim_die("out of memory");
	return d;
}

const char *sim_compact_name(const char *name, char *buf, size_t bufsz)
{
	size_t len = strlen(name);

	if (len <= 120 || bufsz < 121)
		return name;
	memcpy(buf, name, 96);
	memcpy(buf + 96, "...", 3);
	memcpy(buf + 99, name + len - 21, 21);
	buf[120] = '\0';
	return buf;
}

double sim_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sim_sleep(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *out;

	if (asprintf(&out, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name) < 0)
		sim_die("out of memory");
	return out;
}

static int path_exists(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	struct stat st;
	int r = stat(p, &st) == 0;

	free(p);
	return r;
}

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* pid-* subdirectories holding events.bin, sorted by path. */
static size_t find_pid_dirs(const char *root, char ***out)
{
	DIR *d = opendir(root);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, alloc = 0;

	*out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *p;

		if (strncmp(de->d_name, "pid-", 4) != 0)
			continue;
		p = path_join(root, de->d_name);
		if (!is_dir(p) || !path_exists(p, "events.bin")) {
			free(p);
			continue;
		}
		v = sim_grow(v, &alloc, n + 1, sizeof(*v));
		v[n++] = p;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return n;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* hrr-playback's reader (resolve_archive_path) on a root with several
 * process captures: it replays one pid directory at a time. */
static void print_root_refusal(const char *input, char **dirs, size_t n)
{
	fprintf(stderr,
		"[HRR] Archive root %s contains multiple process captures; "
		"point hrr-playback at a specific pid directory:\n", input);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "[HRR]   %s\n", dirs[i]);
}

static char *resolve_archive_path(const char *input)
{
	char **dirs, *resolved, *ev;
	size_t n;

	if (path_exists(input, "events.bin"))
		return sim_strdup(input);
	n = find_pid_dirs(input, &dirs);
	if (n == 0) {
		ev = path_join(input, "events.bin");
		fprintf(stderr, "[HRR] Cannot open %s\n", ev);
		free(ev);
		return NULL;
	}
	if (n == 1) {
		resolved = dirs[0];
		dirs[0] = NULL;
		free_list(dirs, n);
		return resolved;
	}
	print_root_refusal(input, dirs, n);
	free_list(dirs, n);
	return NULL;
}

int archive_refuse_root(const char *root, const char *names)
{
	char **dirs;
	size_t n = find_pid_dirs(root, &dirs), alloc = 0;

	/* A run mounts one pid directory: its siblings are not there, so the
	 * scenario names them (names: "pid-1,pid-2"). */
	if (n < 2 && names && *names) {
		free_list(dirs, n);
		dirs = NULL;
		n = 0;
		for (const char *p = names; p && *p;) {
			const char *comma = strchr(p, ',');
			size_t len = comma ? (size_t)(comma - p) : strlen(p);
			char *name = sim_strdup(p), *full;

			name[len] = '\0';
			full = path_join(root, name);
			free(name);
			dirs = sim_grow(dirs, &alloc, n + 1, sizeof(*dirs));
			dirs[n++] = full;
			p = comma ? comma + 1 : NULL;
		}
	}
	if (n > 1)
		print_root_refusal(root, dirs, n);
	free_list(dirs, n);
	return n > 1;
}

static uint64_t le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Reads fields off a record payload; any overrun marks the cursor bad. */
struct cursor {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t take(struct cursor *c, int bytes)
{
	uint64_t v;

	if (c->bad || c->end - c->p < bytes) {
		c->bad = 1;
		return 0;
	}
	v = le(c->p, bytes);
	c->p += bytes;
	return v;
}

static void parse_launch(struct sim_event *ev, const unsigned char *pl, size_t len)
{
	struct cursor c = { pl, pl + len, 0 };
	unsigned name_len, nargs;

	take(&c, 8); /* stream */
	name_len = (unsigned)take(&c, 2);
	if (c.bad || (size_t)(c.end - c.p) < name_len)
		return;
	ev->kernel = strndup((const char *)c.p, name_len);
	if (!ev->kernel)
		sim_die("out of memory");
	c.p += name_len;
	take(&c, 8); /* code object hash */
	take(&c, 8);
	for (int i = 0; i < 3; i++)
		ev->grid[i] = (unsigned)take(&c, 4);
	for (int i = 0; i < 3; i++)
		ev->block[i] = (unsigned)take(&c, 4);
	ev->shared_mem = (unsigned)take(&c, 4);
	nargs = (unsigned)take(&c, 2);
	take(&c, 2); /* snapshots */
	for (unsigned i = 0; i < nargs && !c.bad; i++) {
		unsigned kind = (unsigned)take(&c, 1), size = (unsigned)take(&c, 2);

		if (c.bad || (size_t)(c.end - c.p) < size)
			break;
		if (kind == 1 && size == 8 && ev->n_ptr_args < 4)
			ev->ptr_args[ev->n_ptr_args++] = le(c.p, 8);
		c.p += size;
	}
}

static void parse_memcpy(struct sim_event *ev, const unsigned char *pl, size_t len)
{
	struct cursor c = { pl, pl + len, 0 };
	uint64_t kind, lo, hi;

	take(&c, 8);
	take(&c, 8);
	take(&c, 8);
	kind = take(&c, 4);
	lo = take(&c, 8);
	hi = take(&c, 8);
	if (c.bad || (!lo && !hi))
		return;
	ev->is_d2h = ev->type == SIM_API_MEMCPY_DTOH || kind == 2;
}

static size_t count_files(const char *dir, const char *suffix, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0, sl = strlen(suffix);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		if (depth > 0) {
			char *sub = path_join(dir, de->d_name);

			if (is_dir(sub))
				n += count_files(sub, suffix, depth - 1);
			free(sub);
		} else if (l > sl && strcmp(de->d_name + l - sl, suffix) == 0) {
			n++;
		}
	}
	closedir(d);
	return n;
}

static int read_records(FILE *f, struct sim_archive *a)
{
	unsigned char hdr[HRR_HEADER_SIZE];
	unsigned char *rec = NULL;
	size_t rec_alloc = 0;
	unsigned long long *tids = NULL;
	size_t n_tids = 0, tid_alloc = 0;

	for (;;) {
		size_t got = fread(hdr, 1, sizeof(hdr), f);
		unsigned type;
		uint32_t total;
		struct sim_event *ev;

		if (got == 0)
			break;
		if (got < sizeof(hdr)) {
			fprintf(stderr, "[HRR] Truncated event header (%zu/%u bytes) at tail\n",
				got, HRR_HEADER_SIZE);
			a->truncated = 1;
			break;
		}
		type = (unsigned)le(hdr, 2);
		total = (uint32_t)le(hdr + 26, 4);
		if (total < HRR_HEADER_SIZE) {
			fprintf(stderr, "[HRR] Torn trailing record (payload_length %u < %u)\n",
				total, HRR_HEADER_SIZE);
			a->truncated = 1;
			break;
		}
		if (total > HRR_MAX_RECORD) {
			fprintf(stderr,
				"[HRR] Implausible payload_length %u (max %u) — treating as torn\n",
				total, HRR_MAX_RECORD);
			a->truncated = 1;
			break;
		}
		rec = sim_grow(rec, &rec_alloc, total, 1);
		memcpy(rec, hdr, sizeof(hdr));
		if (total > HRR_HEADER_SIZE &&
		    fread(rec + HRR_HEADER_SIZE, 1, total - HRR_HEADER_SIZE, f) !=
			    total - HRR_HEADER_SIZE) {
			fprintf(stderr, "[HRR] Truncated event payload (expected %u bytes) at tail\n",
				total - HRR_HEADER_SIZE);
			a->truncated = 1;
			break;
		}
		if (type == HRR_EOF_MARKER && total == HRR_EOF_SIZE &&
		    le(rec + 40, 4) == HRR_EOF_MAGIC) {
			a->complete = 1;
			break;
		}
		a->events = sim_grow(a->events, &a->alloc_events, a->n_events + 1,
				     sizeof(*a->events));
		ev = &a->events[a->n_events++];
		memset(ev, 0, sizeof(*ev));
		ev->type = type;
		ev->api = sim_api_name(type);
		ev->seq = le(hdr + 2, 8);
		ev->tid = le(hdr + 18, 8);
		if (sim_api_is_launch(type)) {
			parse_launch(ev, rec + HRR_HEADER_SIZE, total - HRR_HEADER_SIZE);
			if (ev->kernel)
				a->n_kernels++;
		} else if (type == SIM_API_MEMCPY || type == SIM_API_MEMCPY_ASYNC ||
			   type == SIM_API_MEMCPY_DTOH) {
			parse_memcpy(ev, rec + HRR_HEADER_SIZE, total - HRR_HEADER_SIZE);
			if (ev->is_d2h)
				a->n_d2h++;
		}
		size_t t;
		for (t = 0; t < n_tids && tids[t] != ev->tid; t++)
			;
		if (t == n_tids) {
			tids = sim_grow(tids, &tid_alloc, n_tids + 1, sizeof(*tids));
			tids[n_tids++] = ev->tid;
		}
	}
	if (a->truncated)
		fprintf(stderr, "[HRR] Recovered %zu events before the torn record\n",
			a->n_events);
	/* The real reader's own word on a capture without its trailer. */
	if (!a->complete)
		fprintf(stderr, "[HRR] Archive has no clean-shutdown trailer (capture likely "
			"crashed); recovered %zu events%s\n", a->n_events,
			a->truncated ? ", trailing torn record discarded" : "");
	a->n_threads = n_tids;
	free(tids);
	free(rec);
	return 0;
}

int archive_load(const char *input, struct sim_archive *a)
{
	unsigned char fh[8];
	char *events_path;
	FILE *f;
	uint32_t magic;

	memset(a, 0, sizeof(*a));
	a->path = resolve_archive_path(input);
	if (!a->path)
		return -1;
	events_path = path_join(a->path, "events.bin");
	f = fopen(events_path, "rb");
	if (!f) {
		fprintf(stderr, "[HRR] Cannot open %s\n", events_path);
		free(events_path);
		return -1;
	}
	if (fread(fh, sizeof(fh), 1, f) != 1) {
		fprintf(stderr, "[HRR] %s too short (missing file header)\n", events_path);
		goto fail;
	}
	magic = (uint32_t)le(fh, 4);
	a->version = (unsigned)le(fh + 4, 2);
	a->flags = (unsigned)le(fh + 6, 2);
	if (magic != HRR_MAGIC) {
		fprintf(stderr, "[HRR] Bad magic 0x%08x in %s (expected 0x%08x)\n", magic,
			events_path, HRR_MAGIC);
		goto fail;
	}
	if (a->version != HRR_READER_VERSION) {
		fprintf(stderr, "[HRR] Version mismatch: file=%u reader=%u\n", a->version,
			HRR_READER_VERSION);
		goto fail;
	}
	read_records(f, a);
	fclose(f);
	free(events_path);

	char *blobs = path_join(a->path, "blobs"), *cos = path_join(a->path, "code_objects");
	a->n_blobs = count_files(blobs, ".blob", 1);
	a->n_code_objects = count_files(cos, ".hsaco", 0);
	free(blobs);
	free(cos);
	return 0;
fail:
	fclose(f);
	free(events_path);
	return -1;
}

void archive_release(struct sim_archive *a)
{
	for (size_t i = 0; i < a->n_events; i++)
		free(a->events[i].kernel);
	free(a->events);
	free(a->path);
	memset(a, 0, sizeof(*a));
}

/* ---- --info ---- */

struct proc_info {
	unsigned long long pid, parent_pid, event_count, blob_count;
	int complete;
};

/* The real reader scans manifests line by line with sscanf, one key per
 * line, as the capture writer lays them out. */
static int read_process_manifest(const char *path, struct proc_info *out)
{
	FILE *f = fopen(path, "r");
	char line[256], b[8];
	unsigned long long u;
	int saw_pid = 0;
	struct proc_info info = { 0 };

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " \"pid\": %llu", &u) == 1) {
			info.pid = u;
			saw_pid = 1;
		} else if (sscanf(line, " \"parent_pid\": %llu", &u) == 1) {
			info.parent_pid = u;
		} else if (sscanf(line, " \"event_count\": %llu", &u) == 1) {
			info.event_count = u;
		} else if (sscanf(line, " \"blob_count\": %llu", &u) == 1) {
			info.blob_count = u;
		} else if (sscanf(line, " \"complete\": %7[^,\n ]", b) == 1) {
			info.complete = strcmp(b, "true") == 0;
		}
	}
	fclose(f);
	if (!saw_pid)
		return 0;
	*out = info;
	return 1;
}

int archive_print_root_info(const char *input)
{
	char **dirs, *mpath, line[256];
	size_t n;
	struct proc_info *infos;
	unsigned long long owner = 0, u;
	int have_owner = 0;
	FILE *f;

	if (path_exists(input, "events.bin"))
		return 0;
	n = find_pid_dirs(input, &dirs);
	if (n == 0)
		return 0;
	infos = calloc(n, sizeof(*infos));
	if (!infos)
		sim_die("out of memory");
	for (size_t i = 0; i < n; i++) {
		char *m = path_join(dirs[i], "manifest.json");

		if (!read_process_manifest(m, &infos[i])) {
			const char *base = strrchr(dirs[i], '/');
			char *end;

			base = base ? base + 1 : dirs[i];
			u = strtoull(base + 4, &end, 10);
			if (*end == '\0')
				infos[i].pid = u;
		}
		free(m);
	}
	mpath = path_join(input, "manifest.json");
	f = fopen(mpath, "r");
	free(mpath);
	if (f) {
		while (!have_owner && fgets(line, sizeof(line), f))
			if (sscanf(line, " \"owner_pid\": %llu", &u) == 1) {
				owner = u;
				have_owner = 1;
			}
		fclose(f);
	}
	if (!have_owner) {
		owner = infos[0].pid;
		for (size_t i = 0; i < n && !have_owner; i++)
			for (size_t j = 0; j < n; j++)
				if (infos[j].parent_pid == infos[i].pid) {
					owner = infos[i].pid;
					have_owner = 1;
					break;
				}
	}
	printf("HRR Archive Root: %s\n", input);
	printf("========================================\n");
	printf("Capture Mode: in-tree\n");
	printf("Owner PID:    %llu\n", owner);
	printf("Processes:    %zu\n\n", n);
	printf("  %-12s %-12s %-10s %-12s %-10s %s\n", "PID", "Parent PID", "Complete",
	       "Events", "Blobs", "Path");
	printf("  %-12s %-12s %-10s %-12s %-10s %s\n", "---", "----------", "--------",
	       "------", "-----", "----");
	for (size_t i = 0; i < n; i++)
		printf("  %-12llu %-12llu %-10s %-12llu %-10llu %s\n", infos[i].pid,
		       infos[i].parent_pid, infos[i].complete ? "yes" : "NO",
		       infos[i].event_count, infos[i].blob_count, dirs[i]);
	printf("\n");
	free(infos);
	free_list(dirs, n);
	return 1;
}

struct name_count {
	const char *name;
	size_t count;
};

static int cmp_name_count(const void *a, const void *b)
{
	return strcmp(((const struct name_count *)a)->name,
		      ((const struct name_count *)b)->name);
}

void archive_print_info(const struct sim_archive *a)
{
	size_t type_counts[SIM_API_COUNT + 1] = { 0 }, unknown_types = 0;
	struct name_count *calls = NULL;
	size_t n_calls = 0, calls_alloc = 0, kid = 0;

	printf("HRR Archive: %s\n", a->path);
	printf("========================================\n");
	printf("Complete:     %s\n",
	       a->complete ? "yes (clean shutdown)"
	       : a->truncated ? "NO (crash-truncated; trailing torn record discarded)"
			      : "NO (no shutdown trailer; capture likely crashed)");
	printf("Recovered:    %zu events\n", a->n_events);
	printf("Events:       %zu\n", a->n_events);
	printf("Kernels:      %zu\n", a->n_kernels);
	printf("Blobs:        %zu\n", a->n_blobs);
	printf("Code Objects: %zu\n", a->n_code_objects);
	printf("Threads:      %zu\n", a->n_threads);
	printf("\n");

	for (size_t i = 0; i < a->n_events; i++) {
		if (a->events[i].type < SIM_API_COUNT)
			type_counts[a->events[i].type]++;
		else
			unknown_types++;
	}
	printf("Event Type Breakdown:\n");
	printf("  %-22s %s\n", "Type", "Count");
	printf("  %-22s %s\n", "----", "-----");
	for (unsigned t = 0; t < SIM_API_COUNT; t++)
		if (type_counts[t])
			printf("  %-22s %zu\n", sim_api_name(t), type_counts[t]);
	if (unknown_types)
		printf("  %-22s %zu\n", "UNKNOWN", unknown_types);
	printf("\n");

	if (a->n_kernels == 0)
		return;
	printf("Kernel Summary (first 20):\n");
	printf("  %-4s %-50s %-15s %-15s %s\n", "ID", "Kernel", "Grid", "Block", "SharedMem");
	printf("  %-4s %-50s %-15s %-15s %s\n", "--", "------", "----", "-----", "---------");
	for (size_t i = 0; i < a->n_events; i++) {
		const struct sim_event *ev = &a->events[i];
		size_t c;

		if (!ev->kernel)
			continue;
		for (c = 0; c < n_calls && strcmp(calls[c].name, ev->kernel) != 0; c++)
			;
		if (c == n_calls) {
			calls = sim_grow(calls, &calls_alloc, n_calls + 1, sizeof(*calls));
			calls[n_calls].name = ev->kernel;
			calls[n_calls++].count = 0;
		}
		calls[c].count++;
		if (kid < 20) {
			char grid[48], block[48], name[51];

			snprintf(grid, sizeof(grid), "[%u,%u,%u]", ev->grid[0], ev->grid[1],
				 ev->grid[2]);
			snprintf(block, sizeof(block), "[%u,%u,%u]", ev->block[0], ev->block[1],
				 ev->block[2]);
			if (strlen(ev->kernel) > 50)
				snprintf(name, sizeof(name), "%.47s...", ev->kernel);
			else
				snprintf(name, sizeof(name), "%s", ev->kernel);
			printf("  %-4zu %-50s %-15s %-15s %u\n", kid, name, grid, block,
			       ev->shared_mem);
		}
		kid++;
	}
	if (kid > 20)
		printf("  ... and %zu more\n", kid - 20);

	qsort(calls, n_calls, sizeof(*calls), cmp_name_count);
	printf("\nKernel Call Counts:\n");
	printf("  %-60s %s\n", "Kernel", "Calls");
	printf("  %-60s %s\n", "------", "-----");
	for (size_t c = 0; c < n_calls; c++) {
		char name[61];

		if (strlen(calls[c].name) > 60)
			snprintf(name, sizeof(name), "%.57s...", calls[c].name);
		else
			snprintf(name, sizeof(name), "%s", calls[c].name);
		printf("  %-60s %zu\n", name, calls[c].count);
	}
	printf("\n");
	free(calls);
}

/* ---- the scenario file ---- */

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

static void scenario_add(struct scenario *sc, const char *k, const char *v)
{
	sc->keys = sim_grow(sc->keys, &sc->alloc, sc->n + 1, sizeof(*sc->keys));
	sc->vals = realloc(sc->vals, sc->alloc * sizeof(*sc->vals));
	if (!sc->vals)
		sim_die("out of memory");
	sc->keys[sc->n] = sim_strdup(k);
	sc->vals[sc->n++] = sim_strdup(v);
}

void scenario_load(struct scenario *sc, const char *pid_dir)
{
	char *path = path_join(pid_dir, "sim-scenario"), *line = NULL;
	size_t cap = 0;
	FILE *f;

	memset(sc, 0, sizeof(*sc));
	f = fopen(path, "r");
	free(path);
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *s = trim(line), *eq, *k, *v;

		if (!*s || *s == '#' || !(eq = strchr(s, '=')))
			continue;
		*eq = '\0';
		k = trim(s);
		v = trim(eq + 1);
		if (strcmp(k, "kernels") == 0) {
			char *save = NULL;

			for (char *t = strtok_r(v, ",", &save); t; t = strtok_r(NULL, ",", &save))
				if (*trim(t))
					scenario_add(sc, "kernel", trim(t));
		} else {
			scenario_add(sc, k, v);
		}
	}
	free(line);
	fclose(f);
}

void scenario_release(struct scenario *sc)
{
	for (size_t i = 0; i < sc->n; i++) {
		free(sc->keys[i]);
		free(sc->vals[i]);
	}
	free(sc->keys);
	free(sc->vals);
	memset(sc, 0, sizeof(*sc));
}

const char *scenario_get(const struct scenario *sc, const char *key)
{
	for (size_t i = sc->n; i-- > 0;)
		if (strcmp(sc->keys[i], key) == 0)
			return sc->vals[i];
	return NULL;
}

long long scenario_int(const struct scenario *sc, const char *key, long long def)
{
	const char *v = scenario_get(sc, key);
	char *end;
	long long n;

	if (!v || !*v)
		return def;
	n = strtoll(v, &end, 0);
	return *end ? def : n;
}

double sim_parse_double(const char *v, double def)
{
	char *end;
	double d;

	if (!v || !*v)
		return def;
	d = strtod(v, &end);
	return *end ? def : d;
}

double scenario_double(const struct scenario *sc, const char *key, double def)
{
	return sim_parse_double(scenario_get(sc, key), def);
}

size_t scenario_all(const struct scenario *sc, const char *key, const char ***out)
{
	const char **v = NULL;
	size_t n = 0, alloc = 0;

	for (size_t i = 0; i < sc->n; i++)
		if (strcmp(sc->keys[i], key) == 0) {
			v = sim_grow(v, &alloc, n + 1, sizeof(*v));
			v[n++] = sc->vals[i];
		}
	*out = v;
	return n;
}
