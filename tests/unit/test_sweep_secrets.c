/* Records others may read carry no `-e` values:
 * plan.json keeps names, the values go to the caller's own 0600
 * run-options.json, and an older sweep folder is migrated on resume. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "tests/support/scratch.h"

static char *root, *folder;

static void setup(void)
{
	struct error err;

	root = scratch_dir("sweep-secrets");
	cr_assert_eq(sweep_folder_create(root, "n-1", &folder, &err), 0, "%s", err.msg);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(folder);
}

TestSuite(sweep_secrets, .init = setup, .fini = teardown);

static void one_case(struct sweep_meta *m)
{
	struct sweep_case *c;

	sweep_meta_init(m);
	m->id = xstrdup("n-1");
	m->label = xstrdup("n");
	m->run_options = xstrdup("{\"timeout_s\":5,\"env\":[\"HF_TOKEN=hf_run_secret\"]}");
	c = sweep_plan_push(&m->plan);
	c->name = xstrdup("a");
	c->archive = xstrdup("/a/pid-1");
	c->image = xstrdup("i");
	strvec_push(&c->env, "API_KEY=case_secret");
	sweep_meta_add_image(m, "i");
}

static void read_text(const char *name, struct strbuf *out)
{
	cleanup_free char *path = xasprintf("%s/%s", folder, name);
	struct error err;

	cr_assert_eq(fs_read_small_file(path, 1 << 20, out, &err), 0, "%s", err.msg);
}

Test(sweep_secrets, plan_json_keeps_names_and_the_private_file_the_values)
{
	struct sweep_meta m, back;
	struct error err;
	cleanup_strbuf struct strbuf plan = STRBUF_INIT, cases = STRBUF_INIT;
	cleanup_free char *priv = xasprintf("%s/%s", folder, SWEEP_PRIVATE_FILE);
	struct stat st;

	one_case(&m);
	cr_assert_eq(sweep_meta_write(&m, folder, &err), 0, "%s", err.msg);
	read_text(SWEEP_PLAN_FILE, &plan);
	read_text(SWEEP_CASES_FILE, &cases);
	cr_assert_null(strstr(plan.buf, "hf_run_secret"), "%s", plan.buf);
	cr_assert_null(strstr(cases.buf, "case_secret"), "%s", cases.buf);
	cr_assert(strstr(plan.buf, "HF_TOKEN"), "%s", plan.buf);
	cr_assert(strstr(cases.buf, "\"API_KEY\":\"<not recorded>\""), "%s", cases.buf);
	cr_assert_eq(stat(priv, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	sweep_meta_init(&back);
	cr_assert_eq(sweep_meta_read(&back, folder, &err), 0, "%s", err.msg);
	cr_assert(strstr(back.run_options, "HF_TOKEN=hf_run_secret"), "%s", back.run_options);
	cr_assert_str_eq(back.plan.cases[0].env.v[0], "API_KEY=case_secret");
	sweep_meta_release(&back);
	/* Someone else could have written it: refused, not used. */
	cr_assert_eq(chmod(priv, 0622), 0);
	sweep_meta_init(&back);
	cr_assert_eq(sweep_meta_read(&back, folder, &err), -1);
	cr_assert(strstr(err.msg, SWEEP_PRIVATE_FILE) && strstr(err.msg, "only you can write"), "%s",
		  err.msg);
	sweep_meta_release(&back);
	sweep_meta_release(&m);
}

Test(sweep_secrets, an_older_sweep_is_migrated_on_resume)
{
	struct sweep_meta m, back;
	struct error err;
	cleanup_strbuf struct strbuf plan = STRBUF_INIT;
	cleanup_free char *priv = xasprintf("%s/%s", folder, SWEEP_PRIVATE_FILE);

	one_case(&m);
	cr_assert_eq(sweep_meta_write(&m, folder, &err), 0, "%s", err.msg);
	/* What an older version left: plan.json with the values, no private file. */
	cr_assert_eq(unlink(priv), 0);
	{
		cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_PLAN_FILE);
		const char *old = "{\"version\":1,\"sweep\":\"n-1\",\"label\":\"n\",\"images\":[{\"ref\":\"i\"}],"
				  "\"run_options\":{\"env\":[\"HF_TOKEN=hf_run_secret\"]},"
				  "\"cases\":[{\"name\":\"a\",\"archive\":\"/a/pid-1\",\"image\":\"i\","
				  "\"env\":{\"API_KEY\":\"case_secret\"}}]}";

		cr_assert_eq(fs_write_atomic(path, old, strlen(old), 0644, &err), 0, "%s", err.msg);
	}
	sweep_meta_init(&back);
	cr_assert_eq(sweep_meta_read(&back, folder, &err), 0, "%s", err.msg);
	cr_assert(!back.has_private);
	cr_assert(strstr(back.run_options, "hf_run_secret"), "the values still reach the run");
	cr_assert_eq(sweep_meta_migrate(&back, folder, &err), 0, "%s", err.msg);
	read_text(SWEEP_PLAN_FILE, &plan);
	read_text(SWEEP_CASES_FILE, &plan);
	cr_assert_null(strstr(plan.buf, "hf_run_secret"), "%s", plan.buf);
	cr_assert_null(strstr(plan.buf, "case_secret"), "%s", plan.buf);
	sweep_meta_release(&back);
	sweep_meta_init(&back);
	cr_assert_eq(sweep_meta_read(&back, folder, &err), 0, "%s", err.msg);
	cr_assert(back.has_private && strstr(back.run_options, "hf_run_secret"));
	cr_assert_str_eq(back.plan.cases[0].env.v[0], "API_KEY=case_secret");
	sweep_meta_release(&back);
	sweep_meta_release(&m);
}

Test(sweep_secrets, notify_urls_stay_in_the_private_file)
{
	struct sweep_meta m, back;
	struct error err;
	cleanup_strbuf struct strbuf plan = STRBUF_INIT;

	one_case(&m);
	m.notify = xstrdup("[{\"url\":\"https://hooks.example.com/T0/hook_secret\",\"format\":\"json\"},"
			   "{\"url\":\"env:TEAM_HOOK\",\"format\":\"slack\"}]");
	cr_assert_eq(sweep_meta_write(&m, folder, &err), 0, "%s", err.msg);
	read_text(SWEEP_PLAN_FILE, &plan);
	cr_assert_null(strstr(plan.buf, "hook_secret"), "%s", plan.buf);
	cr_assert_null(strstr(plan.buf, "hooks.example.com"), "%s", plan.buf);
	cr_assert_null(strstr(plan.buf, "TEAM_HOOK"), "%s", plan.buf);
	sweep_meta_init(&back);
	cr_assert_eq(sweep_meta_read(&back, folder, &err), 0, "%s", err.msg);
	cr_assert(back.notify && strstr(back.notify, "hook_secret") && strstr(back.notify, "env:TEAM_HOOK"),
		  "a resume and the merge job read them back: %s", back.notify ? back.notify : "(null)");
	sweep_meta_release(&back);
	sweep_meta_release(&m);
}
