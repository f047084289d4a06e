/* The environment lookup of options_parse for tests: nothing is set, so
 * only the arguments a test gives count. */
#ifndef HRR_TESTS_ENV_NONE_H
#define HRR_TESTS_ENV_NONE_H

#include <stddef.h>

static inline const char *env_none(const char *name, void *ud)
{
	(void)name;
	(void)ud;
	return NULL;
}

#endif
