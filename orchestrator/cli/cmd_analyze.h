/* `hrr-docker-replay analyze`: classify existing replay logs offline
 * (docs/cli.md "`analyze`"). No engine, no GPU. */
#ifndef HRR_CLI_CMD_ANALYZE_H
#define HRR_CLI_CMD_ANALYZE_H

/* For callers without a parsed command line (tests, bench): argv[0] is
 * the subcommand word "analyze" (a leading program name before it is
 * skipped too); options follow, parsed by the option table. Prints the
 * finding on stdout and, with -o PATH, writes it there too. Returns the
 * exit code: 0 finding written, 5 an input is missing or unreadable, 64
 * usage error. */
int cmd_analyze(int argc, char **argv);

#endif
