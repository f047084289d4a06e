/* The replay container's seccomp option from the engine's architecture:
 * seccomp_engine_option() (seccomp_profile.h). Apart from the profile
 * itself so that the profile and its checks build without the engine
 * client (the fuzzers). */
#include "orchestrator/seccomp/seccomp_profile.h"

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "docker/engine.h"

/* A site's profile file: the engine's default profile is ~20 KiB. */
#define SECCOMP_FILE_MAX (1u << 20)

static int profile_arch(struct engine *e, uint32_t *arch, struct error *err)
{
	cleanup_free char *name = NULL;

	if (engine_arch(e, &name, err) < 0)
		return error_prefix(err, "the engine's architecture (for --seccomp): ");
	return seccomp_arch_from_engine(name, arch, err);
}

/* A site's profile: read, checked for the engine's arch, compacted. */
static int site_profile(const char *path, uint32_t arch, struct strbuf *json,
			struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *root = NULL;
	cleanup_free char *compact = NULL;

	if (fs_read_small_file(path, SECCOMP_FILE_MAX, &text, err) < 0 ||
	    seccomp_profile_validate(text.buf, text.len, arch, err) < 0) {
		err->kind = ERR_USAGE;
		return error_prefix(err, "--seccomp %s: ", path);
	}
	root = cJSON_ParseWithLength(text.buf, text.len);
	compact = root ? cJSON_PrintUnformatted(root) : NULL;
	if (!compact)
		return error_set(err, ERR_SYSTEM, 0, "--seccomp %s: out of memory", path);
	strbuf_addstr(json, compact);
	return 0;
}

int seccomp_engine_option(struct engine *e, const struct seccomp_choice *c, bool allow_ptrace,
			  char **profile, char **opt, cJSON **record, struct strvec *notes,
			  struct error *err)
{
	cleanup_strbuf struct strbuf json = STRBUF_INIT;
	struct seccomp_profile_opts po = { .allow_ptrace = allow_ptrace };

	*profile = NULL;
	*opt = NULL;
	*record = NULL;
	if (c->mode == SECCOMP_MODE_UNCONFINED)
		*opt = xstrdup("seccomp=unconfined");
	if (c->mode == SECCOMP_MODE_REPLAY || c->mode == SECCOMP_MODE_FILE) {
		if (profile_arch(e, &po.arch, err) < 0)
			return -1;
		if (c->mode == SECCOMP_MODE_FILE ? site_profile(c->path, po.arch, &json, err)
						 : seccomp_profile_build(&po, &json, notes, err))
			return -1;
		*profile = xstrdup(json.buf);
	}
	*record = seccomp_record_json(c, json.len ? json.buf : NULL);
	return 0;
}
