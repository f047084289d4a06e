#include "orchestrator/replay/playback_args.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

enum arg_value { VALUE_NONE, VALUE_OPTIONAL };

/* The flags passed through. A row ending in '-' is a family (its prefix). */
static const struct {
	const char *flag;
	enum arg_value value;
} allowed[] = {
	{ "--no-placement", VALUE_NONE },
	{ "--no-regions", VALUE_NONE },
	{ "--regions-strict", VALUE_NONE },
	{ "--guard-", VALUE_OPTIONAL },
	{ "--continue-on-error", VALUE_NONE },
	{ "--warn-untranslated-args", VALUE_NONE },
	{ "--skip-device-sync", VALUE_NONE },
	/* They change what is printed, not what is replayed: the launch in
	 * flight when the GPU faulted (docs/formats.md "Trace lines"). */
	{ "--trace-kernels", VALUE_NONE },
	{ "--trace-sync", VALUE_NONE },
};

#define ALLOWED_LIST "--no-placement, --no-regions, --regions-strict, --guard-*, " \
	"--continue-on-error, --warn-untranslated-args, --skip-device-sync, --trace-kernels, " \
	"--trace-sync"

/* Flags hrr-docker-replay owns or refuses, and what to use instead. */
static const struct {
	const char *flag;
	const char *why;
} refused[] = {
	{ "--sync-after-launch", "hrr-docker-replay passes it itself (--no-sync leaves it out)" },
	{ "--info", "hrr-docker-replay runs --info itself when the log cannot name the kernel" },
	{ "--timing", "hrr-docker-replay passes it for --perf" },
	{ "--progress-seconds", "use hrr-docker-replay's --progress-seconds" },
	{ "--repair", "it rewrites the archive, which is never written" },
	{ "--kernel-filter", "it changes what the replay runs" },
	{ "--multi-thread", "it changes what the replay runs" },
	{ "--version", "it replays nothing" },
	{ "--replace-kernel", "use hrr-docker-replay's --replace-kernel NAME=PATH" },
};

static int row_of(const char *flag)
{
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		size_t len = strlen(allowed[i].flag);

		if (allowed[i].flag[len - 1] == '-' ? !strncmp(flag, allowed[i].flag, len) &&
							  flag[len] != '\0'
						    : !strcmp(flag, allowed[i].flag))
			return (int)i;
	}
	return -1;
}

/* A flag's name: "--" then lower-case letters, digits and '-'. */
static bool flag_name_ok(const char *f, size_t len)
{
	if (len < 3 || strncmp(f, "--", 2) || f[2] == '-')
		return false;
	for (size_t i = 2; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789-", f[i]))
			return false;
	return true;
}

/* A value is one plain word: no option look-alike, no space, no shell or
 * control characters, short. */
static bool value_ok(const char *v)
{
	size_t len = strlen(v);

	return len > 0 && len <= 64 && v[0] != '-' &&
	       strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:,+-") == len;
}

int playback_args_add(struct playback_args *a, const char *spec, const char *from,
		      struct error *err)
{
	const char *eq = strchr(spec, '=');
	size_t flen = eq ? (size_t)(eq - spec) : strlen(spec);
	char *flag;
	int row;

	if (!flag_name_ok(spec, flen))
		return error_set(err, ERR_USAGE, 0,
				 "%s: '%s' is not FLAG or FLAG=VALUE with FLAG one of %s", from,
				 spec, ALLOWED_LIST);
	flag = xstrndup(spec, flen);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!strcmp(flag, refused[i].flag)) {
			error_set(err, ERR_USAGE, 0, "%s: %s is not passed through: %s", from, flag,
				  refused[i].why);
			free(flag);
			return -1;
		}
	if ((row = row_of(flag)) < 0) {
		error_set(err, ERR_USAGE, 0, "%s: %s is not one of the flags passed through (%s)",
			  from, flag, ALLOWED_LIST);
		free(flag);
		return -1;
	}
	if (eq && (allowed[row].value == VALUE_NONE || !value_ok(eq + 1))) {
		error_set(err, ERR_USAGE, 0,
			  allowed[row].value == VALUE_NONE ? "%s: %s takes no value" :
			  "%s: %s's value must be one word of letters, digits and ._:,+- (not "
			  "starting with '-')", from, flag);
		free(flag);
		return -1;
	}
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i].flag, flag)) {
			free(flag);
			free(a->v[i].value);
			a->v[i].value = eq ? xstrdup(eq + 1) : NULL;
			return 0;
		}
	a->v = xrealloc(a->v, (a->n + 1) * sizeof(*a->v));
	a->v[a->n].flag = flag;
	a->v[a->n].value = eq ? xstrdup(eq + 1) : NULL;
	a->n++;
	return 0;
}

void playback_args_release(struct playback_args *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].flag);
		free(a->v[i].value);
	}
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

void playback_args_copy(struct playback_args *dst, const struct playback_args *src)
{
	playback_args_release(dst);
	if (!src->n)
		return;
	dst->v = xcalloc(src->n, sizeof(*dst->v));
	for (size_t i = 0; i < src->n; i++) {
		dst->v[i].flag = xstrdup(src->v[i].flag);
		dst->v[i].value = xstrdup_or_null(src->v[i].value);
	}
	dst->n = src->n;
}

void playback_args_argv(const struct playback_args *a, struct strvec *cmd)
{
	for (size_t i = 0; a && i < a->n; i++) {
		strvec_push(cmd, a->v[i].flag);
		if (a->v[i].value)
			strvec_push(cmd, a->v[i].value);
	}
}

void playback_arg_format(const struct playback_arg *p, struct strbuf *out)
{
	strbuf_addstr(out, p->flag);
	if (p->value)
		strbuf_addf(out, "=%s", p->value);
}

static bool flag_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

bool playback_help_lists(const char *help, const char *flag)
{
	size_t len = strlen(flag);

	for (const char *p = help; help && (p = strstr(p, flag)); p += len) {
		/* "--guard-min-bytes" must not count as "--guard-min". */
		if ((p == help || !flag_char(p[-1])) && !flag_char(p[len]))
			return true;
	}
	return false;
}

void playback_args_unlisted(const struct playback_args *a, const char *help, struct strvec *out)
{
	for (size_t i = 0; a && i < a->n; i++)
		if (!playback_help_lists(help, a->v[i].flag))
			strvec_push(out, a->v[i].flag);
}
