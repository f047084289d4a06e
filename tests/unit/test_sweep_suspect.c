/* orchestrator/sweep/suspect.c: a bad GPU told from a bad kernel; and the scheduler's
 * retry that avoids the GPUs a case failed on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/sweep/case_result.h"
#include "orchestrator/sweep/sweep_sched.h"
#include "orchestrator/sweep/suspect.h"
#include "tests/support/report_text.h"

/* A verdict from its names, as a results line spells them. */
static unsigned long long note(struct gpu_suspects *s, size_t idx, const char *case_name,
			       const int *gpus, size_t n, const char *outcome, const char *cls)
{
	struct suspect_verdict v = { OUTCOME_UNKNOWN, FAULT_UNKNOWN };

	cr_assert(finding_outcome_from_name(outcome, &v.outcome), "%s", outcome);
	if (cls)
		finding_fault_class_from_name(cls, &v.fault_class);
	return gpu_suspects_note(s, idx, case_name, gpus, n, &v);
}

Test(sweep_suspect, two_cases_failing_on_one_gpu_and_passing_on_another_make_it_suspect)
{
	struct gpu_suspects s;
	int g0[] = { 0 }, g2[] = { 2 }, g3[] = { 3 };

	gpu_suspects_init(&s, 4);
	cr_expect_eq(note(&s, 1, "lib/b", g0, 1, "MAF", "illegal_memory_access"), 0);
	cr_expect_eq(gpu_suspects_failed_on(&s, 1), 1ull);
	/* One case is as likely a flaky case: not yet. */
	cr_expect_eq(note(&s, 1, "lib/b", g2, 1, "PASS", "replay_pass"), 0);
	cr_expect_not(s.suspect[0]);
	/* The same case again counts once. */
	cr_expect_eq(note(&s, 1, "lib/b", g3, 1, "PASS", NULL), 0);
	cr_expect_eq(note(&s, 2, "lib/c", g0, 1, "MAF", "illegal_memory_access"), 0);
	cr_expect_eq(note(&s, 2, "lib/c", g3, 1, "PASS", NULL), 1ull,
		     "the second case makes GPU 0 suspect");
	cr_expect(s.suspect[0]);
	cr_expect_str_eq(s.reason[0], "2 cases failed on GPU 0 and passed on another GPU (the "
				      "last: lib/c, on GPU 3)");
	cr_expect_not(s.suspect[2]);
	cr_expect_not(s.suspect[3]);
	gpu_suspects_release(&s);
}

Test(sweep_suspect, a_kernel_failing_everywhere_blames_no_gpu)
{
	struct gpu_suspects s;
	int g0[] = { 0 }, g1[] = { 1 };

	gpu_suspects_init(&s, 2);
	cr_expect_eq(note(&s, 0, "a", g0, 1, "MAF", "illegal_memory_access"), 0);
	cr_expect_eq(note(&s, 0, "a", g1, 1, "MAF", "illegal_memory_access"), 0);
	cr_expect_eq(note(&s, 1, "b", g0, 1, "MAF", "illegal_memory_access"), 0);
	cr_expect_not(s.suspect[0]);
	cr_expect_not(s.suspect[1]);
	gpu_suspects_release(&s);
}

Test(sweep_suspect, two_hangs_or_hardware_exceptions_on_one_gpu)
{
	struct gpu_suspects s;
	int g3[] = { 3 };

	gpu_suspects_init(&s, 3);
	cr_expect_eq(note(&s, 0, "a", g3, 1, "HANG", "hang"), 0);
	cr_expect_eq(note(&s, 1, "b", g3, 1, "ABORT", "replay_aborted"), 1ull << 3);
	cr_expect(strstr(s.reason[3], "twice on GPU 3 (the last: b)"), "%s", s.reason[3]);
	gpu_suspects_release(&s);
}

/* Only classes against the GPU count: two INVALID_ISA aborts
 * (code_object_mismatch) mean a wrong image, an assert or a kernel fault
 * the workload; two ECC errors or hardware exceptions mean the GPU. */
Test(sweep_suspect, only_classes_against_the_gpu_count)
{
	static const char *const workload[] = { "code_object_mismatch", "illegal_instruction",
						"device_assert", "kernel_fault", "out_of_resources",
						"d2h_not_compared", "replay_crashed" };
	struct gpu_suspects s;
	int g1[] = { 1 }, g2[] = { 2 };

	gpu_suspects_init(&s, 16);
	for (size_t i = 0; i < sizeof(workload) / sizeof(workload[0]); i++) {
		cr_expect_eq(note(&s, 2 * i, "a", g1, 1, "ABORT", workload[i]), 0,
			     "%s", workload[i]);
		cr_expect_eq(note(&s, 2 * i + 1, "b", g1, 1, "ABORT", workload[i]), 0,
			     "%s twice", workload[i]);
	}
	cr_expect_eq(note(&s, 14, "c", g2, 1, "ABORT", "gpu_ecc_error"), 0);
	cr_expect_eq(note(&s, 15, "d", g2, 1, "ABORT", "gpu_hw_exception"), 1ull << 2);
	gpu_suspects_release(&s);
}

Test(sweep_suspect, a_retry_takes_another_free_gpu_first)
{
	struct sweep_sched s;
	int pool[] = { 0, 1, 2 }, got[4];
	size_t id;

	sweep_sched_init(&s, pool, 3, 0, 0);
	sweep_sched_add_expected(&s, 7, 1, 1ull << 0, -1);
	cr_assert_eq(sweep_sched_next(&s, &id, got), SCHED_START);
	cr_expect_eq(id, 7);
	cr_expect_eq(got[0], 1, "GPU 0 is avoided while another is free");
	sweep_sched_release(&s);

	/* Only the avoided GPU free: it is taken rather than waiting. */
	sweep_sched_init(&s, pool, 1, 0, 0);
	sweep_sched_add_expected(&s, 8, 1, 1ull << 0, -1);
	cr_assert_eq(sweep_sched_next(&s, &id, got), SCHED_START);
	cr_expect_eq(got[0], 0);
	sweep_sched_release(&s);
}

Test(sweep_suspect, results_carry_gpu_identity_host_and_kind)
{
	struct case_result r = { 0 }, back;
	struct strbuf line = STRBUF_INIT;
	struct error err;

	r.case_name = "a";
	r.image = "i";
	r.state = RESULT_ERROR;
	r.gpu_uids = "2102120316582010921";
	r.host = "node7";
	cr_expect_eq(case_result_kind(&r), RESULT_KIND_INFRA);
	r.state = RESULT_DONE;
	r.has_outcome = true;
	r.outcome = OUTCOME_MAF;
	cr_expect_eq(case_result_kind(&r), RESULT_KIND_WORKLOAD);
	case_result_to_json(&r, &line);
	cr_assert_eq(case_result_parse(&back, line.buf, &err), 0, "%s", err.msg);
	cr_expect_str_eq(back.gpu_uids, "2102120316582010921");
	cr_expect_str_eq(back.host, "node7");
	case_result_release(&back);
	strbuf_release(&line);
}

#include "orchestrator/sweep/suspect_nodes.h"

static struct case_result *add(struct sweep_results *rs, const char *c, const char *host,
				 int gpu, const char *outcome, long long finished)
{
	struct case_result *r;

	rs->v = realloc(rs->v, (rs->n + 1) * sizeof(*rs->v));
	r = &rs->v[rs->n++];
	memset(r, 0, sizeof(*r));
	r->case_name = strdup(c);
	r->image = strdup("img");
	r->state = RESULT_DONE;
	case_result_set_verdict(r, outcome, NULL);
	r->host = strdup(host);
	r->gpus[0] = gpu;
	r->n_gpus = 1;
	r->finished = finished;
	r->attempt = 1;
	return r;
}

static void uids(struct case_result *r, const char *u)
{
	r->gpu_uids = strdup(u);
}

Test(sweep_suspect, a_cluster_resume_excludes_the_nodes_with_a_suspect_gpu)
{
	struct sweep_results rs = { 0 };
	struct strvec hosts = STRVEC_INIT, why = STRVEC_INIT;

	/* On node2 cases a and c failed on GPU 0 and passed on GPU 1; on
	 * node1 a kernel fails on both GPUs (no GPU to blame). */
	add(&rs, "a", "node2", 0, "MAF", 10);
	add(&rs, "c", "node2", 0, "MAF", 10);
	add(&rs, "b", "node1", 0, "MAF", 11);
	add(&rs, "b", "node1", 1, "MAF", 12);
	add(&rs, "a", "node2", 1, "PASS", 13);
	add(&rs, "c", "node2", 1, "PASS", 14);
	sweep_suspect_nodes(&rs, &hosts, &why);
	cr_assert_eq(hosts.n, 1);
	cr_expect_str_eq(hosts.v[0], "node2");
	cr_assert_eq(why.n, 1);
	cr_expect_str_eq(why.v[0], "2 cases failed on node2 GPU 0 and passed on another GPU (the "
				   "last: c, on node2 GPU 1)");
	strvec_clear(&hosts);
	strvec_clear(&why);
	sweep_results_release(&rs);
}

/* The merge of a cluster sweep: a case that failed on node A and passed
 * on node B counts against A's GPU, which no task's parent could see. */
Test(sweep_suspect, a_gpu_failing_on_one_node_and_passing_on_another_is_suspect)
{
	struct sweep_results rs = { 0 };
	struct sweep_gpu_note notes[GPU_MAX];
	size_t n;

	uids(add(&rs, "a", "nodeA", 0, "MAF", 10), "111");
	uids(add(&rs, "b", "nodeA", 0, "MAF", 11), "111");
	uids(add(&rs, "a", "nodeB", 0, "PASS", 12), "222");
	cr_expect_eq(sweep_suspects_of_results(&rs, notes), 0, "one case is as likely flaky");
	uids(add(&rs, "b", "nodeB", 0, "PASS", 13), "222");
	n = sweep_suspects_of_results(&rs, notes);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(notes[0].host, "nodeA");
	cr_expect_eq(notes[0].gpu, 0);
	cr_expect_eq(notes[0].unique_id, 111);
	cr_expect_not(notes[0].quarantined);
	cr_expect_str_eq(notes[0].reason, "2 cases failed on nodeA GPU 0 and passed on another GPU "
					  "(the last: b, on nodeB GPU 0)");
	sweep_results_release(&rs);
}

/* The same ordinal on two nodes is two GPUs; a known unique_id is one GPU
 * whatever its ordinal. */
Test(sweep_suspect, an_ordinal_means_nothing_across_nodes_a_unique_id_does)
{
	struct sweep_results rs = { 0 };
	struct sweep_gpu_note notes[GPU_MAX];
	size_t n;

	/* No unique_ids: GPU 0 of nodeA fails a and b, GPU 0 of nodeB passes
	 * them, so nodeA's GPU 0 (and not nodeB's) is suspect. */
	add(&rs, "a", "nodeA", 0, "MAF", 10);
	add(&rs, "b", "nodeA", 0, "MAF", 11);
	add(&rs, "a", "nodeB", 0, "PASS", 12);
	add(&rs, "b", "nodeB", 0, "PASS", 13);
	n = sweep_suspects_of_results(&rs, notes);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(notes[0].host, "nodeA");
	cr_expect_eq(notes[0].unique_id, 0);
	sweep_results_release(&rs);

	/* Two hardware exceptions on unique_id 7, seen at ordinals 0 and 2. */
	memset(&rs, 0, sizeof(rs));
	uids(add(&rs, "a", "nodeA", 0, "ABORT", 10), "7");
	case_result_set_verdict(&rs.v[0], "ABORT", "replay_aborted");
	uids(add(&rs, "b", "nodeA", 2, "HANG", 11), "7");
	n = sweep_suspects_of_results(&rs, notes);
	cr_assert_eq(n, 1);
	cr_expect_eq(notes[0].unique_id, 7);
	cr_expect_str_eq(notes[0].reason, "a hang or hardware exception twice on nodeA GPU 0 (the "
					  "last: b)");
	sweep_results_release(&rs);
}

/* The merge's summary names each suspect GPU's node. */
#include "orchestrator/report/report.h"

Test(sweep_suspect, a_merged_summary_names_the_node_of_each_suspect_gpu)
{
	struct sweep_gpu_note note = { .gpu = 0, .unique_id = 111, .reason = "2 cases failed" };
	struct report r = { .sweep_id = "s", .label = "l", .gpu_notes = &note, .n_gpu_notes = 1 };
	struct strbuf md = STRBUF_INIT, json = STRBUF_INIT;

	cr_assert_eq(report_text(report_summary_md, &r, &md, ERROR_DISCARD), 0);
	cr_expect(strstr(md.buf, "| GPU | unique_id |"), "a local sweep's table: %s", md.buf);
	strbuf_reset(&md);
	snprintf(note.host, sizeof(note.host), "nodeA");
	cr_assert_eq(report_text(report_summary_md, &r, &md, ERROR_DISCARD), 0);
	cr_expect(strstr(md.buf, "| host | GPU | unique_id | quarantined | why |"), "%s", md.buf);
	cr_expect(strstr(md.buf, "| nodeA | 0 | 111 |"), "%s", md.buf);
	cr_assert_eq(report_text(report_summary_json, &r, &json, ERROR_DISCARD), 0);
	cr_expect(strstr(json.buf, "\"host\":\t\"nodeA\""), "%s", json.buf);
	strbuf_release(&md);
	strbuf_release(&json);
}
