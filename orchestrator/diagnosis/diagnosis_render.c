/* A diagnosis for people (a markdown section; its JSON is
 * diagnosis_json.c's). Every string passes through common/text.h: kernel
 * names come from the archive, the rest from a tool's output. */
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "orchestrator/diagnosis/diagnosis.h"

/* Sanitised text for a table cell: '|' would end the cell. */
static void md_cell(struct strbuf *out, const char *s, bool code)
{
	char *clean = text_sanitized(s ? s : "n/a", TEXT_STRIP_ANSI);
	bool tick = code && s && strchr(clean, '`');

	if (code && s)
		strbuf_addstr(out, tick ? "`` " : "`");
	for (const char *c = clean; *c; c++)
		if (*c == '|')
			strbuf_addstr(out, "\\|");
		else
			strbuf_addch(out, *c);
	if (code && s)
		strbuf_addstr(out, tick ? " ``" : "`");
	free(clean);
}

static void md_row(struct strbuf *out, const char *field, const char *v, bool code)
{
	strbuf_addf(out, "| %s | ", field);
	md_cell(out, v, code);
	strbuf_addstr(out, " |\n");
}

static void md_dispatches(const struct diagnosis *d, struct strbuf *out)
{
	if (!d->n_dispatches)
		return;
	strbuf_addstr(out, "\n**In-flight dispatches**\n\n"
			   "| Dispatch | Queue | Grid | Workgroup | Kernel |\n"
			   "|----------|-------|------|-----------|--------|\n");
	for (size_t i = 0; i < d->n_dispatches; i++) {
		const struct diagnosis_dispatch *x = &d->dispatches[i];

		strbuf_addstr(out, "| ");
		md_cell(out, x->target_id ? x->target_id : x->id, false);
		strbuf_addstr(out, " | ");
		md_cell(out, x->queue_id, false);
		strbuf_addstr(out, " | ");
		md_cell(out, x->grid, false);
		strbuf_addstr(out, " | ");
		md_cell(out, x->workgroup, false);
		strbuf_addstr(out, " | ");
		md_cell(out, x->kernel, true);
		strbuf_addstr(out, " |\n");
	}
}

static void md_list(struct strbuf *out, const char *title, const struct strvec *sv, bool code)
{
	if (!sv->n)
		return;
	strbuf_addf(out, "\n**%s**\n\n", title);
	for (size_t i = 0; i < sv->n; i++) {
		strbuf_addstr(out, "- ");
		md_cell(out, sv->v[i], code);
		strbuf_addch(out, '\n');
	}
}

void diagnosis_render_markdown(const struct diagnosis *d, struct strbuf *out)
{
	char *expl;

	strbuf_addf(out, "\n### Diagnosis (%s)\n\n", diagnosis_tool_name(d->tool));
	if (d->status != DIAGNOSIS_OK) {
		strbuf_addf(out, "**%s**: ", diagnosis_status_name(d->status));
		md_cell(out, d->summary ? d->summary : "no detail", false);
		strbuf_addstr(out, ". The run's verdict does not depend on it.\n");
		md_list(out, "Notes", &d->notes, false);
		return;
	}
	strbuf_addstr(out, "| Field | Value |\n|-------|-------|\n");
	md_row(out, "Seen", d->summary, false);
	md_row(out, "Kernel", d->kernel, true);
	md_row(out, "Named by", d->kernel_from, false);
	md_row(out, "Reason", d->reason, false);
	md_row(out, "PC", d->pc, true);
	md_row(out, "Instruction", d->instruction, true);
	strbuf_addstr(out, "| Waves | ");
	if (d->waves >= 0)
		strbuf_addf(out, "%lld |\n", d->waves);
	else
		strbuf_addstr(out, "n/a |\n");
	md_dispatches(d, out);
	expl = diagnosis_explain(d->kernel, d->reason);
	if (expl) {
		strbuf_addstr(out, "\n");
		md_cell(out, expl, false);
		strbuf_addstr(out, "\n");
		free(expl);
	}
	md_list(out, "Code objects", &d->code_objects, true);
	md_list(out, "Files (diagnostics/)", &d->files, true);
	md_list(out, "Notes", &d->notes, false);
	strbuf_addf(out, "\n> %s\n", diagnosis_caveat);
}
