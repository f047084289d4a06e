/* A finding for people (markdown) and for machines (JSON, keys of
 * docs/findings.md). An unknown value is "n/a" in markdown and null in JSON;
 * a zero is a value and prints as 0. */
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/finding_json.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/finding/signature.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/text.h"
#include "orchestrator/finding/signature_json.h"
#include "preflight/preflight_json.h"
#include "preflight/topology.h"

/* ---- markdown ---- */

/* Table cells: a '|' would end the cell, a newline the row. Every string is
 * made valid UTF-8 without control characters first: run fields (image,
 * paths) and anything not sanitized upstream reach here too. */
static void md_text(struct strbuf *out, const char *raw)
{
	char *clean = text_sanitized(raw, TEXT_STRIP_ANSI);

	for (const char *s = clean; *s; s++) {
		if (*s == '|')
			strbuf_addstr(out, "\\|");
		else if (*s == '\n' || *s == '\r')
			strbuf_addch(out, ' ');
		else
			strbuf_addch(out, *s);
	}
	free(clean);
}

static void md_code(struct strbuf *out, const char *s)
{
	bool tick = strchr(s, '`') != NULL;

	strbuf_addstr(out, tick ? "`` " : "`");
	md_text(out, s);
	strbuf_addstr(out, tick ? " ``" : "`");
}

static void row_begin(struct strbuf *out, const char *field)
{
	strbuf_addf(out, "| %s | ", field);
}

static void row_str(struct strbuf *out, const char *field, const char *v, bool code)
{
	row_begin(out, field);
	if (!v)
		strbuf_addstr(out, "n/a");
	else if (code)
		md_code(out, v);
	else
		md_text(out, v);
	strbuf_addstr(out, " |\n");
}

static void row_ll(struct strbuf *out, const char *field, long long v)
{
	row_begin(out, field);
	if (v < 0)
		strbuf_addstr(out, "n/a");
	else
		strbuf_addf(out, "%lld", v);
	strbuf_addstr(out, " |\n");
}

static void row_ms(struct strbuf *out, const char *field, double v)
{
	row_begin(out, field);
	if (v < 0)
		strbuf_addstr(out, "n/a");
	else
		strbuf_addf(out, "%.1f ms", v);
	strbuf_addstr(out, " |\n");
}

static void table_head(struct strbuf *out, const char *title)
{
	strbuf_addf(out, "\n### %s\n\n| Field | Value |\n|-------|-------|\n", title);
}

static void md_ll_or_na(struct strbuf *out, long long v)
{
	if (v < 0)
		strbuf_addstr(out, "n/a");
	else
		strbuf_addf(out, "%lld", v);
}

static void md_d2h_counts(struct strbuf *out, const struct finding *f)
{
	row_ll(out, "D2H pass", f->d2h_pass);
	row_ll(out, "D2H fail", f->d2h_fail);
	row_ll(out, "D2H attempted", f->d2h_attempted);
}

/* The known issue a rule matched, or "untriaged" when rules were read
 * and none did. */
static void md_known(const struct finding_context *ctx, struct strbuf *out)
{
	const struct known_rule *k = ctx ? ctx->known : NULL;

	if (!ctx || !ctx->known_checked)
		return;
	row_begin(out, "Known issue");
	if (!k) {
		strbuf_addstr(out, "untriaged (no known-issue rule matched) |\n");
		return;
	}
	md_code(out, k->id);
	strbuf_addstr(out, ", owner ");
	text_markdown_cell(out, k->owner);
	strbuf_addstr(out, ": ");
	text_markdown_cell(out, k->link);
	if (k->note) {
		strbuf_addstr(out, " (");
		text_markdown_cell(out, k->note);
		strbuf_addch(out, ')');
	}
	strbuf_addstr(out, " |\n");
}

/* The signature's id and the parts the kernel rows above do not show. */
static void md_signature(const struct finding *f, const struct finding_context *ctx,
			 struct strbuf *out)
{
	struct signature sig;

	signature_init(&sig);
	signature_of_finding(&sig, f);
	if (signature_set(&sig)) {
		row_str(out, "Signature", sig.id, true);
		row_str(out, "Evidence (normalized)", sig.evidence, true);
		if (sig.stop_reason)
			row_str(out, "Stop reason", sig.stop_reason, true);
		md_known(ctx, out);
	}
	signature_release(&sig);
}

static void md_summary(const struct finding *f, const struct finding_context *ctx,
		       struct strbuf *out)
{
	const char *cls = finding_fault_class_name(f->fault_class);

	table_head(out, "Summary");
	row_begin(out, "Outcome");
	strbuf_addf(out, "**%s** |\n", finding_outcome_name(f->outcome));
	row_str(out, "Fault class", cls, true);
	row_str(out, "Kernel", f->kernel_name, true);
	row_str(out, "Kernel family", f->kernel_family, true);
	md_signature(f, ctx, out);
	row_begin(out, "Labels");
	if (!f->labels.n)
		strbuf_addstr(out, "none");
	for (size_t i = 0; i < f->labels.n; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", f->labels.v[i]);
	strbuf_addstr(out, " |\n");

	if (f->outcome == OUTCOME_UNKNOWN || !strcmp(cls, "unknown")) {
		strbuf_addstr(out, "\n> ");
		if (f->outcome == OUTCOME_UNKNOWN)
			strbuf_addstr(out, "**Outcome UNKNOWN**: the log does not show how the "
				      "replay ended. ");
		if (!strcmp(cls, "unknown"))
			strbuf_addstr(out, "**Fault class unknown**: not enough signal to "
				      "classify; no fault type is claimed.");
		strbuf_trim_trailing_newline(out);
		strbuf_addch(out, '\n');
	}
}

static void md_fault(const struct finding *f, struct strbuf *out)
{
	table_head(out, "Fault details");
	row_str(out, "Fault address", f->fault_address, true);
	/* The driver's words, which a replay can print: summary.md's escaping. */
	row_begin(out, "Fault reason");
	if (f->fault_reason)
		text_markdown_cell(out, f->fault_reason);
	else
		strbuf_addstr(out, "n/a");
	strbuf_addstr(out, " |\n");
	row_str(out, "GPU node", f->gpu_node, false);
	row_ll(out, "Failing event seq", f->failing_event_seq);
	row_ll(out, "Failing call index", f->failing_call_index);
	row_ll(out, "Failing thread", f->failing_thread);
	row_str(out, "Failing API", f->failing_api, true);
	row_str(out, "Kernarg address", f->kernarg_address, true);
	row_begin(out, "Grid / workgroup");
	if (f->grid || f->workgroup)
		strbuf_addf(out, "[%s] / [%s]", f->grid ? f->grid : "n/a",
			    f->workgroup ? f->workgroup : "n/a");
	else
		strbuf_addstr(out, "n/a");
	strbuf_addstr(out, " |\n");
	row_ll(out, "Replay signal", f->replay_signal);

	table_head(out, "Progress at fault");
	row_ll(out, "Kernels launched", f->kernels_launched);
	md_d2h_counts(out, f);
	row_str(out, "Last progress kernel", f->last_progress_kernel, true);
	row_str(out, "Last launch before fault", f->last_event_kernel, true);
}

static void md_result(const struct finding *f, struct strbuf *out)
{
	table_head(out, "Replay result");
	row_ll(out, "Kernels launched", f->kernels_launched);
	md_d2h_counts(out, f);
	row_ms(out, "Kernel GPU time", f->gpu_time_kernel_ms);
	row_ms(out, "Graph GPU time", f->gpu_time_graph_ms);
	row_ms(out, "Total GPU time", f->gpu_time_total_ms);
}

static void md_d2h_failures(const struct finding *f, struct strbuf *out)
{
	if (!f->n_d2h_failures)
		return;
	strbuf_addstr(out, "\n### D2H failures\n\n"
		      "| # | Tag | Seq | Bytes | Bytes differ | max\\|d\\| | maxrel |\n"
		      "|---|-----|-----|-------|--------------|----------|--------|\n");
	for (size_t i = 0; i < f->n_d2h_failures; i++) {
		const struct d2h_failure *d = &f->d2h_failures[i];

		strbuf_addf(out, "| %zu | ", i + 1);
		if (d->tag)
			md_code(out, d->tag);
		else if (d->src) {
			strbuf_addstr(out, "validate: src ");
			md_code(out, d->src);
			strbuf_addstr(out, " not mapped");
		} else
			strbuf_addstr(out, "n/a");
		strbuf_addstr(out, " | ");
		md_ll_or_na(out, d->seq);
		strbuf_addstr(out, " | ");
		md_ll_or_na(out, d->bytes);
		strbuf_addstr(out, " | ");
		md_ll_or_na(out, d->bytes_differ);
		if (d->has_max)
			strbuf_addf(out, " | %.4g | %.4g |\n", d->max_abs, d->max_rel);
		else
			strbuf_addstr(out, " | n/a | n/a |\n");
	}
	if (f->d2h_failure_lines > f->n_d2h_failures)
		strbuf_addf(out, "\n%zu more D2H FAIL lines are not listed.\n",
			    f->d2h_failure_lines - f->n_d2h_failures);
}

/* Evidence no rule read (issue 40 §2): one line of each kind. */
static void md_unread(const struct finding *f, struct strbuf *out)
{
	if (!f->n_unread)
		return;
	strbuf_addstr(out, "\n### Evidence no rule read\n\n");
	for (size_t i = 0; i < f->n_unread; i++) {
		const struct finding_unread *u = &f->unread[i];

		strbuf_addstr(out, "- ");
		md_text(out, u->kind);
		strbuf_addf(out, " (line %lld, %lld line%s): ", u->line, u->count,
			    u->count == 1 ? "" : "s");
		md_code(out, u->text);
		strbuf_addch(out, '\n');
	}
}

static void md_archive(const struct finding *f, struct strbuf *out)
{
	table_head(out, "Archive / capture");
	row_str(out, "Complete",
		f->archive_complete < 0 ? NULL : f->archive_complete ? "yes" : "NO", false);
	row_begin(out, "Recovered");
	if (f->archive_recovered_events < 0)
		strbuf_addstr(out, "n/a");
	else
		strbuf_addf(out, "%lld events", f->archive_recovered_events);
	strbuf_addstr(out, " |\n");
	row_ll(out, "Events", f->archive_events);
	row_ll(out, "Kernels (archive)", f->archive_kernels);
	row_begin(out, "Kernel names (archive)");
	if (!f->archive_kernel_names.n)
		strbuf_addstr(out, "n/a");
	for (size_t i = 0; i < f->archive_kernel_names.n; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		md_code(out, f->archive_kernel_names.v[i]);
	}
	strbuf_addstr(out, " |\n");
	row_begin(out, "Archive / reader format");
	md_ll_or_na(out, f->archive_format_version);
	strbuf_addstr(out, " / ");
	md_ll_or_na(out, f->reader_format_version);
	strbuf_addstr(out, " |\n");
	row_str(out, "Capture HIP library", f->capture_hip_so, true);
	row_str(out, "Capture HIP runtime", f->capture_hip_runtime_version, true);
	row_str(out, "Capture comgr", f->capture_comgr_version, true);
	row_ll(out, "Capture device count", f->capture_device_count);
	row_str(out, "Capture GPU arch", f->capture_gcn_arch, true);
}

static void md_list(struct strbuf *out, const char *prefix, const struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++) {
		strbuf_addf(out, "- %s", prefix);
		md_text(out, sv->v[i]);
		strbuf_addch(out, '\n');
	}
}

static void md_preflight(const struct preflight_report *r, struct strbuf *out)
{
	strbuf_addf(out, "\n### Preflight\n\n**Verdict:** %s\n", preflight_verdict_name(r->verdict));
	if (r->blocks.n + r->confirms.n + r->warnings.n + r->notes.n)
		strbuf_addch(out, '\n');
	md_list(out, "BLOCK: ", &r->blocks);
	md_list(out, "CONFIRM: ", &r->confirms);
	md_list(out, "WARN: ", &r->warnings);
	md_list(out, "", &r->notes);
}

static void md_run(const struct finding_run *run, struct strbuf *out)
{
	table_head(out, "Run");
	row_str(out, "Image", run->image, true);
	row_str(out, "Image ID", run->image_id, true);
	row_str(out, "Image digest", run->image_digest, true);
	row_str(out, "Container", run->container_id, true);
	row_begin(out, "GPUs (host ordinals)");
	if (!run->n_gpus)
		strbuf_addstr(out, "n/a");
	gpu_list_format(out, run->gpus, run->n_gpus);
	if (run->devices)
		strbuf_addf(out, " (%s)", !strcmp(run->devices, "cdi") ? "CDI devices" : "device nodes");
	strbuf_addstr(out, " |\n");
	row_ll(out, "Exit code", run->exit_code);
	row_str(out, "Ended by", finding_ended_by_name(run->ended_by), false);
	row_ll(out, "Signal", run->signal);
	row_begin(out, "Wall time");
	if (run->wall_s < 0)
		strbuf_addstr(out, "n/a");
	else
		strbuf_addf(out, "%.1f s", run->wall_s);
	strbuf_addstr(out, " |\n");
	row_str(out, "Log", run->log, true);
	row_str(out, "Run folder", run->run_dir, true);
}

/* Placement and the runtime libraries (orchestrator/finding/caveats.c). */
void finding_caveats_markdown(const struct finding *f, struct strbuf *out)
{
	const struct finding_placement *p = &f->placement;

	if (!p->seen && !f->runtime_libraries.n)
		return;
	table_head(out, "Replay caveats");
	if (p->seen) {
		row_begin(out, "Placement");
		md_ll_or_na(out, p->placed);
		strbuf_addstr(out, " placed at capture address, ");
		md_ll_or_na(out, p->fell_back);
		strbuf_addstr(out, " fell back, ");
		md_ll_or_na(out, p->frees_deferred);
		strbuf_addstr(out, " frees deferred |\n");
		for (size_t i = 0; i < p->n_fallbacks; i++) {
			const struct placement_fallback *b = &p->fallbacks[i];

			row_begin(out, "Fell back");
			md_code(out, b->api ? b->api : "?");
			strbuf_addch(out, ' ');
			if (b->address)
				md_code(out, b->address);
			if (b->bytes >= 0)
				strbuf_addf(out, " (%lld bytes)", b->bytes);
			strbuf_addstr(out, " |\n");
		}
	}
	for (size_t i = 0; i < f->runtime_libraries.n; i++)
		row_str(out, i ? "" : "Runtime libraries", f->runtime_libraries.v[i], true);
}

void finding_render_markdown(const struct finding *f, const struct finding_context *ctx,
			     struct strbuf *out)
{
	const char *name = ctx && ctx->archive_name ? ctx->archive_name : "unknown archive";

	strbuf_addstr(out, "## HRR Triage — ");
	md_text(out, name);
	strbuf_addch(out, '\n');
	md_summary(f, ctx, out);
	/* A replay that finished has a result; one that stopped has a fault. */
	if (f->outcome == OUTCOME_PASS || f->outcome == OUTCOME_FAIL)
		md_result(f, out);
	else
		md_fault(f, out);
	finding_caveats_markdown(f, out);
	md_d2h_failures(f, out);
	md_unread(f, out);
	md_archive(f, out);
	if (ctx && ctx->preflight)
		md_preflight(ctx->preflight, out);
	if (ctx && ctx->run)
		md_run(ctx->run, out);
	if (f->sources.n) {
		strbuf_addstr(out, "\n### Sources\n\n");
		for (size_t i = 0; i < f->sources.n; i++) {
			strbuf_addstr(out, "- ");
			md_code(out, f->sources.v[i]);
			strbuf_addch(out, '\n');
		}
	}
	if (f->notes.n) {
		strbuf_addstr(out, "\n### Notes\n\n");
		md_list(out, "", &f->notes);
	}
}

/* ---- JSON ---- */

/* Strict JSON readers reject a file with one invalid UTF-8 byte: every
 * string goes through text_sanitize, whatever its source. */
static cJSON *j_string(const char *v)
{
	char *clean = text_sanitized(v, TEXT_STRIP_ANSI);
	cJSON *s = cJSON_CreateString(clean);

	free(clean);
	return s;
}

static void j_int(cJSON *o, const char *key, long long v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)v);
}

static void j_double(cJSON *o, const char *key, double v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

static void j_strvec(cJSON *o, const char *key, const struct strvec *sv)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);

	for (size_t i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, j_string(sv->v[i]));
}

static cJSON *j_d2h_failure(const struct d2h_failure *d)
{
	cJSON *o = cJSON_CreateObject();

	json_add_str(o, "tag", d->tag, TEXT_STRIP_ANSI);
	j_int(o, "seq", d->seq);
	j_int(o, "bytes", d->bytes);
	j_int(o, "bytes_differ", d->bytes_differ);
	if (d->has_max) {
		/* cJSON writes NaN/inf as null, which is what they mean here. */
		cJSON_AddNumberToObject(o, "max_abs", d->max_abs);
		cJSON_AddNumberToObject(o, "max_rel", d->max_rel);
	} else {
		cJSON_AddNullToObject(o, "max_abs");
		cJSON_AddNullToObject(o, "max_rel");
	}
	json_add_str(o, "src", d->src, TEXT_STRIP_ANSI);
	return o;
}

/* {"kind", "line", "count", "text"} of evidence no rule read. */
static cJSON *j_unread(const struct finding_unread *u)
{
	cJSON *o = cJSON_CreateObject();

	json_add_str(o, "kind", u->kind, TEXT_STRIP_ANSI);
	j_int(o, "line", u->line);
	j_int(o, "count", u->count);
	json_add_str(o, "text", u->text, TEXT_STRIP_ANSI);
	return o;
}

static cJSON *j_run(const struct finding_run *run)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *gpus;

	json_add_str(o, "image", run->image, TEXT_STRIP_ANSI);
	json_add_str(o, "image_id", run->image_id, TEXT_STRIP_ANSI);
	json_add_str(o, "image_digest", run->image_digest, TEXT_STRIP_ANSI);
	json_add_str(o, "container_id", run->container_id, TEXT_STRIP_ANSI);
	gpus = cJSON_AddArrayToObject(o, "gpus");
	for (size_t i = 0; i < run->n_gpus; i++)
		cJSON_AddItemToArray(gpus, cJSON_CreateNumber(run->gpus[i]));
	json_add_str(o, "devices", run->devices, TEXT_STRIP_ANSI);
	j_int(o, "exit_code", run->exit_code);
	json_add_str(o, "ended_by", finding_ended_by_name(run->ended_by), TEXT_STRIP_ANSI);
	j_int(o, "signal", run->signal);
	j_double(o, "wall_s", run->wall_s);
	json_add_str(o, "log", run->log, TEXT_STRIP_ANSI);
	json_add_str(o, "run_dir", run->run_dir, TEXT_STRIP_ANSI);
	return o;
}

void finding_caveats_json(const struct finding *f, cJSON *o)
{
	const struct finding_placement *p = &f->placement;

	if (p->seen) {
		cJSON *pl = cJSON_AddObjectToObject(o, "placement");
		cJSON *arr;

		j_int(pl, "placed", p->placed);
		j_int(pl, "fell_back", p->fell_back);
		j_int(pl, "frees_deferred", p->frees_deferred);
		arr = cJSON_AddArrayToObject(pl, "fallbacks");
		for (size_t i = 0; i < p->n_fallbacks; i++) {
			cJSON *b = cJSON_CreateObject();

			json_add_str(b, "api", p->fallbacks[i].api, TEXT_STRIP_ANSI);
			json_add_str(b, "address", p->fallbacks[i].address, TEXT_STRIP_ANSI);
			j_int(b, "bytes", p->fallbacks[i].bytes);
			cJSON_AddItemToArray(arr, b);
		}
	} else {
		cJSON_AddNullToObject(o, "placement");
	}
	j_strvec(o, "runtime_libraries", &f->runtime_libraries);
	j_strvec(o, "playback_flags_unknown", &f->playback_flags_unknown);
}

cJSON *finding_to_json(const struct finding *f, const struct finding_context *ctx)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *arr;

	cJSON_AddStringToObject(o, "outcome", finding_outcome_name(f->outcome));
	cJSON_AddStringToObject(o, "fault_class", finding_fault_class_name(f->fault_class));
	cJSON_AddNumberToObject(o, "classifier_version", FINDING_CLASSIFIER_VERSION);
	json_add_str(o, "fault_address", f->fault_address, TEXT_STRIP_ANSI);
	json_add_str(o, "fault_reason", f->fault_reason, TEXT_STRIP_ANSI);
	j_int(o, "failing_event_seq", f->failing_event_seq);
	j_int(o, "failing_call_index", f->failing_call_index);
	j_int(o, "failing_thread", f->failing_thread);
	json_add_str(o, "failing_api", f->failing_api, TEXT_STRIP_ANSI);
	json_add_str(o, "kernel_name", f->kernel_name, TEXT_STRIP_ANSI);
	json_add_str(o, "kernel_family", f->kernel_family, TEXT_STRIP_ANSI);
	json_add_str(o, "kernarg_address", f->kernarg_address, TEXT_STRIP_ANSI);
	json_add_str(o, "grid", f->grid, TEXT_STRIP_ANSI);
	json_add_str(o, "workgroup", f->workgroup, TEXT_STRIP_ANSI);
	json_add_str(o, "gpu_node", f->gpu_node, TEXT_STRIP_ANSI);
	j_int(o, "replay_signal", f->replay_signal);
	json_add_str(o, "last_progress_kernel", f->last_progress_kernel, TEXT_STRIP_ANSI);
	json_add_str(o, "last_event_kernel", f->last_event_kernel, TEXT_STRIP_ANSI);
	j_int(o, "kernels_launched", f->kernels_launched);
	j_int(o, "d2h_pass", f->d2h_pass);
	j_int(o, "d2h_fail", f->d2h_fail);
	j_int(o, "d2h_attempted", f->d2h_attempted);
	j_int(o, "archive_events", f->archive_events);
	j_int(o, "archive_kernels", f->archive_kernels);
	j_strvec(o, "archive_kernel_names", &f->archive_kernel_names);
	json_add_str(o, "archive_complete",
	      f->archive_complete < 0 ? NULL : f->archive_complete ? "yes" : "no", TEXT_STRIP_ANSI);
	j_int(o, "archive_recovered_events", f->archive_recovered_events);
	j_int(o, "archive_format_version", f->archive_format_version);
	j_int(o, "reader_format_version", f->reader_format_version);
	json_add_str(o, "capture_hip_so", f->capture_hip_so, TEXT_STRIP_ANSI);
	json_add_str(o, "capture_hip_runtime_version", f->capture_hip_runtime_version, TEXT_STRIP_ANSI);
	json_add_str(o, "capture_comgr_version", f->capture_comgr_version, TEXT_STRIP_ANSI);
	j_int(o, "capture_device_count", f->capture_device_count);
	json_add_str(o, "capture_gcn_arch", f->capture_gcn_arch, TEXT_STRIP_ANSI);
	j_strvec(o, "sources", &f->sources);
	j_strvec(o, "notes", &f->notes);

	j_strvec(o, "labels", &f->labels);
	{
		struct signature sig;

		signature_init(&sig);
		signature_of_finding(&sig, f);
		cJSON_AddItemToObject(o, "signature", signature_to_json(&sig));
		signature_release(&sig);
	}
	if (ctx && ctx->known) {
		cJSON *k = cJSON_AddObjectToObject(o, "known");

		json_add_str(k, "id", ctx->known->id, TEXT_STRIP_ANSI);
		json_add_str(k, "link", ctx->known->link, TEXT_STRIP_ANSI);
		json_add_str(k, "owner", ctx->known->owner, TEXT_STRIP_ANSI);
		json_add_str(k, "note", ctx->known->note, TEXT_STRIP_ANSI);
	} else {
		cJSON_AddNullToObject(o, "known");
	}
	arr = cJSON_AddArrayToObject(o, "d2h_failures");
	for (size_t i = 0; i < f->n_d2h_failures; i++)
		cJSON_AddItemToArray(arr, j_d2h_failure(&f->d2h_failures[i]));
	arr = cJSON_AddArrayToObject(o, "unread_evidence");
	for (size_t i = 0; i < f->n_unread; i++)
		cJSON_AddItemToArray(arr, j_unread(&f->unread[i]));
	if (f->gpu_time_kernel_ms < 0 && f->gpu_time_graph_ms < 0 && f->gpu_time_total_ms < 0) {
		cJSON_AddNullToObject(o, "gpu_time_ms");
	} else {
		cJSON *t = cJSON_AddObjectToObject(o, "gpu_time_ms");

		j_double(t, "kernel", f->gpu_time_kernel_ms);
		j_double(t, "graph", f->gpu_time_graph_ms);
		j_double(t, "total", f->gpu_time_total_ms);
	}
	finding_caveats_json(f, o);
	/* null: preflight did not run in this invocation (analyze). A skipped
	 * preflight is a report with verdict SKIPPED, rendered by its owner. */
	if (ctx && ctx->preflight)
		cJSON_AddItemToObject(o, "preflight", preflight_to_json(ctx->preflight));
	else
		cJSON_AddNullToObject(o, "preflight");
	if (ctx && ctx->run)
		cJSON_AddItemToObject(o, "run", j_run(ctx->run));
	return o;
}
