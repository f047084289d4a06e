/* What --db names (history_db.h): a PostgreSQL server or a file, and how
 * a server's connection string may be shown: never with its password. */
#include "orchestrator/history/history_db.h"

#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

static bool is_uri(const char *t)
{
	return !strncmp(t, "postgresql://", 13) || !strncmp(t, "postgres://", 11);
}

bool history_db_is_server(const char *target)
{
	return target && (is_uri(target) || !strncmp(target, "pg:", 3));
}

/* A URI's query without its password= parameters. */
static void shown_query(struct strbuf *out, const char *q)
{
	bool first = true;

	while (*q) {
		size_t n = strcspn(q, "&");

		if (strncasecmp(q, "password=", 9)) {
			strbuf_addch(out, first ? '?' : '&');
			strbuf_add(out, q, n);
			first = false;
		}
		q += n + (q[n] == '&');
	}
}

/* scheme://[user[:password]@]host/db?params: the user part keeps the
 * user. */
static char *shown_uri(const char *t)
{
	struct strbuf out = STRBUF_INIT;
	const char *auth = strstr(t, "://") + 3;
	size_t alen = strcspn(auth, "/?#");
	const char *at = memrchr(auth, '@', alen);
	const char *rest = auth + alen, *q = strchr(rest, '?');

	strbuf_add(&out, t, (size_t)(auth - t));
	if (at) {
		const char *colon = memchr(auth, ':', (size_t)(at - auth));

		strbuf_add(&out, auth, (size_t)((colon ? colon : at) - auth));
		strbuf_addch(&out, '@');
		auth = at + 1;
	}
	strbuf_add(&out, auth, (size_t)(rest - auth));
	if (!q) {
		strbuf_addstr(&out, rest);
	} else {
		size_t qlen = strcspn(q + 1, "#");
		cleanup_free char *query = xstrndup(q + 1, qlen);

		strbuf_add(&out, rest, (size_t)(q - rest));
		shown_query(&out, query);
		strbuf_addstr(&out, q + 1 + qlen);
	}
	return strbuf_detach(&out, NULL);
}

/* A keyword string without its password = value (quoted or not). */
static char *shown_keywords(const char *t)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = t;

	while (*p) {
		const char *start = p, *k = p;
		size_t klen;

		while (*p == ' ' || *p == '\t')
			p++;
		k = p;
		klen = strcspn(k, " \t=");
		p = k + klen;
		while (*p == ' ' || *p == '\t' || *p == '=')
			p++;
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				p += *p == '\\' && p[1];
			p += *p == '\'';
		} else {
			while (*p && *p != ' ' && *p != '\t')
				p++;
		}
		if (!(klen == 8 && !strncmp(k, "password", 8)))
			strbuf_add(&out, start, (size_t)(p - start));
	}
	return strbuf_detach(&out, NULL);
}

char *history_db_shown(const char *target)
{
	if (is_uri(target))
		return shown_uri(target);
	if (!strncmp(target, "pg:", 3)) {
		cleanup_free char *kw = shown_keywords(target + 3);
		const char *s = kw;

		while (*s == ' ')
			s++;
		return xasprintf("pg:%s", s);
	}
	return xstrdup(target);
}
