/* A read of many rows (history_read_begin, history_many_rows): every row in
 * order on both stores, across PostgreSQL's cursor batches, again after a
 * reset, and a statement left half-read does not stop the next. A read
 * inside a caller's transaction leaves it to its caller. */
#include <criterion/criterion.h>

#include "orchestrator/history/history_pg.h"
#include "orchestrator/history/history_query.h"
#include "orchestrator/history/history_sql.h"
#include "tests/support/history_backend.h"

/* 1..?1, in both dialects */
#define COUNT_SQL                                                                         \
	"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)"    \
	" SELECT i FROM n ORDER BY i"

/* Steps st to its end: the rows must be 1..want; returns how many came. */
static long read_all(struct history_stmt *st)
{
	long n = 0;
	int rc;

	while ((rc = history_step(st)) == HISTORY_ROW) {
		n++;
		cr_assert_eq(history_col_int64(st, 0), n, "row %ld in order", n);
	}
	cr_assert_eq(rc, HISTORY_DONE, "the end, not an error (%d)", rc);
	return n;
}

Test(history, many_rows_read_whole_in_order_across_batches)
{
	struct history_fixture f;
	struct history_stmt *st = NULL, *half = NULL;
	struct error err;

	history_fixture_open(&f, "history-read");
	cr_assert_eq(history_read_begin(f.db, &err), 0, "%s", err.msg);
	cr_assert_eq(history_sql_prepare(f.db, COUNT_SQL, &st, &err), 0, "%s", err.msg);
	cr_assert_eq(history_sql_prepare(f.db, COUNT_SQL, &half, &err), 0, "%s", err.msg);
	history_many_rows(st);
	history_many_rows(half);
	/* a batch and a half, then exactly two batches, then none */
	history_bind_int(st, 1, 3 * HISTORY_CURSOR_BATCH / 2 - 1);
	cr_assert_eq(read_all(st), 3 * HISTORY_CURSOR_BATCH / 2 - 1);
	history_reset(st);
	history_bind_int(st, 1, 2 * HISTORY_CURSOR_BATCH);
	cr_assert_eq(read_all(st), 2 * HISTORY_CURSOR_BATCH, "run again after a reset");
	history_reset(st);
	history_bind_int(st, 1, 0);
	cr_assert_eq(read_all(st), 1, "the recursion's first row only");
	/* one left after its first row, while another reads */
	history_bind_int(half, 1, 5000);
	cr_assert_eq(history_step(half), HISTORY_ROW);
	history_reset(st);
	history_bind_int(st, 1, 2500);
	cr_assert_eq(read_all(st), 2500, "beside a statement left half-read");
	if (history_backend_pg()) {
		struct history_stmt *cur = NULL;

		/* the server holds the rows, not this process */
		cr_assert_eq(history_sql_prepare(f.db,
						 "SELECT COUNT(*) FROM pg_cursors WHERE name LIKE 'hrr%'",
						 &cur, &err), 0, "%s", err.msg);
		cr_assert_eq(history_step(cur), HISTORY_ROW);
		cr_assert_eq(history_col_int64(cur, 0), 1,
			     "%lld open: the half-read statement's cursor, the others closed",
			     history_col_int64(cur, 0));
		history_finalize(cur);
	}
	cr_assert_eq(history_step(half), HISTORY_ROW);
	cr_assert_eq(history_col_int64(half, 0), 2, "the half-read one goes on where it was");
	/* to its end, across its batches */
	for (long want = 3; want <= 5000; want++) {
		cr_assert_eq(history_step(half), HISTORY_ROW, "row %ld", want);
		cr_assert_eq(history_col_int64(half, 0), want);
	}
	cr_assert_eq(history_step(half), HISTORY_DONE);
	history_finalize(half);
	history_finalize(st);
	history_read_end(f.db);
	/* the connection is usable after the read */
	cr_assert_eq(history_sql_prepare(f.db, COUNT_SQL, &st, &err), 0, "%s", err.msg);
	history_bind_int(st, 1, 10);
	cr_assert_eq(read_all(st), 10);
	history_finalize(st);
	history_fixture_close(&f);
}

Test(history, a_read_inside_a_callers_transaction_leaves_it_open)
{
	struct history_fixture f;
	struct error err;

	if (!history_backend_pg())
		cr_skip_test("a server's transaction: not on SQLite");
	history_fixture_open(&f, "history-read-nested");
	cr_assert_eq(history_sql_begin(f.db, &err), 0, "%s", err.msg);
	cr_assert_eq(history_read_begin(f.db, &err), 0, "%s", err.msg);
	history_read_end(f.db);
	cr_assert(history_pg_in_transaction(f.db), "the caller's transaction is still open");
	history_sql_rollback(f.db);
	cr_assert_not(history_pg_in_transaction(f.db));
	cr_assert_eq(history_read_begin(f.db, &err), 0, "%s", err.msg);
	cr_assert(history_pg_in_transaction(f.db), "a read of its own");
	history_read_end(f.db);
	cr_assert_not(history_pg_in_transaction(f.db), "ended by its end");
	history_fixture_close(&f);
}
