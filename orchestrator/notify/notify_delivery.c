/* How a delivery is made, apart from making it: the retry schedule, and a
 * target's URL as a message shows it and as it is sent to. */
#include "orchestrator/notify/notify.h"

#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "common/xalloc.h"

unsigned notify_backoff_s(int attempt)
{
	return attempt < 1 ? 0 : 1u << (attempt - 1 > 4 ? 4 : attempt - 1);
}

bool notify_should_retry(long http_status)
{
	return http_status == 0 || http_status == 408 || http_status == 429 ||
	       (http_status >= 500 && http_status < 600);
}

char *notify_url_shown(const char *url)
{
	CURLU *u;
	char *scheme = NULL, *host = NULL, *port = NULL, *out;

	if (!strncmp(url, "env:", 4))
		return xstrdup(url);
	u = curl_url();
	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		curl_url_cleanup(u);
		curl_free(scheme);
		return xstrdup("<an unreadable URL>");
	}
	if (curl_url_get(u, CURLUPART_PORT, &port, 0) != CURLUE_OK)
		port = NULL;
	out = xasprintf("%s://%s%s%s/…", scheme, host, port ? ":" : "", port ? port : "");
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return out;
}

int notify_url_resolve(const char *written, char **url, struct error *err)
{
	const char *v;

	if (strncmp(written, "env:", 4)) {
		*url = xstrdup(written);
		return 0;
	}
	v = getenv(written + 4);
	if (!v || !*v)
		return error_set(err, ERR_USAGE, 0, "%s: the variable is not set", written);
	*url = xstrdup(v);
	return 0;
}
