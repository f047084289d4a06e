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
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/containers/ours.h"
#include "docker/engine.h"
#include "orchestrator/site/site_pages.h"
#include "tests/support/run_support.h"
#include "tests/support/scratch.h"

#define N_GPUS 4

static struct tenv_sweep sw;
static char *const sysfs4 = sw.sysfs4, *const dbpath = sw.dbpath,
	    *const library = sw.library;
static const char **const extra_env = sw.env;

static void sweep_init(void)
{
	tenv_init_sweep(&sw);
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
		char name[32];

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
	{
		cleanup_free char *folder = folder_of(s);
		cleanup_free char *junit = xasprintf("%s/junit.xml", folder);
		struct strbuf x = STRBUF_INIT;

		cr_assert(read_text(junit, &x));
		cr_assert(strstr(x.buf, "attempt 1: MAF"), "the failed attempt is in system-out");
		cr_assert_null(strstr(x.buf, "<failure"), "flaky is a pass");
		strbuf_release(&x);
	}
	(void)r;
}

static char *only_sweep_folder(void)
{
	cleanup_free char *sweeps = xasprintf("%s/sweeps", tenv.workdir);
	DIR *d = NULL;
	struct dirent *e;
	char *found = NULL;

	for (int i = 0; i < 300 && !found; i++) {
		if (!d)
			usleep(50000);
		d = opendir(sweeps);
		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.')
				found = xasprintf("%s/%s", sweeps, e->d_name);
		if (d)
			closedir(d);
		d = NULL;
	}
	cr_assert_not_null(found, "no sweep folder under %s", sweeps);
	return found;
}

static size_t count_lines(const char *path, const char *needle)
{
	struct strbuf t = STRBUF_INIT;
	size_t n = 0;

	if (read_text(path, &t))
		for (const char *p = t.buf; (p = strstr(p, needle)); p++)
			n++;
	strbuf_release(&t);
	return n;
}

Test(sweep, kill_9_then_resume_finishes_each_case_once)
{
	cleanup_free char *folder = NULL, *results = NULL, *runs = NULL;
	struct tool_run r;
	char name[16];
	pid_t pid;

	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "c%02d", i);
		add_case(name, "slow", "scenario=slow\nseconds=2\ninterval=0.5\n");
	}
	const char *argv[] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
			       "--sysfs-root", sysfs4, "--db", dbpath, "--image", SIM_IMAGE,
			       "--archive", library, "--label", "killed", NULL };

	pid = tool_spawn(argv, extra_env, tenv.root);
	folder = only_sweep_folder();
	results = xasprintf("%s/results.jsonl", folder);
	cr_assert(wait_for_text(results, "\"state\"", 120), "a first case finished");
	kill(pid, SIGKILL);
	tool_wait(pid, 30);
	cr_assert_lt(count_lines(results, "\"case\""), 12, "killed mid-way");

	const char *resume[] = { "--resume", folder, "--format", "json", NULL };

	sweep_run(&r, resume);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	for (int i = 0; i < 12; i++) {
		cleanup_free char *needle = NULL;

		snprintf(name, sizeof(name), "c%02d", i);
		needle = xasprintf("\"case\":\"library/%s/capture.hrr/pid-4242\"", name);
		cr_assert_eq(count_lines(results, needle), 1, "%s has exactly one result", name);
	}
	{
		cleanup_cjson cJSON *s = summary_of(&r);

		cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(s, "state")), "finished");
		cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "counts"), "new")->valueint, 12);
	}
	runs = xasprintf("%s/runs", folder);
	cr_assert_eq(count_tool_containers(runs), 0, "no container left");
	tool_run_release(&r);
}

Test(sweep, two_sweeps_and_a_run_never_share_a_gpu)
{
	char name[16];
	pid_t a, b;
	struct tool_run run;
	struct span spans[64];
	size_t n = 0;
	cleanup_free char *dir_a = xasprintf("%s/a", tenv.root), *dir_b = xasprintf("%s/b", tenv.root);
	cleanup_free char *pid_dir = NULL;

	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "c%02d", i);
		add_case(name, "slow", "scenario=slow\nseconds=1\ninterval=0.5\n");
	}
	mkdir(dir_a, 0755);
	mkdir(dir_b, 0755);
	const char *argv_a[] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				 "--sysfs-root", sysfs4, "--db", dbpath, "--image", SIM_IMAGE,
				 "--archive", library, "--label", "a", NULL };
	const char *argv_b[] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				 "--sysfs-root", sysfs4, "--db", dbpath, "--image", SIM_IMAGE,
				 "--archive", library, "--label", "b", NULL };

	a = tool_spawn(argv_a, extra_env, dir_a);
	b = tool_spawn(argv_b, extra_env, dir_b);
	pid_dir = xasprintf("%s/c00/capture.hrr/pid-4242", library);
	const char *argv_run[] = { "run", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				   "--sysfs-root", sysfs4, "--image", SIM_IMAGE, "--archive", pid_dir,
				   "-q", NULL };

	tool_run(&run, argv_run, extra_env);
	cr_assert_eq(run.status, 0, "%s", run.err.buf);
	cr_assert_eq(tool_wait(a, 200), 0);
	cr_assert_eq(tool_wait(b, 200), 0);
	collect_spans(tenv.workdir, spans, &n, 64);
	cr_assert_eq(n, 13, "6 + 6 sweep replays and one run");
	assert_no_shared_gpu(spans, n);
	tool_run_release(&run);
}

Test(sweep, junit_survives_nasty_kernel_names)
{
	struct tool_run r;
	cleanup_cjson cJSON *s = NULL;
	cleanup_free char *junit = NULL, *folder = NULL, *py = NULL;
	/* <, >, &, an ESC colour sequence, a control character and a UTF-8
	 * sequence cut in half. */
	static const char nasty[] = "scenario=maf\nkernel=void k<float, 4>(T&) \x1b[31mred\x1b[0m "
				    "\x01 cut\xe2\x82\n";

	add_case("nasty", "maf", nasty);
	add_case("plain", "pass", NULL);
	const char *args[] = { "--image", SIM_IMAGE, "--archive", library, "--label", "nasty",
			       "--format", "json", NULL };

	sweep_run(&r, args);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	s = summary_of(&r);
	folder = folder_of(s);
	junit = xasprintf("%s/junit.xml", folder);
	cr_assert_eq(run_shell("xmllint --noout '%s'", junit), 0, "well-formed XML");
	py = xasprintf("/usr/bin/python3 -c \"import sys\nfrom junitparser import JUnitXml, Failure\n"
		       "x = JUnitXml.fromfile(sys.argv[1])\n"
		       "f = [r for s in x for c in s for r in c.result if isinstance(r, Failure)]\n"
		       "assert len(f) == 1, f\n"
		       "m = f[0].message\n"
		       "assert 'k<float, 4>(T&)' in m, m\n"
		       "assert '\\x1b' not in m and '\\x01' not in m, repr(m)\n\" '%s'", junit);
	cr_assert_eq(system(py), 0, "a real JUnit reader takes it");
	tool_run_release(&r);
}

Test(sweep, gpu_wait_gives_up_with_75)
{
	struct tool_run r;
	cleanup_free char *slow = NULL, *pass = NULL, *lock = NULL;
	pid_t holder;

	add_case("slow", "slow", "scenario=slow\nseconds=8\ninterval=0.5\n");
	add_case("pass", "pass", NULL);
	slow = xasprintf("%s/slow/capture.hrr/pid-4242", library);
	pass = xasprintf("%s/pass/capture.hrr/pid-4242", library);
	const char *argv_hold[] = { "run", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				    "--sysfs-root", sysfs4, "--image", SIM_IMAGE, "--archive", slow,
				    "--gpu", "0", "-q", NULL };

	holder = tool_spawn(argv_hold, extra_env, tenv.root);
	{
		char *holder_id = wait_for_tool_container(tenv.workdir, 60);

		cr_assert_not_null(holder_id, "the holder runs");
		free(holder_id);
	}
	const char *argv[] = { "run", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
			       "--sysfs-root", sysfs4, "--image", SIM_IMAGE, "--archive", pass,
			       "--gpu", "0", "--gpu-wait", "1", "-q", NULL };

	tool_run(&r, argv, extra_env);
	cr_assert_eq(r.status, 75, "busy past --gpu-wait: %s", r.err.buf);
	cr_assert(strstr(r.err.buf, "busy"), "%s", r.err.buf);
	/* Without --gpu the run takes the lowest free GPU instead. */
	const char *argv_auto[] = { "run", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				    "--sysfs-root", sysfs4, "--image", SIM_IMAGE, "--archive", pass,
				    "--gpu-wait", "0", "-q", "--format", "json", NULL };
	tool_run_release(&r);
	tool_run(&r, argv_auto, extra_env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert_eq(tool_wait(holder, 60), 0);
	tool_run_release(&r);
}

Test(sweep, bad_plans_stop_before_anything_starts)
{
	struct tool_run r;
	cleanup_free char *plan = xasprintf("%s/plan.json", tenv.root);
	cleanup_free char *plan2 = xasprintf("%s/plan2.json", tenv.root);
	struct error err;
	static const char not_json[] = "{\"cases\": [";
	cleanup_free char *missing = xasprintf("{\"cases\": [{\"archive\": \"%s/nope\", \"image\": \"x\"}]}",
					       tenv.root);

	cr_assert_eq(fs_write_atomic(plan, not_json, strlen(not_json), 0644, &err), 0);
	cr_assert_eq(fs_write_atomic(plan2, missing, strlen(missing), 0644, &err), 0);
	const char *a1[] = { "--plan", plan, NULL };
	const char *a2[] = { "--plan", plan2, NULL };

	sweep_run(&r, a1);
	cr_assert_eq(r.status, 64);
	cr_assert(strstr(r.err.buf, "not JSON"), "%s", r.err.buf);
	tool_run_release(&r);
	sweep_run(&r, a2);
	cr_assert_eq(r.status, 64);
	cr_assert(strstr(r.err.buf, "nope"), "%s", r.err.buf);
	tool_run_release(&r);
	/* One library given twice: no parent directory tells them apart, so it
	 * is refused, both arguments named. */
	add_case("x/lib/c", "pass", NULL);
	cleanup_free char *lx = xasprintf("%s/x/lib", library), *lx2 = xasprintf("%s/x/lib/", library);
	const char *a3[] = { "--image", SIM_IMAGE, "--archive", lx, "--archive", lx2, NULL };

	sweep_run(&r, a3);
	cr_assert_eq(r.status, 64);
	cr_assert(strstr(r.err.buf, "--archive ") && strstr(r.err.buf, "/x/lib/)"), "%s", r.err.buf);
	cr_assert_eq(access(tenv.workdir, F_OK) == 0 ? count_tool_containers(tenv.workdir) : 0, 0);
	tool_run_release(&r);
	/* A GPU the host lacks: run --gpu's check, message and exit 4. */
	const char *a4[] = { "--image", SIM_IMAGE, "--archive", lx, "--gpus", "0,9", NULL };

	sweep_run(&r, a4);
	cr_assert_eq(r.status, 4, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "requested replay GPU 9 but replay environment only has"),
		  "%s", r.err.buf);
	tool_run_release(&r);
}

/* Every capture root is called capture.hrr: three of them as separate
 * arguments sweep without a plan file, each name prefixed with its parent. */
Test(sweep, three_capture_roots_sweep_with_distinct_names)
{
	struct tool_run r;
	const char *names[] = { "vllm", "rccl", "miopen" };
	const char *args[14] = { "--image", SIM_IMAGE, "--label", "roots", "--format", "json" };
	size_t n = 6;
	cleanup_strvec struct strvec roots = STRVEC_INIT;

	for (size_t i = 0; i < 3; i++) {
		add_case(names[i], "pass", NULL);
		strvec_pushf(&roots, "%s/%s/capture.hrr", library, names[i]);
	}
	for (size_t i = 0; i < 3; i++) {
		args[n++] = "--archive";
		args[n++] = roots.v[i];
	}
	args[n] = NULL;
	sweep_run(&r, args);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cJSON *s = summary_of(&r);

	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(s, "cases")), 3);
	for (size_t i = 0; i < 3; i++) {
		cleanup_free char *name = xasprintf("%s/capture.hrr/pid-4242", names[i]);

		const cJSON *c = case_in(s, name, SIM_IMAGE);

		cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(c, "outcome")), "PASS");
	}
	cJSON_Delete(s);
	tool_run_release(&r);
}

Test(sweep, history_shows_the_trend_and_prune_keeps_the_last)
{
	struct tool_run r;
	const char *args[] = { "--image", SIM_IMAGE, "--archive", library, "--label", "h", "-q", NULL };

	add_case("one", "pass", NULL);
	for (int i = 0; i < 3; i++) {
		sweep_run(&r, args);
		cr_assert_eq(r.status, 0, "%s", r.err.buf);
		tool_run_release(&r);
	}
	const char *h[] = { "history", "--db", dbpath, "--label", "h", "--format", "json", NULL };

	tool_run(&r, h, extra_env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	{
		cleanup_cjson cJSON *j = cJSON_Parse(r.out.buf);

		cr_assert_eq(cJSON_GetArraySize(j), 3, "%s", r.out.buf);
	}
	tool_run_release(&r);
	const char *p[] = { "history", "prune", "--keep", "1", "--db", dbpath, "--label", "h", NULL };

	tool_run(&r, p, extra_env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert(strstr(r.out.buf, "2 sweep(s) pruned"), "%s", r.out.buf);
	tool_run_release(&r);
	tool_run(&r, h, extra_env);
	{
		cleanup_cjson cJSON *j = cJSON_Parse(r.out.buf);

		cr_assert_eq(cJSON_GetArraySize(j), 1, "%s", r.out.buf);
	}
	tool_run_release(&r);
}

/* Replace library/<name> with another fixture. */
static void replace_case(const char *name, const char *fixture)
{
	cleanup_free char *cmd = xasprintf("rm -rf '%s/%s'", library, name);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	add_case(name, fixture, NULL);
}

/* A result recorded by an older classifier whose verdict changed is a tool
 * upgrade, `reclassified`; the same change under this classifier is
 * `changed`. The database is rebuilt from the edited results file. */
Test(sweep, an_older_classifier_verdict_that_changed_is_reclassified)
{
	cleanup_free char *folder = NULL, *results = NULL, *edit = NULL;
	cleanup_cjson cJSON *s1 = NULL, *s2 = NULL;
	struct tool_run a, b;

	add_case("old", "maf", NULL);
	add_case("cur", "maf", NULL);
	const char *args[] = { "--image", SIM_IMAGE, "--archive", library, "--label", "reclass",
			       "--format", "json", NULL };

	sweep_run(&a, args);
	cr_assert_eq(a.status, 0, "%s", a.err.buf);
	s1 = summary_of(&a);
	folder = folder_of(s1);
	results = xasprintf("%s/results.jsonl", folder);
	cr_assert_eq(count_lines(results, "\"classifier_version\":5"), 2,
		     "results record finding.json's classifier version");
	edit = xasprintf("sed -i '/library\\/old\\//s/\"classifier_version\":5/"
			 "\"classifier_version\":1/' '%s' && rm -f '%s'", results, dbpath);
	cr_assert_eq(system(edit), 0, "%s", edit);
	replace_case("old", "queue-abort");
	replace_case("cur", "queue-abort");
	sweep_run(&b, args);
	cr_assert_lt(b.status, 5, "%s", b.err.buf);
	s2 = summary_of(&b);
	cr_assert_str_eq(status_of(s2, "library/old/capture.hrr/pid-4242", SIM_IMAGE),
			 "reclassified");
	cr_assert_str_eq(status_of(s2, "library/cur/capture.hrr/pid-4242", SIM_IMAGE), "changed");
	tool_run_release(&a);
	tool_run_release(&b);
}

/* The case's run folder's diagnostics/agent.log exists. */
static bool agent_rerun(const cJSON *summary, const char *name)
{
	cleanup_free char *folder = folder_of(summary);
	const char *run_dir = cJSON_GetStringValue(
		cJSON_GetObjectItem(case_in(summary, name, SIM_DEBUG_IMAGE), "run_dir"));
	cleanup_free char *log = NULL;

	cr_assert_not_null(run_dir, "%s has a run folder", name);
	log = xasprintf("%s/%s/diagnostics/agent.log", folder, run_dir);
	return access(log, F_OK) == 0;
}

/* --diagnose in a sweep (docs/gpu-debug-tools.md): a failure the baseline
 * already saw is not rerun under the agent again; a new one is. */
Test(sweep, a_still_failing_case_is_not_diagnosed_again)
{
	cleanup_cjson cJSON *s1 = NULL, *s2 = NULL;
	struct tool_run a, b;

	add_case("known", "maf-unattributed-long", NULL);
	const char *args[] = { "--image", SIM_DEBUG_IMAGE, "--archive", library, "--label",
			       "diag", "--diagnose", "auto", "--format", "json", NULL };

	sweep_run(&a, args);
	cr_assert_eq(a.status, 0, "%s", a.err.buf);
	s1 = summary_of(&a);
	cr_assert(agent_rerun(s1, "library/known/capture.hrr/pid-4242"),
		  "a new failure is diagnosed");
	add_case("fresh", "maf-unattributed-long", NULL);
	sweep_run(&b, args);
	cr_assert_lt(b.status, 5, "%s", b.err.buf);
	s2 = summary_of(&b);
	cr_assert_str_eq(status_of(s2, "library/known/capture.hrr/pid-4242", SIM_DEBUG_IMAGE),
			 "still-failing");
	cr_assert_not(agent_rerun(s2, "library/known/capture.hrr/pid-4242"),
		      "a still-failing case is not diagnosed again");
	cr_assert(agent_rerun(s2, "library/fresh/capture.hrr/pid-4242"),
		  "a new failing case is diagnosed");
	tool_run_release(&a);
	tool_run_release(&b);
}

/* A stopped container of ours whose owner, on this host, is the dead
 * process `dead` with start ticks `start`, recorded as uid `uid`. */
static char *orphan_of(struct engine *e, pid_t dead, unsigned long long start, unsigned uid)
{
	struct container_spec s;
	struct error err;
	char host[256], *id = NULL;

	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	container_spec_init(&s);
	s.image = xstrdup(SIM_IMAGE);
	strvec_push(&s.entrypoint, "/bin/true");
	strvec_pushf(&s.labels, "%s=%s:%d:%llu:%u", LABEL_OWNER, host, (int)dead, start, uid);
	cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), 0, "%s", err.msg);
	container_spec_release(&s);
	return id;
}

/* Shared hosts: a sweep's resume removes the caller's own orphans only. */
Test(sweep, resume_leaves_another_users_orphan)
{
	cleanup_free char *folder = NULL, *mine = NULL, *theirs = NULL;
	struct engine *e = NULL;
	struct error err = { 0 };
	unsigned long long start;
	struct tool_run r;
	pid_t dead;

	add_case("one", "pass", NULL);
	const char *first[] = { "--image", SIM_IMAGE, "--archive", library, "--label", "shared",
				"--format", "json", NULL };

	sweep_run(&r, first);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	folder = only_sweep_folder();
	dead = dead_pid(&start);
	cr_assert_eq(engine_open(&e, NULL, &err), 0, "%s", err.msg);
	mine = orphan_of(e, dead, start, (unsigned)getuid());
	theirs = orphan_of(e, dead, start, (unsigned)getuid() + 1);

	const char *resume[] = { "--resume", folder, "--format", "json", NULL };

	sweep_run(&r, resume);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	cr_expect_neq(engine_container_inspect(e, mine, NULL, &err), 0,
		      "the caller's own orphan was removed");
	cr_expect_eq(engine_container_inspect(e, theirs, NULL, &err), 0,
		     "another user's orphan survived the resume");
	(void)engine_container_remove(e, mine, true, &err);
	(void)engine_container_remove(e, theirs, true, &err);
	engine_close(e);
}

Test(sweep, ctrl_c_stops_everything_keeps_results_and_resumes)
{
	cleanup_free char *folder = NULL, *results = NULL, *runs = NULL, *summary = NULL;
	struct tool_run st, r;
	char name[16];
	pid_t pid;
	size_t before;

	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "c%02d", i);
		add_case(name, "slow", "scenario=slow\nseconds=3\ninterval=0.5\n");
	}
	const char *argv[] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
			       "--sysfs-root", sysfs4, "--db", dbpath, "--image", SIM_IMAGE,
			       "--archive", library, "--label", "int", "--format", "json", NULL };

	pid = tool_spawn(argv, extra_env, tenv.root);
	folder = only_sweep_folder();
	results = xasprintf("%s/results.jsonl", folder);
	cr_assert(wait_for_text(results, "\"state\"", 120), "a first case finished");
	kill(pid, SIGINT);
	cr_assert_eq(tool_wait(pid, 60), 5, "an interrupted sweep exits 5");
	runs = xasprintf("%s/runs", folder);
	cr_assert_eq(count_tool_containers(runs), 0, "every replay was stopped and removed");
	summary = xasprintf("%s/summary.json", folder);
	cr_assert(wait_for_text(summary, "\"interrupted\"", 5), "the reports say interrupted");
	before = count_lines(results, "\"case\"");
	cr_assert_lt(before, 8);

	const char *status[] = { "sweep", "--workdir", tenv.workdir, "--status", folder, NULL };

	tool_run(&st, status, extra_env);
	cr_assert_eq(st.status, 0, "%s", st.err.buf);
	cr_assert(strstr(st.out.buf, "of 8 cases have a result"), "%s", st.out.buf);
	tool_run_release(&st);

	const char *resume[] = { "--resume", folder, "--format", "json", NULL };

	sweep_run(&r, resume);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert_eq(count_lines(results, "\"case\""), 8, "the rest ran, nothing twice");
	tool_run_release(&r);
}

Test(sweep, an_image_that_cannot_be_had_is_an_error_for_its_cases_only)
{
	struct tool_run r;
	cleanup_cjson cJSON *s = NULL;

	add_case("one", "pass", NULL);
	const char *args[] = { "--image", SIM_IMAGE, "--image", "hrr-no-such-image:nope",
			       "--pull", "never", "--archive", library, "--label", "noimg",
			       "--format", "json", NULL };

	sweep_run(&r, args);
	cr_assert_eq(r.status, 5, "an infrastructure error exits 5: %s", r.err.buf);
	s = summary_of(&r);
	cr_assert_str_eq(status_of(s, "library/one/capture.hrr/pid-4242", "hrr-no-such-image:nope"),
			 "error");
	cr_assert_str_eq(status_of(s, "library/one/capture.hrr/pid-4242", SIM_IMAGE), "new");
	tool_run_release(&r);
}

/* headless Chromium on a file:// page: its DOM after parsing into dom
 * (with --dump-dom) or a screenshot into png. */
static void chromium(const char *page, const char *dom, const char *png)
{
	chromium_open(page, dom, png, NULL);
}

static size_t count_in(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void page_dom(const char *dir, const char *page, struct strbuf *out)
{
	cleanup_free char *path = xasprintf("%s/%s", dir, page);
	cleanup_free char *dom = xasprintf("%s/dom-%s", tenv.root, page);

	chromium(path, dom, NULL);
	strbuf_reset(out);
	cr_assert(read_text(dom, out), "%s", dom);
	cr_assert_null(strstr(out->buf, "<script"), "%s runs no script", page);
	cr_assert_null(strstr(out->buf, "://"), "%s points nowhere off the site", page);
	cr_assert(strstr(out->buf, "script-src 'none'"), "%s has the strict CSP", page);
}

static void screenshot(const char *dir, const char *page, const char *name)
{
	cleanup_free char *path = xasprintf("%s/%s", dir, page);
	cleanup_free char *png = xasprintf("%s/build/%s", test_source_root(), name);
	struct stat st;

	chromium(path, NULL, png);
	cr_assert(stat(png, &st) == 0 && st.st_size > 1000, "no screenshot %s", png);
}

/* Three sweeps, case-3 regressing in the second: the site's index, grid
 * and case timeline opened in Chromium. */
Test(sweep, history_site_opens_in_chromium)
{
	struct tool_run r;
	const char *args[] = { "--image", SIM_IMAGE, "--archive", library, "--label", "site", "-q",
			       NULL };
	cleanup_free char *site = xasprintf("%s/site", tenv.root);
	const char *gen[] = { "history", "site", site, "--db", dbpath, NULL };
	cleanup_strbuf struct strbuf dom = STRBUF_INIT, name = STRBUF_INIT;

	for (int i = 0; i < 6; i++) {
		char n[24];

		snprintf(n, sizeof(n), "case-%d", i);
		add_case(n, "pass", NULL);
	}
	for (int k = 0; k < 3; k++) {
		if (k == 1)
			set_scenario("case-3", "scenario=maf\n");
		sweep_run(&r, args);
		cr_assert_eq(r.status, k == 1 ? 1 : 0, "sweep %d\n%s", k, r.err.buf);
		tool_run_release(&r);
	}
	tool_run(&r, gen, extra_env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert(strstr(r.out.buf, "1 label(s), 6 case(s), 18 result(s)"), "%s", r.out.buf);
	tool_run_release(&r);

	page_dom(site, "index.html", &dom);
	cr_assert_eq(count_in(dom.buf, "<tr class=\"label\""), 1, "%s", dom.buf);
	site_grid_page_name("site", 0, 0, &name);
	cr_assert(strstr(dom.buf, name.buf), "the index links the grid %s", name.buf);
	screenshot(site, "index.html", "history-site-index.png");

	page_dom(site, name.buf, &dom);
	cr_assert_eq(count_in(dom.buf, "<td class=\"c "), 18, "6 cases x 3 sweeps");
	cr_assert_eq(count_in(dom.buf, " s-regressed"), 1, "the regression is marked");
	cr_assert_eq(count_in(dom.buf, " first\""), 1, "so is the first failure");
	cr_assert_eq(count_in(dom.buf, "<a href=\"../"), 3, "each sweep's report, relatively");
	screenshot(site, name.buf, "history-site-grid.png");

	strbuf_reset(&name);
	site_case_page_name("site", "library/case-3/capture.hrr/pid-4242", &name);
	page_dom(site, name.buf, &dom);
	cr_assert_eq(count_in(dom.buf, "<circle class=\"pt"), 3, "a point per sweep");
	cr_assert_eq(count_in(dom.buf, "<circle class=\"pt alert\""), 2, "both MAFs are marked");
	cr_assert(strstr(dom.buf, "<polyline"), "the wall-time line");
	cr_assert(strstr(dom.buf, "id=\"first-failure\""), "where it first failed");
	cr_assert_eq(count_in(dom.buf, ">run folder</a>"), 3, "each run folder, while it exists");
	screenshot(site, name.buf, "history-site-case.png");

	/* case-3's fault has a page of its own, listed; it was first seen in
	 * the second sweep, not the last, so the index has none to show. */
	page_dom(site, "index.html", &dom);
	cr_assert(strstr(dom.buf, "Untriaged, first seen today</h2>"), "%s", strstr(dom.buf, "<body"));
	cr_assert(strstr(dom.buf, "<p>None: every signature"), "%s", dom.buf);
	page_dom(site, "signatures.html", &dom);
	cr_assert_eq(count_in(dom.buf, "<a href=\"sig-"), 1, "one signature: %s", dom.buf);
	{
		const char *at = strstr(dom.buf, "<a href=\"sig-") + strlen("<a href=\"");
		cleanup_free char *sig = xstrndup(at, strcspn(at, "\""));
		cleanup_free char *path = xasprintf("%s/%s", site, sig);
		cleanup_free char *log = xasprintf("%s/chromium-sig.log", tenv.root);
		cleanup_strbuf struct strbuf text = STRBUF_INIT;

		page_dom(site, sig, &dom);
		cr_assert(strstr(dom.buf, ">library/case-3/capture.hrr/pid-4242</a>"), "%s",
			  strstr(dom.buf, "<body"));
		cr_assert(strstr(dom.buf, "2 results in 2 sweeps"), "%s", strstr(dom.buf, "<body"));
		cr_assert(strstr(dom.buf, "A rule to paste"), "untriaged: %s", strstr(dom.buf, "<body"));
		chromium_open(path, NULL, NULL, log);
		cr_assert(read_text(log, &text), "%s", log);
		cr_assert_null(strstr(text.buf, ":CONSOLE"), "no console message: %s", text.buf);
		screenshot(site, sig, "history-site-signature.png");
	}

	/* Run again: nothing changed, nothing is rewritten; a file of the
	 * user's in DIR is left alone. */
	{
		cleanup_free char *mine = xasprintf("%s/notes.txt", site);
		struct error err;

		cr_assert_eq(fs_write_atomic(mine, "mine\n", 5, 0644, &err), 0, "%s", err.msg);
		tool_run(&r, gen, extra_env);
		cr_assert_eq(r.status, 0, "%s", r.err.buf);
		cr_assert(strstr(r.out.buf, " 0 removed"), "%s", r.out.buf);
		cr_assert(access(mine, F_OK) == 0, "notes.txt survives");
		tool_run_release(&r);
	}
}

/* --playback-arg and --replace-kernel reach every case from the sweep's
 * description (what a Slurm task and --resume read), the code object from
 * the sweep's own copy: the user's file may change after the sweep began. */
Test(sweep, playback_flags_and_kernel_replacements_reach_every_case)
{
	cleanup_free char *co = xasprintf("%s/gemm.hsaco", tenv.root);
	cleanup_free char *spec = xasprintf("_Z4gemmPf=%s", co);
	cleanup_free char *folder = NULL, *plan = NULL, *kernels = NULL, *run_json = NULL;
	cleanup_cjson cJSON *s = NULL, *run = NULL;
	struct strbuf text = STRBUF_INIT;
	struct tool_run r;
	const cJSON *mounts, *m, *cmd, *c;
	bool mounted = false, flag = false;

	scratch_code_object(co, "v1");
	add_case("placed", "placement-pass", NULL);
	const char *args[] = { "--image", SIM_IMAGE, "--archive", library, "--label", "flags",
			       "--playback-arg", "--no-placement", "--replace-kernel", spec,
			       "--format", "json", NULL };

	sweep_run(&r, args);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	s = summary_of(&r);
	folder = folder_of(s);
	plan = xasprintf("%s/plan.json", folder);
	cr_assert(read_text(plan, &text));
	{
		cleanup_cjson cJSON *p = cJSON_Parse(text.buf);
		const cJSON *ro = cJSON_GetObjectItem(p, "run_options");
		const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(ro, "replace_kernels"), 0);

		cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(
			cJSON_GetObjectItem(ro, "playback_args"), 0)), "--no-placement");
		cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(k, "name")), "_Z4gemmPf");
		cr_assert(!strncmp(cJSON_GetStringValue(cJSON_GetObjectItem(k, "digest")), "fnv1a64:", 8));
	}
	cr_assert_null(strstr(text.buf, co), "plan.json names the code object by its digest");
	strbuf_release(&text);
	kernels = xasprintf("%s/kernels", folder);
	run_json = xasprintf("%s/%s", folder, cJSON_GetStringValue(cJSON_GetObjectItem(
		case_in(s, "library/placed/capture.hrr/pid-4242", SIM_IMAGE), "run_dir")));
	run = read_json(run_json, "run.json");
	cr_assert_not_null(run);
	c = cJSON_GetObjectItem(cJSON_GetObjectItem(run, "container"), "spec");
	mounts = cJSON_GetObjectItem(cJSON_GetObjectItem(c, "HostConfig"), "Mounts");
	cJSON_ArrayForEach(m, mounts)
		mounted |= !strncmp(cJSON_GetStringValue(cJSON_GetObjectItem(m, "Source")), kernels,
				    strlen(kernels)) &&
			   cJSON_IsTrue(cJSON_GetObjectItem(m, "ReadOnly"));
	cr_assert(mounted, "the sweep folder's copy is mounted read-only");
	cmd = cJSON_GetObjectItem(c, "Cmd");
	cJSON_ArrayForEach(m, cmd)
		flag |= !strcmp(cJSON_GetStringValue(m), "--no-placement");
	cr_assert(flag, "the case's hrr-playback got --no-placement");
	{
		cleanup_free char *log = xasprintf("%s/replay.log", run_json);

		cr_assert(read_text(log, &text));
		cr_assert_null(strstr(text.buf, "Placement"), "--no-placement took effect");
		strbuf_release(&text);
	}
	/* The copy was changed behind the sweep's back: a resume refuses it. */
	{
		cleanup_free char *cmdline = xasprintf("for f in '%s'/*.hsaco; do echo x >> \"$f\"; done",
						       kernels);
		const char *resume[] = { "--resume", folder, NULL };
		struct tool_run r2;

		cr_assert_eq(system(cmdline), 0);
		sweep_run(&r2, resume);
		cr_assert_eq(r2.status, 5, "%s", r2.err.buf);
		cr_assert(strstr(r2.err.buf, "not the code object the sweep recorded"), "%s",
			  r2.err.buf);
		tool_run_release(&r2);
	}
	tool_run_release(&r);
}
