/* What a replay knows of the user's interrupts: read from a file
 * descriptor (the signal self-pipe of common/signals.c: one byte per
 * signal, the byte is the signal number), so the replay holds no global
 * state and a caller without signal handlers passes -1. */
#ifndef HRR_REPLAY_INTERRUPT_H
#define HRR_REPLAY_INTERRUPT_H

struct interrupt_watch {
	int fd;     /* -1: never interrupted */
	int first;  /* the first signal read, 0 none */
	int count;  /* how many were read */
};

void interrupt_watch_init(struct interrupt_watch *w, int fd);
/* Read what the descriptor holds without blocking; returns w->first. */
int interrupt_watch_poll(struct interrupt_watch *w);

#endif
