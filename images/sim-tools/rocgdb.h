/* The simulator image's rocgdb stand-in: shared between its command loop
 * (rocgdb.c) and what it prints (rocgdb_info.c). */
#ifndef HRR_SIM_ROCGDB_H
#define HRR_SIM_ROCGDB_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_state.h"

/* A growable output buffer (the tools link nothing but libc). */
struct out {
	char *buf;
	size_t len, cap;
};

void out_addf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void out_reset(struct out *o);
/* s as a GDB/MI c-string, quotes included. */
void out_cstring(struct out *o, const char *s);

struct dbg {
	long pid;            /* the attached process, -1 when none */
	bool have_state;     /* the simulator's state is about this process */
	unsigned long long host_pc; /* the stopped host thread's pc, 0 unknown */
	/* HRR_SIM_ROCGDB=no-dispatch: attached to waves that already exist, as
	 * on a hung kernel: no dispatch record, the waves' dispatch and
	 * position unknown ("AMDGPU Wave 1:Q:?:1 (?,?,?)/?"). */
	bool waves_only;
	struct sim_state st;
};

/* Human `info agents|queues|dispatches|threads` and `bt`. */
void info_agents(const struct dbg *g, struct out *o);
void info_queues(const struct dbg *g, struct out *o);
void info_dispatches(const struct dbg *g, struct out *o);
void info_threads(const struct dbg *g, struct out *o);
void backtrace(const struct dbg *g, struct out *o, long limit);

/* The results of -agent-info, -queue-info, -dispatch-info, -thread-info
 * (after "^done"): ",agents=[...]" etc. */
void mi_agents(const struct dbg *g, struct out *o);
void mi_queues(const struct dbg *g, struct out *o);
void mi_dispatches(const struct dbg *g, struct out *o);
void mi_threads(const struct dbg *g, struct out *o);

#endif
