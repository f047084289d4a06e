#include "orchestrator/site/site_text.h"

#include <string.h>

#include "orchestrator/finding/kernel_family.h"

static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], v[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = v[7] + (ROR(v[4], 6) ^ ROR(v[4], 11) ^ ROR(v[4], 25)) +
			      ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha_k[i] + w[i];
		uint32_t t2 = (ROR(v[0], 2) ^ ROR(v[0], 13) ^ ROR(v[0], 22)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

static void sha256(const char *data, size_t len, unsigned char out[32])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	unsigned char tail[128] = { 0 };
	size_t full = len / 64 * 64, rest = len - full, tail_len;
	unsigned long long bits = (unsigned long long)len * 8;

	for (size_t off = 0; off < full; off += 64)
		sha_block(h, (const unsigned char *)data + off);
	memcpy(tail, data + full, rest);
	tail[rest] = 0x80;
	tail_len = rest + 9 > 64 ? 128 : 64;
	for (int i = 0; i < 8; i++)
		tail[tail_len - 1 - i] = (unsigned char)(bits >> (8 * i));
	for (size_t off = 0; off < tail_len; off += 64)
		sha_block(h, tail + off);
	for (int i = 0; i < 8; i++)
		for (int b = 0; b < 4; b++)
			out[4 * i + b] = (unsigned char)(h[i] >> (24 - 8 * b));
}

void site_csp_hash(const char *data, size_t len, struct strbuf *out)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char d[33] = { 0 };

	sha256(data, len, d);
	strbuf_addstr(out, "sha256-");
	for (size_t i = 0; i < 32; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | d[i + 2];

		strbuf_addch(out, b64[v >> 18 & 63]);
		strbuf_addch(out, b64[v >> 12 & 63]);
		strbuf_addch(out, i + 1 < 32 ? b64[v >> 6 & 63] : '=');
		strbuf_addch(out, i + 2 < 32 ? b64[v & 63] : '=');
	}
}

uint64_t site_fnv(const char *const *parts, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		for (const char *p = parts[i] ? parts[i] : ""; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		h *= 1099511628211ull;
	}
	return h;
}

uint64_t site_content_hash(const char *data, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ len, w;
	size_t i = 0;

	/* Eight bytes a step: a night's pages are hundreds of megabytes. The
	 * shift folds the multiply's high bits back down, so every byte
	 * reaches every bit of the result. */
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, data + i, 8);
		h = (h ^ w) * 1099511628211ull;
		h ^= h >> 32;
	}
	for (; i < len; i++)
		h = (h ^ (unsigned char)data[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

void site_page_name(const char *prefix, const char *const *parts, size_t n, struct strbuf *out)
{
	strbuf_addf(out, "%s-%016llx.html", prefix, (unsigned long long)site_fnv(parts, n));
}

void site_relative_href(const char *from_dir, const char *target, struct strbuf *out)
{
	size_t common = 0, start = out->len;
	const char *rest;

	/* The longest shared prefix that ends at a segment boundary. */
	for (size_t i = 0; from_dir[i] && from_dir[i] == target[i]; i++)
		if (from_dir[i + 1] == '\0' ? target[i + 1] == '/' || !target[i + 1]
					    : from_dir[i + 1] == '/' && target[i + 1] == '/')
			common = i + 1;
	if (!strcmp(from_dir, "/"))
		common = 0;
	for (const char *p = from_dir + common; *p; p++)
		if (*p == '/' && p[1])
			strbuf_addstr(out, "../");
	rest = target + common;
	while (*rest == '/')
		rest++;
	if (out->len == start && strchr(rest, ':') &&
	    (!strchr(rest, '/') || strchr(rest, ':') < strchr(rest, '/')))
		strbuf_addstr(out, "./");
	strbuf_addstr(out, *rest ? rest : ".");
}

bool site_run_dir_ok(const char *run_dir)
{
	const char *seg = run_dir;

	if (!run_dir || !*run_dir || *run_dir == '/')
		return false;
	for (const char *p = run_dir;; p++) {
		if ((unsigned char)*p < 0x20 && *p)
			return false;
		if (*p == '/' || !*p) {
			size_t n = (size_t)(p - seg);

			if (n == 0 || (n == 2 && !strncmp(seg, "..", 2)))
				return false;
			if (!*p)
				return true;
			seg = p + 1;
		}
	}
}

void site_kernel_family(const char *kernel, struct strbuf *out)
{
	if (!kernel_family_append(kernel, out))
		strbuf_addstr(out, "-");
}

enum site_outcome site_outcome_parse(const char *state, const char *outcome)
{
	static const char *const names[] = { "PASS", "MAF", "FAIL", "ABORT", "HANG", "UNKNOWN" };

	if (!state)
		return SO_MISSING;
	for (size_t i = 0; outcome && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(outcome, names[i]))
			return (enum site_outcome)(SO_PASS + i);
	return strcmp(state, "done") ? SO_NONE : SO_UNKNOWN;
}

const char *site_outcome_name(enum site_outcome o)
{
	static const char *const names[SO__COUNT] = { "missing", "none", "PASS", "MAF",
						      "FAIL", "ABORT", "HANG", "UNKNOWN" };

	return (unsigned)o < SO__COUNT ? names[o] : "none";
}

const char *site_status_name(enum site_status s)
{
	static const char *const names[SS__COUNT] = { "missing", "none", "pass", "fixed",
						      "flaky", "regressed", "fail" };

	return (unsigned)s < SS__COUNT ? names[s] : "none";
}

void site_row_statuses(const enum site_outcome *o, const bool *flaky, size_t n,
		       enum site_status *status, bool *first)
{
	enum site_outcome prev = SO_MISSING;
	bool failed_before = false;

	for (size_t i = 0; i < n; i++) {
		bool fails = o[i] >= SO_MAF;

		first[i] = fails && !failed_before;
		if (o[i] == SO_MISSING || o[i] == SO_NONE)
			status[i] = o[i] == SO_MISSING ? SS_MISSING : SS_NONE;
		else if (o[i] == SO_PASS)
			status[i] = flaky && flaky[i] ? SS_FLAKY : prev >= SO_MAF ? SS_FIXED : SS_PASS;
		else
			status[i] = prev == SO_PASS ? SS_REGRESSED : SS_FAIL;
		failed_before |= fails;
		if (o[i] >= SO_PASS)
			prev = o[i];
	}
}
