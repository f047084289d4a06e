#include "common/intern.h"

#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/xalloc.h"

struct intern_block {
	struct intern_block *next;
	char text[];
};

#define INTERN_BLOCK_MIN (4u << 10)
#define INTERN_BLOCK_MAX (64u << 10)

static struct intern_block *new_block(struct intern *t, size_t size)
{
	struct intern_block *b = xmalloc(sizeof(*b) + size);

	b->next = t->blocks;
	t->blocks = b;
	return b;
}

/* s copied into the newest block, or a new one: each twice the last, up
 * to 64 KiB, so a small table stays small. A string of more than a
 * quarter of that (a finding's text) gets a block of its own. */
static char *copy(struct intern *t, const char *s)
{
	size_t len = strlen(s) + 1;
	char *p;

	if (len > INTERN_BLOCK_MAX / 4)
		return memcpy(new_block(t, len)->text, s, len);
	if (len > t->left) {
		t->block_size = t->block_size ? 2 * t->block_size : INTERN_BLOCK_MIN;
		if (t->block_size > INTERN_BLOCK_MAX)
			t->block_size = INTERN_BLOCK_MAX;
		t->next = new_block(t, t->block_size)->text;
		t->left = t->block_size;
	}
	p = memcpy(t->next, s, len);
	t->next += len;
	t->left -= len;
	return p;
}

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
		t->slots[i] = copy(t, s);
		t->n++;
	}
	return t->slots[i];
}

void intern_release(struct intern *t)
{
	while (t->blocks) {
		struct intern_block *b = t->blocks;

		t->blocks = b->next;
		free(b);
	}
	free(t->slots);
	*t = (struct intern)INTERN_INIT;
}
