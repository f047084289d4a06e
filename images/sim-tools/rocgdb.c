/* rocgdb stand-in for the simulator image (docs/gpu-debug-tools.md).
 *
 * It really attaches to the given process with ptrace (PTRACE_SEIZE, then
 * PTRACE_INTERRUPT and waitpid), so a container without CAP_SYS_PTRACE, or
 * one whose seccomp profile denies ptrace, fails as rocgdb does there:
 * "ptrace: Operation not permitted." Attached, it reads the simulator's
 * state file (sim_state.h) for the in-flight dispatch, answers the CLI and
 * MI commands a diagnosis uses, and detaches (the process resumes).
 *
 *   rocgdb [--batch] [-nx] [-q] [--interpreter=mi3] -p PID
 *          [-ex CMD]... [-x FILE]...        CLI commands, in order
 *   rocgdb --version
 *
 * CLI: set/show (ignored), echo, info agents|queues|dispatches|threads,
 * bt|backtrace [N], interpreter-exec mi3 "-MI-COMMAND", interpreter-exec
 * console "CMD", attach PID, detach, quit. With --interpreter=mi* it then
 * reads MI commands ([token]-agent-info, -queue-info, -dispatch-info,
 * -thread-info, -target-attach, -target-detach, -gdb-exit, ...) and CLI
 * commands from stdin, answering with MI records and "(gdb)" prompts.
 *
 * HRR_SIM_ROCGDB=no-dispatch: attached to waves that already exist (a hung
 * kernel): no dispatch record, waves with unknown dispatch and position.
 * HRR_SIM_ROCGDB=nolib makes it fail before it starts, as the dynamic
 * loader does for a rocgdb whose libpython the image lacks (exit 127).
 * HRR_SIM_ROCGDB=hang (or rocgdb=hang in the state file) makes it attach
 * and then never answer: a stuck debugger, for --diagnose-timeout tests. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rocgdb.h"

#define MAX_COMMANDS 128
#define LINE_MAX_LEN 4096

struct opts {
	long pid;
	bool batch, mi, version;
	const char *cmds[MAX_COMMANDS];
	bool cmd_is_file[MAX_COMMANDS];
	size_t n_cmds;
};

static void read_host_pc(struct dbg *g)
{
#if defined(__x86_64__)
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, g->pid, 0, &regs) == 0)
		g->host_pc = regs.rip;
#elif defined(__aarch64__)
	struct user_pt_regs regs;
	struct iovec iov = { &regs, sizeof(regs) };

	if (ptrace(PTRACE_GETREGSET, g->pid, (void *)1 /* NT_PRSTATUS */, &iov) == 0)
		g->host_pc = regs.pc;
#else
	(void)g;
#endif
}

/* Attach and stop the process; "ptrace: <strerror>." on failure. */
static int attach(struct dbg *g, long pid, struct out *err)
{
	int status;
	pid_t w;

	if (ptrace(PTRACE_SEIZE, (pid_t)pid, 0, 0) < 0 ||
	    ptrace(PTRACE_INTERRUPT, (pid_t)pid, 0, 0) < 0) {
		out_addf(err, "ptrace: %s.", strerror(errno));
		return -1;
	}
	do
		w = waitpid((pid_t)pid, &status, __WALL);
	while (w < 0 && errno == EINTR);
	if (w < 0 || !WIFSTOPPED(status)) {
		out_addf(err, "ptrace: %s.", w < 0 ? strerror(errno) : strerror(ESRCH));
		return -1;
	}
	g->pid = pid;
	read_host_pc(g);
	g->have_state = sim_state_read(sim_state_path(), &g->st) == 0 && g->st.pid == pid;
	return 0;
}

static void detach(struct dbg *g, struct out *o)
{
	ptrace(PTRACE_DETACH, (pid_t)g->pid, 0, 0);
	out_addf(o, "[Inferior 1 (process %ld) detached]\n", g->pid);
	g->pid = -1;
	g->have_state = false;
}

static bool nolib_requested(void)
{
	const char *e = getenv("HRR_SIM_ROCGDB");

	return e && !strcmp(e, "nolib");
}

static bool hang_requested(const struct dbg *g)
{
	const char *e = getenv("HRR_SIM_ROCGDB");

	return (e && !strcmp(e, "hang")) || !strcmp(g->st.rocgdb, "hang");
}

/* A stuck debugger: attached, silent, until killed. */
static void hang(void)
{
	fflush(stdout);
	for (;;)
		pause();
}

static const char *word_after(const char *s, const char *cmd)
{
	size_t n = strlen(cmd);

	if (strncmp(s, cmd, n) || (s[n] && s[n] != ' '))
		return NULL;
	return s + n + strspn(s + n, " ");
}

/* "..." with \" and \\ escapes, as interpreter-exec takes its command. */
static void unquote(const char *s, char *out, size_t outsz)
{
	size_t j = 0;

	if (*s == '"')
		s++;
	for (; *s && *s != '"' && j + 1 < outsz; s++) {
		if (*s == '\\' && s[1])
			s++;
		out[j++] = *s;
	}
	out[j] = '\0';
}

static int run_cli(struct dbg *g, const char *cmd, struct out *o, struct out *err);

/* One MI command (without its token); the record into o. 1 on -gdb-exit. */
static int run_mi(struct dbg *g, const char *cmd, struct out *o)
{
	struct out err = { 0 };
	const char *arg;
	int rc = 0;

	if (!strcmp(cmd, "-agent-info"))
		out_addf(o, "^done"), mi_agents(g, o);
	else if (!strcmp(cmd, "-queue-info"))
		out_addf(o, "^done"), mi_queues(g, o);
	else if (!strcmp(cmd, "-dispatch-info"))
		out_addf(o, "^done"), mi_dispatches(g, o);
	else if (!strcmp(cmd, "-thread-info"))
		out_addf(o, "^done"), mi_threads(g, o);
	else if ((arg = word_after(cmd, "-target-attach"))) {
		if (attach(g, strtol(arg, NULL, 10), &err) < 0) {
			out_addf(o, "^error,msg=");
			out_cstring(o, err.buf);
		} else {
			out_addf(o, "^done");
		}
	} else if (!strcmp(cmd, "-target-detach")) {
		if (g->pid >= 0)
			detach(g, &err);
		out_addf(o, "^done");
	} else if (!strcmp(cmd, "-gdb-exit")) {
		out_addf(o, "^exit");
		rc = 1;
	} else if (word_after(cmd, "-gdb-set") || word_after(cmd, "-enable-pretty-printing") ||
		   word_after(cmd, "-list-features")) {
		out_addf(o, "^done");
	} else {
		char name[256];

		snprintf(name, sizeof(name), "Undefined MI command: %s", cmd + 1);
		name[strcspn(name + 22, " ") + 22] = '\0';
		out_addf(o, "^error,msg=");
		out_cstring(o, name);
		out_addf(o, ",code=\"undefined-command\"");
	}
	free(err.buf);
	return rc;
}

/* echo's text: GDB's C escapes, most often \n. */
static void echo(const char *s, struct out *o)
{
	for (; *s; s++) {
		if (*s == '\\' && s[1] == 'n')
			out_addf(o, "\n"), s++;
		else if (*s == '\\' && s[1])
			out_addf(o, "%c", *++s);
		else
			out_addf(o, "%c", *s);
	}
}

static int interpreter_exec(struct dbg *g, const char *arg, struct out *o, struct out *err)
{
	char cmd[LINE_MAX_LEN];
	size_t n = strcspn(arg, " ");

	unquote(arg + n + strspn(arg + n, " "), cmd, sizeof(cmd));
	if (!strncmp(arg, "mi", 2)) {
		int rc = run_mi(g, cmd, o);

		out_addf(o, "\n");
		return rc;
	}
	if (!strncmp(arg, "console", n))
		return run_cli(g, cmd, o, err);
	out_addf(err, "Could not find interpreter \"%.*s\".", (int)n, arg);
	return -1;
}

/* One CLI command: output into o, an error message into err (returns -1);
 * 1 on quit. */
static int run_cli(struct dbg *g, const char *cmd, struct out *o, struct out *err)
{
	const char *arg;

	cmd += strspn(cmd, " \t");
	if (!*cmd || *cmd == '#' || word_after(cmd, "set") || word_after(cmd, "show"))
		return 0;
	if ((arg = word_after(cmd, "echo")))
		echo(arg, o);
	else if (!strcmp(cmd, "info agents"))
		info_agents(g, o);
	else if (!strcmp(cmd, "info queues"))
		info_queues(g, o);
	else if (!strcmp(cmd, "info dispatches"))
		info_dispatches(g, o);
	else if (!strcmp(cmd, "info threads"))
		info_threads(g, o);
	else if ((arg = word_after(cmd, "bt")) || (arg = word_after(cmd, "backtrace")) ||
		 (arg = word_after(cmd, "where")))
		backtrace(g, o, *arg ? strtol(arg, NULL, 10) : -1);
	else if ((arg = word_after(cmd, "interpreter-exec")))
		return interpreter_exec(g, arg, o, err);
	else if ((arg = word_after(cmd, "attach"))) {
		out_addf(o, "Attaching to process %s\n", arg);
		return attach(g, strtol(arg, NULL, 10), err);
	} else if (!strcmp(cmd, "detach")) {
		if (g->pid < 0) {
			out_addf(err, "The program is not being run.");
			return -1;
		}
		detach(g, o);
	} else if (!strcmp(cmd, "quit") || !strcmp(cmd, "q")) {
		return 1;
	} else {
		out_addf(err, "Undefined command: \"%.*s\".  Try \"help\".", (int)strcspn(cmd, " "),
			 cmd);
		return -1;
	}
	return 0;
}

/* The commands of -x FILE, one a line. */
static int run_file(struct dbg *g, const char *path, struct out *o, struct out *err)
{
	char line[LINE_MAX_LEN];
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f) {
		out_addf(err, "%s: %s.", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		rc = run_cli(g, line, o, err);
	}
	fclose(f);
	return rc;
}

/* Print a CLI command's output: as console stream records under MI. */
static void emit(bool mi, struct out *o, struct out *err)
{
	if (!mi) {
		fputs(o->buf ? o->buf : "", stdout);
		if (err->len)
			fprintf(stderr, "%s\n", err->buf);
	} else {
		struct out rec = { 0 };

		for (char *line = o->buf; line && *line;) {
			size_t n = strcspn(line, "\n");
			char save = line[n + (line[n] == '\n')];

			line[n + (line[n] == '\n')] = '\0';
			if (line[0] != '^' || !n)
				out_addf(&rec, "~"), out_cstring(&rec, line), out_addf(&rec, "\n");
			else
				out_addf(&rec, "%s", line);
			line[n + (line[n] == '\n')] = save;
			line += n + (line[n] == '\n');
		}
		if (err->len)
			out_addf(&rec, "&"), out_cstring(&rec, err->buf), out_addf(&rec, "\n");
		fputs(rec.buf ? rec.buf : "", stdout);
		free(rec.buf);
	}
	fflush(stdout);
	out_reset(o);
	out_reset(err);
}

/* MI commands and CLI commands from stdin, until EOF or -gdb-exit. */
static void mi_loop(struct dbg *g, struct out *o, struct out *err)
{
	char line[LINE_MAX_LEN];

	while (fgets(line, sizeof(line), stdin)) {
		char *cmd = line;
		long token = -1;
		int rc;

		line[strcspn(line, "\r\n")] = '\0';
		if (*cmd >= '0' && *cmd <= '9')
			token = strtol(cmd, &cmd, 10);
		if (token >= 0)
			printf("%ld", token);
		if (*cmd == '-') {
			rc = run_mi(g, cmd, o);
			printf("%s\n", o->buf);
			out_reset(o);
		} else {
			rc = run_cli(g, cmd, o, err);
			emit(true, o, err);
			printf(rc < 0 ? "^error,msg=\"command failed\"\n" : "^done\n");
		}
		if (rc == 1)
			return;
		printf("(gdb)\n");
		fflush(stdout);
	}
}

static int parse_args(int argc, char **argv, struct opts *op)
{
	op->pid = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--version") || !strcmp(a, "-version"))
			op->version = true;
		else if (!strcmp(a, "--batch") || !strcmp(a, "-batch"))
			op->batch = true;
		else if (!strncmp(a, "--interpreter=mi", 16) || !strncmp(a, "-interpreter=mi", 15))
			op->mi = true;
		else if ((!strcmp(a, "-p") || !strcmp(a, "-pid") || !strcmp(a, "--pid")) && next)
			op->pid = strtol(argv[++i], NULL, 10);
		else if (!strncmp(a, "--pid=", 6))
			op->pid = strtol(a + 6, NULL, 10);
		else if ((!strcmp(a, "-ex") || !strcmp(a, "--ex") || !strcmp(a, "-eval-command") ||
			  !strcmp(a, "--eval-command") || !strcmp(a, "-x") || !strcmp(a, "--command")) &&
			 next && op->n_cmds < MAX_COMMANDS) {
			op->cmd_is_file[op->n_cmds] = !strcmp(a, "-x") || !strcmp(a, "--command");
			op->cmds[op->n_cmds++] = argv[++i];
		} else if (!strncmp(a, "--eval-command=", 15) && op->n_cmds < MAX_COMMANDS) {
			op->cmds[op->n_cmds++] = a + 15;
		}
		/* -nx, -q, --quiet, a program file: nothing to do here. */
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts op = { 0 };
	struct dbg g = { .pid = -1 };
	struct out o = { 0 }, err = { 0 };
	bool failed = false;
	int rc = 0;

	signal(SIGPIPE, SIG_IGN);
	if (nolib_requested()) {
		/* What the dynamic loader prints when an image ships rocgdb
		 * without its libpython (slim images): exit 127, nothing run. */
		fprintf(stderr, "%s: error while loading shared libraries: libpython3.12.so.1.0: "
			"cannot open shared object file: No such file or directory\n", argv[0]);
		return 127;
	}
	parse_args(argc, argv, &op);
	sim_state_defaults(&g.st);
	g.waves_only = getenv("HRR_SIM_ROCGDB") && !strcmp(getenv("HRR_SIM_ROCGDB"), "no-dispatch");
	if (op.version) {
		printf("GNU gdb (rocm-rel-7.13.0) 16.3\nCopyright (C) 2024 Free Software "
		       "Foundation, Inc.\n(the hrr-docker-replay simulator's stand-in)\n");
		return 0;
	}
	if (op.mi)
		printf("=thread-group-added,id=\"i1\"\n");
	if (op.pid >= 0) {
		/* Printed (and flushed) before the attach, as GDB does. */
		if (!op.mi)
			out_addf(&o, "Attaching to process %ld\n", op.pid);
		emit(op.mi, &o, &err);
		failed = attach(&g, op.pid, &err) < 0;
		emit(op.mi, &o, &err);
		if (!failed && hang_requested(&g))
			hang();
	}
	if (op.mi)
		printf("(gdb)\n");
	for (size_t i = 0; i < op.n_cmds && rc != 1; i++) {
		rc = op.cmd_is_file[i] ? run_file(&g, op.cmds[i], &o, &err)
				       : run_cli(&g, op.cmds[i], &o, &err);
		failed |= rc < 0 && i + 1 == op.n_cmds;
		emit(op.mi, &o, &err);
	}
	if (op.mi && rc != 1 && !op.batch)
		mi_loop(&g, &o, &err);
	if (g.pid >= 0) {
		detach(&g, &o);
		emit(op.mi, &o, &err);
	}
	free(o.buf);
	free(err.buf);
	return failed ? 1 : 0;
}
