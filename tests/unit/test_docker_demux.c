#include <criterion/criterion.h>
#include <string.h>

#include "common/strbuf.h"
#include "docker/engine.h"

/* What the demuxer delivered, with consecutive pieces of one stream merged
 * so that any split of the input must give the same record. */
struct record {
	struct strbuf out;
	int last;
	size_t calls;
	size_t bytes;
	int stop_after; /* return non-zero on this call (1-based), 0 = never */
};

static int record_cb(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	struct record *r = ud;

	r->calls++;
	r->bytes += len;
	if ((int)stream != r->last)
		strbuf_addf(&r->out, "<%d>", (int)stream);
	r->last = (int)stream;
	strbuf_add(&r->out, data, len);
	return r->stop_after && (int)r->calls >= r->stop_after;
}

static void record_init(struct record *r)
{
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->out, 0);
	r->last = -1;
}

static void add_frame(struct strbuf *sb, int stream, const char *payload, size_t len)
{
	unsigned char h[8] = { (unsigned char)stream, 0, 0, 0, (unsigned char)(len >> 24),
			       (unsigned char)(len >> 16), (unsigned char)(len >> 8),
			       (unsigned char)len };

	strbuf_add(sb, h, sizeof(h));
	strbuf_add(sb, payload, len);
}

static void sample_input(struct strbuf *in, struct strbuf *want)
{
	static const char bin[] = { 0, 1, 2, '\n', (char)0xff, 0 };

	add_frame(in, 1, "hello ", 6);
	add_frame(in, 2, "oops\n", 5);
	add_frame(in, 1, "", 0);
	add_frame(in, 1, "world\n", 6);
	add_frame(in, 2, bin, sizeof(bin));
	add_frame(in, 0, "in", 2);
	add_frame(in, 1, "x", 1);
	strbuf_addstr(want, "<1>hello <2>oops\n<1>world\n<2>");
	strbuf_add(want, bin, sizeof(bin));
	strbuf_addstr(want, "<0>in<1>x");
}

/* Feed in at the given cut points (sorted), then finish. */
static void feed_cuts(const struct strbuf *in, const size_t *cuts, size_t n_cuts,
		      struct record *r)
{
	struct engine_demux d;
	struct error err;
	size_t from = 0;

	engine_demux_init(&d, false, record_cb, r);
	for (size_t i = 0; i <= n_cuts; i++) {
		size_t to = i < n_cuts ? cuts[i] : in->len;

		cr_assert_eq(engine_demux_feed(&d, in->buf + from, to - from, &err), 0,
			     "feed failed: %s", err.msg);
		from = to;
	}
	cr_assert_eq(engine_demux_finish(&d, &err), 0, "finish: %s", err.msg);
}

Test(docker_demux, every_single_split_gives_the_same_output)
{
	struct strbuf in = STRBUF_INIT, want = STRBUF_INIT;

	sample_input(&in, &want);
	for (size_t i = 0; i <= in.len; i++) {
		struct record r;

		record_init(&r);
		feed_cuts(&in, &i, 1, &r);
		cr_assert_eq(r.out.len, want.len, "split at %zu", i);
		cr_assert(!memcmp(r.out.buf, want.buf, want.len), "split at %zu", i);
		strbuf_release(&r.out);
	}
	strbuf_release(&in);
	strbuf_release(&want);
}

Test(docker_demux, every_pair_of_splits_gives_the_same_output)
{
	struct strbuf in = STRBUF_INIT, want = STRBUF_INIT;

	sample_input(&in, &want);
	for (size_t i = 0; i <= in.len; i++) {
		for (size_t j = i; j <= in.len; j++) {
			size_t cuts[2] = { i, j };
			struct record r;

			record_init(&r);
			feed_cuts(&in, cuts, 2, &r);
			cr_assert_eq(r.out.len, want.len, "splits at %zu,%zu", i, j);
			cr_assert(!memcmp(r.out.buf, want.buf, want.len), "splits at %zu,%zu", i, j);
			strbuf_release(&r.out);
		}
	}
	strbuf_release(&in);
	strbuf_release(&want);
}

Test(docker_demux, byte_by_byte_passes_payload_through_as_it_arrives)
{
	struct strbuf in = STRBUF_INIT, want = STRBUF_INIT;
	struct engine_demux d;
	struct record r;
	struct error err;

	sample_input(&in, &want);
	record_init(&r);
	engine_demux_init(&d, false, record_cb, &r);
	for (size_t i = 0; i < in.len; i++)
		cr_assert_eq(engine_demux_feed(&d, in.buf + i, 1, &err), 0);
	cr_assert_eq(engine_demux_finish(&d, &err), 0);
	/* One call per payload byte: nothing was held back to make frames. */
	cr_assert_eq(r.calls, r.bytes);
	cr_assert_eq(r.bytes, 6 + 5 + 6 + 6 + 2 + 1);
	cr_assert_eq(r.out.len, want.len);
	cr_assert(!memcmp(r.out.buf, want.buf, want.len));
	strbuf_release(&r.out);
	strbuf_release(&in);
	strbuf_release(&want);
}

Test(docker_demux, four_gib_frame_header_streams_without_buffering_and_reports_truncation)
{
	unsigned char h[8] = { 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	char chunk[1000];
	struct engine_demux d;
	struct record r;
	struct error err;

	memset(chunk, 'z', sizeof(chunk));
	record_init(&r);
	engine_demux_init(&d, false, record_cb, &r);
	cr_assert_eq(engine_demux_feed(&d, (const char *)h, sizeof(h), &err), 0);
	cr_assert_eq(d.remaining, 0xffffffffull);
	cr_assert_eq(engine_demux_feed(&d, chunk, sizeof(chunk), &err), 0);
	/* The partial payload was delivered at once, not kept for the frame. */
	cr_assert_eq(r.bytes, sizeof(chunk));
	cr_assert_eq(r.last, ENGINE_STDERR);
	cr_assert_eq(d.remaining, 0xffffffffull - sizeof(chunk));
	cr_assert_lt(sizeof(d), 128u, "the demuxer's state is a few fixed fields");
	cr_assert_eq(engine_demux_finish(&d, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	cr_assert(strstr(err.msg, "inside a frame"), "%s", err.msg);
	cr_assert(strstr(err.msg, "4294966295"), "%s", err.msg);
	strbuf_release(&r.out);
}

Test(docker_demux, stream_ending_inside_a_header_is_reported)
{
	struct engine_demux d;
	struct record r;
	struct error err;

	record_init(&r);
	engine_demux_init(&d, false, record_cb, &r);
	cr_assert_eq(engine_demux_feed(&d, "\1\0\0", 3, &err), 0);
	cr_assert_eq(engine_demux_finish(&d, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	cr_assert(strstr(err.msg, "frame header (3 of 8 bytes)"), "%s", err.msg);
}

Test(docker_demux, bad_stream_byte_is_a_protocol_error)
{
	static const unsigned char bad[][8] = { { 3, 0, 0, 0, 0, 0, 0, 1 },
						{ 0xff, 0, 0, 0, 0, 0, 0, 1 },
						{ 'H', 'T', 'T', 'P', '/', '1', '.', '1' } };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct engine_demux d;
		struct record r;
		struct error err;

		record_init(&r);
		engine_demux_init(&d, false, record_cb, &r);
		cr_assert_eq(engine_demux_feed(&d, (const char *)bad[i], 8, &err), -1);
		cr_assert_eq(err.kind, ERR_PROTOCOL);
		cr_assert(strstr(err.msg, "stream byte"), "%s", err.msg);
		cr_assert_eq(r.calls, 0);
	}
}

Test(docker_demux, callback_non_zero_cancels)
{
	struct strbuf in = STRBUF_INIT, want = STRBUF_INIT;
	struct engine_demux d;
	struct record r;
	struct error err;

	sample_input(&in, &want);
	record_init(&r);
	r.stop_after = 2;
	engine_demux_init(&d, false, record_cb, &r);
	cr_assert_eq(engine_demux_feed(&d, in.buf, in.len, &err), -1);
	cr_assert_eq(err.kind, ERR_CANCELLED);
	cr_assert_eq(r.calls, 2);
	strbuf_release(&r.out);
	strbuf_release(&in);
	strbuf_release(&want);
}

Test(docker_demux, raw_mode_passes_bytes_unframed)
{
	struct engine_demux d;
	struct record r;
	struct error err;

	record_init(&r);
	engine_demux_init(&d, true, record_cb, &r);
	cr_assert_eq(engine_demux_feed(&d, "\3abc", 4, &err), 0);
	cr_assert_eq(engine_demux_feed(&d, "def", 3, &err), 0);
	cr_assert_eq(engine_demux_finish(&d, &err), 0);
	cr_assert_str_eq(r.out.buf, "<1>\3abcdef");
	strbuf_release(&r.out);
}
