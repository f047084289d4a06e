/* hrr-playback (simulator): command line, the "dynamic loader", the GPU the
 * process can see, then archive loading and replay (archive.c, replay.c).
 *
 * The real program is a dynamically linked ROCm binary, so two things happen
 * before its main(): the loader finds libamdhip64 on LD_LIBRARY_PATH (then
 * its RUNPATH, $ORIGIN/../lib) or the process dies with status 127; and HIP
 * later enumerates /dev/kfd plus the render nodes, filtered by
 * ROCR_VISIBLE_DEVICES and then HIP_VISIBLE_DEVICES. Both are simulated from
 * the real filesystem and environment so a wrong container spec shows. */
#include "sim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIM_REVISION "hrr-docker-replay-sim"

/* HRR_SIM_PLAYBACK_BUILD=older: a build from before the placement,
 * regions and guard flags and --warn-untranslated-args. It neither lists
 * nor knows them, and ignores them silently, as any hrr-playback ignores a
 * flag it does not know. */
static int older_build(void)
{
	const char *b = getenv("HRR_SIM_PLAYBACK_BUILD");

	return b && !strcmp(b, "older");
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"Usage: %s <capture.hrr> [options]\n"
		"\n"
		"Options:\n"
		"  --info                Print archive summary and exit (no GPU required)\n"
		"  --repair              Rewrite a crash-truncated archive as a clean one and exit.\n"
		"                        (refused by this simulator: archives are read-only)\n"
		"  --events              With --info: also print the full event log\n"
		"  --verbose             Print each event as it is processed\n"
		"  --skip-device-sync    Skip device/stream synchronize events\n"
		"  --multi-thread        Enable multi-threaded replay (default: single-threaded)\n"
		"  --timing              Report wall time and total GPU kernel time\n"
		"  --kernel-filter STR   Only launch kernels whose name contains STR\n"
		"  --replace-kernel N=P  Launch kernel N from code object P instead\n"
		"  --sync-after-launch   hipDeviceSynchronize after every kernel launch\n"
		"  --sync-after-event    hipDeviceSynchronize after EVERY event (slowest, most precise)\n"
		"  --continue-on-error   Do not stop on HIP API errors: report each and keep replaying\n"
		"%s"
		"  --sync-watchdog-ms N  Abort with a diagnostic if any device synchronize does\n"
		"                        not complete within N ms. 0 = disabled.\n"
		"  --trace-kernels       Print one compact line before every kernel launch\n"
		"  --trace-sync          Print sync begin/done markers around kernel syncs\n"
		"  --progress-kernels N  Print heartbeat every N launched kernels\n"
		"  --progress-seconds S  Print heartbeat at most every S seconds\n"
		"  --version             Print the archive format version this build reads and\n"
		"                        the revision it was built from, then exit\n"
		"  --help                Show this message\n"
		"\n"
		"Environment (lightweight replay tracing):\n"
		"  HIP_HRR_REPLAY_PROGRESS_KERNELS=N    same as --progress-kernels N\n"
		"  HIP_HRR_REPLAY_PROGRESS_SECONDS=S    same as --progress-seconds S\n"
		"  HIP_HRR_REPLAY_SYNC_WATCHDOG_MS=N    same as --sync-watchdog-ms N\n"
		"\n"
		"Default mode: single-threaded, serialize GPU after pass, abort on first error.\n"
		"Use --sync-after-event to pinpoint the exact event causing a GPU fault or hang.\n",
		argv0, older_build() ? "" :
		"  --regions-strict      Fail the replay when a kernel touches memory outside the\n"
		"                        regions the capture recorded\n"
		"  --no-regions          Do not load or check the recorded regions\n"
		"  --no-placement        Do not map allocations at their recorded addresses\n"
		"  --guard-min-bytes N   Guard allocations of at least N bytes\n"
		"  --guard-max-bytes N   Guard allocations of at most N bytes\n"
		"  --guard-budget-mb N   Stop guarding once N MiB of guard pages are mapped\n"
		"  --guard-report        Print each guarded allocation (takes no value)\n"
		"  --warn-untranslated-args\n"
		"                        Warn about kernel arguments that look like device pointers\n"
		"                        but match no recorded allocation\n");
}

/* ---- the dynamic loader's view ---- */

struct lib_found {
	char *loaded;    /* as the loader names it: dir/soname */
	char *canonical; /* symlinks resolved: the versioned file */
};

static const char *const lib_names[][3] = {
	{ "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so" },
	{ "libhsa-runtime64.so.1", "libhsa-runtime64.so", NULL },
	{ "libamd_comgr.so.3", "libamd_comgr.so.2", "libamd_comgr.so" },
};

static int find_lib(char **dirs, size_t n_dirs, size_t which, struct lib_found *out)
{
	for (size_t d = 0; d < n_dirs; d++)
		for (size_t k = 0; k < 3 && lib_names[which][k]; k++) {
			char *p, real[PATH_MAX];
			struct stat st;

			if (asprintf(&p, "%s/%s", dirs[d], lib_names[which][k]) < 0)
				sim_die("out of memory");
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
				out->loaded = p;
				out->canonical = sim_strdup(realpath(p, real) ? real : p);
				return 1;
			}
			free(p);
		}
	return 0;
}

static size_t lib_dirs(char ***out)
{
	const char *ld = getenv("LD_LIBRARY_PATH");
	char **v = NULL, exe[PATH_MAX], *slash;
	size_t n = 0, alloc = 0;
	ssize_t len;

	if (ld && *ld) {
		char *copy = sim_strdup(ld), *save = NULL;

		for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
			v = sim_grow(v, &alloc, n + 1, sizeof(*v));
			v[n++] = sim_strdup(t);
		}
		free(copy);
	}
	/* RUNPATH $ORIGIN/../lib, as ROCm installs its binaries */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			v = sim_grow(v, &alloc, n + 1, sizeof(*v));
			if (asprintf(&v[n++], "%s/../lib", exe) < 0)
				sim_die("out of memory");
		}
	}
	*out = v;
	return n;
}

static int cmp_found(const void *a, const void *b)
{
	return strcmp(((const struct lib_found *)a)->loaded, ((const struct lib_found *)b)->loaded);
}

/* Fills env->runtime_libs; returns 0 when libamdhip64 is missing. */
static int load_runtime(struct sim_env *env, char **hip_canonical)
{
	char **dirs;
	size_t n_dirs = lib_dirs(&dirs), n = 0;
	struct lib_found found[3];
	int have_hip = 0;

	*hip_canonical = NULL;
	for (size_t i = 0; i < 3; i++)
		if (find_lib(dirs, n_dirs, i, &found[n])) {
			if (i == 0) {
				have_hip = 1;
				*hip_canonical = sim_strdup(found[n].canonical);
			}
			n++;
		}
	for (size_t d = 0; d < n_dirs; d++)
		free(dirs[d]);
	free(dirs);
	/* The real one lists what dl_iterate_phdr reports, sorted by the
	 * loaded name, and prints each resolved to its versioned file. */
	qsort(found, n, sizeof(found[0]), cmp_found);
	for (size_t i = 0; i < n; i++) {
		env->runtime_libs[i] = found[i].canonical;
		free(found[i].loaded);
	}
	env->n_runtime_libs = n;
	return have_hip;
}

/* libamdhip64.so.7.13.0-abc123 -> 71300000, as hipRuntimeGetVersion. */
static long hip_version_number(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	unsigned long maj, min, patch;

	base = base ? base + 1 : path;
	if (!base || sscanf(base, "libamdhip64.so.%lu.%lu.%lu", &maj, &min, &patch) != 3)
		return -1;
	return (long)(maj * 10000000ul + min * 100000ul + patch);
}

static void print_version(const char *hip_lib)
{
	long v = hip_version_number(hip_lib);

	printf("hrr-playback (HIP Record & Replay)\n");
	printf("  archive format version : %u\n", HRR_READER_VERSION);
	printf("  source revision        : %s\n", SIM_REVISION);
	printf("  source branch          : %s\n", "simulator");
	printf("  build type             : %s\n", "Release");
	if (v >= 0)
		printf("  hip runtime version    : %ld\n", v);
	else
		printf("  hip runtime version    : unavailable\n");
}

/* ---- the GPUs HIP would enumerate ---- */

struct devices {
	char *paths[64];       /* render nodes, by minor number */
	unsigned minors[64];
	size_t n;
	const char *kfd_state; /* "yes", "missing", "denied" */
	size_t visible[64];    /* indexes into paths, in HIP order */
	size_t n_visible;
};

static int cmp_minor(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES: indexes into the list so far;
 * the list is cut at the first entry that is not a valid, new index. */
static void apply_mask(struct devices *d, const char *var)
{
	const char *v = getenv(var);
	size_t out[64], n = 0;
	char *copy, *save = NULL;

	if (!v)
		return;
	copy = sim_strdup(v);
	for (char *t = strtok_r(copy, ",", &save); t && n < 64; t = strtok_r(NULL, ",", &save)) {
		char *end;
		long idx = strtol(t, &end, 10);
		int dup = 0;

		if (end == t || *end || idx < 0 || (size_t)idx >= d->n_visible)
			break;
		for (size_t k = 0; k < n; k++)
			dup |= out[k] == d->visible[idx];
		if (dup)
			break;
		out[n++] = d->visible[idx];
	}
	free(copy);
	memcpy(d->visible, out, n * sizeof(out[0]));
	d->n_visible = n;
}

static void scan_devices(struct devices *d)
{
	const char *root = getenv("HRR_SIM_DEV_ROOT");
	char *p;
	DIR *dir;
	struct dirent *de;
	struct stat st;
	int fd;

	memset(d, 0, sizeof(*d));
	if (!root || !*root)
		root = "/dev";
	if (asprintf(&p, "%s/kfd", root) < 0)
		sim_die("out of memory");
	d->kfd_state = "missing";
	if (stat(p, &st) == 0) {
		/* The device cgroup answers EPERM when the node exists but the
		 * container was not granted it; a driverless node is fine. */
		fd = open(p, O_RDWR | O_CLOEXEC);
		d->kfd_state = fd < 0 && (errno == EPERM || errno == EACCES) ? "denied" : "yes";
		if (fd >= 0)
			close(fd);
	}
	free(p);
	if (asprintf(&p, "%s/dri", root) < 0)
		sim_die("out of memory");
	dir = opendir(p);
	free(p);
	while (dir && (de = readdir(dir)) && d->n < 64) {
		unsigned minor;
		char tail;

		if (sscanf(de->d_name, "renderD%u%c", &minor, &tail) == 1)
			d->minors[d->n++] = minor;
	}
	if (dir)
		closedir(dir);
	qsort(d->minors, d->n, sizeof(d->minors[0]), cmp_minor);
	for (size_t i = 0; i < d->n; i++)
		if (asprintf(&d->paths[i], "%s/dri/renderD%u", root, d->minors[i]) < 0)
			sim_die("out of memory");
	if (strcmp(d->kfd_state, "yes") == 0) {
		for (size_t i = 0; i < d->n; i++)
			d->visible[i] = i;
		d->n_visible = d->n;
	}
	apply_mask(d, "ROCR_VISIBLE_DEVICES");
	apply_mask(d, "HIP_VISIBLE_DEVICES");
}

/* HRR_SIM_FAIL_ON_RENDER=<minor>: a bad GPU. When that render node is
 * among the visible ones, the replay ends as the maf scenario does
 * (whatever the archive asks), so a sweep sees every case fail on that
 * GPU and pass on the others. */
static void fail_on_bad_render_node(const struct devices *d)
{
	const char *bad = getenv("HRR_SIM_FAIL_ON_RENDER");
	char *end;
	unsigned long minor;

	if (!bad || !*bad)
		return;
	minor = strtoul(bad, &end, 10);
	if (*end)
		return;
	for (size_t i = 0; i < d->n_visible; i++)
		if (d->minors[d->visible[i]] == minor)
			setenv("HRR_SIM_SCENARIO", "maf", 1);
}

static void release_devices(struct devices *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->paths[i]);
}

/* The i-th entry of a comma list, or its last entry; into buf. */
static const char *list_item(const char *list, size_t i, char *buf, size_t bufsz)
{
	const char *start = list, *comma;

	for (;;) {
		comma = strchr(start, ',');
		if (!comma || i == 0)
			break;
		start = comma + 1;
		i--;
	}
	snprintf(buf, bufsz, "%.*s", comma ? (int)(comma - start) : (int)strlen(start), start);
	return buf;
}

/* ---- HRR_SIM_REPORT: what the container gave this process ---- */

static void status_field(const char *key, char *out, size_t outsz)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t kl = strlen(key);

	snprintf(out, outsz, "?");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			char *v = line + kl + 1;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, outsz, "%s", v);
			break;
		}
	fclose(f);
}

static void report(int argc, char **argv, const struct devices *d)
{
	const char *vis = getenv("HIP_VISIBLE_DEVICES"), *ld = getenv("LD_LIBRARY_PATH");
	char init[64] = "?", capeff[64], nnp[16];
	gid_t groups[64];
	int ng = getgroups(64, groups);
	FILE *f;

	fprintf(stderr, "[sim] visible=%s devices=", vis ? vis : "<unset>");
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "%s%s", i ? "," : "", d->paths[i]);
	fprintf(stderr, " ld=%s args=", ld ? ld : "<unset>");
	for (int i = 0; i < argc; i++)
		fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
	fputc('\n', stderr);

	f = fopen("/proc/1/comm", "r");
	if (f) {
		if (fgets(init, sizeof(init), f))
			init[strcspn(init, "\n")] = '\0';
		fclose(f);
	}
	status_field("CapEff", capeff, sizeof(capeff));
	status_field("NoNewPrivs", nnp, sizeof(nnp));
	fprintf(stderr, "[sim] kfd=%s pid=%d init=%s uid=%u gid=%u groups=", d->kfd_state,
		(int)getpid(), init, (unsigned)getuid(), (unsigned)getgid());
	for (int i = 0; i < ng; i++)
		fprintf(stderr, "%s%u", i ? "," : "", (unsigned)groups[i]);
	fprintf(stderr, " capeff=%s nonewprivs=%s\n", capeff, nnp);
}

/* ---- options ---- */

static int parse_uint(const char *s, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return end != s && !*end && !errno ? 0 : -1;
}

/* --replace-kernel NAME=PATH: the code object must be there and be one
 * (an ELF file); the replacement itself is not simulated. Its content's
 * FNV-1a 64 digest is printed, so a test can tell which bytes were loaded. */
static int check_replacement(const char *spec)
{
	const char *eq = strchr(spec, '=');
	unsigned char buf[4096];
	unsigned long long h = 1469598103934665603ull;
	FILE *f = eq ? fopen(eq + 1, "rb") : NULL;
	size_t n, total = 0;
	int elf = 0;

	if (!eq) {
		fprintf(stderr, "[HRR] --replace-kernel expects NAME=PATH\n");
		return 1;
	}
	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (!total)
			elf = n >= 4 && !memcmp(buf, "\177ELF", 4);
		for (size_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ull;
		total += n;
	}
	if (f)
		fclose(f);
	if (!elf) {
		fprintf(stderr, "[HRR] --replace-kernel: cannot load code object %s\n", eq + 1);
		return 1;
	}
	printf("[HRR] Replacing kernel %.*s with code object fnv1a64:%016llx\n", (int)(eq - spec),
	       spec, h);
	return 0;
}

/* 0: go on; > 0: exit with code - 1 */
static int parse_args(int argc, char **argv, struct sim_opts *o, const char *hip_lib)
{
	unsigned long long n;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_val = i + 1 < argc;

		if (!strcmp(a, "--info"))
			o->info = 1;
		else if (!strcmp(a, "--repair"))
			o->repair = 1;
		else if (!strcmp(a, "--events"))
			o->events = 1;
		else if (!strcmp(a, "--verbose"))
			o->verbose = 1;
		else if (!strcmp(a, "--timing"))
			o->timing = 1;
		else if (!strcmp(a, "--sync-after-launch"))
			o->sync_after_launch = 1;
		else if (!strcmp(a, "--sync-after-event"))
			o->sync_after_event = 1;
		else if (!strcmp(a, "--continue-on-error"))
			o->continue_on_error = 1;
		else if (!strcmp(a, "--regions-strict") && !older_build())
			o->regions_strict = 1;
		else if (!strcmp(a, "--no-placement") && !older_build())
			o->no_placement = 1;
		else if ((!strcmp(a, "--no-regions") || !strcmp(a, "--warn-untranslated-args") ||
			  !strcmp(a, "--guard-report")) && !older_build())
			continue; /* nothing to simulate: accepted, no value taken */
		else if (!strcmp(a, "--trace-kernels"))
			o->trace_kernels = 1;
		else if (!strcmp(a, "--sync-watchdog-ms") && has_val) {
			if (parse_uint(argv[++i], &n) < 0) {
				fprintf(stderr, "[HRR] --sync-watchdog-ms expects an integer (milliseconds)\n");
				return 2;
			}
			o->watchdog_ms = (unsigned)n;
		} else if (!strcmp(a, "--progress-kernels") && has_val) {
			if (parse_uint(argv[++i], &n) < 0) {
				fprintf(stderr, "[HRR] --progress-kernels expects an integer\n");
				return 2;
			}
			o->progress_kernels = (size_t)n;
		} else if (!strcmp(a, "--progress-seconds") && has_val) {
			char *end;
			double d = strtod(argv[++i], &end);

			if (end == argv[i] || *end) {
				fprintf(stderr, "[HRR] --progress-seconds expects a number\n");
				return 2;
			}
			o->progress_seconds = d;
		} else if ((!strcmp(a, "--guard-min-bytes") || !strcmp(a, "--guard-max-bytes") ||
			    !strcmp(a, "--guard-budget-mb")) && has_val && !older_build()) {
			char *end;

			strtoull(argv[++i], &end, 0);
			if (*end) {
				fprintf(stderr, "[HRR] %s expects an integer\n", a);
				return 2;
			}
		} else if (!strcmp(a, "--replace-kernel") && has_val) {
			if (check_replacement(argv[++i]))
				return 2;
		} else if (!strcmp(a, "--kernel-filter") && has_val) {
			i++;
		} else if (!strcmp(a, "--help")) {
			usage(argv[0]);
			return 1;
		} else if (!strcmp(a, "--version")) {
			print_version(hip_lib);
			return 1;
		} else if (a[0] != '-') {
			/* The last word that is not an option: a flag this build
			 * does not know is skipped, and its value is read as the
			 * archive when nothing follows it, as the real one does. */
			o->archive = a;
		}
		/* anything else: silently ignored, as the real one does */
	}
	return 0;
}

static void env_overrides(struct sim_opts *o)
{
	const char *v;
	char *end;

	if ((v = getenv("HIP_HRR_REPLAY_PROGRESS_KERNELS")) && *v) {
		unsigned long long n = strtoull(v, &end, 10);

		if (!*end)
			o->progress_kernels = (size_t)n;
	}
	if ((v = getenv("HIP_HRR_REPLAY_PROGRESS_SECONDS")) && *v) {
		double d = strtod(v, &end);

		if (!*end)
			o->progress_seconds = d;
	}
	if ((v = getenv("HIP_HRR_REPLAY_SYNC_WATCHDOG_MS")) && *v) {
		unsigned long long n = strtoull(v, &end, 10);

		if (!*end)
			o->watchdog_ms = (unsigned)n;
	}
}

int main(int argc, char **argv)
{
	struct sim_opts o = { 0 };
	struct sim_env env = { 0 };
	struct sim_archive a = { 0 };
	struct scenario sc = { 0 };
	struct devices dev;
	char *hip_lib = NULL, name_buf[256], arch_buf[256];
	const char *scenario, *names, *archs;
	int r;

	/* Line-buffered stdout, unbuffered stderr: output interleaves as it
	 * is produced and survives abort(). */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "--probe-syscalls") == 0) return sim_probe_syscalls();
	scan_devices(&dev);
	fail_on_bad_render_node(&dev);
	if (getenv("HRR_SIM_REPORT"))
		report(argc, argv, &dev);
	if (!load_runtime(&env, &hip_lib)) {
		fprintf(stderr,
			"%s: error while loading shared libraries: libamdhip64.so.7: "
			"cannot open shared object file: No such file or directory\n", argv[0]);
		r = 127;
		goto out;
	}
	if (argc < 2) {
		usage(argv[0]);
		r = 1;
		goto out;
	}
	r = parse_args(argc, argv, &o, hip_lib);
	if (r > 0) {
		r--;
		goto out;
	}
	env_overrides(&o);
	r = 1;
	if (!o.archive) {
		fprintf(stderr, "[HRR] No archive path specified\n");
		usage(argv[0]);
		goto out;
	}
	/* The real --repair rewrites events.bin and manifest.json in place.
	 * Archives are evidence: the simulator refuses, so a caller that
	 * passes it fails loudly in tests instead of silently succeeding. */
	if (o.repair) {
		fprintf(stderr,
			"[HRR] --repair refused: this hrr-playback (simulator) never writes "
			"to an archive (%s)\n", o.archive);
		goto out;
	}
	if (o.info && archive_print_root_info(o.archive)) {
		r = 0;
		goto out;
	}
	if (archive_load(o.archive, &a) < 0)
		goto out;
	scenario_load(&sc, a.path);
	scenario = getenv("HRR_SIM_SCENARIO");
	if (!scenario || !*scenario)
		scenario = scenario_get(&sc, "scenario");
	/* As if pointed at the capture root: the reader refuses it. */
	if (scenario && strcmp(scenario, "root-refusal") == 0 && !o.info) {
		char *root = sim_strdup(a.path), *slash = strrchr(root, '/');

		if (slash)
			*slash = '\0';
		archive_refuse_root(slash ? root : ".", scenario_get(&sc, "root_pids"));
		free(root);
		goto out;
	}
	if (scenario && strcmp(scenario, "version-mismatch") == 0) {
		fprintf(stderr, "[HRR] Version mismatch: file=%lld reader=%u\n",
			scenario_int(&sc, "file_version", HRR_READER_VERSION + 1),
			HRR_READER_VERSION);
		goto out;
	}
	if (o.info) {
		const char *info = scenario_get(&sc, "info");

		archive_print_info(&a);
		if (info && !strcmp(info, "hang")) {
			fflush(stdout);
			for (;;)
				pause();
		}
		r = 0;
		goto out;
	}

	names = scenario_get(&sc, "device_name");
	archs = scenario_get(&sc, "device_arch");
	env.n_visible = dev.n_visible;
	if (dev.n_visible) {
		size_t idx = dev.visible[0];

		env.device_name = list_item(names ? names : "AMD Instinct MI300X", idx,
					    name_buf, sizeof(name_buf));
		env.device_arch = list_item(archs ? archs : "gfx942:sramecc+:xnack-", idx,
					    arch_buf, sizeof(arch_buf));
	}
	r = replay_run(&o, &a, &sc, &env);
out:
	fflush(stdout);
	free(hip_lib);
	for (size_t i = 0; i < env.n_runtime_libs; i++)
		free(env.runtime_libs[i]);
	scenario_release(&sc);
	archive_release(&a);
	release_devices(&dev);
	return r;
}
