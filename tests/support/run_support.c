#include "tests/support/history_backend.h"
#include "tests/support/run_support.h"
#include "common/cleanup.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/containers/ours.h"
#include "docker/engine.h"
#include "tests/support/scratch.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <pty.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Root makes the node. Anyone else (the rootless engine tests, run as a
 * test user) links to the shared fake GPU nodes of
 * tests/setup-fake-gpus.sh, which belong to a group that user is in: the
 * tool stats through the link, the engine passes the node it names. */
static void mknod_or_die(const char *path, unsigned maj, unsigned min)
{
	const char *shared = getenv("HRR_FAKE_GPU_ROOT");
	char target[PATH_MAX];

	if (geteuid() == 0) {
		if (mknod(path, S_IFCHR | 0666, makedev(maj, min)) < 0)
			cr_assert_fail("mknod %s: %s (the tests run as root)", path,
				       strerror(errno));
		return;
	}
	if (!shared || !*shared)
		shared = "/var/lib/hrr-docker-replay-test/fake-gpu/dev";
	if (maj == 226) /* the shared root has renderD128..131 */
		snprintf(target, sizeof(target), "%s/dri/renderD%u", shared, 128 + (min - 128) % 4);
	else
		snprintf(target, sizeof(target), "%s/kfd", shared);
	if (symlink(target, path) < 0)
		cr_assert_fail("symlink %s -> %s: %s", path, target, strerror(errno));
}

void test_env_setup(struct test_env *t)
{
	char path[400];
	char cwd[PATH_MAX];

	snprintf(t->root, sizeof(t->root), "/tmp/hrr-test-XXXXXX");
	if (!mkdtemp(t->root))
		cr_assert_fail("mkdtemp: %s", strerror(errno));
	snprintf(t->workdir, sizeof(t->workdir), "%s/work", t->root);
	snprintf(t->devroot, sizeof(t->devroot), "%s/dev", t->root);
	mkdir(t->workdir, 0700);
	mkdir(t->devroot, 0755);
	snprintf(path, sizeof(path), "%s/dri", t->devroot);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/kfd", t->devroot);
	mknod_or_die(path, 1, 3); /* /dev/null's numbers: harmless */
	snprintf(path, sizeof(path), "%s/dri/renderD128", t->devroot);
	mknod_or_die(path, 226, 128);
	snprintf(path, sizeof(path), "%s/dri/renderD136", t->devroot);
	mknod_or_die(path, 226, 136);
	if (!getcwd(cwd, sizeof(cwd)))
		cr_assert_fail("getcwd");
	snprintf(t->sysfs, sizeof(t->sysfs), "%s/tests/fixtures/sysfs/mi300x-2", cwd);
	/* GPU leases of the test's runs stay in the test: other checkouts'
	 * tests on this machine use the same fake GPU ids (docs/sweep.md). */
	snprintf(path, sizeof(path), "%s/locks", t->root);
	setenv("HRR_LOCK_DIR", path, 1);
}

struct test_env tenv;

void tenv_init(void)
{
	test_env_setup(&tenv);
}

void tenv_init_four_gpus(char *sysfs, size_t len)
{
	char cwd[PATH_MAX], path[512];

	tenv_init();
	for (int m = 129; m <= 131; m++) {
		snprintf(path, sizeof(path), "%s/dri/renderD%d", tenv.devroot, m);
		mknod_or_die(path, 226, (unsigned)m);
	}
	if (!getcwd(cwd, sizeof(cwd)))
		cr_assert_fail("getcwd");
	snprintf(sysfs, len, "%s/tests/fixtures/sysfs/mi300x-4", cwd);
}

void tenv_init_sweep(struct tenv_sweep *sw)
{
	tenv_init_four_gpus(sw->sysfs4, sizeof(sw->sysfs4));
	snprintf(sw->lockdir, sizeof(sw->lockdir), "%s/locks", tenv.root);
	{
		cleanup_free char *file = xasprintf("%s/history.sqlite", tenv.root);
		cleanup_free char *db = history_backend_db(file);

		snprintf(sw->dbpath, sizeof(sw->dbpath), "%s", db);
	}
	snprintf(sw->library, sizeof(sw->library), "%s/library", tenv.root);
	snprintf(sw->lockenv, sizeof(sw->lockenv), "HRR_LOCK_DIR=%s", sw->lockdir);
	sw->env[0] = sw->lockenv;
	sw->env[1] = NULL;
}

void tenv_fini(void)
{
	cr_expect_eq(count_tool_containers(tenv.workdir), 0, "a replay container was left behind");
	test_env_teardown(&tenv);
}

void tenv_skip(const char *why)
{
	test_env_teardown(&tenv);
	cr_skip_test("%s", why);
	abort(); /* cr_skip_test does not return */
}

void test_env_teardown(struct test_env *t)
{
	remove_tool_containers(t->workdir);
	if (!getenv("HRR_TEST_KEEP"))
		scratch_remove(t->root);
}

static char *fixture_glob(const char *scenario, const char *pattern)
{
	char cwd[PATH_MAX];
	cleanup_free char *pat = NULL;
	glob_t g;
	char *out;

	if (!getcwd(cwd, sizeof(cwd)))
		cr_assert_fail("getcwd");
	pat = xasprintf("%s/tests/fixtures/archives/%s/%s", cwd, scenario, pattern);
	if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc < 1)
		cr_assert_fail("no fixture %s", pat);
	out = xstrdup(g.gl_pathv[0]);
	globfree(&g);
	return out;
}

char *fixture_pid_dir(const char *scenario)
{
	return fixture_glob(scenario, "capture.hrr/pid-*");
}

char *fixture_root(const char *scenario)
{
	return fixture_glob(scenario, "capture.hrr");
}

cJSON *run_fixture_finding(struct tool_run *r, const char *fixture, const char *timeout_s,
			   int want_code)
{
	cleanup_free char *pid_dir = fixture_pid_dir(fixture);
	const char *const argv[] = { "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir",
				     tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
				     tenv.sysfs, "-q", "--timeout", timeout_s, "--stop-grace", "1", NULL };
	cJSON *f;

	tool_run(r, argv, NULL);
	cr_assert_eq(r->status, want_code, "%s: exit %d:\n%s", fixture, r->status, r->err.buf);
	f = read_json(r->run_dir, "finding.json");
	cr_assert_not_null(f, "%s: no finding.json", fixture);
	return f;
}

static const char *json_str(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void assert_finding_verdict(const cJSON *f, const char *what, const char *outcome,
			    const char *fault_class, const char *kernel_prefix)
{
	const char *kernel = json_str(f, "kernel_name");

	const char *got_outcome = json_str(f, "outcome"), *got_class = json_str(f, "fault_class");
	/* the whole finding, to tell a rare miss apart */
	cleanup_free char *all = cJSON_PrintUnformatted(f);

	cr_assert(got_outcome && !strcmp(got_outcome, outcome), "%s: outcome %s, want %s: %s",
		  what, got_outcome ? got_outcome : "(none)", outcome, all);
	cr_assert(got_class && !strcmp(got_class, fault_class), "%s: fault_class %s, want %s: %s",
		  what, got_class ? got_class : "(none)", fault_class, all);
	if (!kernel_prefix)
		cr_assert_null(kernel, "%s: names kernel %s without evidence", what, kernel);
	else
		cr_assert(kernel && !strncmp(kernel, kernel_prefix, strlen(kernel_prefix)),
			  "%s: kernel %s, want %s...", what, kernel ? kernel : "(none)",
			  kernel_prefix);
}

static const char *tool_path(void)
{
	const char *bin = getenv("HRR_BIN");

	return bin && *bin ? bin : "build/hrr-docker-replay";
}

static void exec_tool(const char *const *argv, const char *const *extra_env)
{
	struct strvec args = STRVEC_INIT;

	for (const char *const *e = extra_env; e && *e; e++)
		putenv((char *)*e);
	strvec_push(&args, tool_path());
	strvec_pushv(&args, argv);
	execv(tool_path(), args.v);
	fprintf(stderr, "exec %s: %s\n", tool_path(), strerror(errno));
	_exit(127);
}

pid_t tool_spawn(const char *const *argv, const char *const *extra_env, const char *dir)
{
	pid_t pid = fork();

	if (pid < 0)
		cr_assert_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		char out[PATH_MAX], err[PATH_MAX];
		int fo, fe, fn;

		snprintf(out, sizeof(out), "%s/stdout", dir);
		snprintf(err, sizeof(err), "%s/stderr", dir);
		fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		fn = open("/dev/null", O_RDONLY);
		dup2(fn, 0);
		dup2(fo, 1);
		dup2(fe, 2);
		setpgid(0, 0);
		exec_tool(argv, extra_env);
	}
	return pid;
}

int tool_wait(pid_t pid, double timeout_s)
{
	double deadline = now_s() + timeout_s;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (now_s() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			cr_assert_fail("the tool did not finish within %.0fs", timeout_s);
		}
		usleep(20000);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *last_run_folder(const char *err)
{
	const char *p = err, *last = NULL;

	while ((p = strstr(p, "run folder: "))) {
		last = p + strlen("run folder: ");
		p = last;
	}
	return last ? xstrndup(last, strcspn(last, "\n")) : NULL;
}

void tool_run(struct tool_run *r, const char *const *argv, const char *const *extra_env)
{
	tool_run_within(r, argv, extra_env, 300);
}

void tool_run_within(struct tool_run *r, const char *const *argv, const char *const *extra_env,
		     double timeout_s)
{
	char dir[] = "/tmp/hrr-tool-XXXXXX";
	char path[PATH_MAX];
	double t0 = now_s();
	pid_t pid;

	memset(r, 0, sizeof(*r));
	strbuf_init(&r->out, 0);
	strbuf_init(&r->err, 0);
	if (!mkdtemp(dir))
		cr_assert_fail("mkdtemp");
	pid = tool_spawn(argv, extra_env, dir);
	r->status = tool_wait(pid, timeout_s);
	r->seconds = now_s() - t0;
	snprintf(path, sizeof(path), "%s/stdout", dir);
	read_text(path, &r->out);
	unlink(path);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	read_text(path, &r->err);
	unlink(path);
	rmdir(dir);
	r->run_dir = last_run_folder(r->err.buf);
}

void tool_run_release(struct tool_run *r)
{
	strbuf_release(&r->out);
	strbuf_release(&r->err);
	free(r->run_dir);
}

bool read_text(const char *path, struct strbuf *sb)
{
	cleanup_fclose FILE *f = fopen(path, "r");
	char buf[65536];
	size_t n;

	if (!f)
		return false;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(sb, buf, n);
	return true;
}

cJSON *read_json(const char *run_dir, const char *name)
{
	cleanup_free char *path = xasprintf("%s/%s", run_dir, name);
	cleanup_strbuf struct strbuf sb = STRBUF_INIT;

	if (!read_text(path, &sb))
		return NULL;
	return cJSON_Parse(sb.buf);
}

bool file_exists(const char *dir, const char *name)
{
	cleanup_free char *path = xasprintf("%s/%s", dir, name);

	return access(path, F_OK) == 0;
}

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t tree_hash_at(uint64_t h, const char *path)
{
	struct stat st;
	struct dirent **names;
	int n;

	if (lstat(path, &st) < 0)
		return fnv(h, "missing", 7);
	h = fnv(h, &st.st_mode, sizeof(st.st_mode));
	h = fnv(h, &st.st_size, sizeof(st.st_size));
	h = fnv(h, &st.st_mtim, sizeof(st.st_mtim));
	if (S_ISREG(st.st_mode)) {
		cleanup_strbuf struct strbuf sb = STRBUF_INIT;

		read_text(path, &sb);
		return fnv(h, sb.buf, sb.len);
	}
	if (!S_ISDIR(st.st_mode))
		return h;
	n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char child[PATH_MAX];

		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
			h = fnv(h, names[i]->d_name, strlen(names[i]->d_name));
			snprintf(child, sizeof(child), "%s/%s", path, names[i]->d_name);
			h = tree_hash_at(h, child);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return h;
}

uint64_t tree_hash(const char *dir)
{
	return tree_hash_at(1469598103934665603ULL, dir);
}

/* The run ids of the run folders under workdir. */
static void run_ids_under(const char *workdir, struct strvec *ids)
{
	DIR *d = opendir(workdir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 8 && de->d_name[len - 7] == '-' && strncmp(de->d_name, "pid-", 4) == 0)
			strvec_push(ids, de->d_name + len - 6);
	}
	if (d)
		closedir(d);
}

/* The IDs of the containers of the runs under workdir. */
static void list_tool_containers(const char *workdir, struct strvec *mine)
{
	struct engine *e = NULL;
	struct error err;
	struct engine_containers list;
	cleanup_strvec struct strvec ids = STRVEC_INIT;

	run_ids_under(workdir, &ids);
	if (engine_open(&e, NULL, &err) < 0)
		cr_assert_fail("engine: %s", err.msg);
	if (engine_container_list(e, "hrr-docker-replay.run", &list, &err) < 0)
		cr_assert_fail("list: %s", err.msg);
	engine_close(e);
	for (size_t c = 0; c < list.n; c++) {
		const char *run = engine_labels_get(&list.v[c].labels, "hrr-docker-replay.run");

		for (size_t i = 0; run && i < ids.n; i++)
			if (!strcmp(run, ids.v[i]))
				strvec_push(mine, list.v[c].id);
	}
	engine_containers_release(&list);
}

int count_tool_containers(const char *workdir)
{
	cleanup_strvec struct strvec list = STRVEC_INIT;

	list_tool_containers(workdir, &list);
	return (int)list.n;
}

void remove_tool_containers(const char *workdir)
{
	cleanup_strvec struct strvec list = STRVEC_INIT;
	struct engine *e = NULL;
	struct error err;

	list_tool_containers(workdir, &list);
	if (engine_open(&e, NULL, &err) < 0)
		return;
	for (size_t i = 0; i < list.n; i++)
		engine_container_remove(e, list.v[i], true, &err);
	engine_close(e);
}

char *wait_for_tool_container(const char *workdir, double timeout_s)
{
	double deadline = now_s() + timeout_s;

	while (now_s() < deadline) {
		cleanup_strvec struct strvec list = STRVEC_INIT;

		list_tool_containers(workdir, &list);
		if (list.n)
			return xstrdup(list.v[0]);
		usleep(50000);
	}
	return NULL;
}

bool wait_for_text(const char *path, const char *text, double timeout_s)
{
	double deadline = now_s() + timeout_s;

	while (now_s() < deadline) {
		cleanup_strbuf struct strbuf sb = STRBUF_INIT;

		if (read_text(path, &sb) && strstr(sb.buf, text))
			return true;
		usleep(20000);
	}
	return false;
}

bool wait_for_file(const char *path, double timeout_s)
{
	double deadline = now_s() + timeout_s;
	struct stat st;

	while (now_s() < deadline) {
		if (stat(path, &st) == 0 && st.st_size > 0)
			return true;
		usleep(50000);
	}
	return false;
}

char *create_probe_like(struct engine *e)
{
	struct container_spec s;
	struct error err;
	char *owner = owner_label_self();
	char *id = NULL;

	container_spec_init(&s);
	s.image = xstrdup(SIM_IMAGE);
	strvec_push(&s.entrypoint, "/nonexistent-hrr-probe");
	strvec_push(&s.labels, "hrr-docker-replay.probe=1");
	strvec_pushf(&s.labels, "%s=%s", LABEL_OWNER, owner);
	cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), 0, "%s", err.msg);
	container_spec_release(&s);
	free(owner);
	return id;
}

pid_t dead_pid(unsigned long long *start)
{
	pid_t child = fork();

	cr_assert_geq(child, 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	*start = process_start_ticks(child);
	kill(child, SIGKILL);
	cr_assert_eq(waitpid(child, NULL, 0), child);
	return child;
}

int tool_run_on_pty(const char *const *argv, const char *prompt, const char *answer,
		    const char *stdout_path, struct strbuf *screen)
{
	bool answered = false;
	int master, status;
	pid_t pid;

	pid = forkpty(&master, NULL, NULL, NULL);
	cr_assert_geq(pid, 0, "forkpty: %s", strerror(errno));
	if (pid == 0) {
		struct strvec v = STRVEC_INIT;

		if (stdout_path) {
			int fd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0)
				_exit(126);
		}
		strvec_push(&v, tool_path());
		strvec_pushv(&v, argv);
		execv(tool_path(), v.v);
		_exit(127);
	}
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		char buf[4096];
		ssize_t n;

		if (poll(&p, 1, 60000) <= 0)
			break;
		n = read(master, buf, sizeof(buf));
		if (n <= 0)
			break; /* EIO once the child has exited */
		strbuf_add(screen, buf, (size_t)n);
		if (!answered && strstr(screen->buf, prompt)) {
			cr_assert_eq(write(master, answer, strlen(answer)), (ssize_t)strlen(answer));
			answered = true;
		}
	}
	waitpid(pid, &status, 0);
	close(master);
	cr_assert(answered, "no prompt on the terminal:\n%s", screen->buf);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void make_mismatch_archive(char *out, size_t len)
{
	cleanup_free char *src = fixture_pid_dir("pass");
	char cmd[8192];

	snprintf(out, len, "%s/capture.hrr/pid-4242", tenv.root);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/capture.hrr && cp -a %s %s && "
		 "sed -i 's/\"hip_runtime_version\": \"7.13.0\"/\"hip_runtime_version\": \"7.15.26291\"/' %s/manifest.json && "
		 "grep -q 7.15.26291 %s/manifest.json",
		 tenv.root, src, out, out, out);
	cr_assert_eq(system(cmd), 0, "could not prepare the mismatch archive");
}

bool json_has_note(const cJSON *o, const char *part)
{
	const cJSON *n;

	cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(o, "notes"))
		if (cJSON_IsString(n) && strstr(n->valuestring, part))
			return true;
	return false;
}

void chromium_open(const char *page, const char *dom, const char *png, const char *log)
{
	cleanup_free char *cmd = xasprintf(
		"timeout 120 chromium --headless --no-sandbox --disable-gpu "
		"--disable-background-networking --disable-component-update --disable-sync "
		"--no-first-run --user-data-dir=%s/chromium --window-size=1280,900 "
		"--enable-logging=stderr --v=0 %s%s 'file://%s' >'%s' 2>'%s'",
		tenv.root, png ? "--screenshot=" : "--dump-dom", png ? png : "", page,
		dom ? dom : "/dev/null", log ? log : "/dev/null");

	cr_assert_eq(system(cmd), 0, "%s", cmd);
}
