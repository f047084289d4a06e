/* The quarantine path of a sweep with the engine's "could not stop" faked:
 * a case whose replay survives its worker takes its GPU out of the pool,
 * is named in the outcome, and the summary says so (docs/sweep.md). */
#include <criterion/criterion.h>
#include <string.h>

#include "common/cleanup.h"
#include "orchestrator/report/report.h"
#include "tests/support/report_text.h"
#include "orchestrator/sweep/sweep_quarantine.h"
#include "orchestrator/sweep/sweep_run.h"
#include "orchestrator/sweep/sweep_sched.h"

struct fake_engine_state {
	const char *running;  /* the one run id whose container still runs */
	int asked;
	char last[16];
};

static bool fake_alive(void *ctx, const char *run_id)
{
	struct fake_engine_state *e = ctx;

	e->asked++;
	snprintf(e->last, sizeof(e->last), "%s", run_id);
	return e->running && !strcmp(run_id, e->running);
}

Test(sweep_quarantine, only_a_replay_the_engine_still_runs_survived)
{
	struct fake_engine_state e = { .running = "a1b2c3" };

	cr_assert(sweep_replay_survived("runs/pid-4242-a1b2c3", fake_alive, &e));
	cr_assert_str_eq(e.last, "a1b2c3", "the run id is the folder's suffix");
	cr_assert_not(sweep_replay_survived("runs/pid-4242-d4e5f6", fake_alive, &e),
		      "a stopped replay");
	e.asked = 0;
	cr_assert_not(sweep_replay_survived(NULL, fake_alive, &e), "no run folder");
	cr_assert_not(sweep_replay_survived("runs/nodash", fake_alive, &e));
	cr_assert_not(sweep_replay_survived("runs/pid-1-toolongid", fake_alive, &e));
	cr_assert_eq(e.asked, 0, "no run id, no engine call");
}

/* The run id a sweep remembers for a replay its engine took away, to
 * remove that container once the engine is back. */
Test(sweep_quarantine, a_run_id_is_the_run_folders_six_character_suffix)
{
	char id[SWEEP_RUN_ID_LEN + 1] = "";

	cr_assert(sweep_run_id_of("runs/pid-4242-20261202T062239Z-aaf058", id));
	cr_assert_str_eq(id, "aaf058");
	cr_assert_not(sweep_run_id_of(NULL, id));
	cr_assert_not(sweep_run_id_of("runs/nodash", id));
	cr_assert_not(sweep_run_id_of("runs/pid-1-toolongid", id));
	cr_assert_not(sweep_run_id_of("runs/pid-1-", id));
}

Test(sweep_quarantine, a_gpu_that_could_not_be_stopped_leaves_the_pool_and_the_summary_names_it)
{
	struct fake_engine_state e = { .running = "a1b2c3" };
	struct sweep_run_outcome out = { 0 };
	struct sweep_sched s;
	cleanup_strbuf struct strbuf md = STRBUF_INIT, json = STRBUF_INIT;
	int pool[] = { 0, 1, 2 };
	size_t id;
	int g[4], first[4];
	bool q;

	sweep_sched_init(&s, pool, 3, 0, 0);
	for (size_t i = 0; i < 4; i++)
		sweep_sched_add(&s, i, 1);
	cr_assert_eq(sweep_sched_next(&s, &id, first), SCHED_START);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(g[0], 1);
	/* Case on GPU 1 ends, its replay still running: quarantined. */
	q = sweep_replay_survived("runs/pid-4242-a1b2c3", fake_alive, &e);
	cr_assert(q);
	sweep_quarantine_record(out.quarantined, &out.n_quarantined, g, 1);
	sweep_sched_finish(&s, g, 1, q);
	/* Case on GPU 0 ends normally. */
	q = sweep_replay_survived("runs/pid-4243-d4e5f6", fake_alive, &e);
	cr_assert_not(q);
	sweep_sched_finish(&s, first, 1, q);
	cr_assert_eq(out.n_quarantined, 1);
	cr_assert_eq(out.quarantined[0], 1);
	cr_assert(sweep_sched_is_quarantined(&s, 1));
	cr_assert_eq(sweep_sched_usable(&s), 2);
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
		cr_assert_neq(g[0], 1, "never the quarantined GPU again");
	}

	struct report r = { .sweep_id = "q-1", .label = "q", .state = SWEEP_FINISHED,
			    .tool_version = "1", .quarantined = out.quarantined,
			    .n_quarantined = out.n_quarantined };

	report_finish(&r);
	cr_assert_eq(report_text(report_summary_md, &r, &md, ERROR_DISCARD), 0);
	cr_assert_eq(report_text(report_summary_json, &r, &json, ERROR_DISCARD), 0);
	cr_assert(strstr(md.buf, "## Quarantined GPUs\n\nA replay on these could not be stopped: 1\n"),
		  "%s", md.buf);
	{
		cleanup_cjson cJSON *j = cJSON_Parse(json.buf);
		const cJSON *qg = cJSON_GetObjectItem(j, "quarantined_gpus");

		cr_assert_eq(cJSON_GetArraySize(qg), 1, "%s", json.buf);
		cr_assert_eq(cJSON_GetArrayItem(qg, 0)->valueint, 1);
	}
	sweep_sched_release(&s);
}

Test(sweep_quarantine, only_a_gpu_whose_replay_survived_is_listed_as_unstoppable)
{
	struct sweep_run_outcome out = { 0 };
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	int suspect = 0, stuck = 2;

	/* GPU 0 quarantined as suspect; GPU 2 suspect first, then its replay
	 * survived: the first reason stays, and it is still unstoppable. */
	sweep_quarantine_record(out.quarantined, &out.n_quarantined, &suspect, 1);
	sweep_gpu_note(out.gpu_notes, &out.n_gpu_notes, suspect, 0, true, "3 failures here");
	sweep_gpu_note(out.gpu_notes, &out.n_gpu_notes, stuck, 0, false, "2 failures here");
	sweep_quarantine_record(out.quarantined, &out.n_quarantined, &stuck, 1);
	sweep_gpu_note(out.gpu_notes, &out.n_gpu_notes, stuck, 0, true,
		       "a replay on it could not be stopped")->stuck = true;

	struct report r = { .sweep_id = "q-2", .label = "q", .state = SWEEP_FINISHED,
			    .tool_version = "1", .quarantined = out.quarantined,
			    .n_quarantined = out.n_quarantined, .gpu_notes = out.gpu_notes,
			    .n_gpu_notes = out.n_gpu_notes };

	report_finish(&r);
	cr_assert_eq(report_text(report_summary_md, &r, &md, ERROR_DISCARD), 0);
	cr_assert(strstr(md.buf, "A replay on these could not be stopped: 2\n"), "%s", md.buf);
}

Test(sweep_quarantine, the_list_holds_at_most_its_slots)
{
	struct sweep_run_outcome out = { 0 };
	int gpus[80];

	for (int i = 0; i < 80; i++)
		gpus[i] = i;
	sweep_quarantine_record(out.quarantined, &out.n_quarantined, gpus, 80);
	cr_assert_eq(out.n_quarantined, 64);
	cr_assert_eq(out.quarantined[63], 63);
}
