/* hrr-playback's lines that name the launch in flight and the failures of
 * its syncs (issue 40 §1.2-1.4, §1.8):
 *   [HRR launch] seq=%llu kernel=%zu launch=%s grid=[..] block=[..] ... name="%s"   (--trace-kernels)
 *   [HRR sync begin] seq=%llu kernel=%zu name="%s"                                 (--trace-sync)
 *   [HRR sync done] seq=%llu kernel=%zu status=success
 *   [HRR] <sync API> error %d (%s)                    (a per-event sync that failed)
 *   [HRR] Failed to load code object %s: %d (%s)
 *   [HRR] Device  : <name> (<gcnArchName>)
 * and its start banner, once per replay in the log. */
#include "orchestrator/finding/classify_state.h"

/* seq=S and name="N" of a trace line; the name is NULL when hrr-playback
 * shortened it (a shortened name is never a finding's kernel). false when
 * the line has no seq. */
static bool trace_fields(const char *p, const char *end, long long *seq, char **name)
{
	const char *a, *b;

	*name = NULL;
	if (!num_after(p, end, LIT("seq="), seq))
		return false;
	a = find(p, end, LIT("name=\""));
	if (!a)
		return true;
	a += 6;
	b = end;
	while (b > a && b[-1] != '"')
		b--;
	if (b > a + 1 && !is_compacted_name(a, b - 1))
		*name = dup_range(a, b - 1);
	return true;
}

/* A launch or a sync begin before the fault: the one in flight so far
 * (a launch after the fault is not the one in flight when it came). */
static bool on_traced(struct classifier *c, const char *p, const char *end, long long *seq,
		      char **kernel)
{
	long long v;
	char *name;

	if (c->fault_seen || c->cut || !trace_fields(p, end, &v, &name))
		return false;
	*seq = v;
	free(*kernel);
	*kernel = name;
	return true;
}

static void on_sync_done(struct classifier *c, const char *p, const char *end)
{
	long long seq;

	if (c->cut || !num_after(p, end, LIT("seq="), &seq))
		return;
	if (c->sync_open && seq == c->sync_seq)
		c->sync_open = false;
	/* the launch completed: it is no longer in flight */
	if (seq >= c->launch_seq)
		c->launch_seq = -1;
}

bool classify_trace(struct classifier *c, const char *s, const char *end)
{
	if (has_prefix(s, end, LIT("[HRR launch] ")))
		on_traced(c, s + 13, end, &c->launch_seq, &c->launch_kernel);
	else if (has_prefix(s, end, LIT("[HRR sync begin] ")))
		c->sync_open |= on_traced(c, s + 17, end, &c->sync_seq, &c->sync_kernel);
	else if (has_prefix(s, end, LIT("[HRR sync done] ")))
		on_sync_done(c, s + 16, end);
	else
		return false;
	return true;
}

bool classify_sync_error(struct classifier *c, const char *q, const char *end)
{
	const char *e = q, *n;
	long long code;

	while (e < end && is_word(*e))
		e++;
	if (e == q || !has_prefix(e, end, LIT(" error ")) || !find(q, e, LIT("ynchronize")))
		return false;
	n = e + 7;
	saw_fault(c);
	if (parse_num(&n, end, &code) && !(c->cut && n == end))
		classify_hip_code(c, code, false, q, e);
	return true;
}

bool classify_load_failure(struct classifier *c, const char *q, const char *end)
{
	const char *r;
	long long code;

	if (!has_prefix(q, end, LIT("Failed to load code object ")))
		return false;
	r = find(q + 27, end, LIT(": "));
	if (r && (r += 2, parse_num(&r, end, &code)) && !(c->cut && r == end))
		classify_hip_code(c, code, false, NULL, NULL);
	return true;
}

bool classify_device_line(struct classifier *c, const char *q, const char *end)
{
	const char *r, *a, *b;

	if (!has_prefix(q, end, LIT("Device")))
		return false;
	r = skip_blanks(q + 6, end);
	if (r >= end || *r != ':' || c->cut)
		return true;
	b = trim_end(r, end);
	if (b <= r || b[-1] != ')')
		return true;
	a = b - 1;
	while (a > r && a[-1] != '(')
		a--;
	if (has_prefix(a, b - 1, LIT("gfx")))
		set_once(&c->f.replay_gcn_arch, a, b - 1);
	return true;
}

void classify_banner(struct classifier *c)
{
	if (c->parts < (long long)(sizeof(c->part_lines) / sizeof(c->part_lines[0])))
		c->part_lines[c->parts] = c->line_no;
	c->parts++;
}
