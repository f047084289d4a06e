/* bench_history: the history bench's helper (tests/bench/history.sh). Writes a
 * synthetic night of a capture library as a sweep folder (plan.json and
 * results.jsonl, what a sweep leaves; no engine, no replay) and imports it
 * into the history database the way a sweep's end does, timing the import.
 *
 *     bench_history night DB WORKDIR LABEL NIGHT CASES   import, print seconds
 *     bench_history folder WORKDIR LABEL CASES [NIGHT]   write only (night 0 unless given),
 *                                                        print the folder
 *     bench_history plan DB LABEL CASE                   EXPLAIN QUERY PLAN of `history`'s queries
 *     bench_history nights DB LABEL K                    read what a sweep's report compares
 *                                                        GPU times with (--perf-window K)
 *
 * The library: CASES cases in 40 families on one image whose ID changes
 * every 15 nights, 8 GPUs; about 3 % of the cases regress for a few nights,
 * 1 % of the results are flaky (a HANG, then a PASS), 0.2 % are blocked;
 * the wall time drifts a little each night. Each passing case carries
 * BENCH_HISTORY_PERF GPU-time samples (default 5; 0: none) on one GPU
 * product, as `sweep --perf N` records them; one case in 50 gets 10 %
 * slower with a new image ID. `plan DB LABEL -` adds the plans of the history
 * site's per-sweep nights statement and its one night's samples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sqlite3.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/history/history_perf.h"
#include "orchestrator/site/site_perf_gen.h"
#include "orchestrator/history/history_sql.h"
#include "orchestrator/sweep/sweep_folder.h"

#define NIGHT0 1764547200LL /* 2025-12-01 00:00 UTC */

static const char *const kernels[] = {
	"void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int)",
	"void rocblas_gemm_kernel<float, 64, 64>(rocblas_gemm_args)",
	"miopen::conv_fwd_implicit_gemm(float const*, float*)",
	"void reduce_kernel<512>(float*, int)",
};
static const char *const faults[] = { "page-fault", "illegal-instruction", "timeout" };

static unsigned mix(unsigned a, unsigned b)
{
	unsigned h = a * 2654435761u ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2));

	h ^= h >> 15;
	h *= 2246822519u;
	return h ^ (h >> 13);
}

static void result_line(struct strbuf *out, struct case_result *r)
{
	case_result_to_json(r, out);
	strbuf_addch(out, '\n');
}

static int perf_per_case = 5;

/* A passing case's samples: its own base time, a 1% wobble; one case in
 * 50 gets 10% slower from a new image on (night 15, 30, 45 or 60: the
 * image ID changes every 15 nights, make_meta), so the site's GPU-time
 * charts and index of changes have changes to show. */
static void perf_of(struct perf_samples *ps, size_t i, unsigned night)
{
	bool slower = mix((unsigned)i, 4242) % 50 == 0 &&
		      night >= 15 * (1 + mix((unsigned)i, 4243) % 4);

	perf_samples_release(ps);
	for (int k = 0; k < perf_per_case && k < PERF_RUNS_MAX; k++) {
		double base = (20.0 + (double)(i % 50)) * (slower ? 1.1 : 1.0);
		double ms = base * (1.0 + ((double)(mix((unsigned)i, night * 131u + (unsigned)k) % 200) -
					   100.0) / 10000.0);
		struct perf_sample x = { .kernel_ms = ms, .graph_ms = 0, .total_ms = ms,
					 .wall_ms = 400 + ms };

		perf_samples_add(ps, &x);
	}
}

static void night_results(const struct sweep_meta *m, unsigned night, struct strbuf *out)
{
	__attribute__((cleanup(perf_samples_release))) struct perf_samples ps = { 0 };

	for (size_t i = 0; i < m->plan.n; i++) {
		unsigned h = mix((unsigned)i, night), bad_from = mix((unsigned)i, 7777) % 400;
		bool broken = bad_from < 60 && night >= bad_from &&
			      night < bad_from + 1 + mix((unsigned)i, 99) % 8;
		struct case_result r = {
			.case_name = m->plan.cases[i].name, .image = m->images[0].ref,
			.image_id = m->images[0].id, .digest = (char *)"fnv1a64:0123456789abcdef",
			.archive = m->plan.cases[i].archive, .n_gpus = 1, .attempt = 1,
			.state = RESULT_DONE, .has_outcome = true, .outcome = OUTCOME_PASS,
			.d2h_checked = 4,
			.duration_s = 1.0 + (double)(i % 50) / 10 + night * 0.01 + (h % 100) / 500.0,
			.classifier_version = 1, .finished = m->started + 60 + (long long)i / 4,
		};
		char run_dir[64];

		snprintf(run_dir, sizeof(run_dir), "runs/%05zu", i);
		r.run_dir = run_dir;
		r.gpus[0] = (int)(i % 8);
		if (h % 1000 < 2) {
			r.state = RESULT_BLOCKED;
			r.has_outcome = false;
			r.message = (char *)"preflight: arch mismatch";
		} else if (broken) {
			r.outcome = OUTCOME_MAF;
			/* Names none of the finding's: kept as read. */
			r.has_class = true;
			r.class_other = (char *)faults[mix((unsigned)i, 5) % 3];
			r.kernel = (char *)kernels[mix((unsigned)i, 6) % 4];
		} else if (h % 100 == 0) {
			r.outcome = OUTCOME_HANG;
			result_line(out, &r);
			r.attempt = 2;
			r.outcome = OUTCOME_PASS;
		}
		r.gfx = (char *)"gfx942";
		r.device_id = 29857;
		if (perf_per_case > 0 && case_result_passed(&r)) {
			perf_of(&ps, i, night);
			r.perf = &ps;
		}
		result_line(out, &r);
	}
}

static void make_meta(struct sweep_meta *m, const char *label, unsigned night, size_t cases)
{
	char id[80];

	sweep_meta_init(m);
	m->label = xstrdup(label);
	m->host = xstrdup("bench-host");
	m->tool_version = xstrdup("bench");
	m->started = NIGHT0 + (long long)night * 86400;
	m->id = sweep_id_make(label, m->host, (time_t)m->started, mix(night, 1) & 0xffffff);
	m->run_options = xstrdup("{}");
	sweep_meta_add_image(m, "rocm:nightly");
	snprintf(id, sizeof(id), "sha256:%064x", night / 15 + 1);
	m->images[0].id = xstrdup(id);
	for (size_t i = 0; i < cases; i++) {
		struct sweep_case *c = sweep_plan_push(&m->plan);

		c->name = xasprintf("lib/fam-%02zu/case-%05zu/capture.hrr/pid-4242", i % 40, i);
		c->archive = xasprintf("/library/%s", c->name);
		c->image = xstrdup("rocm:nightly");
	}
}

static char *write_folder(const char *workdir, const char *label, unsigned night, size_t cases,
			  struct sweep_meta *m)
{
	cleanup_strbuf struct strbuf lines = STRBUF_INIT;
	cleanup_free char *results = NULL;
	char *folder = NULL;
	struct error err;

	make_meta(m, label, night, cases);
	night_results(m, night, &lines);
	if (sweep_folder_create(workdir, m->id, &folder, &err) < 0 ||
	    sweep_meta_write(m, folder, &err) < 0 ||
	    fs_write_atomic((results = xasprintf("%s/%s", folder, SWEEP_RESULTS_FILE)),
			    lines.buf, lines.len, 0644, &err) < 0) {
		fprintf(stderr, "bench_history: %s\n", err.msg);
		exit(1);
	}
	return folder;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What a sweep's end does with its folder: its results into the database. */
static int night(const char *dbpath, const char *workdir, const char *label, unsigned n,
		 size_t cases)
{
	struct sweep_meta m;
	cleanup_free char *folder = write_folder(workdir, label, n, cases, &m);
	struct sweep_meta back;
	struct sweep_results rs = { 0 };
	struct history_db *db;
	struct error err;
	bool rebuilt;
	double t0 = now();

	sweep_meta_init(&back);
	if (history_db_open(&db, dbpath, &err) < 0 || sweep_meta_read(&back, folder, &err) < 0 ||
	    sweep_results_load(folder, &rs, &err) < 0) {
		fprintf(stderr, "bench_history: %s\n", err.msg);
		return 1;
	}
	struct history_planned *planned = xcalloc(back.plan.n + 1, sizeof(*planned));
	for (size_t i = 0; i < back.plan.n; i++)
		planned[i] = (struct history_planned){ back.plan.cases[i].name,
						       back.plan.cases[i].image };
	struct history_sweep s = { .id = back.id, .label = back.label, .host = back.host,
				   .state = "finished", .options = "{}",
				   .tool_version = back.tool_version, .folder = folder,
				   .started = back.started, .finished = back.started + 3600 };
	int rc = history_db_import(db, &s, planned, back.plan.n, &rs, &rebuilt, &err);

	history_db_close(db);
	if (rc < 0) {
		fprintf(stderr, "bench_history: %s\n", err.msg);
		return 1;
	}
	printf("%.3f %zu\n", now() - t0, rs.n);
	free(planned);
	sweep_results_release(&rs);
	sweep_meta_release(&back);
	sweep_meta_release(&m);
	return 0;
}

static int plan_of(sqlite3 *h, const char *what, const char *query, const char *arg1,
		   const char *arg2, int arg3)
{
	sqlite3_stmt *st;
	cleanup_free char *sql = xasprintf("EXPLAIN QUERY PLAN %s", query);

	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "bench_history: %s\n", sqlite3_errmsg(h));
		return 1;
	}
	sqlite3_bind_text(st, 1, arg1, -1, SQLITE_STATIC);
	if (arg2)
		sqlite3_bind_text(st, 2, arg2, -1, SQLITE_STATIC);
	else if (arg3)
		sqlite3_bind_int(st, 2, arg3);
	printf("  %s:\n", what);
	while (sqlite3_step(st) == SQLITE_ROW)
		printf("    %s\n", (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	return 0;
}

/* history_db_trend's two queries: the last 10 sweeps, then each one's
 * results (for the case, or every case with "-"). */
static int plan(const char *dbpath, const char *label, const char *case_name)
{
	sqlite3 *h;
	int rc;

	if (sqlite3_open_v2(dbpath, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "bench_history: %s\n", sqlite3_errmsg(h));
		return 1;
	}
	rc = plan_of(h, "the sweeps", history_trend_sweeps_sql, label, NULL, 10) ||
	     plan_of(h, "each sweep's results", history_trend_results_sql, "-",
		     strcmp(case_name, "-") ? case_name : NULL, 0);
	/* `history site`'s GPU time: one sweep's nights in case order, and
	 * one night's samples for a U test. */
	if (rc == 0 && !strcmp(case_name, "-"))
		rc = plan_of(h, "the site's nights of one sweep", site_perf_sweep_sql, "-", NULL,
			     0) ||
		     plan_of(h, "one night's samples", site_perf_samples_sql, "-", "-", 0);
	sqlite3_close(h);
	return rc;
}

static int count_row(void *ctx, const struct history_perf_row *row)
{
	(void)row;
	++*(size_t *)ctx;
	return 0;
}

/* What the report of the label's next sweep reads of the nights before it
 * (orchestrator/jobs/sweep_model.c): window 1, the last sweep's samples;
 * K, the last K sweeps'. Prints seconds and samples read. */
static int nights(const char *dbpath, const char *label, int window)
{
	struct history_db *db;
	struct error err;
	cleanup_free char *last = NULL;
	size_t rows = 0;
	double t0 = now();
	struct history_perf_query q = { .newest_first = true, .last = window };
	int rc;

	if (history_db_open_readonly(&db, dbpath, &err) < 0 ||
	    history_db_previous(db, label, "next", &last, &err) < 0) {
		fprintf(stderr, "bench_history: %s\n", err.msg);
		return 1;
	}
	if (window <= 1) {
		q.sweep = last;
	} else {
		q.label = label;
		q.before = "next";
	}
	rc = history_perf_samples(db, &q, count_row, &rows, &err);
	history_db_close(db);
	if (rc < 0) {
		fprintf(stderr, "bench_history: %s\n", err.msg);
		return 1;
	}
	printf("%.3f %zu\n", now() - t0, rows);
	return 0;
}

int main(int argc, char **argv)
{
	const char *perf = getenv("BENCH_HISTORY_PERF");

	if (perf && *perf)
		perf_per_case = atoi(perf);
	if (argc == 7 && !strcmp(argv[1], "night"))
		return night(argv[2], argv[3], argv[4], (unsigned)atoi(argv[5]),
			     (size_t)atol(argv[6]));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "folder")) {
		struct sweep_meta m;
		unsigned n = argc == 6 ? (unsigned)atoi(argv[5]) : 0;
		cleanup_free char *f = write_folder(argv[2], argv[3], n, (size_t)atol(argv[4]), &m);

		printf("%s\n", f);
		sweep_meta_release(&m);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "plan"))
		return plan(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "nights"))
		return nights(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr, "usage: bench_history night DB WORKDIR LABEL NIGHT CASES | "
			"folder WORKDIR LABEL CASES [NIGHT] | plan DB LABEL CASE | nights DB LABEL K\n");
	return 64;
}
