/* The pure half of --notify (orchestrator/notify/notify.h): which
 * transitions a report holds, what a target takes, the document, the
 * idempotency key, the retry schedule, a URL shown without its secret. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/cli/sweep_notify.h"
#include "orchestrator/notify/notify.h"

static struct report_case cases[5];
static struct sweep_gpu_note gpus[2];
static struct report rep;

static void setup(void)
{
	memset(cases, 0, sizeof(cases));
	memset(gpus, 0, sizeof(gpus));
	cases[0] = (struct report_case){ .case_name = "lib/a", .image = "img:1", .outcome = "MAF",
					 .prev_outcome = "PASS", .status = ST_REGRESSED,
					 .fault_class = "memory_fault", .kernel = "gemm<1>",
					 .run_dir = "runs/a-1", .sig_id = "0123456789ab",
					 .sig_family = "gemm",
					 .known_id = "BUG-1", .known_link = "https://bugs/1",
					 .known_owner = "team-gemm" };
	cases[1] = (struct report_case){ .case_name = "lib/b", .image = "img:1", .outcome = "PASS",
					 .prev_outcome = "MAF", .status = ST_FIXED };
	cases[2] = (struct report_case){ .case_name = "lib/c", .image = "img:1", .outcome = "PASS",
					 .prev_outcome = "PASS", .status = ST_PASS };
	cases[3] = (struct report_case){ .case_name = "lib/d", .image = "img:1", .outcome = "HANG",
					 .prev_outcome = "HANG", .status = ST_STILL_FAILING };
	cases[4] = (struct report_case){ .case_name = "lib/e", .image = "img:1", .outcome = "MAF",
					 .prev_outcome = "PASS", .status = ST_REGRESSED,
					 .sig_id = "0123456789ab", .fault_class = "memory_fault",
					 .sig_family = "gemm" };
	gpus[0] = (struct sweep_gpu_note){ .gpu = 2, .unique_id = 77, .reason = "2 cases failed" };
	gpus[1] = (struct sweep_gpu_note){ .gpu = 3, .unique_id = 88, .reason = "hangs" };
	rep = (struct report){ .sweep_id = "n-20260101T000000Z-abcdef", .label = "n",
			       .baseline = "n-20251231T000000Z-123456", .state = SWEEP_FINISHED,
			       .exit_code = 1, .cases = cases, .n = 5, .gpu_notes = gpus,
			       .n_gpu_notes = 2 };
}

TestSuite(notify, .init = setup);

Test(notify, regressions_alarm_fixes_recover_and_new_suspects_are_named)
{
	struct sweep_gpu_note before = { .gpu = 3, .unique_id = 88 };
	struct notify_doc d;

	notify_transitions(&rep, &before, 1, "/w/sweeps/x", &d);
	cr_assert_eq(d.n_alarms, 2);
	cr_assert_eq(d.n_recoveries, 1);
	cr_assert_eq(d.n_gpus, 1, "GPU 3 was suspect in the baseline already");
	cr_assert_eq(d.items[0].c, &cases[0]);
	cr_assert_eq(d.items[2].c, &cases[1]);
	cr_assert_eq(d.items[3].gpu, &gpus[0]);
	notify_doc_release(&d);
}

Test(notify, nothing_changed_is_nothing_to_send)
{
	struct notify_doc d;

	rep.n = 4;
	cases[0].status = ST_STILL_FAILING;
	cases[1].status = ST_PASS;
	rep.n_gpu_notes = 0;
	notify_transitions(&rep, NULL, 0, "/w", &d);
	cr_assert_eq(d.n, 0);
	notify_doc_release(&d);
}

Test(notify, a_target_takes_its_owner_and_not_what_it_was_sent)
{
	struct notify_target owner = { .url = "env:HOOK", .owner = "team-gemm" };
	struct notify_doc d;
	cleanup_strvec struct strvec sent = STRVEC_INIT;

	notify_transitions(&rep, NULL, 0, "/w", &d);
	notify_select(&d, &owner, NULL);
	cr_assert_eq(d.n, 1, "only the known failure of team-gemm");
	cr_assert_eq(d.items[0].c, &cases[0]);
	notify_doc_release(&d);

	notify_transitions(&rep, NULL, 0, "/w", &d);
	strvec_push(&sent, d.items[0].key);
	strvec_push(&sent, d.items[2].key);
	notify_select(&d, NULL, &sent);
	cr_assert_eq(d.n_alarms, 1);
	cr_assert_eq(d.n_recoveries, 0);
	cr_assert_eq(d.n_gpus, 2);
	notify_doc_release(&d);
}

Test(notify, the_key_is_the_same_for_the_same_transitions)
{
	struct notify_doc a, b;
	cleanup_strbuf struct strbuf ka = STRBUF_INIT, kb = STRBUF_INIT, kc = STRBUF_INIT;

	notify_transitions(&rep, NULL, 0, "/w", &a);
	notify_transitions(&rep, NULL, 0, "/elsewhere", &b);
	notify_key(&a, &ka);
	notify_key(&b, &kb);
	cr_assert_str_eq(ka.buf, kb.buf);
	cr_assert(!strncmp(ka.buf, "n-20260101T000000Z-abcdef:", 26), "%s", ka.buf);
	notify_select(&b, &(struct notify_target){ .url = "x", .owner = "team-gemm" }, NULL);
	notify_key(&b, &kc);
	cr_assert_str_neq(ka.buf, kc.buf);
	notify_doc_release(&a);
	notify_doc_release(&b);
}

Test(notify, the_document_has_counts_links_signatures_and_its_key)
{
	struct notify_doc d;
	cleanup_strbuf struct strbuf body = STRBUF_INIT, key = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	const cJSON *sigs, *a0;

	notify_transitions(&rep, NULL, 0, "/w/sweeps/x", &d);
	notify_render(&d, NOTIFY_FORMAT_JSON, &body);
	notify_key(&d, &key);
	j = cJSON_Parse(body.buf);
	cr_assert_not_null(j, "%s", body.buf);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "schema")), NOTIFY_SCHEMA);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "idempotency_key")), key.buf);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "report")),
			 "/w/sweeps/x/report.html");
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "counts"), "alarms")->valueint, 2);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "recoveries")), 1);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "suspect_gpus")), 2);
	a0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "alarms"), 0);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(a0, "finding")),
			 "/w/sweeps/x/runs/a-1/finding.md");
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(a0, "known"),
								  "owner")), "team-gemm");
	sigs = cJSON_GetObjectItem(j, "signatures");
	cr_assert_eq(cJSON_GetArraySize(sigs), 1, "two alarms, one signature: %s", body.buf);
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(sigs, 0), "cases")->valueint, 2);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(j, "recoveries"), 0), "signature")));
	notify_doc_release(&d);
}

Test(notify, slack_gets_a_text_with_the_key_and_clean_names)
{
	struct notify_doc d;
	cleanup_strbuf struct strbuf body = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	const char *text;

	cases[0].case_name = "lib/\x1b[31mred\x1b[0m";
	notify_transitions(&rep, NULL, 0, "/w", &d);
	notify_render(&d, NOTIFY_FORMAT_SLACK, &body);
	j = cJSON_Parse(body.buf);
	cr_assert_eq(cJSON_GetArraySize(j), 1, "only text: %s", body.buf);
	text = cJSON_GetStringValue(cJSON_GetObjectItem(j, "text"));
	cr_assert(strstr(text, "2 alarm(s), 1 recover(ies), 2 GPU(s) newly suspect"), "%s", text);
	cr_assert(strstr(text, "ALARM regressed lib/red @ img:1: PASS -> MAF memory_fault gemm "
			       "(known BUG-1)"), "%s", text);
	cr_assert(strstr(text, "RECOVERED lib/b"), "%s", text);
	cr_assert(strstr(text, "idempotency key n-20260101T000000Z-abcdef:"), "%s", text);
	cr_assert_null(strchr(text, '\x1b'));
	notify_doc_release(&d);
}

/* Names from captures, logs and rules: no mention, no link, no markup. */
Test(notify, slack_escapes_markup_and_mentions_in_every_field)
{
	struct notify_doc d;
	cleanup_strbuf struct strbuf body = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	const char *text;

	cases[0].case_name = "lib/<!channel> <https://evil|open report.html> a&b";
	cases[0].sig_family = "@channel";
	cases[0].image = "@here:1";
	notify_transitions(&rep, NULL, 0, "/w/@everyone", &d);
	notify_render(&d, NOTIFY_FORMAT_SLACK, &body);
	j = cJSON_Parse(body.buf);
	text = cJSON_GetStringValue(cJSON_GetObjectItem(j, "text"));
	cr_assert(strstr(text, "ALARM regressed lib/&lt;!channel&gt; &lt;https://evil|open "
			       "report.html&gt; a&amp;b @ @\u2060here:1: "), "%s", text);
	cr_assert(strstr(text, " @\u2060channel "), "%s", text);
	cr_assert(strstr(text, "Report: /w/@\u2060everyone/report.html"), "%s", text);
	cr_assert_null(strchr(text, '<'), "%s", text);
	cr_assert_null(strstr(text, "@channel"), "%s", text);
	cr_assert_null(strstr(text, "@here"), "%s", text);
	cr_assert_null(strstr(text, "@everyone"), "%s", text);
	notify_doc_release(&d);
}

/* A GPU-time change point the import found (docs/perf.md "Change
 * points"): announced alone (a night without alarms sends it), in the
 * document and in the chat text, escaped there; no owner takes it. */
Test(notify, change_points_are_announced_and_escaped)
{
	static const struct report_changepoint cp = {
		.case_name = "lib/<!here> gemm&co", .image = "rocm:nightly", .gfx = "gfx942",
		.sweep = "n-20260101T000000Z-abcdef", .image_id_before = "sha256:aaaa",
		.image_id_after = "sha256:bbbb", .device_id = 29857, .ratio = 1.1, .p = 0.005,
		.median_before = 40, .median_after = 44,
	};
	struct notify_doc d;
	cleanup_strbuf struct strbuf body = STRBUF_INIT, slack = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL, *t = NULL;
	const cJSON *c0;
	const char *text;

	rep.n = 0;
	rep.n_gpu_notes = 0;
	rep.changepoints = &cp;
	rep.n_changepoints = 1;
	notify_transitions(&rep, NULL, 0, "/w", &d);
	cr_assert_eq(d.n, 1);
	cr_assert_eq(d.n_changes, 1);
	notify_render(&d, NOTIFY_FORMAT_JSON, &body);
	notify_render(&d, NOTIFY_FORMAT_SLACK, &slack);
	j = cJSON_Parse(body.buf);
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "counts"), "change_points")->valueint,
		     1);
	c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "change_points"), 0);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(c0, "case")), cp.case_name);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(c0, "night")), cp.sweep);
	cr_assert_float_eq(cJSON_GetObjectItem(c0, "ratio")->valuedouble, 1.1, 1e-12);
	cr_assert_eq(cJSON_GetObjectItem(c0, "device_id")->valueint, 29857);
	t = cJSON_Parse(slack.buf);
	text = cJSON_GetStringValue(cJSON_GetObjectItem(t, "text"));
	cr_assert(strstr(text, "0 alarm(s), 0 recover(ies), 0 GPU(s) newly suspect, 1 GPU-time "
			       "change point(s)"), "%s", text);
	cr_assert(strstr(text, "\nGPU-TIME CHANGE lib/&lt;!here&gt; gemm&amp;co @ rocm:nightly "
			       "(gfx942): +10.0% from sweep n-20260101T000000Z-abcdef (median "
			       "40.0 -> 44.0 ms, p 0.005; image ID sha256:aaaa -> sha256:bbbb)"),
		  "%s", text);
	cr_assert_null(strchr(text, '<'), "%s", text);
	notify_select(&d, &(struct notify_target){ .url = "x", .owner = "team-gemm" }, NULL);
	cr_assert_eq(d.n, 0, "a change point belongs to no owner");
	notify_doc_release(&d);
}

Test(notify, the_schedule_retries_what_may_pass_and_backs_off)
{
	cr_assert_eq(notify_backoff_s(1), 1);
	cr_assert_eq(notify_backoff_s(2), 2);
	cr_assert_eq(notify_backoff_s(3), 4);
	cr_assert(notify_should_retry(0));
	cr_assert(notify_should_retry(500));
	cr_assert(notify_should_retry(503));
	cr_assert(notify_should_retry(429));
	cr_assert(!notify_should_retry(200));
	cr_assert(!notify_should_retry(404));
	cr_assert(!notify_should_retry(401));
	/* The whole delivery is bounded: every attempt and every wait. */
	cr_assert_leq(NOTIFY_ATTEMPT_TIMEOUT_S * 2 + notify_backoff_s(1) + notify_backoff_s(2),
		      NOTIFY_DEADLINE_S);
}

Test(notify, a_url_is_shown_without_its_secret_parts)
{
	cleanup_free char *a = notify_url_shown("https://hooks.slack.com/services/T0/B0/XXXXsecret");
	cleanup_free char *b = notify_url_shown("http://user:pw@127.0.0.1:8080/hook?token=s3cret");
	cleanup_free char *c = notify_url_shown("env:TEAM_HOOK");
	cleanup_free char *d = notify_url_shown("not a url");

	cr_assert_str_eq(a, "https://hooks.slack.com/…");
	cr_assert_str_eq(b, "http://127.0.0.1:8080/…");
	cr_assert_str_eq(c, "env:TEAM_HOOK");
	cr_assert_null(strstr(d, "not a url"));
}

Test(notify, env_names_are_read_when_sending)
{
	char *url = NULL;
	struct error err;

	setenv("HRR_TEST_HOOK", "http://127.0.0.1:1/x", 1);
	cr_assert_eq(notify_url_resolve("env:HRR_TEST_HOOK", &url, &err), 0);
	cr_assert_str_eq(url, "http://127.0.0.1:1/x");
	free(url);
	unsetenv("HRR_TEST_HOOK");
	cr_assert_eq(notify_url_resolve("env:HRR_TEST_HOOK", &url, &err), -1);
	cr_assert(strstr(err.msg, "env:HRR_TEST_HOOK") && strstr(err.msg, "not set"), "%s", err.msg);
}

/* The known-issues file's owners become targets after --notify's, each
 * taking only its owner's failures, in its own format. */
Test(notify, owners_of_the_known_issues_file_are_targets_of_their_own)
{
	static const char text[] = "owners:\n"
				   "  gemm-team: {notify: env:GEMM_HOOK, format: slack}\n"
				   "  runtime: {notify: [https://hooks.example/a, https://hooks.example/b]}\n";
	struct sweep_options so;
	struct sweep_notify sn;
	struct known_issues k;
	struct error err;

	cr_assert_eq(known_issues_parse("k.yaml", text, sizeof(text) - 1, &k, &err), 0, "%s",
		     err.msg);
	sweep_options_init(&so);
	strvec_push(&so.notify, "https://hooks.example/all");
	sweep_notify_init(&sn, &so, NULL, "/f");
	sweep_notify_add_owners(&sn, &k);
	cr_assert_eq(sn.n, 4);
	cr_assert_str_eq(sn.targets[0].url, "https://hooks.example/all");
	cr_assert_null(sn.targets[0].owner, "--notify takes every transition");
	cr_assert_str_eq(sn.targets[1].url, "env:GEMM_HOOK");
	cr_assert_str_eq(sn.targets[1].owner, "gemm-team");
	cr_assert_eq(sn.targets[1].format, NOTIFY_FORMAT_SLACK);
	cr_assert_str_eq(sn.targets[3].url, "https://hooks.example/b");
	cr_assert_str_eq(sn.targets[3].owner, "runtime");
	cr_assert_eq(sn.targets[3].format, NOTIFY_FORMAT_JSON);
	sweep_notify_add_owners(&sn, NULL);
	cr_assert_eq(sn.n, 4, "no file: nothing more");
	sweep_notify_release(&sn);
	sweep_options_release(&so);
	known_issues_release(&k);
}
