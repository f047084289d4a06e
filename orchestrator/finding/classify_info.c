/* `hrr-playback --info` output: archive health and the kernel tables.
 * Evidence about the archive only, never about how a replay ended. */
#include "orchestrator/finding/classify_state.h"

static bool add_kernel_name(struct finding *f, const char *a, const char *b)
{
	size_t n = span(a, b);

	/* Cut by --info's column width: useless as a symbol. */
	if (n >= 3 && !memcmp(b - 3, "...", 3))
		return false;
	for (size_t i = 0; i < f->archive_kernel_names.n; i++) {
		const char *s = f->archive_kernel_names.v[i];

		if (strlen(s) == n && !memcmp(s, a, n))
			return true;
	}
	if (f->archive_kernel_names.n < FINDING_MAX_KERNEL_NAMES)
		strvec_push_nodup(&f->archive_kernel_names, dup_range(a, b));
	return true;
}

/* "[a,b,c]" */
static const char *dims_token(const char *p, const char *end)
{
	if (p >= end || *p != '[')
		return NULL;
	for (p++; p < end && *p != ']'; p++)
		if (!is_digit(*p) && *p != ',' && *p != ' ')
			return NULL;
	return p < end ? p + 1 : NULL;
}

/* "  0    name    [g,g,g]   [b,b,b]   shmem" (Kernel Summary) */
static void on_summary_row(struct classifier *c, const char *p, const char *end)
{
	const char *q = skip_blanks(p, end);
	const char *name, *name_end;

	if (q < end && is_digit(*q)) {
		while (q < end && is_digit(*q))
			q++;
		if (q >= end || (*q != ' ' && *q != '\t'))
			return;
		q = skip_blanks(q, end);
	}
	if (q >= end || !(isalpha((unsigned char)*q) || *q == '_'))
		return;
	name = q;
	while (q < end && *q != ' ' && *q != '\t' && *q != '[')
		q++;
	name_end = q;
	q = dims_token(skip_blanks(q, end), end);
	if (!q)
		return;
	q = dims_token(skip_blanks(q, end), end);
	if (!q)
		return;
	if (!c->cut)
		add_kernel_name(&c->f, name, name_end);
}

/* "  name    calls" (Kernel Call Counts): one row per distinct kernel. */
static void on_call_count_row(struct classifier *c, const char *p, const char *end)
{
	const char *q = skip_blanks(p, end);
	const char *name = q, *name_end, *r;
	long long calls;

	end = trim_end(q, end);
	if (q >= end || *q == '-' || has_prefix(q, end, LIT("Kernel ")))
		return;
	r = end;
	while (r > q && is_digit(r[-1]))
		r--;
	if (r == end || r == q || (r[-1] != ' ' && r[-1] != '\t'))
		return;
	{
		const char *t = r;

		if (!parse_num(&t, end, &calls))
			return;
	}
	name_end = trim_end(name, r);
	c->f.archive_distinct_kernels = (c->f.archive_distinct_kernels < 0 ? 0 : c->f.archive_distinct_kernels) + 1;
	if (!c->cut)
		add_kernel_name(&c->f, name, name_end);
}

/* "Complete:     yes (clean shutdown)" / "NO (...)"; p is after "Complete:". */
void classify_complete(struct classifier *c, const char *p, const char *end)
{
	p = skip_blanks(p, end);
	if (has_prefix(p, end, LIT("yes")))
		c->f.archive_complete = 1;
	else if (has_prefix(p, end, LIT("NO")) || has_prefix(p, end, LIT("no")))
		c->f.archive_complete = 0;
}

/* `hrr-playback --info` lines; they start at column 0. Returns true when handled. */
bool classify_info(struct classifier *c, const char *p, const char *end)
{
	struct finding *f = &c->f;
	const char *q;
	long long v;

	if (p == end) {
		c->section = INFO_NONE;
		return true;
	}
	switch (*p) {
	case 'C':
		if (has_prefix(p, end, LIT("Complete:"))) {
			classify_complete(c, p + 9, end);
			return true;
		}
		break;
	case 'R':
		if (has_prefix(p, end, LIT("Recovered:"))) {
			q = skip_blanks(p + 10, end);
			if (parse_num(&q, end, &v))
				f->archive_recovered_events = v;
			return true;
		}
		break;
	case 'E':
		if (has_prefix(p, end, LIT("Events:"))) {
			q = skip_blanks(p + 7, end);
			if (parse_num(&q, end, &v))
				f->archive_events = v;
			return true;
		}
		break;
	case 'K':
		if (has_prefix(p, end, LIT("Kernels:"))) {
			q = skip_blanks(p + 8, end);
			if (parse_num(&q, end, &v))
				f->archive_kernels = v;
			return true;
		}
		if (has_prefix(p, end, LIT("Kernel Summary"))) {
			c->section = INFO_KERNEL_SUMMARY;
			return true;
		}
		if (has_prefix(p, end, LIT("Kernel Call Counts"))) {
			c->section = INFO_CALL_COUNTS;
			f->archive_distinct_kernels = 0;
			return true;
		}
		break;
	case 'H':
		if (has_prefix(p, end, LIT("HRR Archive Root:"))) {
			c->section = INFO_ROOT;
			c->archive_tool |= !c->replay_started;
			return true;
		}
		/* The first line --info prints, before any name from the
		 * archive (only the reader's own lines may come before it): an
		 * input where it comes before a replay's first line is --info
		 * output. */
		if (has_prefix(p, end, LIT("HRR Archive:"))) {
			c->archive_tool |= !c->replay_started;
			return true;
		}
		break;
	case 'P':
		if (c->section == INFO_ROOT && has_prefix(p, end, LIT("Processes:"))) {
			q = skip_blanks(p + 10, end);
			if (parse_num(&q, end, &v) && v > 1)
				f->multi_process = true;
			return true;
		}
		break;
	case ' ':
	case '\t':
		if (c->section == INFO_KERNEL_SUMMARY) {
			on_summary_row(c, p, end);
			return true;
		}
		if (c->section == INFO_CALL_COUNTS) {
			on_call_count_row(c, p, end);
			return true;
		}
		break;
	default:
		break;
	}
	return false;
}

