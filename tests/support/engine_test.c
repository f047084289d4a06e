#include "tests/support/engine_test.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "common/xalloc.h"
#include "tests/support/scratch.h"
#include "docker/internal.h"

void et_write(const char *path, const char *content, unsigned mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t len = strlen(content);

	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, content, len), (ssize_t)len, "write %s", path);
	cr_assert_eq(fchmod(fd, mode), 0);
	close(fd);
}

cJSON *et_decode_auth(const char *header)
{
	struct strbuf dec = STRBUF_INIT;
	struct error err;
	cJSON *j;

	cr_assert_not_null(header);
	cr_assert_null(strpbrk(header, "+/"), "X-Registry-Auth must be base64url: %s", header);
	cr_assert_eq(strlen(header) % 4, 0, "X-Registry-Auth keeps its padding: %s", header);
	cr_assert_eq(engine_base64_decode(header, strlen(header), &dec, &err), 0, "%s", err.msg);
	j = cJSON_ParseWithLength(dec.buf, dec.len);
	cr_assert_not_null(j, "not JSON: %s", dec.buf);
	strbuf_release(&dec);
	return j;
}

int et_sh(const char *fmt, ...)
{
	va_list ap;
	struct strbuf cmd = STRBUF_INIT;
	int st;

	/* Keep the test's own stdout clean for Criterion's report. */
	strbuf_addstr(&cmd, "{ ");
	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	strbuf_addstr(&cmd, "\n} 1>&2");
	fflush(NULL);
	st = system(cmd.buf);
	strbuf_release(&cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

long long et_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct engine *et_engine(void)
{
	struct engine *e = NULL;
	struct error err;

	cr_assert_eq(engine_open(&e, NULL, &err), 0, "engine_open: %s", err.msg);
	return e;
}

const char *et_label(void)
{
	static char label[96];

	snprintf(label, sizeof(label), "%s=engine-%ld", ENGINE_TEST_LABEL_KEY, (long)getpid());
	return label;
}

void et_spec(struct container_spec *s, const char *script)
{
	container_spec_init(s);
	s->image = xstrdup(ENGINE_TEST_IMAGE);
	strvec_push(&s->entrypoint, "/bin/sh");
	strvec_push(&s->cmd, "-c");
	strvec_push(&s->cmd, script);
	strvec_push(&s->labels, et_label());
	s->network_mode = xstrdup("none");
}

char *et_create(struct engine *e, const char *script)
{
	struct container_spec s;
	struct error err;
	char *id = NULL;

	et_spec(&s, script);
	cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), 0, "create: %s", err.msg);
	container_spec_release(&s);
	return id;
}

void et_ensure_image(void)
{
	struct engine *e = et_engine();
	struct engine_image_info img;
	struct error err;
	int rc = engine_image_inspect(e, ENGINE_TEST_IMAGE, &img, &err);

	engine_image_info_release(&img);
	engine_close(e);
	if (rc == 0)
		return;
	cr_assert_eq(err.kind, ERR_NOT_FOUND, "inspect %s: %s", ENGINE_TEST_IMAGE, err.msg);
	/* The stand-in for `make images`: busybox-static as a FROM-scratch
	 * image. */
	cr_assert_eq(et_sh("set -e; d=$(mktemp -d); mkdir -p $d/bin; "
			   "cp /bin/busybox $d/bin/busybox; "
			   "for a in sh echo cat sleep ls ln true false kill; do ln -sf busybox $d/bin/$a; done; "
			   "tar -C $d -c . | docker import -q - %s >/dev/null; rm -rf $d",
			   ENGINE_TEST_IMAGE),
		     0, "could not import a stand-in %s", ENGINE_TEST_IMAGE);
}

int et_cleanup(void)
{
	struct engine *e = NULL;
	struct engine_containers list = { 0 };
	struct error err;
	int n = 0;

	if (engine_open(&e, NULL, &err) < 0)
		return 0;
	if (engine_container_list(e, et_label(), &list, &err) == 0)
		for (size_t i = 0; i < list.n; i++)
			if (engine_container_remove(e, list.v[i].id, true, &err) == 0)
				n++;
	engine_containers_release(&list);
	engine_close(e);
	return n;
}

void et_cleanup_stale(void)
{
	struct engine *e = NULL;
	struct engine_containers list = { 0 };
	struct error err;

	if (engine_open(&e, NULL, &err) < 0)
		return;
	if (engine_container_list(e, ENGINE_TEST_LABEL_KEY, &list, &err) == 0) {
		for (size_t i = 0; i < list.n; i++) {
			const char *v = engine_labels_get(&list.v[i].labels, ENGINE_TEST_LABEL_KEY);
			long pid;

			if (!v || sscanf(v, "engine-%ld", &pid) != 1)
				continue;
			if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
				continue;
			engine_container_remove(e, list.v[i].id, true, &err);
		}
	}
	engine_containers_release(&list);
	engine_close(e);
}

void et_suite_init(void)
{
	et_ensure_image();
	et_cleanup_stale();
}

void et_suite_fini(void)
{
	et_cleanup();
}

int et_run_stream(struct engine_stream *s, struct error *err)
{
	struct engine_loop *l = NULL;
	long long deadline = et_now_ms() + 10000;
	int rc;

	cr_assert_eq(engine_loop_new(&l, err), 0);
	cr_assert_eq(engine_loop_add(l, s, err), 0, "%s", err->msg);
	while (!engine_stream_done(s)) {
		cr_assert_lt(et_now_ms(), deadline, "stream did not finish");
		cr_assert_eq(engine_loop_poll(l, 200, -1, err), 0, "%s", err->msg);
	}
	rc = engine_stream_result(s, err);
	engine_loop_free(l);
	return rc;
}

int et_registry_front(const char *const *args, pid_t *pid)
{
	int fds[2];
	char line[64] = "";
	int port = 0;
	FILE *f;

	cr_assert_eq(pipe(fds), 0);
	*pid = fork();
	cr_assert_geq(*pid, 0);
	if (*pid == 0) {
		const char *argv[24] = { "python3", NULL, "--upstream", ENGINE_TEST_REGISTRY };
		size_t n = 4;
		char *script = xasprintf("%s/tests/token-registry.py", test_source_root());

		argv[1] = script;
		for (size_t i = 0; args && args[i] && n < 23; i++)
			argv[n++] = args[i];
		argv[n] = NULL;
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		execvp("python3", (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	cr_assert_not_null(fgets(line, sizeof(line), f), "token-registry.py said nothing");
	fclose(f);
	cr_assert_eq(sscanf(line, "listening %d", &port), 1, "%s", line);
	return port;
}
