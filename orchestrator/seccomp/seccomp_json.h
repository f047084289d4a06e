/* The seccomp profile as JSON, the Docker/OCI profile format (a tree the
 * engine's option is printed from and run.json embeds), and run.json's
 * "seccomp" record (docs/engine.md). */
#ifndef HRR_SECCOMP_SECCOMP_JSON_H
#define HRR_SECCOMP_SECCOMP_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "common/error.h"
#include "common/strvec.h"

/* seccomp_profile.h's; it does not need these declarations. */
struct seccomp_profile_opts;
struct seccomp_choice;

/* Build the profile (seccomp_profile_build) as a tree (*out, the caller's). Names the architecture
 * (and its compat sub-architectures) lacks are left out with a note in
 * *notes ("skipped <name>: not a syscall on <arch>"); notes may be NULL. */
int seccomp_profile_tree(const struct seccomp_profile_opts *o, cJSON **out,
			 struct strvec *notes, struct error *err)
	__attribute__((warn_unused_result));

/* seccomp_profile_validate's check of a profile already parsed (NULL: not
 * a JSON object). */
int seccomp_profile_check(const cJSON *root, uint32_t arch, struct error *err)
	__attribute__((warn_unused_result));

/* What run.json records: {"mode": "...", "path"?: "...", "profile"?: {...}}
 * (the profile as passed to the engine, when there is one: profile, which
 * the record takes, may be NULL). */
cJSON *seccomp_record_json(const struct seccomp_choice *c, cJSON *profile);

struct engine;
/* run.json's "seccomp" record of one replay (seccomp_engine_option's),
 * held for the records without its JSON crossing into their headers. */
struct seccomp_record;

/* A copy of the record's JSON, for run.json. */
cJSON *seccomp_record_to_json(const struct seccomp_record *r);
void seccomp_record_free(struct seccomp_record *r);

/* What the replay container gets for choice c on engine e (whose /version
 * names the architecture): *profile is the profile's JSON for the spec's
 * seccomp_profile (replay, a site's file; docker/ passes it the way the
 * engine takes it), *opt a SecurityOpt entry ("seccomp=unconfined"), both
 * NULL for the engine's default; *record is run.json's "seccomp" record. A
 * site's file that cannot be read or is not a valid profile: ERR_USAGE.
 * Names the architecture lacks are noted in *notes (may be NULL). */
int seccomp_engine_option(struct engine *e, const struct seccomp_choice *c, bool allow_ptrace,
			  char **profile, char **opt, struct seccomp_record **record,
			  struct strvec *notes,
			  struct error *err) __attribute__((warn_unused_result));

#endif
