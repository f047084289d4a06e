/* orchestrator/diagnosis/diag_mi: GDB/MI records and ROCgdb transcripts. The samples in
 * tests/fuzz/corpus/diag_mi/ (also the fuzzer's seeds) are in ROCgdb's
 * formats: manual_examples.txt holds the manual's -agent-info, -queue-info
 * and -dispatch-info examples (one record a line, as GDB prints them;
 * queue_id and the blanks after commas as the manual spells them),
 * mi_session.txt an --interpreter=mi3 session, transcript_cli.txt a batch
 * run with `interpreter-exec mi3` and the human tables. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "orchestrator/diagnosis/diag_mi.h"
#include "tests/support/diag_samples.h"

static void parse_record(const char *line, struct mi_record *rec)
{
	struct error err = { 0 };

	cr_assert_eq(mi_parse_record(line, strlen(line), rec, &err), 0, "%s: %s", line, err.msg);
}

static void parse_fails(const char *line, const char *why)
{
	struct mi_record rec;
	struct error err = { 0 };

	cr_assert_lt(mi_parse_record(line, strlen(line), &rec, &err), 0, "%s", why);
	cr_assert_neq(err.msg[0], '\0');
}

static void parse_sample(const char *name, struct diag_mi_result *r)
{
	size_t len;
	char *buf = diag_sample("diag_mi", name, &len);

	diag_mi_result_init(r);
	diag_mi_parse(r, buf, len);
	free(buf);
}

Test(diag_mi, a_result_record_has_token_class_tuples_and_lists)
{
	struct mi_record rec;
	const struct mi_value *agents, *a;

	parse_record("12^done,agents=[{id=\"1.1\",state=\"A\",name=\"vega20\"},{id=\"1.2\"}],"
		     "current-agent-id=\"1.1\"", &rec);
	cr_assert_eq(rec.type, MI_RESULT);
	cr_assert_eq(rec.token, 12);
	cr_assert_str_eq(rec.cls, "done");
	agents = mi_get(rec.results, "agents");
	cr_assert_eq(agents->kind, MI_LIST);
	cr_assert_eq(agents->n, 2);
	a = agents->items[0];
	cr_assert_eq(a->kind, MI_TUPLE);
	cr_assert_str_eq(mi_get_str(a, "name"), "vega20");
	cr_assert_null(mi_get_str(agents->items[1], "name"));
	cr_assert_str_eq(mi_get_str(rec.results, "current-agent-id"), "1.1");
	mi_record_release(&rec);
}

Test(diag_mi, c_strings_decode_their_escapes)
{
	struct mi_record rec;

	parse_record("~\"a\\\"b\\\\c\\n\\t\\101\\033[0m\\q\"", &rec);
	cr_assert_eq(rec.type, MI_CONSOLE);
	cr_assert_eq(rec.token, -1);
	cr_assert_null(rec.cls);
	cr_assert_str_eq(rec.stream, "a\"b\\c\n\tA\033[0mq");
	mi_record_release(&rec);
	parse_record("&\"nul\\000inside\"", &rec);
	cr_assert_eq(rec.stream_len, 10, "an octal NUL is a byte of the string");
	mi_record_release(&rec);
}

Test(diag_mi, async_records_and_lists_of_results)
{
	struct mi_record rec;
	const struct mi_value *stack;

	parse_record("*stopped,reason=\"signal-received\",frame={addr=\"0x1\",func=\"??\",args=[]},"
		     "thread-id=\"1\"", &rec);
	cr_assert_eq(rec.type, MI_EXEC_ASYNC);
	cr_assert_str_eq(rec.cls, "stopped");
	cr_assert_eq(mi_get(mi_get(rec.results, "frame"), "args")->n, 0);
	mi_record_release(&rec);
	parse_record("^done,stack=[frame={level=\"0\"},frame={level=\"1\"}],x=[\"a\",\"b\"]", &rec);
	stack = mi_get(rec.results, "stack");
	cr_assert_eq(stack->n, 2);
	cr_assert_str_eq(stack->items[1]->name, "frame");
	cr_assert_str_eq(mi_get_str(stack->items[1], "level"), "1");
	cr_assert_str_eq(mi_get(rec.results, "x")->items[1]->str, "b");
	mi_record_release(&rec);
}

Test(diag_mi, malformed_records_fail_with_a_message)
{
	char deep[200] = "^done,a=";

	parse_fails("^done,msg=\"unterminated", "an unterminated c-string");
	parse_fails("^done,msg", "a variable without a value");
	parse_fails("^done,a={b=\"1\"", "an unclosed tuple");
	parse_fails("^done,a=[\"1\" \"2\"]", "a list without commas");
	parse_fails("^done,a=\"1\"junk", "trailing bytes");
	parse_fails("(gdb)", "a prompt is no record");
	for (int i = 0; i < 40; i++)
		strcat(deep, "[");
	parse_fails(deep, "nesting past the depth limit");
	cr_assert(!mi_is_record("(gdb)", 5));
	cr_assert(mi_is_record("7^done", 6));
}

Test(diag_mi, the_manual_examples_give_agents_queues_and_dispatches)
{
	struct diag_mi_result r;

	parse_sample("manual_examples.txt", &r);
	cr_assert_eq(r.bad_records, 0);
	cr_assert_eq(r.n_agents, 2);
	cr_assert_str_eq(r.agents[1].target_id, "AMDGPU Agent (GPUID 39113)");
	cr_assert_str_eq(r.agents[0].architecture, "gfx906");
	cr_assert_eq(r.n_queues, 2);
	cr_assert_str_eq(r.queues[1].type, "DMA");
	cr_assert_null(r.queues[1].read, "a DMA queue has no read/write ids");
	cr_assert_eq(r.n_dispatches, 1);
	cr_assert_str_eq(r.dispatches[0].queue_id, "1.1");
	cr_assert_str_eq(r.dispatches[0].grid, "[1024,1,1]");
	cr_assert_str_eq(r.dispatches[0].kernel_function, "0x00007ffde7e01000");
	cr_assert_str_eq(r.dispatches[0].kernel,
			 "bit_extract_kernel(unsigned int*, unsigned int const*, unsigned long)");
	cr_assert_str_eq(r.dispatches[0].kernel_from, "wave");
	diag_mi_result_release(&r);
}

Test(diag_mi, an_mi_session_names_kernels_from_the_console_table)
{
	struct diag_mi_result r;

	parse_sample("mi_session.txt", &r);
	cr_assert_eq(r.bad_records, 0);
	cr_assert_eq(r.n_dispatches, 2);
	cr_assert_str_eq(r.dispatches[0].kernel,
			 "void at::native::index_kernel_impl<at::native::OpaqueType<8> >"
			 "(at::TensorIteratorBase&)",
			 "a table row split across two console records");
	cr_assert_str_eq(r.dispatches[0].kernel_from, "info dispatches");
	cr_assert_str_eq(r.dispatches[1].kernel, "\"quoted\\tname\"");
	cr_assert_str_eq(r.dispatches[1].workgroup, "[64,1,1]");
	cr_assert(r.detached);
	cr_assert_null(r.first_error);
	diag_mi_result_release(&r);
}

Test(diag_mi, a_batch_transcript_mixes_mi_records_and_tables)
{
	struct diag_mi_result r;

	parse_sample("transcript_cli.txt", &r);
	cr_assert_eq(r.bad_records, 0);
	cr_assert_eq(r.n_agents, 1);
	cr_assert_eq(r.n_queues, 1);
	cr_assert_eq(r.n_dispatches, 1);
	cr_assert_eq(r.n_waves, 1);
	cr_assert_str_eq(r.dispatches[0].target_id, "AMDGPU Dispatch 1:2:7 (PKID 6)");
	cr_assert_str_eq(r.dispatches[0].kernel,
			 "void at::native::index_kernel_impl<at::native::OpaqueType<8>>(at::TensorIteratorBase&)");
	cr_assert_eq(r.n_table, 1);
	cr_assert_str_eq(r.table_kernel[0], r.dispatches[0].kernel);
	cr_assert(r.detached);
	diag_mi_result_release(&r);
}

Test(diag_mi, an_attach_denial_is_the_first_error)
{
	struct diag_mi_result r;
	const char *mi = "^error,msg=\"ptrace: Operation not permitted.\"\n";

	parse_sample("attach_denied.txt", &r);
	cr_assert_str_eq(r.first_error, "ptrace: Operation not permitted.");
	cr_assert(r.no_dispatches);
	cr_assert_eq(r.n_dispatches, 0);
	diag_mi_result_release(&r);
	diag_mi_result_init(&r);
	diag_mi_parse(&r, mi, strlen(mi));
	cr_assert_str_eq(r.first_error, "ptrace: Operation not permitted.");
	diag_mi_result_release(&r);
}

Test(diag_mi, the_human_table_alone_gives_the_dispatches)
{
	struct diag_mi_result r;
	const char *out =
		"  Id   Target Id                      Grid      Workgroup Fence   Kernel Function\n"
		"* 1    AMDGPU Dispatch 1:1:1 (PKID 0) [256,1,1] [64,1,1]  B|Aa|Ra bit_extract_kernel(unsigned int*)\n"
		"\n(gdb) ";

	diag_mi_result_init(&r);
	diag_mi_parse(&r, out, strlen(out));
	cr_assert_eq(r.n_dispatches, 1);
	cr_assert_str_eq(r.dispatches[0].target_id, "AMDGPU Dispatch 1:1:1 (PKID 0)");
	cr_assert_str_eq(r.dispatches[0].kernel, "bit_extract_kernel(unsigned int*)");
	diag_mi_result_release(&r);
}

Test(diag_mi, dispatch_keys_join_waves_to_their_dispatch)
{
	char key[32];

	cr_assert(diag_mi_dispatch_key("AMDGPU Dispatch 1:2:3 (PKID 0)", key, sizeof(key)));
	cr_assert_str_eq(key, "1:2:3");
	cr_assert(diag_mi_dispatch_key("AMDGPU Wave 1:2:3:4 (0,0,0)/0", key, sizeof(key)));
	cr_assert_str_eq(key, "1:2:3");
	cr_assert(!diag_mi_dispatch_key("AMDGPU Queue 1:2 (QID 0)", key, sizeof(key)));
	cr_assert(!diag_mi_dispatch_key(NULL, key, sizeof(key)));
	cr_assert(!diag_mi_dispatch_key("AMDGPU Wave 1:2:?:1 (?,?,?)/?", key, sizeof(key)),
		  "a wave of an unknown dispatch belongs to none");
}

Test(diag_mi, entities_past_the_cap_are_counted_and_long_records_skipped)
{
	struct strbuf s = STRBUF_INIT;
	struct diag_mi_result r;

	strbuf_addstr(&s, "^done,agents=[");
	for (int i = 0; i < DIAG_MI_MAX_ENTITIES + 5; i++)
		strbuf_addf(&s, "%s{id=\"1.%d\"}", i ? "," : "", i);
	strbuf_addstr(&s, "]\n^done,queues=[{id=\"");
	for (int i = 0; i < DIAG_MI_LINE_MAX; i++)
		strbuf_addch(&s, 'q');
	strbuf_addstr(&s, "\"}]\n");
	diag_mi_result_init(&r);
	diag_mi_parse(&r, s.buf, s.len);
	cr_assert_eq(r.n_agents, DIAG_MI_MAX_ENTITIES);
	cr_assert_eq(r.dropped, 5);
	cr_assert_eq(r.n_queues, 0);
	cr_assert_eq(r.bad_records, 1);
	diag_mi_result_release(&r);
	strbuf_release(&s);
}

/* Issue 29: a record listing a dispatch in flight or a thread proves the
 * attach as much as *stopped does; an empty list or an error proves nothing. */
Test(diag_mi, a_dispatch_or_a_thread_in_a_record_proves_the_attach)
{
	static const char *const proves[] = {
		"^done,dispatches=[{id=\"1\",target-id=\"AMDGPU Dispatch 1:1:1 (PKID 0)\","
		"grid=\"[256,1,1]\",workgroup=\"[64,1,1]\",kernel-function=\"k\"}]\n",
		"^done,threads=[{id=\"2\",target-id=\"AMDGPU Wave 1:1:1:1 (0,0,0)/0\"}]\n",
		"=thread-created,id=\"3\",group-id=\"i1\"\n",
		"  Id   Target Id                      Grid      Workgroup Fence   Kernel Function\n"
		"* 1    AMDGPU Dispatch 1:1:1 (PKID 0) [256,1,1] [64,1,1]  B|Aa|Ra k(int*)\n",
	};
	static const char *const not_proof[] = {
		"^done,dispatches=[]\n",
		"^done,threads=[]\n",
		"^error,msg=\"ptrace: Operation not permitted.\"\n",
		"No dispatches are currently active.\n",
	};
	struct diag_mi_result r;

	for (size_t i = 0; i < sizeof(proves) / sizeof(proves[0]); i++) {
		diag_mi_result_init(&r);
		diag_mi_parse(&r, proves[i], strlen(proves[i]));
		cr_assert(r.attached, "%s", proves[i]);
		diag_mi_result_release(&r);
	}
	for (size_t i = 0; i < sizeof(not_proof) / sizeof(not_proof[0]); i++) {
		diag_mi_result_init(&r);
		diag_mi_parse(&r, not_proof[i], strlen(not_proof[i]));
		cr_assert(!r.attached, "%s", not_proof[i]);
		diag_mi_result_release(&r);
	}
}
