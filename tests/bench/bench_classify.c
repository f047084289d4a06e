/* Classifier throughput and memory: a realistic replay log of N MiB
 * (default 1024; argv[1] or BENCH_CLASSIFY_MB), streamed from memory for
 * N/4 and N MiB, then written to a temporary file and read back. Prints
 * MB/s and the peak RSS after each run: the peak must not follow the log
 * size. The finding is checked too, so a fast-but-wrong classifier fails.
 *
 * Exit 0; 1 when the finding is wrong; 2 when BENCH_CLASSIFY_STRICT=1 and
 * a run is under the 200 MB/s target. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "orchestrator/finding/finding.h"

#define MIB (1024.0 * 1024.0)
#define CHUNK (64 * 1024)
#define TARGET_MBPS 200.0

static const char *const kernels[] = {
	"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
	"ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_IU1_K1_LBSPPA2048_"
	"LBSPPB2048_LPA16_LPB16_LRVW8_MIAV1_MIWT8_8_MO40_NTn1_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_"
	"PKA1_SIA3_SS1_SVW8_SK3_TLDS1_USL1_VSn1_VWA8_VWB1_WS64_WG32_8_1",
	"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_",
	"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffEEjfLi4EEEEEvT1_",
	"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8_SN_LDSB0_GRVW8_K1_PGR1_PLR1_SU32_SUS256_SVW4_TT4_64_WG32_4_1",
};

static const char *const apis[] = {
	"hipMemcpyHtoDAsync", "hipStreamSynchronize", "hipMemsetAsync", "hipEventRecord",
	"hipMalloc", "hipStreamWaitEvent",
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* About 1 MiB of what a --verbose replay with AMD_LOG_LEVEL=3 prints. */
static void make_pattern(struct strbuf *p)
{
	unsigned long long seq = 1000, call = 0, kernel_no = 0;
	unsigned x = 2463534242u;

	while (p->len < (1u << 20)) {
		unsigned r;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		r = x % 100;
		if (r < 30) {
			const char *k = kernels[x % 4];

			strbuf_addf(p, "[HRR] Event %llu: hipModuleLaunchKernel -> Kernel '%s'\n", call++, k);
			kernel_no++;
		} else if (r < 42) {
			strbuf_addf(p, "[HRR] Event %llu: %s\n", call++, apis[x % 6]);
		} else if (r < 62) {
			strbuf_addf(p, "[HRR]   arg[%u]: ptr 0x7f%010x -> 0x7f%010x\n", x % 8, x, x ^ 0x5a5a5a);
		} else if (r < 82) {
			strbuf_addf(p, ":3:hip_module.cpp           :477 : %u us: [pid:4242 tid:0x7f3a2c5ff700]  "
				    "hipModuleLaunchKernel ( 0x55d0c8a3e2b0, 4096, 1, 1, 256, 1, 1, 0, "
				    "stream:0x55d0c8b10000, 0x7ffd2a001000, 0x0 )\n", x);
		} else if (r < 90) {
			strbuf_addf(p, "[HRR progress] elapsed_s=%.1f seq=%llu kernels=%llu d2h_pass=%llu "
				    "d2h_fail=0 d2h_attempted=%llu last=\"%s\"\n",
				    (double)seq / 100.0, seq, kernel_no, kernel_no / 7, kernel_no / 7,
				    kernels[x % 4]);
			seq += 97;
		} else if (r < 96) {
			strbuf_addf(p, "[HRR] Kernel '%s' OK\n", kernels[x % 4]);
		} else if (r < 99) {
			strbuf_addf(p, ":4:rocvirtual.cpp           :3146: %u us: [pid:4242 tid:0x7f3a2c5ff700] "
				    "ShaderName : %s\n", x, kernels[x % 4]);
		} else {
			strbuf_addf(p, ":3:hip_memory.cpp           :1512: %u us: [pid:4242 tid:0x7f3a2c5ff700] "
				    "hipMemcpyDtoHAsync: Returned hipSuccess : size=%u\n", x, x % 65536);
		}
	}
}

static const char ending[] = "\n"
	"Memory access fault by GPU node-2 (Agent handle: 0x1) on address 0x7f91da000000. "
	"Reason: Write access to a read-only page\n"
	"[hrr-docker-replay] replay killed by signal 6\n";

static int check(const struct finding *f, const char *what)
{
	if (f->outcome != OUTCOME_MAF || f->fault_class != FAULT_READ_ONLY_PAGE_FAULT ||
	    !f->fault_address || strcmp(f->fault_address, "0x7f91da000000") != 0 ||
	    f->kernels_launched <= 0) {
		fprintf(stderr, "bench-classify: %s: wrong finding (%s / %s)\n", what,
			finding_outcome_name(f->outcome), finding_fault_class_name(f->fault_class));
		return -1;
	}
	return 0;
}

struct result {
	double mbps;
	long rss_kib;
};

static int run_memory(const struct strbuf *pattern, size_t total, struct result *res)
{
	struct classifier *c = classifier_new("bench");
	struct finding f;
	size_t fed = 0;
	double t0, t1;
	int rc;

	t0 = now_s();
	while (fed < total) {
		for (size_t off = 0; off < pattern->len && fed < total; off += CHUNK) {
			size_t n = pattern->len - off < CHUNK ? pattern->len - off : CHUNK;

			classifier_feed(c, pattern->buf + off, n);
			fed += n;
		}
	}
	classifier_feed(c, ending, sizeof(ending) - 1);
	classifier_finish(c, &f);
	t1 = now_s();
	classifier_free(c);
	rc = check(&f, "memory");
	finding_release(&f);
	res->mbps = (double)fed / MIB / (t1 - t0);
	res->rss_kib = peak_rss_kib();
	return rc;
}

static int run_file(const struct strbuf *pattern, size_t total, struct result *res)
{
	const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct strbuf path = STRBUF_INIT;
	struct classifier *c;
	struct finding f;
	char *buf;
	size_t written = 0, fed = 0;
	double t0, t1;
	int fd, rc;

	strbuf_addf(&path, "%s/hrr-bench-classify-XXXXXX", tmpdir);
	fd = mkstemp(path.buf);
	if (fd < 0) {
		fprintf(stderr, "bench-classify: mkstemp %s: %s\n", path.buf, strerror(errno));
		strbuf_release(&path);
		return -1;
	}
	unlink(path.buf);
	strbuf_release(&path);
	while (written < total) {
		size_t n = total - written < pattern->len ? total - written : pattern->len;

		if (write(fd, pattern->buf, n) != (ssize_t)n) {
			fprintf(stderr, "bench-classify: writing the log: %s\n", strerror(errno));
			close(fd);
			return -1;
		}
		written += n;
	}
	if (write(fd, ending, sizeof(ending) - 1) != (ssize_t)(sizeof(ending) - 1) ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}

	buf = malloc(CHUNK);
	c = classifier_new("bench.log");
	t0 = now_s();
	for (;;) {
		ssize_t n = read(fd, buf, CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		classifier_feed(c, buf, (size_t)n);
		fed += (size_t)n;
	}
	classifier_finish(c, &f);
	t1 = now_s();
	classifier_free(c);
	free(buf);
	close(fd);
	rc = check(&f, "file");
	finding_release(&f);
	res->mbps = (double)fed / MIB / (t1 - t0);
	res->rss_kib = peak_rss_kib();
	return rc;
}

int main(int argc, char **argv)
{
	const char *arg = argc > 1 ? argv[1] : getenv("BENCH_CLASSIFY_MB");
	long mb = arg ? strtol(arg, NULL, 10) : 1024;
	bool strict = getenv("BENCH_CLASSIFY_STRICT") && !strcmp(getenv("BENCH_CLASSIFY_STRICT"), "1");
	struct strbuf pattern = STRBUF_INIT;
	struct result quarter, full, file;
	long base_rss;
	bool fast;

	if (mb < 4)
		mb = 4;
	make_pattern(&pattern);
	base_rss = peak_rss_kib();
	printf("bench-classify: %ld MiB log, %zu-byte pattern, %d KiB chunks\n", mb, pattern.len,
	       CHUNK / 1024);
	if (run_memory(&pattern, (size_t)mb << 18, &quarter) < 0 ||
	    run_memory(&pattern, (size_t)mb << 20, &full) < 0 ||
	    run_file(&pattern, (size_t)mb << 20, &file) < 0) {
		strbuf_release(&pattern);
		return 1;
	}
	printf("  memory %6ld MiB: %8.1f MB/s   peak RSS %ld KiB\n", mb / 4, quarter.mbps, quarter.rss_kib);
	printf("  memory %6ld MiB: %8.1f MB/s   peak RSS %ld KiB\n", mb, full.mbps, full.rss_kib);
	printf("  file   %6ld MiB: %8.1f MB/s   peak RSS %ld KiB (read(2) from the page cache)\n", mb,
	       file.mbps, file.rss_kib);
	printf("  peak RSS before any run %ld KiB; growth N/4 -> N: %ld KiB (flat = bounded memory)\n",
	       base_rss, full.rss_kib - quarter.rss_kib);
	fast = quarter.mbps >= TARGET_MBPS && full.mbps >= TARGET_MBPS && file.mbps >= TARGET_MBPS;
	printf("  target %.0f MB/s: %s\n", TARGET_MBPS, fast ? "met" : "NOT met");
	strbuf_release(&pattern);
	return strict && !fast ? 2 : 0;
}
