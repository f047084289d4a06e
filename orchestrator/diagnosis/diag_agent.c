/* The rocm-debug-agent's wave report: a streaming, bounded line parser. */
#include "orchestrator/diagnosis/diag_agent.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void diag_agent_report_init(struct diag_agent_report *r)
{
	memset(r, 0, sizeof(*r));
	strvec_init(&r->code_objects);
}

static void wave_release(struct diag_agent_wave *w)
{
	free(w->id);
	free(w->pc);
	free(w->kernel_entry);
	free(w->kernargs);
	free(w->kernel);
	free(w->reason);
	free(w->instruction);
	free(w->code_object);
	free(w->loaded_at);
	memset(w, 0, sizeof(*w));
}

void diag_agent_report_release(struct diag_agent_report *r)
{
	for (size_t i = 0; i < r->n_detail; i++)
		wave_release(&r->wave[i]);
	free(r->event);
	free(r->faulting_page);
	free(r->hw_exception);
	strvec_clear(&r->code_objects);
	diag_agent_report_init(r);
}

void diag_agent_parser_init(struct diag_agent_parser *p, struct diag_agent_report *r)
{
	memset(p, 0, sizeof(*p));
	p->r = r;
	diag_lines_init(&p->lines, DIAG_AGENT_LINE_MAX);
}

/* A bounded copy of s[0..len) with surrounding blanks trimmed. */
static char *field(const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len > DIAG_AGENT_FIELD_MAX)
		len = DIAG_AGENT_FIELD_MAX;
	return xstrndup(s, len);
}

static void set_once(char **slot, const char *s, size_t len)
{
	if (!*slot)
		*slot = field(s, len);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The last occurrence of needle in s[0..len), or NULL. */
static const char *rfind(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = len >= n ? len - n + 1 : 0; i-- > 0;)
		if (!memcmp(s + i, needle, n))
			return s + i;
	return NULL;
}

static size_t hex_span(const char *s)
{
	size_t i = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	while ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
	       (s[i] >= 'A' && s[i] <= 'F'))
		i++;
	return i > 2 ? i : 0;
}

/* "(kernel_code_entry=0x... <NAME>)" between s and end. The name may hold
 * '<', '>', ')' and spaces (templates, signatures): it ends at the entry's
 * closing ">)", found from the end. */
static void parse_entry(struct diag_agent_wave *w, const char *s, const char *end)
{
	static const char key[] = "(kernel_code_entry=";
	const char *e = strstr(s, key);
	const char *k;
	size_t hx;

	if (!e || e >= end)
		return;
	e += sizeof(key) - 1;
	hx = hex_span(e);
	if (!hx)
		return; /* "not available" */
	w->kernel_entry = field(e, hx);
	e += hx;
	while (end > e && end[-1] == ' ')
		end--;
	if (end > e && end[-1] == ')')
		end--;
	/* ROCm 7: "<NAME>, kernargs=0x...)" */
	k = rfind(e, (size_t)(end - e), ", kernargs=");
	if (k && hex_span(k + 11) && k + 11 + hex_span(k + 11) == end) {
		w->kernargs = field(k + 11, (size_t)(end - k - 11));
		end = k;
	}
	if (!strncmp(e, " <", 2) && end > e + 2 && end[-1] == '>')
		w->kernel = field(e + 2, (size_t)(end - 1 - (e + 2)));
}

static void wave_header(struct diag_agent_parser *p, const char *s, size_t len)
{
	struct diag_agent_report *r = p->r;
	const char *colon = memchr(s, ':', len), *pc, *tail, *end = s + len;
	struct diag_agent_wave *w;

	r->waves++;
	p->in_disassembly = false;
	tail = rfind(s, len, " (stopped, reason: ");
	if (tail)
		r->stopped++;
	if (r->n_detail >= DIAG_AGENT_MAX_WAVES) {
		p->cur = NULL;
		return;
	}
	w = p->cur = &r->wave[r->n_detail++];
	w->id = field(s, (size_t)(colon - s));
	pc = strstr(colon, "pc=");
	if (pc) {
		size_t hx = hex_span(pc + 3);

		if (hx)
			w->pc = field(pc + 3, hx);
	}
	if (tail) {
		const char *reason = tail + strlen(" (stopped, reason: ");
		const char *close = memchr(reason, ')', (size_t)(end - reason));

		w->reason = field(reason, (size_t)((close ? close : end) - reason));
	} else {
		tail = rfind(s, len, " (running)");
	}
	parse_entry(w, colon, tail ? tail : end);
}

/* " => 0x7fd4f100d0e8 <+232>:    s_trap 2" */
static void pc_line(struct diag_agent_wave *w, const char *s, size_t len)
{
	const char *end = s + len, *colon;

	s += 2;
	while (s < end && *s == ' ')
		s++;
	s += hex_span(s);
	colon = memchr(s, ':', (size_t)(end - s));
	if (colon)
		set_once(&w->instruction, colon + 1, (size_t)(end - colon - 1));
}

static void add_code_object(struct diag_agent_report *r, const char *uri)
{
	for (size_t i = 0; i < r->code_objects.n; i++)
		if (!strcmp(r->code_objects.v[i], uri))
			return;
	if (r->code_objects.n >= DIAG_AGENT_MAX_CODE_OBJECTS) {
		r->code_objects_truncated = true;
		return;
	}
	strvec_push(&r->code_objects, uri);
}

static void disassembly_line(struct diag_agent_parser *p, const char *s, size_t len)
{
	struct diag_agent_wave *w = p->cur;

	if (starts(s, "End of disassembly.")) {
		p->r->end_of_disassembly = true;
		p->in_disassembly = false;
	} else if (starts(s, "code object:")) {
		char *uri = field(s + 12, len - 12);

		add_code_object(p->r, uri);
		if (w && !w->code_object)
			w->code_object = uri;
		else
			free(uri);
	} else if (w && starts(s, "loaded at:")) {
		set_once(&w->loaded_at, s + 10, len - 10);
	} else if (w && starts(s, "=>")) {
		pc_line(w, s, len);
	}
}

/* A cut line is matched on its head. */
static void process_line(void *ctx, const char *s, size_t len, bool cut)
{
	struct diag_agent_parser *p = ctx;
	struct diag_agent_report *r = p->r;

	(void)cut;

	while (len && (s[len - 1] == '\r' || s[len - 1] == ' '))
		len--;
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	if (!len)
		return;
	if (starts(s, "wave_") && memchr(s, ':', len) && strstr(s, ": pc=")) {
		wave_header(p, s, len);
	} else if (starts(s, "Disassembly for function ") || starts(s, "Disassembly:")) {
		p->in_disassembly = true;
		if (p->cur && starts(s, "Disassembly for function ") && s[len - 1] == ':')
			set_once(&p->cur->kernel, s + 25, len - 26);
	} else if (p->in_disassembly) {
		disassembly_line(p, s, len);
	} else if (!r->event && (starts(s, "Queue error (") || starts(s, "System event (") ||
				 starts(s, "Memory access fault by GPU"))) {
		r->event = field(s, len);
	} else if (!r->hw_exception && starts(s, "HW Exception by GPU")) {
		r->hw_exception = field(s, len);
	} else if (starts(s, "Faulting page:")) {
		set_once(&r->faulting_page, s + 14, len - 14);
	}
}

void diag_agent_feed(struct diag_agent_parser *p, const char *data, size_t len)
{
	diag_lines_feed(&p->lines, data, len, process_line, p);
}

void diag_agent_finish(struct diag_agent_parser *p)
{
	diag_lines_finish(&p->lines, process_line, p);
}

void diag_agent_parse(struct diag_agent_report *r, const char *data, size_t len)
{
	struct diag_agent_parser p;

	diag_agent_parser_init(&p, r);
	diag_agent_feed(&p, data, len);
	diag_agent_finish(&p);
}

static bool faulted(const char *reason)
{
	static const char *const fault_reasons[] = {
		"MEMORY_VIOLATION", "ASSERT_TRAP", "ILLEGAL_INSTRUCTION",
		"ADDRESS_ERROR",    "ECC_ERROR",   "FATAL_HALT",
	};

	for (size_t i = 0; reason && i < sizeof(fault_reasons) / sizeof(*fault_reasons); i++)
		if (strstr(reason, fault_reasons[i]))
			return true;
	return false;
}

const struct diag_agent_wave *diag_agent_suspect(const struct diag_agent_report *r)
{
	for (size_t i = 0; i < r->n_detail; i++)
		if (faulted(r->wave[i].reason))
			return &r->wave[i];
	for (size_t i = 0; i < r->n_detail; i++)
		if (r->wave[i].reason)
			return &r->wave[i];
	return r->n_detail ? &r->wave[0] : NULL;
}

const char *diag_agent_wave_kernel(const struct diag_agent_wave *w)
{
	return w ? w->kernel : NULL;
}

char *diag_agent_saved_name(const char *uri)
{
	char *name = xstrdup(uri);

	for (char *c = name; *c; c++)
		if (strchr(":/#?&=", *c))
			*c = '_';
	return name;
}

bool diag_agent_saved_name_matches(const char *file, const char *uri)
{
	char *want = diag_agent_saved_name(uri);
	const char *f = file;
	bool ok;

	if (*f >= '0' && *f <= '9') {
		while (*f >= '0' && *f <= '9')
			f++;
		f = *f == '_' ? f + 1 : file;
	}
	ok = !strcmp(file, want) || !strcmp(f, want);
	free(want);
	return ok;
}
