/* Strings kept once for the life of a report model: a sweep of 10,000
 * cases says "PASS", its image ID and its GPU lists over and over (in each
 * case and in each case's trend), and each copy used to be an allocation
 * of its own. */
#ifndef HRR_REPORT_REPORT_INTERN_H
#define HRR_REPORT_REPORT_INTERN_H

#include <stddef.h>

struct report_intern {
	char **slots; /* open addressing; NULL: free */
	size_t cap, n;
};

#define REPORT_INTERN_INIT { NULL, 0, 0 }

/* The one kept copy of s (NULL for NULL): valid until release. */
const char *report_intern(struct report_intern *t, const char *s);
void report_intern_release(struct report_intern *t);

#endif
