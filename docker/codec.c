/* Pure encoders: URL path/query pieces and base64 (standard and URL-safe). */
#include "docker/internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static const char hexdigits[] = "0123456789ABCDEF";

static bool url_unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

static void url_escape(struct strbuf *sb, const char *s, const char *keep)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (url_unreserved(*p) || strchr(keep, *p)) {
			strbuf_addch(sb, *p);
		} else {
			strbuf_addch(sb, '%');
			strbuf_addch(sb, hexdigits[*p >> 4]);
			strbuf_addch(sb, hexdigits[*p & 15]);
		}
	}
}

void engine_url_add_path(struct strbuf *sb, const char *segment)
{
	url_escape(sb, segment, "/:@");
}

void engine_url_add_query(struct strbuf *sb, const char *key, const char *value)
{
	strbuf_addch(sb, memchr(sb->buf, '?', sb->len) ? '&' : '?');
	url_escape(sb, key, "");
	strbuf_addch(sb, '=');
	url_escape(sb, value, "");
}

void engine_url_add_filter(struct strbuf *sb, const char *key, const char *value)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(f, key);
	char *txt;

	cJSON_AddItemToArray(a, cJSON_CreateString(value));
	txt = cJSON_PrintUnformatted(f);
	if (!txt)
		xdie("out of memory (cJSON_PrintUnformatted)");
	engine_url_add_query(sb, "filters", txt);
	free(txt);
	cJSON_Delete(f);
}

static char *base64_encode_with(const void *data, size_t len, const char *alphabet)
{
	const unsigned char *in = data;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_grow(&sb, (len + 2) / 3 * 4);
	for (i = 0; i + 2 < len; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];

		strbuf_addch(&sb, alphabet[v >> 18 & 63]);
		strbuf_addch(&sb, alphabet[v >> 12 & 63]);
		strbuf_addch(&sb, alphabet[v >> 6 & 63]);
		strbuf_addch(&sb, alphabet[v & 63]);
	}
	if (len - i == 1) {
		unsigned v = (unsigned)in[i] << 16;

		strbuf_addch(&sb, alphabet[v >> 18 & 63]);
		strbuf_addch(&sb, alphabet[v >> 12 & 63]);
		strbuf_addstr(&sb, "==");
	} else if (len - i == 2) {
		unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8;

		strbuf_addch(&sb, alphabet[v >> 18 & 63]);
		strbuf_addch(&sb, alphabet[v >> 12 & 63]);
		strbuf_addch(&sb, alphabet[v >> 6 & 63]);
		strbuf_addch(&sb, '=');
	}
	return strbuf_detach(&sb, NULL);
}

char *engine_base64_encode(const void *data, size_t len)
{
	return base64_encode_with(data, len,
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
}

char *engine_base64url_encode(const void *data, size_t len)
{
	return base64_encode_with(data, len,
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");
}

static int base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

int engine_base64_decode(const char *s, size_t len, struct strbuf *out,
			 struct error *err)
{
	unsigned acc = 0;
	int bits = 0;
	size_t i, pad = 0;

	while (len && s[len - 1] == '=' && pad < 2) {
		len--;
		pad++;
	}
	if (len % 4 == 1 || (pad && (len + pad) % 4))
		return error_set(err, ERR_DATA, 0, "invalid base64: bad length");
	for (i = 0; i < len; i++) {
		int v = base64_value((unsigned char)s[i]);

		if (v < 0)
			return error_set(err, ERR_DATA, 0,
					 "invalid base64: unexpected character at offset %zu", i);
		acc = (acc << 6 | (unsigned)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (int)(acc >> bits & 0xff));
		}
	}
	return 0;
}
