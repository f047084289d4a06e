/* The pure pieces under docker/: NDJSON splitting, the tar reader, URL
 * encoding and API version comparison. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/strvec.h"
#include "docker/internal.h"

/* ---- NDJSON lines ---- */

struct collected {
	struct strvec lines;
	int fail_on; /* 1-based line number to fail on, 0 = never */
};

static int collect_line(const char *line, size_t len, void *ud, struct error *err)
{
	struct collected *c = ud;

	strvec_push_nodup(&c->lines, strndup(line, len));
	if (c->fail_on && (int)c->lines.n == c->fail_on)
		return error_set(err, ERR_HTTP, 200, "line %d refused", c->fail_on);
	return 0;
}

Test(docker_lines, every_split_gives_the_same_lines)
{
	static const char in[] = "{\"a\":1}\r\n\n{\"b\":\"x y\"}\n  \n{\"c\":3}";
	size_t len = sizeof(in) - 1;

	for (size_t i = 0; i <= len; i++) {
		struct collected c = { STRVEC_INIT, 0 };
		struct engine_lines l;
		struct error err;

		engine_lines_init(&l, 64, collect_line, &c);
		cr_assert_eq(engine_lines_feed(&l, in, i, &err), 0);
		cr_assert_eq(engine_lines_feed(&l, in + i, len - i, &err), 0);
		cr_assert_eq(engine_lines_finish(&l, &err), 0);
		cr_assert_eq(c.lines.n, 3, "split %zu: %zu lines", i, c.lines.n);
		cr_assert_str_eq(c.lines.v[0], "{\"a\":1}");
		cr_assert_str_eq(c.lines.v[1], "{\"b\":\"x y\"}");
		cr_assert_str_eq(c.lines.v[2], "{\"c\":3}");
		engine_lines_release(&l);
		strvec_clear(&c.lines);
	}
}

Test(docker_lines, a_line_longer_than_the_bound_is_refused_without_growing)
{
	struct collected c = { STRVEC_INIT, 0 };
	struct engine_lines l;
	struct error err;
	char chunk[100];

	memset(chunk, 'x', sizeof(chunk));
	engine_lines_init(&l, 250, collect_line, &c);
	cr_assert_eq(engine_lines_feed(&l, chunk, sizeof(chunk), &err), 0);
	cr_assert_eq(engine_lines_feed(&l, chunk, sizeof(chunk), &err), 0);
	cr_assert_eq(engine_lines_feed(&l, chunk, sizeof(chunk), &err), -1);
	cr_assert_eq(err.kind, ERR_LIMIT);
	cr_assert_leq(l.partial.len, 250u);
	engine_lines_release(&l);

	/* Exactly the bound is fine, also when it arrives in one piece. */
	engine_lines_init(&l, 100, collect_line, &c);
	cr_assert_eq(engine_lines_feed(&l, chunk, sizeof(chunk), &err), 0);
	cr_assert_eq(engine_lines_feed(&l, "\n", 1, &err), 0);
	cr_assert_eq(c.lines.n, 1);
	cr_assert_eq(engine_lines_feed(&l, "yy\n", 3, &err), 0);
	engine_lines_release(&l);
	strvec_clear(&c.lines);
}

Test(docker_lines, callback_error_is_passed_back)
{
	struct collected c = { STRVEC_INIT, 2 };
	struct engine_lines l;
	struct error err;

	engine_lines_init(&l, 64, collect_line, &c);
	cr_assert_lt(engine_lines_feed(&l, "1\n2\n3\n", 6, &err), 0);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert_eq(c.lines.n, 2);
	engine_lines_release(&l);
	strvec_clear(&c.lines);
}

/* ---- tar ---- */

static void tar_header(struct strbuf *sb, const char *name, char type, size_t size,
		       const char *link)
{
	unsigned char h[512] = { 0 };
	unsigned sum = 0;

	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011zo", size);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (unsigned char)type;
	if (link)
		snprintf((char *)h + 157, 100, "%s", link);
	memcpy(h + 257, "ustar\0" "00", 8);
	memset(h + 148, ' ', 8);
	for (size_t i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	strbuf_add(sb, h, sizeof(h));
}

static void tar_content(struct strbuf *sb, const char *data, size_t len)
{
	static const char zeros[512];

	strbuf_add(sb, data, len);
	strbuf_add(sb, zeros, (512 - len % 512) % 512);
}

static void tar_end(struct strbuf *sb)
{
	static const char zeros[1024];

	strbuf_add(sb, zeros, sizeof(zeros));
}

static int tar_read(const struct strbuf *tar, size_t max, size_t split, struct strbuf *out,
		    struct error *err)
{
	struct engine_tar t;
	int r;

	engine_tar_init(&t, out, max, "/etc/f");
	r = engine_tar_feed(&t, tar->buf, split, err);
	if (r == 0)
		r = engine_tar_feed(&t, tar->buf + split, tar->len - split, err);
	if (r >= 0)
		r = engine_tar_finish(&t, err);
	engine_tar_release(&t);
	return r;
}

Test(docker_tar, reads_the_file_at_every_split)
{
	struct strbuf tar = STRBUF_INIT;
	char body[700];

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (char)('a' + i % 26);
	tar_header(&tar, "f", '0', sizeof(body), NULL);
	tar_content(&tar, body, sizeof(body));
	tar_end(&tar);
	for (size_t split = 0; split <= tar.len; split += 7) {
		struct strbuf out = STRBUF_INIT;
		struct error err;

		cr_assert_eq(tar_read(&tar, 4096, split, &out, &err), 0, "split %zu: %s", split,
			     err.msg);
		cr_assert_eq(out.len, sizeof(body));
		cr_assert(!memcmp(out.buf, body, sizeof(body)));
		strbuf_release(&out);
	}
	strbuf_release(&tar);
}

Test(docker_tar, pax_header_size_and_empty_file)
{
	struct strbuf tar = STRBUF_INIT, out = STRBUF_INIT;
	const char pax[] = "10 size=5\n20 path=long/name/x\n";
	struct error err;

	tar_header(&tar, "PaxHeaders/f", 'x', sizeof(pax) - 1, NULL);
	tar_content(&tar, pax, sizeof(pax) - 1);
	tar_header(&tar, "f", '0', 0, NULL); /* PAX size overrides this */
	tar_content(&tar, "hello", 5);
	tar_end(&tar);
	cr_assert_eq(tar_read(&tar, 100, 0, &out, &err), 0, "%s", err.msg);
	cr_assert_str_eq(out.buf, "hello");
	strbuf_release(&out);
	strbuf_release(&tar);

	tar_header(&tar, "empty", '0', 0, NULL);
	tar_end(&tar);
	cr_assert_eq(tar_read(&tar, 100, 0, &out, &err), 0, "%s", err.msg);
	cr_assert_eq(out.len, 0);
	strbuf_release(&tar);
}

Test(docker_tar, refuses_big_files_links_directories_and_corruption)
{
	struct strbuf tar = STRBUF_INIT, out = STRBUF_INIT;
	struct error err;

	tar_header(&tar, "f", '0', 5000, NULL);
	cr_assert_eq(tar_read(&tar, 4096, 0, &out, &err), -1);
	cr_assert_eq(err.kind, ERR_LIMIT);
	cr_assert(strstr(err.msg, "5000"), "%s", err.msg);
	cr_assert_eq(out.len, 0, "nothing read past the limit");
	strbuf_reset(&tar);

	tar_header(&tar, "l", '2', 0, "../lib/real.so");
	cr_assert_eq(tar_read(&tar, 4096, 0, &out, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, "../lib/real.so"), "%s", err.msg);
	strbuf_reset(&tar);

	tar_header(&tar, "d", '5', 0, NULL);
	cr_assert_eq(tar_read(&tar, 4096, 0, &out, &err), -1);
	cr_assert(strstr(err.msg, "directory"), "%s", err.msg);
	strbuf_reset(&tar);

	tar_header(&tar, "f", '0', 3, NULL);
	tar.buf[0] ^= 1; /* checksum no longer matches */
	cr_assert_eq(tar_read(&tar, 4096, 0, &out, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	strbuf_reset(&tar);

	tar_header(&tar, "f", '0', 600, NULL);
	tar_content(&tar, "only a bit", 10);
	strbuf_setlen(&tar, 512 + 10);
	cr_assert_eq(tar_read(&tar, 4096, 0, &out, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	cr_assert(strstr(err.msg, "truncated"), "%s", err.msg);
	strbuf_reset(&out);
	strbuf_reset(&tar);

	cr_assert_eq(tar_read(&tar, 4096, 0, &out, &err), -1);
	cr_assert(strstr(err.msg, "empty"), "%s", err.msg);
	tar_end(&tar);
	cr_assert_eq(tar_read(&tar, 4096, 0, &out, &err), -1);
	cr_assert(strstr(err.msg, "no file"), "%s", err.msg);
	strbuf_release(&tar);
	strbuf_release(&out);
}

/* ---- URLs and versions ---- */

Test(docker_url, query_values_and_paths_are_percent_encoded)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "/containers/json");
	engine_url_add_query(&sb, "all", "1");
	engine_url_add_query(&sb, "filters", "{\"label\":[\"a=b c&d\"]}");
	cr_assert_str_eq(sb.buf, "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22a%3Db%20c%26d%22%5D%7D");
	strbuf_reset(&sb);
	engine_url_add_path(&sb, "127.0.0.1:5000/x/y@sha256:ab");
	cr_assert_str_eq(sb.buf, "127.0.0.1:5000/x/y@sha256:ab");
	strbuf_reset(&sb);
	engine_url_add_path(&sb, "a?b#c d");
	cr_assert_str_eq(sb.buf, "a%3Fb%23c%20d");
	strbuf_release(&sb);
}

Test(docker_version, compares_numerically)
{
	int ma, mi;

	cr_assert_lt(engine_version_cmp("1.9", "1.41"), 0);
	cr_assert_gt(engine_version_cmp("1.45", "1.44"), 0);
	cr_assert_eq(engine_version_cmp("1.41", "1.41"), 0);
	cr_assert_gt(engine_version_cmp("2.0", "1.99"), 0);
	cr_assert_eq(engine_version_parse("1.44", &ma, &mi), 0);
	cr_assert_eq(ma, 1);
	cr_assert_eq(mi, 44);
	cr_assert_eq(engine_version_parse("v1.44", &ma, &mi), -1);
	cr_assert_eq(engine_version_parse("1.", &ma, &mi), -1);
	cr_assert_eq(engine_version_parse("1.4x", &ma, &mi), -1);
	cr_assert_eq(engine_version_parse("", &ma, &mi), -1);
}
