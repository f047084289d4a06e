/* End to end, each real variant the simulator prints (format= in the
 * fixture's sim-scenario; docs/formats.md, "Variants the classifier
 * handles"): the run's finding.json has the verdict and the field the
 * variant used to lose, and is valid UTF-8. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"

struct variant_case {
	const char *fixture;
	int code;
	const char *outcome;
	const char *fault_class;
	const char *kernel_prefix; /* NULL: the finding must name no kernel */
	const char *field;         /* one more field to check ("md": finding.md), or NULL */
	const char *value;         /* its value: a string, or a number printed %g */
};

static const struct variant_case cases[] = {
	/* The fault lands on the launch line: a MAF in that launch's kernel. */
	{ "maf-spliced", 1, "MAF", "illegal_memory_access", "Cijk_", "fault_reason",
	  "Page not present or supervisor privilege" },
	/* Reason: after another thread's line. */
	{ "maf-reason-next-line", 1, "MAF", "read_only_page_fault", "rms_norm_kernel", "fault_reason",
	  "Write access to a read-only page" },
	{ "maf-nil-address", 1, "MAF", "illegal_memory_access", "Cijk_", "fault_address", "0x0" },
	{ "maf-color", 1, "MAF", "illegal_memory_access", "Cijk_", "fault_reason",
	  "Page not present or supervisor privilege" },
	{ "maf-long-line", 1, "MAF", "illegal_memory_access", "Cijk_", "fault_address",
	  "0x7f0040001000" },
	{ "maf-utf8-name", 1, "MAF", "illegal_memory_access", "k\xc3\xa9", NULL, NULL },
	/* Killed while writing the bracket's kernel name: no kernel from it. */
	{ "maf-cut-name", 1, "MAF", "illegal_memory_access", NULL, "replay_signal", "9" },
	{ "maf-cut-number", 1, "MAF", "illegal_memory_access", NULL, "fault_address",
	  "0x7f91da000000" },
	{ "d2h-fail-newer-summary", 1, "FAIL", "nan_inf_divergence", NULL, "d2h_attempted", "10" },
	/* The reader's no-trailer line in the replay log (finding.md shows it). */
	{ "incomplete", 0, "PASS", "replay_pass", NULL, "md", "| Recovered | 11 events |" },
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))
static size_t case_index[N_CASES];

ParameterizedTestParameters(run_variants, every_variant)
{
	for (size_t i = 0; i < N_CASES; i++)
		case_index[i] = i;
	return cr_make_param_array(size_t, case_index, N_CASES);
}

static void check_field(const struct variant_case *c, const cJSON *f)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, c->field);
	char num[64];

	cr_assert_not_null(v, "%s: no %s", c->fixture, c->field);
	if (cJSON_IsNumber(v)) {
		snprintf(num, sizeof(num), "%g", v->valuedouble);
		cr_assert_str_eq(num, c->value, "%s: %s", c->fixture, c->field);
	} else {
		cr_assert(cJSON_IsString(v), "%s: %s is null", c->fixture, c->field);
		cr_assert_str_eq(v->valuestring, c->value, "%s: %s", c->fixture, c->field);
	}
}

/* No colour code and no invalid byte anywhere in the file. */
static void check_text(const struct variant_case *c, const char *run_dir)
{
	cleanup_free char *path = xasprintf("%s/finding.json", run_dir);
	struct strbuf sb = STRBUF_INIT;

	cr_assert(read_text(path, &sb), "%s", path);
	cr_assert(text_is_utf8(sb.buf, sb.len), "%s: finding.json is not valid UTF-8", c->fixture);
	cr_assert_null(strstr(sb.buf, "\\u001b"), "%s: a colour code in finding.json", c->fixture);
	strbuf_release(&sb);
}

ParameterizedTest(size_t *index, run_variants, every_variant, .init = tenv_init,
		  .fini = tenv_fini, .timeout = 120)
{
	const struct variant_case *c = &cases[*index];
	struct tool_run r;
	cleanup_cjson cJSON *f = run_fixture_finding(&r, c->fixture, "20", c->code);

	assert_finding_verdict(f, c->fixture, c->outcome, c->fault_class, c->kernel_prefix);
	if (c->field && !strcmp(c->field, "md")) {
		cleanup_free char *md = xasprintf("%s/finding.md", r.run_dir);
		struct strbuf sb = STRBUF_INIT;

		cr_assert(read_text(md, &sb));
		cr_assert(strstr(sb.buf, c->value), "%s: finding.md lacks %s", c->fixture, c->value);
		strbuf_release(&sb);
	} else if (c->field) {
		check_field(c, f);
	}
	check_text(c, r.run_dir);
	tool_run_release(&r);
}
