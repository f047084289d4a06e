/* Podman's error answers as dockerd's statuses: pure, so the transfer's
 * error path (xfer_error.c) can use it without reaching the rest of the
 * Podman code. */
#include "docker/internal.h"

#include <string.h>

#include "common/cleanup.h"
#include "common/json.h"

long podman_error_status(long status, const char *body, size_t len, struct strbuf *msg)
{
	cleanup_cjson cJSON *j = NULL;
	const char *cause;

	if (status != 500 || !len)
		return status;
	j = cJSON_ParseWithLength(body, len);
	cause = json_str(j, "cause");
	if (!cause || strcmp(cause, "container state improper"))
		return status;
	if (strstr(msg->buf, "can only kill running containers")) {
		cleanup_free char *was = strbuf_detach(msg, NULL);

		strbuf_addf(msg, "the container is not running (%s)", was);
	}
	return 409;
}
