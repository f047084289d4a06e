#include "tests/support/slurm_support.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "tests/support/sim_run.h"

#define DEFAULT_CONF "/var/lib/hrr-docker-replay-test/slurm/etc/slurm.conf"

/* Run argv; its stdout into out (when given); the exit status. */
int slurm_cmd(const char *const *argv, struct strbuf *out)
{
	struct sim_result r;
	struct error err = { 0 };
	int status;

	sim_result_init(&r);
	if (sim_run(argv, NULL, 60, &r, &err) < 0) {
		sim_result_release(&r);
		return -1;
	}
	status = r.timed_out ? -1 : r.status;
	if (out) {
		strbuf_reset(out);
		strbuf_addstr(out, r.out.buf);
	}
	sim_result_release(&r);
	return status;
}

/* Skip unless a controller answers. Clients read SLURM_CONF, else
 * /etc/slurm/slurm.conf; the set-up's own file is tried last. */
void slurm_need_cluster(void)
{
	struct strbuf out = STRBUF_INIT;
	int rc;

	if (!getenv("SLURM_CONF") && access("/etc/slurm/slurm.conf", R_OK) &&
	    !access(DEFAULT_CONF, R_OK))
		setenv("SLURM_CONF", DEFAULT_CONF, 1);
	rc = slurm_cmd((const char *const[]){ "sinfo", "-h", "-o", "%t", NULL }, &out);
	strbuf_release(&out);
	if (rc != 0)
		cr_skip_test("no Slurm cluster answers here (run tests/setup-slurm.sh)");
}

/* State of one job or array task ("<job>_<task>") while the controller
 * still holds its record; "" once it is gone. */
void slurm_state_of(const char *spec, struct strbuf *state)
{
	slurm_cmd((const char *const[]){ "squeue", "-h", "-t", "all", "-j", spec, "-o", "%T", NULL },
	    state);
	strbuf_trim_trailing_newline(state);
}

/* Poll until spec is in state want (or, want NULL, until no task of spec
 * is pending or running); false when the bound passed first. */
bool slurm_wait_state(const char *spec, const char *want)
{
	struct strbuf st = STRBUF_INIT;
	bool ok = false;

	for (int i = 0; i < (int)(SLURM_JOB_BOUND_S * 5) && !ok; i++) {
		if (want) {
			slurm_state_of(spec, &st);
			ok = !strcmp(st.buf, want);
		} else {
			slurm_cmd((const char *const[]){ "squeue", "-h", "-j", spec, "-o", "%T", NULL },
			    &st);
			strbuf_trim_trailing_newline(&st);
			ok = st.len == 0;
		}
		if (!ok)
			usleep(200000);
	}
	strbuf_release(&st);
	return ok;
}

/* The render minor of gres index idx: the idx-th File= line of the
 * gres.conf beside slurm.conf. */
int slurm_render_minor_of_index(unsigned idx)
{
	const char *conf = getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "/etc/slurm/slurm.conf";
	char real[4096], *slash, *path, line[4096];
	FILE *f;
	unsigned n = 0;
	int minor = -1;

	cr_assert_not_null(realpath(conf, real), "%s", conf);
	slash = strrchr(real, '/');
	*slash = '\0';
	path = xasprintf("%s/gres.conf", real);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	while (minor < 0 && fgets(line, sizeof(line), f)) {
		char *file = strstr(line, "File=");
		struct stat st;

		if (!file || line[0] == '#' || n++ != idx)
			continue;
		file[5 + strcspn(file + 5, " \n")] = '\0';
		cr_assert_eq(stat(file + 5, &st), 0, "%s", file + 5);
		cr_assert(S_ISCHR(st.st_mode) && major(st.st_rdev) == 226, "%s", file + 5);
		minor = (int)minor(st.st_rdev);
	}
	fclose(f);
	free(path);
	return minor;
}

