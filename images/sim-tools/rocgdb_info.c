/* What the rocgdb stand-in prints: ROCgdb's `info agents|queues|
 * dispatches` tables and the -agent-info / -queue-info / -dispatch-info /
 * -thread-info results, in the formats of ROCgdb's manual ("GDB/MI
 * Heterogeneous Debugging Commands") and its table printer (columns
 * padded to their widest cell, one space apart, a "current" mark first). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocgdb.h"

void out_addf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (o->len + (size_t)n + 1 > o->cap) {
		size_t cap = (o->len + (size_t)n + 1) * 2;
		char *b = realloc(o->buf, cap);

		if (!b)
			abort();
		o->buf = b;
		o->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(o->buf + o->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
}

void out_reset(struct out *o)
{
	o->len = 0;
	if (o->buf)
		o->buf[0] = '\0';
}

void out_cstring(struct out *o, const char *s)
{
	out_addf(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			out_addf(o, "\\%c", c);
		else if (c == '\n')
			out_addf(o, "\\n");
		else if (c == '\t')
			out_addf(o, "\\t");
		else if (c < 0x20 || c == 0x7f)
			out_addf(o, "\\%03o", c);
		else
			out_addf(o, "%c", c);
	}
	out_addf(o, "\"");
}

#define QUEUE_ADDR 0x00007f20f4000000ull
#define KERNEL_DESC_OFF 0x40ull
#define WAVE_PC_OFF 0x30ull

/* A table: cells row-major, nrows x ncols, the first column the "current"
 * mark. Every column but the last is padded to its widest cell. */
static void table(struct out *o, size_t ncols, const char *const *hdr, const char *const *cells,
		  size_t nrows)
{
	size_t w[16] = { 0 };

	for (size_t c = 0; c < ncols; c++) {
		w[c] = strlen(hdr[c]);
		for (size_t r = 0; r < nrows; r++)
			if (strlen(cells[r * ncols + c]) > w[c])
				w[c] = strlen(cells[r * ncols + c]);
	}
	for (size_t r = 0; r <= nrows; r++) {
		const char *const *row = r ? cells + (r - 1) * ncols : hdr;

		for (size_t c = 0; c < ncols; c++)
			if (c + 1 == ncols)
				out_addf(o, "%s\n", row[c]);
			else
				out_addf(o, "%-*s ", (int)w[c], row[c]);
	}
}

static void wave_target(const struct dbg *g, char *buf, size_t n)
{
	if (g->waves_only)
		snprintf(buf, n, "AMDGPU Wave 1:%u:?:1 (?,?,?)/?", g->st.queue);
	else
		snprintf(buf, n, "AMDGPU Wave 1:%u:%llu:1 (0,0,0)/0", g->st.queue, g->st.dispatch);
}

static void dispatch_target(const struct dbg *g, char *buf, size_t n)
{
	snprintf(buf, n, "AMDGPU Dispatch 1:%u:%llu (PKID %llu)", g->st.queue, g->st.dispatch,
		 g->st.packet);
}

void info_agents(const struct dbg *g, struct out *o)
{
	static const char *const hdr[] = { " ", "Id", "State", "Target Id", "Architecture",
					   "Device Name", "Cores", "Threads", "Location" };
	const char *row[] = { " ", "1", "A", "AMDGPU Agent (GPUID 45151)", g->st.arch,
			      g->st.device, "304", "19456", "c1:00.0" };

	if (g->pid < 0) {
		out_addf(o, "No agents are currently active.\n");
		return;
	}
	table(o, 9, hdr, row, 1);
}

void info_queues(const struct dbg *g, struct out *o)
{
	static const char *const hdr[] = { " ", "Id", "Target Id", "Type", "Read", "Write", "Size",
					   "Address" };
	char id[32], tid[64], rd[32], wr[32], addr[32];
	const char *row[] = { " ", id, tid, "HSA", rd, wr, "65536", addr };

	if (!g->have_state) {
		out_addf(o, "No queues are currently active.\n");
		return;
	}
	snprintf(id, sizeof(id), "%u", g->st.queue);
	snprintf(tid, sizeof(tid), "AMDGPU Queue 1:%u (QID %u)", g->st.queue,
		 g->st.queue ? g->st.queue - 1 : 0);
	snprintf(rd, sizeof(rd), "%llu", g->st.packet);
	snprintf(wr, sizeof(wr), "%llu", g->st.packet + 1);
	snprintf(addr, sizeof(addr), "0x%016llx", QUEUE_ADDR);
	table(o, 8, hdr, row, 1);
}

void info_dispatches(const struct dbg *g, struct out *o)
{
	static const char *const hdr[] = { " ", "Id", "Target Id", "Grid", "Workgroup", "Fence",
					   "Kernel Function" };
	char id[32], tid[96];
	const char *row[] = { " ", id, tid, g->st.grid, g->st.workgroup, "B|As|Rs", g->st.kernel };

	if (!g->have_state || !g->st.kernel[0] || g->waves_only) {
		out_addf(o, "No dispatches are currently active.\n");
		return;
	}
	snprintf(id, sizeof(id), "%llu", g->st.dispatch);
	dispatch_target(g, tid, sizeof(tid));
	table(o, 7, hdr, row, 1);
}

void info_threads(const struct dbg *g, struct out *o)
{
	static const char *const hdr[] = { " ", "Id", "Target Id", "Frame" };
	char host[64], hframe[64], wave[96], wframe[1200];
	const char *rows[] = { "*", "1", host, hframe, " ", "2", wave, wframe };

	if (g->pid < 0) {
		out_addf(o, "No threads.\n");
		return;
	}
	snprintf(host, sizeof(host), "Thread 0x7f20f7a1c740 (LWP %ld) \"hrr-playback\"", g->pid);
	snprintf(hframe, sizeof(hframe), "0x%016llx in ?? ()", g->host_pc);
	wave_target(g, wave, sizeof(wave));
	snprintf(wframe, sizeof(wframe), "0x%016llx in %s ()", g->st.kernel_entry + WAVE_PC_OFF,
		 g->st.kernel);
	table(o, 4, hdr, rows, g->have_state && g->st.kernel[0] ? 2 : 1);
}

void backtrace(const struct dbg *g, struct out *o, long limit)
{
	if (g->pid < 0) {
		out_addf(o, "No stack.\n");
		return;
	}
	/* The simulator is static and stripped of symbols: one frame, as far as
	 * a debugger without unwind information gets. */
	(void)limit;
	out_addf(o, "#0  0x%016llx in ?? ()\n", g->host_pc);
}

void mi_agents(const struct dbg *g, struct out *o)
{
	out_addf(o, ",agents=[");
	if (g->pid >= 0) {
		out_addf(o, "{id=\"1.1\",state=\"A\",target-id=\"AMDGPU Agent (GPUID 45151)\","
			    "architecture=");
		out_cstring(o, g->st.arch);
		out_addf(o, ",name=");
		out_cstring(o, g->st.device);
		out_addf(o, ",cores=\"304\",threads=\"19456\",location=\"c1:00.0\"}");
	}
	out_addf(o, "]");
}

void mi_queues(const struct dbg *g, struct out *o)
{
	out_addf(o, ",queues=[");
	if (g->have_state)
		out_addf(o, "{id=\"1.%u\",agent-id=\"1.1\",target-id=\"AMDGPU Queue 1:%u (QID %u)\","
			    "type=\"HSA\",read=\"%llu\",write=\"%llu\",size=\"65536\","
			    "addr=\"0x%016llx\"}",
			 g->st.queue, g->st.queue, g->st.queue ? g->st.queue - 1 : 0, g->st.packet,
			 g->st.packet + 1, QUEUE_ADDR);
	out_addf(o, "]");
}

void mi_dispatches(const struct dbg *g, struct out *o)
{
	char tid[96];

	out_addf(o, ",dispatches=[");
	if (g->have_state && g->st.kernel[0] && !g->waves_only) {
		dispatch_target(g, tid, sizeof(tid));
		out_addf(o, "{id=\"1.%llu\",queue-id=\"1.%u\",target-id=", g->st.dispatch,
			 g->st.queue);
		out_cstring(o, tid);
		out_addf(o, ",grid=");
		out_cstring(o, g->st.grid);
		out_addf(o, ",workgroup=");
		out_cstring(o, g->st.workgroup);
		out_addf(o, ",fences=[{name=\"Barrier\",abbrev=\"B\"},"
			    "{name=\"Acquire\",value=\"System\",abbrev=\"As\"},"
			    "{name=\"Release\",value=\"System\",abbrev=\"Rs\"}],"
			    "address-spaces=[{name=\"Shared\",size=\"0\"},{name=\"Private\",size=\"0\"}],"
			    "kernel-desc=\"0x%016llx\",kernel-args=\"0x%016llx\","
			    "completion=\"0x0000000000000000\",kernel-function=\"0x%016llx\"}",
			 g->st.kernel_entry - KERNEL_DESC_OFF, QUEUE_ADDR + 0x100000,
			 g->st.kernel_entry);
	}
	out_addf(o, "]");
}

void mi_threads(const struct dbg *g, struct out *o)
{
	out_addf(o, ",threads=[");
	if (g->pid >= 0) {
		out_addf(o, "{id=\"1\",target-id=\"Thread 0x7f20f7a1c740 (LWP %ld)\","
			    "name=\"hrr-playback\",frame={level=\"0\",addr=\"0x%016llx\",func=\"??\","
			    "args=[]},state=\"stopped\",core=\"0\"}",
			 g->pid, g->host_pc);
		if (g->have_state && g->st.kernel[0]) {
			char wave[96];

			wave_target(g, wave, sizeof(wave));
			out_addf(o, ",{id=\"2\",target-id=\"%s\","
				    "frame={level=\"0\",addr=\"0x%016llx\",func=",
				 wave, g->st.kernel_entry + WAVE_PC_OFF);
			out_cstring(o, g->st.kernel);
			out_addf(o, ",args=[]},state=\"stopped\"}");
		}
	}
	out_addf(o, "]");
	if (g->pid >= 0)
		out_addf(o, ",current-thread-id=\"1\"");
}
