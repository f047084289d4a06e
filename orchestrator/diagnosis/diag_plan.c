/* What --diagnose asks for, and the debuggers' command lines (see
 * diag_plan.h). */
#include "orchestrator/diagnosis/diag_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {
	[DIAGNOSE_OFF] = "off",   [DIAGNOSE_AUTO] = "auto", [DIAGNOSE_AGENT] = "agent",
	[DIAGNOSE_HANG] = "hang", [DIAGNOSE_ALL] = "all",
};

int diagnose_mode_parse(const char *s, enum diagnose_mode *out, struct error *err)
{
	for (size_t i = 0; s && i < sizeof(mode_names) / sizeof(*mode_names); i++)
		if (!strcmp(s, mode_names[i])) {
			*out = (enum diagnose_mode)i;
			return 0;
		}
	return error_set(err, ERR_USAGE, 0, "--diagnose: '%s' is not one of off, auto, agent, hang, all",
			 s ? s : "");
}

const char *diagnose_mode_name(enum diagnose_mode m)
{
	return (size_t)m < sizeof(mode_names) / sizeof(*mode_names) ? mode_names[m] : "off";
}

bool diagnose_agent_first(enum diagnose_mode m)
{
	return m == DIAGNOSE_AGENT;
}

bool diagnose_agent_rerun(enum diagnose_mode m, bool gpu_fault, bool image_has_agent)
{
	return (m == DIAGNOSE_AUTO || m == DIAGNOSE_ALL) && gpu_fault && image_has_agent;
}

bool diagnose_rocgdb(enum diagnose_mode m, bool image_has_rocgdb, bool agent_run)
{
	/* The agent holds the debugger interface: rocgdb beside it sees nothing. */
	return (m == DIAGNOSE_HANG || m == DIAGNOSE_ALL) && image_has_rocgdb && !agent_run;
}

bool diagnose_agent_hang(enum diagnose_mode m, bool image_has_rocgdb)
{
	/* No privilege needed: the default for hangs; hang and all prefer
	 * rocgdb, which they opted into ptrace for, when the image has it. */
	if (m == DIAGNOSE_AUTO)
		return true;
	return (m == DIAGNOSE_HANG || m == DIAGNOSE_ALL) && !image_has_rocgdb;
}

long diagnose_agent_hang_limit(double first_stop_s)
{
	long s = (long)first_stop_s;

	if ((double)s < first_stop_s)
		s++;
	return s > 0 ? s : 1;
}

bool diagnose_agent_gpu_hang(enum diagnose_mode m)
{
	return m == DIAGNOSE_AUTO || m == DIAGNOSE_HANG || m == DIAGNOSE_ALL;
}

void diagnose_gpu_hang_limits(double end_s, double quiet_s, double quiet_end_s, long *timeout_s,
			      long *progress_s)
{
	bool leads = quiet_s > 0 && end_s >= quiet_end_s && end_s - quiet_end_s <= DIAGNOSE_QUIET_LEADS_S;
	/* To the nearest second: a silence of 3.96 s is a 2 s wait, not 1 s. */
	long half = leads ? (long)(quiet_s / 2 + 0.5) : 1;

	*progress_s = half > 0 ? half : 1;
	*timeout_s = diagnose_agent_limit(diagnose_agent_hang_limit(end_s));
}

bool diagnose_needs_ptrace(enum diagnose_mode m, bool image_has_rocgdb, bool agent_run)
{
	return diagnose_rocgdb(m, image_has_rocgdb, agent_run);
}

static void push_unique(struct strvec *paths, const char *dir, size_t len, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (!len || dir[0] != '/')
		return;
	strbuf_addf(&sb, "%.*s/%s", (int)len, dir, name);
	for (size_t i = 0; i < paths->n; i++)
		if (!strcmp(paths->v[i], sb.buf)) {
			strbuf_release(&sb);
			return;
		}
	strvec_push_nodup(paths, strbuf_detach(&sb, NULL));
}

/* Each directory of the colon list in env's KEY=, then fallback. */
static void push_dirs(struct strvec *paths, const struct strvec *env, const char *key,
		      const char *name)
{
	long i = strvec_find_key(env, key);
	const char *d = i >= 0 ? env->v[i] + strlen(key) + 1 : NULL;

	while (d && *d) {
		size_t n = strcspn(d, ":");

		push_unique(paths, d, n, name);
		d += n + (d[n] == ':');
	}
}

void diagnose_tool_candidates(const struct strvec *env, enum diagnose_tool tool,
			      struct strvec *paths)
{
	switch (tool) {
	case DIAGNOSE_TOOL_AGENT:
		push_dirs(paths, env, "LD_LIBRARY_PATH", DIAGNOSE_AGENT_LIB);
		push_unique(paths, "/opt/rocm/lib", 13, DIAGNOSE_AGENT_LIB);
		break;
	case DIAGNOSE_TOOL_ROCGDB:
		push_dirs(paths, env, "PATH", "rocgdb");
		push_unique(paths, "/opt/rocm/bin", 13, "rocgdb");
		break;
	case DIAGNOSE_TOOL_OBJDUMP:
		push_unique(paths, "/opt/rocm/llvm/bin", 18, "llvm-objdump");
		push_dirs(paths, env, "PATH", "llvm-objdump");
		break;
	}
}

void diagnose_agent_env(struct strvec *env, const char *save_dir)
{
	strvec_push(env, "HSA_TOOLS_LIB=" DIAGNOSE_AGENT_LIB);
	strvec_pushf(env, "ROCM_DEBUG_AGENT_OPTIONS=--save-code-objects=%s", save_dir);
	/* Runtimes before the debugger interface load tools only with it. */
	strvec_push(env, "HSA_ENABLE_DEBUG=1");
}

long diagnose_agent_limit(long plain_limit_s)
{
	return plain_limit_s > 0 ? plain_limit_s * DIAGNOSE_AGENT_WATCHDOG_SCALE : plain_limit_s;
}

void diagnose_rocgdb_argv(struct strvec *argv, const char *rocgdb, long pid)
{
	static const char *const cmds[] = {
		"set pagination off",
		"set confirm off",
		"set width 0",
		"interpreter-exec mi3 \"-agent-info\"",
		"interpreter-exec mi3 \"-queue-info\"",
		"interpreter-exec mi3 \"-dispatch-info\"",
		"interpreter-exec mi3 \"-thread-info\"",
		"echo === info agents ===\\n",
		"info agents",
		"echo === info queues ===\\n",
		"info queues",
		"echo === info dispatches ===\\n",
		"info dispatches",
		"echo === bt 30 ===\\n",
		"bt 30",
		"detach",
		"quit",
	};

	strvec_push(argv, rocgdb);
	strvec_push(argv, "--batch");
	strvec_push(argv, "-nx");
	strvec_push(argv, "-p");
	strvec_pushf(argv, "%ld", pid);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		strvec_push(argv, "-ex");
		strvec_push(argv, cmds[i]);
	}
}

/* The address after "// " on an llvm-objdump instruction line. */
static bool insn_address(const char *s, size_t len, unsigned long long *addr)
{
	const char *c = NULL;
	char *end;

	for (size_t i = 0; i + 3 < len; i++)
		if (s[i] == '/' && s[i + 1] == '/' && s[i + 2] == ' ')
			c = s + i + 3;
	if (!c)
		return false;
	errno = 0;
	*addr = strtoull(c, &end, 16);
	return !errno && end > c && end < s + len && *end == ':';
}

struct span {
	const char *s;
	size_t len;
};

static void add_line(struct strbuf *out, const char *mark, struct span l)
{
	while (l.len && (*l.s == '\t' || *l.s == ' '))
		l.s++, l.len--;
	strbuf_addf(out, "%s%.*s\n", mark, (int)l.len, l.s);
}

int diagnose_disassembly_window(const char *objdump, size_t len, unsigned long long offset,
				int radius, struct strbuf *out, struct error *err)
{
	struct span ring[64];
	size_t n = 0, after = 0;
	bool found = false;
	const char *p = objdump, *end = objdump + len;

	if (radius < 0)
		radius = 0;
	if (radius > 64)
		radius = 64;
	while (p < end && (!found || after < (size_t)radius)) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct span l = { p, (size_t)((nl ? nl : end) - p) };
		unsigned long long addr;

		p = nl ? nl + 1 : end;
		if (!insn_address(l.s, l.len, &addr))
			continue;
		if (found) {
			add_line(out, "   ", l);
			after++;
		} else if (addr == offset) {
			size_t keep = n < (size_t)radius ? n : (size_t)radius;

			for (size_t i = n - keep; i < n; i++)
				add_line(out, "   ", ring[i % 64]);
			add_line(out, "=> ", l);
			found = true;
		} else if (radius) {
			ring[n++ % 64] = l;
			if (n == 128)
				n = 64; /* keep the index bounded, same slots */
		}
	}
	if (!found)
		return error_set(err, ERR_DATA, 0, "no instruction at offset 0x%llx in the disassembly",
				 offset);
	return 0;
}

int diagnose_pc_offset(const char *pc, const char *loaded_at, unsigned long long *offset)
{
	unsigned long long v, lo, hi;

	if (!pc || !loaded_at || sscanf(pc, "%llx", &v) != 1 ||
	    sscanf(loaded_at, "[%llx-%llx]", &lo, &hi) != 2 || v < lo || v >= hi)
		return -1;
	*offset = v - lo;
	return 0;
}
