#include "orchestrator/replay/image.h"
#include "common/cleanup.h"
#include "common/clock.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "preflight/preflight.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void image_facts_release(struct image_facts *f)
{
	free(f->ref);
	free(f->id);
	free(f->digest);
	free(f->repository);
	strvec_clear(&f->env);
	memset(f, 0, sizeof(*f));
	strvec_init(&f->env);
}

/* The inspect's facts move into out. */
static void image_facts_take(struct image_facts *out, struct engine_image_info *info)
{
	out->id = steal_pointer(&info->id);
	out->digest = steal_pointer(&info->digest);
	strvec_clear(&out->env);
	out->env = info->env;
	strvec_init(&info->env);
}

/* The engine's progress events, handed to the caller's sink. */
struct pull_watch {
	const struct job_events *ev;
	int verbosity;
};

static void pull_progress(const struct engine_pull_event *ev, void *ud)
{
	const struct pull_watch *w = ud;
	struct events_pull p = {
		.phase = EVENTS_PULL_STEP, .id = ev->id ? ev->id : "",
		.status = ev->status ? ev->status : "", .current = ev->current, .total = ev->total,
	};

	events_pull(w->ev, w->verbosity, &p);
}

static int pull(struct engine *e, const char *image, const struct job_events *ev, int verbosity,
		const struct image_ref *ref, struct error *err)
{
	struct pull_watch w = { .ev = ev, .verbosity = verbosity };
	cleanup_free char *auth = NULL;
	int ret;

	if (registry_auth_header(ref, &auth, err) < 0)
		return error_prefix(err, "credentials for %s: ", ref->registry);
	events_pull(ev, verbosity, &(struct events_pull){ .phase = EVENTS_PULL_START, .image = image });
	ret = engine_pull_image(e, image, auth, pull_progress, &w, err);
	events_pull(ev, verbosity, &(struct events_pull){ .phase = EVENTS_PULL_END });
	/* The engine client's error names the pull already ("pulling X from R: "). */
	return ret;
}

bool image_pull_brought(const char *id_before, const char *id_after)
{
	return id_after && (!id_before || strcmp(id_before, id_after) != 0);
}

/* What the reference names on the engine before any pull: 0 with *id
 * (NULL when absent; else the inspect's facts stay in inspect), -1 when
 * the engine could not say. */
static int id_before_pull(struct engine *e, const char *image, struct engine_image_info *inspect,
			  const char **id, struct error *err)
{
	*id = NULL;
	if (engine_image_inspect(e, image, inspect, err) == 0) {
		*id = inspect->id;
		return 0;
	}
	return err->kind == ERR_NOT_FOUND ? 0 : -1;
}

int image_ensure(struct engine *e, const char *image, enum pull_policy policy,
		 const struct job_events *ev, int verbosity,
		 struct image_facts *out, struct error *err)
{
	struct image_ref ref = { 0 };
	struct engine_image_info inspect = { 0 };
	cleanup_free char *before = NULL;
	const char *here;
	double t0;
	int ret = -1;

	strvec_init(&out->env);
	out->pull_tried = false;
	if (image_ref_parse(&ref, image, err) < 0) {
		error_prefix(err, "--image: ");
		err->kind = ERR_USAGE;
		return -1;
	}
	out->ref = xstrdup(image);
	out->repository = xstrdup(ref.repository);
	/* --pull always inspects too: a pull that finds the ID the
	 * reference named before brought nothing (the image is the user's). */
	if (id_before_pull(e, image, &inspect, &here, err) < 0)
		goto out;
	if (here && policy != PULL_ALWAYS)
		goto have_image;
	if (!here && policy == PULL_NEVER) {
		error_set(err, ERR_NOT_FOUND, 404,
			  "image %s is not present and --pull never was given; pull it or use --pull missing",
			  image);
		goto out;
	}
	before = here ? xstrdup(here) : NULL;
	engine_image_info_release(&inspect);
	t0 = monotonic_now();
	out->pull_tried = true;
	if (pull(e, image, ev, verbosity, &ref, err) < 0)
		goto out;
	out->pull_s = monotonic_now() - t0;
	if (engine_image_inspect(e, image, &inspect, err) < 0) {
		error_prefix(err, "after pulling %s: ", image);
		goto out;
	}
	out->pulled = image_pull_brought(before, inspect.id);
have_image:
	image_facts_take(out, &inspect);
	ret = 0;
out:
	engine_image_info_release(&inspect);
	image_ref_release(&ref);
	return ret;
}

char *image_cache_path(const char *cache_dir, const char *image_id, const char *kind,
		       const char *suffix)
{
	const char *id = image_id;
	size_t n;

	if (!cache_dir || !*cache_dir || !image_id)
		return NULL;
	if (!strncmp(id, "sha256:", 7))
		id += 7;
	n = strlen(id);
	if (!n || n > 128)
		return NULL;
	for (const char *c = id; *c; c++)
		if (!isalnum((unsigned char)*c))
			return NULL;
	return xasprintf("%s/%s-%s%s", cache_dir, kind, id, suffix);
}

static char *cache_read(const char *cache_dir, const char *image_id)
{
	cleanup_free char *path = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	path = image_cache_path(cache_dir, image_id, "playback", "");
	if (!path || fs_read_private_file(path, 4096, &text, ERROR_DISCARD) < 0)
		return NULL;
	strbuf_trim_trailing_newline(&text);
	/* It becomes the replay's entrypoint: an absolute path of printable
	 * characters, or nothing (the image is probed again). */
	for (size_t i = 0; i < text.len; i++)
		if ((unsigned char)text.buf[i] < 0x20 || text.buf[i] == 0x7f)
			return NULL;
	return text.buf[0] == '/' ? strbuf_detach(&text, NULL) : NULL;
}

static void cache_write(const char *cache_dir, const char *image_id, const char *path)
{
	cleanup_free char *file = NULL;
	cleanup_free char *text = NULL;

	file = image_cache_path(cache_dir, image_id, "playback", "");
	if (!file || fs_mkdir_p(cache_dir, 0700, ERROR_DISCARD) < 0)
		return;
	text = xasprintf("%s\n", path);
	/* A cache that cannot be written only costs the next run a probe. */
	(void)fs_write_atomic(file, text, strlen(text), 0644, ERROR_DISCARD);
}

static bool playback_at(struct engine *e, const char *probe, const char *path,
			struct error *err)
{
	struct engine_path_stat st;
	bool dir;

	if (engine_container_path_stat(e, probe, path, &st, err) < 0)
		return false;
	dir = st.mode & ENGINE_MODE_DIR;
	engine_path_stat_release(&st);
	return !dir;
}

/* The first of candidates that is a file in the image (through the
 * never-started probe): 0 with *out (NULL when none is), -1 when the
 * engine failed. */
static int first_file(struct ours_probe *probe, const struct strvec *candidates, char **out,
		      struct error *err)
{
	const char *probe_id = NULL;

	*out = NULL;
	if (ours_probe_get(probe, &probe_id, err) < 0)
		return -1;
	for (size_t i = 0; i < candidates->n; i++) {
		struct error lookup;

		error_clear(&lookup);
		if (playback_at(probe->engine, probe_id, candidates->v[i], &lookup)) {
			*out = xstrdup(candidates->v[i]);
			return 0;
		}
		if (lookup.kind != ERR_NOT_FOUND && lookup.kind != ERR_NONE) {
			*err = lookup;
			return -1;
		}
	}
	return 0;
}

int image_find_playback_shared(struct ours_probe *probe, const struct image_facts *img,
				const char *cache_dir, char **out, struct error *err)
{
	cleanup_strvec struct strvec candidates = STRVEC_INIT;
	char *cached;

	cached = cache_read(cache_dir, img->id);
	if (cached) {
		*out = cached;
		return 0;
	}
	for (size_t i = 0; i < img->env.n; i++) {
		const char *p;

		if (strncmp(img->env.v[i], "PATH=", 5))
			continue;
		for (p = img->env.v[i] + 5; *p;) {
			size_t len = strcspn(p, ":");

			if (len && p[0] == '/')
				strvec_pushf(&candidates, "%.*s/hrr-playback", (int)len, p);
			p += len;
			if (*p)
				p++;
		}
	}
	strvec_push(&candidates, "/opt/rocm/bin/hrr-playback");

	if (first_file(probe, &candidates, out, err) < 0)
		return error_prefix(err, "looking for hrr-playback in %s: ", img->ref);
	if (!*out)
		return error_set(err, ERR_NOT_FOUND, 0,
				 "hrr-playback not found in image %s (searched its PATH and /opt/rocm/bin); "
				 "give its path with --playback, or overlay a host build with --mount-clr",
				 img->ref);
	cache_write(cache_dir, img->id, *out);
	return 0;
}

int image_find_tool(struct engine *e, const struct image_facts *img, enum diagnose_tool tool,
		    char **out, struct error *err)
{
	struct ours_probe probe = { .engine = e, .image = img->id, .image_name = img->ref };
	cleanup_strvec struct strvec candidates = STRVEC_INIT;
	int r;

	diagnose_tool_candidates(&img->env, tool, &candidates);
	r = first_file(&probe, &candidates, out, err);
	(void)ours_probe_release(&probe, ERROR_DISCARD);
	return r < 0 ? error_prefix(err, "looking for a debugger in %s: ", img->ref) : 0;
}
