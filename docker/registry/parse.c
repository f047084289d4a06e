/* The registry client's parsers: auth challenges, pagination links, the
 * config's RFC 3339 time, loopback hosts. No I/O. */
#include "docker/registry/registry.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/strbuf.h"
#include "common/xalloc.h"

void registry_challenge_release(struct registry_challenge *ch)
{
	free(ch->realm);
	free(ch->service);
	free(ch->scope);
	memset(ch, 0, sizeof(*ch));
}

/* One auth-param value: a quoted string (with \-escapes) or a token. */
static const char *param_value(const char *p, char **out)
{
	struct strbuf v = STRBUF_INIT;

	if (*p == '"') {
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			strbuf_addch(&v, *p);
		}
		if (*p == '"')
			p++;
	} else {
		while (*p && *p != ',' && !isspace((unsigned char)*p))
			strbuf_addch(&v, *p++);
	}
	*out = strbuf_detach(&v, NULL);
	return p;
}

int registry_challenge_parse(const char *value, struct registry_challenge *out)
{
	const char *p = value;

	memset(out, 0, sizeof(*out));
	while (isspace((unsigned char)*p))
		p++;
	if (!strncasecmp(p, "Bearer", 6) && (!p[6] || isspace((unsigned char)p[6])))
		out->bearer = true;
	else if (strncasecmp(p, "Basic", 5) || (p[5] && !isspace((unsigned char)p[5])))
		return -1;
	p += out->bearer ? 6 : 5;
	while (*p) {
		size_t klen;
		const char *key;
		char *val;

		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		key = p;
		while (*p && *p != '=' && *p != ',' && !isspace((unsigned char)*p))
			p++;
		klen = (size_t)(p - key);
		if (*p != '=') {
			if (!klen)
				break;
			continue;
		}
		p = param_value(p + 1, &val);
		if (klen == 5 && !strncasecmp(key, "realm", 5) && !out->realm)
			out->realm = val;
		else if (klen == 7 && !strncasecmp(key, "service", 7) && !out->service)
			out->service = val;
		else if (klen == 5 && !strncasecmp(key, "scope", 5) && !out->scope)
			out->scope = val;
		else
			free(val);
	}
	if (out->bearer && !out->realm) {
		registry_challenge_release(out);
		return -1;
	}
	return 0;
}

char *registry_link_next(const char *value)
{
	const char *p = value;

	/* Link: <url>; rel="next", <url>; rel="prev" */
	while (p && *p) {
		const char *lt = strchr(p, '<'), *gt = lt ? strchr(lt, '>') : NULL;
		const char *end;

		if (!gt)
			return NULL;
		end = strchr(gt, ',');
		if (!end)
			end = gt + strlen(gt);
		for (const char *q = gt; q + 3 <= end; q++)
			if (!strncasecmp(q, "rel=", 4)) {
				const char *r = q + 4 + (q[4] == '"');

				if (!strncasecmp(r, "next", 4) && (r[4] == '"' || r[4] == ';' ||
								   r[4] == ',' || !r[4] ||
								   isspace((unsigned char)r[4])))
					return xstrndup(lt + 1, (size_t)(gt - lt - 1));
			}
		p = *end ? end + 1 : end;
	}
	return NULL;
}

long long registry_time_parse(const char *s)
{
	struct tm tm = { 0 };
	const char *p;
	long long t;
	int off = 0;

	if (!s)
		return -1;
	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return -1;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if ((*p == '+' || *p == '-') && isdigit((unsigned char)p[1]) &&
		   isdigit((unsigned char)p[2]) && p[3] == ':' && isdigit((unsigned char)p[4]) &&
		   isdigit((unsigned char)p[5])) {
		off = ((p[1] - '0') * 10 + (p[2] - '0')) * 3600 + ((p[4] - '0') * 10 + (p[5] - '0')) * 60;
		if (*p == '-')
			off = -off;
		p += 6;
	} else {
		return -1;
	}
	if (*p)
		return -1;
	t = (long long)timegm(&tm);
	return t - off;
}

bool registry_host_is_loopback(const char *host)
{
	size_t len = strcspn(host, ":");

	if (host[0] == '[')
		return !strncmp(host, "[::1]", 5);
	if (len == 9 && !strncmp(host, "localhost", 9))
		return true;
	return !strncmp(host, "127.", 4);
}

const char *registry_api_host(const char *registry)
{
	return !strcmp(registry, "docker.io") ? "registry-1.docker.io" : registry;
}
