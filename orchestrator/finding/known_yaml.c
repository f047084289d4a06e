#include "orchestrator/finding/known_yaml.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "common/xalloc.h"

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

const yaml_node_t *known_yaml_repeated_key(yaml_document_t *doc, const yaml_node_t *m)
{
	size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start), size = 8;
	cleanup_free const char **set = NULL;

	while (size < 2 * n)
		size *= 2;
	set = xcalloc(size, sizeof(*set));
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(doc, p->key);
		const char *key = scalar(k);
		size_t at;

		if (!key)
			continue;
		at = (size_t)text_fnv1a64(TEXT_FNV1A64_INIT, key, strlen(key)) & (size - 1);
		for (; set[at]; at = (at + 1) & (size - 1))
			if (!strcmp(set[at], key))
				return k;
		set[at] = key;
	}
	return NULL;
}

static bool referred(unsigned char *refs, int id)
{
	if (id <= 0)
		return false;
	return ++refs[id - 1] > 1;
}

const yaml_node_t *known_yaml_aliased(yaml_document_t *doc)
{
	size_t n = (size_t)(doc->nodes.top - doc->nodes.start);
	cleanup_free unsigned char *refs = xcalloc(n ? n : 1, 1);

	for (yaml_node_t *x = doc->nodes.start; x < doc->nodes.top; x++) {
		if (x->type == YAML_MAPPING_NODE) {
			for (yaml_node_pair_t *p = x->data.mapping.pairs.start;
			     p < x->data.mapping.pairs.top; p++) {
				if (referred(refs, p->key))
					return yaml_document_get_node(doc, p->key);
				if (referred(refs, p->value))
					return yaml_document_get_node(doc, p->value);
			}
		} else if (x->type == YAML_SEQUENCE_NODE) {
			for (yaml_node_item_t *it = x->data.sequence.items.start;
			     it < x->data.sequence.items.top; it++)
				if (referred(refs, *it))
					return yaml_document_get_node(doc, *it);
		}
	}
	return NULL;
}
