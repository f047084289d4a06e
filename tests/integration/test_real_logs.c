/* The real-log corpus (tests/fixtures/real-logs) through the whole run
 * path: each case of an issue-40 capability (its expect file's
 * "capability: §1.N" or "§2") is printed by the simulator as the replay's
 * output (scenario=replay-log), and `run`'s finding agrees with
 * `analyze`'s on the log the run recorded: outcome, fault class, kernel
 * and labels. `make fidelity` holds analyze to the expectations. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"
#include "tests/support/scratch.h"

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : "(null)";
}

/* The case's "capability:" and "outcome:" lines; false for a base case. */
static bool capability_case(const char *dir, char *outcome, size_t n)
{
	cleanup_free char *path = xasprintf("%s/expect", dir);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	const char *cap, *out;

	if (fs_read_small_file(path, 1 << 16, &text, ERROR_DISCARD) < 0)
		return false;
	cap = strstr(text.buf, "\ncapability: ");
	out = strstr(text.buf, "\noutcome: ");
	if (!cap || !out || !strncmp(cap + 13, "base", 4))
		return false;
	snprintf(outcome, n, "%.*s", (int)strcspn(out + 10, "\n"), out + 10);
	return true;
}

/* An archive like the pass fixture (its capture.hrr under root) whose
 * replay prints the case's log. */
static char *archive_printing(const char *case_dir, const char *name, bool pass)
{
	cleanup_free char *src = fixture_root("pass");
	char *root = xasprintf("%s/real-%s", tenv.workdir, name);
	cleanup_free char *cmd = xasprintf("rm -rf '%s' && mkdir -p '%s' && cp -r '%s' '%s/' && "
					   "cp '%s/replay.log' '%s/capture.hrr/pid-4242/sim-log'",
					   root, root, src, root, case_dir, root);
	cleanup_free char *scenario = xasprintf("%s/capture.hrr/pid-4242/sim-scenario", root);
	FILE *f;

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	f = fopen(scenario, "w");
	cr_assert_not_null(f);
	fprintf(f, "scenario=replay-log\nexit=%d\n", pass ? 0 : 1);
	fclose(f);
	return root;
}

Test(real_logs, run_and_analyze_agree_on_every_capability_case, .init = tenv_init,
     .fini = tenv_fini, .timeout = 900)
{
	cleanup_free char *corpus = xasprintf("%s/tests/fixtures/real-logs", test_source_root());
	struct dirent **names;
	int n = scandir(corpus, &names, NULL, alphasort), checked = 0;

	cr_assert_geq(n, 0, "%s", corpus);
	for (int i = 0; i < n; i++) {
		cleanup_free char *dir = xasprintf("%s/%s", corpus, names[i]->d_name);
		cleanup_free char *root = NULL, *pid_dir = NULL, *log = NULL;
		cleanup_cjson cJSON *run = NULL, *an = NULL;
		struct tool_run r, a;
		char outcome[32];

		if (names[i]->d_name[0] == '.' || !capability_case(dir, outcome, sizeof(outcome))) {
			free(names[i]);
			continue;
		}
		root = archive_printing(dir, names[i]->d_name, !strcmp(outcome, "PASS"));
		pid_dir = xasprintf("%s/capture.hrr/pid-4242", root);
		tool_run(&r, (const char *const[]){ "--image", SIM_IMAGE, "--archive", pid_dir,
						    "--workdir", tenv.workdir, "--device-root",
						    tenv.devroot, "--sysfs-root", tenv.sysfs, "-q",
						    "--timeout", "60", NULL },
			 NULL);
		run = read_json(r.run_dir, "finding.json");
		cr_assert_not_null(run, "%s: no finding.json (exit %d):\n%s", names[i]->d_name,
				   r.status, r.err.buf);
		log = xasprintf("%s/replay.log", r.run_dir);
		tool_run(&a, (const char *const[]){ "analyze", "--log", log, "--archive", pid_dir,
						    "--format", "json", NULL },
			 NULL);
		an = cJSON_Parse(a.out.buf);
		cr_assert_not_null(an, "%s: analyze printed no JSON:\n%s", names[i]->d_name,
				   a.err.buf);
		cr_expect_str_eq(jstr(run, "outcome"), jstr(an, "outcome"), "%s", names[i]->d_name);
		cr_expect_str_eq(jstr(run, "fault_class"), jstr(an, "fault_class"), "%s",
				 names[i]->d_name);
		cr_expect_str_eq(jstr(run, "kernel_name"), jstr(an, "kernel_name"), "%s",
				 names[i]->d_name);
		cr_expect_str_eq(jstr(run, "outcome"), outcome, "%s: the corpus expects %s",
				 names[i]->d_name, outcome);
		cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(run, "labels")),
			     cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(an, "labels")), "%s",
			     names[i]->d_name);
		checked++;
		tool_run_release(&a);
		tool_run_release(&r);
		free(names[i]);
	}
	free(names);
	cr_assert_geq(checked, 40, "only %d capability cases", checked);
}
