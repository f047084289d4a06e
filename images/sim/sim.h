/* hrr-playback simulator: stands in for ROCm's hrr-playback where no AMD GPU
 * exists. It reads a real archive layout, prints the real program's lines
 * (docs/formats.md quotes them) and ends the way the real
 * one does, per a scenario file inside the archive:
 *
 *     <pid-dir>/sim-scenario      key=value lines, '#' comments
 *
 * The real hrr-playback ignores files it does not know, so a fixture archive
 * stays a valid archive. Keys (all optional):
 *
 *   scenario=pass|d2h-fail|maf|fatal|version-mismatch|queue-abort|hang|
 *            crash|watchdog|divergence|flood|slow|hw-exception|hip-error|
 *            graph-refusal|root-refusal|replay-log (default pass)
 *   replay-log        print the pid directory's sim-log byte for byte and
 *                     exit with exit=N (default 1): a real log through the
 *                     whole run path
 *   hip_code=700|702|710|719, hip_at=launch|copy   (hip-error) the HIP
 *                     device-side code, in the sync after the launch ("GPU
 *                     error after '<k>'") or on the next call that waits
 *                     (default: launch with --sync-after-launch, else copy)
 *   graph_form=old    (graph-refusal) the older "not found in map" line,
 *                     which skips the graph and goes on
 *   root-refusal      the reader refuses the pid directory's parent root, as
 *                     if hrr-playback had been pointed at it; root_pids=a,b
 *                     names the pid directories when the parent holds fewer
 *                     than two (a run mounts only the one it replays)
 *   flags=a,b         hrr-playback flags taken as if on the command line (a
 *                     fixture's stand-in for a run passing them):
 *                     --continue-on-error, --regions-strict
 *   co_unloadable=N   (--continue-on-error) "Code objects : N unloadable"
 *   regions=N, region_oob=M   region annotations: the Regions lines; with
 *                     --regions-strict M > 0 fails the run
 *   noop_api=<api>    a generated NOOP handler's one-time warning
 *   hw_reason=TEXT    (hw-exception) the reason: "GPU Hang" (default) or an ECC text
 *   hang_s=T          (hw-exception) silent in the kernel T s before the driver's
 *                     hang detection fires (the agent dumps its waves on SIGQUIT)
 *   kernels=a,b,c / kernel=<one name, may hold commas> (repeatable)
 *                     replay these launches instead of the archive's
 *   launches=N        launch count (kernel names round-robin)
 *   fault_at=N        launch ordinal (0-based) where the scenario's failure
 *                     happens (default: the last launch)
 *   fault_event=N     call index instead of a launch ordinal
 *   device_name=, device_arch=   (comma lists: one per visible device)
 *   d2h_pass=, d2h_tol=, d2h_fail=, d2h_skipped=   D2H check counts
 *   reason=unknown|read-only, fault_addr=0x.., gpu_node=N,
 *                     (without reason=, the tidy line says "Unknown." and a
 *                     format= variant "Page not present or supervisor
 *                     privilege", as the fixtures were made; reason=unknown
 *                     is "Unknown" in every form)
 *   bracket=host|nohost|none     (maf: the rocdevice line's form)
 *   queue_status=HSA_STATUS_ERROR_<NAME>, queue_text=, queue_code=0x1016,
 *   queue_bracket=0|1  (queue-abort; replay.c knows the text and code of a
 *                     representative set: MEMORY_FAULT, MEMORY_APERTURE_VIOLATION,
 *                     ILLEGAL_INSTRUCTION, EXCEPTION, INVALID_ISA,
 *                     INVALID_CODE_OBJECT, INCOMPATIBLE_ARGUMENTS,
 *                     OUT_OF_RESOURCES, INVALID_ALLOCATION, FATAL)
 *   fatal_api=, fatal_code=, fatal_error=          (fatal)
 *   file_version=N    (version-mismatch with a version-8 events.bin)
 *   watchdog_ms=N     (watchdog; the option/env wins)
 *   bytes=N           (flood; env HRR_SIM_FLOOD_BYTES wins)
 *   seconds=T, interval=S        (slow: a launch every S s for T s)
 *   gpu_ms=T, kernel_ms=T, perf_group=NAME   --timing's GPU time (timing.c)
 *   timing=none       --timing prints no GPU time lines (an older hrr-playback)
 *   missing_ptr=1, not_replayable=<api>            extra diagnostic lines
 *   fell_back=N, placed=P, frees_deferred=K        upstream's Placement lines: N
 *                     allocations not placed at their recorded addresses (from
 *                     placement_base=0x..., placement_bytes=B each), and the
 *                     summary's Placement line when placed= or fell_back= is given
 *   comgr_lib=PATH    the Runtime lines name this comgr (a mixed stack)
 *   info=hang         --info prints its summary, then hangs silently until
 *                     killed (a side step the orchestrator must bound)
 *   format=a,b,...    the real programs' variants of their lines (docs/formats.md,
 *                     "Variants the classifier handles"):
 *       spliced           with --sync-after-launch, "[HRR] Event N: api   ->
 *                         Kernel 'k'" then " OK"; a fault lands on that line
 *       reason-next-line  the fault line's " Reason: ..." after another
 *                         thread's heartbeat
 *       nil-address       "on address (nil)"
 *       imprecise         ROCr's "(may not be exact address)"
 *       summary-newer     "[HRR]   D2H checks   : P pass, F fail, S skipped"
 *       health            "[HRR] Complete: yes (clean shutdown)" first
 *       color             ANSI colour on heartbeats and the fault line
 *       long-line         a 1 MiB line without newline before the fault
 *       cut-name          killed while writing the fault bracket's kernel name
 *       cut-number        killed while writing a heartbeat's seq=
 *       watchdog-launch   the watchdog names the launch in flight (kernel #N
 *                         "<name>" (seq=S, grid=[...] block=[...])), which
 *                         printed no heartbeat
 *       placement-bare    fallback lines without address and size
 *       placement-older   the summary's Placement line without frees deferred
 *       queue-old         the queue abort as "Device::callbackQueue aborting
 *                         with error : NAME:  text code: 0x.." (ROCm 4-5)
 *       queue-oldest      "Device::callbackQueue aborting with status: 0x.."
 *       pid-prefix        AMD_LOG_LEVEL's "[pid:N  tid:0x..]" column
 *     (color also colours the queue-abort line)
 *     (any format= also ends the fault line with ROCr's period)
 *
 * Environment just for the simulator: HRR_SIM_DEV_ROOT (default /dev),
 * HRR_SIM_SCENARIO (overrides scenario=), HRR_SIM_FLOOD_BYTES,
 * HRR_SIM_AGENT=old|rocm7 (which debug-agent generation the stand-in plays,
 * sim-tools/sim_debug.h), HRR_SIM_ROCGDB=hang|nolib (sim-tools/rocgdb.c),
 * HRR_SIM_REPORT (print what the container got on stderr),
 * HRR_SIM_FAIL_ON_RENDER=<minor> (a bad GPU: with that render node visible
 * the replay ends as scenario maf), HRR_SIM_JITTER, HRR_SIM_SEED and
 * HRR_SIM_SLOWDOWN_FILE (--timing's GPU time, timing.c).
 *
 * It never writes into the archive: every file is opened read-only. */
#ifndef HRR_SIM_H
#define HRR_SIM_H

#include <stddef.h>
#include <stdint.h>

#define HRR_MAGIC 0x52524845u      /* "EHRR" read little-endian */
#define HRR_READER_VERSION 8u
#define HRR_EOF_MARKER 0xFFFFu
#define HRR_EOF_MAGIC 0x464F4548u  /* "HEOF" */
#define HRR_HEADER_SIZE 32u
#define HRR_EOF_SIZE 44u
#define HRR_MAX_RECORD (64u << 20)

/* Event type ids. The real ids come from a generated enum of several hundred
 * APIs that shifts between builds; fixtures use this table (see
 * tests/fixtures/make-archives.sh, which writes the same numbers). */
enum sim_api {
	SIM_API_REGISTER_FATBINARY = 0,
	SIM_API_SET_DEVICE = 1,
	SIM_API_MALLOC = 2,
	SIM_API_FREE = 3,
	SIM_API_MEMCPY = 4,
	SIM_API_MEMCPY_ASYNC = 5,
	SIM_API_MEMCPY_HTOD = 6,
	SIM_API_MEMCPY_DTOH = 7,
	SIM_API_STREAM_CREATE = 8,
	SIM_API_STREAM_SYNCHRONIZE = 9,
	SIM_API_DEVICE_SYNCHRONIZE = 10,
	SIM_API_MODULE_LOAD_DATA = 11,
	SIM_API_MODULE_GET_FUNCTION = 12,
	SIM_API_MODULE_LAUNCH_KERNEL = 13,
	SIM_API_EXT_MODULE_LAUNCH_KERNEL = 14,
	SIM_API_LAUNCH_KERNEL = 15,
	SIM_API_EVENT_CREATE = 16,
	SIM_API_EVENT_RECORD = 17,
	SIM_API_MEMSET_ASYNC = 18,
	SIM_API_COUNT
};

const char *sim_api_name(unsigned type); /* "UNKNOWN" outside the table */
int sim_api_is_launch(unsigned type);

struct sim_event {
	unsigned type;
	unsigned long long seq;
	unsigned long long tid;
	const char *api;      /* name to print */
	char *kernel;         /* launches only, else NULL */
	unsigned grid[3], block[3], shared_mem;
	unsigned long long ptr_args[4];
	unsigned n_ptr_args;
	int is_d2h;           /* a device-to-host copy (validated on replay) */
};

struct sim_archive {
	char *path;           /* the resolved pid directory */
	unsigned version, flags;
	struct sim_event *events;
	size_t n_events, alloc_events;
	size_t n_kernels, n_d2h, n_blobs, n_code_objects, n_threads;
	int complete;         /* clean-shutdown trailer seen */
	int truncated;        /* a torn record at the tail */
};

/* Resolve and read <input> (pid dir or root with one pid-*), printing the
 * real reader's messages on failure; returns -1 then (exit 1). */
int archive_load(const char *input, struct sim_archive *a);
void archive_release(struct sim_archive *a);
/* The reader's refusal of a root with several pid directories, as if
 * hrr-playback had been pointed at root (scenario=root-refusal); names
 * ("pid-1,pid-2", root_pids=) stand for siblings a run did not mount. 1
 * when printed. */
int archive_refuse_root(const char *root, const char *names);
/* --info on a root: 1 when printed, 0 when input is not a root. */
int archive_print_root_info(const char *input);
void archive_print_info(const struct sim_archive *a);

/* key=value scenario file */
struct scenario {
	char **keys, **vals;
	size_t n, alloc;
};
void scenario_load(struct scenario *sc, const char *pid_dir);
void scenario_release(struct scenario *sc);
/* Last value of key, or NULL. */
const char *scenario_get(const struct scenario *sc, const char *key);
long long scenario_int(const struct scenario *sc, const char *key, long long def);
double scenario_double(const struct scenario *sc, const char *key, double def);
/* v as a whole double; def when v is NULL, empty or not one. */
double sim_parse_double(const char *v, double def);
/* Every value of key, in file order (kernels=a,b is stored as kernel=a,
 * kernel=b). The caller frees *out, not the strings. */
size_t scenario_all(const struct scenario *sc, const char *key, const char ***out);

struct sim_opts {
	const char *archive;
	int info, events, verbose, timing, sync_after_launch, sync_after_event;
	int trace_kernels, continue_on_error, repair, regions_strict, no_placement;
	double progress_seconds;
	size_t progress_kernels;
	unsigned watchdog_ms;
};

/* The GPU and libraries the process sees (main.c). */
struct sim_env {
	const char *device_name, *device_arch;
	size_t n_visible;
	char *runtime_libs[3];  /* canonical paths, sorted as the real one does */
	size_t n_runtime_libs;
};

/* Pure formatting, unit-tested through the binary. */
/* A kernel name longer than 120 characters: first 96, "...", last 21. */
const char *sim_compact_name(const char *name, char *buf, size_t bufsz);
double sim_now(void);     /* CLOCK_MONOTONIC seconds */
void sim_sleep(double seconds);
void *sim_grow(void *p, size_t *alloc, size_t need, size_t elem);
char *sim_strdup(const char *s);
_Noreturn void sim_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* gpu_events.c: ROCr's hardware-exception line, then abort(); hang_s > 0:
 * first stuck in kernel that long, silent (SIGQUIT: the agent's dump). */
_Noreturn void sim_hw_exception(const char *node, const char *reason, const char *kernel,
				double hang_s);

/* probe.c: --probe-syscalls, what seccomp and the user allow (exit code). */
int sim_probe_syscalls(void);

/* timing.c: the GPU kernel time --timing reports for this many launches. */
double sim_gpu_kernel_ms(const struct scenario *sc, size_t kernels);

/* replay.c: everything after the archive loaded and a GPU was found.
 * Returns the exit code, or does not return (signals, _exit). */
int replay_run(const struct sim_opts *o, const struct sim_archive *a,
	       const struct scenario *sc, const struct sim_env *env);

#endif
