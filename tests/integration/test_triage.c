/* `sweep --notify`, the report's failing cells and the known issues'
 * marks and exit codes. --notify against a real HTTP server on 127.0.0.1
 * (tests/webhook-server.py, started here on an ephemeral port) and sweeps
 * of the simulator on the fake GPUs (docs/sweep.md "Notifications"): an
 * alarm the night a case breaks, a recovery the night it passes again,
 * nothing on nights without change or on a second merge; a 500 then 200
 * delivered once; a hanging and an unreachable endpoint given up within
 * the documented bound, one warning each, the exit code unchanged. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/notify/notify.h"
#include "tests/support/run_support.h"
#include "tests/support/scratch.h"

static struct tenv_sweep sw;
/* The environment of the nights: sw.env unless a test sets more. */
static const char *const *night_env;
static pid_t servers[4];
static size_t n_servers;

static void init(void)
{
	tenv_init_sweep(&sw);
	n_servers = 0;
	night_env = NULL;
}

static void fini(void)
{
	for (size_t i = 0; i < n_servers; i++) {
		kill(servers[i], SIGKILL);
		waitpid(servers[i], NULL, 0);
	}
	tenv_fini();
}

TestSuite(notify, .init = init, .fini = fini, .timeout = 300);

/* A receiver answering as answers says; its URL (with a path that stands
 * for a webhook's token) and the directory its requests are recorded in. */
static void server(const char *name, const char *answers, char **url, char **dir)
{
	cleanup_free char *script = xasprintf("%s/tests/webhook-server.py", test_source_root());
	cleanup_free char *port_file = xasprintf("%s/%s.port", tenv.root, name);
	cleanup_free char *answers_arg = xasprintf("--answers=%s", answers);
	cleanup_strbuf struct strbuf port = STRBUF_INIT;
	pid_t pid;

	*dir = xasprintf("%s/%s", tenv.root, name);
	cr_assert_eq(mkdir(*dir, 0700), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execlp("python3", "python3", script, "--port-file", port_file, "--record-dir", *dir,
		       answers_arg, (char *)NULL);
		_exit(127);
	}
	servers[n_servers++] = pid;
	for (int i = 0; i < 100 && fs_read_small_file(port_file, 64, &port, ERROR_DISCARD) < 0; i++)
		usleep(100000);
	cr_assert(port.len, "the webhook server did not start");
	*url = xasprintf("http://127.0.0.1:%s/hook/T0-token-secret", port.buf);
}

static size_t requests(const char *dir)
{
	size_t n = 0;

	for (;; n++) {
		cleanup_free char *p = xasprintf("%s/%zu.json", dir, n + 1);

		if (access(p, F_OK) < 0)
			return n;
	}
}

static cJSON *request(const char *dir, size_t n)
{
	cleanup_free char *p = xasprintf("%s/%zu.json", dir, n);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cJSON *j;

	cr_assert_eq(fs_read_small_file(p, 1 << 20, &text, ERROR_DISCARD), 0, "%s", p);
	j = cJSON_Parse(text.buf);
	cr_assert_not_null(j, "%s", text.buf);
	return j;
}

static void add_case(const char *name, const char *fixture)
{
	cleanup_free char *src = fixture_root(fixture);
	cleanup_free char *cmd = xasprintf("mkdir -p '%s/%s' && cp -r '%s' '%s/%s/'", sw.library,
					   name, src, sw.library, name);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void set_scenario(const char *name, const char *scenario)
{
	cleanup_free char *f = xasprintf("%s/%s/capture.hrr/pid-4242/sim-scenario", sw.library, name);
	struct error err;

	cr_assert_eq(fs_write_atomic(f, scenario, strlen(scenario), 0644, &err), 0, "%s", err.msg);
}

/* One night of the label "nightly", with extra arguments (NULL-ended). */
static void night(struct tool_run *r, const char *const *extra)
{
	const char *argv[48] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				 "--sysfs-root", sw.sysfs4, "--db", sw.dbpath, "--timeout", "120",
				 "--image", SIM_IMAGE, "--archive", sw.library, "--label", "nightly",
				 "-q" };
	size_t n = 18;

	for (size_t i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	tool_run(r, argv, night_env ? night_env : sw.env);
}

/* The folder of the sweep r ran ("sweep folder: ..." on stderr). */
static char *folder_of(const struct tool_run *r)
{
	const char *p = strstr(r->err.buf, "sweep folder: ");

	cr_assert_not_null(p, "%s", r->err.buf);
	p += strlen("sweep folder: ");
	return xstrndup(p, strcspn(p, "\n"));
}

static bool file_has(const char *path, const char *needle)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	if (fs_read_small_file(path, 64 << 20, &text, ERROR_DISCARD) < 0)
		return false;
	return memmem(text.buf, text.len, needle, strlen(needle)) != NULL;
}

Test(notify, alarm_the_night_it_breaks_recovery_the_night_it_passes_nothing_else)
{
	struct tool_run r;
	cleanup_free char *url = NULL, *dir = NULL, *folder2 = NULL;
	cleanup_cjson cJSON *alarm = NULL, *recovery = NULL;
	const cJSON *a;

	server("hook", "", &url, &dir);
	add_case("case-0", "pass");
	add_case("case-1", "pass");
	const char *extra[] = { "--notify", url, NULL };

	/* Night 1: no baseline, everything new: nothing to announce. */
	night(&r, extra);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert_eq(requests(dir), 0, "a first night is no transition");
	tool_run_release(&r);
	/* Night 2: case-1 breaks. */
	set_scenario("case-1", "scenario=maf\n");
	night(&r, extra);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	cr_assert_eq(requests(dir), 1, "%s", r.err.buf);
	folder2 = folder_of(&r);
	tool_run_release(&r);
	alarm = request(dir, 1);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(alarm, "schema")), NOTIFY_SCHEMA);
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(alarm, "counts"), "alarms")->valueint, 1);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(alarm, "recoveries")), 0);
	a = cJSON_GetArrayItem(cJSON_GetObjectItem(alarm, "alarms"), 0);
	cr_assert(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(a, "case")), "case-1"));
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(a, "status")), "regressed");
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(a, "outcome")), "MAF");
	cr_assert(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(alarm, "report")), "/report.html"));
	{
		cleanup_free char *hdr = xasprintf("%s/1.headers", dir);
		cleanup_free char *key = xasprintf("Idempotency-Key: %s", cJSON_GetStringValue(
			cJSON_GetObjectItem(alarm, "idempotency_key")));

		cr_assert(file_has(hdr, key), "the key is in the header too");
	}
	/* The URL is a secret: the private file has it, nothing others read does. */
	{
		cleanup_free char *plan = xasprintf("%s/plan.json", folder2);
		cleanup_free char *priv = xasprintf("%s/run-options.json", folder2);
		cleanup_free char *rec = xasprintf("%s/notify.json", folder2);

		cr_assert(!file_has(plan, "token-secret") && !file_has(sw.dbpath, "token-secret"));
		cr_assert(!file_has(rec, "token-secret") && file_has(rec, "\"delivered\":\ttrue"));
		cr_assert(file_has(priv, "token-secret"));
	}
	/* A second merge of night 2 announces nothing again. */
	{
		const char *argv[] = { "sweep", "--workdir", tenv.workdir, "--merge", folder2, "-q",
				       NULL };

		tool_run(&r, argv, sw.env);
		cr_assert_eq(r.status, 1, "%s", r.err.buf);
		cr_assert_eq(requests(dir), 1, "re-merged: %s", r.err.buf);
		tool_run_release(&r);
	}
	/* Night 3: still failing: no change, nothing sent. */
	night(&r, extra);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert_eq(requests(dir), 1);
	tool_run_release(&r);
	/* Night 4: it passes again. */
	set_scenario("case-1", "scenario=pass\n");
	night(&r, extra);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert_eq(requests(dir), 2, "%s", r.err.buf);
	tool_run_release(&r);
	recovery = request(dir, 2);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(recovery, "alarms")), 0);
	a = cJSON_GetArrayItem(cJSON_GetObjectItem(recovery, "recoveries"), 0);
	cr_assert(a && strstr(cJSON_GetStringValue(cJSON_GetObjectItem(a, "case")), "case-1"));
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(a, "status")), "fixed");
}

/* case-0 passes one night and is set to fault the next: how long the
 * passing night took. */
static double passing_night_then_maf(void)
{
	struct tool_run r;
	double seconds;

	add_case("case-0", "pass");
	night(&r, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	seconds = r.seconds;
	tool_run_release(&r);
	set_scenario("case-0", "scenario=maf\n");
	return seconds;
}

Test(notify, failing_endpoints_are_retried_given_up_and_never_change_the_exit_code)
{
	struct tool_run r;
	cleanup_free char *flaky = NULL, *flaky_dir = NULL, *hang = NULL, *hang_dir = NULL;
	cleanup_cjson cJSON *first = NULL, *second = NULL;
	const char *text;
	size_t warnings = 0;
	double base;

	server("flaky", "500,200", &flaky, &flaky_dir);
	server("hang", "hang,hang,hang,hang,hang", &hang, &hang_dir);
	base = passing_night_then_maf();
	/* Nothing listens on port 9 of 127.0.0.1 here (discard is not served). */
	const char *extra[] = { "--notify", flaky, "--notify", hang, "--notify",
				"http://127.0.0.1:9/unreachable-secret", "--notify-format", "slack",
				NULL };

	night(&r, extra);
	cr_assert_eq(r.status, 1, "regressed, whatever the endpoints did: %s", r.err.buf);
	/* The 500 was retried: the document arrived twice, the same, and was
	 * delivered once (the 200). */
	cr_assert_eq(requests(flaky_dir), 2, "%s", r.err.buf);
	first = request(flaky_dir, 1);
	second = request(flaky_dir, 2);
	text = cJSON_GetStringValue(cJSON_GetObjectItem(first, "text"));
	cr_assert(text && strstr(text, "1 alarm(s)") && strstr(text, "idempotency key "), "%s", text);
	cr_assert_eq(cJSON_GetArraySize(first), 1, "Slack's shape: text alone");
	cr_assert_str_eq(text, cJSON_GetStringValue(cJSON_GetObjectItem(second, "text")));
	/* The hanging one: every attempt timed out within the bound. */
	cr_assert_geq(requests(hang_dir), 2, "retried after a timeout");
	cr_assert_leq(requests(hang_dir), NOTIFY_ATTEMPTS);
	/* Each URL is bounded by the deadline: the hanging one by all of it,
	 * the others by their retries' waits (1 s; 1 + 2 + 4 s). */
	cr_assert_lt(r.seconds - base, NOTIFY_DEADLINE_S + 20, "took %.0f s, the night before %.0f s",
		     r.seconds, base);
	/* One warning line per failing URL, without its secret parts. */
	for (const char *p = r.err.buf; (p = strstr(p, "notify http://127.0.0.1:")); p++)
		warnings++;
	cr_assert_eq(warnings, 2, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "notify http://127.0.0.1:9/…:"), "%s", r.err.buf);
	cr_assert_null(strstr(r.err.buf, "secret"), "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "delivered to 1 URL(s)"), "%s", r.err.buf);
	tool_run_release(&r);
}

/* The modification time of a request's headers: when it arrived. */
static double arrived(const char *dir, size_t n)
{
	cleanup_free char *p = xasprintf("%s/%zu.headers", dir, n);
	struct stat st;

	cr_assert_eq(stat(p, &st), 0, "%s", p);
	return (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
}

/* Nine URLs that never answer: given up together within the bound of all
 * deliveries, not 30 s each in turn, and never more than 8 at once. */
Test(notify, several_hanging_urls_are_bounded_together_eight_at_a_time, .timeout = 600)
{
	struct tool_run r;
	cleanup_free char *hang = NULL, *hang_dir = NULL;
	char *urls[9];
	const char *extra[2 * 9 + 1];
	size_t warnings = 0, n;
	double base, first, ninth = 0;

	server("hang", "hang,hang,hang,hang,hang,hang,hang,hang,hang,hang,hang,hang,hang,hang,"
		       "hang,hang,hang,hang,hang,hang,hang,hang,hang,hang,hang,hang,hang,hang,"
		       "hang,hang,hang,hang,hang,hang,hang,hang",
	       &hang, &hang_dir);
	base = passing_night_then_maf();
	for (size_t i = 0; i < 9; i++) {
		urls[i] = xasprintf("%s/%zu", hang, i);
		extra[2 * i] = "--notify";
		extra[2 * i + 1] = urls[i];
	}
	extra[18] = NULL;
	night(&r, extra);
	cr_assert_eq(r.status, 1, "regressed, whatever the endpoints did: %s", r.err.buf);
	cr_assert_lt(r.seconds - base, NOTIFY_TOTAL_S + 20, "took %.0f s, the night before %.0f s",
		     r.seconds, base);
	for (const char *p = r.err.buf; (p = strstr(p, "notify http://127.0.0.1:")); p++)
		warnings++;
	cr_assert_eq(warnings, 9, "%s", r.err.buf);
	/* The first attempts of eight arrived together; the ninth only when
	 * one of them had given up an attempt (10 s). */
	n = requests(hang_dir);
	cr_assert_geq(n, 9);
	first = arrived(hang_dir, 1);
	for (size_t i = 1; i <= n; i++) {
		double t = arrived(hang_dir, i);

		first = t < first ? t : first;
	}
	for (size_t i = 1; i <= n; i++)
		if (arrived(hang_dir, i) - first < 5)
			ninth++;
	cr_assert_eq(ninth, NOTIFY_PARALLEL, "%.0f requests in the first 5 s", ninth);
	for (size_t i = 0; i < 9; i++)
		free(urls[i]);
	tool_run_release(&r);
}

/* A hostile capture name and kernel name reach the channel as text: no
 * mention, no link, no markup in the body the server received. */
Test(notify, slack_gets_a_hostile_case_and_kernel_escaped)
{
	struct tool_run r;
	cleanup_free char *hook = NULL, *hook_dir = NULL;
	cleanup_cjson cJSON *body = NULL;
	const char *name = "x<!channel>&<@here>";
	const char *text;

	server("slack", "", &hook, &hook_dir);
	add_case(name, "pass");
	night(&r, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	set_scenario(name, "scenario=maf\nkernel=@channel\n");
	const char *extra[] = { "--notify", hook, "--notify-format", "slack", NULL };

	night(&r, extra);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert_eq(requests(hook_dir), 1);
	body = request(hook_dir, 1);
	text = cJSON_GetStringValue(cJSON_GetObjectItem(body, "text"));
	cr_assert(text && strstr(text, "x&lt;!channel&gt;&amp;&lt;@\u2060here&gt;"), "%s", text);
	cr_assert(strstr(text, "@\u2060channel"), "%s", text);
	cr_assert_null(strchr(text, '<'), "%s", text);
	cr_assert_null(strstr(text, "@channel"), "%s", text);
	cr_assert_null(strstr(text, "@here"), "%s", text);
}

/* The known-issues file's owners: each gets only its own known failures
 * (its URL from the environment, env:NAME), --notify gets everything. */
Test(notify, an_owner_of_the_known_issues_file_gets_only_its_own_alarms)
{
	struct tool_run r;
	cleanup_free char *all = NULL, *all_dir = NULL, *gemm = NULL, *gemm_dir = NULL;
	cleanup_free char *rules = xasprintf("%s/known-issues.yaml", tenv.root);
	cleanup_free char *hook_env = NULL;
	cleanup_cjson cJSON *everything = NULL, *own = NULL;
	static const char text[] = "issues:\n"
				   "  - id: BUG-11\n"
				   "    link: https://bugs.example/11\n"
				   "    owner: gemm-team\n"
				   "    match: {outcome: MAF, case: '*case-0*'}\n"
				   "owners:\n"
				   "  gemm-team: {notify: env:GEMM_TEAM_HOOK}\n";
	struct error err;
	const cJSON *a;

	server("all", "", &all, &all_dir);
	server("gemm", "", &gemm, &gemm_dir);
	hook_env = xasprintf("GEMM_TEAM_HOOK=%s", gemm);
	const char *env[] = { sw.lockenv, hook_env, NULL };

	night_env = env;
	cr_assert_eq(fs_write_atomic(rules, text, strlen(text), 0644, &err), 0, "%s", err.msg);
	add_case("case-0", "pass");
	add_case("case-1", "pass");
	const char *extra[] = { "--notify", all, "--known-issues", rules, NULL };

	night(&r, extra);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	set_scenario("case-0", "scenario=maf\n");
	set_scenario("case-1", "scenario=maf\n");
	night(&r, extra);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "delivered to 2 URL(s)"), "%s", r.err.buf);
	cr_assert_null(strstr(r.err.buf, "token-secret"), "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert_eq(requests(all_dir), 1);
	cr_assert_eq(requests(gemm_dir), 1);
	everything = request(all_dir, 1);
	own = request(gemm_dir, 1);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(everything, "alarms")), 2);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(own, "alarms")), 1);
	a = cJSON_GetArrayItem(cJSON_GetObjectItem(own, "alarms"), 0);
	cr_assert(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(a, "case")), "case-0"));
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "known"),
								   "owner")), "gemm-team");
}

TestSuite(report_cells, .init = init, .fini = fini, .timeout = 300);


static size_t count_in(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Two nights of four cases, three breaking in the second; the results lines then
 * given the signature and known issue a classifier of signatures writes
 * (docs/sweep.md "The sweep folder"), the sweep merged again: report.html
 * as Chromium shows it, with a screenshot in build/ to look at. */
Test(report_cells, failing_cells_show_signature_and_triage_and_every_history_square)
{
	struct tool_run r;
	cleanup_free char *folder = NULL, *html = NULL, *dom = NULL, *log = NULL, *png = NULL;
	cleanup_free char *edit = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct error err;

	for (int i = 0; i < 4; i++) {
		char n[32];

		snprintf(n, sizeof(n), "case-%d", i);
		add_case(n, "pass");
	}
	night(&r, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	set_scenario("case-1", "scenario=maf\n");
	set_scenario("case-2", "scenario=maf\n");
	set_scenario("case-3", "scenario=maf\n");
	night(&r, NULL);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	folder = folder_of(&r);
	tool_run_release(&r);
	edit = xasprintf(
		"python3 - '%s/results.jsonl' <<'PY'\n"
		"import json, sys\n"
		"p = sys.argv[1]\n"
		"out = []\n"
		"for line in open(p):\n"
		"    j = json.loads(line)\n"
		"    if j.get('outcome') not in (None, 'PASS'):\n"
		"        j['signature'] = {'id': '0a1b2c3d4e5f', 'outcome': j['outcome'],\n"
		"            'fault_class': j.get('fault_class'), 'kernel_family': 'Cijk_Ailk_Bljk',\n"
		"            'evidence': None, 'stop_reason': None, 'partial': False}\n"
		"        j['known'] = ({'id': 'HRR-101', 'link': 'https://bugs.example/101',\n"
		"                       'owner': 'team-gemm'} if 'case-1' in j['case'] else None)\n"
		"    out.append(json.dumps(j))\n"
		"open(p, 'w').write(''.join(l + '\\n' for l in out))\n"
		"PY",
		folder);
	cr_assert_eq(system(edit), 0, "%s", edit);
	{
		const char *argv[] = { "sweep", "--workdir", tenv.workdir, "--merge", folder, "-q", NULL };

		tool_run(&r, argv, sw.env);
		cr_assert_eq(r.status, 1, "%s", r.err.buf);
		tool_run_release(&r);
	}
	html = xasprintf("%s/report.html", folder);
	dom = xasprintf("%s/dom.html", tenv.root);
	log = xasprintf("%s/chromium.log", tenv.root);
	chromium_open(html, dom, NULL, log);
	cr_assert_eq(fs_read_small_file(dom, 4 << 20, &text, &err), 0, "%s", err.msg);
	cr_assert_eq(count_in(text.buf, "class=\"sig\""), 3, "%s", text.buf);
	cr_assert_eq(count_in(text.buf, "illegal_memory_access · Cijk_Ailk_Bljk"), 3, "%s", text.buf);
	cr_assert_eq(count_in(text.buf, "tri tri-untriaged"), 2);
	cr_assert_eq(count_in(text.buf, "tri tri-known"), 1);
	cr_assert(strstr(text.buf, "known HRR-101"), "%s", text.buf);
	cr_assert_eq(count_in(text.buf, "<div class=\"trend\">"), 4);
	cr_assert_eq(count_in(text.buf, "<span class=\"o-PASS\" title=\"PASS\"></span>"), 2 + 3,
		     "two nights of squares: %s", text.buf);
	strbuf_reset(&text);
	cr_assert_eq(fs_read_small_file(log, 4 << 20, &text, &err), 0, "%s", err.msg);
	cr_assert_null(strstr(text.buf, ":CONSOLE"), "no console message: %s", text.buf);
	/* Nothing loads from anywhere: the page's policy refuses it and the
	 * console would have said so above. */
	png = xasprintf("%s/build/report-cells.png", test_source_root());
	chromium_open(html, NULL, png, log);
	cr_assert(access(png, R_OK) == 0, "no screenshot %s", png);
	/* The page opens with the triage: one untriaged signature (two
	 * results), one known issue (one), and an owner filter... */
	strbuf_reset(&text);
	cr_assert_eq(fs_read_small_file(dom, 4 << 20, &text, &err), 0, "%s", err.msg);
	cr_assert(strstr(text.buf, "1 untriaged signature, 1 known issue."), "%s", text.buf);
	cr_assert(strstr(text.buf, "2 results (2 cases on 1 image)"), "%s", text.buf);
	cr_assert(strstr(text.buf, "<option value=\"k:team-gemm\">team-gemm</option>"), "%s",
		  text.buf);
	cr_assert_eq(count_in(text.buf, " hidden\""), 0, "nothing filtered yet");
	/* ...which, opened at #owner=, shows that owner's rows alone, offline
	 * and without a console message. */
	{
		cleanup_free char *filtered = xasprintf("%s#owner=k:team-gemm", html);

		chromium_open(filtered, dom, NULL, log);
	}
	strbuf_reset(&text);
	cr_assert_eq(fs_read_small_file(dom, 4 << 20, &text, &err), 0, "%s", err.msg);
	cr_assert_eq(count_in(text.buf, "<tr class=\"case hidden\">"), 3, "%s", text.buf);
	cr_assert_eq(count_in(text.buf, "<tr class=\"case\">"), 1, "%s", text.buf);
	cr_assert_eq(count_in(text.buf, "class=\"group hidden\" data-owner=\"u\""), 1, "%s",
		     text.buf);
	strbuf_reset(&text);
	cr_assert_eq(fs_read_small_file(log, 4 << 20, &text, &err), 0, "%s", err.msg);
	cr_assert_null(strstr(text.buf, ":CONSOLE"), "no console message: %s", text.buf);
	{
		cleanup_free char *shot = xasprintf("%s/build/report-triage-owner.png",
						     test_source_root());
		cleanup_free char *filtered = xasprintf("%s#owner=k:team-gemm", html);

		chromium_open(filtered, NULL, shot, log);
		cr_assert(access(shot, R_OK) == 0, "no screenshot %s", shot);
	}
}

/* The known-issues file in a sweep (docs/sweep.md "Known issues"): the
 * results line on disk carries the mark; --ignore-known lets a night
 * where only a known failure regressed exit 0; --fail-on untriaged fails
 * a night whose untriaged failure is only still-failing; an expired rule
 * is said on stderr and in summary.md and marks nothing. */
TestSuite(known_sweep, .init = init, .fini = fini, .timeout = 300);

static char *rules_file(void)
{
	static const char text[] = "issues:\n"
				   "  - id: BUG-11\n"
				   "    link: https://bugs.example/11\n"
				   "    owner: runtime-team\n"
				   "    match: {outcome: MAF, case: '*case-0*'}\n"
				   "  - id: BUG-12\n"
				   "    link: https://bugs.example/12\n"
				   "    owner: nobody\n"
				   "    expires: 2020-01-31\n"
				   "    match: {outcome: MAF}\n";
	/* Not beside the database: what reads it found it by its name. */
	cleanup_free char *dir = xasprintf("%s/team", tenv.root);
	char *path = xasprintf("%s/known-issues.yaml", dir);
	struct error err;

	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(fs_write_atomic(path, text, strlen(text), 0644, &err), 0, "%s", err.msg);
	return path;
}

Test(known_sweep, marks_at_the_import_ignore_known_fail_on_untriaged_and_an_expired_rule)
{
	cleanup_free char *rules = rules_file();
	cleanup_free char *folder = NULL, *results = NULL, *summary = NULL, *json = NULL;
	const char *plain[] = { "--known-issues", rules, NULL };
	const char *ignore[] = { "--known-issues", rules, "--ignore-known", NULL };
	const char *untriaged[] = { "--known-issues", rules, "--fail-on", "untriaged", NULL };
	struct tool_run r;

	add_case("case-0", "pass");
	add_case("case-1", "pass");
	add_case("case-2", "pass");
	night(&r, plain);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);

	/* Night 2: only the known failure regressed: --ignore-known exits 0. */
	set_scenario("case-0", "scenario=maf\n");
	night(&r, ignore);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "rule BUG-12 expired on 2020-01-31: it marks nothing known"),
		  "%s", r.err.buf);
	folder = folder_of(&r);
	tool_run_release(&r);
	results = xasprintf("%s/results.jsonl", folder);
	summary = xasprintf("%s/summary.md", folder);
	json = xasprintf("%s/summary.json", folder);
	/* The line on disk carries the signature; the import marked it. */
	cr_assert(file_has(results, "\"known\":null"), "the line on disk is not marked");
	cr_assert(file_has(results, "\"signature\":{\"id\":"), "the line carries the signature");
	cr_assert(file_has(json, "\"BUG-11\""));
	cr_assert(file_has(summary, "1 known failure(s) not counted (--ignore-known)"));
	cr_assert(file_has(summary, "rule BUG-12 expired on 2020-01-31"), "the report says so");
	/* A merge without --known-issues reads the file the sweep started with. */
	{
		const char *argv[] = { "sweep", "--workdir", tenv.workdir, "--merge", folder, "-q",
				       NULL };

		cr_assert(unlink(summary) == 0);
		tool_run(&r, argv, sw.env);
		cr_assert_eq(r.status, 0, "%s", r.err.buf);
		cr_assert(file_has(summary, "1 known failure(s) not counted (--ignore-known)"));
		tool_run_release(&r);
	}

	/* Night 3: case-1 breaks too, untriaged: exit 1 even with --ignore-known. */
	set_scenario("case-1", "scenario=maf\n");
	night(&r, ignore);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	tool_run_release(&r);

	/* Night 4: nothing changes. Still-failing is not exit 1 by default... */
	night(&r, plain);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	/* ...but an untriaged failure is with --fail-on untriaged. */
	night(&r, untriaged);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	free(folder);
	folder = folder_of(&r);
	tool_run_release(&r);
	free(summary);
	summary = xasprintf("%s/summary.md", folder);
	cr_assert(file_has(summary, "1 untriaged failure(s) (--fail-on untriaged)"));

	/* history known: BUG-11 matched case-0 on nights 2 to 5; BUG-12 expired. */
	{
		const char *argv[] = { "history", "known", "--db", sw.dbpath, "--label", "nightly",
				       "--known-issues", rules, NULL };

		tool_run(&r, argv, sw.env);
		cr_assert_eq(r.status, 0, "%s", r.err.buf);
		cr_assert(strstr(r.out.buf, "| BUG-11 | runtime-team | https://bugs.example/11 | 4 | 1 | "
					    "4 | "), "%s", r.out.buf);
		cr_assert(strstr(r.out.buf, "| 0 | 0 | 0 | - | expired |"), "%s", r.out.buf);
		tool_run_release(&r);
	}
	/* Without --known-issues and no file beside the database: exit 64. */
	{
		const char *argv[] = { "history", "known", "--db", sw.dbpath, NULL };

		tool_run(&r, argv, sw.env);
		cr_assert_eq(r.status, 64, "%s", r.err.buf);
		cr_assert(strstr(r.err.buf, "known-issues.yaml") &&
			  strstr(r.err.buf, "--known-issues FILE"), "%s", r.err.buf);
		tool_run_release(&r);
	}
}

/* Issue 30's library: 20 cases x 3 images. Fault A (a memory fault in one
 * GEMM kernel, printed with other addresses, GPU nodes, colour and
 * AMD_LOG_LEVEL prefixes per case) hits cases 0-11 on images a and b;
 * fault B (a fatal API error) cases 12-14 on image a; case 15 fails its
 * D2H checks on image c. A known-issues rule names fault A. */
TestSuite(triage_library, .init = init, .fini = fini, .timeout = 900);

#define LIB_CASES 20

static const char *lib_image(int i)
{
	static char names[3][128];

	if (i == 0)
		return SIM_IMAGE;
	if (!names[i][0]) {
		cleanup_free char *cmd = NULL;

		snprintf(names[i], sizeof(names[i]), "hrr-sim-triage-%c:%s", 'a' + i,
			 getenv("HRR_IMAGE_TAG") ? getenv("HRR_IMAGE_TAG") : "dev");
		cmd = xasprintf("docker tag %s %s", SIM_IMAGE, names[i]);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
	}
	return names[i];
}

/* The fault planted in case c on image i this night (faults: which of A,
 * B, C are planted), or NULL. */
static const char *planted(const char *faults, int c, int i)
{
	if (strchr(faults, 'A') && c < 12 && i < 2)
		return "maf";
	if (strchr(faults, 'B') && c >= 12 && c < 15 && i == 0)
		return "fatal";
	if (strchr(faults, 'C') && c == 15 && i == 2)
		return "d2h-fail";
	return NULL;
}

static char *library_plan(const char *faults)
{
	cleanup_cjson cJSON *root = cJSON_CreateObject();
	cJSON *cases = cJSON_AddArrayToObject(root, "cases");
	cleanup_free char *text = NULL;
	char *path = xasprintf("%s/plan-%s.json", tenv.root, *faults ? faults : "none");
	struct error err;

	for (int c = 0; c < LIB_CASES; c++)
		for (int i = 0; i < 3; i++) {
			cJSON *e = cJSON_CreateObject();
			const char *fault = planted(faults, c, i);

			{
				cleanup_free char *a = xasprintf("%s/case-%02d/capture.hrr/pid-4242",
								 sw.library, c);
				cleanup_free char *n = xasprintf("case-%02d", c);

				cJSON_AddStringToObject(e, "archive", a);
				cJSON_AddStringToObject(e, "name", n);
			}
			cJSON_AddStringToObject(e, "image", lib_image(i));
			if (fault)
				cJSON_AddStringToObject(cJSON_AddObjectToObject(e, "env"),
							"HRR_SIM_SCENARIO", fault);
			cJSON_AddItemToArray(cases, e);
		}
	text = cJSON_Print(root);
	cr_assert_eq(fs_write_atomic(path, text, strlen(text), 0644, &err), 0, "%s", err.msg);
	return path;
}

/* One night over the library's plan, with extra arguments. */
static void library_night(struct tool_run *r, const char *faults, const char *const *extra)
{
	cleanup_free char *plan = library_plan(faults);
	const char *argv[32] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				 "--sysfs-root", sw.sysfs4, "--db", sw.dbpath, "--timeout", "120",
				 "--plan", plan, "--label", "library", "--diagnose", "off", "-q" };
	size_t n = 17;

	for (size_t i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	tool_run_within(r, argv, sw.env, 600);
}

static void library_cases(void)
{
	for (int c = 0; c < LIB_CASES; c++) {
		cleanup_free char *name = xasprintf("case-%02d", c);
		/* Fault A as the runtime prints it on different hosts and days:
		 * its own address, GPU node, colour, log prefix. */
		cleanup_free char *scenario = xasprintf(
			"scenario=pass\nreason=unknown\n"
			"kernel=Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1\n"
			"fault_addr=0x7f%02x%06x000\ngpu_node=%d\n%s", c, 0x1000 * (c + 1), 2 + c % 4,
			c % 3 == 0 ? "format=color\n" : c % 3 == 1 ? "format=pid-prefix\n" : "");

		add_case(name, "pass");
		set_scenario(name, scenario);
	}
}

static char *library_rules(void)
{
	static const char text[] = "issues:\n"
				   "  - id: BUG-A\n"
				   "    link: https://bugs.example/A\n"
				   "    owner: gemm-team\n"
				   "    match: {outcome: MAF, kernel_family: 'hipblaslt_gemm/*'}\n";
	char *path = xasprintf("%s/known-issues.yaml", tenv.root);
	struct error err;

	cr_assert_eq(fs_write_atomic(path, text, strlen(text), 0644, &err), 0, "%s", err.msg);
	return path;
}

Test(triage_library, twenty_cases_three_images_three_signatures_one_known)
{
	cleanup_free char *rules = library_rules();
	cleanup_free char *folder = NULL, *summary = NULL, *json = NULL;
	const char *ignore[] = { "--known-issues", rules, "--ignore-known", NULL };
	const char *untriaged[] = { "--known-issues", rules, "--fail-on", "untriaged", NULL };
	struct tool_run r;

	library_cases();
	library_night(&r, "", ignore);
	cr_assert_eq(r.status, 0, "night 1, all pass: %s", r.err.buf);
	tool_run_release(&r);

	/* Night 2: only the known fault regressed (24 results): exit 0. */
	library_night(&r, "A", ignore);
	folder = folder_of(&r);
	summary = xasprintf("%s/summary.md", folder);
	if (r.status != 0) {
		cleanup_strbuf struct strbuf md = STRBUF_INIT;

		(void)fs_read_small_file(summary, 1 << 20, &md, ERROR_DISCARD);
		cr_assert_fail("only the known failure regressed, exit %d: %s", r.status, md.buf);
	}
	tool_run_release(&r);
	cr_assert(file_has(summary, "0 untriaged signature(s), 1 known issue(s)."));
	cr_assert(file_has(summary, "| BUG-A | gemm-team | https://bugs.example/A | 24 | 12 | 2 | 1 |"),
		  "one known issue covering 24 results, 12 cases on 2 images, one signature");
	cr_assert(file_has(summary, "24 known failure(s) not counted (--ignore-known)"));
	free(folder);
	free(summary);

	/* Night 3: B and C break too: two untriaged signatures, exit 1. */
	library_night(&r, "ABC", ignore);
	cr_assert_eq(r.status, 1, "untriaged regressions fail: %s", r.err.buf);
	folder = folder_of(&r);
	tool_run_release(&r);
	summary = xasprintf("%s/summary.md", folder);
	json = xasprintf("%s/summary.json", folder);
	cr_assert(file_has(summary, "2 untriaged signature(s), 1 known issue(s)."));
	cr_assert(file_has(summary, "| 3 | 3 | 1 |"), "fault B: 3 results, 3 cases, 1 image");
	cr_assert(file_has(summary, "| 1 | 1 | 1 |"), "fault C: 1 result");
	cr_assert(file_has(json, "\"BUG-A\""));
	cr_assert(file_has(summary, "| BUG-A | gemm-team | https://bugs.example/A | 24 | 12 | 2 | 1 |"));
	free(folder);
	free(summary);

	/* Night 4: nothing changes. B and C are still-failing, which is not
	 * exit 1 by default, but is with --fail-on untriaged. */
	library_night(&r, "ABC", ignore);
	cr_assert_eq(r.status, 0, "still-failing alone: %s", r.err.buf);
	tool_run_release(&r);
	library_night(&r, "ABC", untriaged);
	cr_assert_eq(r.status, 1, "--fail-on untriaged: %s", r.err.buf);
	folder = folder_of(&r);
	tool_run_release(&r);
	summary = xasprintf("%s/summary.md", folder);
	cr_assert(file_has(summary, "4 untriaged failure(s) (--fail-on untriaged)"), "B's 3 and C's 1");
}
