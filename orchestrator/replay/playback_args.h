/* hrr-playback flags a user may pass through (`--playback-arg`,
 * docs/cli.md): an allow-list of upstream flags that change how a replay
 * is carried out, not what it means. Pure. */
#ifndef HRR_REPLAY_PLAYBACK_ARGS_H
#define HRR_REPLAY_PLAYBACK_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"

struct playback_arg {
	char *flag;  /* "--no-placement" */
	char *value; /* NULL: the flag alone */
};

struct playback_args {
	struct playback_arg *v;
	size_t n;
};

#define PLAYBACK_ARGS_INIT { NULL, 0 }

/* Add FLAG or FLAG=VALUE after checking it against the allow-list; a flag
 * given twice is kept once (the later value wins). ERR_USAGE names the
 * allow-list, or why a flag the tool owns is not passed through. from
 * names the source for the message ("--playback-arg"). */
int playback_args_add(struct playback_args *a, const char *spec, const char *from,
		      struct error *err) __attribute__((warn_unused_result));
void playback_args_release(struct playback_args *a);
void playback_args_copy(struct playback_args *dst, const struct playback_args *src);

/* The words after the archive: FLAG, then VALUE as its own word, as
 * hrr-playback reads them. */
void playback_args_argv(const struct playback_args *a, struct strvec *cmd);
/* FLAG or FLAG=VALUE, as given (JSON records, messages). */
void playback_arg_format(const struct playback_arg *p, struct strbuf *out);

/* Whether an `hrr-playback --help` text lists flag: the flag as a word of
 * its own (not the head of a longer one). */
bool playback_help_lists(const char *help, const char *flag);
/* The requested flags the help does not list, in order, into out. */
void playback_args_unlisted(const struct playback_args *a, const char *help, struct strvec *out);

#endif
