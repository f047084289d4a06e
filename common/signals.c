#include "common/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t caught;
static volatile sig_atomic_t count;
static int pipe_fds[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;
	char b = (char)sig;

	if (!caught)
		caught = sig;
	count++;
	if (pipe_fds[1] >= 0 && write(pipe_fds[1], &b, 1) < 0) {
		/* Full pipe: a wake-up is already pending. */
	}
	errno = saved;
}

int signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	if (pipe_fds[0] < 0 && pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	return pipe_fds[0];
}

int signals_caught(void)
{
	return caught;
}

int signals_count(void)
{
	return count;
}

void signals_drain(void)
{
	char buf[64];

	while (pipe_fds[0] >= 0 && read(pipe_fds[0], buf, sizeof(buf)) > 0)
		;
}

const char *signal_name(int sig)
{
	static char other[16];

	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGKILL:
		return "SIGKILL";
	case SIGABRT:
		return "SIGABRT";
	case SIGSEGV:
		return "SIGSEGV";
	default:
		snprintf(other, sizeof(other), "signal %d", sig);
		return other;
	}
}
