/* Podman's Docker-compatible API (podman system service) where it differs
 * from dockerd's in ways the callers of docker/ would see: what a create
 * body must carry, names of events, archive stats, image names, statuses.
 * Each difference is described, with the Podman version it was seen with,
 * in docs/engines.md. Podman's own create, for the annotation the
 * compatible one cannot set, is in docker/libpod.c. */
#include "docker/xfer.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

/* ---- what the engine may grant: the service's own hard limits ---- */

/* Who serves a unix socket (SO_PEERCRED): pid 0 when unknown. */
static struct ucred podman_service_cred(const char *socket_path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cred = { 0 };
	socklen_t len = sizeof(cred);
	int fd;

	if (!socket_path || strlen(socket_path) >= sizeof(sa.sun_path))
		return cred;
	memcpy(sa.sun_path, socket_path, strlen(socket_path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cred;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		memset(&cred, 0, sizeof(cred));
	close(fd);
	return cred;
}

/* One "Max open files  20000  20000  files" line's hard value; 0 when
 * unlimited or unreadable. */
static long long podman_limits_hard(const char *text, const char *name)
{
	const char *line = strstr(text, name);
	char soft[32], hard[32];
	char *end;
	long long v;

	if (!line || sscanf(line + strlen(name), "%31s %31s", soft, hard) != 2)
		return 0;
	errno = 0;
	v = strtoll(hard, &end, 10);
	return errno || *end || v <= 0 ? 0 : v;
}

/* Containers start under conmon and the OCI runtime, children of the
 * service: a limit above the service's own cannot be set without
 * CAP_SYS_RESOURCE. Unknown (tcp://, another pid namespace): 0. */
static void podman_learn_limits(struct engine *e)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	char path[64];
	pid_t pid;

	if (e->podman_limits_known)
		return;
	e->podman_limits_known = true;
	pid = e->is_unix ? podman_service_cred(e->socket_path).pid : 0;
	if (pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/limits", (long)pid);
	if (fs_read_small_file(path, 16384, &text, ERROR_DISCARD) < 0)
		return;
	e->podman_nofile = podman_limits_hard(text.buf, "Max open files");
	e->podman_nproc = podman_limits_hard(text.buf, "Max processes");
}

static bool ulimits_name(const struct container_spec *s, const char *name)
{
	for (size_t i = 0; i < s->n_ulimits; i++)
		if (!strcmp(s->ulimits[i].name, name))
			return true;
	return false;
}

/* Root Podman gives a container that names any limit nofile and nproc of
 * 1048576 for the ones it does not name, and start fails where the runtime
 * may not raise them ("setrlimit RLIMIT_NOFILE: Operation not permitted").
 * Name them: the caller's own limits, lowered to the service's. */
static void podman_add_limit(const struct container_spec *s, struct podman_extras *x,
			     const char *name, int resource, long long bound)
{
	struct rlimit rl;
	long long soft, hard;
	struct container_ulimit *u;

	if (ulimits_name(s, name) || getrlimit(resource, &rl) < 0)
		return;
	soft = rl.rlim_cur == RLIM_INFINITY ? bound : (long long)rl.rlim_cur;
	hard = rl.rlim_max == RLIM_INFINITY ? bound : (long long)rl.rlim_max;
	if (bound > 0 && (hard <= 0 || hard > bound))
		hard = bound;
	if (hard <= 0)
		return; /* unlimited everywhere: nothing to cap */
	if (soft <= 0 || soft > hard)
		soft = hard;
	u = &x->limits[x->n_limits++];
	u->name = xstrdup(name);
	u->soft = soft;
	u->hard = hard;
}

/* ---- seccomp: Podman's compatible create takes a path (podman #27710) ---- */

static uint64_t fnv1a(const char *s, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Per user, so that no one else can swap the file under a name we trust. */
static char *podman_seccomp_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return xasprintf("%s/hrr-docker-replay/seccomp", xdg);
	if (home && *home == '/')
		return xasprintf("%s/.cache/hrr-docker-replay/seccomp", home);
	return xasprintf("/tmp/hrr-docker-replay-%u/seccomp", (unsigned)getuid());
}

/* The profile in a file named by its content (two 64-bit FNV-1a hashes
 * and the length), mode 0644 so a root service reads it too. An existing
 * file is used only when its bytes are the profile's. */
static int podman_seccomp_file(const char *profile, char **out, struct error *err)
{
	cleanup_free char *dir = podman_seccomp_dir();
	cleanup_strbuf struct strbuf have = STRBUF_INIT;
	size_t n = strlen(profile);
	char *path;

	path = xasprintf("%s/%016llx%016llx-%zu.json", dir,
			 (unsigned long long)fnv1a(profile, n, 0xcbf29ce484222325ULL),
			 (unsigned long long)fnv1a(profile, n, 0x84222325cbf29ce4ULL), n);
	if (fs_read_small_file(path, n + 1, &have, ERROR_DISCARD) == 0 && have.len == n &&
	    !memcmp(have.buf, profile, n)) {
		*out = path;
		return 0;
	}
	if (fs_mkdir_p(dir, 0755, err) < 0 ||
	    fs_write_atomic(path, profile, n, 0644, err) < 0 || chmod(path, 0644) < 0) {
		if (!err->msg[0])
			error_errno(err, "%s", path);
		free(path);
		return error_prefix(err, "writing the seccomp profile for Podman: ");
	}
	*out = path;
	return 0;
}

/* A seccomp profile (JSON text) as Podman takes it: "seccomp=<its file>". */
static int podman_seccomp_opt(struct engine *e, const char *profile, struct strvec *out,
			      struct error *err)
{
	cleanup_free char *path = NULL;

	if (!e->is_unix)
		return error_set(err, ERR_USAGE, 0,
				 "the engine at %s is Podman, which takes a seccomp profile as a file path on its own host; over tcp:// that file cannot be written: use a unix socket",
				 e->host);
	if (podman_seccomp_file(profile, &path, err) < 0)
		return -1;
	strvec_pushf(out, "seccomp=%s", path);
	return 0;
}

/* One of the caller's SecurityOpt as Podman takes it: a profile inline
 * becomes its file. */
static int podman_security_opt(struct engine *e, const char *opt, struct strvec *out,
			       struct error *err)
{
	if (strncmp(opt, "seccomp={", 9)) {
		strvec_push(out, opt);
		return 0;
	}
	return podman_seccomp_opt(e, opt + 8, out, err);
}

int podman_extras_for(struct engine *e, const struct container_spec *s, const char *seccomp,
		      struct podman_extras *x, struct error *err)
{
	memset(x, 0, sizeof(*x));
	strvec_init(&x->security_opt);
	podman_learn_limits(e);
	podman_add_limit(s, x, "nofile", RLIMIT_NOFILE, e->podman_nofile);
	podman_add_limit(s, x, "nproc", RLIMIT_NPROC, e->podman_nproc);
	for (size_t i = 0; i < s->security_opt.n; i++)
		if (podman_security_opt(e, s->security_opt.v[i], &x->security_opt, err) < 0)
			return -1;
	if (seccomp && podman_seccomp_opt(e, seccomp, &x->security_opt, err) < 0)
		return -1;
	return 0;
}

void podman_extras_release(struct podman_extras *x)
{
	for (size_t i = 0; i < x->n_limits; i++)
		free(x->limits[i].name);
	strvec_clear(&x->security_opt);
	memset(x, 0, sizeof(*x));
	strvec_init(&x->security_opt);
}

void podman_body_apply(cJSON *body, const struct podman_extras *x)
{
	cJSON *hc = json_obj(body, "HostConfig");
	cJSON *ulimits = json_arr(hc, "Ulimits");

	if (!ulimits)
		ulimits = cJSON_AddArrayToObject(hc, "Ulimits");
	for (size_t i = 0; i < x->n_limits; i++)
		cJSON_AddItemToArray(ulimits, engine_ulimit_json(&x->limits[i]));
	if (json_get(hc, "SecurityOpt"))
		cJSON_ReplaceItemInObjectCaseSensitive(hc, "SecurityOpt",
						       engine_json_strings(&x->security_opt));
}

/* ---- what rootless Podman cannot apply ---- */

/* Rootless or not, cgroup v1 or not. On a unix socket the service is on
 * this host: its uid (SO_PEERCRED) and this host's /sys/fs/cgroup tell at
 * no cost. Elsewhere GET /libpod/info (Podman's own endpoint, under the
 * compatible API's version prefix, which it accepts) does, in about half a
 * second: it gathers the whole host's description. */
static int podman_learn_host(struct engine *e, struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_cjson cJSON *info = NULL;
	const cJSON *host;
	struct ucred cred;
	struct statfs fs;

	if (e->podman_host_known)
		return 0;
	cred = e->is_unix ? podman_service_cred(e->socket_path) : (struct ucred){ 0 };
	if (cred.pid > 0 && statfs("/sys/fs/cgroup", &fs) == 0) {
		e->podman_rootless = cred.uid != 0;
		e->podman_cgroup_v1 = fs.f_type != CGROUP2_SUPER_MAGIC;
		e->podman_host_known = true;
		return 0;
	}
	if (engine_request_json(e, "GET", "/libpod/info", NULL, ok, false, 0, &info, err) < 0)
		return error_prefix(err, "asking Podman how it runs containers: ");
	host = json_obj(info, "host");
	e->podman_rootless = json_bool(json_obj(host, "security"), "rootless", false);
	e->podman_cgroup_v1 = json_str(host, "cgroupVersion") &&
			      !strcmp(json_str(host, "cgroupVersion"), "v1");
	e->podman_host_known = true;
	return 0;
}

/* Whether e is Podman; if so, its host facts are learnt (podman_learn_host). */
static int podman_host_facts(struct engine *e, bool *podman, struct error *err)
{
	enum engine_flavour flavour;

	*podman = false;
	if (engine_flavour(e, &flavour, err) < 0)
		return -1;
	if (flavour != ENGINE_FLAVOUR_PODMAN)
		return 0;
	*podman = true;
	return podman_learn_host(e, err);
}

int engine_applies_limits(struct engine *e, bool *applies, struct error *err)
{
	bool podman;

	*applies = true;
	if (podman_host_facts(e, &podman, err) < 0)
		return -1;
	/* cgroup v1 cannot be delegated to a user: Podman drops the limits
	 * without a warning (docs/engines.md). */
	*applies = !(podman && e->podman_rootless && e->podman_cgroup_v1);
	return 0;
}

int engine_root_is_caller(struct engine *e, bool *out, struct error *err)
{
	bool podman;

	*out = false;
	if (podman_host_facts(e, &podman, err) < 0)
		return -1;
	*out = podman && e->podman_rootless;
	return 0;
}

#define PODMAN_KEEP_GROUPS "run.oci.keep_original_groups"

/* A rootless container gets its device nodes with their host group only
 * through the caller's own supplementary groups, which Podman drops unless
 * the annotation PODMAN_KEEP_GROUPS is set and crun runs the container.
 * The compatible create cannot set it; containers.conf can, and Podman's
 * own create can: a container created without it is created again that
 * way. Where neither works the replay could not open the GPU nodes and
 * would look like a GPU fault: refuse before it runs. */
int podman_check_created(struct engine *e, const struct container_spec *s, const char *id,
			 bool *recreate, struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	cleanup_cjson cJSON *c = NULL;
	const char *keep, *runtime;

	*recreate = false;
	if (!s->group_add.n || !s->n_devices)
		return 0;
	if (podman_learn_host(e, err) < 0)
		return -1;
	if (!e->podman_rootless)
		return 0;
	strbuf_addstr(&path, "/libpod/containers/");
	engine_url_add_path(&path, id);
	strbuf_addstr(&path, "/json");
	if (engine_request_json(e, "GET", path.buf, NULL, ok, true, 0, &c, err) < 0)
		return error_prefix(err, "inspecting the new container's annotations: ");
	runtime = json_str(c, "OCIRuntime");
	keep = json_str(json_obj(json_obj(c, "Config"), "Annotations"), PODMAN_KEEP_GROUPS);
	if (!runtime || strcmp(runtime, "crun"))
		return error_set(err, ERR_USAGE, 0,
				 "rootless Podman at %s runs containers with %s, which drops your supplementary groups, so the container could not open the GPU device nodes it is given; use crun: runtime = \"crun\" under [engine] in ~/.config/containers/containers.conf, and restart the service (docs/engines.md)",
				 e->host,
				 runtime ? runtime : "an unknown runtime");
	*recreate = !(keep && !strcmp(keep, "1"));
	return 0;
}

int podman_create_keeping_groups(struct engine *e, const struct container_spec *s,
				 const struct podman_extras *x, const char *name, char **id_out,
				 struct error *err)
{
	struct error why;

	if (podman_libpod_create(e, s, x, name, PODMAN_KEEP_GROUPS, "1", id_out, &why) == 0)
		return 0;
	return error_set(err, ERR_USAGE, 0,
			 "rootless Podman at %s would drop your supplementary groups, so the container could not open the GPU device nodes it is given, and creating it with " PODMAN_KEEP_GROUPS " failed (%s); keep them: add [containers] annotations = [\"" PODMAN_KEEP_GROUPS "=1\"] to ~/.config/containers/containers.conf and restart the service (docs/engines.md)",
			 e->host, why.msg);
}

int podman_create_cdi(struct engine *e, const struct container_spec *s,
		      const struct podman_extras *x, const char *name, char **id_out,
		      struct error *err)
{
	if (podman_learn_host(e, err) < 0)
		return -1;
	if (podman_libpod_create(e, s, x, name, e->podman_rootless ? PODMAN_KEEP_GROUPS : NULL,
				 "1", id_out, err) < 0)
		return error_prefix(err, "creating a container with CDI devices: ");
	return 0;
}

/* ---- answers rewritten as dockerd gives them ---- */

static void json_set_string(cJSON *obj, const char *name, const char *value)
{
	cJSON *v = json_get(obj, name);

	if (json_str_of(v))
		cJSON_SetValuestring(v, value);
}

bool podman_event_normalize(cJSON *event)
{
	const char *action = json_str(event, "Action");
	const char *type = json_str(event, "Type");

	if (!action || (type && strcmp(type, "container")))
		return true;
	if (!strcmp(action, "init") || !strcmp(action, "cleanup"))
		return false;
	if (!strcmp(action, "remove")) {
		json_set_string(event, "Action", "destroy");
		json_set_string(event, "status", "destroy");
	}
	return true;
}

void podman_path_stat_normalize(cJSON *stat, const char *path)
{
	double mode = json_num(stat, "mode", -1);
	const char *base = strrchr(path, '/');
	bool link = mode >= 0 && ((uint64_t)mode & ENGINE_MODE_SYMLINK);

	if (!link)
		json_set_string(stat, "linkTarget", "");
	base = base && base[1] ? base + 1 : path;
	if (*base)
		json_set_string(stat, "name", base);
	cJSON_DeleteItemFromObjectCaseSensitive(stat, "isDir");
}

#define PODMAN_LOCAL "localhost/"
#define PODMAN_HUB "docker.io/"

/* How much of a Podman tag dockerd would not write: "localhost/" of a
 * local image, and Docker Hub's "docker.io/" ("docker.io/library/" for an
 * official image), which Podman spells out on a `docker tag` of a short
 * name and dockerd leaves off. */
static size_t podman_tag_prefix(const char *tag)
{
	size_t hub = strlen(PODMAN_HUB);

	if (!strncmp(tag, PODMAN_LOCAL, strlen(PODMAN_LOCAL)))
		return strlen(PODMAN_LOCAL);
	if (strncmp(tag, PODMAN_HUB, hub))
		return 0;
	return (size_t)(image_ref_hub_short(tag + hub) - tag);
}

void podman_image_normalize(cJSON *inspect)
{
	cJSON *digests = json_arr(inspect, "RepoDigests");
	cJSON *it;

	cJSON_ArrayForEach(it, json_arr(inspect, "RepoTags")) {
		const char *tag = json_str_of(it);
		size_t skip = tag ? podman_tag_prefix(tag) : 0;

		if (skip) {
			cleanup_free char *bare = xstrdup(tag + skip);

			cJSON_SetValuestring(it, bare);
		}
	}
	/* Podman's own manifest digest of a local image is no registry's */
	for (int i = cJSON_GetArraySize(digests) - 1; i >= 0; i--) {
		const char *d = json_arr_str(digests, i);

		if (d && !strncmp(d, PODMAN_LOCAL, strlen(PODMAN_LOCAL)))
			cJSON_DeleteItemFromArray(digests, i);
	}
}
