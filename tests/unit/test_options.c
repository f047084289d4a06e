#include <criterion/criterion.h>
#include <string.h>

#include "orchestrator/cli/cmd_json.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/cli/options_table.h"

struct fake_env {
	const char *const *kv; /* "K", "V", ..., NULL */
};

static const char *lookup(const char *name, void *ud)
{
	struct fake_env *e = ud;

	for (const char *const *p = e ? e->kv : NULL; p && *p; p += 2)
		if (!strcmp(p[0], name))
			return p[1];
	return NULL;
}

static int parse(struct options *o, struct error *err, const char *const *kv, char **envp,
		 int argc, char **argv)
{
	struct fake_env env = { kv };

	options_init(o);
	return options_parse(o, argc, argv, lookup, &env, envp, err);
}

#define ARGV(...) ((char *[]){ "hrr-docker-replay", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "x", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, err, kv, envp, ...) parse(o, err, kv, envp, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

Test(options, defaults_match_cli_md)
{
	struct options o;
	struct error err;

	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "--image", "img:1", "--archive", "/a"), 0);
	cr_assert_eq(o.command, CMD_RUN);
	cr_assert_str_eq(o.image, "img:1");
	cr_assert_eq(o.timeout_s, 1800);
	cr_assert_eq(o.stop_grace_s, 10);
	cr_assert_eq(o.progress_seconds, 30);
	cr_assert_eq(o.progress_timeout_s, 0);
	cr_assert_eq(o.pull, PULL_MISSING);
	cr_assert_eq(o.devices, DEVICES_AUTO);
	cr_assert_eq(o.format, FORMAT_MARKDOWN);
	cr_assert_str_eq(o.device_root, "/dev");
	cr_assert_str_eq(o.sysfs_root, "/sys");
	cr_assert_eq(o.n_gpus, 0);
	options_release(&o);
}

Test(options, run_subcommand_is_the_same)
{
	struct options o;
	struct error err;

	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "run", "--image", "i", "--archive", "/a",
			   "--gpu", "1,3", "--format", "json", "-e", "A=B", "-e", "C=D=E",
			   "--cap-add", "SYS_PTRACE", "-q"), 0);
	cr_assert_eq(o.n_gpus, 2);
	cr_assert_eq(o.gpus[0], 1);
	cr_assert_eq(o.gpus[1], 3);
	cr_assert_eq(o.format, FORMAT_JSON);
	cr_assert_eq(o.env.n, 2);
	cr_assert_str_eq(o.env.v[1], "C=D=E");
	cr_assert_str_eq(o.cap_add.v[0], "SYS_PTRACE");
	cr_assert_eq(o.verbosity, -1);
	options_release(&o);
}

Test(options, env_twins_fill_and_flags_win)
{
	static const char *const kv[] = { "HRR_DOCKER_IMAGE", "envimg", "HRR_REPLAY_TIMEOUT", "60",
					  "GPU", "2", "HRR_CONTINUE", "1", "HRR_SKIP_COMPAT", "0",
					  "HRR_DOCKER_EXTRA_LD", "/x/lib:/y/lib", "HRR_DOCKER_MOUNT_CLR",
					  "1", "CLR_LIB", "/clr", "HRR_DEVICES", "nodes", NULL };
	char *envp[] = { "HIP_HRR_D2H_EXACT=1", "PATH=/bin", "HIP_HRR_X=2", NULL };
	struct options o;
	struct error err;

	cr_assert_eq(PARSE(&o, &err, kv, envp, "--archive", "/a", "--timeout", "5"), 0);
	cr_assert_str_eq(o.image, "envimg");
	cr_assert_eq(o.timeout_s, 5, "the flag wins over HRR_REPLAY_TIMEOUT");
	cr_assert_eq(o.n_gpus, 1);
	cr_assert_eq(o.gpus[0], 2);
	cr_assert(o.yes);
	cr_assert_not(o.skip_preflight);
	cr_assert(o.mount_clr);
	cr_assert_str_eq(o.clr_lib, "/clr");
	cr_assert_eq(o.devices, DEVICES_NODES, "HRR_DEVICES");
	cr_assert_eq(o.extra_ld.n, 2);
	cr_assert_str_eq(o.extra_ld.v[1], "/y/lib");
	cr_assert_eq(o.hip_hrr_env.n, 2);
	cr_assert_str_eq(o.hip_hrr_env.v[0], "HIP_HRR_D2H_EXACT=1");
	options_release(&o);
}

Test(options, usage_errors_name_the_input)
{
	static const struct {
		const char *argv[8];
		const char *needle;
	} cases[] = {
		{ { "--archive", "/a", NULL }, "--image is required" },
		{ { "--image", "i", NULL }, "--archive is required" },
		{ { "--image", "i", "--archive", "/a", "--timeout", "-1", NULL }, "--timeout" },
		{ { "--image", "i", "--archive", "/a", "--timeout", "abc", NULL }, "'abc'" },
		{ { "--image", "i", "--archive", "/a", "--gpu", "0,,1", NULL }, "--gpu" },
		{ { "--image", "i", "--archive", "/a", "--gpu", "1,1", NULL }, "twice" },
		{ { "--image", "i", "--archive", "/a", "--pull", "sometimes", NULL }, "pull policy" },
		{ { "--image", "i", "--archive", "/a", "--format", "xml", NULL }, "markdown or json" },
		{ { "--image", "i", "--archive", "/a", "--devices", "all", NULL }, "--devices: 'all' is not a device mode; use nodes, cdi or auto" },
		{ { "--image", "i", "--archive", "/a", "--bogus", NULL }, "unknown option '--bogus'" },
		{ { "--image", "i", "--archive", "/a", "-e", "NOEQUALS", NULL }, "K=V" },
		{ { "--image", "i", "--archive", "/a", "--playback", "rel/path", NULL }, "absolute" },
		{ { "--image", "i", "--archive", "/a", "--progress-timeout", "10", NULL }, "heartbeat" },
		{ { "--image", "i", "--archive", "/a", "stray", NULL }, "unexpected argument 'stray'" },
		{ { "--image", NULL }, "needs a value" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[10] = { "hrr-docker-replay" };
		int argc = 1;
		struct options o;
		struct error err;

		for (int j = 0; cases[i].argv[j]; j++)
			argv[argc++] = (char *)cases[i].argv[j];
		options_init(&o);
		cr_assert_eq(options_parse(&o, argc, argv, lookup, NULL, NULL, &err), -1,
			     "case %zu parsed", i);
		cr_assert_eq(err.kind, ERR_USAGE);
		cr_assert(strstr(err.msg, cases[i].needle), "case %zu: '%s' lacks '%s'", i, err.msg,
			  cases[i].needle);
		cr_assert_null(strchr(err.msg, '\n'), "one line");
		options_release(&o);
	}
}

Test(options, bad_env_value_names_the_variable)
{
	static const char *const kv[] = { "HRR_CONTINUE", "maybe", NULL };
	struct options o;
	struct error err;

	cr_assert_eq(PARSE(&o, &err, kv, NULL, "--image", "i", "--archive", "/a"), -1);
	cr_assert(strstr(err.msg, "HRR_CONTINUE"), "%s", err.msg);
	options_release(&o);
}

Test(options, subcommands_and_help)
{
	struct options o;
	struct error err;
	struct strbuf help = STRBUF_INIT;

	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "gc", "--all"), 0);
	cr_assert_eq(o.command, CMD_GC);
	cr_assert(o.gc_all);
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "gc", "--image", "x"), -1);
	cr_assert(strstr(err.msg, "does not apply"));
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "preflight", "--help"), 0);
	cr_assert(o.want_help);
	cr_assert_eq(o.command, CMD_PREFLIGHT);
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "frobnicate"), -1);
	cr_assert(strstr(err.msg, "unknown command 'frobnicate'"));
	{
		size_t n;
		const struct command_def *t = command_table(&n);

		/* The list comes from the command table: none is left out. */
		for (size_t i = 0; i < n; i++)
			if (t[i].run)
				cr_assert(strstr(err.msg, t[i].name), "%s lacks %s", err.msg, t[i].name);
		cr_assert(strstr(err.msg, "bisect, history or gc"), "%s", err.msg);
	}
	options_release(&o);

	options_help(CMD_RUN, &help);
	/* Every option and env twin of docs/cli.md appears in --help. */
	static const char *const must[] = {
		"--image", "--archive", "--workdir", "--output", "--format", "--gpu", "--pull",
		"--timeout", "--progress-timeout", "--stop-grace", "--progress-seconds",
		"--no-sync", "--mount-clr", "--playback", "--extra-ld", "--env", "--cap-add",
		"--yes", "--skip-preflight", "--strict-version", "--strict-arch", "--keep",
		"--devices", "HRR_DEVICES", "--device-root", "--sysfs-root", "--quiet", "--verbose", "--version", "--help",
		"HRR_DOCKER_IMAGE", "HRR_TRIAGE_WORKDIR", "[GPU]", "HRR_REPLAY_TIMEOUT",
		"HIP_HRR_REPLAY_PROGRESS_SECONDS", "HRR_DOCKER_MOUNT_CLR=1", "HRR_DOCKER_PLAYBACK",
		"HRR_DOCKER_EXTRA_LD", "HRR_CONTINUE=1", "HRR_SKIP_COMPAT=1",
		"HRR_STRICT_VERSION=1", "HRR_STRICT_ARCH=1", "HRR_DEVICE_ROOT", "HRR_SYSFS_ROOT",
		"HRR_PLAYBACK", "CLR_LIB", "CLR_BUILD", "ROCR_LIB", "DOCKER_HOST", "DOCKER_CONFIG",
		"DOCKER_API_VERSION", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "64  usage error",
	};
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		cr_assert(strstr(help.buf, must[i]), "--help lacks %s", must[i]);
	strbuf_release(&help);
}

Test(options, booleans)
{
	cr_assert_eq(options_parse_bool("1"), 1);
	cr_assert_eq(options_parse_bool("TRUE"), 1);
	cr_assert_eq(options_parse_bool("0"), 0);
	cr_assert_eq(options_parse_bool(""), 0);
	cr_assert_eq(options_parse_bool("2"), -1);
}

Test(options, a_usage_error_from_the_environment_names_the_variable)
{
	static const char *const kv[] = { "GPU", "x", NULL };
	static const char *const timeout[] = { "HRR_REPLAY_TIMEOUT", "soon", NULL };
	struct options o;
	struct error err;

	cr_assert_eq(PARSE(&o, &err, kv, NULL, "--image", "i", "--archive", "/a"), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, "GPU=x"), "%s", err.msg);
	cr_assert(strstr(err.msg, "environment"), "%s", err.msg);
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, timeout, NULL, "--image", "i", "--archive", "/a"), -1);
	cr_assert(strstr(err.msg, "HRR_REPLAY_TIMEOUT"), "%s", err.msg);
	options_release(&o);
}

Test(options, a_gpu_from_the_environment_remembers_where_it_came_from)
{
	static const char *const kv[] = { "GPU", "1", NULL };
	struct options o;
	struct error err;

	cr_assert_eq(PARSE(&o, &err, kv, NULL, "--image", "i", "--archive", "/a"), 0);
	cr_assert_str_eq(o.gpus_from, "GPU");
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, kv, NULL, "--image", "i", "--archive", "/a", "--gpu", "0"), 0);
	cr_assert_str_eq(o.gpus_from, "--gpu", "the flag wins");
	options_release(&o);
}

Test(options, env_twins_of_other_commands_do_not_break_gc)
{
	static const char *const kv[] = { "GPU", "not-a-list", NULL };
	struct options o;
	struct error err;

	cr_assert_eq(PARSE(&o, &err, kv, NULL, "gc"), 0, "%s", err.msg);
	cr_assert_eq(o.command, CMD_GC);
	options_release(&o);
}

Test(options, analyze_is_parsed_by_the_table)
{
	struct options o;
	struct error err;

	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "analyze", "--log", "a.log", "--log", "-",
			   "--format", "json", "-o", "out.json"), 0, "%s", err.msg);
	cr_assert_eq(o.command, CMD_ANALYZE);
	cr_assert_eq(o.logs.n, 2);
	cr_assert_str_eq(o.logs.v[1], "-");
	cr_assert_eq(o.format, FORMAT_JSON);
	cr_assert_str_eq(o.output, "out.json");
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "analyze", "--gpu", "0", "--log", "a"), -1);
	cr_assert(strstr(err.msg, "--gpu does not apply to 'analyze'"), "%s", err.msg);
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "analyze"), -1);
	cr_assert(strstr(err.msg, "--log FILE is required"), "%s", err.msg);
	options_release(&o);
}

Test(options, every_command_of_the_table_has_its_help)
{
	static const char *const names[] = { "run", "preflight", "analyze", "gc" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct options o;
		struct error err;
		struct strbuf help = STRBUF_INIT;

		cr_assert_eq(PARSE(&o, &err, NULL, NULL, (char *)names[i], "--help"), 0, "%s", names[i]);
		cr_assert(o.want_help);
		options_help(o.command, &help);
		cr_assert(strstr(help.buf, "Usage: hrr-docker-replay"), "%s", names[i]);
		if (i)
			cr_assert(strstr(help.buf, names[i]), "%s's help names it", names[i]);
		strbuf_release(&help);
		options_release(&o);
	}
}

/* --memory: sizes within what the engine and a long long hold. */
Test(options, memory_sizes_parse_within_bounds)
{
	static const struct { const char *in; long long want; } ok[] = {
		{ "512m", 512LL << 20 }, { "2G", 2LL << 30 }, { "6291456", 6291456 },
		{ "1024t", 1LL << 50 },
	};
	static const char *const bad[] = { "", "5m", "-1g", "+2g", "1x", "2gb", "1025t",
					   "99999999999999999999", "0" };
	struct error err;
	long long v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_assert_eq(options_parse_bytes("--memory", ok[i].in, &v, &err), 0, "%s", ok[i].in);
		cr_assert_eq(v, ok[i].want, "%s", ok[i].in);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_lt(options_parse_bytes("--memory", bad[i], &v, &err), 0, "%s", bad[i]);
}

Test(options, a_usage_error_knows_json_was_asked_without_a_parse)
{
	cr_assert(cmd_json_requested(ARGC("--format", "json"), ARGV("--format", "json")));
	cr_assert(cmd_json_requested(ARGC("run", "--format=json", "--bogus"),
				     ARGV("run", "--format=json", "--bogus")));
	cr_assert_not(cmd_json_requested(ARGC("--format", "json", "--format", "markdown"),
					 ARGV("--format", "json", "--format", "markdown")),
		      "the last --format wins");
	cr_assert_not(cmd_json_requested(ARGC("--image", "json"), ARGV("--image", "json")));
}

Test(options, diagnose_defaults_to_auto_and_takes_its_env_twin)
{
	struct options o;
	struct error err;
	const char *const env[] = { "HRR_DIAGNOSE", "hang", NULL };
	const char *const bad[] = { "HRR_DIAGNOSE", "rocgdb", NULL };

	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "--image", "i", "--archive", "/a"), 0);
	cr_assert_eq(o.diagnose, DIAGNOSE_AUTO);
	cr_assert_eq(o.diagnose_timeout_s, 90);
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, env, NULL, "--image", "i", "--archive", "/a"), 0);
	cr_assert_eq(o.diagnose, DIAGNOSE_HANG);
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, env, NULL, "--image", "i", "--archive", "/a", "--diagnose",
			   "off", "--diagnose-timeout", "3"), 0);
	cr_assert_eq(o.diagnose, DIAGNOSE_OFF, "the option beats its env twin");
	cr_assert_eq(o.diagnose_timeout_s, 3);
	options_release(&o);
	cr_assert_lt(PARSE(&o, &err, bad, NULL, "--image", "i", "--archive", "/a"), 0);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, "HRR_DIAGNOSE: 'rocgdb' is not a diagnose mode"), "%s", err.msg);
	options_release(&o);
}

/* --log-limit: 1 GiB by default, 0 = none, the env twin when not given,
 * a size like --memory's or a one-line error. */
Test(options, log_limit_default_zero_env_twin_and_bad_values)
{
	struct options o;
	struct error err;
	static const char *const env[] = { "HRR_LOG_LIMIT", "2g", NULL };

	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "--image", "i", "--archive", "/a"), 0, "%s", err.msg);
	cr_assert_eq(o.log_limit_bytes, 1LL << 30);
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "--image", "i", "--archive", "/a", "--log-limit", "0"),
		     0, "%s", err.msg);
	cr_assert_eq(o.log_limit_bytes, 0);
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, env, NULL, "--image", "i", "--archive", "/a"), 0, "%s", err.msg);
	cr_assert_eq(o.log_limit_bytes, 2LL << 30);
	options_release(&o);
	cr_assert_eq(PARSE(&o, &err, NULL, NULL, "--image", "i", "--archive", "/a", "--log-limit", "1k"),
		     -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, "--log-limit") && strstr(err.msg, "'1k'"), "%s", err.msg);
	options_release(&o);
}

/* The parser sizes its arrays by the ids (orchestrator/cli/option_ids.h): each id has
 * exactly one row in one slice, and no two rows share a name. */
Test(options, every_option_id_has_one_row_and_every_name_is_unique)
{
	cr_assert_eq(option_count(), (size_t)OPTION_ID_COUNT,
		     "%zu rows for %d ids: an id without a row, or two rows with one id",
		     option_count(), OPTION_ID_COUNT);
	for (int id = OPT_IMAGE; id < OPTION_ID_END; id++) {
		int rows = 0;

		for (size_t i = 0; i < option_count(); i++)
			rows += (int)option_at(i)->id == id;
		cr_expect_eq(rows, 1, "option id %d has %d rows", id, rows);
	}
	for (size_t i = 0; i < option_count(); i++)
		for (size_t j = i + 1; j < option_count(); j++)
			cr_expect_neq(strcmp(option_at(i)->name, option_at(j)->name), 0, "--%s twice",
				      option_at(i)->name);
	cr_assert_null(option_at(option_count()), "no row past the last");
}
