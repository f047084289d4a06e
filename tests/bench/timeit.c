/* timeit: run a command, then report its wall time and its peak RSS.
 *
 *     timeit [-o FILE] [--] COMMAND [ARG...]
 *
 * Appends one line "<wall s> <peak RSS KiB> <exit status> <user CPU s>
 * <system CPU s>" to FILE (default: stderr) and exits with the command's
 * status (128+N for a signal). The RSS comes from wait4()'s rusage of the command itself, not of
 * its descendants: the orchestrator's own memory is what the benchmark
 * bounds, and docker CLI children (none today) would otherwise blur it.
 * GNU time does the same with %M; this exists so `make bench` needs no
 * extra package and times with CLOCK_MONOTONIC at nanosecond resolution. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double timeit_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int timeit_usage(void)
{
	fputs("usage: timeit [-o FILE] [--] COMMAND [ARG...]\n", stderr);
	return 64;
}

int main(int argc, char **argv)
{
	const char *out_path = NULL;
	struct rusage ru;
	double t0, wall;
	FILE *out = stderr;
	pid_t pid;
	int i = 1, status, code;

	if (i + 1 < argc && !strcmp(argv[i], "-o")) {
		out_path = argv[i + 1];
		i += 2;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc)
		return timeit_usage();

	t0 = timeit_now();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "timeit: fork: %s\n", strerror(errno));
		return 71;
	}
	if (pid == 0) {
		execvp(argv[i], argv + i);
		fprintf(stderr, "timeit: %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "timeit: wait4: %s\n", strerror(errno));
			return 71;
		}
	}
	wall = timeit_now() - t0;
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	if (out_path && !(out = fopen(out_path, "a"))) {
		fprintf(stderr, "timeit: %s: %s\n", out_path, strerror(errno));
		return 71;
	}
	/* ru_maxrss is in KiB on Linux. */
	fprintf(out, "%.6f %ld %d %.3f %.3f\n", wall, ru.ru_maxrss, code,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	if (out != stderr && fclose(out) != 0) {
		fprintf(stderr, "timeit: %s: %s\n", out_path, strerror(errno));
		return 71;
	}
	return code;
}
