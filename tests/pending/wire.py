import sys
root=sys.argv[1]
def edit(path, pairs):
    p=root+'/'+path
    s=open(p).read()
    for old,new in pairs:
        if new in s: continue
        assert old in s, (path, old[:60])
        s=s.replace(old,new,1)
    open(p,'w').write(s)

edit('orchestrator/options.h', [
 ('#include "orchestrator/image.h"\n', '#include "orchestrator/image.h"\n#include "orchestrator/sweep_options.h"\n'),
 ('\tCMD_VERSION,\n};', '\tCMD_VERSION,\n\tCMD_SWEEP,\n\tCMD_HISTORY,\n};'),
 ('\tstruct strvec hip_hrr_env;', '\tstruct sweep_options sweep; /* sweep and history; --gpu-wait for run too */\n\tstruct strvec hip_hrr_env;'),
])
edit('orchestrator/options_table.h', [
 ('\tOPT_LOG,\n};', '\tOPT_LOG,\n\t/* sweep, history, leases: applied by orchestrator/sweep_options.c */\n\tOPT_PLAN,\n\tOPT_LABEL,\n\tOPT_BASELINE,\n\tOPT_GPUS,\n\tOPT_JOBS,\n\tOPT_RETRY_FAILED,\n\tOPT_GPU_WAIT,\n\tOPT_DB,\n\tOPT_JUNIT,\n\tOPT_HTML,\n\tOPT_SUMMARY,\n\tOPT_RESUME,\n\tOPT_STATUS,\n\tOPT_SHARD,\n\tOPT_FAIL_ON,\n\tOPT_CASE,\n\tOPT_LAST,\n\tOPT_KEEP_LAST,\n};'),
 ('#define FOR_ANALYZE (1u << CMD_ANALYZE)\n', '#define FOR_ANALYZE (1u << CMD_ANALYZE)\n#define FOR_SWEEP (1u << CMD_SWEEP)\n#define FOR_HISTORY (1u << CMD_HISTORY)\n'),
 ('extern const size_t option_table_size;\n', 'extern const size_t option_table_size;\n\n/* Whether cmd takes d: a sweep takes every run option but --gpu and -o\n * (each case gets them), plus its own. */\nbool option_applies(const struct option_def *d, enum command cmd);\n'),
 ('#include <stddef.h>\n', '#include <stdbool.h>\n#include <stddef.h>\n'),
])
edit('orchestrator/options.c', [
 ('''	{ OPT_ALL, "all", 0, NULL, NULL, FOR_GC,''', '''	{ OPT_GPU_WAIT, "gpu-wait", 0, "S", NULL, FOR_RUN | FOR_SWEEP,
	  "give up after S seconds when the GPU is held by another run (default: wait; 0 = do not)" },
	{ OPT_PLAN, "plan", 0, "FILE", NULL, FOR_SWEEP,
	  "cases listed in a JSON plan ({\\"cases\\": [...]}; repeatable)" },
	{ OPT_LABEL, "label", 0, "L", NULL, FOR_SWEEP | FOR_HISTORY,
	  "the series of sweeps (default \\"default\\"); statuses compare with its previous one" },
	{ OPT_BASELINE, "baseline", 0, "SWEEP", NULL, FOR_SWEEP,
	  "compare against this sweep instead of the label's previous one" },
	{ OPT_GPUS, "gpus", 0, "LIST", NULL, FOR_SWEEP,
	  "host GPU ordinals the sweep may use (default all)" },
	{ OPT_JOBS, "jobs", 0, "N", NULL, FOR_SWEEP,
	  "at most N cases at once (default: as many as the GPUs allow)" },
	{ OPT_RETRY_FAILED, "retry-failed", 0, "N", NULL, FOR_SWEEP,
	  "rerun a non-PASS case up to N times; one that then passes is flaky" },
	{ OPT_DB, "db", 0, "PATH", "HRR_HISTORY_DB", FOR_SWEEP | FOR_HISTORY,
	  "history database (default $XDG_DATA_HOME/hrr-docker-replay/history.sqlite)" },
	{ OPT_JUNIT, "junit", 0, "PATH", NULL, FOR_SWEEP, "also write junit.xml to PATH" },
	{ OPT_HTML, "html", 0, "PATH", NULL, FOR_SWEEP, "also write report.html to PATH" },
	{ OPT_SUMMARY, "summary", 0, "PATH", NULL, FOR_SWEEP, "also write summary.md to PATH" },
	{ OPT_RESUME, "resume", 0, "SWEEP", NULL, FOR_SWEEP,
	  "finish a sweep (id or folder): its cases without a result, and errors" },
	{ OPT_STATUS, "status", 0, "SWEEP", NULL, FOR_SWEEP, "say how far a sweep got" },
	{ OPT_SHARD, "shard", 0, "I/N", NULL, FOR_SWEEP,
	  "run only shard I of N of the remaining cases (one task of a job array)" },
	{ OPT_FAIL_ON, "fail-on", 0, "LIST", NULL, FOR_SWEEP,
	  "more statuses that make the exit code 1 (e.g. new,flaky)" },
	{ OPT_CASE, "case", 0, "NAME", NULL, FOR_HISTORY, "one case's trend" },
	{ OPT_LAST, "last", 0, "N", NULL, FOR_HISTORY, "the last N sweeps (default 10)" },
	{ OPT_KEEP_LAST, "keep-last", 0, "N", NULL, FOR_HISTORY,
	  "prune: keep the last N sweeps of each label (or of --label); also --keep N" },
	{ OPT_ALL, "all", 0, NULL, NULL, FOR_GC,'''),
 ('''	{ OPT_FORMAT, "format", 0, "markdown|json", NULL, FOR_REPLAY | FOR_ANALYZE,''', '''	{ OPT_FORMAT, "format", 0, "markdown|json", NULL, FOR_REPLAY | FOR_ANALYZE | FOR_HISTORY,'''),
 ('''	{ OPT_QUIET, "quiet", 'q', NULL, NULL, FOR_ALL,''', '''	{ OPT_QUIET, "quiet", 'q', NULL, NULL, FOR_ALL | FOR_SWEEP,'''),
 ('''	{ OPT_VERBOSE, "verbose", 'v', NULL, NULL, FOR_ALL, "more verbose" },''', '''	{ OPT_VERBOSE, "verbose", 'v', NULL, NULL, FOR_ALL | FOR_SWEEP, "more verbose" },'''),
 ('''	{ OPT_VERSION, "version", 0, NULL, NULL, FOR_ALL, "print the version and exit" },
	{ OPT_HELP, "help", 'h', NULL, NULL, FOR_ALL, "print this help and exit" },''', '''	{ OPT_VERSION, "version", 0, NULL, NULL, FOR_ALL, "print the version and exit" },
	{ OPT_HELP, "help", 'h', NULL, NULL, FOR_ALL | FOR_SWEEP | FOR_HISTORY,
	  "print this help and exit" },'''),
 ('\tstrvec_init(&o->hip_hrr_env);\n}', '\tstrvec_init(&o->hip_hrr_env);\n\tsweep_options_init(&o->sweep);\n}'),
 ('\tstrvec_clear(&o->hip_hrr_env);\n\toptions_init(o);', '\tstrvec_clear(&o->hip_hrr_env);\n\tsweep_options_release(&o->sweep);\n\toptions_init(o);'),
 ('''		set_string(&o->image, val);
		return 0;''', '''		set_string(&o->image, val);
		strvec_push(&o->sweep.images, val); /* a sweep's images repeat */
		return 0;'''),
 ('''		set_string(&o->archive, val);
		return 0;''', '''		set_string(&o->archive, val);
		strvec_push(&o->sweep.archives, val);
		return 0;'''),
 ('''	case OPT_VERSION:
	case OPT_HELP:
		return 0;
	}''', '''	case OPT_VERSION:
	case OPT_HELP:
		return 0;
	default:
		return sweep_option_apply(&o->sweep, id, val, from, err);
	}'''),
 ('''		if (!(d->commands & (1u << o->command)))
			return error_set(err, ERR_USAGE, 0,''', '''		if (!option_applies(d, o->command) && o->command == CMD_SWEEP &&
		    (d->id == OPT_GPU || d->id == OPT_OUTPUT))
			return error_set(err, ERR_USAGE, 0, d->id == OPT_GPU
					 ? "a sweep takes no --gpu: give its GPU pool with --gpus LIST"
					 : "a sweep takes no -o: use --summary, --junit or --html");
		if (!option_applies(d, o->command))
			return error_set(err, ERR_USAGE, 0,'''),
 ('''		if (!d->env || seen[i] || !env || !(d->commands & (1u << o->command)))''', '''		if (!d->env || seen[i] || !env || !option_applies(d, o->command))'''),
 ('''static const char *command_name(enum command cmd)''', '''bool option_applies(const struct option_def *d, enum command cmd)
{
	if (cmd == CMD_SWEEP && (d->commands & FOR_RUN))
		return d->id != OPT_GPU && d->id != OPT_OUTPUT;
	return (d->commands & (1u << cmd)) != 0;
}

static const char *command_name(enum command cmd)'''),
 ('''		o->command = cmd->id;
		first = 2;
	}''', '''		o->command = cmd->id;
		first = 2;
		if (cmd->id == CMD_HISTORY && argc > 2 && !strcmp(argv[2], "prune")) {
			o->sweep.prune = true;
			first = 3;
			/* `history prune --keep N` (docs/sweep.md); --keep is also
			 * run's flag, so the table spells this one --keep-last. */
			for (int i = first; i < argc; i++)
				if (!strcmp(argv[i], "--keep"))
					argv[i] = (char *)"--keep-last";
		}
	}'''),
 ('''	if (o->command == CMD_RUN || o->command == CMD_PREFLIGHT) {
		if (!o->image)''', '''	if (o->command == CMD_SWEEP || o->command == CMD_HISTORY)
		return sweep_options_validate(&o->sweep, o->command == CMD_HISTORY, err);
	if (o->command == CMD_RUN || o->command == CMD_PREFLIGHT) {
		if (!o->image)'''),
])
edit('orchestrator/options_help.c', [
 ('''	unsigned mask = 1u << (cmd == CMD_HELP || cmd == CMD_VERSION ? CMD_RUN : cmd);''', '''	enum command shown = cmd == CMD_HELP || cmd == CMD_VERSION ? CMD_RUN : cmd;'''),
 ('''	case CMD_GC:
		strbuf_addstr(out,''', '''	case CMD_SWEEP:
		strbuf_addstr(out,
			"Usage: hrr-docker-replay sweep [--image REF]... [--archive PATH]... [--plan FILE]\\n"
			"                               [sweep options] [run options]\\n"
			"       hrr-docker-replay sweep --resume SWEEP [--workdir DIR]\\n"
			"       hrr-docker-replay sweep --status SWEEP [--workdir DIR]\\n\\n"
			"Replays every case (a pid directory in an image) on disjoint GPUs, each\\n"
			"image pinned to its ID once, records the results in the sweep folder\\n"
			"(<workdir>/sweeps/<id>) and the history database, compares them with the\\n"
			"label's previous sweep and writes summary.md, summary.json, junit.xml and\\n"
			"report.html. Every run option applies to every case. See docs/sweep.md.\\n"
			"Exit: 1 a case regressed, changed or is missing; 5 an infrastructure error\\n"
			"or interrupted; 75 busy GPUs let nothing run; 64 usage error; else 0.\\n\\n"
			"Options (sweep and run):\\n");
		break;
	case CMD_HISTORY:
		strbuf_addstr(out,
			"Usage: hrr-docker-replay history [--label L] [--case NAME] [--last N]\\n"
			"                                 [--format markdown|json] [--db PATH]\\n"
			"       hrr-docker-replay history prune --keep-last N [--label L] [--db PATH]\\n\\n"
			"The outcomes of the last sweeps per case, from the history database;\\n"
			"prune removes all but the last N sweeps of each label (or of --label)\\n"
			"from the database and their folders from disk.\\n"
			"Exit: 0, 5 the database cannot be read, 64 usage error.\\n\\nOptions:\\n");
		break;
	case CMD_GC:
		strbuf_addstr(out,'''),
 ('''		if (!(d->commands & mask))
			continue;''', '''		if (!option_applies(d, shown))
			continue;'''),
 ('''	if (cmd == CMD_GC || cmd == CMD_ANALYZE)
		return;''', '''	if (cmd == CMD_GC || cmd == CMD_ANALYZE || cmd == CMD_HISTORY)
		return;
	if (cmd == CMD_SWEEP) {
		strbuf_addstr(out, "\\nEnvironment: HRR_LOCK_DIR (GPU lease directory, default "
				   "/run/lock/hrr-docker-replay), XDG_DATA_HOME,\\n"
				   "HRR_DOCKER_IMAGE (the image without --image), and those of run.\\n");
		return;
	}'''),
])
edit('orchestrator/commands.h', [
 ('int gc_command(struct options *o);        /* cmd_gc.c */\n', 'int gc_command(struct options *o);        /* cmd_gc.c */\nint sweep_command(struct options *o);     /* cmd_sweep.c */\nint history_command(struct options *o);   /* cmd_history.c */\n'),
])
edit('orchestrator/commands.c', [
 ('''	{ "gc", CMD_GC,''', '''	{ "sweep", CMD_SWEEP, "replay many captures in many images: history, JUnit, a report",
	  sweep_command },
	{ "history", CMD_HISTORY, "what past sweeps said per case; prune old sweeps", history_command },
	{ "gc", CMD_GC,'''),
])
edit('orchestrator/cmd_run.c', [
 ('#include "orchestrator/commands.h"\n', '#include "orchestrator/commands.h"\n#include "orchestrator/run_lease.h"\n'),
 ("""	struct replay_unit_result res;
	int code;

	cmd_describe(env, i, &d);
	code = replay_unit_run(&env->host, &d, &res);""", """	struct replay_unit_result res;
	struct run_lease lease;
	int code;

	/* The GPUs are ours alone for the replay (docs/sweep.md "GPU leases"). */
	if ((code = run_lease_take(env, i, &lease)))
		return code;
	cmd_describe(env, i, &d);
	if (lease.n) {
		d.gpus = lease.gpus;
		d.n_gpus = lease.n;
	}
	code = replay_unit_run(&env->host, &d, &res);
	run_lease_release(&lease);"""),
])
print("wired")
