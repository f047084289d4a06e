/* The regular expressions of the known-issues file, bounded before
 * regcomp(3): the file sits in a directory a team shares, every sweep,
 * Slurm task and merge reads it, and glibc's regcomp and regexec have no
 * bound of their own ("a{32767}{32767}" grows past 18 GB, a back-reference
 * runs for minutes on a 200-byte line). The parser sandbox has no CPU or
 * memory limit, so the patterns themselves are bounded. */
#ifndef HRR_FINDING_KNOWN_REGEX_H
#define HRR_FINDING_KNOWN_REGEX_H

#include <stddef.h>

/* The bounds (docs/sweep.md "Known issues"). */
#define KNOWN_RE_LEN_MAX 512       /* bytes of a pattern */
#define KNOWN_RE_COUNT_MAX 255     /* a {m,n} count */
#define KNOWN_RE_COPIES_MAX 1000   /* pieces as {m,n} repeats copy them, in all */
#define KNOWN_RE_NEST_MAX 3        /* repeats of repeats */
#define KNOWN_RE_GROUPS_MAX 32     /* parentheses deep */
/* Bytes of a value a rule is matched against (glob or regex): a longer
 * one is matched on its first KNOWN_TEXT_MAX bytes. */
#define KNOWN_TEXT_MAX 4096

/* 0 when the POSIX extended regular expression re is within the bounds
 * and has no back-reference; else -1 with why ("back-reference \1 ...")
 * written into why[0..n). */
int known_regex_check(const char *re, char *why, size_t n);

#endif
