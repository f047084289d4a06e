/* orchestrator/replay/diagnose: the bounded child a debugger runs in, and what an
 * agent run left in a run folder's diagnostics/. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "images/sim-tools/agent_report.h"
#include "orchestrator/replay/diagnose.h"
#include "tests/support/scratch.h"

static char *run_dir;

static void setup(void)
{
	run_dir = scratch_dir("diagnose");
}

static void teardown(void)
{
	scratch_remove(run_dir);
	free(run_dir);
}

TestSuite(diagnose, .init = setup, .fini = teardown, .timeout = 30);

static int quick(void *ctx)
{
	return *(int *)ctx;
}

static int stuck(void *ctx)
{
	(void)ctx;
	for (;;)
		pause();
	return 0;
}

Test(diagnose, a_child_that_ends_gives_its_status)
{
	struct error err = { 0 };
	int seven = 7, status = -1;

	cr_assert_eq(diagnose_bounded(quick, &seven, 5, &status, &err), 0, "%s", err.msg);
	cr_assert_eq(status, 7);
}

Test(diagnose, a_stuck_child_is_killed_at_the_bound)
{
	struct error err = { 0 };
	int status = -1;

	cr_assert_eq(diagnose_bounded(stuck, NULL, 0.2, &status, &err), 1);
	cr_assert_eq(status, -1, "no status for a child that did not end");
}

/* The simulator's agent run: its log and its saved code object. */
static void fake_agent_run(const char *reason, bool save)
{
	struct agent_report ar = { .pid = 99, .wave_id = 5, .load_base = 0x7f0000000000ull,
				   .kernel = "void at::native::index_kernel_impl<at::native::OpaqueType<8> >()",
				   .reason = reason };
	char *dir = xasprintf("%s/%s", run_dir, DIAGNOSE_DIR);
	char *cos = xasprintf("%s/%s", dir, DIAGNOSE_CODE_OBJECTS);
	char *log = xasprintf("%s/%s", dir, DIAGNOSE_AGENT_LOG);
	struct error err = { 0 };
	FILE *f;

	cr_assert_eq(fs_mkdir_p(cos, 0755, &err), 0, "%s", err.msg);
	f = fopen(log, "w");
	fprintf(f, "[HRR] replay start\n");
	agent_report_print(f, &ar);
	fprintf(f, "Aborted (core dumped)\n");
	fclose(f);
	if (save)
		cr_assert_eq(agent_report_save(cos, &ar), 0);
	free(dir);
	free(cos);
	free(log);
}

Test(diagnose, an_agent_runs_log_and_code_object_become_the_diagnosis)
{
	struct diagnosis d;
	bool co = false;

	fake_agent_run("ASSERT_TRAP", true);
	diagnose_agent_collect(run_dir, DIAGNOSE_DIR "/" DIAGNOSE_AGENT_LOG, &d);
	cr_assert_eq(d.status, DIAGNOSIS_OK, "%s", d.summary);
	cr_assert_str_eq(d.reason, "ASSERT_TRAP");
	cr_assert_str_eq(d.instruction, "s_trap 2");
	cr_assert_str_eq(d.files.v[0], "diagnostics/agent.log");
	for (size_t i = 0; i < d.files.n; i++)
		co |= !strncmp(d.files.v[i], "diagnostics/code-objects/memory___99_offset_0x7f0000000000_size_", 64);
	cr_assert(co);
	cr_assert_eq(d.notes.n, 0, "%s", d.notes.n ? d.notes.v[0] : "");
	diagnosis_release(&d);
}

Test(diagnose, a_missing_code_object_or_log_is_said)
{
	struct diagnosis d;

	diagnose_agent_collect(run_dir, DIAGNOSE_DIR "/" DIAGNOSE_AGENT_LOG, &d);
	cr_assert_eq(d.status, DIAGNOSIS_FAILED);
	cr_assert(strstr(d.summary, "no log"), "%s", d.summary);
	diagnosis_release(&d);
	fake_agent_run("MEMORY_VIOLATION", false);
	diagnose_agent_collect(run_dir, DIAGNOSE_DIR "/" DIAGNOSE_AGENT_LOG, &d);
	cr_assert_eq(d.status, DIAGNOSIS_OK);
	cr_assert(strstr(d.notes.v[d.notes.n - 1], "no saved code object matches"),
		  "%s", d.notes.v[d.notes.n - 1]);
	diagnosis_release(&d);
}
