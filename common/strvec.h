/* A NULL-terminated, growable array of owned strings (after git's strvec):
 * argv vectors, env lists, label "k=v" pairs. v is never NULL. */
#ifndef HRR_COMMON_STRVEC_H
#define HRR_COMMON_STRVEC_H

#include <stddef.h>

struct strvec {
	char **v;
	size_t n;
	size_t alloc;
};

extern char *strvec_empty[];
#define STRVEC_INIT { strvec_empty, 0, 0 }

void strvec_init(struct strvec *sv);
void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Take ownership of an already allocated string. */
void strvec_push_nodup(struct strvec *sv, char *s);
void strvec_pushv(struct strvec *sv, const char *const *v);
void strvec_clear(struct strvec *sv);
/* Index of the first "KEY=..." entry, or -1. */
long strvec_find_key(const struct strvec *sv, const char *key);

void strvec_cleanup(struct strvec *sv);
#define cleanup_strvec __attribute__((cleanup(strvec_cleanup)))

#endif
