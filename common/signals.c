#include "common/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const int handled[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t caught;
static volatile sig_atomic_t pipe_write = -1; /* read by the handler */
static int pipe_fds[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;
	char b = (char)sig;

	if (!caught)
		caught = sig;
	if (pipe_write >= 0 && write(pipe_write, &b, 1) < 0) {
		/* Full pipe: a wake-up is already pending. */
	}
	errno = saved;
}

int signals_install(void)
{
	struct sigaction sa;

	if (pipe_fds[0] < 0 && pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	pipe_write = pipe_fds[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		sigaction(handled[i], &sa, NULL);
	return pipe_fds[0];
}

int signals_caught(void)
{
	return caught;
}

void signals_forget(void)
{
	pipe_write = -1;
	pipe_fds[0] = pipe_fds[1] = -1;
	caught = 0;
}

void signals_release(void)
{
	int fds[2] = { pipe_fds[0], pipe_fds[1] };

	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		signal(handled[i], SIG_DFL);
	signals_forget();
	for (size_t i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
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
