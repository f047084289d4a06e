/* The exit codes of a replay, which are the program's (docs/cli.md "Exit
 * codes"; test_docs checks the tables against this enum). */
#ifndef HRR_REPLAY_EXIT_CODES_H
#define HRR_REPLAY_EXIT_CODES_H

/* Exit codes (docs/cli.md). */
enum {
	EXIT_PASS = 0,
	EXIT_NOT_PASS = 1,
	EXIT_CONFIRM = 2,
	EXIT_DECLINED = 3,
	EXIT_BLOCKED = 4,
	EXIT_NO_VERDICT = 5,
	EXIT_USAGE = 64,
	EXIT_GPU_BUSY = 75, /* the GPUs stayed held past --gpu-wait (EX_TEMPFAIL) */
};

#endif
