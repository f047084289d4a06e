#include "common/intern.h"

#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/xalloc.h"

static size_t slot_of(char *const *slots, size_t cap, const char *s)
{
	size_t i = (size_t)text_fnv1a64(TEXT_FNV1A64_INIT, s, strlen(s)) & (cap - 1);

	while (slots[i] && strcmp(slots[i], s))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Twice the slots once they are over 70% full: probes stay short. */
static void grow(struct intern *t)
{
	size_t cap = t->cap ? 2 * t->cap : 256;
	char **slots = xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i])
			slots[slot_of(slots, cap, t->slots[i])] = t->slots[i];
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
}

const char *intern(struct intern *t, const char *s)
{
	size_t i;

	if (!s)
		return NULL;
	if (10 * (t->n + 1) > 7 * t->cap)
		grow(t);
	i = slot_of(t->slots, t->cap, s);
	if (!t->slots[i]) {
		t->slots[i] = xstrdup(s);
		t->n++;
	}
	return t->slots[i];
}

void intern_release(struct intern *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i]);
	free(t->slots);
	*t = (struct intern)INTERN_INIT;
}
