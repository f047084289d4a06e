/* The tar reader (pure): the content of the one regular file at the head
 * of a tar stream, as GET /containers/{id}/archive sends it. It keeps only
 * one header block plus small PAX metadata in memory, and any chunking of
 * the input gives the same result. */
#include "docker/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

#define TAR_BLOCK 512
#define TAR_META_MAX (1u << 20)

void engine_tar_init(struct engine_tar *t, struct strbuf *out, size_t max_bytes,
		     const char *what)
{
	memset(t, 0, sizeof(*t));
	strbuf_init(&t->meta, 0);
	t->out = out;
	t->max_bytes = max_bytes;
	t->what = what;
	t->state = TAR_HEADER;
}

void engine_tar_release(struct engine_tar *t)
{
	strbuf_release(&t->meta);
}

/* Octal (space/NUL padded) or, with the high bit set, GNU base-256. */
static int tar_number(const unsigned char *f, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		if (f[0] & 0x40)
			return -1; /* negative */
		v = f[0] & 0x3f;
		for (i = 1; i < n; i++) {
			if (v >> 56)
				return -1;
			v = v << 8 | f[i];
		}
		*out = v;
		return 0;
	}
	while (i < n && (f[i] == ' ' || f[i] == '\0'))
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = v << 3 | (uint64_t)(f[i] - '0');
	}
	for (; i < n; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	*out = v;
	return 0;
}

static bool tar_checksum_ok(const unsigned char *h)
{
	uint64_t want;
	unsigned long usum = 0;
	long ssum = 0;

	if (tar_number(h + 148, 8, &want) < 0)
		return false;
	for (size_t i = 0; i < TAR_BLOCK; i++) {
		unsigned char c = (i >= 148 && i < 156) ? ' ' : h[i];

		usum += c;
		ssum += (signed char)c;
	}
	return want == usum || (long long)want == ssum;
}

static bool tar_block_zero(const unsigned char *h)
{
	for (size_t i = 0; i < TAR_BLOCK; i++)
		if (h[i])
			return false;
	return true;
}

/* PAX records "LEN key=value\n": only size matters here. */
static int tar_parse_pax(struct engine_tar *t, struct error *err)
{
	const char *p = t->meta.buf, *end = t->meta.buf + t->meta.len;

	while (p < end) {
		size_t len = 0;
		const char *q = p, *rec_end, *eq;

		while (q < end && *q >= '0' && *q <= '9' && len < TAR_META_MAX)
			len = len * 10 + (size_t)(*q++ - '0');
		if (q >= end || *q != ' ' || len <= (size_t)(q - p) || len > (size_t)(end - p))
			return error_set(err, ERR_PROTOCOL, 0,
					 "malformed PAX header in the archive of %s", t->what);
		rec_end = p + len;
		if (rec_end[-1] != '\n')
			return error_set(err, ERR_PROTOCOL, 0,
					 "malformed PAX record in the archive of %s", t->what);
		q++;
		eq = memchr(q, '=', (size_t)(rec_end - q));
		if (eq && eq - q == 4 && !memcmp(q, "size", 4)) {
			char num[32];
			size_t n = (size_t)(rec_end - 1 - (eq + 1));
			char *nend;

			if (!n || n >= sizeof(num))
				return error_set(err, ERR_PROTOCOL, 0,
						 "bad PAX size in the archive of %s", t->what);
			memcpy(num, eq + 1, n);
			num[n] = '\0';
			t->pax_size = strtoull(num, &nend, 10);
			if (*nend)
				return error_set(err, ERR_PROTOCOL, 0,
						 "bad PAX size in the archive of %s", t->what);
			t->have_pax_size = true;
		}
		p = rec_end;
	}
	return 0;
}

static int tar_header(struct engine_tar *t, struct error *err)
{
	const unsigned char *h = t->hdr;
	char type = (char)h[156];
	uint64_t size;

	t->hdr_len = 0;
	if (tar_block_zero(h))
		return error_set(err, ERR_PROTOCOL, 0, "the archive of %s holds no file", t->what);
	if (!tar_checksum_ok(h))
		return error_set(err, ERR_PROTOCOL, 0,
				 "the archive of %s is corrupt (bad header checksum)", t->what);
	if (tar_number(h + 124, 12, &size) < 0)
		return error_set(err, ERR_PROTOCOL, 0,
				 "the archive of %s is corrupt (bad size field)", t->what);
	if (t->have_pax_size && type != 'x' && type != 'g') {
		size = t->pax_size;
		t->have_pax_size = false;
	}
	switch (type) {
	case 'x':
	case 'g':
	case 'L':
	case 'K':
		if (size > TAR_META_MAX)
			return error_set(err, ERR_LIMIT, 0,
					 "the archive of %s has %llu bytes of metadata (limit %u)",
					 t->what, (unsigned long long)size, TAR_META_MAX);
		t->state = TAR_META;
		t->meta_type = type;
		strbuf_reset(&t->meta);
		break;
	case '0':
	case '\0':
	case '7':
		if (size > t->max_bytes)
			return error_set(err, ERR_LIMIT, 0,
					 "%s is %llu bytes, more than the %zu this reads",
					 t->what, (unsigned long long)size, t->max_bytes);
		t->state = size ? TAR_DATA : TAR_DONE;
		break;
	case '5':
		return error_set(err, ERR_DATA, 0, "%s is a directory, not a file", t->what);
	case '2':
		return error_set(err, ERR_DATA, 0, "%s is a symbolic link (to %.100s), not a file",
				 t->what, (const char *)h + 157);
	default:
		return error_set(err, ERR_DATA, 0, "%s is not a regular file (tar type '%c')",
				 t->what, type >= 0x20 && type < 0x7f ? type : '?');
	}
	t->remaining = size;
	t->pad = (TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK;
	return 0;
}

int engine_tar_feed(struct engine_tar *t, const char *data, size_t len,
		    struct error *err)
{
	while (len && t->state != TAR_DONE) {
		size_t n;

		switch (t->state) {
		case TAR_HEADER:
			n = TAR_BLOCK - t->hdr_len;
			if (n > len)
				n = len;
			memcpy(t->hdr + t->hdr_len, data, n);
			t->hdr_len += n;
			if (t->hdr_len == TAR_BLOCK && tar_header(t, err) < 0)
				return -1;
			break;
		case TAR_META:
			n = t->remaining < len ? (size_t)t->remaining : len;
			strbuf_add(&t->meta, data, n);
			t->remaining -= n;
			if (!t->remaining) {
				if (t->meta_type == 'x' && tar_parse_pax(t, err) < 0)
					return -1;
				t->state = t->pad ? TAR_PAD : TAR_HEADER;
			}
			break;
		case TAR_PAD:
			n = t->pad < len ? (size_t)t->pad : len;
			t->pad -= n;
			if (!t->pad)
				t->state = TAR_HEADER;
			break;
		case TAR_DATA:
			n = t->remaining < len ? (size_t)t->remaining : len;
			strbuf_add(t->out, data, n);
			t->remaining -= n;
			if (!t->remaining)
				t->state = TAR_DONE;
			break;
		default:
			n = len;
			break;
		}
		data += n;
		len -= n;
	}
	return t->state == TAR_DONE ? 1 : 0;
}

int engine_tar_finish(const struct engine_tar *t, struct error *err)
{
	if (t->state == TAR_DONE)
		return 0;
	if (t->state == TAR_HEADER && !t->hdr_len && !t->out->len && !t->meta.len)
		return error_set(err, ERR_PROTOCOL, 0, "the archive of %s is empty", t->what);
	return error_set(err, ERR_PROTOCOL, 0, "the archive of %s is truncated", t->what);
}

