/* The known-issues file: reading, errors naming file, line and rule,
 * matching and expiry (orchestrator/finding/known_issues.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/finding/known_regex.h"

static const char good[] =
	"# reviewed in version control\n"
	"issues:\n"
	"  - id: BUG-1\n"
	"    link: https://bugs.example/1\n"
	"    owner: gemm-team\n"
	"    note: the stream-k tile faults on MI300\n"
	"    match:\n"
	"      fault_class: illegal_memory_access\n"
	"      kernel_family: 'hipblaslt_gemm/*'\n"
	"      image: 're:^rocm/pytorch:(nightly|7\\.[0-9]+)$'\n"
	"  - id: BUG-2\n"
	"    link: https://bugs.example/2\n"
	"    owner: runtime\n"
	"    expires: 2026-01-31\n"
	"    match:\n"
	"      evidence: 'Memory access fault by GPU node-<n>*'\n"
	"owners:\n"
	"  gemm-team: {}\n";

static struct signature sig(const char *kernel, const char *evidence)
{
	struct signature s;

	signature_init(&s);
	signature_make(&s, "MAF", "illegal_memory_access", kernel, evidence, NULL, false);
	return s;
}

Test(known_issues, rules_match_on_parts_with_globs_and_regular_expressions)
{
	struct known_issues k;
	struct error err;
	struct signature gemm = sig("Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_SK3", NULL);
	struct signature other = sig("void k<4>()", "12:00 Memory access fault by GPU node-3 on address 0x1.");
	struct known_subject s = { .sig = &gemm, .case_name = "c1", .image = "rocm/pytorch:7.1" };
	const struct known_rule *r;

	cr_assert_eq(known_issues_parse("known.yaml", good, sizeof(good) - 1, &k, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(k.n, 2);
	cr_assert_eq(k.v[1].line, 11);
	r = known_issues_match(&k, &s, 1700000000);
	cr_assert_not_null(r);
	cr_assert_str_eq(r->id, "BUG-1");
	cr_assert_str_eq(r->owner, "gemm-team");
	s.image = "rocm/pytorch:6.4";
	cr_assert_null(known_issues_match(&k, &s, 1700000000), "the image pattern holds");
	s.sig = &other;
	r = known_issues_match(&k, &s, 1700000000);
	cr_assert(r && !strcmp(r->id, "BUG-2"));
	/* Past its expiry day a rule marks nothing known. */
	cr_assert(known_rule_expired(&k.v[1], 1769904000 + 86400));
	cr_assert_not(known_rule_expired(&k.v[1], 1769904000 - 3600));
	cr_assert_null(known_issues_match(&k, &s, 1769904000 + 86400));
	known_issues_release(&k);
	signature_release(&gemm);
	signature_release(&other);
}

Test(known_issues, an_expired_rule_is_named_with_its_file_line_and_day)
{
	struct known_issues k;
	struct error err;
	struct strvec lines = STRVEC_INIT;

	cr_assert_eq(known_issues_parse("known.yaml", good, sizeof(good) - 1, &k, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(known_issues_expired(&k, 1769904000 - 3600, &lines), 0, "not yet");
	cr_assert_eq(known_issues_expired(&k, 1769904000 + 86400, &lines), 1);
	cr_assert_str_eq(lines.v[0], "known.yaml:11: rule BUG-2 expired on 2026-01-31: it marks "
				     "nothing known (renew or remove it)");
	cr_assert_eq(known_issues_expired(NULL, 1769904000 + 86400, &lines), 0);
	strvec_clear(&lines);
	known_issues_release(&k);
}

static void bad(const char *text, const char *want)
{
	struct known_issues k;
	struct error err;

	cr_assert_eq(known_issues_parse("known.yaml", text, strlen(text), &k, &err), -1, "%s", text);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, want), "want \"%s\" in \"%s\"", want, err.msg);
	cr_assert_null(strchr(err.msg, '\n'), "one line: %s", err.msg);
}

Test(known_issues, a_bad_file_is_one_line_naming_file_line_and_rule)
{
	bad("issues:\n  - id: A\n    link: l\n    owner: o\n    match:\n      evidence: 're:(['\n",
	    "known.yaml:6: rule A: bad regular expression '(['");
	bad("issues:\n  - id: A\n    link: l\n    match: {outcome: MAF}\n", "known.yaml:2: rule A: needs an owner");
	bad("issues:\n  - id: A\n    link: l\n    owner: o\n    match: {colour: red}\n",
	    "rule A: unknown match key 'colour'");
	bad("issues:\n  - id: A\n    link: l\n    owner: o\n    expires: soon\n    match: {outcome: MAF}\n",
	    "known.yaml:5: rule A: expires 'soon' is not a date");
	bad("issues:\n  - link: l\n    owner: o\n    match: {outcome: MAF}\n", "a rule needs an id");
	bad("issues: [\n", "known.yaml:");
	bad("issue:\n  - id: A\n", "unknown top-level key 'issue'");
	bad("issues:\n  - {id: A, link: l, owner: o, match: {outcome: MAF}}\n"
	    "  - {id: A, link: l, owner: o, match: {outcome: FAIL}}\n", "rule A: the id is given twice");
	/* A key twice in one rule (found by the fuzzer: the first id leaked,
	 * the second silently won). */
	bad("issues:\n  - id: A\n    link: l\n    id: B\n    owner: o\n    match: {outcome: MAF}\n",
	    "known.yaml:4: rule A: 'id' is given twice");
	bad("issues:\n  - id: A\n    link: l\n    owner: o\n    link: m\n    match: {outcome: MAF}\n",
	    "known.yaml:5: rule A: 'link' is given twice");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ASan and valgrind builds skip time limits. */
static bool timed(void)
{
#ifdef __SANITIZE_ADDRESS__
	return false;
#else
	const char *preload = getenv("LD_PRELOAD");

	return !getenv("ASAN_OPTIONS") && !(preload && strstr(preload, "vgpreload"));
#endif
}

/* Patterns that would stall or exhaust the host are refused before
 * regcomp, quickly, as one line naming the file, the line and the rule. */
Test(known_issues, hostile_regular_expressions_are_refused_before_regcomp)
{
	static const char *const hostile[][2] = {
		{ "a{32767}{32767}", "a repeat count of 32767 (at most 255)" },
		{ "(((a{20}){20}){20})", "repeats make 8000 copies" },
		{ "(aaaaaaaaaaaaaaaaaaaa){100}", "repeats make 2000 copies" },
		{ "a{200}{200}", "repeats make 40000 copies" },
		{ "a{,9999}", "a repeat count of 9999" },
		{ "(x+x+)+y\\1", "a back-reference \\1" },
		{ "(((a*)*)*)*", "repeats nested 4 deep" },
		{ "((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))",
		  "groups nested over 32 deep" },
	};
	double t0 = now_s();

	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		cleanup_free char *text = xasprintf("issues:\n  - id: A\n    link: l\n    owner: o\n"
						    "    match:\n      evidence: 're:%s'\n",
						    hostile[i][0]);
		cleanup_free char *want = xasprintf("known.yaml:6: rule A: regular expression "
						    "refused: %s", hostile[i][1]);

		bad(text, want);
	}
	{
		cleanup_strbuf struct strbuf long_re = STRBUF_INIT;

		strbuf_addstr(&long_re, "issues:\n  - id: A\n    link: l\n    owner: o\n"
					"    match:\n      evidence: 're:");
		for (int i = 0; i < 600; i++)
			strbuf_addch(&long_re, 'a');
		strbuf_addstr(&long_re, "'\n");
		bad(long_re.buf, "rule A: regular expression refused: a regular expression of 600 "
				 "bytes (at most 512)");
	}
	if (timed())
		cr_assert_lt(now_s() - t0, 2.0, "refusing took %.1f s", now_s() - t0);
}

/* What the bounds keep: ordinary patterns, and a long value is matched
 * on its head only. */
Test(known_issues, ordinary_regular_expressions_pass_and_long_values_are_cut)
{
	static const char text[] = "issues:\n  - id: A\n    link: l\n    owner: o\n"
				   "    match: {evidence: 're:^[[:alpha:]]{3}( [a-z]{2,40}){1,20}$|x\\.y{2}'}\n"
				   "  - id: B\n    link: l\n    owner: o\n"
				   "    match: {evidence: 're:z$'}\n";
	struct known_issues k;
	struct signature sig;
	struct known_subject s = { .sig = &sig };
	cleanup_strbuf struct strbuf ev = STRBUF_INIT;
	struct error err;

	cr_assert_eq(known_issues_parse("known.yaml", text, strlen(text), &k, &err), 0, "%s", err.msg);
	signature_init(&sig);
	signature_from_parts(&sig, "FAIL", "nan_inf_divergence", "k", "abc de fgh", NULL, false);
	cr_assert_str_eq(known_issues_match(&k, &s, 0)->id, "A");
	signature_release(&sig);
	for (int i = 0; i < KNOWN_TEXT_MAX; i++)
		strbuf_addch(&ev, 'q');
	strbuf_addch(&ev, 'z');
	signature_init(&sig);
	signature_from_parts(&sig, "FAIL", "nan_inf_divergence", "k", ev.buf, NULL, false);
	cr_assert_null(known_issues_match(&k, &s, 0), "the byte past the cap was matched");
	signature_release(&sig);
	known_issues_release(&k);
}

/* An alias would be copied under every owner that names it. */
Test(known_issues, an_aliased_owner_list_is_refused)
{
	bad("owners:\n  a: {notify: &hooks [env:A, env:B]}\n  b: {notify: *hooks}\n",
	    "known.yaml:2: an alias (*name) of this value: aliases are not allowed here");
	bad("issues:\n  - id: A\n    link: &l l\n    owner: o\n    note: *l\n"
	    "    match: {outcome: MAF}\n", "known.yaml:3: an alias (*name)");
}

/* The duplicate-key check is a hash set: a mapping of 200,000 distinct
 * keys (a 4 MiB file) is read without comparing every pair; its first
 * wrong key is the error, and a repeat at the end is still found. */
Test(known_issues, a_mapping_of_many_distinct_keys_is_checked_at_once)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct known_issues k;
	struct error err;
	size_t n = 0;

	strbuf_addstr(&text, "owners:\n");
	while (text.len < (4u << 20) - 64)
		strbuf_addf(&text, "  owner-%zu: {}\n", n++);
	cr_assert_eq(known_issues_parse("known.yaml", text.buf, text.len, &k, &err), 0, "%s", err.msg);
	cr_assert_eq(k.n_owners, n);
	known_issues_release(&k);
	strbuf_addstr(&text, "  owner-7: {}\n");
	cr_assert_eq(known_issues_parse("known.yaml", text.buf, text.len, &k, &err), -1);
	cr_assert(strstr(err.msg, "owner owner-7: given twice"), "%s", err.msg);
}

Test(known_issues, owners_name_where_their_alarms_go)
{
	static const char text[] = "issues: []\n"
				   "owners:\n"
				   "  gemm-team:\n"
				   "    notify: env:GEMM_HOOK\n"
				   "    format: slack\n"
				   "  runtime:\n"
				   "    notify: [https://hooks.example/T0/secret, env:RT_HOOK]\n"
				   "  quiet: {}\n";
	struct known_issues k;
	struct error err;

	cr_assert_eq(known_issues_parse("known.yaml", text, sizeof(text) - 1, &k, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(k.n_owners, 3);
	cr_assert_str_eq(k.owners[0].name, "gemm-team");
	cr_assert_eq(k.owners[0].notify.n, 1);
	cr_assert_str_eq(k.owners[0].notify.v[0], "env:GEMM_HOOK");
	cr_assert(k.owners[0].slack);
	cr_assert_eq(k.owners[1].notify.n, 2);
	cr_assert_str_eq(k.owners[1].notify.v[1], "env:RT_HOOK");
	cr_assert_not(k.owners[1].slack);
	cr_assert_eq(k.owners[2].notify.n, 0);
	known_issues_release(&k);
	cr_assert(known_notify_url_valid("https://h/x") && known_notify_url_valid("env:A_1"));
	cr_assert_not(known_notify_url_valid("env:") || known_notify_url_valid("env:A-B") ||
		      known_notify_url_valid("ftp://h/x"));
}

Test(known_issues, a_bad_owner_is_one_line_naming_file_line_and_owner)
{
	bad("owners:\n  gemm-team:\n    notify: ftp://h/secret-token\n",
	    "known.yaml:3: owner gemm-team: notify: give an http:// or https:// URL, or env:NAME");
	bad("owners:\n  gemm-team:\n    notify: env:X\n    format: xml\n",
	    "known.yaml:4: owner gemm-team: format: use json or slack");
	bad("owners:\n  gemm-team:\n    colour: red\n",
	    "known.yaml:3: owner gemm-team: unknown key 'colour' (notify, format)");
	bad("owners:\n  a: {notify: env:X}\n  a: {notify: env:Y}\n", "owner a: given twice");
	/* Every mapping refuses a key twice, not only a rule's: the later
	 * one would silently win over what a reviewer read first. */
	bad("owners:\n  a:\n    format: json\n    format: slack\n",
	    "known.yaml:4: owner a: 'format' is given twice");
	bad("issues: []\nowners: {}\nissues:\n  - {id: A, link: l, owner: o, match: {outcome: MAF}}\n",
	    "known.yaml:3: 'issues' is given twice");
	bad("issues:\n  - id: A\n    link: l\n    owner: o\n    match:\n      outcome: MAF\n"
	    "      outcome: FAIL\n", "known.yaml:7: rule A: match.outcome given twice");
	bad("owners: [x]\n", "known.yaml:1: owners: is a mapping of owner names");
}

Test(known_issues, an_empty_file_has_no_rules)
{
	struct known_issues k;
	struct error err;

	cr_assert_eq(known_issues_parse("known.yaml", "", 0, &k, &err), 0, "%s", err.msg);
	cr_assert_eq(k.n, 0);
	known_issues_release(&k);
}
