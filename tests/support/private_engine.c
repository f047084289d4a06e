#include "tests/support/private_engine.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "tests/support/engine_test.h"
#include "tests/support/scratch.h"

static int script(const char *cmd, const struct private_engine *pe, const char *args)
{
	return et_sh("bash '%s/tests/private-dockerd.sh' %s '%s' %s", test_source_root(), cmd,
		     pe->dir, args ? args : "");
}

void private_engine_start(struct private_engine *pe, const char *const *images)
{
	struct strbuf names = STRBUF_INIT;

	/* Not under $TMPDIR: that may be long, and sockets go in here. */
	pe->dir = xstrdup("/tmp/hrr-pe-XXXXXX");
	cr_assert(mkdtemp(pe->dir), "mkdtemp: %s", strerror(errno));
	pe->host = xasprintf("unix://%s/docker.sock", pe->dir);
	cr_assert_eq(script("start", pe, ">/dev/null"), 0, "private dockerd did not start (%s)",
		     pe->dir);
	for (size_t i = 0; images && images[i]; i++)
		strbuf_addf(&names, " '%s'", images[i]);
	if (names.len)
		cr_assert_eq(script("load", pe, names.buf), 0, "loading%s", names.buf);
	strbuf_release(&names);
}

void private_engine_restart(struct private_engine *pe)
{
	cr_assert_eq(script("start", pe, ">/dev/null"), 0, "private dockerd did not restart");
}

/* A process that ended: no such pid, or a zombie ('Z' in /proc/<pid>/stat)
 * that an init which does not reap (a CI container without --init) leaves
 * in the table. dockerd is not our child, so we cannot reap it ourselves. */
static bool process_gone(pid_t pid)
{
	char path[64], buf[512], *close_paren;
	FILE *f;
	bool zombie = false;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT;
	if (fgets(buf, sizeof(buf), f) && (close_paren = strrchr(buf, ')')) &&
	    close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X'))
		zombie = true;
	fclose(f);
	return zombie;
}

pid_t private_engine_pid(const struct private_engine *pe)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	struct error err = { 0 };
	long pid = 0;

	strbuf_addf(&path, "%s/dockerd.pid", pe->dir);
	if (fs_read_small_file(path.buf, 64, &text, &err) == 0)
		pid = strtol(text.buf, NULL, 10);
	strbuf_release(&path);
	strbuf_release(&text);
	return pid > 0 && !process_gone((pid_t)pid) ? (pid_t)pid : 0;
}

static bool wait_gone(pid_t pid, int timeout_ms)
{
	for (int waited = 0; waited < timeout_ms; waited += 50) {
		if (process_gone(pid))
			return true;
		nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	}
	return false;
}

/* True once every thread of pid is stopped ('T' in /proc/<pid>/task/<tid>/stat). */
static bool all_threads_stopped(pid_t pid)
{
	char dir[64];
	DIR *d;
	struct dirent *de;
	bool stopped = true;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return false;
	while (stopped && (de = readdir(d))) {
		char path[384], buf[512], *close_paren;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", dir, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue; /* a thread that just ended */
		if (!fgets(buf, sizeof(buf), f) || !(close_paren = strrchr(buf, ')')) ||
		    close_paren[1] != ' ' || (close_paren[2] != 'T' && close_paren[2] != 't'))
			stopped = false;
		fclose(f);
	}
	closedir(d);
	return stopped;
}

void private_engine_signal(struct private_engine *pe, int sig)
{
	pid_t pid = private_engine_pid(pe);

	cr_assert_gt(pid, 0, "no private dockerd runs in %s", pe->dir);
	cr_assert_eq(kill(pid, sig), 0, "kill %d: %s", (int)pid, strerror(errno));
	/* dockerd is not our child: reaped by init (or left a zombie by one
	 * that does not reap), gone either way. */
	if (sig == SIGKILL)
		cr_assert(wait_gone(pid, 10000), "dockerd %d survived SIGKILL", (int)pid);
	/* A group stop reaches a many-threaded dockerd's threads one by one: a
	 * thread still running could answer a ping sent right after kill(). */
	if (sig == SIGSTOP) {
		int waited = 0;

		while (!all_threads_stopped(pid) && waited < 5000) {
			nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
			waited += 10;
		}
		cr_assert(all_threads_stopped(pid), "dockerd %d did not stop", (int)pid);
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for events or the deadline passes. */
static bool ready(int fd, short events, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	long long left = deadline - now_ms();

	return left > 0 && poll(&p, 1, (int)left) == 1 && (p.revents & events);
}

bool private_engine_answers(const struct private_engine *pe, int timeout_ms)
{
	static const char req[] = "GET /_ping HTTP/1.0\r\nHost: localhost\r\n\r\n";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	long long deadline = now_ms() + timeout_ms;
	cleanup_close int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	char buf[64];
	ssize_t n;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/docker.sock", pe->dir);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return false;
	if (!ready(fd, POLLOUT, deadline) || write(fd, req, sizeof(req) - 1) != sizeof(req) - 1)
		return false;
	if (!ready(fd, POLLIN, deadline))
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strncmp(buf, "HTTP/1.0 200", 12) == 0 || strncmp(buf, "HTTP/1.1 200", 12) == 0;
}

bool private_engine_stop(struct private_engine *pe)
{
	struct strbuf sock = STRBUF_INIT;
	struct stat st;
	bool gone;

	if (script("stop", pe, NULL) != 0)
		return false;
	strbuf_addf(&sock, "%s/docker.sock", pe->dir);
	gone = private_engine_pid(pe) == 0 && stat(sock.buf, &st) < 0 && errno == ENOENT;
	strbuf_release(&sock);
	return gone;
}

void private_engine_destroy(struct private_engine *pe)
{
	if (pe->dir)
		script("remove", pe, NULL);
	free(pe->dir);
	free(pe->host);
	pe->dir = pe->host = NULL;
}

char *tmpfs_scratch(const char *tag, size_t bytes)
{
	char *dir = scratch_dir(tag);
	char opts[64];

	snprintf(opts, sizeof(opts), "size=%zu,mode=0755", bytes);
	cr_assert_eq(mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts), 0,
		     "mount tmpfs on %s: %s", dir, strerror(errno));
	return dir;
}

void tmpfs_scratch_remove(char *path)
{
	if (!path)
		return;
	if (umount2(path, MNT_DETACH) == 0)
		rmdir(path);
	free(path);
}
