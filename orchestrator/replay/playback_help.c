#include "orchestrator/replay/playback_help.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/replay/playback_args.h"
#include "orchestrator/replay/replay_unit_plan.h"

/* Both streams, as printed: builds differ in where usage goes. */
static int collect(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	struct strbuf *sb = ud;
	size_t room = PLAYBACK_HELP_MAX - sb->len;

	(void)stream;
	strbuf_add(sb, data, len < room ? len : room);
	return 0;
}

int unit_playback_flags_unlisted(const struct unit_run *u, struct strvec *out, struct error *err)
{
	cleanup_strbuf struct strbuf help = STRBUF_INIT;
	cleanup_free char *diag = xasprintf("%s/diagnostics", u->run_dir);
	cleanup_free char *path = xasprintf("%s/hrr-playback-help.txt", diag);
	struct container_spec spec;
	long status = -1;
	int rc;

	unit_query_spec(u, "--help", &spec);
	rc = unit_oneoff_run(u, &spec, collect, &help, &status, err);
	container_spec_release(&spec);
	if (rc < 0)
		return -1;
	/* A loader failure (127) or a crash prints no usage: then nothing
	 * is known of the flags, rather than every one "not listed". */
	if (status == 127 || !strcasestr(help.buf, "usage"))
		return error_set(err, ERR_DATA, 0, "hrr-playback --help printed no usage (status %ld)",
				 status);
	/* Evidence for the note; not having it changes nothing. */
	if (mkdir(diag, 0755) == 0 || errno == EEXIST)
		(void)fs_write_atomic(path, help.buf, help.len, 0644, ERROR_DISCARD);
	playback_args_unlisted(u->desc->playback_args, help.buf, out);
	return 0;
}
