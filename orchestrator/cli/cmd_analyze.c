/* `hrr-docker-replay analyze --log FILE [--log FILE...] [--archive PATH]
 * [--format markdown|json] [-o PATH]`: the same rules as a run, applied to
 * logs that already exist (this tool's replay.log, the shell workflow's
 * log, `hrr-playback --info` output). */
#include "orchestrator/cli/cmd_analyze.h"
#include "orchestrator/cli/term_events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "common/fsutil.h"
#include "common/sandbox.h"
#include "orchestrator/cli/cmd_json.h"
#include "orchestrator/cli/cmd_known.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/finding_json.h"
#include "orchestrator/finding/signature.h"
#include "common/say.h"
#include "orchestrator/replay/replay_unit.h"
#include "preflight/manifest.h"

const char cmd_analyze_usage[] =
	"Usage: hrr-docker-replay analyze --log FILE [--log FILE...] [--archive PATH]\n"
	"                                 [--format markdown|json] [-o PATH]\n\n"
	"Classifies existing replay logs with the same rules as a run: this tool's\n"
	"replay.log, the shell workflow's log, `hrr-playback --info` output. With\n"
	"--archive, the capture's manifest.json adds archive health and capture\n"
	"metadata. Several logs merge in order: an UNKNOWN input (--info output) never\n"
	"changes the verdict, a later verdict replaces an earlier one, but a PASS\n"
	"never replaces a failure (docs/findings.md, \"Merging several inputs\").\n"
	"Exit: 0 finding written, 5 an input is missing or unreadable, 64 usage error.\n";

/* Stream one input through a classifier: memory stays bounded whatever its
 * size. Runs inside the sandbox: the descriptor was opened outside. */
static int classify_fd(int in, const char *path, struct finding *out, struct error *err)
{
	struct classifier *c = classifier_new(strcmp(path, "-") ? path : "(stdin)");
	char *buf = xmalloc(64 * 1024);

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

/* What the parent reads of the archive: paths, the manifest's bytes (parsed
 * in the sandbox), the events.bin header check. */
struct archive_input {
	char *pid_dir;
	char *manifest_path;
	struct strbuf manifest_text;
	bool have_manifest_text;
	char manifest_error[ERROR_MSG_MAX];
	unsigned format_version;
	char events_error[ERROR_MSG_MAX];
};

static void archive_input_release(struct archive_input *a)
{
	free(a->pid_dir);
	free(a->manifest_path);
	strbuf_release(&a->manifest_text);
}

/* The archive must exist and be a capture; a missing or broken manifest
 * only costs the capture metadata, which a note says. */
static int load_archive(struct archive_input *a, const char *path, struct error *err)
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
	if (fs_read_small_file(a->manifest_path, MANIFEST_MAX_BYTES, &a->manifest_text, &merr) == 0)
		a->have_manifest_text = true;
	else
		snprintf(a->manifest_error, sizeof(a->manifest_error), "%s", merr.msg);
	if (archive_check_events(a->pid_dir, &a->format_version, &merr) < 0) {
		a->format_version = 0;
		snprintf(a->events_error, sizeof(a->events_error), "%s", merr.msg);
	}
	return 0;
}

/* stdout always; -o as well, written atomically (the one meaning of -o
 * for every command, docs/cli.md). */
static int write_output(const char *path, const struct strbuf *text, struct error *err)
{
	if (fwrite(text->buf, 1, text->len, stdout) != text->len || fflush(stdout) != 0)
		return error_errno(err, "writing the finding to stdout");
	if (path && fs_write_atomic(path, text->buf, text->len, 0644, err) < 0)
		return error_prefix(err, "-o: ");
	return 0;
}

static bool is_failure(enum finding_outcome o)
{
	return o != OUTCOME_PASS && o != OUTCOME_UNKNOWN;
}

/* The merge rule of analyze (docs/findings.md, "Merging several inputs"):
 * fields fill gaps; a later verdict replaces an earlier one unless it is
 * UNKNOWN (it only adds evidence) or it is PASS after a failure: a failure
 * seen is a fact a later pass does not erase, so the failure stays the
 * verdict and a note names the input that passed. */
static void merge_input(struct finding *acc, const struct finding *one, const char *path)
{
	enum finding_outcome before = acc->outcome;
	enum finding_fault_class class_before = acc->fault_class;

	finding_merge(acc, one);
	if (!is_failure(before) || one->outcome != OUTCOME_PASS)
		return;
	acc->outcome = before;
	acc->fault_class = class_before;
	finding_add_note(acc, "%s passed after an earlier input's %s: the failure stays the verdict "
			 "(it did not recur there: intermittent?); analyze that log alone to judge it alone",
			 strcmp(path, "-") ? path : "(stdin)", finding_outcome_name(before));
}

struct analyze_job {
	const struct options *args;
	struct archive_input *arch;   /* NULL without --archive */
	const struct known_issues *known; /* --known-issues, read before the sandbox; NULL: none */
};

/* --known-issues: the rule that matches the finding. The logs say
 * nothing of where they ran: a rule naming an image, GPU or host does not
 * match here; the case is --archive's pid directory as given. */
static void match_known(const struct analyze_job *job, const struct finding *f,
			struct finding_context *ctx)
{
	struct signature sig;

	if (!job->known)
		return;
	signature_init(&sig);
	signature_of_finding(&sig, f);
	ctx->known_checked = true;
	ctx->known = known_issues_match(job->known,
					&(struct known_subject){
						.sig = &sig,
						.case_name = job->arch ? job->arch->pid_dir : NULL },
					(long long)time(NULL));
	signature_release(&sig);
}

/* The archive's part of the finding: the manifest parsed here, in the
 * sandbox, and the notes of what could not be read. */
static void add_archive(struct analyze_job *job, struct finding *acc, struct manifest *m,
			struct finding_context *ctx)
{
	struct archive_input *a = job->arch;
	struct error merr;

	ctx->archive_name = base_name(a->pid_dir);
	ctx->manifest_path = a->manifest_path;
	ctx->archive_format_version = a->format_version;
	if (a->have_manifest_text &&
	    manifest_parse(m, a->manifest_text.buf, a->manifest_text.len, &merr) == 0)
		ctx->manifest = m;
	else if (a->have_manifest_text)
		finding_add_note(acc, "archive manifest not used: %s/%s", a->pid_dir, merr.msg);
	else
		finding_add_note(acc, "archive manifest not used: %s", a->manifest_error);
	if (a->events_error[0])
		finding_add_note(acc, "archive events.bin not read: %s", a->events_error);
}

/* Everything that parses untrusted bytes (the logs, the manifest), under the
 * parser sandbox (common/sandbox.h): the finding's text goes to out_fd. */
static int analyze_sandboxed(const int *in_fds, size_t n, int out_fd, void *ud)
{
	struct analyze_job *job = ud;
	const struct options *args = job->args;
	struct finding acc, one;
	struct manifest m;
	struct finding_context ctx = { 0 };
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct error err;
	int ret = -1;

	finding_init(&acc);
	manifest_init(&m);
	for (size_t i = 0; i < n; i++) {
		if (classify_fd(in_fds[i], args->logs.v[i], &one, &err) < 0) {
			say_error("%s", err.msg);
			goto out;
		}
		merge_input(&acc, &one, args->logs.v[i]);
		finding_release(&one);
	}
	if (job->arch)
		add_archive(job, &acc, &m, &ctx);
	finding_finalize(&acc, &ctx);
	match_known(job, &acc, &ctx);
	if (args->format == FORMAT_JSON) {
		cleanup_cjson cJSON *f = finding_to_json(&acc, &ctx);
		cleanup_cjson cJSON *j = cmd_json_finding(f, EXIT_PASS);
		cleanup_free char *s = cmd_json_text(j);

		strbuf_addstr(&text, s);
	} else {
		finding_render_markdown(&acc, &ctx, &text);
	}
	ret = fs_write_all(out_fd, text.buf, text.len);
out:
	manifest_release(&m);
	finding_release(&acc);
	return ret;
}

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] > STDERR_FILENO)
			close(fds[i]);
	free(fds);
}

/* Open every input (a missing one is exit 5, before any work), then parse
 * them in the sandbox and write what came back. */
/* *stage: where it stopped, for --format json (the archive's or the input's). */
static int analyze(const struct options *args, enum replay_stage *stage, struct error *err)
{
	struct archive_input arch = { .manifest_text = STRBUF_INIT };
	struct analyze_job job = { .args = args, .arch = args->archive ? &arch : NULL };
	struct known_issues known = { 0 };
	bool have_known = false;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	int *fds = xcalloc(args->logs.n + 1, sizeof(*fds));
	size_t n = 0;
	int ret = -1;

	if (args->sweep.known_issues) {
		if (cmd_known_load(args->sweep.known_issues, KNOWN_NAMED, &known, &have_known,
				   err) < 0) {
			*stage = REPLAY_STAGE_USAGE;
			goto out;
		}
		job.known = &known;
	}

	for (; n < args->logs.n; n++) {
		const char *path = args->logs.v[n];

		fds[n] = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) : STDIN_FILENO;
		if (fds[n] < 0) {
			error_errno(err, "--log %s", path);
			goto out;
		}
	}
	if (args->archive && load_archive(&arch, args->archive, err) < 0) {
		*stage = REPLAY_STAGE_ARCHIVE;
		goto out;
	}
	if (sandbox_run_fds(analyze_sandboxed, &job, fds, n, &text, err) < 0) {
		error_prefix(err, "analyzing the logs: ");
		goto out;
	}
	ret = write_output(args->output, &text, err);
out:
	close_fds(fds, n);
	archive_input_release(&arch);
	known_issues_release(&known);
	return ret;
}

int analyze_command(struct options *o)
{
	struct error err = { 0 };
	struct replay_failure f;
	enum replay_stage stage = REPLAY_STAGE_INPUT;
	int code;

	if (analyze(o, &stage, &err) == 0)
		return 0;
	code = replay_fail(&f, term_events(), err.kind == ERR_USAGE ? REPLAY_STAGE_USAGE : stage,
			   err.kind == ERR_USAGE ? EXIT_USAGE : EXIT_NO_VERDICT, "%s", err.msg);
	if (o->format == FORMAT_JSON) {
		cleanup_cjson cJSON *j = cmd_json_no_finding(code, &f, NULL);
		cleanup_free char *text = cmd_json_text(j);
		cleanup_strbuf struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, text);
		if (write_output(o->output, &sb, &err) < 0)
			say_error("%s", err.msg);
	}
	return code;
}

int cmd_analyze(int argc, char **argv)
{
	extern char **environ;
	struct options o;
	struct error err;
	char **full = xcalloc((size_t)argc + 2, sizeof(char *));
	int n = 0, code;

	/* The option table wants argv[0] = the program, then the command. */
	full[n++] = "hrr-docker-replay";
	if (argc > 0 && strcmp(argv[0], "analyze") != 0)
		argv++, argc--;
	for (int i = 0; i < argc; i++)
		full[n++] = argv[i];
	options_init(&o);
	if (options_parse(&o, n, full, NULL, NULL, environ, &err) < 0) {
		code = cmd_usage_error(n, full, err.msg);
	} else if (o.want_help) {
		struct strbuf help = STRBUF_INIT;

		options_help(CMD_ANALYZE, &help);
		fputs(help.buf, stdout);
		strbuf_release(&help);
		code = 0;
	} else {
		code = analyze_command(&o);
	}
	options_release(&o);
	free(full);
	return code;
}
