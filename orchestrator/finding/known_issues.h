/* The known-issues file (docs/sweep.md "Known issues"): YAML rules that
 * say which failures are a bug already filed, with its id, link and owner.
 * A rule matches on signature parts (orchestrator/finding/signature.h),
 * case, image, GPU and host, each a glob or, written "re:...", a POSIX
 * extended regular expression; every pattern a rule gives must match. A
 * rule past its expiry date is reported and marks nothing known. Reading
 * is strict: a bad file is one error naming the file, line and rule. */
#ifndef HRR_FINDING_KNOWN_ISSUES_H
#define HRR_FINDING_KNOWN_ISSUES_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "common/error.h"
#include "common/owned_file.h"
#include "common/strvec.h"
#include "orchestrator/finding/signature.h"

enum known_field {
	KNOWN_OUTCOME, KNOWN_FAULT_CLASS, KNOWN_KERNEL_FAMILY, KNOWN_EVIDENCE, KNOWN_STOP_REASON,
	KNOWN_CASE, KNOWN_IMAGE, KNOWN_GPU, KNOWN_HOST,
	KNOWN__FIELDS
};
/* "outcome", ..., "host": the keys under a rule's `match:`. */
const char *known_field_name(enum known_field f);

struct known_pattern {
	char *text;      /* as written; NULL: not given */
	bool regex;      /* "re:" */
	regex_t re;
};

struct known_rule {
	char *id, *link, *owner, *note;
	int line;            /* 1-based line of the rule in its file */
	long long expires;   /* epoch seconds at the end of the expiry day (UTC); -1 none */
	struct known_pattern match[KNOWN__FIELDS];
};

/* owners: NAME: {notify: URL or [URL, ...], format: json|slack}: where
 * the alarms and recoveries of that owner's known issues are POSTed after
 * a sweep (docs/sweep.md "Notifications"). A URL is http(s)://... or
 * env:NAME, so no webhook secret sits in the reviewed file. */
struct known_owner {
	char *name;
	struct strvec notify; /* as written */
	bool slack;           /* format: slack */
};

struct known_issues {
	char *path;
	struct known_rule *v;
	size_t n;
	struct known_owner *owners;
	size_t n_owners;
};

/* A notify target as a person may write it: an http:// or https:// URL,
 * or env:NAME with NAME of letters, digits and '_'. */
bool known_notify_url_valid(const char *v);

/* What a failure is matched on. Any of the strings may be NULL (then a
 * pattern on it does not match). */
struct known_subject {
	const struct signature *sig;
	const char *case_name, *image, *gpu, *host;
};

/* Reads path after common/owned_file.h's checks of rule (*st: the file
 * read, its owner for the caller to weigh); ERR_NOT_FOUND when it does
 * not exist, ERR_DATA for a file refused ("PATH belongs to uid 1001, ...:
 * refused") and with "PATH:LINE: rule ID: what" for anything wrong in it. */
int known_issues_load(const char *path, enum owned_file_rule rule, struct known_issues *out,
		      struct stat *st, struct error *err) __attribute__((warn_unused_result));
/* The same from text (name for messages). */
int known_issues_parse(const char *name, const char *text, size_t len, struct known_issues *out,
		       struct error *err) __attribute__((warn_unused_result));
void known_issues_release(struct known_issues *k);

bool known_rule_expired(const struct known_rule *r, long long now);

/* Whether a rule's link is a web address a page may link to (http or
 * https); any other text is shown as text, never as a link. */
bool known_link_is_web(const char *link);
/* One line per rule expired at now, pushed to lines: "PATH:LINE: rule ID
 * expired on YYYY-MM-DD: it marks nothing known (renew or remove it)".
 * Returns how many. k may be NULL. */
size_t known_issues_expired(const struct known_issues *k, long long now, struct strvec *lines);
/* The first rule, in file order, that is not expired at now and whose
 * patterns all match s; NULL when none does (the failure is untriaged).
 * The one matching of known issues: `run` and `analyze` on their
 * finding's signature, a sweep once, at its import into the history (the
 * results line carries the signature, not the mark), `history remark` and
 * `history known` on the history's rows. */
const struct known_rule *known_issues_match(const struct known_issues *k,
					    const struct known_subject *s, long long now);

#endif
