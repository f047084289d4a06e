/* The known-issues file's YAML document checked in linear time before it
 * is read: a key given twice in a mapping (a hash set, not every pair:
 * a 4 MiB file of distinct keys is read at once) and aliases, which
 * libyaml shares by reference and a reader would copy per use (an alias
 * of a 200,000-URL list under every owner). */
#ifndef HRR_FINDING_KNOWN_YAML_H
#define HRR_FINDING_KNOWN_YAML_H

#include <yaml.h>

/* The key node of the first key of mapping m that an earlier key of m
 * repeats, or NULL. Keys that are not scalars are not compared. */
const yaml_node_t *known_yaml_repeated_key(yaml_document_t *doc, const yaml_node_t *m);
/* The first node that more than one place refers to (an alias, *name, of
 * it), or NULL. */
const yaml_node_t *known_yaml_aliased(yaml_document_t *doc);

#endif
