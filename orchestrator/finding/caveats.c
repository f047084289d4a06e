/* The caveats hrr-playback prints beside its verdict: the finding's fields
 * for them and the notes they give (docs/findings.md "Caveats"). */
#include "orchestrator/finding/caveats.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "preflight/stack_files.h"

void finding_caveats_init(const struct finding_caveats *c)
{
	memset(c->placement, 0, sizeof(*c->placement));
	c->placement->placed = c->placement->fell_back = c->placement->frees_deferred = -1;
	strvec_init(c->runtime_libraries);
	strvec_init(c->playback_flags_unknown);
}

static void fallback_release(struct placement_fallback *b)
{
	free(b->api);
	free(b->address);
}

void finding_caveats_release(const struct finding_caveats *c)
{
	for (size_t i = 0; i < c->placement->n_fallbacks; i++)
		fallback_release(&c->placement->fallbacks[i]);
	strvec_clear(c->runtime_libraries);
	strvec_clear(c->playback_flags_unknown);
	finding_caveats_init(c);
}

void finding_caveats_merge(const struct finding_caveats *acc, const struct finding_caveats *later)
{
	const struct finding_placement *lp = later->placement;
	struct finding_placement *ap = acc->placement;

	if (!ap->seen && lp->seen) {
		*ap = *lp;
		for (size_t i = 0; i < lp->n_fallbacks; i++) {
			ap->fallbacks[i].api = xstrdup_or_null(lp->fallbacks[i].api);
			ap->fallbacks[i].address = xstrdup_or_null(lp->fallbacks[i].address);
		}
	}
	if (!acc->runtime_libraries->n)
		for (size_t i = 0; i < later->runtime_libraries->n; i++)
			strvec_push(acc->runtime_libraries, later->runtime_libraries->v[i]);
	if (!acc->playback_flags_unknown->n)
		for (size_t i = 0; i < later->playback_flags_unknown->n; i++)
			strvec_push(acc->playback_flags_unknown, later->playback_flags_unknown->v[i]);
}

static void clean(char **s)
{
	char *c;

	if (!*s)
		return;
	c = text_sanitized(*s, TEXT_STRIP_ANSI);
	free(*s);
	*s = c;
}

void finding_caveats_sanitize(const struct finding_caveats *c)
{
	for (size_t i = 0; i < c->placement->n_fallbacks; i++) {
		clean(&c->placement->fallbacks[i].api);
		clean(&c->placement->fallbacks[i].address);
	}
	for (size_t i = 0; i < c->runtime_libraries->n; i++)
		clean(&c->runtime_libraries->v[i]);
	for (size_t i = 0; i < c->playback_flags_unknown->n; i++)
		clean(&c->playback_flags_unknown->v[i]);
}

/* ---- pure helpers ---- */

char *finding_rocm_install(const char *path)
{
	const char *best = NULL;

	if (!path || path[0] != '/')
		return NULL;
	/* The last "/lib/" or "/lib64/": /opt/rocm-7.13.0/lib/libamdhip64.so.7
	 * is /opt/rocm-7.13.0, /usr/lib/x86_64-linux-gnu/libamdhip64.so is /usr. */
	for (const char *p = path; (p = strstr(p, "/lib")) != NULL; p++)
		if (p[4] == '/' || (p[4] == '6' && p[5] == '4' && p[6] == '/'))
			best = p;
	if (!best)
		return NULL;
	/* /usr/lib/x86_64-linux-gnu: the first lib directory is the install's. */
	for (const char *p = path; p < best; p++)
		if (!strncmp(p, "/lib/", 5) || !strncmp(p, "/lib64/", 7)) {
			best = p;
			break;
		}
	return best == path ? xstrdup("/") : xstrndup(path, (size_t)(best - path));
}

static bool hex_value(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || strncmp(s, "0x", 2))
		return false;
	errno = 0;
	v = strtoull(s + 2, &end, 16);
	if (errno || end == s + 2 || *end)
		return false;
	*out = v;
	return true;
}

bool finding_address_in(const char *address, const char *base, long long bytes)
{
	uint64_t a, b;

	if (bytes <= 0 || !hex_value(address, &a) || !hex_value(base, &b))
		return false;
	return a >= b && a - b < (uint64_t)bytes;
}

/* ---- notes ---- */

static long long fell_back(const struct finding_placement *p)
{
	if (p->fell_back >= 0)
		return p->fell_back;
	return p->fallback_lines;
}

static void note_placement(const struct finding_caveats *c, const struct finding_caveats_subject *s,
			   struct strvec *notes)
{
	const struct finding_placement *p = c->placement;
	long long moved = fell_back(p);
	const struct placement_fallback *hit = NULL;
	bool all_named = true;

	if (!p->seen || moved <= 0 || !s->replay_failed)
		return;
	strvec_pushf(notes, "hrr-playback could not place %s%lld allocation(s) at their recorded "
			 "addresses; each replays elsewhere, so a copy of its address stored in "
			 "device memory is stale: suspect the replay before the workload (upstream's "
			 "caveat), and compare with a replay where every allocation was placed",
			 p->fell_back < 0 && p->fallbacks_counted ? "more than " : "", moved);
	if (!s->fault_address)
		return;
	for (size_t i = 0; i < p->n_fallbacks; i++) {
		const struct placement_fallback *b = &p->fallbacks[i];

		if (!b->address || b->bytes <= 0) {
			all_named = false;
			continue;
		}
		if (finding_address_in(s->fault_address, b->address, b->bytes)) {
			hit = b;
			break;
		}
	}
	if (hit)
		strvec_pushf(notes, "the fault address %s lies inside %s %s (%lld bytes), an "
			 "allocation that fell back: the replay's placement, not the "
			 "workload, is the first suspect", s->fault_address,
			 hit->api ? hit->api : "an allocation", hit->address, hit->bytes);
	else if (all_named && !p->fallbacks_counted && (long long)p->n_fallbacks >= moved &&
		 p->n_fallbacks)
		strvec_pushf(notes, "the fault address %s lies in none of the allocations that "
			 "fell back", s->fault_address);
}

/* The runtime library of one kind among those printed, or NULL. */
static const char *library_of(const struct strvec *libraries, const char *stem)
{
	for (size_t i = 0; i < libraries->n; i++)
		if (strstr(stack_base_name(libraries->v[i]), stem))
			return libraries->v[i];
	return NULL;
}

static void push_unique(struct strvec *sv, char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s)) {
			free(s);
			return;
		}
	strvec_push_nodup(sv, s);
}

static void note_installs(const struct strvec *libraries, struct strvec *notes)
{
	struct strvec installs = STRVEC_INIT;
	struct strbuf list = STRBUF_INIT;

	for (size_t i = 0; i < libraries->n; i++) {
		char *root = finding_rocm_install(libraries->v[i]);

		if (root)
			push_unique(&installs, root);
	}
	if (installs.n > 1) {
		for (size_t i = 0; i < libraries->n; i++)
			strbuf_addf(&list, "%s%s", i ? ", " : "", libraries->v[i]);
		strvec_pushf(notes, "the replay mapped runtime libraries from %zu different ROCm "
			 "installs (%s): a mixed stack is a known cause of unrelated "
			 "`invalid argument` failures and of crashes while code objects load, "
			 "so suspect the stack before the workload", installs.n, list.buf);
	}
	strvec_clear(&installs);
	strbuf_release(&list);
}

/* Versions agree on every number both spell. */
static bool same_version(const char *a, const char *b)
{
	long va[3], vb[3];
	int na = version_parse(a, va, 3), nb = version_parse(b, vb, 3);
	int n = na < nb ? na : nb;

	if (n < 1)
		return true;
	for (int i = 0; i < n; i++)
		if (va[i] != vb[i])
			return false;
	return true;
}

static void note_against_preflight(const struct strvec *libraries, struct strvec *notes,
				   const char *what, const char *stem, const char *prefix,
				   const char *read, const char *source)
{
	const char *lib = library_of(libraries, stem);
	char *loaded;

	if (!lib || !read)
		return;
	loaded = stack_version_from_name(stack_base_name(lib), prefix, 1);
	if (loaded && !same_version(loaded, read))
		strvec_pushf(notes, "the replay mapped %s %s (%s), but preflight read %s %s in %s: "
			 "the stack that ran is not the one checked, and a mixed stack is "
			 "a known cause of unrelated `invalid argument` failures", what,
			 loaded, lib, what, read, source ? source : "the image");
	free(loaded);
}

void finding_caveats_notes(const struct finding_caveats *c, const struct finding_caveats_subject *s,
			   struct strvec *notes)
{
	const struct strvec *libs = c->runtime_libraries;

	note_placement(c, s, notes);
	note_installs(libs, notes);
	if (s->stack) {
		note_against_preflight(libs, notes, "HIP", "libamdhip64", STACK_HIP_LIB ".",
				       s->stack->hip_version, s->stack->source);
		note_against_preflight(libs, notes, "comgr", "libamd_comgr", STACK_COMGR_LIB ".",
				       s->stack->comgr_version, s->stack->source);
	}
	if (c->playback_flags_unknown->n) {
		struct strbuf list = STRBUF_INIT;

		for (size_t i = 0; i < c->playback_flags_unknown->n; i++)
			strbuf_addf(&list, "%s%s", i ? ", " : "", c->playback_flags_unknown->v[i]);
		strvec_pushf(notes, "the image's hrr-playback does not list %s in its --help: it "
			 "ignores flags it does not know, so the replay ran without them",
			 list.buf);
		strbuf_release(&list);
	}
}
