/* A sweep's images against the real engine and the loopback registry of
 * tests/setup.sh (plain, 127.0.0.1:5000), on the four fake GPUs of
 * tests/fixtures/sysfs/mi300x-4 (docs/sweep.md "Images: pinned, pulled when
 * their cases come"). Each test pushes tiny images built on the simulator
 * image, a label each, to a repository of its own (i43-images-<pid>) and
 * removes what it built or pulled, by ID. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tests/support/engine_test.h"
#include "tests/support/run_support.h"

static struct tenv_sweep sw;

static void images_init(void)
{
	tenv_init_sweep(&sw);
}

TestSuite(sweep_images, .init = images_init, .fini = tenv_fini, .timeout = 300);

static const char *repo(void)
{
	static char name[96];

	snprintf(name, sizeof(name), "%s/i43-images-%ld", ENGINE_TEST_REGISTRY, (long)getpid());
	return name;
}

/* The simulator image with a label of its own (and, when scenario is not
 * NULL, HRR_SIM_SCENARIO set), built as ref; its ID into id. */
static void build_as(const char *ref, const char *label, const char *scenario, char *id,
		     size_t len)
{
	cleanup_free char *env = scenario ? xasprintf("ENV HRR_SIM_SCENARIO=%s", scenario)
					  : xstrdup("");
	cleanup_free char *cmd = NULL;
	FILE *p;
	char line[256] = "";

	cr_assert_eq(et_sh("printf 'FROM %s\\nLABEL org.hrr-docker-replay.test-image=%s\\n%s\\n' | "
			   "DOCKER_BUILDKIT=0 docker build -q -t %s - >/dev/null 2>&1", SIM_IMAGE,
			   label, env, ref), 0, "building %s", ref);
	cmd = xasprintf("docker image inspect -f '{{.Id}}' %s", ref);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	cr_assert_eq(pclose(p), 0, "%s", cmd);
	line[strcspn(line, "\n")] = '\0';
	cr_assert(!strncmp(line, "sha256:", 7), "%s: %s", cmd, line);
	snprintf(id, len, "%s", line);
}

/* ref pushed to the registry and its local name removed. */
static void push_away(const char *ref)
{
	cr_assert_eq(et_sh("docker push -q %s >/dev/null 2>&1 && docker rmi %s >/dev/null 2>&1",
			   ref, ref), 0, "pushing %s", ref);
}

static char *only_sweep_folder(void)
{
	cleanup_free char *sweeps = xasprintf("%s/sweeps", tenv.workdir);
	char *found = NULL;

	for (int i = 0; i < 300 && !found; i++) {
		DIR *d = opendir(sweeps);
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.')
				found = xasprintf("%s/%s", sweeps, e->d_name);
		if (d)
			closedir(d);
		if (!found)
			usleep(50000);
	}
	cr_assert_not_null(found, "no sweep folder under %s", sweeps);
	return found;
}

static const cJSON *case_of(const cJSON *summary, const char *image)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(summary, "cases"))
		if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "image")), image))
			return c;
	cr_assert_fail("no case @ %s", image);
	return NULL;
}

static const char *field(const cJSON *o, const char *k)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));

	return v ? v : "";
}

/* Image 2's tag is pushed anew while image 1's case runs: image 2's case
 * replays the digest pinned when the sweep started (a PASS, not the new
 * tag's MAF), pulled by the sweep only as its case came; a reference the
 * registry does not have is its own case's `error`, nothing more. */
Test(sweep_images, a_tag_pushed_anew_mid_sweep_replays_the_pinned_digest)
{
	cleanup_free char *tag = xasprintf("%s:nightly", repo());
	cleanup_free char *missing = xasprintf("%s-none:nightly", repo());
	cleanup_free char *slow = xasprintf("%s/slow", sw.library);
	cleanup_free char *src = fixture_root("slow");
	cleanup_free char *folder = NULL, *plan = NULL, *cmd = NULL;
	char id_old[128], id_new[128];
	pid_t pid;

	cmd = xasprintf("mkdir -p '%s' && cp -r '%s' '%s/' && "
			"printf 'scenario=slow\\nseconds=6\\ninterval=0.5\\n' >'%s/capture.hrr/pid-4242/sim-scenario'",
			slow, src, slow, slow);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	build_as(tag, "old", NULL, id_old, sizeof(id_old));
	push_away(tag);
	const char *argv[] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
			       "--sysfs-root", sw.sysfs4, "--db", sw.dbpath, "--timeout", "120",
			       "--jobs", "1", "--image", SIM_IMAGE, "--image", tag, "--image",
			       missing, "--archive", slow, "--format", "json", "-q", NULL };

	pid = tool_spawn(argv, sw.env, tenv.root);
	folder = only_sweep_folder();
	plan = xasprintf("%s/plan.json", folder);
	cr_assert(wait_for_text(plan, "@sha256:", 60), "plan.json pins the tag by its digest");
	cr_assert(et_sh("docker image inspect %s >/dev/null 2>&1", id_old) != 0,
		  "not pulled when the sweep started");
	build_as(tag, "new", "maf", id_new, sizeof(id_new));
	push_away(tag);
	cr_expect_eq(tool_wait(pid, 240), 5, "an error result: exit 5");
	{
		cleanup_cjson cJSON *s = read_json(folder, "summary.json");
		const cJSON *c2, *c3;

		cr_assert_not_null(s, "no summary.json in %s", folder);
		c2 = case_of(s, tag);
		c3 = case_of(s, missing);
		cr_expect_str_eq(field(c2, "outcome"), "PASS", "the pinned image, not the new tag's");
		cr_expect_str_eq(field(c2, "image_id"), id_old);
		cr_expect_str_eq(field(case_of(s, SIM_IMAGE), "outcome"), "PASS");
		cr_expect_str_eq(field(c3, "outcome"), "");
		cr_expect_str_eq(field(c3, "status"), "error");
		/* summary.json's images: the pin and the ID replayed. */
		{
			const cJSON *im = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "images"), 1);

			cr_expect_str_eq(field(im, "ref"), tag);
			cr_expect(strstr(field(im, "pin"), "@sha256:"), "%s", field(im, "pin"));
			cr_expect_str_eq(field(im, "id"), id_old);
		}
	}
	{
		/* Each result, and the history, keep the pin it replayed. */
		cleanup_free char *results = xasprintf("%s/results.jsonl", folder);
		struct strbuf t = STRBUF_INIT;

		cr_assert(read_text(results, &t));
		cr_expect(strstr(t.buf, "\"image_pin\":\"127.0.0.1:5000/"), "%s", t.buf);
		strbuf_release(&t);
		cr_expect_eq(et_sh("sqlite3 %s \"SELECT image_pin FROM results WHERE image_ref = "
				   "'%s'\" | grep -q '@sha256:'", sw.dbpath, tag), 0,
			     "the history keeps the pin");
	}
	et_sh("docker rmi %s %s >/dev/null 2>&1", id_old, id_new);
}

#define N_IMAGES 6

/* Image n on base: base plus a 3 MB layer of its own, labelled with the
 * test's pid (so the test counts only its own images). */
static void build_on(const char *base, const char *ref, int n)
{
	cleanup_free char *ctx = xasprintf("%s/ctx-%d", tenv.root, n);

	cr_assert_eq(et_sh("mkdir -p %s && head -c 3000000 /dev/urandom >%s/blob && "
			   "printf 'FROM %s\\nLABEL org.hrr-docker-replay.test-budget=%ld\\n"
			   "COPY blob /blob-%d\\n' >%s/Dockerfile && "
			   "DOCKER_BUILDKIT=0 docker build -q -t %s %s >/dev/null 2>&1",
			   ctx, ctx, base, (long)getpid(), n, ctx, ref, ctx), 0,
		     "building %s", ref);
}

/* Image n on the simulator alone. */
static void build_distinct(const char *ref, int n)
{
	build_on(SIM_IMAGE, ref, n);
}

/* How many images of this test the engine holds, besides the user's. */
static int pulled_count(const char *user_id)
{
	cleanup_free char *cmd = xasprintf("docker image ls -q --no-trunc --filter "
					   "label=org.hrr-docker-replay.test-budget=%ld",
					   (long)getpid());
	FILE *p = popen(cmd, "r");
	char line[256];
	int n = 0;

	while (p && fgets(line, sizeof(line), p))
		n += strncmp(line, user_id, strlen(user_id)) != 0;
	if (p)
		pclose(p);
	return n;
}

static long long image_size(const char *ref)
{
	cleanup_free char *cmd = xasprintf("docker image inspect -f '{{.Size}}' %s", ref);
	FILE *p = popen(cmd, "r");
	long long v = -1;

	cr_assert_not_null(p);
	if (fscanf(p, "%lld", &v) != 1)
		v = -1;
	pclose(p);
	return v;
}

/* Polls the pulled images every 0.2 s until pid ends: the most seen. */
static int watch_pulled(pid_t pid, const char *user_id, int *status)
{
	int most = 0, st;

	*status = -1;
	for (int t = 0; t < 1500 && *status < 0; t++) {
		int c = pulled_count(user_id);

		most = c > most ? c : most;
		usleep(200000);
		if (waitpid(pid, &st, WNOHANG) == pid)
			*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	if (*status < 0)
		*status = tool_wait(pid, 1); /* fails the test: it did not end */
	return most;
}

/* The sweep's library: three copies of the passing capture (c0..c2). */
static void three_passing_cases(void)
{
	for (int k = 0; k < 3; k++) {
		cleanup_free char *dst = xasprintf("%s/c%d", sw.library, k);
		cleanup_free char *src = fixture_root("pass");

		cr_assert_eq(et_sh("mkdir -p %s && cp -r %s %s/", dst, src, dst), 0);
	}
}

/* What the inspect's template tmpl says of ref, its first line. */
static void inspect_of(const char *ref, const char *tmpl, char *out, size_t len)
{
	cleanup_free char *cmd = xasprintf("docker image inspect -f '%s' %s", tmpl, ref);
	FILE *p = popen(cmd, "r");

	cr_assert(p && fgets(out, (int)len, p), "%s", cmd);
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

static void image_id_of(const char *ref, char *id, size_t len)
{
	inspect_of(ref, "{{.Id}}", id, len);
}

/* The shared base of the budget test: the simulator plus 40 MB of zeros
 * (on disk 40 MB, in the registry's compressed manifest a few KB), kept as
 * the user's; its size into *size. */
static void build_base(const char *ref, long long *size)
{
	cleanup_free char *ctx = xasprintf("%s/ctx-base", tenv.root);

	cr_assert_eq(et_sh("mkdir -p %s && head -c 40000000 /dev/zero >%s/zeros && "
			   "printf 'FROM %s\\nLABEL org.hrr-docker-replay.test-base=%ld\\n"
			   "COPY zeros /zeros\\n' >%s/Dockerfile && "
			   "DOCKER_BUILDKIT=0 docker build -q -t %s %s >/dev/null 2>&1",
			   ctx, ctx, SIM_IMAGE, (long)getpid(), ctx, ref, ctx), 0,
		     "building %s", ref);
	*size = image_size(ref);
	cr_assert_gt(*size, 40000000);
}

/* Six images on one 43 MB base, 3 MB of their own each, the first already
 * the user's; a budget of the base plus 3.2 images' own layers over 3 cases
 * of each: the base is counted once, so two pulled images fit together
 * though their sizes summed (each counting the base) are far over it.
 * Every case runs once; polled every 0.2 s the images the tool pulled
 * never take more than the budget in distinct layers; the user's image is
 * still there, and at the end what the sweep pulled fits the budget. */
Test(sweep_images, a_budget_counts_a_shared_base_once_over_six)
{
	char refs[N_IMAGES][160], base[160], user_id[128] = "", budget[32];
	const char *argv[64] = { "sweep", "--workdir", tenv.workdir, "--device-root",
				 tenv.devroot, "--sysfs-root", sw.sysfs4, "--db", sw.dbpath,
				 "--timeout", "120", "--image-budget", budget, "-q" };
	size_t n = 14;
	int most, status;
	long long size, base_size, own, limit;
	pid_t pid;

	snprintf(base, sizeof(base), "%s-b:base", repo());
	build_base(base, &base_size);
	for (int i = 0; i < N_IMAGES; i++) {
		snprintf(refs[i], sizeof(refs[i]), "%s-b:i%d", repo(), i + 1);
		build_on(base, refs[i], i + 1);
		cr_assert_eq(et_sh("docker push -q %s >/dev/null 2>&1", refs[i]), 0, "%s", refs[i]);
		if (i > 0)
			cr_assert_eq(et_sh("docker rmi %s >/dev/null 2>&1", refs[i]), 0);
		argv[n++] = "--image";
		argv[n++] = refs[i];
	}
	size = image_size(refs[0]);
	own = size - base_size;
	cr_assert_gt(own, 2900000);
	/* Before a pull the next image's manifest (compressed: the zeros
	 * nearly nothing) must fit too: with one pulled image it does, with
	 * two it does not. */
	limit = base_size + own * 32 / 10;
	snprintf(budget, sizeof(budget), "%lld", limit);
	image_id_of(refs[0], user_id, sizeof(user_id));
	three_passing_cases();
	argv[n++] = "--archive";
	argv[n++] = sw.library;
	argv[n] = NULL;
	pid = tool_spawn(argv, sw.env, tenv.root);
	most = watch_pulled(pid, user_id, &status);
	cr_expect_eq(status, 0, "the sweep passed");
	cr_expect_leq(base_size + most * own, limit,
		      "%d pulled images at once: over the budget in distinct layers", most);
	cr_expect_geq(most, 2, "two pulled images share the base within the budget");
	cr_expect_gt(most * size, limit, "their sizes summed are over it: the base counted once");
	cr_expect_leq(base_size + pulled_count(user_id) * own, limit, "what stays fits the budget");
	cr_expect(et_sh("docker image inspect %s >/dev/null 2>&1", user_id) == 0,
		  "the user's image survives");
	{
		cleanup_free char *folder = only_sweep_folder();
		cleanup_cjson cJSON *s = read_json(folder, "summary.json");
		const cJSON *c;
		int cases = 0;

		cr_assert_not_null(s);
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(s, "cases")) {
			cases++;
			cr_expect_str_eq(field(c, "outcome"), "PASS", "%s", field(c, "image"));
			cr_expect_eq(cJSON_GetObjectItem(c, "attempts")->valueint, 1);
		}
		cr_expect_eq(cases, 3 * N_IMAGES);
		{
			/* What became of each image, and the peak in distinct layers. */
			const cJSON *imgs = cJSON_GetObjectItem(s, "images");
			const cJSON *peak = cJSON_GetObjectItem(s, "image_peak");
			int removed = 0;

			cr_expect_str_eq(field(cJSON_GetArrayItem(imgs, 0), "kept"), "the user's");
			for (int i = 1; i < N_IMAGES; i++) {
				const cJSON *im = cJSON_GetArrayItem(imgs, i);

				cr_expect_not_null(cJSON_GetObjectItem(im, "pulled"), "%s", refs[i]);
				removed += cJSON_GetObjectItem(im, "removed") != NULL;
				cr_expect(cJSON_GetObjectItem(im, "removed") ||
					  !strcmp(field(im, "kept"), "fits the budget"), "%s", refs[i]);
			}
			cr_expect_geq(removed, 3, "the budget removed images as it went");
			cr_assert_not_null(peak);
			cr_expect_leq((long long)peak->valuedouble, limit, "the peak fits the budget");
			cr_expect_gt((long long)peak->valuedouble, size,
				     "the peak held two images, the base once");
		}
	}
	{
		/* gc --pulled-images: what the sweep pulled goes, the user's image stays. */
		const char *dry[] = { "gc", "--pulled-images", "--dry-run", NULL };
		const char *gc[] = { "gc", "--pulled-images", NULL };
		int left = pulled_count(user_id);
		struct tool_run r;

		tool_run(&r, dry, sw.env);
		cr_expect_eq(r.status, 0, "%s", r.err.buf);
		cr_expect(left == 0 || strstr(r.out.buf, "would remove "), "%s", r.out.buf);
		cr_expect_eq(pulled_count(user_id), left, "--dry-run removes nothing");
		tool_run_release(&r);
		tool_run(&r, gc, sw.env);
		cr_expect_eq(r.status, 0, "%s", r.err.buf);
		cr_expect_eq(pulled_count(user_id), 0, "gc removed what the sweep pulled: %s",
			     r.out.buf);
		cr_expect(et_sh("docker image inspect %s >/dev/null 2>&1", user_id) == 0,
			  "the user's image survives gc");
		tool_run_release(&r);
	}
	et_sh("docker image ls -q --filter label=org.hrr-docker-replay.test-budget=%ld | "
	      "xargs -r docker rmi -f >/dev/null 2>&1", (long)getpid());
	et_sh("docker rmi %s >/dev/null 2>&1", base);
}

/* An image its registry says is larger than the budget: exit 64 before
 * anything runs (no sweep folder), naming the image and both sizes. */
Test(sweep_images, a_budget_below_one_image_is_refused_at_plan_time)
{
	cleanup_free char *ref = xasprintf("%s-big:t", repo());
	cleanup_free char *ctx = xasprintf("%s/ctx-big", tenv.root);
	cleanup_free char *src = fixture_root("pass");
	cleanup_free char *sweeps = xasprintf("%s/sweeps", tenv.workdir);
	struct tool_run r;
	DIR *d;
	struct dirent *e;

	cr_assert_eq(et_sh("mkdir -p %s && head -c 8000000 /dev/urandom >%s/blob && "
			   "printf 'FROM %s\\nLABEL org.hrr-docker-replay.test-budget=%ld\\n"
			   "COPY blob /blob\\n' >%s/Dockerfile && "
			   "DOCKER_BUILDKIT=0 docker build -q -t %s %s >/dev/null 2>&1 && "
			   "docker push -q %s >/dev/null 2>&1 && docker rmi %s >/dev/null 2>&1",
			   ctx, ctx, SIM_IMAGE, (long)getpid(), ctx, ref, ctx, ref, ref), 0);
	cr_assert_eq(et_sh("mkdir -p %s/c && cp -r %s %s/c/", sw.library, src, sw.library), 0);
	const char *argv[] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
			       "--sysfs-root", sw.sysfs4, "--db", sw.dbpath, "--image", ref,
			       "--archive", sw.library, "--image-budget", "6m", NULL };

	tool_run(&r, argv, sw.env);
	cr_expect_eq(r.status, 64, "%s", r.err.buf);
	cr_expect(strstr(r.err.buf, ref), "names the image: %s", r.err.buf);
	cr_expect(strstr(r.err.buf, "6291456 bytes"), "names the budget: %s", r.err.buf);
	cr_expect(strstr(r.err.buf, "takes at least "), "names the image's size: %s", r.err.buf);
	d = opendir(sweeps);
	while (d && (e = readdir(d)))
		cr_expect(e->d_name[0] == '.', "a sweep folder was made: %s", e->d_name);
	if (d)
		closedir(d);
	cr_expect(et_sh("docker image inspect %s >/dev/null 2>&1", ref) != 0, "nothing pulled");
	tool_run_release(&r);
}

/* Two sweeps under budgets share image X: sweep B holds it from its start
 * (its first image runs slowly), sweep A replays X, then needs room for Y
 * and must not remove X, which B has still to run; B's cases of X replay. */
Test(sweep_images, two_sweeps_sharing_an_image_never_remove_it_from_each_other)
{
	char x[160], y[160], w[160], w_id[128] = "", x_id[128] = "";
	cleanup_free char *lib_a = xasprintf("%s/a", sw.library);
	cleanup_free char *lib_b = xasprintf("%s/b", sw.library);
	cleanup_free char *wd_a = xasprintf("%s/wa", tenv.root);
	cleanup_free char *wd_b = xasprintf("%s/wb", tenv.root);
	cleanup_free char *src = fixture_root("pass");
	cleanup_free char *slow = fixture_root("slow");
	char budget[32];
	pid_t b;
	int st_a;

	snprintf(x, sizeof(x), "%s-s:x", repo());
	snprintf(y, sizeof(y), "%s-s:y", repo());
	snprintf(w, sizeof(w), "%s-s:w", repo());
	build_distinct(x, 11);
	build_distinct(y, 12);
	build_distinct(w, 13);
	image_id_of(x, x_id, sizeof(x_id));
	cr_assert_eq(et_sh("docker push -q %s >/dev/null 2>&1 && docker push -q %s >/dev/null 2>&1"
			   " && docker rmi %s %s >/dev/null 2>&1", x, y, x, y), 0);
	snprintf(budget, sizeof(budget), "%lld", image_size(w) * 13 / 10);
	image_id_of(w, w_id, sizeof(w_id));
	cr_assert_eq(et_sh("mkdir -p %s/c %s/c %s/s && cp -r %s %s/c/ && cp -r %s %s/c/ && "
			   "cp -r %s %s/s/ && printf 'scenario=slow\\nseconds=12\\ninterval=0.5\\n' "
			   ">%s/s/capture.hrr/pid-4242/sim-scenario", lib_a, lib_b, lib_b, src, lib_a,
			   src, lib_b, slow, lib_b, lib_b), 0);
	/* B: w (the user's, slow first) then x; one case at a time. */
	const char *argv_b[] = { "sweep", "--workdir", wd_b, "--device-root", tenv.devroot,
				 "--sysfs-root", sw.sysfs4, "--db", sw.dbpath, "--timeout", "120",
				 "--jobs", "1", "--image-budget", budget, "--image", w, "--image",
				 x, "--archive", lib_b, "--label", "b", "-q", NULL };
	const char *argv_a[] = { "sweep", "--workdir", wd_a, "--device-root", tenv.devroot,
				 "--sysfs-root", sw.sysfs4, "--db", sw.dbpath, "--timeout", "120",
				 "--image-budget", budget, "--image", x, "--image", y,
				 "--archive", lib_a, "--label", "a", "-q", NULL };

	cr_assert_eq(et_sh("mkdir -p %s %s", wd_a, wd_b), 0);
	b = tool_spawn(argv_b, sw.env, wd_b);
	{
		cleanup_free char *hold = xasprintf("%s/locks", tenv.root);
		bool held = false;

		for (int t = 0; t < 300 && !held; t++) {
			held = et_sh("ls %s 2>/dev/null | grep -q image-hold-b-", hold) == 0;
			usleep(100000);
		}
		cr_assert(held, "sweep B holds its images");
	}
	{
		struct tool_run ra;

		tool_run(&ra, argv_a, sw.env);
		st_a = ra.status;
		cr_expect_eq(st_a, 0, "%s", ra.err.buf);
		cr_expect(et_sh("docker image inspect %s >/dev/null 2>&1", x_id) == 0,
			  "A kept X, which B holds: %s", ra.err.buf);
		tool_run_release(&ra);
	}
	cr_expect_eq(tool_wait(b, 240), 0, "sweep B passed: its cases of X replayed");
	cr_expect(et_sh("docker image inspect %s >/dev/null 2>&1", w_id) == 0,
		  "the user's image survives");
	et_sh("docker image ls -q --filter label=org.hrr-docker-replay.test-budget=%ld | "
	      "xargs -r docker rmi -f >/dev/null 2>&1", (long)getpid());
}

/* count images of distinct layers (labels first, first + 1, ...) named
 * <repo>-<tag>:i1, i2, ..., pushed to the registry and removed here, each
 * an --image of argv from *n on. */
static void registry_images(char (*refs)[160], int count, const char *tag, int first,
			    const char **argv, size_t *n)
{
	for (int i = 0; i < count; i++) {
		snprintf(refs[i], 160, "%s-%s:i%d", repo(), tag, i + 1);
		build_distinct(refs[i], first + i);
		cr_assert_eq(et_sh("docker push -q %s >/dev/null 2>&1 && docker rmi %s >/dev/null "
				   "2>&1", refs[i], refs[i]), 0, "%s", refs[i]);
		argv[(*n)++] = "--image";
		argv[(*n)++] = refs[i];
	}
}

/* Results lines of a results file that hold needle. */
static int lines_with(const char *path, const char *needle)
{
	struct strbuf t = STRBUF_INIT;
	int n = 0;

	if (read_text(path, &t))
		for (const char *p = t.buf; (p = strstr(p, needle)); p++)
			n++;
	strbuf_release(&t);
	return n;
}

/* --resume after a SIGKILL while image 3 runs: the done cases are not
 * rerun, the rest pulled by their digests, the budget still held. */
Test(sweep_images, resume_after_sigkill_keeps_the_budget)
{
	char refs[4][160], user_id[128] = "none", budget[32];
	const char *argv[48] = { "sweep", "--workdir", tenv.workdir, "--device-root",
				 tenv.devroot, "--sysfs-root", sw.sysfs4, "--db", sw.dbpath,
				 "--timeout", "120", "--jobs", "1", "--image-budget", budget, "-q" };
	size_t n = 16;
	cleanup_free char *folder = NULL, *results = NULL;
	int status, most;
	pid_t pid;

	registry_images(refs, 4, "r", 20, argv, &n);
	/* About two images (their simulator base counted once): one pulled
	 * image (6 MB) and the next one's manifest (4.5 MB) fit, two (9 MB,
	 * the base once) and the next one's do not. */
	snprintf(budget, sizeof(budget), "%d", 12000000);
	three_passing_cases();
	argv[n++] = "--archive";
	argv[n++] = sw.library;
	argv[n] = NULL;
	pid = tool_spawn(argv, sw.env, tenv.root);
	folder = only_sweep_folder();
	results = xasprintf("%s/results.jsonl", folder);
	for (int t = 0; t < 1200 && lines_with(results, "\"case\"") < 7; t++)
		usleep(100000);
	kill(pid, SIGKILL);
	tool_wait(pid, 30);
	cr_assert_lt(lines_with(results, "\"case\""), 12, "killed mid-way");
	cr_assert_geq(lines_with(results, "\"case\""), 7);
	{
		const char *resume[] = { "sweep", "--resume", folder, "--workdir", tenv.workdir,
					 "--device-root", tenv.devroot, "--sysfs-root", sw.sysfs4,
					 "--db", sw.dbpath, "-q", NULL };

		pid = tool_spawn(resume, sw.env, tenv.root);
		most = watch_pulled(pid, user_id, &status);
	}
	cr_expect_eq(status, 0, "the resume passed");
	cr_expect_leq(most, 2, "the budget (about 2 images) held on resume");
	cr_expect_eq(lines_with(results, "\"case\""), 12, "each case has exactly one result");
	for (int i = 0; i < 4; i++) {
		cleanup_free char *needle = xasprintf("\"image\":\"%s\"", refs[i]);

		cr_expect_eq(lines_with(results, needle), 3, "%s: 3 results", refs[i]);
	}
	et_sh("docker image ls -q --filter label=org.hrr-docker-replay.test-budget=%ld | "
	      "xargs -r docker rmi -f >/dev/null 2>&1", (long)getpid());
}

/* The latest "finished" of the results of image ref. */
static long long last_finished(const char *results, const char *ref)
{
	struct strbuf t = STRBUF_INIT;
	long long last = 0;

	cr_assert(read_text(results, &t), "%s", results);
	for (char *line = strtok(t.buf, "\n"); line; line = strtok(NULL, "\n")) {
		cleanup_cjson cJSON *o = cJSON_Parse(line);
		const cJSON *f = cJSON_GetObjectItem(o, "finished");

		if (o && f && !strcmp(field(o, "image"), ref) && (long long)f->valuedouble > last)
			last = (long long)f->valuedouble;
	}
	strbuf_release(&t);
	return last;
}

/* Three registry images, two slow cases each, one case at a time, within
 * a budget of about two images: while image 1's cases run, image 2 is
 * pulled ahead (said once), so it is on the engine before image 1's last
 * case ends, and image 3 while image 2's run (image 1 removed first to
 * make room). Polled every 0.2 s the images the tool pulled are never more
 * than two; the images pulled ahead are the tool's (pulled, removable),
 * never taken for the user's. */
Test(sweep_images, the_next_image_is_pulled_ahead_within_the_budget)
{
	char refs[3][160], budget[32];
	const char *argv[48] = { "sweep", "--workdir", tenv.workdir, "--device-root",
				 tenv.devroot, "--sysfs-root", sw.sysfs4, "--db", sw.dbpath,
				 "--timeout", "120", "--jobs", "1", "--image-budget", budget };
	size_t n = 15;
	cleanup_free char *slow = fixture_root("slow");
	cleanup_free char *folder = NULL, *results = NULL;
	cleanup_free char *err_path = xasprintf("%s/stderr", tenv.root);
	int status, most;
	pid_t pid;

	registry_images(refs, 3, "a", 30, argv, &n);
	/* One pulled image (6 MB) and the next one's manifest (4.5 MB) fit,
	 * two (9 MB, the simulator's layers once) and a third's do not. */
	snprintf(budget, sizeof(budget), "%d", 12000000);
	for (int k = 0; k < 2; k++)
		cr_assert_eq(et_sh("mkdir -p %s/s%d && cp -r %s %s/s%d/ && printf 'scenario=slow\\n"
				   "seconds=4\\ninterval=0.5\\n' >%s/s%d/capture.hrr/pid-4242/sim-scenario",
				   sw.library, k, slow, sw.library, k, sw.library, k), 0);
	argv[n++] = "--archive";
	argv[n++] = sw.library;
	argv[n] = NULL;
	pid = tool_spawn(argv, sw.env, tenv.root);
	most = watch_pulled(pid, "none", &status);
	cr_expect_eq(status, 0, "the sweep passed");
	cr_expect_leq(most, 2, "never more than two pulled images at once");
	for (int i = 1; i < 3; i++) {
		cleanup_free char *said = xasprintf("pulling %s ahead", refs[i]);

		cr_expect_eq(lines_with(err_path, said), 1, "said once: %s", said);
	}
	{
		cleanup_free char *first = xasprintf("pulling %s ahead", refs[0]);

		cr_expect_eq(lines_with(err_path, first), 0, "the first image is not pulled ahead");
	}
	folder = only_sweep_folder();
	results = xasprintf("%s/results.jsonl", folder);
	{
		cleanup_cjson cJSON *s = read_json(folder, "summary.json");
		const cJSON *imgs, *c;
		int cases = 0;

		cr_assert_not_null(s);
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(s, "cases")) {
			cases++;
			cr_expect_str_eq(field(c, "outcome"), "PASS", "%s", field(c, "image"));
		}
		cr_expect_eq(cases, 6);
		imgs = cJSON_GetObjectItem(s, "images");
		for (int i = 1; i < 3; i++) {
			const cJSON *im = cJSON_GetArrayItem(imgs, i);
			const cJSON *pulled = cJSON_GetObjectItem(im, "pulled");
			long long before = last_finished(results, refs[i - 1]);

			cr_assert_not_null(pulled, "%s: pulled by the tool", refs[i]);
			cr_expect_lt((long long)pulled->valuedouble, before,
				     "%s on the engine (%lld) before %s's last case ended (%lld)",
				     refs[i], (long long)pulled->valuedouble, refs[i - 1], before);
			cr_expect_str_neq(field(im, "kept"), "the user's", "%s", refs[i]);
		}
		cr_expect_not_null(cJSON_GetObjectItem(cJSON_GetArrayItem(imgs, 0), "removed"),
				   "image 1 removed to make room for image 3");
	}
	{
		/* What was pulled ahead is in the record: gc removes it all. */
		const char *gc[] = { "gc", "--pulled-images", NULL };
		struct tool_run r;

		tool_run(&r, gc, sw.env);
		cr_expect_eq(r.status, 0, "%s", r.err.buf);
		cr_expect_eq(pulled_count("none"), 0, "gc removed what the sweep pulled: %s",
			     r.out.buf);
		tool_run_release(&r);
	}
	et_sh("docker image ls -q --filter label=org.hrr-docker-replay.test-budget=%ld | "
	      "xargs -r docker rmi -f >/dev/null 2>&1", (long)getpid());
}

/* The processes whose parent is pid, into out (at most max). */
static size_t children_of(pid_t pid, pid_t *out, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)) && n < max) {
		char path[300], buf[512], *paren;
		FILE *f;
		int ppid = 0;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(buf, sizeof(buf), f) && (paren = strrchr(buf, ')')) &&
		    sscanf(paren + 1, " %*c %d", &ppid) == 1 && ppid == pid)
			out[n++] = (pid_t)atoi(e->d_name);
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* Whether pid still runs (a zombie has ended). */
static bool running(pid_t pid)
{
	cleanup_free char *path = xasprintf("/proc/%ld/stat", (long)pid);
	char buf[512] = "", *paren;
	FILE *f = fopen(path, "r");
	bool up = false;

	if (f && fgets(buf, sizeof(buf), f) && (paren = strrchr(buf, ')')))
		up = paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
	if (f)
		fclose(f);
	return up;
}

/* Once argv's sweep says it pulls ref ahead: its children (the pull's
 * among them) into kids, then sig to the sweep. */
static pid_t sweep_until_ahead(const char *const *argv, const char *ref, int sig, pid_t *kids,
			       size_t *n_kids)
{
	cleanup_free char *err_path = xasprintf("%s/stderr", tenv.root);
	cleanup_free char *said = xasprintf("pulling %s ahead", ref);
	pid_t pid = tool_spawn(argv, sw.env, tenv.root);

	cr_assert(wait_for_text(err_path, said, 120), "never said: %s", said);
	usleep(500000); /* the child is in its pull, held by the registry */
	*n_kids = children_of(pid, kids, 16);
	cr_assert_geq(*n_kids, 2, "a worker and the pull's child");
	kill(pid, sig);
	return pid;
}

/* Every one of kids ends within timeout_s. */
static void expect_gone(const pid_t *kids, size_t n, double timeout_s, const char *when)
{
	for (size_t k = 0; k < n; k++) {
		for (int t = 0; t < timeout_s * 10 && running(kids[k]); t++)
			usleep(100000);
		cr_expect_not(running(kids[k]), "%s: child %ld still runs", when, (long)kids[k]);
	}
}

/* A pull ahead the registry never finishes: the sweep killed with SIGKILL
 * takes the pull's child along; `--resume` pulls ahead again, and SIGTERM
 * then ends the sweep at once (exit 5, interrupted), its pull killed and
 * reaped, not waited for. */
Test(sweep_images, a_pull_ahead_never_outlives_its_sweep)
{
	char x[160], ref[200];
	cleanup_free char *slow = fixture_root("slow");
	cleanup_free char *folder = NULL;
	pid_t reg, pid, kids[16];
	size_t n_kids;
	int port;

	snprintf(x, sizeof(x), "%s-k:x", repo());
	build_distinct(x, 40);
	cr_assert_eq(et_sh("docker push -q %s >/dev/null 2>&1 && docker rmi %s >/dev/null 2>&1",
			   x, x), 0, "%s", x);
	/* In front of the registry, an engine's pull that never ends. */
	port = et_registry_front((const char *const[]){ "--hold-blobs", NULL }, &reg);
	snprintf(ref, sizeof(ref), "127.0.0.1:%d/%s", port, strchr(x, '/') + 1);
	cr_assert_eq(et_sh("mkdir -p %s/s && cp -r %s %s/s/ && printf 'scenario=slow\\nseconds=20\\n"
			   "interval=0.5\\n' >%s/s/capture.hrr/pid-4242/sim-scenario", sw.library,
			   slow, sw.library, sw.library), 0);
	const char *argv[] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
			       "--sysfs-root", sw.sysfs4, "--db", sw.dbpath, "--timeout", "120",
			       "--jobs", "1", "--image", SIM_IMAGE, "--image", ref, "--archive",
			       sw.library, NULL };

	pid = sweep_until_ahead(argv, ref, SIGKILL, kids, &n_kids);
	tool_wait(pid, 30);
	expect_gone(kids, n_kids, 60, "after SIGKILL");
	folder = only_sweep_folder();
	{
		const char *resume[] = { "sweep", "--resume", folder, "--workdir", tenv.workdir,
					 "--device-root", tenv.devroot, "--sysfs-root", sw.sysfs4,
					 "--db", sw.dbpath, NULL };

		pid = sweep_until_ahead(resume, ref, SIGTERM, kids, &n_kids);
		cr_expect_eq(tool_wait(pid, 60), 5, "interrupted, not waiting for the pull");
		expect_gone(kids, n_kids, 5, "after SIGTERM");
	}
	cr_expect(et_sh("docker image inspect %s >/dev/null 2>&1", ref) != 0, "never pulled");
	kill(reg, SIGKILL);
	waitpid(reg, NULL, 0);
	et_sh("docker image ls -q --filter label=org.hrr-docker-replay.test-budget=%ld | "
	      "xargs -r docker rmi -f >/dev/null 2>&1", (long)getpid());
}

/* --pull always under a budget over the user's image (pulled from the
 * registry before the sweep) and another: its pull finds the ID it had,
 * so it stays the user's: never in the host's record, never removed by
 * the budget (about one image) nor by gc --pulled-images. */
Test(sweep_images, a_pull_always_of_the_users_image_leaves_it_the_users)
{
	char refs[1][160], user[160], user_id[128] = "", digest[256] = "";
	const char *argv[48] = { "sweep", "--workdir", tenv.workdir, "--device-root",
				 tenv.devroot, "--sysfs-root", sw.sysfs4, "--db", sw.dbpath,
				 "--timeout", "120", "--jobs", "1", "--pull", "always",
				 "--image-budget", "8000000", "-q", "--image", user };
	const char *gc[] = { "gc", "--pulled-images", NULL };
	size_t n = 20;
	cleanup_free char *record = xasprintf("%s/pulled-images", sw.lockdir);
	cleanup_free char *folder = NULL;
	cleanup_cjson cJSON *s = NULL;
	struct tool_run r;

	snprintf(user, sizeof(user), "%s-u:mine", repo());
	build_distinct(user, 40);
	cr_assert_eq(et_sh("docker push -q %s >/dev/null 2>&1", user), 0, "%s", user);
	inspect_of(user, "{{index .RepoDigests 0}}", digest, sizeof(digest));
	/* Pulled by its digest alone: no tag of the user's keeps it when
	 * that digest is untagged. */
	cr_assert_eq(et_sh("docker rmi %s >/dev/null 2>&1 && docker pull -q %s >/dev/null 2>&1",
			   user, digest), 0, "%s", digest);
	image_id_of(digest, user_id, sizeof(user_id));
	registry_images(refs, 1, "o", 41, argv, &n);
	three_passing_cases();
	argv[n++] = "--archive";
	argv[n++] = sw.library;
	argv[n] = NULL;
	tool_run(&r, argv, sw.env);
	cr_expect_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	cr_expect(et_sh("docker image inspect %s >/dev/null 2>&1", user_id) == 0,
		  "the user's image survives the sweep");
	cr_expect_eq(lines_with(record, user_id), 0, "the user's image is not in the record");
	cr_expect_geq(lines_with(record, "\"id\""), 1, "the other image is: it was pulled");
	folder = only_sweep_folder();
	s = read_json(folder, "summary.json");
	cr_assert_not_null(s);
	cr_expect_str_eq(field(cJSON_GetArrayItem(cJSON_GetObjectItem(s, "images"), 0), "kept"),
			 "the user's");
	tool_run(&r, gc, sw.env);
	cr_expect_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	cr_expect(et_sh("docker image inspect %s >/dev/null 2>&1", user_id) == 0,
		  "the user's image survives gc --pulled-images");
	et_sh("docker image ls -q --filter label=org.hrr-docker-replay.test-budget=%ld | "
	      "xargs -r docker rmi -f >/dev/null 2>&1", (long)getpid());
}
