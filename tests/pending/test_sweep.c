/* `sweep`, `history` and GPU leases against the real engine and the
 * simulator image, on the four fake GPUs of tests/fixtures/sysfs/mi300x-4
 * (docs/sweep.md). Each test has its own lock directory, history database
 * and capture library, so tests never share a GPU lease with anyone. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"

#define N_GPUS 4

static char sysfs4[PATH_MAX + 64], lockdir[400], dbpath[400], library[400], lockenv[450];
static const char *extra_env[2];

static void sweep_init(void)
{
	char cwd[PATH_MAX], path[512];

	tenv_init();
	for (int m = 144; m <= 152; m += 8) {
		snprintf(path, sizeof(path), "%s/dri/renderD%d", tenv.devroot, m);
		if (mknod(path, S_IFCHR | 0666, makedev(226, m)) < 0)
			cr_assert_fail("mknod %s: %s", path, strerror(errno));
	}
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	snprintf(sysfs4, sizeof(sysfs4), "%s/tests/fixtures/sysfs/mi300x-4", cwd);
	snprintf(lockdir, sizeof(lockdir), "%s/locks", tenv.root);
	snprintf(dbpath, sizeof(dbpath), "%s/history.sqlite", tenv.root);
	snprintf(library, sizeof(library), "%s/library", tenv.root);
	snprintf(lockenv, sizeof(lockenv), "HRR_LOCK_DIR=%s", lockdir);
	extra_env[0] = lockenv;
	extra_env[1] = NULL;
}

static void sweep_fini(void)
{
	cleanup_free char *sweeps = xasprintf("%s/sweeps", tenv.workdir);
	DIR *d = opendir(sweeps);
	struct dirent *e;

	/* Run folders live under each sweep's runs/: count there. */
	while (d && (e = readdir(d))) {
		cleanup_free char *runs = xasprintf("%s/%s/runs", sweeps, e->d_name);

		if (e->d_name[0] != '.')
			cr_expect_eq(count_tool_containers(runs), 0, "a container of %s was left",
				     e->d_name);
	}
	if (d)
		closedir(d);
	tenv_fini();
}

TestSuite(sweep, .init = sweep_init, .fini = sweep_fini, .timeout = 300);

/* library/<name>/capture.hrr/pid-4242 from a fixture scenario, with its
 * sim-scenario replaced when scenario is not NULL. */
static void add_case(const char *name, const char *fixture, const char *scenario)
{
	cleanup_free char *src = fixture_root(fixture);
	cleanup_free char *dst = xasprintf("%s/%s", library, name);
	cleanup_free char *cmd = xasprintf("mkdir -p '%s' && cp -r '%s' '%s/'", dst, src, dst);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	if (scenario) {
		cleanup_free char *f = xasprintf("%s/capture.hrr/pid-4242/sim-scenario", dst);
		struct error err;

		cr_assert_eq(fs_write_atomic(f, scenario, strlen(scenario), 0644, &err), 0, "%s",
			     err.msg);
	}
}

static void set_scenario(const char *name, const char *scenario)
{
	cleanup_free char *f = xasprintf("%s/%s/capture.hrr/pid-4242/sim-scenario", library, name);
	struct error err;

	cr_assert_eq(fs_write_atomic(f, scenario, strlen(scenario), 0644, &err), 0, "%s", err.msg);
}

/* sweep with the test's GPUs, lock dir, database and workdir, plus args. */
static void sweep_run(struct tool_run *r, const char *const *args)
{
	const char *argv[64] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				 "--sysfs-root", sysfs4, "--db", dbpath, "--timeout", "120" };
	size_t n = 11;

	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	tool_run(r, argv, extra_env);
}

static cJSON *summary_of(const struct tool_run *r)
{
	cJSON *j = cJSON_Parse(r->out.buf);

	cr_assert_not_null(j, "stdout is not summary.json: %s\n%s", r->out.buf, r->err.buf);
	return j;
}

static const cJSON *case_in(const cJSON *summary, const char *name, const char *image)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(summary, "cases"))
		if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "case")), name) &&
		    !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "image")), image))
			return c;
	cr_assert_fail("no case %s @ %s", name, image);
	return NULL;
}

static const char *status_of(const cJSON *summary, const char *name, const char *image)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(case_in(summary, name, image), "status"));
}

static char *folder_of(const cJSON *summary)
{
	return xasprintf("%s/sweeps/%s", tenv.workdir,
			 cJSON_GetStringValue(cJSON_GetObjectItem(summary, "sweep")));
}

/* A second image name for the same simulator, so a sweep has two. */
static const char *second_image(void)
{
	static char name[128];
	cleanup_free char *cmd = NULL;

	snprintf(name, sizeof(name), "hrr-sim-b:%s", getenv("HRR_IMAGE_TAG") ? getenv("HRR_IMAGE_TAG") : "dev");
	cmd = xasprintf("docker tag %s %s", SIM_IMAGE, name);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return name;
}

static int run_shell(const char *fmt, const char *arg)
{
	cleanup_free char *cmd = xasprintf(fmt, arg, arg);

	return system(cmd);
}

/* ---- GPU exclusivity from the run folders ---- */

struct span {
	char node[300];
	double from, to;
	char who[300];
};

static double iso_s(const char *iso)
{
	struct tm tm;
	const char *rest;
	double frac = 0;

	memset(&tm, 0, sizeof(tm));
	rest = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	if (!rest)
		return -1;
	if (*rest == '.')
		frac = strtod(rest, NULL);
	return (double)timegm(&tm) + frac;
}

/* Every replay of every run folder under dir (recursively): which render
 * node it had, from when the unit started it to when its container ended. */
static void collect_spans(const char *dir, struct span *s, size_t *n, size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		cleanup_free char *sub = NULL;
		cleanup_cjson cJSON *run = NULL;
		const cJSON *dev;

		if (e->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", dir, e->d_name);
		run = read_json(sub, "run.json");
		if (!run) {
			struct stat st;

			if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
				collect_spans(sub, s, n, max);
			continue;
		}
		cJSON_ArrayForEach(dev, cJSON_GetObjectItem(run, "devices")) {
			const char *host = cJSON_GetStringValue(cJSON_GetObjectItem(dev, "host"));
			const cJSON *t = cJSON_GetObjectItem(run, "timings");

			if (!host || !strstr(host, "renderD") || *n == max)
				continue;
			snprintf(s[*n].node, sizeof(s[*n].node), "%s", host);
			snprintf(s[*n].who, sizeof(s[*n].who), "%s", sub);
			s[*n].from = iso_s(cJSON_GetStringValue(cJSON_GetObjectItem(run, "started")));
			s[*n].to = iso_s(cJSON_GetStringValue(
				cJSON_GetObjectItem(t, "container_finished_at")));
			cr_assert_gt(s[*n].from, 0, "%s: no start", sub);
			cr_assert_gt(s[*n].to, 0, "%s: no end", sub);
			(*n)++;
		}
	}
	if (d)
		closedir(d);
}

static void assert_no_shared_gpu(const struct span *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (!strcmp(s[i].node, s[j].node))
				cr_assert(s[i].to <= s[j].from || s[j].to <= s[i].from,
					  "%s held by two replays at once:\n  %s\n  %s", s[i].node,
					  s[i].who, s[j].who);
}

/* ---- the tests ---- */

Test(sweep, twelve_cases_two_images_then_regressed_and_fixed)
{
	struct tool_run a, b;
	const char *img2 = second_image();
	char name[32];
	cleanup_free char *f2 = NULL, *junit = NULL, *html = NULL, *dom = NULL;
	cleanup_cjson cJSON *s1 = NULL, *s2 = NULL;
	struct span spans[64];
	size_t n_spans = 0;

	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "case-%02d", i);
		add_case(name, i == 0 ? "maf" : "pass", NULL);
	}
	const char *args[] = { "--image", SIM_IMAGE, "--image", img2, "--archive", library,
			       "--label", "nightly", "--format", "json", NULL };

	sweep_run(&a, args);
	cr_assert_eq(a.status, 0, "first sweep: everything is new\n%s", a.err.buf);
	s1 = summary_of(&a);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(s1, "cases")), 24);
	cr_assert_str_eq(status_of(s1, "library/case-00/capture.hrr/pid-4242", img2), "new");

	set_scenario("case-01", "scenario=maf\n");
	set_scenario("case-00", "scenario=pass\n");
	sweep_run(&b, args);
	cr_assert_eq(b.status, 1, "a regression exits 1\n%s", b.err.buf);
	s2 = summary_of(&b);
	for (int k = 0; k < 2; k++) {
		const char *img = k ? img2 : SIM_IMAGE;

		cr_assert_str_eq(status_of(s2, "library/case-01/capture.hrr/pid-4242", img), "regressed");
		cr_assert_str_eq(status_of(s2, "library/case-00/capture.hrr/pid-4242", img), "fixed");
		cr_assert_str_eq(status_of(s2, "library/case-05/capture.hrr/pid-4242", img), "pass");
	}
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(s2, "counts"), "pass")->valueint, 20);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(s2, "baseline")),
			 cJSON_GetStringValue(cJSON_GetObjectItem(s1, "sweep")));

	/* JUnit: exactly that failure, once per image. */
	f2 = folder_of(s2);
	junit = xasprintf("%s/junit.xml", f2);
	cr_assert_eq(run_shell("xmllint --noout '%s'", junit), 0);
	cr_assert_eq(run_shell("test \"$(grep -c '<failure' '%s')\" = 2", junit), 0);
	cr_assert_eq(run_shell("grep -q 'type=\"regressed\"' '%s'", junit), 0);

	/* The report in a real browser: 12 x 2 cells, the regression marked. */
	html = xasprintf("%s/report.html", f2);
	dom = xasprintf("%s/dom.html", tenv.root);
	{
		cleanup_free char *cmd = xasprintf(
			"timeout 120 chromium --headless --no-sandbox --disable-gpu "
			"--disable-background-networking --disable-component-update --disable-sync "
			"--no-first-run --user-data-dir=%s/chromium --dump-dom 'file://%s' >'%s' "
			"2>/dev/null", tenv.root, html, dom);
		struct strbuf text = STRBUF_INIT;
		size_t cells = 0, marked = 0;

		cr_assert_eq(system(cmd), 0, "%s", cmd);
		cr_assert(read_text(dom, &text));
		for (const char *p = text.buf; (p = strstr(p, "class=\"cell ")); p++)
			cells++;
		for (const char *p = text.buf; (p = strstr(p, "s-regressed\"")); p++)
			marked++;
		cr_assert_eq(cells, 24, "the matrix has 12 x 2 cells");
		cr_assert_eq(marked, 2);
		cr_assert_null(strstr(text.buf, "http://"), "nothing points off the page");
		cr_assert_null(strstr(text.buf, "https://"));
		strbuf_release(&text);
	}
	collect_spans(f2, spans, &n_spans, 64);
	cr_assert_eq(n_spans, 24);
	assert_no_shared_gpu(spans, n_spans);
	tool_run_release(&a);
	tool_run_release(&b);
}

Test(sweep, fails_once_then_passes_is_flaky)
{
	struct tool_run r;
	cleanup_cjson cJSON *s = NULL;
	cleanup_free char *results = NULL;
	pid_t pid;
	int code;

	add_case("a-flaky", "maf", NULL);
	for (int i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "b-slow-%d", i);
		add_case(name, "slow", "scenario=slow\nseconds=2\ninterval=0.5\n");
	}
	const char *argv[] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
			       "--sysfs-root", sysfs4, "--db", dbpath, "--image", SIM_IMAGE,
			       "--archive", library, "--label", "flaky", "--jobs", "1",
			       "--retry-failed", "1", "--format", "json", NULL };

	pid = tool_spawn(argv, extra_env, tenv.root);
	/* The first attempt fails; the retry runs after the three others. */
	{
		DIR *d;
		struct dirent *e;
		cleanup_free char *sweeps = xasprintf("%s/sweeps", tenv.workdir);

		for (int i = 0; i < 200 && !results; i++) {
			usleep(100000);
			d = opendir(sweeps);
			while (d && (e = readdir(d)))
				if (e->d_name[0] != '.')
					results = xasprintf("%s/%s/results.jsonl", sweeps, e->d_name);
			if (d)
				closedir(d);
		}
		cr_assert_not_null(results);
	}
	cr_assert(wait_for_text(results, "\"outcome\":\"MAF\"", 60), "the first attempt failed");
	set_scenario("a-flaky", "scenario=pass\n");
	code = tool_wait(pid, 120);
	cr_assert_eq(code, 0, "flaky does not fail the sweep");
	{
		struct strbuf out = STRBUF_INIT;
		cleanup_free char *outf = xasprintf("%s/stdout", tenv.root);

		cr_assert(read_text(outf, &out));
		s = cJSON_Parse(out.buf);
		strbuf_release(&out);
	}
	cr_assert_not_null(s);
	cr_assert_str_eq(status_of(s, "library/a-flaky/capture.hrr/pid-4242", SIM_IMAGE), "flaky");
	cr_assert_eq(cJSON_GetObjectItem(case_in(s, "library/a-flaky/capture.hrr/pid-4242",
						 SIM_IMAGE), "attempts")->valueint, 2);
	(void)r;
}
