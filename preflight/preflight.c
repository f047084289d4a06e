#include "preflight/preflight.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

const char *preflight_verdict_name(enum preflight_verdict v)
{
	switch (v) {
	case PREFLIGHT_OK: return "OK";
	case PREFLIGHT_WARN: return "WARN";
	case PREFLIGHT_CONFIRM: return "CONFIRM";
	case PREFLIGHT_BLOCK: return "BLOCK";
	case PREFLIGHT_SKIPPED: return "SKIPPED";
	}
	return "UNKNOWN";
}

void stack_info_init(struct stack_info *s)
{
	memset(s, 0, sizeof(*s));
}

void stack_info_release(struct stack_info *s)
{
	free(s->hip_version);
	free(s->hip_evidence);
	free(s->comgr_version);
	free(s->comgr_evidence);
	free(s->rocm_release);
	free(s->source);
	free(s->unknown_reason);
	free(s->comgr_unknown_reason);
	stack_info_init(s);
}

void preflight_report_init(struct preflight_report *r)
{
	r->verdict = PREFLIGHT_OK;
	strvec_init(&r->blocks);
	strvec_init(&r->confirms);
	strvec_init(&r->warnings);
	strvec_init(&r->notes);
	strbuf_init(&r->capture_side, 0);
	strbuf_init(&r->replay_side, 0);
	strbuf_init(&r->replay_source, 0);
}

void preflight_report_release(struct preflight_report *r)
{
	strvec_clear(&r->blocks);
	strvec_clear(&r->confirms);
	strvec_clear(&r->warnings);
	strvec_clear(&r->notes);
	strbuf_release(&r->capture_side);
	strbuf_release(&r->replay_side);
	strbuf_release(&r->replay_source);
	r->verdict = PREFLIGHT_OK;
}

int version_parse(const char *s, long *nums, int n)
{
	int got = 0;

	if (!s || n <= 0)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	while (got < n && isdigit((unsigned char)*s)) {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (errno)
			break;
		nums[got++] = v;
		/* "7.15.26291-2ed46569ce": a '-' (or anything but '.') ends it. */
		if (*end != '.')
			break;
		s = end + 1;
	}
	return got;
}

static void join_versions(struct strbuf *sb, const long *v, int n)
{
	for (int i = 0; i < n; i++)
		strbuf_addf(sb, "%s%ld", i ? "." : "", v[i]);
}

/* ---- the sides, one line each ---- */

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

static void describe_capture(const struct manifest *m, struct strbuf *sb)
{
	if (!m) {
		strbuf_addstr(sb, "no manifest.json");
		return;
	}
	if (!m->has_metadata) {
		strbuf_addstr(sb, "legacy capture (manifest.json has no metadata)");
		return;
	}
	strbuf_addf(sb, "HIP %s, comgr %s, ", or_unknown(m->hip_runtime_version),
		    or_unknown(m->comgr_version));
	if (m->device_count >= 0)
		strbuf_addf(sb, "%d GPU(s)", m->device_count);
	else
		strbuf_addstr(sb, "GPU count unknown");
	if (m->n_devices) {
		strbuf_addstr(sb, " (");
		for (size_t i = 0; i < m->n_devices; i++)
			strbuf_addf(sb, "%s%s", i ? ", " : "", or_unknown(m->devices[i].arch));
		strbuf_addch(sb, ')');
	}
}

/* The caller checked the choice (gpu_choice.h); this only keeps a bad
 * input from indexing past the host's GPUs. */
static bool ordinal_valid(const struct gpu_topology *host, int g)
{
	return g >= 0 && (size_t)g < host->n_gpus;
}

static void describe_replay(const struct preflight_input *in, struct strbuf *sb)
{
	const struct stack_info *st = in->stack;

	if (st)
		strbuf_addf(sb, "HIP %s, comgr %s", or_unknown(st->hip_version),
			    or_unknown(st->comgr_version));
	else
		strbuf_addstr(sb, "HIP/comgr stack unknown");
	if (!in->host) {
		strbuf_addstr(sb, "; host GPUs unknown (no KFD topology)");
		return;
	}
	strbuf_addstr(sb, "; GPU(s) ");
	if (!in->n_chosen)
		strbuf_addstr(sb, "none");
	gpu_list_format(sb, in->chosen, in->n_chosen);
	strbuf_addf(sb, " of %zu", in->host->n_gpus);
	if (in->n_chosen) {
		strbuf_addstr(sb, " (");
		for (size_t i = 0; i < in->n_chosen; i++)
			strbuf_addf(sb, "%s%s", i ? ", " : "",
				    ordinal_valid(in->host, in->chosen[i]) ?
				    in->host->gpus[in->chosen[i]].arch : "absent");
		strbuf_addch(sb, ')');
	}
}

/* ---- rules ---- */

static void check_count(const struct preflight_input *in, struct preflight_report *r)
{
	const struct manifest *m = in->manifest;
	size_t exposed = in->n_chosen;

	if (m->device_count < 0) {
		strvec_push(&r->warnings,
			    "GPU count check skipped: capture side unknown (metadata has no device_count)");
		return;
	}
	if ((size_t)m->device_count > exposed)
		strvec_pushf(&r->blocks,
			     "capture saw %d GPU(s) but replay environment only exposes %zu",
			     m->device_count, exposed);
}

/* The recorded device for replay device i: by its ordinal, else by position. */
static const struct manifest_device *capture_device(const struct manifest *m, size_t i)
{
	for (size_t k = 0; k < m->n_devices; k++)
		if (m->devices[k].ordinal >= 0 && (size_t)m->devices[k].ordinal == i)
			return &m->devices[k];
	return i < m->n_devices ? &m->devices[i] : NULL;
}

static void check_arch(const struct preflight_input *in, struct preflight_report *r)
{
	for (size_t i = 0; i < in->n_chosen; i++) {
		const struct manifest_device *d = capture_device(in->manifest, i);
		const struct gpu_node *g;

		if (!ordinal_valid(in->host, in->chosen[i]))
			continue; /* never so: the GPU choice is checked */
		g = &in->host->gpus[in->chosen[i]];
		if (!d) {
			/* device_count covers the rest; no recorded device, no claim. */
			continue;
		}
		if (!d->arch || !*d->arch) {
			strvec_pushf(&r->warnings,
				     "arch check skipped for device %zu: capture side unknown (no gcn_arch_name recorded)",
				     i);
			continue;
		}
		if (!g->gfx_target_version) {
			strvec_pushf(&r->warnings,
				     "arch check skipped for device %zu: replay side unknown (KFD node %d has no gfx_target_version)",
				     i, g->node);
			continue;
		}
		if (!strcmp(d->arch, g->arch))
			continue;
		if (in->strict_arch)
			strvec_pushf(&r->blocks,
				     "arch mismatch on device %zu: capture %s, replay GPU %d is %s; blocked by --strict-arch / HRR_STRICT_ARCH=1",
				     i, d->arch, in->chosen[i], g->arch);
		else
			strvec_pushf(&r->warnings,
				     "arch mismatch on device %zu: capture %s, replay GPU %d is %s",
				     i, d->arch, in->chosen[i], g->arch);
	}
}

static const char *replay_unknown_reason(const struct stack_info *st, bool comgr)
{
	if (!st)
		return "replay stack not probed";
	if (comgr && st->comgr_unknown_reason)
		return st->comgr_unknown_reason;
	if (st->unknown_reason)
		return st->unknown_reason;
	return comgr ? "no libamd_comgr.so found" : "no HIP version found";
}

/* One version rule: `need` numbers compared (3 for HIP, 2 for comgr). */
static void check_version(const struct preflight_input *in, struct preflight_report *r,
			  const char *what, const char *capture, const char *capture_key,
			  const char *replay, const char *evidence, int need, bool comgr)
{
	long cv[3], rv[3];
	int cn, rn;

	if (!capture) {
		strvec_pushf(&r->warnings,
			     "%s version check skipped: capture side unknown (metadata.runtime.%s not recorded)",
			     what, capture_key);
		return;
	}
	cn = version_parse(capture, cv, need);
	if (cn < need) {
		strvec_pushf(&r->warnings,
			     "%s version check skipped: capture side unknown (%s \"%s\" lacks %s)",
			     what, capture_key, capture, need == 3 ? "major.minor.patch" : "major.minor");
		return;
	}
	if (!replay) {
		strvec_pushf(&r->warnings, "%s version check skipped: replay side unknown (%s)",
			     what, replay_unknown_reason(in->stack, comgr));
		return;
	}
	rn = version_parse(replay, rv, need);
	if (rn < need) {
		strvec_pushf(&r->warnings,
			     "%s version check skipped: replay side unknown (\"%s\" lacks %s)",
			     what, replay, need == 3 ? "major.minor.patch" : "major.minor");
		return;
	}
	if (!memcmp(cv, rv, (size_t)need * sizeof(*cv)))
		return;
	{
		struct strbuf msg = STRBUF_INIT;

		strbuf_addf(&msg, "%s version mismatch: capture ", what);
		join_versions(&msg, cv, need);
		strbuf_addstr(&msg, ", replay ");
		join_versions(&msg, rv, need);
		if (evidence)
			strbuf_addf(&msg, " (%s)", evidence);
		if (in->strict_version) {
			strbuf_addstr(&msg, "; blocked by --strict-version / HRR_STRICT_VERSION=1");
			strvec_push_nodup(&r->blocks, strbuf_detach(&msg, NULL));
		} else {
			strvec_push_nodup(&r->confirms, strbuf_detach(&msg, NULL));
		}
	}
}

static void add_context_notes(const struct stack_info *st, struct preflight_report *r)
{
	if (!st)
		return;
	if (st->hip_version && st->hip_evidence)
		strvec_pushf(&r->notes, "replay HIP %s read from %s", st->hip_version, st->hip_evidence);
	if (st->comgr_version && st->comgr_evidence)
		strvec_pushf(&r->notes, "replay comgr %s read from %s", st->comgr_version,
			     st->comgr_evidence);
	if (st->rocm_release)
		strvec_pushf(&r->notes, "ROCm release %s (/opt/rocm/.info/version, context only)",
			     st->rocm_release);
}

void preflight_evaluate(const struct preflight_input *in, struct preflight_report *r)
{
	const struct manifest *m = in->manifest;
	bool skipped = false;

	preflight_report_release(r);
	preflight_report_init(r);
	describe_capture(m, &r->capture_side);
	describe_replay(in, &r->replay_side);
	strbuf_addstr(&r->replay_source,
		      in->stack && in->stack->source ? in->stack->source : "not probed");

	if (in->skip) {
		strvec_push(&r->notes, "preflight skipped: --skip-preflight / HRR_SKIP_COMPAT=1");
		skipped = true;
	} else if (!m) {
		if (in->manifest_error)
			strvec_pushf(&r->notes, "preflight skipped: %s", in->manifest_error);
		else
			strvec_push(&r->notes, "preflight skipped: the capture has no manifest.json");
		skipped = true;
	} else if (!m->has_metadata) {
		strvec_push(&r->notes,
			    "preflight skipped: legacy capture (manifest.json has no metadata to compare)");
		skipped = true;
	}

	if (!skipped) {
		if (in->host) {
			check_count(in, r);
			check_arch(in, r);
		} else {
			strvec_push(&r->warnings,
				    "GPU count, ordinal and arch checks skipped: replay GPU count unknown (no KFD topology readable)");
		}
		check_version(in, r, "HIP", m->hip_runtime_version, "hip_runtime_version",
			      in->stack ? in->stack->hip_version : NULL,
			      in->stack ? in->stack->hip_evidence : NULL, 3, false);
		check_version(in, r, "comgr", m->comgr_version, "comgr_version",
			      in->stack ? in->stack->comgr_version : NULL,
			      in->stack ? in->stack->comgr_evidence : NULL, 2, true);
		add_context_notes(in->stack, r);
	}

	if (r->blocks.n)
		r->verdict = PREFLIGHT_BLOCK;
	else if (skipped)
		r->verdict = PREFLIGHT_SKIPPED;
	else if (r->confirms.n)
		r->verdict = PREFLIGHT_CONFIRM;
	else if (r->warnings.n)
		r->verdict = PREFLIGHT_WARN;
	else
		r->verdict = PREFLIGHT_OK;
}

/* ---- rendering ---- */

static void render_list(struct strbuf *out, const char *title, const struct strvec *v)
{
	strbuf_addf(out, "\n## %s\n\n", title);
	if (!v->n)
		strbuf_addstr(out, "- none\n");
	for (size_t i = 0; i < v->n; i++)
		strbuf_addf(out, "- %s\n", v->v[i]);
}

void preflight_render_markdown(const struct preflight_report *r, struct strbuf *out)
{
	strbuf_addstr(out, "# Preflight\n\n");
	strbuf_addf(out, "Verdict: **%s**\n\n", preflight_verdict_name(r->verdict));
	strbuf_addf(out, "- Capture: %s\n", r->capture_side.len ? r->capture_side.buf : "unknown");
	strbuf_addf(out, "- Replay: %s\n", r->replay_side.len ? r->replay_side.buf : "unknown");
	strbuf_addf(out, "- Replay stack source: %s\n",
		    r->replay_source.len ? r->replay_source.buf : "unknown");
	render_list(out, "Blocks", &r->blocks);
	render_list(out, "Confirmations", &r->confirms);
	render_list(out, "Warnings", &r->warnings);
	render_list(out, "Notes", &r->notes);
	switch (r->verdict) {
	case PREFLIGHT_CONFIRM:
		strbuf_addstr(out, "\nTo replay anyway, re-run with `--yes` or `HRR_CONTINUE=1`.\n");
		break;
	case PREFLIGHT_BLOCK:
		strbuf_addstr(out, "\nThe replay was not started.\n");
		break;
	default:
		break;
	}
}
