/* Strings kept once, for as long as the table: a sweep of 10,000 cases
 * says "PASS", its image ID and its GPU lists over and over (in each of a
 * report's cases, in what it keeps of the results files), and each copy
 * used to be an allocation of its own. The copies are packed into blocks
 * (up to 64 KiB), not an allocation each: 10,000 case names carry no
 * allocator's header and rounding. */
#ifndef HRR_COMMON_INTERN_H
#define HRR_COMMON_INTERN_H

#include <stddef.h>

struct intern_block;

struct intern {
	char **slots; /* open addressing; NULL: free */
	size_t cap, n;
	struct intern_block *blocks; /* newest first */
	char *next;                  /* free space in the newest block */
	size_t left, block_size;
};

#define INTERN_INIT { NULL, 0, 0, NULL, NULL, 0, 0 }

/* The one kept copy of s (NULL for NULL): valid until release. */
const char *intern(struct intern *t, const char *s);
void intern_release(struct intern *t);

#endif
