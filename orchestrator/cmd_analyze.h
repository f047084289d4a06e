/* `hrr-docker-replay analyze`: classify existing replay logs offline
 * (cli.md "Offline analysis"). No engine, no GPU. */
#ifndef HRR_ORCHESTRATOR_CMD_ANALYZE_H
#define HRR_ORCHESTRATOR_CMD_ANALYZE_H

/* The --help text of `analyze`, for main's help and the README. */
extern const char cmd_analyze_usage[];

/* argv[0] is the subcommand word "analyze" (a leading program name before
 * it is skipped too); options follow. Prints the finding on stdout, or
 * writes it to -o PATH. Returns the exit code: 0 finding written, 5 an
 * input is missing or unreadable, 64 usage error. */
int cmd_analyze(int argc, char **argv);

#endif
