/* A bad GPU told from a bad kernel (docs/sweep.md "Suspect GPUs"), against
 * the real engine and the simulator on the four fake GPUs of
 * tests/fixtures/sysfs/mi300x-4: HRR_SIM_FAIL_ON_RENDER=128 makes every
 * replay on GPU 0 a MAF, so its cases fail there and pass elsewhere. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"

static struct tenv_sweep sw;
static char *const sysfs4 = sw.sysfs4, *const dbpath = sw.dbpath,
	    *const library = sw.library;
static const char **const extra_env = sw.env;

static void gpus_init(void)
{
	tenv_init_sweep(&sw);
}

TestSuite(sweep_gpus, .init = gpus_init, .fini = tenv_fini, .timeout = 300);

static void add_pass_cases(int n)
{
	cleanup_free char *src = fixture_root("pass");

	for (int i = 0; i < n; i++) {
		cleanup_free char *cmd = xasprintf("mkdir -p '%s/c%d' && cp -r '%s' '%s/c%d/'", library,
						   i, src, library, i);

		cr_assert_eq(system(cmd), 0, "%s", cmd);
	}
}

static void sweep_run(struct tool_run *r, const char *const *args)
{
	const char *argv[64] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				 "--sysfs-root", sysfs4, "--db", dbpath, "--timeout", "120",
				 "--image", SIM_IMAGE, "--archive", library,
				 "--env", "HRR_SIM_FAIL_ON_RENDER=128", "-q" };
	size_t n = 18;

	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	tool_run(r, argv, extra_env);
}

static const cJSON *gpu_note(const cJSON *summary, int gpu)
{
	const cJSON *g;

	cJSON_ArrayForEach(g, cJSON_GetObjectItem(summary, "suspect_gpus"))
		if ((int)cJSON_GetNumberValue(cJSON_GetObjectItem(g, "gpu")) == gpu)
			return g;
	return NULL;
}

Test(sweep_gpus, a_gpu_that_fails_every_case_is_quarantined_and_its_cases_pass_elsewhere)
{
	struct tool_run r;
	const char *args[] = { "--retry-failed", "1", "--quarantine-gpus", "--jobs", "2",
			       "--format", "json", NULL };
	cleanup_cjson cJSON *s = NULL;
	const cJSON *c, *note;
	size_t on_zero_after = 0, cases = 0;

	add_pass_cases(6);
	sweep_run(&r, args);
	s = cJSON_Parse(r.out.buf);
	cr_assert_not_null(s, "summary.json: %s\n%s", r.out.buf, r.err.buf);
	note = gpu_note(s, 0);
	cr_assert_not_null(note, "GPU 0 is noted: %s", r.out.buf);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(note, "quarantined")));
	cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(note, "reason")),
			 "cases failed on GPU 0 and passed on another GPU"), "%s", r.out.buf);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(note, "unique_id")),
			 "2102120316582010921", "the KFD unique_id of node 1");
	cr_expect_null(gpu_note(s, 1), "the good GPUs are not suspect");
	{
		const cJSON *q = cJSON_GetObjectItem(s, "quarantined_gpus");

		cr_expect_eq(cJSON_GetArraySize(q), 1);
		cr_expect_eq((int)cJSON_GetNumberValue(cJSON_GetArrayItem(q, 0)), 0);
	}
	/* Every case ends PASS: none is a kernel's failure. */
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(s, "cases")) {
		cases++;
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(c, "outcome")), "PASS",
				 "%s", cJSON_GetStringValue(cJSON_GetObjectItem(c, "case")));
		if ((int)cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItem(c, "gpus"), 0)) == 0)
			on_zero_after++;
	}
	cr_expect_eq(cases, 6);
	cr_expect_eq(on_zero_after, 0, "no final attempt ran on the quarantined GPU");
	cr_expect(strstr(r.err.buf, "GPU 0 is suspect"), "%s", r.err.buf);
	tool_run_release(&r);

	/* history gpus: GPU 0's identity fails, the others do not. */
	const char *hist[] = { "history", "gpus", "--db", dbpath, "--format", "json", NULL };
	cleanup_cjson cJSON *h = NULL;
	const cJSON *g;
	bool saw_bad = false;

	tool_run(&r, hist, extra_env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	h = cJSON_Parse(r.out.buf);
	cr_assert_not_null(h, "%s", r.out.buf);
	cJSON_ArrayForEach(g, cJSON_GetObjectItem(h, "gpus")) {
		const char *uid = cJSON_GetStringValue(cJSON_GetObjectItem(g, "unique_id"));
		double rate = cJSON_GetNumberValue(cJSON_GetObjectItem(g, "failure_rate"));

		if (!strcmp(uid, "2102120316582010921")) {
			saw_bad = true;
			cr_expect_eq(rate, 1.0, "every attempt on GPU 0 failed");
		} else {
			cr_expect_eq(rate, 0.0, "%s", uid);
		}
	}
	cr_expect(saw_bad, "%s", r.out.buf);
	tool_run_release(&r);
}

/* junit.xml with a workload failure (and its rerun), infrastructure errors
 * (an image that is not there) and cases that failed only on the bad GPU
 * and passed on another (flakyError: the GPU's failure, not flaky cases): valid against the tests' XSD, read back by
 * python3-junitparser (failure, error) and, for what Debian 12's
 * junitparser predates (flakyError, rerunFailure, properties), by the
 * standard XML parser. */
Test(sweep_gpus, junit_tells_workload_from_infrastructure_and_flaky)
{
	struct tool_run r;
	const char *args[] = { "--image", "i23-no-such-image:none", "--pull", "never",
			       "--retry-failed", "1", "--quarantine-gpus", "--jobs", "1",
			       "--format", "json", NULL };
	cleanup_cjson cJSON *s = NULL;
	cleanup_free char *junit = NULL, *py = NULL, *xsd = NULL, *maf = NULL, *cmd = NULL;
	const cJSON *kinds;

	add_pass_cases(2);
	maf = fixture_root("maf");
	cmd = xasprintf("mkdir -p '%s/m' && cp -r '%s' '%s/m/'", library, maf, library);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	sweep_run(&r, args);
	cr_expect_eq(r.status, 5, "an infrastructure error: exit 5 as documented\n%s", r.err.buf);
	s = cJSON_Parse(r.out.buf);
	cr_assert_not_null(s, "%s\n%s", r.out.buf, r.err.buf);
	kinds = cJSON_GetObjectItem(s, "kinds");
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(kinds, "workload_failed")), 1);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(kinds, "infrastructure")), 3);
	/* The two pass cases failed only on the bad GPU: the GPU's failure,
	 * not flaky cases. */
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(kinds, "flaky")), 0);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(kinds, "failed_only_on_suspect_gpu")), 2);
	junit = xasprintf("%s/sweeps/%s/junit.xml", tenv.workdir,
			  cJSON_GetStringValue(cJSON_GetObjectItem(s, "sweep")));
	xsd = xasprintf("%s/tests/fixtures/junit/junit.xsd", test_source_root());
	free(cmd);
	cmd = xasprintf("xmllint --noout --schema '%s' '%s'", xsd, junit);
	cr_assert_eq(system(cmd), 0, "junit.xml validates against the XSD: %s", cmd);
	py = xasprintf(
		"/usr/bin/python3 -c \"import sys\n"
		"from junitparser import JUnitXml, Failure, Error\n"
		"x = JUnitXml.fromfile(sys.argv[1])\n"
		"res = [(c.name, type(r).__name__) for s in x for c in s for r in c.result]\n"
		"assert sum(1 for n, t in res if t == 'Failure') == 1, res\n"
		"assert sum(1 for n, t in res if t == 'Error') == 3, res\n"
		"import xml.etree.ElementTree as ET\n"
		"t = ET.parse(sys.argv[1])\n"
		"ff = t.findall('.//testcase/flakyError')\n"
		"assert len(ff) == 2, len(ff)\n"
		"assert not t.findall('.//testcase/flakyFailure')\n"
		"assert all('GPU 0' in f.find('system-out').text for f in ff)\n"
		"assert len(t.findall('.//testcase/rerunFailure')) == 1\n"
		"s = [s for s in t.findall('testsuite') if s.get('name') == sys.argv[2]][0]\n"
		"p = {e.get('name'): e.get('value') for e in s.findall('properties/property')}\n"
		"assert p['library/m/capture.hrr/pid-4242.kind'] == 'workload', p\n"
		"assert p['library/m/capture.hrr/pid-4242.fault_class'] == 'illegal_memory_access', p\n"
		"assert p['library/c0/capture.hrr/pid-4242.gpu_unique_ids'] != '2102120316582010921', p\n"
		"assert p['image_id'].startswith('sha256:'), p\n"
		"b = [s for s in t.findall('testsuite') if s.get('name') != sys.argv[2]][0]\n"
		"q = {e.get('name'): e.get('value') for e in b.findall('properties/property')}\n"
		"assert q['library/m/capture.hrr/pid-4242.kind'] == 'infrastructure', q\n"
		"\" '%s' '%s'", junit, SIM_IMAGE);
	cr_assert_eq(system(py), 0, "junitparser and ElementTree read it back: %s", junit);
	tool_run_release(&r);
}
