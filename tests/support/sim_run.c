#include "tests/support/sim_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sim_result_init(struct sim_result *r)
{
	r->status = -1;
	r->signaled = false;
	r->timed_out = false;
	strbuf_init(&r->out, 0);
	strbuf_init(&r->err, 0);
	strbuf_init(&r->all, 0);
	r->seconds = 0;
}

void sim_result_release(struct sim_result *r)
{
	strbuf_release(&r->out);
	strbuf_release(&r->err);
	strbuf_release(&r->all);
}

static _Noreturn void child_exec(const char *const *argv, const char *const *env,
				 int out_fd, int err_fd)
{
	struct rlimit no_core = { 0, 0 };
	int devnull = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	if (devnull >= 0)
		dup2(devnull, 0);
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	setrlimit(RLIMIT_CORE, &no_core);
	for (size_t i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');

		if (eq) {
			char *k = xstrndup(env[i], (size_t)(eq - env[i]));

			setenv(k, eq + 1, 1);
			free(k);
		} else {
			unsetenv(env[i]);
		}
	}
	execvp(argv[0], (char *const *)argv);
	fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int sim_run(const char *const *argv, const char *const *env, double timeout_s,
	    struct sim_result *r, struct error *err)
{
	int out_pipe[2], err_pipe[2], status;
	struct pollfd fds[2];
	double start = now_s(), deadline = start + timeout_s;
	char buf[65536];
	pid_t pid;

	if (pipe2(out_pipe, O_CLOEXEC) < 0)
		return error_errno(err, "pipe");
	if (pipe2(err_pipe, O_CLOEXEC) < 0) {
		close(out_pipe[0]);
		close(out_pipe[1]);
		return error_errno(err, "pipe");
	}
	pid = fork();
	if (pid < 0) {
		error_errno(err, "fork");
		goto fail;
	}
	if (pid == 0)
		child_exec(argv, env, out_pipe[1], err_pipe[1]);
	setpgid(pid, pid);
	close(out_pipe[1]);
	close(err_pipe[1]);
	fds[0] = (struct pollfd){ .fd = out_pipe[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = err_pipe[0], .events = POLLIN };
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		double left = deadline - now_s();
		int n;

		if (left <= 0) {
			kill(-pid, SIGKILL);
			r->timed_out = true;
			break;
		}
		n = poll(fds, 2, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR) {
			error_errno(err, "poll");
			kill(-pid, SIGKILL);
			waitpid(pid, NULL, 0);
			goto fail_read;
		}
		for (int i = 0; i < 2 && n > 0; i++) {
			ssize_t got;

			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(fds[i].fd, buf, sizeof(buf));
			if (got <= 0) {
				if (got < 0 && errno == EINTR)
					continue;
				close(fds[i].fd);
				fds[i].fd = -1;
				continue;
			}
			strbuf_add(i == 0 ? &r->out : &r->err, buf, (size_t)got);
			strbuf_add(&r->all, buf, (size_t)got);
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return error_errno(err, "waitpid");
	r->seconds = now_s() - start;
	if (WIFSIGNALED(status)) {
		r->signaled = true;
		r->status = 128 + WTERMSIG(status);
	} else {
		r->status = WEXITSTATUS(status);
	}
	return 0;
fail:
	close(out_pipe[1]);
	close(err_pipe[1]);
fail_read:
	close(out_pipe[0]);
	close(err_pipe[0]);
	return -1;
}

const char *sim_host_binary(void)
{
	static char path[PATH_MAX];
	const char *bin = getenv("HRR_SIM_BIN");
	char exe[PATH_MAX], *slash;
	ssize_t n;
	int i;

	if (bin && *bin)
		return bin;
	/* The test binaries live in <build>/tests/; the simulator in
	 * <build>/sim/, whichever build dir (build, build-asan) this is. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		for (i = 0; i < 2 && (slash = strrchr(exe, '/')); i++)
			*slash = '\0';
		if (i == 2 && (size_t)snprintf(path, sizeof(path), "%s/sim/hrr-playback", exe) <
				      sizeof(path) && access(path, X_OK) == 0)
			return path;
	}
	return "build/sim/hrr-playback";
}

char *sim_fixture_root(const char *name)
{
	char cwd[PATH_MAX];
	cleanup_free char *p = NULL;
	struct stat st;

	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	p = xasprintf("%s/tests/fixtures/archives/%s/capture.hrr", cwd, name);
	if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return steal_pointer(&p);
}

char *sim_fixture_pid_dir(const char *name)
{
	cleanup_free char *root = sim_fixture_root(name);
	struct dirent *de;
	char *found = NULL;
	DIR *d;

	if (!root || !(d = opendir(root)))
		return NULL;
	while ((de = readdir(d)))
		if (strncmp(de->d_name, "pid-", 4) == 0) {
			free(found);
			found = xasprintf("%s/%s", root, de->d_name);
		}
	closedir(d);
	return found;
}

int sim_tmpdir(struct strbuf *path, struct error *err)
{
	const char *base = getenv("TMPDIR");

	strbuf_reset(path);
	strbuf_addf(path, "%s/hrr-sim-test-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(path->buf))
		return error_errno(err, "mkdtemp %s", path->buf);
	return 0;
}

void sim_rmtree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d))) {
		cleanup_free char *p = NULL;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", path, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			sim_rmtree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(path);
}

static int make_node(const char *path, unsigned major_, unsigned minor_, struct error *err)
{
	if (mknod(path, S_IFCHR | 0666, makedev(major_, minor_)) < 0)
		return error_errno(err, "mknod %s (tests need root)", path);
	return 0;
}

int sim_make_device_nodes(const char *dir, const unsigned *minors, size_t n,
			  struct error *err)
{
	cleanup_free char *kfd = xasprintf("%s/kfd", dir);

	if (make_node(kfd, 1, 3, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		cleanup_free char *p = xasprintf("%s/renderD%u", dir, minors[i]);

		if (make_node(p, 226, minors[i], err) < 0)
			return -1;
	}
	return 0;
}

static int write_file(const char *path, const char *text, struct error *err)
{
	cleanup_fclose FILE *f = fopen(path, "w");

	if (!f)
		return error_errno(err, "create %s", path);
	if (fputs(text, f) < 0)
		return error_errno(err, "write %s", path);
	return 0;
}

static int make_dir(const char *path, struct error *err)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return error_errno(err, "mkdir %s", path);
	return 0;
}

int sim_make_host_env(const char *dir, const unsigned *minors, size_t n,
		      struct error *err)
{
	static const char *const links[][2] = {
		{ "libamdhip64.so.7", "libamdhip64.so.7.13.0-abc123" },
		{ "libamdhip64.so", "libamdhip64.so.7" },
		{ "libhsa-runtime64.so.1", "libhsa-runtime64.so.1.18.70130" },
		{ "libamd_comgr.so.2", "libamd_comgr.so.2.8.60200" },
	};
	static const char *const files[] = {
		"libamdhip64.so.7.13.0-abc123", "libhsa-runtime64.so.1.18.70130",
		"libamd_comgr.so.2.8.60200",
	};
	cleanup_free char *lib = xasprintf("%s/lib", dir);
	cleanup_free char *dev = xasprintf("%s/dev", dir);
	cleanup_free char *dri = xasprintf("%s/dev/dri", dir);
	cleanup_free char *kfd = xasprintf("%s/dev/kfd", dir);

	if (make_dir(lib, err) < 0 || make_dir(dev, err) < 0 || make_dir(dri, err) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		cleanup_free char *p = xasprintf("%s/%s", lib, files[i]);

		if (write_file(p, "", err) < 0)
			return -1;
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		cleanup_free char *p = xasprintf("%s/%s", lib, links[i][0]);

		if (symlink(links[i][1], p) < 0)
			return error_errno(err, "symlink %s", p);
	}
	if (write_file(kfd, "", err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		cleanup_free char *p = xasprintf("%s/renderD%u", dri, minors[i]);

		if (write_file(p, "", err) < 0)
			return -1;
	}
	return 0;
}

/* Two FNV-1a lanes: 128 bits, plenty to notice any change. */
struct tree_hasher {
	uint64_t a, b;
};

static void hash_bytes(struct tree_hasher *h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		h->a = (h->a ^ p[i]) * 0x100000001b3ull;
		h->b = (h->b ^ p[i]) * 0x100000001b3ull;
		h->b ^= h->b >> 29;
	}
}

static int hash_file(struct tree_hasher *h, const char *path, struct error *err)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	ssize_t n;

	if (fd < 0)
		return error_errno(err, "open %s", path);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		hash_bytes(h, buf, (size_t)n);
	if (n < 0)
		return error_errno(err, "read %s", path);
	return 0;
}

static int hash_dir(struct tree_hasher *h, const char *dir, const char *rel,
		    struct error *err)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), rc = 0;

	if (n < 0)
		return error_errno(err, "scandir %s", dir);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		cleanup_free char *p = NULL, *r = NULL;
		struct stat st;
		struct strbuf meta = STRBUF_INIT;

		if (rc < 0 || !strcmp(name, ".") || !strcmp(name, ".."))
			goto next;
		p = xasprintf("%s/%s", dir, name);
		r = xasprintf("%s/%s", rel, name);
		if (lstat(p, &st) < 0) {
			rc = error_errno(err, "lstat %s", p);
			goto next;
		}
		strbuf_addf(&meta, "%s %o %lld %lld.%09ld", r, (unsigned)st.st_mode,
			    (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			    st.st_mtim.tv_nsec);
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t len = readlink(p, target, sizeof(target) - 1);

			if (len >= 0)
				strbuf_addf(&meta, " -> %.*s", (int)len, target);
		}
		hash_bytes(h, meta.buf, meta.len + 1);
		if (S_ISDIR(st.st_mode))
			rc = hash_dir(h, p, r, err);
		else if (S_ISREG(st.st_mode))
			rc = hash_file(h, p, err);
next:
		strbuf_release(&meta);
		free(names[i]);
	}
	free(names);
	return rc;
}

int sim_tree_hash(const char *dir, struct strbuf *out, struct error *err)
{
	struct tree_hasher h = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };

	if (hash_dir(&h, dir, ".", err) < 0)
		return -1;
	strbuf_reset(out);
	strbuf_addf(out, "%016llx%016llx", (unsigned long long)h.a, (unsigned long long)h.b);
	return 0;
}

int sim_copy_tree(const char *src, const char *dst, struct error *err)
{
	const char *argv[] = { "cp", "-a", src, dst, NULL };
	struct sim_result r;
	int rc;

	sim_result_init(&r);
	rc = sim_run(argv, NULL, 30, &r, err);
	if (rc == 0 && r.status != 0)
		rc = error_set(err, ERR_SYSTEM, r.status, "cp -a %s %s: %s", src, dst, r.err.buf);
	sim_result_release(&r);
	return rc;
}

size_t sim_count_lines(const char *text, const char *prefix)
{
	size_t n = 0, pl = strlen(prefix);

	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');

		if (strncmp(l, prefix, pl) == 0)
			n++;
		l = nl ? nl + 1 : NULL;
	}
	return n;
}

bool sim_find_line(const char *text, const char *prefix, struct strbuf *line)
{
	size_t pl = strlen(prefix);

	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');

		if (strncmp(l, prefix, pl) == 0) {
			strbuf_reset(line);
			strbuf_add(line, l, nl ? (size_t)(nl - l) : strlen(l));
			return true;
		}
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

void sim_last_line(const char *text, struct strbuf *line)
{
	size_t len = strlen(text), end, start;

	while (len && text[len - 1] == '\n')
		len--;
	end = len;
	start = end;
	while (start && text[start - 1] != '\n')
		start--;
	strbuf_reset(line);
	strbuf_add(line, text + start, end - start);
}

const char *sim_test_label(void)
{
	static char label[64];

	snprintf(label, sizeof(label), "org.hrr-docker-replay.sim-test=%d", (int)getpid());
	return label;
}

void sim_docker_argv(struct strvec *argv, const char *devdir, const char *pid_dir,
		     const char *const *env, const char *const *args)
{
	const char *base = strrchr(pid_dir, '/');

	base = base ? base + 1 : pid_dir;
	strvec_pushv(argv, (const char *const[]){ "docker", "run", "--rm", "--init",
		"--network", "none", "--ulimit", "core=0",
		"--label", sim_test_label(), NULL });
	if (devdir) {
		strvec_push(argv, "--device");
		strvec_pushf(argv, "%s/kfd:/dev/kfd", devdir);
		strvec_push(argv, "--device");
		strvec_pushf(argv, "%s/renderD128:/dev/dri/renderD128", devdir);
	}
	for (size_t i = 0; env && env[i]; i++) {
		strvec_push(argv, "-e");
		strvec_push(argv, env[i]);
	}
	strvec_push(argv, "-v");
	strvec_pushf(argv, "%s:/arch/%s:ro", pid_dir, base);
	strvec_push(argv, SIM_RUN_IMAGE);
	strvec_push(argv, "/opt/rocm/bin/hrr-playback");
	strvec_pushf(argv, "/arch/%s", base);
	for (size_t i = 0; args && args[i]; i++)
		strvec_push(argv, args[i]);
}
