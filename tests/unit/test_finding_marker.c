/* The stop markers have one grammar: what marker_format writes,
 * marker_parse reads back, and the classifier sees the same ending. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/strbuf.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/marker.h"

static const struct marker every[] = {
	{ .ended_by = ENDED_TIMEOUT, .seconds = 5 },
	{ .ended_by = ENDED_PROGRESS_TIMEOUT, .seconds = 7 },
	{ .ended_by = ENDED_SIGNAL, .signal = 11 },
	{ .ended_by = ENDED_OOM },
	{ .ended_by = ENDED_INTERRUPT, .signal_name = "SIGTERM" },
};

Test(finding_marker, format_then_parse_round_trips)
{
	for (size_t i = 0; i < sizeof(every) / sizeof(every[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		struct marker back;

		marker_format(&sb, &every[i]);
		cr_assert(marker_parse(sb.buf, sb.buf + sb.len, &back), "%s", sb.buf);
		cr_assert_eq(back.ended_by, every[i].ended_by, "%s", sb.buf);
		cr_assert_eq(back.seconds, every[i].seconds, "%s", sb.buf);
		cr_assert_eq(back.signal, every[i].signal, "%s", sb.buf);
		if (every[i].signal_name) {
			cr_assert_eq(back.signal_name_len, strlen(every[i].signal_name));
			cr_assert(!memcmp(back.signal_name, every[i].signal_name, back.signal_name_len));
		}
		strbuf_release(&sb);
	}
}

Test(finding_marker, exit_writes_nothing_and_names_are_json_spelling)
{
	struct marker m = { .ended_by = ENDED_EXIT };
	struct strbuf sb = STRBUF_INIT;

	marker_format(&sb, &m);
	cr_assert_eq(sb.len, 0);
	cr_assert_str_eq(finding_ended_by_name(ENDED_PROGRESS_TIMEOUT), "progress-timeout");
	cr_assert_str_eq(finding_ended_by_name(ENDED_OOM), "oom");
	cr_assert_str_eq(finding_ended_by_name(ENDED_EXIT), "exit");
	strbuf_release(&sb);
}

Test(finding_marker, near_misses_are_not_markers)
{
	static const char *const not_markers[] = {
		"replay timed out after s", "replay timed out after 5", "replay killed by signal ",
		"replay killed by the engine", "replay finished", "replay", "Replay aborted",
	};
	struct marker m;

	for (size_t i = 0; i < sizeof(not_markers) / sizeof(not_markers[0]); i++) {
		const char *s = not_markers[i];

		cr_assert_not(marker_parse(s, s + strlen(s), &m), "%s", s);
	}
}

/* Each formatted marker, written as the runner writes it, classifies as
 * the ending it records. */
Test(finding_marker, classifier_reads_what_the_runner_writes)
{
	static const enum finding_fault_class want[] = {
		FAULT_HANG, FAULT_HANG, FAULT_REPLAY_CRASHED, FAULT_REPLAY_OOM, FAULT_REPLAY_ABORTED,
	};

	for (size_t i = 0; i < sizeof(every) / sizeof(every[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		struct classifier *c = classifier_new(NULL);
		struct finding f;

		strbuf_addstr(&sb, "[HRR] Archive : 3 events, 1 kernels\n" MARKER_PREFIX);
		marker_format(&sb, &every[i]);
		strbuf_addch(&sb, '\n');
		classifier_feed(c, sb.buf, sb.len);
		classifier_finish(c, &f);
		classifier_free(c);
		cr_assert_eq(f.fault_class, want[i], "%s: %s", sb.buf,
			     finding_fault_class_name(f.fault_class));
		cr_assert_eq(f.outcome, every[i].ended_by == ENDED_TIMEOUT ||
				every[i].ended_by == ENDED_PROGRESS_TIMEOUT ? OUTCOME_HANG : OUTCOME_ABORT);
		finding_release(&f);
		strbuf_release(&sb);
	}
}

/* A log whose last line is exactly "[HRR]" with no newline: nothing past
 * the line is read (valgrind saw a one-byte uninitialised read here). */
Test(finding_marker, bare_hrr_last_line_reads_nothing_past_it)
{
	struct classifier *c = classifier_new(NULL);
	struct finding f;

	classifier_feed(c, "[HRR] PASS\n[HRR]", 16);
	classifier_finish(c, &f);
	classifier_free(c);
	cr_assert_eq(f.outcome, OUTCOME_PASS);
	finding_release(&f);
}
