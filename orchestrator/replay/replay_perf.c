/* The timing replays of `--perf N` (docs/perf.md "Samples"). */
#include "orchestrator/replay/replay_perf.h"

#include <stdbool.h>
#include <string.h>

#include "common/strbuf.h"

void replay_perf_desc(const struct replay_desc *d, struct replay_desc *t)
{
	*t = *d;
	/* --sync-after-launch serializes the GPU: attribution runs and timing
	 * runs are different runs. */
	t->no_sync = true;
	t->timing = true;
	t->diagnose = DIAGNOSE_OFF;
	t->keep = false;
	t->run_id = NULL;
	t->on_verdict = NULL;
	if (t->verbosity <= 0)
		t->verbosity = -1;
	/* The verdict replay already passed preflight (and its confirmation). */
	t->confirm = REPLAY_CONFIRM_ASSUME_YES;
}

bool replay_perf_after(const struct replay_unit_result *u)
{
	return u->has_verdict && u->verdict.outcome == OUTCOME_PASS;
}

/* Why a timing replay gives no sample (appended to why), or false when it
 * gives one. */
static bool no_sample(const struct replay_unit_result *u, struct strbuf *why)
{
	if (u->interrupt_signal)
		strbuf_addstr(why, "was interrupted");
	else if (!u->has_verdict)
		strbuf_addf(why, "ended without a verdict (%s)",
			    u->failure.msg[0] ? u->failure.msg : "no finding");
	else if (!replay_perf_after(u))
		strbuf_addf(why, "ended %s", finding_outcome_name(u->verdict.outcome));
	else if (u->verdict.gpu_kernel_ms < 0 && u->verdict.gpu_total_ms < 0)
		strbuf_addstr(why, "printed no GPU times: this image's hrr-playback has no "
			      "--timing summary");
	else
		return false;
	return true;
}

/* Timing replays first+1 .. first+count of `of` (the note numbers them
 * so); those before the warmup's end discarded, the others appended to out. */
static int take(const struct replay_host *host, const struct replay_desc *t, int first,
		int count, int of, struct perf_samples *out)
{
	int sig = 0;

	for (int i = first; i < first + count; i++) {
		struct replay_unit_result u;
		cleanup_strbuf struct strbuf note = STRBUF_INIT;

		replay_unit_run(host, t, &u);
		sig = u.interrupt_signal;
		strbuf_addf(&note, "timing replay %d of %d ", i + 1, of);
		if (no_sample(&u, &note)) {
			strbuf_addstr(&note, "; sampling stopped");
			perf_samples_note(out, note.buf);
			replay_unit_result_release(&u);
			break;
		}
		if (i >= out->warmup) {
			const struct replay_verdict *v = &u.verdict;
			struct perf_sample x = {
				.kernel_ms = v->gpu_kernel_ms,
				.graph_ms = v->gpu_graph_ms,
				.total_ms = v->gpu_total_ms,
				.wall_ms = u.timings.wall_s * 1000.0,
			};

			perf_samples_add(out, &x);
		}
		replay_unit_result_release(&u);
	}
	return sig;
}

int replay_perf_sample(const struct replay_host *host, const struct replay_desc *t, int n,
		       int warmup, struct perf_samples *out)
{
	memset(out, 0, sizeof(*out));
	out->warmup = warmup;
	return take(host, t, 0, warmup + n, warmup + n, out);
}

int replay_perf_more(const struct replay_host *host, const struct replay_desc *t, int k,
		     struct perf_samples *out)
{
	int done = out->warmup + (int)out->n;

	return take(host, t, done, k, done + k, out);
}
