/* ROCgdb transcripts: agents, queues, dispatches and their kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "orchestrator/diagnosis/diag_mi.h"

void diag_mi_result_init(struct diag_mi_result *r)
{
	memset(r, 0, sizeof(*r));
}

void diag_mi_result_release(struct diag_mi_result *r)
{
	for (size_t i = 0; i < r->n_agents; i++) {
		struct diag_mi_agent *a = &r->agents[i];

		free(a->id), free(a->target_id), free(a->architecture), free(a->name);
	}
	for (size_t i = 0; i < r->n_queues; i++) {
		struct diag_mi_queue *q = &r->queues[i];

		free(q->id), free(q->agent_id), free(q->target_id), free(q->type);
		free(q->read), free(q->write);
	}
	for (size_t i = 0; i < r->n_dispatches; i++) {
		struct diag_mi_dispatch *d = &r->dispatches[i];

		free(d->id), free(d->queue_id), free(d->target_id), free(d->grid);
		free(d->workgroup), free(d->kernel_function), free(d->kernel);
	}
	for (size_t i = 0; i < r->n_waves; i++) {
		struct diag_mi_wave *w = &r->waves[i];

		free(w->id), free(w->target_id), free(w->func), free(w->addr);
	}
	for (size_t i = 0; i < r->n_table; i++)
		free(r->table_target[i]), free(r->table_kernel[i]);
	free(r->first_error);
	diag_mi_result_init(r);
}

void diag_mi_parser_init(struct diag_mi_parser *p, struct diag_mi_result *r)
{
	memset(p, 0, sizeof(*p));
	p->r = r;
	diag_lines_init(&p->lines, DIAG_MI_LINE_MAX);
	strbuf_init(&p->console, 0);
	p->kernel_col = p->target_col = p->grid_col = -1;
}

/* A bounded, trimmed copy; NULL for NULL. */
static char *field(const char *s, size_t len)
{
	if (!s)
		return NULL;
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n'))
		len--;
	return xstrndup(s, len > DIAG_MI_FIELD_MAX ? DIAG_MI_FIELD_MAX : len);
}

static char *str_field(const struct mi_value *t, const char *name)
{
	const char *s = mi_get_str(t, name);

	return s ? field(s, strlen(s)) : NULL;
}

/* grid="[1024,1,1]" as ROCgdb prints it, or a list of dimensions. */
static char *dims_field(const struct mi_value *t, const char *name)
{
	const struct mi_value *v = mi_get(t, name);
	struct strbuf sb = STRBUF_INIT;

	if (!v)
		return NULL;
	if (v->kind == MI_CONST)
		return field(v->str, strlen(v->str));
	strbuf_addch(&sb, '[');
	for (size_t i = 0; i < v->n && sb.len < DIAG_MI_FIELD_MAX; i++)
		if (v->items[i]->kind == MI_CONST)
			strbuf_addf(&sb, "%s%s", i ? "," : "", v->items[i]->str);
	strbuf_addch(&sb, ']');
	return strbuf_detach(&sb, NULL);
}

static const struct mi_value *list_of(const struct mi_value *results, const char *name)
{
	const struct mi_value *v = mi_get(results, name);

	return v && v->kind == MI_LIST ? v : NULL;
}

/* How many of n more entities fit beside have kept ones; the rest are
 * counted as dropped. */
static size_t fit(struct diag_mi_result *r, size_t have, size_t n)
{
	size_t room = have < DIAG_MI_MAX_ENTITIES ? DIAG_MI_MAX_ENTITIES - have : 0;

	if (n <= room)
		return n;
	r->dropped += (long long)(n - room);
	return room;
}

static void take_done(struct diag_mi_result *r, const struct mi_value *res)
{
	const struct mi_value *l;

	if ((l = list_of(res, "agents")))
		for (size_t i = 0, n = fit(r, r->n_agents, l->n); i < n; i++) {
			struct diag_mi_agent *a = &r->agents[r->n_agents++];

			a->id = str_field(l->items[i], "id");
			a->target_id = str_field(l->items[i], "target-id");
			a->architecture = str_field(l->items[i], "architecture");
			a->name = str_field(l->items[i], "name");
		}
	if ((l = list_of(res, "queues")))
		for (size_t i = 0, n = fit(r, r->n_queues, l->n); i < n; i++) {
			struct diag_mi_queue *q = &r->queues[r->n_queues++];

			q->id = str_field(l->items[i], "id");
			q->agent_id = str_field(l->items[i], "agent-id");
			q->target_id = str_field(l->items[i], "target-id");
			q->type = str_field(l->items[i], "type");
			q->read = str_field(l->items[i], "read");
			q->write = str_field(l->items[i], "write");
		}
	if ((l = list_of(res, "dispatches"))) {
		r->saw_mi_dispatches = true;
		/* A dispatch in flight is seen only inside the attached
		 * process: it proves the attach as a thread does. */
		if (l->n)
			r->attached = true;
		for (size_t i = 0, n = fit(r, r->n_dispatches, l->n); i < n; i++) {
			struct diag_mi_dispatch *d = &r->dispatches[r->n_dispatches++];
			const struct mi_value *t = l->items[i];

			d->id = str_field(t, "id");
			/* The manual's example spells it queue_id once. */
			d->queue_id = str_field(t, mi_get(t, "queue-id") ? "queue-id" : "queue_id");
			d->target_id = str_field(t, "target-id");
			d->grid = dims_field(t, "grid");
			d->workgroup = dims_field(t, "workgroup");
			d->kernel_function = str_field(t, "kernel-function");
		}
	}
	if ((l = list_of(res, "threads"))) {
		/* Threads exist only in a process rocgdb is attached to: this
		 * record, not the absence of an error, proves the attach. */
		if (l->n)
			r->attached = true;
		for (size_t i = 0; i < l->n; i++) {
			const struct mi_value *t = l->items[i], *frame = mi_get(t, "frame");
			const char *tid = mi_get_str(t, "target-id");
			struct diag_mi_wave *w;

			if (!tid || strncmp(tid, "AMDGPU Wave ", 12) || !fit(r, r->n_waves, 1))
				continue;
			w = &r->waves[r->n_waves++];
			w->id = str_field(t, "id");
			w->target_id = field(tid, strlen(tid));
			w->func = str_field(frame, "func");
			w->addr = str_field(frame, "addr");
		}
	}
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static long column_of(const char *s, const char *name)
{
	const char *c = strstr(s, name);

	return c ? (long)(c - s) : -1;
}

/* A row of the human `info dispatches` table, cut at the header's columns. */
static void table_row(struct diag_mi_parser *p, const char *s, size_t len)
{
	struct diag_mi_result *r = p->r;
	long tend = p->grid_col > p->target_col ? p->grid_col : p->kernel_col;

	if ((long)len <= p->kernel_col || (*s != ' ' && *s != '*')) {
		p->kernel_col = -1; /* the table ended */
		return;
	}
	if (!fit(r, r->n_table, 1))
		return;
	r->table_target[r->n_table] = field(s + p->target_col, (size_t)(tend - p->target_col));
	r->table_kernel[r->n_table] = field(s + p->kernel_col, len - (size_t)p->kernel_col);
	r->n_table++;
	/* A row of the table is a dispatch in flight: rocgdb is attached. */
	r->attached = true;
}

/* The columns of an `info dispatches` header, in the order ROCgdb prints
 * them; any other order is no table of ours. */
static void table_header(struct diag_mi_parser *p, const char *s)
{
	long t = column_of(s, "Target Id"), g = column_of(s, "Grid");
	long k = column_of(s, "Kernel Function");

	if (t < 0 || k <= t)
		return;
	p->target_col = t;
	p->grid_col = g > t && g < k ? g : -1;
	p->kernel_col = k;
}

static void human_line(struct diag_mi_parser *p, const char *s, size_t len)
{
	struct diag_mi_result *r = p->r;

	while (len && (s[len - 1] == '\r' || s[len - 1] == '\n'))
		len--;
	if (p->kernel_col >= 0) {
		table_row(p, s, len);
		if (p->kernel_col >= 0)
			return;
	}
	if (strstr(s, "No dispatches are currently active."))
		r->no_dispatches = true;
	else if (starts(s, "[Inferior ") && strstr(s, " detached]"))
		r->detached = true;
	else if (!r->first_error && (starts(s, "ptrace: ") || starts(s, "Could not attach") ||
				     starts(s, "Cannot attach")))
		r->first_error = field(s, len);
	else if (strstr(s, "Target Id") && strstr(s, "Kernel Function"))
		table_header(p, s);
}

/* Console stream text may end a line in a later record: split on '\n'. */
static void console_text(struct diag_mi_parser *p, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n') {
			human_line(p, p->console.buf, p->console.len);
			strbuf_reset(&p->console);
		} else if (p->console.len < DIAG_MI_LINE_MAX && s[i]) {
			strbuf_addch(&p->console, s[i]);
		}
	}
}

static void record_line(struct diag_mi_parser *p, const char *s, size_t len)
{
	struct diag_mi_result *r = p->r;
	struct mi_record rec;
	struct error err;

	if (mi_parse_record(s, len, &rec, &err) < 0) {
		r->bad_records++;
		return;
	}
	r->records++;
	if (rec.type == MI_RESULT && !strcmp(rec.cls, "done")) {
		take_done(r, rec.results);
	} else if (rec.type == MI_RESULT && !strcmp(rec.cls, "error")) {
		const char *msg = mi_get_str(rec.results, "msg");

		if (!r->first_error && msg)
			r->first_error = field(msg, strlen(msg));
	} else if (rec.type == MI_CONSOLE || rec.type == MI_LOG) {
		console_text(p, rec.stream, rec.stream_len);
	} else if ((rec.type == MI_EXEC_ASYNC && !strcmp(rec.cls, "stopped")) ||
		   (rec.type == MI_NOTIFY_ASYNC && (!strcmp(rec.cls, "thread-group-started") ||
						    !strcmp(rec.cls, "thread-created")))) {
		/* GDB reports the attached process stopped, its group started,
		 * or one of its threads (a wave is one) found. */
		r->attached = true;
	}
	mi_record_release(&rec);
}

/* An over-long record is skipped (counted); a cut human line is read on
 * its head. */
static void process_line(void *ctx, const char *s, size_t len, bool cut)
{
	struct diag_mi_parser *p = ctx;

	while (len && s[len - 1] == '\r')
		len--;
	if (mi_is_record(s, len)) {
		if (cut)
			p->r->bad_records++;
		else
			record_line(p, s, len);
	} else if (strncmp(s, "(gdb)", 5)) {
		human_line(p, s, len);
	}
}

void diag_mi_feed(struct diag_mi_parser *p, const char *data, size_t len)
{
	diag_lines_feed(&p->lines, data, len, process_line, p);
}

bool diag_mi_dispatch_key(const char *target_id, char *out, size_t outsz)
{
	struct diag_target_id t;

	/* A wave whose dispatch is "?" belongs to no known dispatch. */
	if (!diag_mi_target_id_parse(target_id, &t) ||
	    (t.kind != DIAG_TARGET_DISPATCH && t.kind != DIAG_TARGET_WAVE) || t.path[0] < 0 ||
	    t.path[1] < 0 || t.path[2] < 0)
		return false;
	return snprintf(out, outsz, "%lld:%lld:%lld", t.path[0], t.path[1], t.path[2]) <
	       (int)outsz;
}

/* Name each dispatch's kernel: a wave of that dispatch, else the table. */
static void name_kernels(struct diag_mi_result *r)
{
	for (size_t i = 0; i < r->n_dispatches; i++) {
		struct diag_mi_dispatch *d = &r->dispatches[i];
		char key[96], wkey[96];

		for (size_t w = 0; !d->kernel && w < r->n_waves; w++)
			if (r->waves[w].func && diag_mi_dispatch_key(d->target_id, key, sizeof(key)) &&
			    diag_mi_dispatch_key(r->waves[w].target_id, wkey, sizeof(wkey)) &&
			    !strcmp(key, wkey)) {
				d->kernel = xstrdup(r->waves[w].func);
				d->kernel_from = "wave";
			}
		for (size_t t = 0; !d->kernel && t < r->n_table; t++)
			if (d->target_id && !strcmp(d->target_id, r->table_target[t])) {
				d->kernel = xstrdup(r->table_kernel[t]);
				d->kernel_from = "info dispatches";
			}
	}
	/* A transcript with the human table only: its rows are the dispatches. */
	for (size_t t = 0; !r->saw_mi_dispatches && t < r->n_table && fit(r, r->n_dispatches, 1); t++) {
		struct diag_mi_dispatch *d = &r->dispatches[r->n_dispatches++];

		d->target_id = xstrdup(r->table_target[t]);
		d->kernel = xstrdup(r->table_kernel[t]);
		d->kernel_from = "info dispatches";
	}
}

void diag_mi_finish(struct diag_mi_parser *p)
{
	diag_lines_finish(&p->lines, process_line, p);
	if (p->console.len)
		human_line(p, p->console.buf, p->console.len);
	name_kernels(p->r);
	strbuf_release(&p->console);
}

void diag_mi_parse(struct diag_mi_result *r, const char *data, size_t len)
{
	struct diag_mi_parser p;

	diag_mi_parser_init(&p, r);
	diag_mi_feed(&p, data, len);
	diag_mi_finish(&p);
}

/* One number of a target id, or '?' (-1); *p moves past it. */
static bool id_field(const char **p, long long *out)
{
	char *end;

	if (**p == '?') {
		*out = -1;
		(*p)++;
		return true;
	}
	if (**p < '0' || **p > '9')
		return false;
	*out = strtoll(*p, &end, 10);
	*p = end;
	return true;
}

/* n fields separated by sep, starting at *p. */
static bool id_fields(const char **p, char sep, long long *out, int n)
{
	for (int i = 0; i < n; i++) {
		if (i && *(*p)++ != sep)
			return false;
		if (!id_field(p, &out[i]))
			return false;
	}
	return true;
}

static bool id_tail(const char **p, const char *word, long long *out)
{
	size_t n = strlen(word);

	if (strncmp(*p, word, n))
		return false;
	*p += n;
	return id_field(p, out) && *(*p)++ == ')';
}

bool diag_mi_target_id_parse(const char *s, struct diag_target_id *t)
{
	const char *p;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 4; i++)
		t->path[i] = -1;
	t->work_group[0] = t->work_group[1] = t->work_group[2] = t->lane = t->extra = -1;
	if (!s || strncmp(s, "AMDGPU ", 7))
		return false;
	p = s + 7;
	if (!strncmp(p, "Agent (GPUID ", 13)) {
		t->kind = DIAG_TARGET_AGENT;
		p += 13;
		return id_field(&p, &t->extra) && *p == ')';
	}
	if (!strncmp(p, "Queue ", 6)) {
		t->kind = DIAG_TARGET_QUEUE;
		p += 6;
		return id_fields(&p, ':', t->path, 2) && id_tail(&p, " (QID ", &t->extra) && !*p;
	}
	if (!strncmp(p, "Dispatch ", 9)) {
		t->kind = DIAG_TARGET_DISPATCH;
		p += 9;
		return id_fields(&p, ':', t->path, 3) && id_tail(&p, " (PKID ", &t->extra) && !*p;
	}
	if (!strncmp(p, "Wave ", 5)) {
		t->kind = DIAG_TARGET_WAVE;
		p += 5;
		if (!id_fields(&p, ':', t->path, 4) || strncmp(p, " (", 2))
			return false;
		p += 2;
		if (!id_fields(&p, ',', t->work_group, 3) || strncmp(p, ")/", 2))
			return false;
		p += 2;
		return id_field(&p, &t->lane) && !*p;
	}
	return false;
}
