/* The replay container's seccomp option from the engine's architecture:
 * seccomp_engine_option() (seccomp_profile.h). Apart from the profile
 * itself so that the profile and its checks build without the engine
 * client (the fuzzers). */
#include "orchestrator/seccomp/seccomp_profile.h"
#include "orchestrator/seccomp/seccomp_json.h"

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

/* A site's profile: read, parsed once and checked for the engine's arch. */
static int site_profile(const char *path, uint32_t arch, cJSON **out, struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	*out = NULL;
	if (fs_read_small_file(path, SECCOMP_FILE_MAX, &text, err) == 0) {
		*out = cJSON_ParseWithLength(text.buf, text.len);
		if (seccomp_profile_check(*out, arch, err) == 0)
			return 0;
		cJSON_Delete(*out);
		*out = NULL;
	}
	err->kind = ERR_USAGE;
	return error_prefix(err, "--seccomp %s: ", path);
}

struct seccomp_record {
	cJSON *json;
};

cJSON *seccomp_record_to_json(const struct seccomp_record *r)
{
	return cJSON_Duplicate(r->json, 1);
}

void seccomp_record_free(struct seccomp_record *r)
{
	if (r)
		cJSON_Delete(r->json);
	free(r);
}

int seccomp_engine_option(struct engine *e, const struct seccomp_choice *c, bool allow_ptrace,
			  char **profile, char **opt, struct seccomp_record **record,
			  struct strvec *notes, struct error *err)
{
	struct seccomp_profile_opts po = { .allow_ptrace = allow_ptrace };
	cleanup_cjson cJSON *tree = NULL;

	*profile = NULL;
	*opt = NULL;
	*record = NULL;
	if (c->mode == SECCOMP_MODE_UNCONFINED)
		*opt = xstrdup("seccomp=unconfined");
	if (c->mode == SECCOMP_MODE_REPLAY || c->mode == SECCOMP_MODE_FILE) {
		if (profile_arch(e, &po.arch, err) < 0)
			return -1;
		if (c->mode == SECCOMP_MODE_FILE ? site_profile(c->path, po.arch, &tree, err)
						 : seccomp_profile_tree(&po, &tree, notes, err))
			return -1;
		/* The engine gets it compact, as the docker CLI sends it. */
		*profile = cJSON_PrintUnformatted(tree);
		if (!*profile)
			return error_set(err, ERR_SYSTEM, 0, "seccomp profile: out of memory");
	}
	*record = xmalloc(sizeof(**record));
	(*record)->json = seccomp_record_json(c, steal_pointer(&tree));
	return 0;
}
