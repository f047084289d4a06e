/* The replay itself: walk the events, print what hrr-playback prints for
 * each, and end the way the scenario says. Formats are the real program's
 * (see docs/formats.md); where the real one calls into the GPU, this one
 * decides from the scenario file.
 *
 * Heartbeats, like the real ones, come only as kernels launch: nothing here
 * runs on a timer, so a hung scenario is really silent. */
#include "sim.h"
#include "../sim-tools/sim_debug.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Used when a scenario asks for launches but neither it nor the archive
 * names a kernel. The first is longer than 120 characters on purpose. */
static const char *const default_kernels[] = {
	"Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x192x128_MI16x16x1_SN_LDSB1_"
	"AFC1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA8_GRVWB8_GSUAMB_ISA942_IU1_K1_LBSPPA2048_"
	"LPA16_LPB16_MIAV1_MIWT4_3_NTn1_PGR2_PLR1_SIA3_SS1_SVW8_SK3_SKXCCM8_TLDS1_VWA8_WG32_4_1",
	"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
};

struct run {
	const struct sim_opts *o;
	const struct sim_archive *a;
	const struct scenario *sc;
	const struct sim_env *env;
	const char *scenario;

	struct sim_event *plan; /* the archive's events, or synthesized ones */
	size_t n, n_launches;
	int synthetic;
	long fault_idx;         /* plan index where the scenario fails; -1: end */

	/* D2H checks: done in this order, spread evenly over the launches */
	size_t want_exact, want_tol, want_skip, want_fail, want_total, done;
	size_t pass, pass_tol, fail, skipped, attempted;
	double atol, rtol, divergence_frac;
	int exact_only;

	size_t kernels, events_failed;
	const char *last_kernel;
	const struct sim_event *in_flight; /* the launch being synchronised (its heartbeat not yet printed) */
	double wall_start;
	int beat_started;
	double beat_start, beat_last;
};

static int sim_str_is(const char *v, const char *want)
{
	return v && !strcmp(v, want);
}

static int env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] && !(v[0] == '0' && v[1] == '\0');
}

static double env_double(const char *name, double def)
{
	return sim_parse_double(getenv(name), def);
}

static int scenario_is(const struct run *r, const char *name)
{
	return strcmp(r->scenario, name) == 0;
}

/* format=a,b,...: the real programs' variants of a line this replay prints
 * (sim.h lists them; docs/formats.md says where each comes from). */
static int variant(const struct run *r, const char *name)
{
	const char *v = scenario_get(r->sc, "format");
	size_t n = strlen(name);

	for (; v && *v; v = strchr(v, ',') ? strchr(v, ',') + 1 : NULL) {
		if (!strncmp(v, name, n) && (v[n] == ',' || v[n] == '\0'))
			return 1;
	}
	return 0;
}

/* An hrr-playback flag: given on the command line, or listed in the
 * scenario's flags= (a fixture's stand-in for a run that passes it). */
static int flag_on(const struct run *r, const char *flag)
{
	const char *v = scenario_get(r->sc, "flags");
	size_t n = strlen(flag);

	if (!strcmp(flag, "--continue-on-error") && r->o->continue_on_error)
		return 1;
	if (!strcmp(flag, "--regions-strict") && r->o->regions_strict)
		return 1;
	for (; v && *v; v = strchr(v, ',') ? strchr(v, ',') + 1 : NULL)
		if (!strncmp(v, flag, n) && (v[n] == ',' || v[n] == '\0'))
			return 1;
	return 0;
}

/* format=color: the runtime and some wrappers colour their lines. */
static const char *colour_on(const struct run *r, const char *code)
{
	return variant(r, "color") ? code : "";
}

static const char *colour_off(const struct run *r)
{
	return variant(r, "color") ? "\x1b[0m\x1b[K" : "";
}

/* ---- the plan ---- */

static void plan_push(struct run *r, size_t *alloc, unsigned type, const char *kernel,
		      unsigned long long seq, unsigned long long tid)
{
	struct sim_event *ev;

	r->plan = sim_grow(r->plan, alloc, r->n + 1, sizeof(*r->plan));
	ev = &r->plan[r->n++];
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->api = sim_api_name(type);
	ev->seq = seq;
	ev->tid = tid;
	/* Synthesized launches borrow their names from the scenario/archive. */
	ev->kernel = (char *)kernel;
	if (kernel) {
		ev->grid[0] = 304;
		ev->grid[1] = ev->grid[2] = 1;
		ev->block[0] = 256;
		ev->block[1] = ev->block[2] = 1;
		r->n_launches++;
	}
}

/* kernels=/launches= (or a slow scenario) replace the archive's events with
 * a synthesized stream: a prologue, the launches, a final copy and sync. */
static void plan_build(struct run *r)
{
	const char **names = NULL;
	size_t n_names = scenario_all(r->sc, "kernel", &names), alloc = 0;
	long long launches = scenario_int(r->sc, "launches", -1);
	unsigned long long seq = 1, tid = 1;
	static const unsigned prologue[] = {
		SIM_API_SET_DEVICE, SIM_API_STREAM_CREATE, SIM_API_MODULE_LOAD_DATA,
		SIM_API_MALLOC, SIM_API_MALLOC, SIM_API_MEMCPY_HTOD,
	};

	if (scenario_is(r, "slow") && launches < 0) {
		double secs = scenario_double(r->sc, "seconds", 3.0);
		double every = scenario_double(r->sc, "interval", 0.25);

		/* ceil(secs / every), without libm */
		launches = 1;
		if (every > 0) {
			launches = (long long)(secs / every);
			if ((double)launches * every < secs)
				launches++;
		}
	}
	if (n_names == 0 && launches < 0) {
		free(names);
		r->plan = r->a->events;
		r->n = r->a->n_events;
		r->n_launches = r->a->n_kernels;
		return;
	}
	r->synthetic = 1;
	if (n_names == 0) {
		for (size_t i = 0; i < r->a->n_events; i++) {
			if (!r->a->events[i].kernel)
				continue;
			names = sim_grow(names, &alloc, n_names + 1, sizeof(*names));
			names[n_names++] = r->a->events[i].kernel;
		}
		alloc = 0;
	}
	if (n_names == 0) {
		n_names = sizeof(default_kernels) / sizeof(default_kernels[0]);
		free(names);
		names = malloc(sizeof(default_kernels));
		if (!names)
			sim_die("out of memory");
		memcpy(names, default_kernels, sizeof(default_kernels));
	}
	if (launches < 0)
		launches = (long long)n_names;
	if (r->a->n_events) {
		seq = r->a->events[0].seq;
		tid = r->a->events[0].tid;
	}
	r->plan = NULL;
	r->n = 0;
	for (size_t i = 0; i < sizeof(prologue) / sizeof(prologue[0]); i++)
		plan_push(r, &alloc, prologue[i], NULL, seq++, tid);
	for (long long i = 0; i < launches; i++)
		plan_push(r, &alloc, SIM_API_MODULE_LAUNCH_KERNEL, names[i % (long long)n_names],
			  seq++, tid);
	plan_push(r, &alloc, SIM_API_MEMCPY_DTOH, NULL, seq++, tid);
	r->plan[r->n - 1].is_d2h = 1;
	plan_push(r, &alloc, SIM_API_DEVICE_SYNCHRONIZE, NULL, seq++, tid);
	free(names);
}

static long plan_fault_index(const struct run *r)
{
	long long ev = scenario_int(r->sc, "fault_event", -1);
	long long at = scenario_int(r->sc, "fault_at", (long long)r->n_launches - 1);
	long long ord = 0;

	if (ev >= 0)
		return ev < (long long)r->n ? (long)ev : (long)r->n - 1;
	if (r->n_launches == 0)
		return (long)r->n - 1;
	if (at >= (long long)r->n_launches)
		at = (long long)r->n_launches - 1;
	for (size_t i = 0; i < r->n; i++)
		if (r->plan[i].kernel && ord++ == at)
			return (long)i;
	return (long)r->n - 1;
}

/* ---- output pieces ---- */

static void print_event(const struct run *r, size_t i)
{
	const struct sim_event *ev = &r->plan[i];
	int missing = scenario_int(r->sc, "missing_ptr", 0) && (long)i == r->fault_idx;

	if (!r->o->verbose)
		return;
	if (ev->kernel)
		fprintf(stderr, "[HRR] Event %zu: %s -> Kernel '%s'\n", i, ev->api, ev->kernel);
	else
		fprintf(stderr, "[HRR] Event %zu: %s\n", i, ev->api);
	for (unsigned k = 0; k < ev->n_ptr_args; k++) {
		if (missing && k == 0)
			fprintf(stderr, "[HRR]   arg[%u]: ptr 0x%llx -> %p (MISSING!)\n", k,
				ev->ptr_args[k], (void *)0);
		else
			fprintf(stderr, "[HRR]   arg[%u]: ptr 0x%llx -> 0x%llx\n", k,
				ev->ptr_args[k], ev->ptr_args[k]);
	}
}

static void progress(struct run *r, const struct sim_event *ev)
{
	size_t every = r->o->progress_kernels;
	int by_count = every && (r->kernels == 1 || r->kernels % every == 0);
	int by_time_enabled = r->o->progress_seconds > 0.0, by_time = 0;
	double now, elapsed = 0.0;
	char buf[128];

	if (!by_count && !by_time_enabled)
		return;
	now = sim_now();
	if (!r->beat_started) {
		r->beat_started = 1;
		r->beat_start = r->beat_last = now;
		by_time = 1;
	} else {
		elapsed = now - r->beat_start;
		if (by_time_enabled && now - r->beat_last >= r->o->progress_seconds) {
			r->beat_last = now;
			by_time = 1;
		}
	}
	if (!by_count && !by_time)
		return;
	fprintf(stderr,
		"%s[HRR progress] elapsed_s=%.1f seq=%llu kernels=%zu d2h_pass=%zu "
		"d2h_fail=%zu d2h_attempted=%zu last=\"%s\"%s\n", colour_on(r, "\x1b[36m"),
		elapsed, ev->seq, r->kernels, r->pass, r->fail, r->attempted,
		sim_compact_name(ev->kernel, buf, sizeof(buf)), colour_off(r));
}

static _Noreturn void diverged(struct run *r, unsigned long long seq)
{
	fprintf(stderr,
		"[HRR] replay DIVERGED at recorded event seq %llu: %zu/%zu D2H "
		"validations failed (%.1f%% >= %.1f%% threshold). Aborting "
		"cleanly before a downstream GPU fault. This is a replay-fidelity "
		"divergence (e.g. nondeterministic GPU reductions in an unstable "
		"model state), not an HRR translation/memory bug. Set "
		"HIP_HRR_REPLAY_DIVERGENCE_ABORT=0 to disable this guard.\n",
		seq, r->fail, r->attempted,
		100.0 * (double)r->fail / (double)r->attempted, 100.0 * r->divergence_frac);
	fprintf(stderr,
		"[HRR] Replay stopped: data divergence exceeded threshold "
		"(%zu/%zu D2H validations failed). This is a replay-fidelity "
		"limit (nondeterministic GPU reductions in an unstable workload), "
		"not an HRR bug — see the [HRR] replay DIVERGED message above.\n",
		r->fail, r->attempted);
	fflush(stdout);
	exit(2);
}

/* One D2H validation, following the copy recorded right after ev. */
static void d2h_check(struct run *r, const struct sim_event *ev)
{
	static const char *const tags[] = { "DtoH", "DtoHAsync", "kernarg" };
	static const char *const fits[] = { "f32", "bf16", "f16" };
	size_t k = r->done++, f, bytes, differ, elems;
	unsigned long long seq;

	r->attempted++;
	if (k < r->want_exact) {
		r->pass++;
		return;
	}
	if (k < r->want_exact + r->want_tol) {
		r->pass++;
		r->pass_tol++;
		if (r->o->verbose)
			fprintf(stderr,
				"[HRR] %s D2H validate: %zu bytes ~OK within tol as %s "
				"(%zu elems differ, max|d|=%.3g maxrel=%.3g, atol=%g rtol=%g)\n",
				"DtoH", (size_t)16384, "bf16", (size_t)3, 0.000488, 0.00061,
				r->atol, r->rtol);
		return;
	}
	if (k < r->want_exact + r->want_tol + r->want_skip) {
		r->skipped++;
		return;
	}
	f = r->fail++;
	seq = ev->seq + 1 + f;
	bytes = (size_t)4096 << (f % 3);
	differ = bytes / 8 + f;
	elems = bytes / 4;
	if (r->exact_only || f % 2 == 1)
		fprintf(stderr,
			"[HRR] %s D2H FAIL seq=%llu (exact): %zu bytes, %zu/%zu bytes differ, "
			"first@%zu (got 0x%02x exp 0x%02x)\n",
			tags[f % 3], seq, bytes, differ, bytes, (size_t)64 * (f + 1), 0x7fu, 0x3fu);
	else
		fprintf(stderr,
			"[HRR] %s D2H FAIL seq=%llu: %zu bytes, %zu/%zu bytes differ (%.2f%%), "
			"first@%zu (got 0x%02x exp 0x%02x); best fit %s: %zu/%zu elems exceed "
			"tol (atol=%g rtol=%g), max|d|=%.4g maxrel=%.4g\n",
			tags[f % 3], seq, bytes, differ, bytes,
			100.0 * (double)differ / (double)bytes, (size_t)64 * (f + 1), 0xc0u, 0x40u,
			fits[f % 3], differ / 4, elems, r->atol, r->rtol, 3.5 + (double)f, 0.875);
	/* Like the real guard: stop once the failing fraction crosses the
	 * threshold; 4 is the simulator's minimum sample size. */
	if (r->divergence_frac > 0.0 && r->attempted >= 4 &&
	    (double)r->fail >= r->divergence_frac * (double)r->attempted)
		diverged(r, seq);
}

static void d2h_until(struct run *r, size_t target, const struct sim_event *ev)
{
	while (r->done < target && r->done < r->want_total)
		d2h_check(r, ev);
}

static const char *hip_error_string(long long code)
{
	switch (code) {
	case 1: return "invalid argument";
	case 2: return "out of memory";
	case 98: return "invalid device function";
	case 200: return "invalid kernel file";
	case 209: return "no kernel image is available for execution on the device";
	case 500: return "named symbol not found";
	case 700: return "an illegal memory access was encountered";
	case 702: return "the launch timed out and was terminated";
	case 710: return "device-side assert triggered";
	case 719: return "unspecified launch failure";
	case 801: return "operation not supported";
	default: return "unknown error";
	}
}

static long long runtime_us(void)
{
	return (long long)(sim_now() * 1e6) % 10000000000LL;
}

/* ---- how scenarios end ---- */

/* Without a sync after each launch a fault surfaces at a later call: the
 * replay has already moved on a few events when the runtime reports it. */
static void fault_lag(const struct run *r, size_t i)
{
	if (r->o->sync_after_launch || r->o->sync_after_event)
		return;
	for (size_t k = i + 1; k < r->n && k <= i + 3; k++)
		print_event(r, k);
}

static _Noreturn void end_abort(void)
{
	fflush(stdout);
	fflush(stderr);
	signal(SIGABRT, SIG_DFL);
	abort();
}

/* The runtime's fault line in the real variants (format=): ROCr's
 * "on address %p%s. Reason: %s.\n" with a null address ("(nil)"), the
 * imprecise-address suffix, the reason written after another thread's
 * line, colour, after a 1 MiB line without newline. */
static void maf_variants(const struct run *r, size_t i, const char *node, const char *addr,
			 int read_only)
{
	const char *given = scenario_get(r->sc, "reason");
	const char *reason = read_only ? "Write access to a read-only page"
			     : given && !strcmp(given, "unknown") ? "Unknown"
								  : "Page not present or supervisor privilege";
	char name[128];

	if (variant(r, "long-line")) {
		static char dump[1 << 16];

		for (size_t k = 0; k < sizeof(dump); k++)
			dump[k] = "0123456789abcdef"[k % 16];
		fputs("[sim] kernel argument dump: ", stderr);
		for (int k = 0; k < 16; k++)
			fwrite(dump, 1, sizeof(dump), stderr);
	}
	fprintf(stderr, "%sMemory access fault by GPU node-%s (Agent handle: 0x55d0c8a0e4b0) on "
		"address %s%s.", colour_on(r, "\x1b[1;31m"), node,
		variant(r, "nil-address") ? "(nil)" : addr,
		variant(r, "imprecise") ? "(may not be exact address)" : "");
	if (variant(r, "reason-next-line"))
		fprintf(stderr, "[HRR progress] elapsed_s=0.1 seq=%llu kernels=%zu d2h_pass=%zu "
			"d2h_fail=%zu d2h_attempted=%zu last=\"%s\"\n", r->plan[i].seq, r->kernels,
			r->pass, r->fail, r->attempted,
			r->last_kernel ? sim_compact_name(r->last_kernel, name, sizeof(name)) : "");
	fprintf(stderr, " Reason: %s.%s\n", reason, colour_off(r));
}

/* format=cut-name / cut-number: the process killed while a line is half
 * written (the name in the runtime's bracket, a heartbeat's seq=). */
static _Noreturn void end_cut(const struct run *r, size_t i, const char *addr)
{
	char seq[32];

	if (variant(r, "cut-number")) {
		fprintf(stderr, "Memory access fault by GPU node-2 (Agent handle: 0x55d0c8a0e4b0) "
			"on address %s. Reason: Unknown.\n", addr);
		snprintf(seq, sizeof(seq), "%llu", r->plan[i].seq);
		fprintf(stderr, "[HRR progress] elapsed_s=9.9 seq=%.2s", seq);
	} else {
		const char *k = r->last_kernel ? r->last_kernel : "kernel";

		fprintf(stderr, ":0:rocdevice.cpp:3020: Memory Fault Error [GPU index: 0, faulting "
			"addr: %s, kernel: %.*s", addr, (int)(strlen(k) / 2), k);
	}
	fflush(stdout);
	fflush(stderr);
	kill(getpid(), SIGKILL);
	_exit(137);
}

/* The in-flight dispatch, for the image's rocgdb (sim-tools/sim_debug.h):
 * written once, at the launch where the scenario fails or hangs. */
static void debug_state(const struct run *r, const struct sim_event *ev)
{
	char grid[64], wg[64];

	snprintf(grid, sizeof(grid), "[%u,%u,%u]", ev->grid[0] * ev->block[0],
		 ev->grid[1] * ev->block[1], ev->grid[2] * ev->block[2]);
	snprintf(wg, sizeof(wg), "[%u,%u,%u]", ev->block[0], ev->block[1], ev->block[2]);
	sim_debug_launch(ev->kernel, grid, wg, r->kernels ? r->kernels - 1 : 0);
}

/* Under rocm-debug-agent (HSA_TOOLS_LIB): its wave report first. The stop
 * reason is the scenario's agent_reason=, else what the fault is. */
static void debug_agent(const struct run *r, const char *reason, const char *page)
{
	const char *want = scenario_get(r->sc, "agent_reason");

	sim_debug_fault(stderr, r->last_kernel, want ? want : reason, NULL, page);
}

static _Noreturn void end_maf(const struct run *r, size_t i)
{
	const char *addr = scenario_get(r->sc, "fault_addr");
	const char *node = scenario_get(r->sc, "gpu_node");
	const char *reason = scenario_get(r->sc, "reason");
	const char *bracket = scenario_get(r->sc, "bracket");
	int read_only = reason && strncmp(reason, "read", 4) == 0;
	char host[64] = "x";

	fault_lag(r, i);
	if (!addr)
		addr = read_only ? "0xdeadbeef" : "0x7f91da000000";
	debug_agent(r, "MEMORY_VIOLATION", addr);
	if (variant(r, "cut-name") || variant(r, "cut-number"))
		end_cut(r, i, addr);
	if (scenario_get(r->sc, "format"))
		maf_variants(r, i, node ? node : "2", addr, read_only);
	else
		fprintf(stderr,
			"Memory access fault by GPU node-%s (Agent handle: 0x1) on address %s. "
			"Reason: %s\n", node ? node : "2", addr,
			read_only ? "Write access to a read-only page" : "Unknown.");
	gethostname(host, sizeof(host) - 1);
	if (!bracket || strcmp(bracket, "host") == 0)
		fprintf(stderr,
			":0:rocdevice.cpp:3020: Memory Fault Error [host: %s, GPU index: 0, "
			"faulting addr: %s, kernel: %s]\n", host, addr,
			r->last_kernel ? r->last_kernel : "");
	else if (strcmp(bracket, "nohost") == 0)
		fprintf(stderr,
			":0:rocdevice.cpp:3020: Memory Fault Error [GPU index: 0, "
			"faulting addr: %s, kernel: %s]\n", addr,
			r->last_kernel ? r->last_kernel : "");
	if (r->o->sync_after_event)
		fprintf(stderr,
			"[HRR] Fatal: GPU error after T%llu Event %zu (%s): %d (%s) — aborting\n",
			r->plan[i].tid, i, r->plan[i].api, 700, hip_error_string(700));
	end_abort();
}

/* hsa_status_string()'s text for the statuses fixtures use (ROCr's
 * hsa.cpp); queue_text= and queue_code= print any other. */
static const struct {
	const char *name, *text;
	unsigned code;
} hsa_statuses[] = {
	{ "HSA_STATUS_ERROR_MEMORY_FAULT", "Agent attempted to access an inaccessible address.", 0x2b },
	{ "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION",
	  "The agent attempted to access memory beyond the largest legal address.", 0x29 },
	{ "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION",
	  "The agent attempted to execute an illegal shader instruction.", 0x2a },
	{ "HSA_STATUS_ERROR_EXCEPTION", "An HSAIL operation resulted in a hardware exception.", 0x1016 },
	{ "HSA_STATUS_ERROR_INVALID_ISA", "The instruction set architecture is invalid.", 0x100f },
	{ "HSA_STATUS_ERROR_INVALID_CODE_OBJECT", "The code object is invalid.", 0x1010 },
	{ "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS",
	  "The arguments passed to a functions are not compatible.", 0x100d },
	{ "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
	  "The runtime failed to allocate the necessary resources. This error may also occur when "
	  "the core runtime library needs to spawn threads or create internal OS-specific events.",
	  0x1008 },
	{ "HSA_STATUS_ERROR_INVALID_ALLOCATION", "The requested allocation is not valid.", 0x1003 },
	{ "HSA_STATUS_ERROR_FATAL",
	  "The queue received an error that may require process termination.", 0x1026 },
};

/* CLR's queue callback (rocdevice.cpp) in each generation (format=):
 *   queue-oldest  Device::callbackQueue aborting with status: 0x%x
 *   queue-old     Device::callbackQueue aborting with error : %s code: 0x%x
 *   (default)     Callback: Queue %p aborting with error : %s code: 0x%x [GPU index: 0, kernel: K]
 *                 and, for OUT_OF_RESOURCES, "Aborting ... Code: 0x%x Available Free mem : %zu MB"
 *   pid-prefix    AMD_LOG_LEVEL's "[pid:N  tid:0x...]" column before the message
 * Real logs show one blank after "us:" before the old message, two before
 * the newer "Callback:". 
 * hsa_status_string() gives "NAME: text"; older ROCr put two blanks after
 * the colon. */
static _Noreturn void end_queue_abort(const struct run *r, size_t i)
{
	const char *status = scenario_get(r->sc, "queue_status");
	const char *text = scenario_get(r->sc, "queue_text");
	long long code = scenario_int(r->sc, "queue_code", -1);
	char where[96];

	fault_lag(r, i);
	if (!status)
		status = "HSA_STATUS_ERROR_EXCEPTION";
	for (size_t k = 0; k < sizeof(hsa_statuses) / sizeof(hsa_statuses[0]); k++) {
		if (strcmp(status, hsa_statuses[k].name))
			continue;
		text = text ? text : hsa_statuses[k].text;
		code = code >= 0 ? code : (long long)hsa_statuses[k].code;
	}
	text = text ? text : "The operation was aborted.";
	code = code >= 0 ? code : 0x1018;
	if (strcmp(status, "HSA_STATUS_ERROR_ABORTED") && strcmp(status, "HSA_STATUS_ERROR_OUT_OF_RESOURCES"))
		debug_agent(r, strstr(status, "MEMORY") ? "MEMORY_VIOLATION"
			    : strstr(status, "ILLEGAL_INSTRUCTION") ? "ILLEGAL_INSTRUCTION"
			    : "ASSERT_TRAP", NULL);
	snprintf(where, sizeof(where), ":0:rocdevice.cpp            :%d: %lld us: %s",
		 variant(r, "queue-old") || variant(r, "queue-oldest") ? 2533 : 2993, runtime_us(),
		 variant(r, "pid-prefix") ? "[pid:1290  tid:0x7f21abfff640] "
		 : variant(r, "queue-old") || variant(r, "queue-oldest") ? "" : " ");
	fputs(colour_on(r, "\x1b[1;31m"), stderr);
	if (variant(r, "queue-oldest"))
		fprintf(stderr, "%sDevice::callbackQueue aborting with status: 0x%llx", where, code);
	else if (variant(r, "queue-old"))
		fprintf(stderr, "%sDevice::callbackQueue aborting with error : %s:  %s code: 0x%llx",
			where, status, text, code);
	else if (!strcmp(status, "HSA_STATUS_ERROR_OUT_OF_RESOURCES"))
		fprintf(stderr, "%sCallback: Queue 0x7f3a2c000000 Aborting with error : %s: %s Code: "
			"0x%llx Available Free mem : %zu MB", where, status, text, code, (size_t)0);
	else {
		fprintf(stderr, "%sCallback: Queue 0x7f3a2c000000 aborting with error : %s: %s code: "
			"0x%llx", where, status, text, code);
		if (scenario_int(r->sc, "queue_bracket", 1))
			fprintf(stderr, " [GPU index: 0, kernel: %s]",
				r->last_kernel ? r->last_kernel : "");
	}
	fprintf(stderr, "%s\n", colour_off(r));
	end_abort();
}

/* A HIP device-side error (hip_code=700|702|710|719): with
 * --sync-after-launch the sync after the launch reports it and names the
 * kernel (hip_at=launch); otherwise it surfaces at a later call, the next
 * copy or sync (hip_at=copy). Then the Fatal line, as for any failed call. */
static int end_hip_error(struct run *r, size_t i)
{
	long long code = scenario_int(r->sc, "hip_code", 700);
	const char *at = scenario_get(r->sc, "hip_at");
	int after_launch = at ? !strcmp(at, "launch") : r->o->sync_after_launch;
	size_t k = i;

	if (after_launch && r->plan[i].kernel) {
		fprintf(stderr, "[HRR] GPU error after '%s': %lld (%s) last=%lld (%s)\n",
			r->plan[i].kernel, code, hip_error_string(code), code, hip_error_string(code));
	} else {
		/* the next call that waits for the GPU */
		for (k = i + 1; k < r->n && r->plan[k].kernel; k++)
			print_event(r, k);
		if (k >= r->n)
			k = r->n - 1;
		print_event(r, k);
	}
	fprintf(stderr, "[HRR] Fatal: T%llu Event %zu (%s) returned %lld (%s) — aborting replay\n",
		r->plan[k].tid, k, r->plan[k].api, code, hip_error_string(code));
	fprintf(stderr, "[HRR] Replay aborted due to fatal HIP error — exiting\n");
	return 1;
}

/* The explicit-graph refusal: newer builds abort (the Fatal follows), older
 * ones print "not found in map" and skip the graph's launches
 * (graph_form=old). */
static int end_graph_refusal(struct run *r, size_t i)
{
	const char *form = scenario_get(r->sc, "graph_form");

	if (form && !strcmp(form, "old")) {
		fprintf(stderr, "[HRR] hipGraphInstantiate: graph 0x%llx not found in map\n",
			0x55d0c8a1f2e0ULL);
		return -1;
	}
	fprintf(stderr,
		"[HRR] hipGraphInstantiate: graph 0x%llx not in graph_map. HRR only "
		"replays stream-capture graphs (hipStreamBeginCapture/EndCapture); "
		"explicit node-API graph construction (hipGraphCreate + "
		"hipGraphAdd*Node) is NOT supported. Aborting replay rather than "
		"running an empty graph.\n", 0x55d0c8a1f2e0ULL);
	fprintf(stderr, "[HRR] Fatal: T%llu Event %zu (%s) returned %d (%s) — aborting replay\n",
		r->plan[i].tid, i, "hipGraphInstantiate", 801, hip_error_string(801));
	fprintf(stderr, "[HRR] Replay aborted due to fatal HIP error — exiting\n");
	return 1;
}

static int end_fatal(struct run *r, size_t i)
{
	const char *api = scenario_get(r->sc, "fatal_api");
	const char *msg = scenario_get(r->sc, "fatal_error");
	long long code = scenario_int(r->sc, "fatal_code", 1);

	if (flag_on(r, "--continue-on-error")) {
		fprintf(stderr, "[HRR] Error: T%llu Event %zu (%s) returned %lld (%s) — continuing\n",
			r->plan[i].tid, i, api ? api : r->plan[i].api, code,
			msg ? msg : hip_error_string(code));
		r->events_failed++;
		return -1;
	}
	fprintf(stderr, "[HRR] Fatal: T%llu Event %zu (%s) returned %lld (%s) — aborting replay\n",
		r->plan[i].tid, i, api ? api : r->plan[i].api, code,
		msg ? msg : hip_error_string(code));
	fprintf(stderr, "[HRR] Replay aborted due to fatal HIP error — exiting\n");
	return 1;
}

static _Noreturn void end_watchdog(const struct run *r, unsigned ms)
{
	const struct sim_event *ev = r->in_flight;
	char what[1024];

	/* format=watchdog-launch: the sync after a launch names that launch
	 * (upstream's kernel #N "<name>" (seq=S, grid=[...] block=[...])). */
	if (ev && ev->kernel && variant(r, "watchdog-launch"))
		snprintf(what, sizeof(what), "kernel #%zu \"%s\" (seq=%llu, grid=[%u,%u,%u] "
			 "block=[%u,%u,%u])", r->kernels, ev->kernel, ev->seq, ev->grid[0],
			 ev->grid[1], ev->grid[2], ev->block[0], ev->block[1], ev->block[2]);
	else
		snprintf(what, sizeof(what), "%s", r->last_kernel ? r->last_kernel : "device synchronize");
	fflush(stdout);
	sim_sleep(ms / 1000.0);
	fprintf(stderr,
		"\n[HRR][WATCHDOG] GPU sync did not complete within %u ms at: %s\n"
		"[HRR][WATCHDOG] Treating this as a hung/deadlocked kernel (e.g. a StreamK\n"
		"[HRR][WATCHDOG] producer/consumer flag spin-wait). Re-run with --trace-kernels\n"
		"[HRR][WATCHDOG] to see the last launch, or attach rocgdb to inspect wavefronts.\n",
		ms, what);
	fflush(stderr);
	_exit(124);
}

/* Stuck in the GPU: no output, no timer, default signal dispositions, so
 * SIGTERM ends it at once (unless it is PID 1, as on a real host).
 * term=ignore: stuck where SIGTERM does not reach it (a process blocked in
 * the GPU driver), so only SIGKILL ends it. */
static _Noreturn void end_hang(const struct run *r)
{
	const char *term = scenario_get(r->sc, "term");

	if (r->o->watchdog_ms)
		end_watchdog(r, r->o->watchdog_ms);
	if (term && !strcmp(term, "ignore"))
		signal(SIGTERM, SIG_IGN);
	sim_debug_hang(r->last_kernel);
	fflush(stdout);
	fflush(stderr);
	for (;;) {
		pause();
		sim_debug_quit_dump(stderr);
	}
}

static _Noreturn void end_crash(void)
{
	volatile int *volatile p = NULL;

	fflush(stdout);
	fflush(stderr);
	signal(SIGSEGV, SIG_DFL);
	*p = 1;
	raise(SIGSEGV);
	_exit(139);
}

/* Returns the exit code for the scenarios that return one. */
static int scenario_fault(struct run *r, size_t i)
{
	if (scenario_is(r, "maf"))
		end_maf(r, i);
	if (scenario_is(r, "queue-abort"))
		end_queue_abort(r, i);
	if (scenario_is(r, "fatal"))
		return end_fatal(r, i);
	if (scenario_is(r, "hip-error"))
		return end_hip_error(r, i);
	if (scenario_is(r, "graph-refusal"))
		return end_graph_refusal(r, i);
	if (scenario_is(r, "hang"))
		end_hang(r);
	if (scenario_is(r, "watchdog"))
		end_watchdog(r, r->o->watchdog_ms ? r->o->watchdog_ms
			     : (unsigned)scenario_int(r->sc, "watchdog_ms", 200));
	if (scenario_is(r, "crash"))
		end_crash();
	if (scenario_is(r, "hw-exception"))
		sim_hw_exception(scenario_get(r->sc, "gpu_node"), scenario_get(r->sc, "hw_reason"),
				 r->last_kernel, scenario_double(r->sc, "hang_s", 0));
	return -1;
}

/* ---- flood: as much realistic output as fast as possible ---- */

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		p += w;
		n -= (size_t)w;
	}
}

static void flood(struct run *r)
{
	const char *env = getenv("HRR_SIM_FLOOD_BYTES");
	long long total = env && *env ? atoll(env) : scenario_int(r->sc, "bytes", 8 << 20);
	size_t cap = 1 << 16, written = 0, event = 0;
	char *buf = malloc(cap + 1024), name[128];
	int fd = 1;

	if (!buf)
		sim_die("out of memory");
	fflush(stdout);
	while ((long long)written < total) {
		size_t len = 0;

		while (len < cap && (long long)(written + len) < total) {
			const char *k = r->n_launches ? NULL : default_kernels[event % 2];
			const struct sim_event *ev = NULL;

			if (!k) {
				ev = &r->plan[event % r->n];
				k = ev->kernel;
			}
			if (!k) {
				len += (size_t)snprintf(buf + len, 1024, "[HRR] Event %zu: %s\n",
							event, ev->api);
			} else {
				r->kernels++;
				if (r->kernels % 64 == 1)
					len += (size_t)snprintf(buf + len, 1024,
						"[HRR progress] elapsed_s=%.1f seq=%zu kernels=%zu "
						"d2h_pass=%zu d2h_fail=0 d2h_attempted=%zu last=\"%s\"\n",
						sim_now() - r->wall_start, 1000 + event, r->kernels,
						r->pass, r->attempted,
						sim_compact_name(k, name, sizeof(name)));
				len += (size_t)snprintf(buf + len, 1024,
							"[HRR] Event %zu: %s -> Kernel '%.900s'\n",
							event, "hipModuleLaunchKernel", k);
			}
			event++;
		}
		write_all(fd, buf, len);
		written += len;
		fd = fd == 1 ? 2 : 1;
	}
	free(buf);
}

/* ---- the whole replay ---- */

/* Upstream VaPlacement::fell_back (hrr_va_placement.cpp): a line per
 * allocation not mapped at its recorded address, the first 16 (every one
 * with --verbose), then one saying the rest are counted; the first also
 * says the H2D scan is on. fell_back=N, placement_base=0x...,
 * placement_bytes=B; format=placement-bare leaves the address and the size
 * out, as upstream does when it knows neither. */
#define PLACEMENT_LINES 16
static void placement_fallbacks(const struct run *r)
{
	size_t n = (size_t)scenario_int(r->sc, "fell_back", 0);
	unsigned long long base = strtoull(scenario_get(r->sc, "placement_base") ?
					   scenario_get(r->sc, "placement_base") : "0x7f0040000000",
					   NULL, 16);
	size_t bytes = (size_t)scenario_int(r->sc, "placement_bytes", 4194304);
	int bare = variant(r, "placement-bare");

	fflush(stdout);
	for (size_t i = 0; i < n; i++) {
		unsigned long long rec = base + i * (unsigned long long)bytes;
		char where[40] = "", size[40] = "";

		if (!bare) {
			snprintf(where, sizeof(where), " 0x%llx", rec);
			snprintf(size, sizeof(size), " (%zu bytes)", bytes);
		}
		if (i < PLACEMENT_LINES || r->o->verbose)
			fprintf(stderr, "[HRR] Placement: %s%s%s not placed at its recorded address: "
				"%s. It replays elsewhere, so a copy of its address stored in device "
				"memory is stale\n", "hipMalloc", where, size,
				i % 2 ? "its range could not be held"
				      : "it shares a page with live allocation 0x7f003ff00000");
		else if (i == PLACEMENT_LINES)
			fprintf(stderr, "[HRR] Placement: further fallbacks are only counted; "
				"--verbose names every one\n");
		if (i == 0)
			fprintf(stderr, "[HRR] Placement: from here on, replay scans the payload of "
				"each host-to-device hipMemcpy, hipMemcpyAsync, hipMemcpyHtoD, "
				"hipMemcpyHtoDAsync and hipMemcpyWithStream for addresses of "
				"allocations that moved, because hipMalloc%s did not land at its "
				"recorded address\n", where);
	}
	fflush(stderr);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Upstream print_loaded_rocm_libs (hrr_playback.cpp): the mapped ROCm
 * libraries, sorted, the label blanked after the first. comgr_lib=PATH
 * stands for a comgr loaded from another ROCm install (a mixed stack). */
static void runtime_lines(const struct run *r)
{
	const char *libs[4];
	const char *comgr = scenario_get(r->sc, "comgr_lib");
	size_t n = 0;

	for (size_t i = 0; i < r->env->n_runtime_libs && n < 3; i++)
		if (!comgr || !strstr(r->env->runtime_libs[i], "libamd_comgr"))
			libs[n++] = r->env->runtime_libs[i];
	if (comgr)
		libs[n++] = comgr;
	qsort(libs, n, sizeof(libs[0]), by_path);
	for (size_t i = 0; i < n; i++)
		printf("[HRR] %s: %s\n", i == 0 ? "Runtime " : "        ", libs[i]);
}

/* The summary's Placement line, when the scenario places (placed= or
 * fell_back=); format=placement-older ends it at "fell back". */
static void placement_summary(const struct run *r)
{
	if (!scenario_get(r->sc, "placed") && !scenario_get(r->sc, "fell_back"))
		return;
	printf("[HRR]   Placement      : %lld placed at capture address, %lld fell back",
	       (long long)scenario_int(r->sc, "placed", 12),
	       (long long)scenario_int(r->sc, "fell_back", 0));
	if (!variant(r, "placement-older"))
		printf(", %lld frees deferred", (long long)scenario_int(r->sc, "frees_deferred", 0));
	printf("\n");
}

static int summary(struct run *r)
{
	double wall_ms = (sim_now() - r->wall_start) * 1000.0;
	double kernel_ms = sim_gpu_kernel_ms(r->sc, r->kernels);
	long long co_unloadable = scenario_int(r->sc, "co_unloadable", 0);
	long long regions = scenario_int(r->sc, "regions", 0);
	long long oob = scenario_int(r->sc, "region_oob", 0);
	int ok = r->fail == 0;

	printf("\n");
	printf("[HRR] -- Replay summary ------------------------------\n");
	printf("[HRR]   Wall time      : %.1f ms\n", wall_ms);
	printf("[HRR]   Threads used   : %zu\n", (size_t)1);
	printf("[HRR]   Kernels launched: %zu\n", r->kernels);
	printf("[HRR]   Graphs launched : %zu\n", (size_t)0);
	if (!r->o->no_placement)
		placement_summary(r);
	/* timing=none: an older hrr-playback whose summary has no GPU times. */
	if (r->o->timing && !sim_str_is(scenario_get(r->sc, "timing"), "none")) {
		printf("[HRR]   GPU kernel time : %.1f ms\n", kernel_ms);
		printf("[HRR]   GPU graph time  : %.1f ms\n", 0.0);
		printf("[HRR]   GPU total time  : %.1f ms\n", kernel_ms);
	}
	if (variant(r, "summary-newer"))
		printf("[HRR]   D2H checks   : %zu pass, %zu fail, %zu skipped\n", r->pass, r->fail,
		       r->attempted - r->pass - r->fail);
	else
		printf("[HRR]   D2H checks     : %zu pass (%zu exact, %zu within tol), %zu fail, "
		       "%zu skipped\n", r->pass, r->pass - r->pass_tol, r->pass_tol, r->fail,
		       r->attempted - r->pass - r->fail);
	if (r->events_failed) {
		printf("[HRR]   Events failed  : %zu (continued past each)\n", r->events_failed);
		ok = 0;
	}
	if (co_unloadable > 0 && flag_on(r, "--continue-on-error")) {
		printf("[HRR]   Code objects   : %lld unloadable (continued)\n", co_unloadable);
		ok = 0;
	}
	if (regions > 0) {
		printf("[HRR]   Regions        : %lld applied of %lld, %d blocks / %d segments live\n",
		       regions, regions, 40, 3);
		printf("[HRR]   Region check   : %llu pointer(s) checked, %lld intra-segment "
		       "out-of-bounds/stale\n", 4410ULL, oob);
		if (oob > 0 && flag_on(r, "--regions-strict"))
			ok = 0;
	}
	if (r->pass == 0 && r->fail == 0) {
		if (r->attempted > 0) {
			fflush(stdout);
			fprintf(stderr,
				"[HRR] ERROR: %zu D2H validation event(s) attempted but 0 pass/fail recorded "
				"(all skipped — check pointer translation and blob files)\n",
				r->attempted);
			ok = 0;
		} else {
			printf("[HRR]   (no D2H validation blobs in archive -- re-capture to enable)\n");
		}
	}
	printf("[HRR] %s\n", ok ? "PASS" : "FAIL");
	fflush(stdout);
	return ok ? 0 : 1;
}

static void d2h_plan(struct run *r)
{
	size_t archive_d2h = r->synthetic ? 1 : r->a->n_d2h;
	long long def_fail = scenario_is(r, "d2h-fail") ? 2 : scenario_is(r, "divergence") ? 4 : 0;

	r->want_exact = (size_t)scenario_int(r->sc, "d2h_pass", (long long)archive_d2h);
	r->want_tol = (size_t)scenario_int(r->sc, "d2h_tol", 0);
	r->want_skip = (size_t)scenario_int(r->sc, "d2h_skipped", 0);
	r->want_fail = (size_t)scenario_int(r->sc, "d2h_fail", def_fail);
	/* d2h_pass counts every pass; the tolerance ones are part of it */
	r->want_exact = r->want_exact > r->want_tol ? r->want_exact - r->want_tol : 0;
	r->want_total = r->want_exact + r->want_tol + r->want_skip + r->want_fail;
	r->atol = env_double("HIP_HRR_D2H_ATOL", 1e-3);
	r->rtol = env_double("HIP_HRR_D2H_RTOL", 1e-3);
	r->exact_only = env_flag("HIP_HRR_D2H_EXACT");
	r->divergence_frac = env_double("HIP_HRR_REPLAY_DIVERGENCE_ABORT", 0.25);
}

static int replay(struct run *rp);

/* scenario=replay-log: the pid directory's sim-log printed as it is, byte
 * for byte, then exit=N (default 1): a real log (tests/fixtures/real-logs)
 * through the whole run path, so `run` and `analyze` read the same text. */
static int replay_log(const struct run *r)
{
	char path[4096], buf[65536];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/sim-log", r->a->path);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "hrr-playback (sim): no sim-log beside sim-scenario\n");
		return 2;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	fflush(stdout);
	return (int)scenario_int(r->sc, "exit", 1);
}

int replay_run(const struct sim_opts *o, const struct sim_archive *a,
	       const struct scenario *sc, const struct sim_env *env)
{
	struct run r = { .o = o, .a = a, .sc = sc, .env = env };
	int code;

	code = replay(&r);
	if (r.synthetic)
		free(r.plan);
	return code;
}

static int replay(struct run *r)
{
	const struct sim_archive *a = r->a;
	const struct scenario *sc = r->sc;
	const struct sim_env *env = r->env;
	const char *nr = scenario_get(sc, "not_replayable");
	double every = scenario_double(sc, "interval", 0.25);
	size_t launch = 0;
	int code;

	r->scenario = getenv("HRR_SIM_SCENARIO");
	if (!r->scenario || !*r->scenario)
		r->scenario = scenario_get(sc, "scenario");
	if (!r->scenario)
		r->scenario = "pass";
	if (!strcmp(r->scenario, "replay-log"))
		return replay_log(r);
	plan_build(r);
	r->fault_idx = plan_fault_index(r);
	d2h_plan(r);

	if (variant(r, "health"))
		printf("[HRR] Complete: %s\n", a->complete ? "yes (clean shutdown)"
			: "NO (no shutdown trailer; capture likely crashed)");
	printf("[HRR] Archive : %zu events, %zu kernels, %zu blobs, %zu code objects\n",
	       r->n, r->n_launches, a->n_blobs, a->n_code_objects);
	printf("[HRR] Threads : %zu captured\n", r->synthetic ? (size_t)1 : a->n_threads);
	if (env->n_visible == 0) {
		fflush(stdout);
		fprintf(stderr, "[HRR] No GPU devices found\n");
		return 1;
	}
	printf("[HRR] Device  : %s (%s)\n", env->device_name, env->device_arch);
	runtime_lines(r);
	printf("[HRR] Mode    : single-threaded\n");
	if (scenario_int(sc, "regions", 0) > 0)
		printf("[HRR] Regions : %lld records from %d stream(s)\n",
		       scenario_int(sc, "regions", 0), 1);
	printf("[HRR] [replay] Device memory: %zu MB free / %zu MB total\n",
	       (size_t)191234, (size_t)196592);
	printf("[HRR] [replay] Device state OK — beginning replay\n");
	r->wall_start = sim_now();
	printf("[HRR] Pre-loading %zu code objects...\n", a->n_code_objects);
	if (!r->o->no_placement)
		placement_fallbacks(r);
	printf("[HRR] All code objects pre-loaded OK.\n");
	fflush(stdout);
	if (scenario_get(sc, "noop_api"))
		fprintf(stderr, "[HRR] NOOP playback handler called for %s — this API is not "
			"replayed; results may differ from capture.\n", scenario_get(sc, "noop_api"));
	if (nr && *nr)
		fprintf(stderr,
			"[HRR] %s: NOT REPLAYABLE — the capture recorded no state this call "
			"depends on. Skipped; results that depend on it may differ.\n", nr);

	if (scenario_is(r, "flood")) {
		flood(r);
		d2h_until(r, r->want_total, r->n ? &r->plan[r->n - 1] : &(struct sim_event){ 0 });
		return summary(r);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_event *ev = &r->plan[i];
		/* format=spliced, with --sync-after-launch: the launch line is
		 * written, the launch synced, then " OK" appended; a fault in
		 * the sync lands on the same line. */
		int spliced = ev->kernel && variant(r, "spliced") && r->o->sync_after_launch;

		if (!spliced)
			print_event(r, i);
		if (ev->kernel) {
			if (scenario_is(r, "slow"))
				sim_sleep(every);
			r->kernels++;
			r->in_flight = ev;
			/* A heartbeat follows a completed launch: the one the
			 * watchdog finds hung never gets one. */
			if (!((long)i == r->fault_idx && scenario_is(r, "watchdog") &&
			      variant(r, "watchdog-launch"))) {
				r->last_kernel = ev->kernel;
				progress(r, ev);
			}
		}
		if (spliced)
			fprintf(stderr, "[HRR] Event %zu: %s   -> Kernel '%s'", i, ev->api, ev->kernel);
		if ((long)i == r->fault_idx && ev->kernel)
			debug_state(r, ev);
		if ((long)i == r->fault_idx && (code = scenario_fault(r, i)) >= 0)
			return code;
		if (spliced)
			fputs(" OK\n", stderr);
		if (ev->kernel) {
			launch++;
			d2h_until(r, r->want_total * launch / r->n_launches, ev);
		}
	}
	/* An archive without events still hangs or crashes if told to; the
	 * failures that name an event need one. */
	if (r->n == 0 && (scenario_is(r, "hang") || scenario_is(r, "watchdog") ||
			 scenario_is(r, "crash")))
		scenario_fault(r, 0);
	if (r->n)
		d2h_until(r, r->want_total, &r->plan[r->n - 1]);
	else {
		struct sim_event none = { 0 };

		d2h_until(r, r->want_total, &none);
	}
	return summary(r);
}
