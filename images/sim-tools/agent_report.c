/* The rocm-debug-agent's wave report and saved code object, for the
 * simulator (see agent_report.h). */
#include "agent_report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct insn {
	unsigned off;       /* from the kernel's entry */
	const char *enc;    /* encoding words, as llvm-objdump prints them */
	const char *text;
};

/* A global store that faults (MEMORY_VIOLATION and most other reasons). */
static const struct insn store_kernel[] = {
	{ 0x00, "F4080002 FA000000", "s_load_dwordx4 s[0:3], s[4:5], 0x0" },
	{ 0x08, "F4000182 FA000010", "s_load_dword s6, s[4:5], 0x10" },
	{ 0x10, "24000082", "v_lshlrev_b32_e32 v0, 2, v0" },
	{ 0x14, "BF8CC07F", "s_waitcnt lgkmcnt(0)" },
	{ 0x18, "32040002", "v_add_co_u32_e32 v2, vcc, s2, v0" },
	{ 0x1c, "7E060203", "v_mov_b32_e32 v3, s3" },
	{ 0x20, "38060680", "v_addc_co_u32_e32 v3, vcc, 0, v3, vcc" },
	{ 0x24, "DC508000 017F0002", "global_load_dword v1, v[2:3], off" },
	{ 0x2c, "BF8C0F70", "s_waitcnt vmcnt(0)" },
	{ 0x30, "DC708000 007F0102", "global_store_dword v[2:3], v1, off" },
	{ 0x38, "BF810000", "s_endpgm" },
};
#define STORE_FAULT 9

/* A bound check that fails: CUDA_KERNEL_ASSERT lowered to s_trap 2. */
static const struct insn assert_kernel[] = {
	{ 0x00, "F4080002 FA000000", "s_load_dwordx4 s[0:3], s[4:5], 0x0" },
	{ 0x08, "F4040182 FA000010", "s_load_dwordx2 s[6:7], s[4:5], 0x10" },
	{ 0x10, "BF8CC07F", "s_waitcnt lgkmcnt(0)" },
	{ 0x14, "7C880006", "v_cmp_gt_i64_e32 vcc, s[6:7], v[0:1]" },
	{ 0x18, "BE80206A", "s_and_saveexec_b64 s[0:1], vcc" },
	{ 0x1c, "BF890004", "s_cbranch_execnz 4" },
	{ 0x20, "BE800106", "s_mov_b64 s[0:1], s[6:7]" },
	{ 0x24, "BF920002", "s_trap 2" },
	{ 0x28, "BF810000", "s_endpgm" },
};
#define ASSERT_FAULT 7

static const struct insn *program(const struct agent_report *r, size_t *n, size_t *fault)
{
	if (r->reason && strstr(r->reason, "ASSERT_TRAP")) {
		*n = sizeof(assert_kernel) / sizeof(*assert_kernel);
		*fault = ASSERT_FAULT;
		return assert_kernel;
	}
	*n = sizeof(store_kernel) / sizeof(*store_kernel);
	*fault = STORE_FAULT;
	return store_kernel;
}

unsigned long long agent_report_entry(const struct agent_report *r)
{
	return r->load_base + AGENT_REPORT_TEXT_OFFSET;
}

unsigned long long agent_report_pc(const struct agent_report *r)
{
	size_t n, fault;
	const struct insn *p = program(r, &n, &fault);

	return agent_report_entry(r) + p[fault].off;
}

/* The code object's bytes (see agent_report.h), into a malloc'd buffer. */
static char *code_object(const struct agent_report *r, size_t *len)
{
	size_t n, fault, cap = 256 + strlen(r->kernel ? r->kernel : "");
	const struct insn *p = program(r, &n, &fault);
	char *buf;
	size_t at;

	for (size_t i = 0; i < n; i++)
		cap += 32 + strlen(p[i].enc) + strlen(p[i].text);
	buf = malloc(cap);
	if (!buf)
		return NULL;
	at = (size_t)snprintf(buf, cap, "\177ELF\nHRRSIM-CODE-OBJECT 1\nsymbol=%s\ntext=0x%llx\n",
			      r->kernel ? r->kernel : "", AGENT_REPORT_TEXT_OFFSET);
	for (size_t i = 0; i < n && at < cap; i++)
		at += (size_t)snprintf(buf + at, cap - at, "insn=%x %s %s\n", p[i].off, p[i].enc,
				       p[i].text);
	*len = at < cap ? at : cap - 1;
	return buf;
}

static size_t code_object_size(const struct agent_report *r)
{
	size_t len = 0;
	char *co = code_object(r, &len);

	free(co);
	return len;
}

void agent_report_uri(const struct agent_report *r, char *out, size_t outsz)
{
	snprintf(out, outsz, "memory://%ld#offset=0x%llx&size=%zu", r->pid, r->load_base,
		 code_object_size(r));
}

void agent_report_saved_name(const char *uri, char *out, size_t outsz)
{
	size_t i;

	for (i = 0; uri[i] && i + 1 < outsz; i++)
		out[i] = strchr(":/#?&=", uri[i]) ? '_' : uri[i];
	if (outsz)
		out[i] = '\0';
}

static void registers(FILE *out, const struct agent_report *r)
{
	unsigned long long kernarg = r->load_base + 0x20000;

	fprintf(out, "\nsystem registers:\n");
	fprintf(out, "%16s%08x%16s%08x%16s%08x%16s%08x\n", "m0: ", 0u, "status: ", 0x12461u,
		"trapsts: ", 0x20000000u, "mode: ", 0x3c0u);
	fprintf(out, "%16s%016llx%16s%016llx\n", "exec: ", 0xffffffffffffffffull, "vcc: ", 0ull);
	fprintf(out, "\nscalar registers:\n");
	fprintf(out, "%16s%08llx%16s%08llx%16s%08llx%16s%08llx\n", "s0: ", kernarg & 0xffffffffull,
		"s1: ", kernarg >> 32, "s2: ", 0ull, "s3: ", 0xea4facull);
	fprintf(out, "%16s%08llx%16s%08llx%16s%08x%16s%08x\n", "s4: ", kernarg & 0xffffffffull,
		"s5: ", kernarg >> 32, "s6: ", 0x400u, "s7: ", 0u);
	fprintf(out, "\nvector registers:\n");
	for (int v = 0; v < 2; v++) {
		fprintf(out, "%16s", v ? "v1: " : "v0: ");
		for (int lane = 0; lane < 4; lane++)
			fprintf(out, "%s[%d] %08x", lane ? " " : "", lane, v ? 0x400u + lane : 4u * lane);
		fprintf(out, "\n");
	}
}

static void disassembly(FILE *out, const struct agent_report *r, const char *uri)
{
	size_t n, fault;
	const struct insn *p = program(r, &n, &fault);
	unsigned long long entry = agent_report_entry(r), pc = agent_report_pc(r);

	fprintf(out, "\nDisassembly");
	if (r->kernel)
		fprintf(out, " for function %s", r->kernel);
	fprintf(out, ":\n    code object: %s\n", uri);
	/* The loaded segments end a page after the kernel's text. */
	fprintf(out, "    loaded at: [0x%llx-0x%llx]\n", r->load_base,
		entry + p[n - 1].off + 0x1000);
	for (size_t i = 0; i < n; i++) {
		unsigned long long addr = entry + p[i].off;

		fprintf(out, "%s0x%llx", addr == pc ? " => " : "    ", addr);
		if (r->kernel)
			fprintf(out, " <+%u>", p[i].off);
		fprintf(out, ":    %s\n", p[i].text);
	}
	fprintf(out, "\nEnd of disassembly.\n");
}

enum agent_generation agent_report_generation(const char *env)
{
	if (env && !strcmp(env, "old"))
		return AGENT_OLD;
	if (env && !strcmp(env, "rocm7"))
		return AGENT_ROCM7;
	return AGENT_CURRENT;
}

/* ROCm 7's memory blocks after the registers. */
static void memory_blocks(FILE *out, const struct agent_report *r)
{
	unsigned long long kernarg = r->load_base + 0x20000;

	fprintf(out, "\nLocal memory content (64 bytes):\n");
	for (int row = 0; row < 2; row++)
		fprintf(out, "    0x%04x: 00000000 00000000 00000000 00000000\n", row * 16);
	fprintf(out, "\nGlobal memory (kernarg segment, 16 bytes):\n");
	fprintf(out, "    0x%llx: %08llx %08llx 00000400 00000000\n", kernarg,
		kernarg & 0xffffffffull, kernarg >> 32);
}

/* wave_N: pc=0x... [(kernel_code_entry=...)] (stopped, reason: R) | (running) */
static void wave_line(FILE *out, const struct agent_report *r)
{
	fprintf(out, "wave_%llu: pc=0x%llx", r->wave_id, agent_report_pc(r));
	if (r->generation != AGENT_OLD) {
		if (r->kernel)
			fprintf(out, " (kernel_code_entry=0x%llx <%s>", agent_report_entry(r),
				r->kernel);
		else
			fprintf(out, " (kernel_code_entry=not available");
		if (r->generation == AGENT_ROCM7)
			fprintf(out, ", kernargs=0x%llx", r->load_base + 0x20000);
		fprintf(out, ")");
	}
	if (r->reason)
		fprintf(out, " (stopped, reason: %s)\n", r->reason);
	else
		fprintf(out, " (running)\n");
}

void agent_report_print(FILE *out, const struct agent_report *r)
{
	char uri[256];

	agent_report_uri(r, uri, sizeof(uri));
	if (r->event)
		fprintf(out, "%s\n", r->event);
	if (r->faulting_page)
		fprintf(out, "Faulting page: %s\n", r->faulting_page);
	fprintf(out, "\n--------------------------------------------------------\n");
	wave_line(out, r);
	registers(out, r);
	if (r->generation == AGENT_ROCM7)
		memory_blocks(out, r);
	if (r->generation != AGENT_OLD)
		disassembly(out, r, uri);
	fflush(out);
}

int agent_report_save(const char *dir, const struct agent_report *r)
{
	char uri[256], name[256], path[4096];
	size_t len = 0, done = 0;
	char *co = code_object(r, &len);
	int fd, e;

	if (!co)
		return -1;
	agent_report_uri(r, uri, sizeof(uri));
	agent_report_saved_name(uri, name, sizeof(name));
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		free(co);
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (fd >= 0 && done < len) {
		ssize_t w = write(fd, co + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	e = errno;
	free(co);
	if (fd < 0 || (close(fd) < 0 && done == len) || done < len) {
		errno = e ? e : EIO;
		return -1;
	}
	return 0;
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int agent_report_enabled(const char *lib, const char *ld_library_path)
{
	const char *base;
	char path[4096];

	if (!lib || !*lib)
		return 0;
	base = strrchr(lib, '/');
	if (strcmp(base ? base + 1 : lib, AGENT_REPORT_LIB))
		return 0;
	if (base)
		return file_exists(lib);
	for (const char *d = ld_library_path; d && *d;) {
		size_t n = strcspn(d, ":");

		if (n && (size_t)snprintf(path, sizeof(path), "%.*s/%s", (int)n, d, lib) < sizeof(path) &&
		    file_exists(path))
			return 1;
		d += n + (d[n] == ':');
	}
	return 0;
}

int agent_report_save_dir(const char *options, char *out, size_t outsz)
{
	const char *o = options;

	while (o && *o) {
		size_t n;

		o += strspn(o, " \t");
		n = strcspn(o, " \t");
		if (n >= 19 && !strncmp(o, "--save-code-objects", 19) && (n == 19 || o[19] == '=')) {
			snprintf(out, outsz, "%.*s", n > 20 ? (int)(n - 20) : 1, n > 20 ? o + 20 : ".");
			return 0;
		}
		if (n == 2 && !strncmp(o, "-s", 2)) {
			const char *v = o + 2 + strspn(o + 2, " \t");
			size_t vn = strcspn(v, " \t");

			/* -s takes an optional DIR: the next word, unless an option. */
			snprintf(out, outsz, "%.*s", vn && *v != '-' ? (int)vn : 1,
				 vn && *v != '-' ? v : ".");
			return 0;
		}
		o += n;
	}
	return -1;
}
