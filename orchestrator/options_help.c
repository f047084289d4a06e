/* --help of each command, generated from the option table so that the
 * help cannot drift from what is parsed. */
#include "orchestrator/options_table.h"
#include "orchestrator/commands.h"

#include <stdio.h>

void options_help(enum command cmd, struct strbuf *out)
{
	unsigned mask = 1u << (cmd == CMD_HELP || cmd == CMD_VERSION ? CMD_RUN : cmd);

	switch (cmd) {
	case CMD_PREFLIGHT:
		strbuf_addstr(out,
			"Usage: hrr-docker-replay preflight --image IMAGE --archive PATH [options]\n\n"
			"Checks whether the archive can replay faithfully in IMAGE on this host\n"
			"(GPU count, GPU ordinals, GPU architecture, HIP and comgr versions) and\n"
			"prints the report. Never asks, never replays. Takes every option of a\n"
			"run; those that do not apply are accepted and ignored.\n"
			"Exit: 0 OK or warnings only, 2 confirmation needed, 4 blocked,\n"
			"5 no verdict possible, 64 usage error.\n\nOptions:\n");
		break;
	case CMD_ANALYZE:
		strbuf_addstr(out,
			"Usage: hrr-docker-replay analyze --log FILE [--log FILE...] [--archive PATH]\n"
			"                                 [--format markdown|json] [-o PATH]\n\n"
			"Classifies existing replay logs with the same rules as a run: this tool's\n"
			"replay.log, the shell workflow's log, `hrr-playback --info` output. With\n"
			"--archive, the capture's manifest.json adds archive health and capture\n"
			"metadata. Several logs merge as docs/findings.md says (\"Merging\").\n"
			"Exit: 0 finding written, 5 an input is missing or unreadable, 64 usage error.\n\n"
			"Options:\n");
		break;
	case CMD_GC:
		strbuf_addstr(out,
			"Usage: hrr-docker-replay gc [--all]\n\n"
			"Removes replay containers left by runs that died: those whose owner label\n"
			"names this host and a process that no longer runs. Containers of runs on\n"
			"other hosts or still running are never touched; --keep containers only\n"
			"with --all. Also removes image probe containers (never started) older than\n"
			"HRR_GC_PROBE_AGE seconds (default 600).\n"
			"Exit: 0, or 5 when the engine does not answer.\n\nOptions:\n");
		break;
	default:
		strbuf_addstr(out,
			"Usage: hrr-docker-replay [run] --image IMAGE --archive PATH [options]\n"
			"       hrr-docker-replay preflight --image IMAGE --archive PATH [options]\n"
			"       hrr-docker-replay analyze --log FILE [--log FILE...] [--archive PATH]\n"
			"                                 [--format markdown|json] [-o PATH]\n"
			"       hrr-docker-replay gc [--all]\n\n"
			"Replays an HRR capture (HIP Record & Replay) with hrr-playback inside the\n"
			"container image it was captured in, on the chosen AMD GPU(s), through the\n"
			"Docker Engine API. Streams the replay log, stops a stalled replay, and\n"
			"writes a finding (PASS, MAF, FAIL, ABORT, HANG or UNKNOWN) into a run folder.\n\n"
			"Commands (hrr-docker-replay help <command> for each):\n");
		{
			size_t n;
			const struct command_def *c = command_table(&n);

			for (size_t i = 0; i < n; i++)
				strbuf_addf(out, "  %-10s %s\n", c[i].name, c[i].summary);
		}
		strbuf_addstr(out, "\nOptions of run (env twins in brackets; the flag wins):\n");
		break;
	}
	for (size_t i = 0; i < option_table_size; i++) {
		const struct option_def *d = &option_table[i];
		char left[64];

		if (!(d->commands & mask))
			continue;
		if (d->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->short_name, d->name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		strbuf_addf(out, "  %-32s %s", left, d->help);
		if (d->env)
			strbuf_addf(out, d->arg ? " [%s]" : " [%s=1]", d->env);
		strbuf_addch(out, '\n');
	}
	if (cmd == CMD_GC || cmd == CMD_ANALYZE)
		return;
	strbuf_addstr(out,
		"\nEnvironment only:\n"
		"  HRR_PLAYBACK, CLR_LIB, CLR_BUILD, ROCR_LIB, ROCM_PATH   overlay sources for --mount-clr\n"
		"  HIP_HRR_*                       passed into the replay container\n"
		"  DOCKER_HOST, DOCKER_CONFIG, DOCKER_API_VERSION, DOCKER_TLS_VERIFY,\n"
		"  DOCKER_CERT_PATH                the engine and registry credentials, as the docker CLI reads them\n"
		"  TMPDIR                          default workdir parent\n"
		"  HRR_GC_PROBE_AGE                gc: seconds after which an image probe container\n"
		"                                  is debris (default 600)\n"
		"\nExit codes:\n"
		"  0   the replay ran and the outcome is PASS\n"
		"  1   the replay ran and the outcome is not PASS (the finding says why)\n"
		"  2   preflight needs confirmation (re-run with --yes / HRR_CONTINUE=1)\n"
		"  3   the user declined at the confirmation prompt\n"
		"  4   preflight blocked the replay, or a requested GPU does not exist\n"
		"  5   no verdict: engine unreachable, image missing or pull failed, archive\n"
		"      missing or unreadable, hrr-playback not found, no AMD GPU, interrupted\n"
		"  64  usage error\n"
		"\nOutput: the finding on stdout at the end (markdown, or with --format json one\n"
		"JSON object on every path: the finding plus \"exit\", else {\"outcome\": null,\n"
		"\"exit\", \"stage\", \"error\", \"run_dir\"}); -o PATH also writes what stdout got,\n"
		"atomically, once every pid is done. A run folder exists from the preflight on:\n"
		"exits 2, 3, 4, and 5 from an interrupt or a failed create/start, have one;\n"
		"usage errors, a missing archive or image, no engine or no GPU have none.\n");
}
