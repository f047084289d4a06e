#include "orchestrator/replay/playback_help.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/replay/image.h"
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

/* The image's own hrr-playback says the same for every case of a sweep:
 * its usage is kept per image ID and playback path, so it is asked once
 * per image. An overlay's playback is a host file that may change between
 * runs: never kept. */
static char *cache_file(const struct unit_run *u)
{
	cleanup_free char *kind = NULL;

	if (u->desc->overlay)
		return NULL;
	kind = xasprintf("playback-help-%016llx",
			 text_fnv1a64(TEXT_FNV1A64_INIT, u->playback, strlen(u->playback)));
	return image_cache_path(u->host->cache_dir, u->desc->image->id, kind, ".txt");
}

static int ask(const struct unit_run *u, struct strbuf *help, struct error *err)
{
	struct container_spec spec;
	long status = -1;
	int rc;

	unit_query_spec(u, "--help", &spec);
	rc = unit_oneoff_run(u, &spec, collect, help, &status, err);
	container_spec_release(&spec);
	if (rc < 0)
		return -1;
	/* A loader failure (127) or a crash prints no usage: then nothing
	 * is known of the flags, rather than every one "not listed". */
	if (status == 127 || !strcasestr(help->buf, "usage"))
		return error_set(err, ERR_DATA, 0, "hrr-playback --help printed no usage (status %ld)",
				 status);
	return 0;
}

int unit_playback_flags_unlisted(const struct unit_run *u, struct strvec *out, struct error *err)
{
	cleanup_strbuf struct strbuf help = STRBUF_INIT;
	cleanup_free char *diag = xasprintf("%s/diagnostics", u->run_dir);
	cleanup_free char *path = xasprintf("%s/hrr-playback-help.txt", diag);
	cleanup_free char *cached = cache_file(u);

	if (!cached || fs_read_private_file(cached, PLAYBACK_HELP_MAX, &help, ERROR_DISCARD) < 0 ||
	    !strcasestr(help.buf, "usage")) {
		strbuf_reset(&help);
		if (ask(u, &help, err) < 0)
			return -1;
		/* Only saves the next case a container. */
		if (cached && fs_mkdir_p(u->host->cache_dir, 0700, ERROR_DISCARD) == 0)
			(void)fs_write_atomic(cached, help.buf, help.len, 0600, ERROR_DISCARD);
	}
	/* Evidence for the note; not having it changes nothing. */
	if (mkdir(diag, 0755) == 0 || errno == EEXIST)
		(void)fs_write_atomic(path, help.buf, help.len, 0644, ERROR_DISCARD);
	playback_args_unlisted(u->desc->playback_args, help.buf, out);
	return 0;
}

int unit_playback_flags_check(const struct unit_run *u, struct error *err)
{
	const struct replay_desc *d = u->desc;
	cleanup_strbuf struct strbuf list = STRBUF_INIT;
	struct strvec unlisted = STRVEC_INIT;
	struct error e;

	if (!d->playback_args || !d->playback_args->n)
		return 0;
	if (unit_playback_flags_unlisted(u, &unlisted, &e) < 0) {
		if (e.kind != ERR_INTERRUPTED)
			events_info(d->events, d->verbosity,
				    "note: hrr-playback --help could not run (%s): whether it "
				    "knows the --playback-arg flags is not known", e.msg);
		return 0;
	}
	for (size_t i = 0; i < unlisted.n; i++)
		strbuf_addf(&list, "%s%s", i ? ", " : "", unlisted.v[i]);
	strvec_clear(&unlisted);
	if (!list.len)
		return 0;
	return error_set(err, ERR_USAGE, 0,
			 "--playback-arg: the hrr-playback of %s does not list %s in its --help: "
			 "refused before the replay (a build skips a flag it does not know and may "
			 "read its value as the archive)", d->image->ref, list.buf);
}
