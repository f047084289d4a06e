/* `--perf N` (docs/perf.md) against the real engine and the simulator
 * image: the timing replays after a passing one, their samples in the
 * results lines, the GPU product they ran on, and bad input. The slower
 * image is the simulator image plus a slowdown file (images/sim/timing.c)
 * for the archives of one perf group. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/site/site_pages.h"
#include "orchestrator/site/site_perf.h"
#include "tests/support/run_support.h"
#include "tests/support/scratch.h"

static struct tenv_sweep sw;

static void perf_init(void)
{
	tenv_init_sweep(&sw);
}

TestSuite(perf, .init = perf_init, .fini = tenv_fini, .timeout = 1200);

/* library/<name>: the pass fixture, 40 ms of GPU time, in perf group grp. */
static void add_case(const char *name, const char *grp)
{
	cleanup_free char *src = fixture_root("pass");
	cleanup_free char *dst = xasprintf("%s/%s", sw.library, name);
	cleanup_free char *cmd = xasprintf("mkdir -p '%s' && cp -r '%s' '%s/'", dst, src, dst);
	cleanup_free char *f = xasprintf("%s/capture.hrr/pid-4242/sim-scenario", dst);
	cleanup_free char *text = xasprintf("scenario=pass\ngpu_ms=40\nperf_group=%s\n", grp);
	struct error err;

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_eq(fs_write_atomic(f, text, strlen(text), 0644, &err), 0, "%s", err.msg);
}

/* The simulator image with a slowdown file: 10% slower for group "hot". */
static const char *slower_image(void)
{
	static char name[128];
	cleanup_free char *cmd = NULL;

	snprintf(name, sizeof(name), "hrr-sim-slow:%s",
		 getenv("HRR_IMAGE_TAG") ? getenv("HRR_IMAGE_TAG") : "dev");
	cmd = xasprintf("printf 'FROM %s\\nRUN mkdir -p /etc/hrr-sim && echo \"1.10 hot\" "
			">/etc/hrr-sim/slowdown\\n' | DOCKER_BUILDKIT=0 docker build -q -t %s - "
			">/dev/null 2>&1", SIM_IMAGE, name);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return name;
}

static void sweep_run(struct tool_run *r, const char *const *args)
{
	const char *argv[64] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				 "--sysfs-root", sw.sysfs4, "--db", sw.dbpath, "--timeout", "120",
				 "--env", "HRR_SIM_JITTER=0.01" };
	size_t n = 13;

	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	/* 4 cases x 2 images x 6 replays: more than tool_run's 300 s on a busy host. */
	tool_run_within(r, argv, sw.env, 1100);
}

/* Every results line of the sweep whose summary is on r's stdout. */
static cJSON *results_of(const struct tool_run *r)
{
	cleanup_cjson cJSON *s = cJSON_Parse(r->out.buf);
	cJSON *all = cJSON_CreateArray();
	struct strbuf text = STRBUF_INIT;

	cr_assert_not_null(s, "stdout is not summary.json: %s\n%s", r->out.buf, r->err.buf);
	cleanup_free char *path = xasprintf("%s/sweeps/%s/results.jsonl", tenv.workdir,
					    cJSON_GetStringValue(cJSON_GetObjectItem(s, "sweep")));
	cr_assert(read_text(path, &text), "%s", path);
	for (char *l = strtok(text.buf, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *o = cJSON_Parse(l);

		cr_assert_not_null(o, "%s", l);
		cJSON_AddItemToArray(all, o);
	}
	strbuf_release(&text);
	return all;
}

static double median5(const cJSON *samples)
{
	double v[5];
	int n = 0;
	const cJSON *x;

	cJSON_ArrayForEach(x, samples)
		if (n < 5)
			v[n++] = cJSON_GetNumberValue(cJSON_GetObjectItem(x, "kernel_ms"));
	cr_assert_eq(n, 5);
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			if (v[j] < v[i]) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
			}
	return v[2];
}

Test(perf, five_samples_per_case_on_two_images_the_slower_group_is_slower)
{
	struct tool_run r;
	const char *slow = slower_image();
	cleanup_cjson cJSON *res = NULL;
	const cJSON *o;
	size_t n = 0;

	add_case("hot-a", "hot");
	add_case("hot-b", "hot");
	add_case("cold-a", "cold");
	add_case("cold-b", "cold");
	sweep_run(&r, (const char *const[]){ "--archive", sw.library, "--image", SIM_IMAGE,
		"--image", slow, "--perf", "5", "--perf-baseline", SIM_IMAGE, "--format", "json",
		"--fail-on", "perf-slower", NULL });
	cr_assert_eq(r.status, 1, "two cases are slower, perf-slower is in --fail-on: %s",
		     r.err.buf);
	res = results_of(&r);
	cJSON_ArrayForEach(o, res) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(o, "case"));
		const char *image = cJSON_GetStringValue(cJSON_GetObjectItem(o, "image"));
		const cJSON *perf = cJSON_GetObjectItem(o, "perf");
		double m;

		cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(o, "outcome")), "PASS");
		cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(o, "gfx")), "gfx942");
		cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "device_id")), 29857);
		cr_assert(cJSON_IsObject(perf), "no perf in %s", cJSON_PrintUnformatted(o));
		cr_assert(cJSON_IsNull(cJSON_GetObjectItem(perf, "note")));
		m = median5(cJSON_GetObjectItem(perf, "samples"));
		if (!strcmp(image, slow) && strstr(name, "/hot-"))
			cr_expect(m > 42 && m < 46, "%s @ %s: %.1f ms", name, image, m);
		else
			cr_expect(m > 38 && m < 42, "%s @ %s: %.1f ms", name, image, m);
		n++;
	}
	cr_assert_eq(n, 8);

	/* summary.json: the slower image's hot cases slower (ratio ~1.10), the
	 * rest unchanged; the baseline image compares with nothing. */
	cleanup_cjson cJSON *sum = cJSON_Parse(r.out.buf);
	const cJSON *c;
	size_t compared = 0;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(sum, "cases")) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "case"));
		const char *image = cJSON_GetStringValue(cJSON_GetObjectItem(c, "image"));
		const cJSON *p = cJSON_GetObjectItem(c, "perf");
		const char *st;
		double ratio;

		if (!strcmp(image, SIM_IMAGE)) {
			cr_expect_null(p, "the baseline image has no comparison");
			continue;
		}
		cr_assert(cJSON_IsObject(p), "%s", cJSON_PrintUnformatted(c));
		st = cJSON_GetStringValue(cJSON_GetObjectItem(p, "status"));
		ratio = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "ratio"));
		if (strstr(name, "/hot-")) {
			cr_expect_str_eq(st, "slower", "%s", cJSON_PrintUnformatted(p));
			cr_expect(ratio > 1.07 && ratio < 1.13, "%s: ratio %.3f", name, ratio);
		} else
			cr_expect_str_eq(st, "unchanged", "%s", cJSON_PrintUnformatted(p));
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "baseline_image")),
				 SIM_IMAGE);
		compared++;
	}
	cr_expect_eq(compared, 4);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(sum,
		"perf_counts"), "slower")), 2, "%s", r.out.buf);

	/* The other reports: summary.md's section, junit.xml's failures of
	 * their own type (docs/perf.md "In the reports"). */
	cleanup_free char *dir = xasprintf("%s/sweeps/%s", tenv.workdir,
					   cJSON_GetStringValue(cJSON_GetObjectItem(sum, "sweep")));
	cleanup_free char *md_path = xasprintf("%s/summary.md", dir);
	cleanup_free char *junit_path = xasprintf("%s/junit.xml", dir);
	cleanup_free char *html_path = xasprintf("%s/report.html", dir);
	struct strbuf md = STRBUF_INIT, junit = STRBUF_INIT, html = STRBUF_INIT;
	size_t failures = 0;

	cr_assert(read_text(md_path, &md) && read_text(junit_path, &junit) &&
		  read_text(html_path, &html));
	cr_expect(strstr(md.buf, "## GPU time (4 compared)\n\n2 slower, 2 unchanged"), "%s", md.buf);
	for (const char *p = junit.buf; (p = strstr(p, "type=\"perf-regression\"")); p++)
		failures++;
	cr_expect_eq(failures, 2, "%s", junit.buf);
	cr_expect(strstr(html.buf, "perf perf-slower"), "report.html marks the slower cells");
	strbuf_release(&md);
	strbuf_release(&junit);
	strbuf_release(&html);
	tool_run_release(&r);
}

Test(perf, a_failing_case_takes_no_samples_and_bad_input_is_a_usage_error)
{
	struct tool_run r;
	static const char *const bad[][2] = {
		{ "--perf", "0" }, { "--perf", "1" }, { "--perf-threshold", "0" },
		{ "--perf-threshold", "101%" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sweep_run(&r, (const char *const[]){ "--archive", sw.library, "--image", SIM_IMAGE,
			"--perf", "2", bad[i][0], bad[i][1], NULL });
		cr_expect_eq(r.status, 64, "%s %s: %d", bad[i][0], bad[i][1], r.status);
		tool_run_release(&r);
	}
}

/* run --perf: the samples in the finding's JSON; an image whose
 * hrr-playback prints no GPU times gets a note, never a number. */
Test(perf, run_perf_samples_and_a_playback_without_gpu_times)
{
	struct tool_run r;
	cleanup_free char *dir = fixture_pid_dir("pass");
	const char *argv[] = { "run", "--image", SIM_IMAGE, "--archive", dir, "--workdir",
			       tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
			       tenv.sysfs, "--format", "json", "--perf", "3", "--perf-warmup", "1",
			       NULL };
	cleanup_cjson cJSON *f = NULL;
	const cJSON *perf;

	tool_run(&r, argv, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	f = cJSON_Parse(r.out.buf);
	perf = cJSON_GetObjectItem(f, "perf");
	cr_assert(cJSON_IsObject(perf), "%s", r.out.buf);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(perf, "samples")), 3);
	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(perf, "warmup")), 1);
	{
		/* finding.json has them too: taken before it was written. */
		const char *rd = cJSON_GetStringValue(
			cJSON_GetObjectItem(cJSON_GetObjectItem(f, "run"), "run_dir"));
		cleanup_free char *path = xasprintf("%s/finding.json", rd ? rd : "-");
		cleanup_strbuf struct strbuf text = STRBUF_INIT;
		cleanup_cjson cJSON *file = NULL;
		struct error err;

		cr_assert_eq(fs_read_small_file(path, 1 << 20, &text, &err), 0, "%s", err.msg);
		file = cJSON_Parse(text.buf);
		cr_assert(cJSON_Compare(cJSON_GetObjectItem(file, "perf"), perf, true), "%s",
			  text.buf);
	}
	tool_run_release(&r);
	cJSON_Delete(f);

	/* An older hrr-playback: no GPU times, a note, no sample. */
	add_case("old", "none");
	cleanup_free char *old = xasprintf("%s/old/capture.hrr/pid-4242/sim-scenario", sw.library);
	cr_assert_eq(fs_write_atomic(old, "scenario=pass\ntiming=none\n", 26, 0644,
				     &(struct error){ 0 }), 0);
	cleanup_free char *olddir = xasprintf("%s/old/capture.hrr/pid-4242", sw.library);
	argv[4] = olddir;
	tool_run(&r, argv, NULL);
	cr_assert_eq(r.status, 0, "the verdict stays PASS: %s", r.err.buf);
	f = cJSON_Parse(r.out.buf);
	perf = cJSON_GetObjectItem(f, "perf");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(perf, "samples")), 0, "%s", r.out.buf);
	cr_assert(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(perf, "note")),
			 "printed no GPU times"), "%s", r.out.buf);
	tool_run_release(&r);
}

/* hrr-sim-nightly:<tag> made to point at image, as a nightly tag moves. */
static const char *retag(const char *image)
{
	static char name[128];
	cleanup_free char *cmd = NULL;

	snprintf(name, sizeof(name), "hrr-sim-nightly:%s",
		 getenv("HRR_IMAGE_TAG") ? getenv("HRR_IMAGE_TAG") : "dev");
	cmd = xasprintf("docker tag '%s' '%s'", image, name);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return name;
}

/* The perf status of the case whose name holds `name` in a summary.json;
 * its full name in *full (when asked). */
static const char *perf_status(const cJSON *summary, const char *name, const char **full)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(summary, "cases")) {
		const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(c, "case"));

		if (!n || !strstr(n, name))
			continue;
		if (full)
			*full = n;
		return cJSON_GetStringValue(
			cJSON_GetObjectItem(cJSON_GetObjectItem(c, "perf"), "status"));
	}
	return NULL;
}

static cJSON *summary_of(const struct tool_run *r)
{
	cJSON *j = cJSON_Parse(r->out.buf);

	cr_assert_not_null(j, "%s\n%s", r->out.buf, r->err.buf);
	return j;
}

/* The history site after the slower night (docs/sweep.md "The history
 * site"): the hot case's chart flags it, the index of changes lists it,
 * both open in headless Chromium with no console message. */
static void site_shows_the_change(const char *hot)
{
	struct tool_run r;
	cleanup_free char *site = xasprintf("%s/site", tenv.root);
	const char *gen[] = { "history", "site", site, "--db", sw.dbpath, NULL };
	cleanup_strbuf struct strbuf name = STRBUF_INIT;

	cr_assert_not_null(hot);
	tool_run(&r, gen, sw.env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	site_case_page_name("nightly", hot, &name);
	for (int k = 0; k < 2; k++) {
		const char *page = k ? SITE_PERF_PAGE : name.buf;
		cleanup_free char *path = xasprintf("%s/%s", site, page);
		cleanup_free char *dom = xasprintf("%s/dom-%d.html", tenv.root, k);
		cleanup_free char *log = xasprintf("%s/chromium-%d.log", tenv.root, k);
		cleanup_free char *png = xasprintf("%s/build/history-site-perf-%d.png",
						   test_source_root(), k);
		cleanup_strbuf struct strbuf text = STRBUF_INIT, logtext = STRBUF_INIT;

		chromium_open(path, dom, NULL, log);
		cr_assert(read_text(dom, &text), "%s", dom);
		cr_assert(read_text(log, &logtext), "%s", log);
		cr_expect_null(strstr(logtext.buf, ":CONSOLE"), "no console message: %s", logtext.buf);
		if (k == 0) {
			cr_expect(strstr(text.buf, "class=\"chart perf\""), "%s", text.buf);
			cr_expect(strstr(text.buf, "class=\"pt slower\""), "%s", text.buf);
			cr_expect(strstr(text.buf, "class=\"baseline\""), "%s", text.buf);
		} else {
			cr_expect(strstr(text.buf, "<td>slower</td>"), "%s", text.buf);
			cr_expect(strstr(text.buf, ">hot-a") || strstr(text.buf, "hot-a/"), "%s",
				  text.buf);
			cr_expect_null(strstr(text.buf, "cold-a"), "%s", text.buf);
		}
		chromium_open(path, NULL, png, NULL);
	}
}

/* Across nights (docs/perf.md "Across nights"): a nightly tag re-pointed
 * at an image whose hot group is 10% slower is `slower` against the night
 * before; the same image again is never `slower`; `history perf` lists
 * the three nights. */
Test(perf, a_nightly_tag_that_got_slower_against_the_night_before)
{
	struct tool_run r;
	const char *slow = slower_image();
	const char *argv[] = { "--archive", sw.library, "--image", retag(SIM_IMAGE), "--perf", "5",
			       "--label", "nightly", "--format", "json", "--fail-on",
			       "perf-slower", NULL };
	const char *hot = NULL, *st;

	add_case("hot-a", "hot");
	add_case("cold-a", "cold");
	sweep_run(&r, argv);
	cleanup_cjson cJSON *s1 = summary_of(&r);

	cr_assert_eq(r.status, 0, "the first night compares with nothing: %s", r.err.buf);
	cr_expect_null(perf_status(s1, "hot-a", NULL));
	tool_run_release(&r);

	retag(slow);
	sweep_run(&r, argv);
	cleanup_cjson cJSON *s2 = summary_of(&r);

	cr_expect_str_eq(perf_status(s2, "hot-a", &hot), "slower", "%s", r.out.buf);
	cr_expect_str_eq(perf_status(s2, "cold-a", NULL), "unchanged", "%s", r.out.buf);
	cr_expect_eq(r.status, 1, "perf-slower is in --fail-on: %s", r.err.buf);
	tool_run_release(&r);
	site_shows_the_change(hot);

	/* Night 3: the same image again. */
	sweep_run(&r, argv);
	cleanup_cjson cJSON *s3 = summary_of(&r);

	st = perf_status(s3, "hot-a", &hot);
	cr_expect(st && (!strcmp(st, "same-build") || !strcmp(st, "unchanged")), "%s: %s", st,
		  r.out.buf);
	cr_expect_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);

	/* The series in the history. */
	cr_assert_not_null(hot);
	const char *hist[] = { "history", "perf", "--case", hot, "--db", sw.dbpath, "--format",
			       "json", NULL };

	tool_run(&r, hist, sw.env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cleanup_cjson cJSON *series = cJSON_Parse(r.out.buf);

	cr_assert_eq(cJSON_GetArraySize(series), 3, "three nights: %s", r.out.buf);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(series, 0), "n")),
		     5);
	tool_run_release(&r);
}

/* --perf-baseline and the rule live in plan.json: the merge of the sweep's folder
 * (what a Slurm merge job runs, with no comparison option of its own)
 * compares as the sweep was started to (docs/perf.md "Comparisons"). */
Test(perf, the_merge_compares_as_the_sweep_started)
{
	struct tool_run r;
	const char *slow = slower_image();

	add_case("hot-m", "hot");
	sweep_run(&r, (const char *const[]){ "--archive", sw.library, "--image", SIM_IMAGE,
		"--image", slow, "--perf", "3", "--perf-baseline", SIM_IMAGE, "--perf-alpha",
		"0.2", "--perf-fdr", "0.2", "--format", "json", NULL });
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cleanup_cjson cJSON *first = cJSON_Parse(r.out.buf);
	cleanup_free char *id = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(first, "sweep")));

	tool_run_release(&r);
	sweep_run(&r, (const char *const[]){ "--merge", id, "--format", "json", NULL });
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cleanup_cjson cJSON *merged = cJSON_Parse(r.out.buf);
	const cJSON *c;
	size_t compared = 0;

	cr_assert_not_null(merged, "%s", r.out.buf);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(merged, "cases")) {
		const cJSON *p = cJSON_GetObjectItem(c, "perf");

		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "image")), slow))
			continue;
		cr_assert(cJSON_IsObject(p), "%s", r.out.buf);
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "baseline_image")),
				 SIM_IMAGE);
		/* 3 against 3 reaches p = 0.1 only with --perf-alpha 0.2 and
		 * --perf-fdr 0.2 kept (docs/perf.md "A thousand cases a night"). */
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "status")), "slower",
				 "%s", cJSON_PrintUnformatted(p));
		compared++;
	}
	cr_expect_eq(compared, 1);
	tool_run_release(&r);
}

/* The results line of the case whose name holds `name`. */
static const cJSON *result_of(const cJSON *results, const char *name)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, results) {
		const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(x, "case"));

		if (n && strstr(n, name))
			return x;
	}
	cr_assert_fail("no result of %s", name);
	return NULL;
}

/* --perf-adaptive (docs/perf.md "More samples when unclear"): against one
 * night of 4 samples (too few nights to learn a spread: the samples' own
 * CV is the yardstick, which more samples sharpen), the unchanged case is
 * decided at its first look (within the threshold), the 10% slower one
 * gets 8 more on its GPU, is confirmed at MAX, 12, and is `slower`. The
 * added samples are counted in the results line and said in the report. */
Test(perf, an_unclear_comparison_gets_more_samples_up_to_max)
{
	struct tool_run r;
	const char *slow = slower_image();
	const char *argv[] = { "--archive", sw.library, "--image", retag(SIM_IMAGE), "--perf", "4",
			       "--label", "adaptive", "--format", "json", "--perf-adaptive", "12",
			       NULL };

	add_case("hot-u", "hot");
	add_case("cold-u", "cold");
	sweep_run(&r, argv);
	cr_assert_eq(r.status, 0, "the first night: %s", r.err.buf);
	cleanup_cjson cJSON *first = results_of(&r);

	/* No night before: nothing to look at, 4 samples each. */
	cr_expect_null(cJSON_GetObjectItem(cJSON_GetObjectItem(result_of(first, "hot-u"), "perf"),
					   "adaptive"));
	tool_run_release(&r);

	retag(slow);
	sweep_run(&r, argv);
	cleanup_cjson cJSON *s = summary_of(&r);
	cleanup_cjson cJSON *results = results_of(&r);
	const cJSON *hot = cJSON_GetObjectItem(result_of(results, "hot-u"), "perf");
	const cJSON *cold = cJSON_GetObjectItem(result_of(results, "cold-u"), "perf");

	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(hot, "samples")), 12, "%s",
		     cJSON_PrintUnformatted(hot));
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(hot, "adaptive")), 8);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cold, "samples")), 4, "%s",
		     cJSON_PrintUnformatted(cold));
	cr_expect_null(cJSON_GetObjectItem(cold, "adaptive"));
	cr_expect_str_eq(perf_status(s, "hot-u", NULL), "slower", "%s", r.out.buf);
	cr_expect_str_eq(perf_status(s, "cold-u", NULL), "unchanged", "%s", r.out.buf);
	cr_expect(strstr(r.out.buf,
			 "--perf-adaptive 12: 8 samples added after 4 (a change to confirm)"),
		  "the report says it: %s", r.out.buf);
	tool_run_release(&r);
}
