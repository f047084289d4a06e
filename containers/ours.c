#include "containers/ours.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

char *owner_label_self(void)
{
	char host[256];

	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	return xasprintf("%s:%ld:%llu:%lu", host, (long)getpid(), process_start_ticks(getpid()),
			 (unsigned long)getuid());
}

int owner_label_parse(const char *label, char *host, size_t hostlen, pid_t *pid,
		      unsigned long long *start, uid_t *uid)
{
	const char *c1 = strchr(label, ':');
	const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char *end;
	long p;

	if (!c1 || !c2 || (size_t)(c1 - label) >= hostlen || c1 == label)
		return -1;
	memcpy(host, label, (size_t)(c1 - label));
	host[c1 - label] = '\0';
	errno = 0;
	p = strtol(c1 + 1, &end, 10);
	if (errno || end != c2 || p <= 0)
		return -1;
	*pid = (pid_t)p;
	*start = strtoull(c2 + 1, &end, 10);
	if (uid)
		*uid = (uid_t)-1;
	if (*end == ':') {
		const char *u = end + 1;
		unsigned long v = strtoul(u, &end, 10);

		if (end == u || *end)
			return -1;
		if (uid)
			*uid = (uid_t)v;
		return 0;
	}
	return *end ? -1 : 0;
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
	s->image = xstrdup(image);
	/* Never started: the entrypoint only has to exist on paper, since an
	 * image may have no command at all. */
	strvec_push(&s->entrypoint, "/nonexistent-hrr-probe");
	strvec_pushf(&s->labels, "%s=1", LABEL_PROBE);
	strvec_pushf(&s->labels, "%s=%s", LABEL_IMAGE, image_name ? image_name : image);
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
