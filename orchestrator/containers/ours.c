#include "orchestrator/containers/ours.h"
#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned long long process_start_ticks(pid_t pid)
{
	char path[64];
	char buf[1024];
	cleanup_fclose FILE *f = NULL;
	unsigned long long start = 0;
	char *p;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields count from the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	for (int field = 3; field <= 22 && p; field++) {
		p = strchr(p, ' ');
		if (!p)
			return 0;
		p++;
		if (field == 22)
			start = strtoull(p, NULL, 10);
	}
	return start;
}

unsigned long long pid_namespace_self(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

char *owner_label_self(void)
{
	char host[256];

	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	return xasprintf("%s:%ld:%llu:%lu:%llu", host, (long)getpid(), process_start_ticks(getpid()),
			 (unsigned long)getuid(), pid_namespace_self());
}

/* Digits only, no sign, no overflow, at most max: strtoull alone takes
 * "-1", " 7" and wraps, and a cast to pid_t or uid_t truncates
 * ("4294967297" became pid 1). */
static int parse_decimal(const char *s, const char *stop, unsigned long long max,
			 unsigned long long *out)
{
	unsigned long long v = 0;

	if (s == stop)
		return -1;
	for (const char *p = s; p < stop; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (max - (unsigned long long)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	*out = v;
	return 0;
}

int owner_label_parse(const char *label, char *host, size_t hostlen, pid_t *pid,
		      unsigned long long *start, uid_t *uid)
{
	const char *c1 = strchr(label, ':');
	const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	const char *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
	const char *c4 = c3 ? strchr(c3 + 1, ':') : NULL;
	const char *end = label + strlen(label);
	unsigned long long p, u = 0, ns;

	if (!c1 || !c2 || (size_t)(c1 - label) >= hostlen || c1 == label)
		return -1;
	/* pid_t is a signed int on Linux; (uid_t)-1 means "no uid". */
	if (parse_decimal(c1 + 1, c2, INT_MAX, &p) < 0 || p == 0 ||
	    parse_decimal(c2 + 1, c3 ? c3 : end, ULLONG_MAX, start) < 0)
		return -1;
	if (c3 && parse_decimal(c3 + 1, c4 ? c4 : end, (uid_t)-1 - 1, &u) < 0)
		return -1;
	if (c4 && parse_decimal(c4 + 1, end, ULLONG_MAX, &ns) < 0)
		return -1;
	memcpy(host, label, (size_t)(c1 - label));
	host[c1 - label] = '\0';
	*pid = (pid_t)p;
	if (uid)
		*uid = c3 ? (uid_t)u : (uid_t)-1;
	return 0;
}

unsigned long long owner_label_pidns(const char *label)
{
	const char *p = label;
	unsigned long long ns = 0;

	for (int i = 0; i < 4 && p; i++) {
		p = strchr(p, ':');
		if (p)
			p++;
	}
	if (!p || parse_decimal(p, p + strlen(p), ULLONG_MAX, &ns) < 0)
		return 0;
	return ns;
}

void ours_add_labels(struct container_spec *s, const struct ours_labels *l)
{
	strvec_pushf(&s->labels, "%s=%s", LABEL_RUN, l->run_id);
	strvec_pushf(&s->labels, "%s=%s", LABEL_OWNER, l->owner);
	strvec_pushf(&s->labels, "%s=%s", LABEL_ARCHIVE, l->archive);
	strvec_pushf(&s->labels, "%s=%s", LABEL_IMAGE, l->image);
	if (l->keep)
		strvec_pushf(&s->labels, "%s=1", LABEL_KEEP);
}

void ours_harden(struct container_spec *s)
{
	free(s->network_mode);
	s->network_mode = xstrdup("none");
	s->init = true;
	strvec_push(&s->cap_drop, "ALL");
	strvec_push(&s->security_opt, "no-new-privileges");
	container_spec_add_ulimit(s, "core", 0, 0);
}

void ours_probe_spec(struct container_spec *s, const char *image, const char *image_name)
{
	cleanup_free char *owner = owner_label_self();

	s->image = xstrdup(image);
	/* Never started: the entrypoint only has to exist on paper, since an
	 * image may have no command at all. */
	strvec_push(&s->entrypoint, "/nonexistent-hrr-probe");
	strvec_pushf(&s->labels, "%s=1", LABEL_PROBE);
	strvec_pushf(&s->labels, "%s=%s", LABEL_IMAGE, image_name ? image_name : image);
	/* Whose it is: gc removes only its owner's (or root's --all-users). */
	strvec_push_nodup(&s->labels, xasprintf("%s=%s", LABEL_OWNER, owner));
	ours_harden(s);
}

int ours_probe_get(struct ours_probe *p, const char **id, struct error *err)
{
	struct container_spec spec;
	int r = 0;

	if (!p->id) {
		container_spec_init(&spec);
		ours_probe_spec(&spec, p->image, p->image_name);
		r = engine_container_create(p->engine, NULL, &spec, &p->id, err);
		container_spec_release(&spec);
	}
	*id = p->id;
	return r;
}

int ours_probe_release(struct ours_probe *p, struct error *err)
{
	int r = 0;

	if (p->id && engine_container_remove(p->engine, p->id, true, err) < 0)
		r = error_prefix(err, "removing probe container %.12s: ", p->id);
	free(p->id);
	p->id = NULL;
	return r;
}
