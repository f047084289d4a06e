/* `bisect` against the real loopback registries of tests/setup.sh (plain on
 * :5000, htpasswd on :5001) and, for bearer tokens, tests/token-registry.py
 * (a fake token issuer in front of the plain registry: no real token server
 * runs here). Each test pushes 16 tags of a tiny image built on the
 * simulator image, whose HRR_SIM_SCENARIO turns to maf from tag 11 on, to a
 * repository of its own (i23-bisect-<pid>), then bisects on the four fake
 * GPUs of tests/fixtures/sysfs/mi300x-4 (docs/bisect.md). One bisects GPU time
 * instead: t11 on is the same image with a 10% slowdown file. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
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

#define N_TAGS 16
#define FIRST_BAD 11

static char sysfs4[PATH_MAX + 64], lockdir[400], dbpath[400], archive[400], cfgdir[400];
static char lockenv[450], cfgenv[450];
static const char *extra_env[3];

static void bisect_init(void)
{
	tenv_init_four_gpus(sysfs4, sizeof(sysfs4));
	snprintf(lockdir, sizeof(lockdir), "%s/locks", tenv.root);
	snprintf(dbpath, sizeof(dbpath), "%s/history.sqlite", tenv.root);
	snprintf(archive, sizeof(archive), "%s/library/pass", tenv.root);
	snprintf(cfgdir, sizeof(cfgdir), "%s/docker-config", tenv.root);
	snprintf(lockenv, sizeof(lockenv), "HRR_LOCK_DIR=%s", lockdir);
	snprintf(cfgenv, sizeof(cfgenv), "DOCKER_CONFIG=%s", cfgdir);
	extra_env[0] = lockenv;
	extra_env[1] = cfgenv;
	extra_env[2] = NULL;
	{
		cleanup_free char *src = fixture_root("pass");
		cleanup_free char *cmd = xasprintf("mkdir -p '%s' '%s' && cp -r '%s/.' '%s/'", archive,
						   cfgdir, src, archive);

		cr_assert_eq(system(cmd), 0, "%s", cmd);
	}
}

TestSuite(bisect, .init = bisect_init, .fini = tenv_fini, .timeout = 600);

static const char *repo(void)
{
	static char name[64];

	snprintf(name, sizeof(name), "i23-bisect-%ld", (long)getpid());
	return name;
}

/* config.json for the registry at host with the test credentials: for the
 * CLI's push and for the tool (pull and the registry client). */
static void write_login(const char *host)
{
	cr_assert_eq(et_sh("printf '{\"auths\":{\"%s\":{\"auth\":\"%%s\"}}}' "
			   "\"$(printf %s:%s | base64 -w0)\" >%s/config.json",
			   host, ENGINE_TEST_REG_USER, ENGINE_TEST_REG_PASS, cfgdir), 0);
}

static bool none_local(int n)
{
	(void)n;
	return false;
}

/* 16 tags t01..t16 of name (docker/registry/repository), distinct images (a label
 * each), the failure from tag 11 on. Each is pushed and its local name
 * removed, so that bisect pulls it, unless local_only(n): that one stays on
 * this engine and the registry never has it. */
static void build_tags(const char *name, bool (*local_only)(int n))
{
	for (int n = 1; n <= N_TAGS; n++) {
		int rc = et_sh("printf 'FROM %s\\nLABEL org.hrr-docker-replay.test-tag=%02d\\n%s\\n' | "
			       "DOCKER_BUILDKIT=0 docker build -q -t %s:t%02d - >/dev/null 2>&1",
			       SIM_IMAGE, n, n >= FIRST_BAD ? "ENV HRR_SIM_SCENARIO=maf" : "",
			       name, n);

		if (rc == 0 && !local_only(n))
			rc = et_sh("DOCKER_CONFIG=%s docker push -q %s:t%02d >/dev/null 2>&1 && "
				   "docker rmi %s:t%02d >/dev/null 2>&1", cfgdir, name, n, name, n);
		cr_assert_eq(rc, 0, "building or pushing tag %d of %s", n, name);
	}
}

static void push_tags(const char *registry)
{
	cleanup_free char *name = xasprintf("%s/%s", registry, repo());

	build_tags(name, none_local);
}

static void remove_local_tags(const char *name)
{
	for (int n = 1; n <= N_TAGS; n++)
		et_sh("docker rmi %s:t%02d >/dev/null 2>&1", name, n);
}

/* bisect from good to bad with the test's GPUs, database and workdir; the
 * cases are --archive's unless with_archive is false (more has --sweep). */
static void bisect_between(struct tool_run *r, const char *good, const char *bad,
			   const char *const *more, bool with_archive)
{
	const char *argv[40] = { "bisect", "--good", good, "--bad", bad,
				 "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				 "--sysfs-root", sysfs4, "--db", dbpath, "--timeout", "120",
				 "--format", "json", "-q" };
	size_t n = 18;

	if (with_archive) {
		argv[n++] = "--archive";
		argv[n++] = archive;
	}
	for (size_t i = 0; more && more[i]; i++)
		argv[n++] = more[i];
	argv[n] = NULL;
	tool_run(r, argv, extra_env);
}

static void bisect_ends(struct tool_run *r, const char *good, const char *bad,
			const char *const *more)
{
	bisect_between(r, good, bad, more, true);
}

static void bisect_run_cases(struct tool_run *r, const char *registry, const char *const *more,
			     bool with_archive)
{
	cleanup_free char *good = xasprintf("%s/%s:t01", registry, repo());
	cleanup_free char *bad = xasprintf("%s/%s:t%02d", registry, repo(), N_TAGS);

	bisect_between(r, good, bad, more, with_archive);
}

static void bisect_run(struct tool_run *r, const char *registry, const char *const *more)
{
	bisect_run_cases(r, registry, more, true);
}

/* The folder of a probe's sweep (it has a plan.json; the bisection's own
 * folder, bisection-..., has none). */
static char *first_probe_sweep(void)
{
	cleanup_free char *sweeps = xasprintf("%s/sweeps", tenv.workdir);
	DIR *d = opendir(sweeps);
	struct dirent *e;
	char *found = NULL;

	while (d && !found && (e = readdir(d))) {
		cleanup_free char *plan = xasprintf("%s/%s/plan.json", sweeps, e->d_name);

		if (!strncmp(e->d_name, "bisect-", 7) && access(plan, R_OK) == 0)
			found = xasprintf("%s/%s", sweeps, e->d_name);
	}
	if (d)
		closedir(d);
	cr_assert_not_null(found, "a probe sweep under %s", sweeps);
	return found;
}

static bool image_here_ref(const char *ref)
{
	return et_sh("docker image inspect %s >/dev/null 2>&1", ref) == 0;
}

static const char *side_tag(const cJSON *answer, const char *side)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(answer, side), "tag"));
}

/* The answer names t10/t11; returns how many replays it took. */
static int assert_found(const struct tool_run *r)
{
	cleanup_cjson cJSON *a = cJSON_Parse(r->out.buf);

	cr_assert_eq(r->status, 0, "exit %d\n%s", r->status, r->err.buf);
	cr_assert_not_null(a, "stdout is not JSON: %s", r->out.buf);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(a, "verdict")), "found");
	cr_expect_str_eq(side_tag(a, "last_good"), "t10");
	cr_expect_str_eq(side_tag(a, "first_bad"), "t11");
	return (int)cJSON_GetNumberValue(cJSON_GetObjectItem(a, "replays"));
}

static bool image_here(const char *registry, int tag)
{
	return et_sh("docker image inspect %s/%s:t%02d >/dev/null 2>&1", registry, repo(), tag) == 0;
}

Test(bisect, sixteen_tags_on_the_plain_registry_in_at_most_six_replays_then_none)
{
	struct tool_run r;
	cleanup_free char *list = xasprintf("%s/images.txt", tenv.root);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	const char *from_file[] = { "--images", list, NULL };
	struct error err;
	int replays;

	push_tags(ENGINE_TEST_REGISTRY);
	bisect_run(&r, ENGINE_TEST_REGISTRY, NULL);
	replays = assert_found(&r);
	cr_expect_leq(replays, 6, "%d replays", replays);
	cr_expect_geq(replays, 2);
	cr_expect(strstr(r.err.buf, "33 registry request(s)"), "one list, a manifest and a config "
		  "per tag: %s", r.err.buf);
	cr_expect_not(image_here(ENGINE_TEST_REGISTRY, FIRST_BAD),
		      "an image pulled for the bisection was left");
	tool_run_release(&r);

	/* The same range again, from an --images file: all from the history. */
	strbuf_addstr(&text, "# oldest first\n");
	for (int n = 1; n <= N_TAGS; n++)
		strbuf_addf(&text, "%s/%s:t%02d\n", ENGINE_TEST_REGISTRY, repo(), n);
	cr_assert_eq(fs_write_atomic(list, text.buf, text.len, 0644, &err), 0, "%s", err.msg);
	bisect_run(&r, ENGINE_TEST_REGISTRY, from_file);
	cr_expect_eq(assert_found(&r), 0, "a second bisection replays nothing new:\n%s", r.err.buf);
	cr_expect(strstr(r.err.buf, "(from the history)"), "%s", r.err.buf);
	tool_run_release(&r);

	/* The cases of a sweep (one of the probes) instead of --archive. */
	{
		cleanup_free char *probe = NULL;
		const char *by_sweep[] = { "--images", list, "--sweep", NULL, NULL };

		probe = first_probe_sweep();
		by_sweep[3] = probe;
		bisect_run_cases(&r, ENGINE_TEST_REGISTRY, by_sweep, false);
		cr_expect_eq(assert_found(&r), 0, "--sweep: the same cases, all reused:\n%s",
			     r.err.buf);
		tool_run_release(&r);
	}
}

/* A bad GPU makes --good itself flaky: reported (exit 1), not guessed. */
Test(bisect, a_flaky_end_is_reported_not_guessed_through)
{
	struct tool_run r;
	cleanup_free char *list = xasprintf("%s/images.txt", tenv.root);
	cleanup_free char *text = NULL, *second = xasprintf("%s-flaky:b", repo());
	const char *args[] = { "--images", list, "--env", "HRR_SIM_FAIL_ON_RENDER=128",
			       "--retry-failed", "1", "--gpus", "0,1", "--jobs", "1", NULL };
	cleanup_cjson cJSON *a = NULL;
	struct error err;

	cr_assert_eq(et_sh("docker tag %s %s", SIM_IMAGE, second), 0);
	text = xasprintf("%s\n%s\n", SIM_IMAGE, second);
	cr_assert_eq(fs_write_atomic(list, text, strlen(text), 0644, &err), 0, "%s", err.msg);
	bisect_ends(&r, SIM_IMAGE, second, args);
	cr_expect_eq(r.status, 1, "exit %d\n%s", r.status, r.err.buf);
	a = cJSON_Parse(r.out.buf);
	cr_assert_not_null(a, "%s\n%s", r.out.buf, r.err.buf);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(a, "verdict")), "good-not-stable");
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(a, "replays")), 1,
		     "it stops at the flaky end");
	cr_expect(image_here_ref(SIM_IMAGE), "an image that was here stays");
	tool_run_release(&r);
	et_sh("docker rmi %s >/dev/null 2>&1", second);
}

Test(bisect, sixteen_tags_with_htpasswd_auth)
{
	struct tool_run r;
	const char *keep[] = { "--keep-images", NULL };
	int replays;

	write_login(ENGINE_TEST_AUTH_REGISTRY);
	push_tags(ENGINE_TEST_AUTH_REGISTRY);
	bisect_run(&r, ENGINE_TEST_AUTH_REGISTRY, keep);
	replays = assert_found(&r);
	cr_expect_leq(replays, 6, "%d replays", replays);
	cr_expect(image_here(ENGINE_TEST_AUTH_REGISTRY, FIRST_BAD), "--keep-images kept it");
	tool_run_release(&r);
	for (int n = 1; n <= N_TAGS; n++)
		et_sh("docker rmi %s/%s:t%02d >/dev/null 2>&1", ENGINE_TEST_AUTH_REGISTRY, repo(), n);

	/* Without credentials the registry's refusal is one line, exit 5. */
	cr_assert_eq(et_sh("echo '{}' >%s/config.json", cfgdir), 0);
	bisect_run(&r, ENGINE_TEST_AUTH_REGISTRY, NULL);
	cr_expect_eq(r.status, 5, "exit %d: %s", r.status, r.err.buf);
	cr_expect(strstr(r.err.buf, "refused anonymous access (HTTP 401)"), "%s", r.err.buf);
	tool_run_release(&r);
}

/* tests/token-registry.py on a free port; *pid its process. */
static int start_token_registry(pid_t *pid)
{
	const char *args[] = { "--user", ENGINE_TEST_REG_USER, "--password", ENGINE_TEST_REG_PASS,
			       "--page", "5", NULL };

	return et_registry_front(args, pid);
}

Test(bisect, sixteen_tags_with_bearer_tokens_over_pages_of_five)
{
	struct tool_run r;
	pid_t pid;
	int port = start_token_registry(&pid);
	char host[64];
	int replays;
	cleanup_strbuf struct strbuf counts = STRBUF_INIT;

	snprintf(host, sizeof(host), "127.0.0.1:%d", port);
	push_tags(ENGINE_TEST_REGISTRY); /* behind the token front */
	write_login(host);
	bisect_run(&r, host, NULL);
	replays = assert_found(&r);
	cr_expect_leq(replays, 6, "%d replays", replays);
	/* 4 pages of tags/list, 2 requests per manifest and config: the
	 * client followed the Link header and answered the challenges. */
	cr_expect(strstr(r.err.buf, "16 candidate tag(s)"), "%s", r.err.buf);
	tool_run_release(&r);
	et_sh("curl -s http://%s/counts >%s/counts.json", host, tenv.root);
	{
		cleanup_free char *p = xasprintf("%s/counts.json", tenv.root);
		cleanup_cjson cJSON *c = NULL;

		cr_assert(read_text(p, &counts));
		c = cJSON_Parse(counts.buf);
		cr_expect_gt(cJSON_GetNumberValue(cJSON_GetObjectItem(c, "token")), 0,
			     "tokens were fetched: %s", counts.buf);
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

static bool all_local(int n)
{
	(void)n;
	return true;
}

static bool first_bad_local(int n)
{
	return n == FIRST_BAD;
}

/* The engine's tags of name bisected, t01 to t16; its stderr in r. */
static void bisect_name(struct tool_run *r, const char *name, const char *bad_tag)
{
	cleanup_free char *good = xasprintf("%s:t01", name);
	cleanup_free char *bad = xasprintf("%s:%s", name, bad_tag);

	bisect_ends(r, good, bad, NULL);
}

/* Built here, never pushed: the registry has no such repository (or
 * cannot be reached) and the engine's tags are the candidates. */
Test(bisect, a_repository_only_on_this_engine_is_bisected_on_its_tags)
{
	struct tool_run r;
	cleanup_free char *name = xasprintf("%s/%s-local", ENGINE_TEST_REGISTRY, repo());
	cleanup_free char *away = xasprintf("127.0.0.1:1/%s-local", repo());
	int replays;

	build_tags(name, all_local);
	bisect_name(&r, name, "t16");
	replays = assert_found(&r);
	cr_expect_leq(replays, 6, "%d replays", replays);
	cr_expect(strstr(r.err.buf, "has no repository") &&
		  strstr(r.err.buf, "the candidates are this engine's tags of"), "%s", r.err.buf);
	cr_expect(strstr(r.err.buf, "16 candidate tag(s)") &&
		  strstr(r.err.buf, "16 tag(s) only on this engine"), "%s", r.err.buf);
	cr_expect(et_sh("docker image inspect %s:t11 >/dev/null 2>&1", name) == 0,
		  "an image that was here stays");
	tool_run_release(&r);

	/* The same images under a registry that does not answer: the same
	 * candidates (and image IDs), so all from the history. */
	for (int n = 1; n <= N_TAGS; n++)
		cr_assert_eq(et_sh("docker tag %s:t%02d %s:t%02d", name, n, away, n), 0);
	bisect_name(&r, away, "t16");
	cr_expect_eq(assert_found(&r), 0, "%s", r.err.buf);
	cr_expect(strstr(r.err.buf, "cannot be reached"), "%s", r.err.buf);
	tool_run_release(&r);

	/* An end neither has: the error names both sources. */
	bisect_name(&r, name, "t17");
	cr_expect_eq(r.status, 5, "exit %d: %s", r.status, r.err.buf);
	cr_expect(strstr(r.err.buf, "has no repository") &&
		  strstr(r.err.buf, "this engine has no --bad"), "%s", r.err.buf);
	tool_run_release(&r);
	remove_local_tags(name);
	remove_local_tags(away);
}

/* The registry has 15 tags; the first bad one is only on this engine. */
Test(bisect, a_tag_only_on_this_engine_is_a_candidate_among_the_registrys)
{
	struct tool_run r;
	cleanup_free char *name = xasprintf("%s/%s-mix", ENGINE_TEST_REGISTRY, repo());
	int replays;

	build_tags(name, first_bad_local);
	bisect_name(&r, name, "t16");
	replays = assert_found(&r);
	cr_expect_leq(replays, 6, "%d replays", replays);
	cr_expect(strstr(r.err.buf, "16 candidate tag(s)") &&
		  strstr(r.err.buf, "1 tag(s) only on this engine"), "%s", r.err.buf);
	cr_expect_not(strstr(r.err.buf, "the candidates are this engine's"), "%s", r.err.buf);
	cr_expect(et_sh("docker image inspect %s:t11 >/dev/null 2>&1", name) == 0,
		  "the local-only tag stays");
	tool_run_release(&r);

	/* A tag neither has, with the registry answering: a usage error. */
	bisect_name(&r, name, "t17");
	cr_expect_eq(r.status, 64, "exit %d: %s", r.status, r.err.buf);
	cr_expect(strstr(r.err.buf, "is neither a tag on registry"), "%s", r.err.buf);
	tool_run_release(&r);
	remove_local_tags(name);
}

/* --metric gpu-time: t01..t10 one image, t11..t16 another, the same but
 * for a slowdown file making every archive 10% slower (docs/perf.md "The
 * simulator"); the case has 40 ms of GPU time, 1% jitter. */
static void push_slower_from_eleven(void)
{
	cleanup_free char *name = xasprintf("%s/%s", ENGINE_TEST_REGISTRY, repo());
	cleanup_free char *scenario = xasprintf("%s/pid-4242/sim-scenario", archive);
	const char *text = "scenario=pass\ngpu_ms=40\n";
	struct error err;

	cr_assert_eq(fs_write_atomic(scenario, text, strlen(text), 0644, &err), 0, "%s", err.msg);
	cr_assert_eq(et_sh("printf 'FROM %s\\nLABEL org.hrr-docker-replay.test-run=%ld\\n' | "
			   "DOCKER_BUILDKIT=0 docker build -q -t %s:base - >/dev/null 2>&1 && "
			   "printf 'FROM %s\\nLABEL org.hrr-docker-replay.test-run=%ld-slow\\n"
			   "RUN mkdir -p /etc/hrr-sim && echo 1.10 >/etc/hrr-sim/slowdown\\n' | "
			   "DOCKER_BUILDKIT=0 docker build -q -t %s:slow - >/dev/null 2>&1",
			   SIM_IMAGE, (long)getpid(), name, SIM_IMAGE, (long)getpid(), name), 0);
	for (int n = 1; n <= N_TAGS; n++)
		cr_assert_eq(et_sh("docker tag %s:%s %s:t%02d && DOCKER_CONFIG=%s docker push -q "
				   "%s:t%02d >/dev/null 2>&1 && docker rmi %s:t%02d >/dev/null 2>&1",
				   name, n >= FIRST_BAD ? "slow" : "base", name, n, cfgdir, name, n,
				   name, n), 0, "tag %d", n);
	et_sh("docker rmi %s:base %s:slow >/dev/null 2>&1", name, name);
}

/* The first bad side's comparison of the (one) case. */
static const cJSON *first_bad_gpu_time(const cJSON *a)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "first_bad"),
						      "gpu_time"), 0);
}

Test(bisect, gpu_time_finds_the_first_tag_ten_percent_slower_then_reuses_its_samples)
{
	const char *args[] = { "--metric", "gpu-time", "--perf", "5",
			       "--env", "HRR_SIM_JITTER=0.01", NULL };
	struct tool_run r;
	cleanup_cjson cJSON *a = NULL, *again = NULL;
	const cJSON *k;
	double ratio;
	int replays;

	push_slower_from_eleven();
	bisect_run(&r, ENGINE_TEST_REGISTRY, args);
	replays = assert_found(&r);
	a = cJSON_Parse(r.out.buf);
	cr_expect_leq(replays, 6, "%d probes of 5 samples", replays);
	cr_expect_leq(cJSON_GetArraySize(cJSON_GetObjectItem(a, "probes")), 6);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(a, "samples_per_probe")), 5);
	k = first_bad_gpu_time(a);
	cr_assert_not_null(k, "%s", r.out.buf);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(k, "status")), "slower");
	ratio = cJSON_GetNumberValue(cJSON_GetObjectItem(k, "ratio"));
	cr_expect(ratio > 1.05 && ratio < 1.15, "ratio %g", ratio);
	cr_expect(cJSON_GetNumberValue(cJSON_GetObjectItem(k, "ci_lo")) <= ratio &&
		  ratio <= cJSON_GetNumberValue(cJSON_GetObjectItem(k, "ci_hi")));
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(k, "samples")), 5);
	cr_expect(strstr(r.err.buf, "GPU time slower: ratio"), "%s", r.err.buf);
	tool_run_release(&r);

	/* Again: every probe's samples from the history, nothing replayed. */
	bisect_run(&r, ENGINE_TEST_REGISTRY, args);
	cr_expect_eq(assert_found(&r), 0, "a second run replays nothing:\n%s", r.err.buf);
	again = cJSON_Parse(r.out.buf);
	k = first_bad_gpu_time(again);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(k, "status")), "slower");
	cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(k, "ratio")), ratio, 1e-12,
			   "the same samples, the same ratio");
	tool_run_release(&r);
}

/* How many tags of this test's repository the engine holds now. */
static int candidates_here(const char *registry)
{
	cleanup_free char *cmd = xasprintf("docker image ls -q --filter reference='%s/%s' | "
					   "sort -u | wc -l", registry, repo());
	FILE *p = popen(cmd, "r");
	int n = -1;

	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

/* --image-budget: each candidate pulled goes once known; polled every
 * 0.2 s at most 2 candidate images are on the engine (in fact one), and
 * the answer is the same as without a budget. */
Test(bisect, an_image_budget_keeps_at_most_two_candidates_with_the_same_answer)
{
	cleanup_free char *good = xasprintf("%s/%s:t01", ENGINE_TEST_REGISTRY, repo());
	cleanup_free char *bad = xasprintf("%s/%s:t%02d", ENGINE_TEST_REGISTRY, repo(), N_TAGS);
	cleanup_free char *out = xasprintf("%s/stdout", tenv.root);
	struct tool_run r = { .out = STRBUF_INIT, .err = STRBUF_INIT };
	const char *argv[] = { "bisect", "--good", good, "--bad", bad, "--workdir", tenv.workdir,
			       "--device-root", tenv.devroot, "--sysfs-root", sysfs4, "--db",
			       dbpath, "--timeout", "120", "--format", "json", "-q", "--archive",
			       archive, "--image-budget", "100m", NULL };
	int most = 0, st = 0;
	bool ended = false;
	pid_t pid;

	push_tags(ENGINE_TEST_REGISTRY);
	pid = tool_spawn(argv, extra_env, tenv.root);
	for (int t = 0; t < 3000 && !ended; t++) {
		int n = candidates_here(ENGINE_TEST_REGISTRY);

		most = n > most ? n : most;
		ended = waitpid(pid, &st, WNOHANG) == pid;
		usleep(200000);
	}
	r.status = !ended ? tool_wait(pid, 1)
			  : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	cr_assert(read_text(out, &r.out), "%s", out);
	assert_found(&r);
	cr_expect_leq(most, 2, "%d candidate images at once", most);
	cr_expect_geq(most, 1, "the watch saw the candidates");
	cr_expect_not(image_here(ENGINE_TEST_REGISTRY, FIRST_BAD), "removed");
	strbuf_release(&r.out);
	strbuf_release(&r.err);
}
