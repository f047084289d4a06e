/* The engine's stdout/stderr framing for Tty=false containers: an 8-byte
 * header {stream, 0, 0, 0, size as big-endian uint32} then size bytes.
 * Payload is passed on as it arrives, so memory stays constant whatever a
 * header announces, and any chunking of the input gives the same output. */
#include "docker/engine.h"

#include <string.h>

void engine_demux_init(struct engine_demux *d, bool raw, engine_frame_cb cb, void *ud)
{
	memset(d, 0, sizeof(*d));
	d->raw = raw;
	d->cb = cb;
	d->ud = ud;
	d->stream = ENGINE_STDOUT;
}

static int demux_cancelled(struct error *err)
{
	return error_set(err, ERR_CANCELLED, 0, "output stream stopped by its consumer");
}

int engine_demux_feed(struct engine_demux *d, const char *data, size_t len,
		      struct error *err)
{
	if (d->raw) {
		if (len && d->cb && d->cb(ENGINE_STDOUT, data, len, d->ud))
			return demux_cancelled(err);
		return 0;
	}
	while (len) {
		size_t n;

		if (d->header_len < sizeof(d->header)) {
			n = sizeof(d->header) - d->header_len;
			if (n > len)
				n = len;
			memcpy(d->header + d->header_len, data, n);
			d->header_len += n;
			data += n;
			len -= n;
			if (d->header_len < sizeof(d->header))
				return 0;
			if (d->header[0] > ENGINE_STDERR)
				return error_set(err, ERR_PROTOCOL, 0,
						 "malformed output stream: frame header with stream byte %u (want 0, 1 or 2)",
						 d->header[0]);
			d->stream = (enum engine_stream_id)d->header[0];
			d->remaining = (uint64_t)d->header[4] << 24 | (uint64_t)d->header[5] << 16 |
				       (uint64_t)d->header[6] << 8 | d->header[7];
			if (!d->remaining)
				d->header_len = 0;
			continue;
		}
		n = d->remaining < len ? (size_t)d->remaining : len;
		if (d->cb && d->cb(d->stream, data, n, d->ud))
			return demux_cancelled(err);
		data += n;
		len -= n;
		d->remaining -= n;
		if (!d->remaining)
			d->header_len = 0;
	}
	return 0;
}

int engine_demux_finish(const struct engine_demux *d, struct error *err)
{
	if (d->raw || !d->header_len)
		return 0;
	if (d->header_len < sizeof(d->header))
		return error_set(err, ERR_PROTOCOL, 0,
				 "output stream ended inside a frame header (%zu of 8 bytes)",
				 d->header_len);
	return error_set(err, ERR_PROTOCOL, 0,
			 "output stream ended inside a frame: %llu bytes of it never came",
			 (unsigned long long)d->remaining);
}
