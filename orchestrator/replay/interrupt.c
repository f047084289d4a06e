#include "orchestrator/replay/interrupt.h"

#include <unistd.h>

void interrupt_watch_init(struct interrupt_watch *w, int fd)
{
	w->fd = fd;
	w->first = 0;
	w->count = 0;
}

int interrupt_watch_poll(struct interrupt_watch *w)
{
	unsigned char buf[64];
	ssize_t n;

	/* The self-pipe is non-blocking: an empty pipe ends the loop. */
	while (w->fd >= 0 && (n = read(w->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (!w->first)
				w->first = buf[i];
			w->count++;
		}
	}
	return w->first;
}
