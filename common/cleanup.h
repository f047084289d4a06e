/* __attribute__((cleanup)) helpers, so early returns cannot leak. */
#ifndef HRR_COMMON_CLEANUP_H
#define HRR_COMMON_CLEANUP_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cjson/cJSON.h>

static inline void cleanup_free_fn(void *p)
{
	free(*(void **)p);
}

static inline void cleanup_close_fn(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void cleanup_fclose_fn(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void cleanup_cjson_fn(cJSON **j)
{
	cJSON_Delete(*j);
}

#define cleanup_free __attribute__((cleanup(cleanup_free_fn)))
#define cleanup_close __attribute__((cleanup(cleanup_close_fn)))
#define cleanup_fclose __attribute__((cleanup(cleanup_fclose_fn)))
#define cleanup_cjson __attribute__((cleanup(cleanup_cjson_fn)))

/* Hand ownership out of a cleanup variable: `return steal_pointer(&p);` */
static inline void *steal_pointer_impl(void **pp)
{
	void *p = *pp;

	*pp = NULL;
	return p;
}
#define steal_pointer(pp) steal_pointer_impl((void **)(pp))

static inline int steal_fd(int *fd)
{
	int r = *fd;

	*fd = -1;
	return r;
}

#endif
