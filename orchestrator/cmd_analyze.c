/* `hrr-docker-replay analyze --log FILE [--log FILE...] [--archive PATH]
 * [--format markdown|json] [-o PATH]`: the same rules as a run, applied to
 * logs that already exist (this tool's replay.log, the shell workflow's
 * log, `hrr-playback --info` output). */
#include "orchestrator/cmd_analyze.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/finding.h"
#include "orchestrator/replay_unit.h"
#include "preflight/manifest.h"

const char cmd_analyze_usage[] =
	"Usage: hrr-docker-replay analyze --log FILE [--log FILE...] [--archive PATH]\n"
	"                                 [--format markdown|json] [-o PATH]\n"
	"\n"
	"Classify existing replay logs with the same rules as a run: this tool's\n"
	"replay.log, the shell workflow's log, `hrr-playback --info` output.\n"
	"\n"
	"  --log FILE        a log to classify (repeatable; read in the order given,\n"
	"                    a later input's verdict replaces an earlier one only when\n"
	"                    it is not UNKNOWN; '-' reads stdin)\n"
	"  --archive PATH    the capture's pid-<pid> directory (or a root holding one):\n"
	"                    its manifest.json adds archive health and capture metadata\n"
	"  --format FMT      markdown (default) or json (the keys of finding.json)\n"
	"  -o, --output PATH write the finding to PATH instead of stdout\n"
	"  -h, --help        this text\n"
	"\n"
	"Exit: 0 finding written, 5 an input is missing or unreadable, 64 usage error.\n";

struct analyze_args {
	struct strvec logs;
	const char *archive;
	const char *output;
	bool json;
	bool help;
};

/* "--name VALUE" or "--name=VALUE"; *i advances past what was used. */
static int option_value(int argc, char **argv, int *i, const char *name, const char **value,
			struct error *err)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (!strncmp(a, name, n) && a[n] == '=') {
		*value = a + n + 1;
	} else if (*i + 1 < argc) {
		*value = argv[++*i];
	} else {
		return error_set(err, ERR_USAGE, 0, "%s needs a value (see --help)", name);
	}
	if (!**value)
		return error_set(err, ERR_USAGE, 0, "%s: empty value (see --help)", name);
	return 0;
}

static bool is_option(const char *a, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(a, name, n) && (a[n] == '\0' || a[n] == '=');
}

static int parse_args(struct analyze_args *args, int argc, char **argv, struct error *err)
{
	int i = 1;

	if (argc > 1 && !strcmp(argv[1], "analyze") && strcmp(argv[0], "analyze") != 0)
		i = 2;
	for (; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			args->help = true;
		} else if (is_option(a, "--log")) {
			if (option_value(argc, argv, &i, "--log", &v, err) < 0)
				return -1;
			strvec_push(&args->logs, v);
		} else if (is_option(a, "--archive")) {
			if (option_value(argc, argv, &i, "--archive", &v, err) < 0)
				return -1;
			args->archive = v;
		} else if (is_option(a, "--format")) {
			if (option_value(argc, argv, &i, "--format", &v, err) < 0)
				return -1;
			if (!strcmp(v, "json"))
				args->json = true;
			else if (!strcmp(v, "markdown"))
				args->json = false;
			else
				return error_set(err, ERR_USAGE, 0,
						 "--format: '%s' is not markdown or json (see --help)", v);
		} else if (!strcmp(a, "-o") || is_option(a, "--output")) {
			if (option_value(argc, argv, &i, a[1] == 'o' ? "-o" : "--output", &v, err) < 0)
				return -1;
			args->output = v;
		} else if (a[0] == '-' && a[1]) {
			return error_set(err, ERR_USAGE, 0, "analyze: unknown option '%s' (see --help)", a);
		} else {
			return error_set(err, ERR_USAGE, 0,
					 "analyze: unexpected argument '%s' (logs are given with --log FILE; see --help)",
					 a);
		}
	}
	if (!args->help && !args->logs.n && !args->archive)
		return error_set(err, ERR_USAGE, 0, "analyze: --log FILE is required (see --help)");
	return 0;
}

/* Stream one input through a classifier: memory stays bounded whatever its size. */
static int classify_file(const char *path, struct finding *out, struct error *err)
{
	bool is_stdin = !strcmp(path, "-");
	cleanup_close int fd = is_stdin ? -1 : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int in = is_stdin ? STDIN_FILENO : fd;
	struct classifier *c;
	char *buf;

	if (in < 0)
		return error_errno(err, "--log %s", path);
	c = classifier_new(is_stdin ? "(stdin)" : path);
	buf = xmalloc(64 * 1024);
	for (;;) {
		ssize_t n = read(in, buf, 64 * 1024);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error_errno(err, "--log %s", path);
			free(buf);
			classifier_free(c);
			return -1;
		}
		if (n == 0)
			break;
		classifier_feed(c, buf, (size_t)n);
	}
	free(buf);
	classifier_finish(c, out);
	classifier_free(c);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

struct archive_input {
	char *pid_dir;
	char *manifest_path;
	struct manifest manifest;
	bool have_manifest;
	unsigned format_version;
};

static void archive_input_release(struct archive_input *a)
{
	free(a->pid_dir);
	free(a->manifest_path);
	manifest_release(&a->manifest);
}

/* The archive must exist and be a capture; a missing or broken manifest
 * only costs the capture metadata, which a note says. */
static int load_archive(struct archive_input *a, const char *path, struct finding *f,
			struct error *err)
{
	cleanup_strvec struct strvec dirs = STRVEC_INIT;
	struct error merr;

	if (archive_resolve(path, &dirs, err) < 0)
		return -1;
	if (dirs.n != 1)
		return error_set(err, ERR_USAGE, 0,
				 "--archive %s holds %zu pid directories; pass one of them (see --help)",
				 path, dirs.n);
	a->pid_dir = xstrdup(dirs.v[0]);
	a->manifest_path = xasprintf("%s/manifest.json", a->pid_dir);
	if (manifest_load(&a->manifest, a->pid_dir, &merr) == 0)
		a->have_manifest = true;
	else
		finding_add_note(f, "archive manifest not used: %s", merr.msg);
	if (archive_check_events(a->pid_dir, &a->format_version, &merr) < 0) {
		a->format_version = 0;
		finding_add_note(f, "archive events.bin not read: %s", merr.msg);
	}
	return 0;
}

static int write_output(const char *path, const struct strbuf *text, struct error *err)
{
	cleanup_fclose FILE *fp = NULL;

	if (!path) {
		if (fwrite(text->buf, 1, text->len, stdout) != text->len || fflush(stdout) != 0)
			return error_errno(err, "writing the finding to stdout");
		return 0;
	}
	fp = fopen(path, "w");
	if (!fp)
		return error_errno(err, "-o %s", path);
	if (fwrite(text->buf, 1, text->len, fp) != text->len)
		return error_errno(err, "writing %s", path);
	if (fclose(steal_pointer(&fp)) != 0)
		return error_errno(err, "writing %s", path);
	return 0;
}

static int analyze(const struct analyze_args *args, struct error *err)
{
	struct finding acc, one;
	struct archive_input arch = { 0 };
	struct finding_context ctx = { 0 };
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	int ret = -1;

	finding_init(&acc);
	manifest_init(&arch.manifest);
	/* Every input must be there before any work: a missing one is exit 5. */
	for (size_t i = 0; i < args->logs.n; i++) {
		if (strcmp(args->logs.v[i], "-") != 0 && access(args->logs.v[i], R_OK) < 0) {
			error_errno(err, "--log %s", args->logs.v[i]);
			goto out;
		}
	}
	for (size_t i = 0; i < args->logs.n; i++) {
		if (classify_file(args->logs.v[i], &one, err) < 0)
			goto out;
		finding_merge(&acc, &one);
		finding_release(&one);
	}
	if (args->archive) {
		if (load_archive(&arch, args->archive, &acc, err) < 0)
			goto out;
		ctx.archive_name = base_name(arch.pid_dir);
		ctx.manifest = arch.have_manifest ? &arch.manifest : NULL;
		ctx.manifest_path = arch.manifest_path;
		ctx.archive_format_version = arch.format_version;
	}
	finding_finalize(&acc, &ctx);
	if (args->json) {
		cleanup_cjson cJSON *j = finding_to_json(&acc, &ctx);
		cleanup_free char *s = cJSON_Print(j);

		strbuf_addstr(&text, s);
		strbuf_addch(&text, '\n');
	} else {
		finding_render_markdown(&acc, &ctx, &text);
	}
	ret = write_output(args->output, &text, err);
out:
	archive_input_release(&arch);
	finding_release(&acc);
	return ret;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_args args = { .logs = STRVEC_INIT };
	struct error err = { 0 };
	int code;

	if (parse_args(&args, argc, argv, &err) < 0) {
		fprintf(stderr, "hrr-docker-replay: %s\n", err.msg);
		strvec_clear(&args.logs);
		return EXIT_USAGE;
	}
	if (args.help) {
		fputs(cmd_analyze_usage, stdout);
		strvec_clear(&args.logs);
		return 0;
	}
	if (analyze(&args, &err) < 0) {
		fprintf(stderr, "hrr-docker-replay: %s\n", err.msg);
		code = err.kind == ERR_USAGE ? EXIT_USAGE : EXIT_NO_VERDICT;
	} else {
		code = 0;
	}
	strvec_clear(&args.logs);
	return code;
}
