#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *strvec_empty[1];

void strvec_init(struct strvec *sv)
{
	sv->v = strvec_empty;
	sv->n = 0;
	sv->alloc = 0;
}

void strvec_push_nodup(struct strvec *sv, char *s)
{
	if (sv->n + 2 > sv->alloc) {
		size_t want = sv->alloc ? sv->alloc * 2 : 8;

		sv->v = sv->alloc ? xrealloc(sv->v, want * sizeof(*sv->v))
				  : xmalloc(want * sizeof(*sv->v));
		sv->alloc = want;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_nodup(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strvec_push_nodup(sv, xvasprintf(fmt, ap));
	va_end(ap);
}

void strvec_pushv(struct strvec *sv, const char *const *v)
{
	for (; v && *v; v++)
		strvec_push(sv, *v);
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	if (sv->alloc)
		free(sv->v);
	strvec_init(sv);
}

void strvec_cleanup(struct strvec *sv)
{
	strvec_clear(sv);
}

long strvec_find_key(const struct strvec *sv, const char *key)
{
	size_t klen = strlen(key);

	for (size_t i = 0; i < sv->n; i++)
		if (!strncmp(sv->v[i], key, klen) && sv->v[i][klen] == '=')
			return (long)i;
	return -1;
}
