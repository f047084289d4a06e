/* The simulator's calls into its debug tools (see sim_debug.h). */
#include "sim_debug.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_report.h"
#include "sim_state.h"

static unsigned long long last_ordinal;

/* HSA_TOOLS_LIB names the agent and it loads; HRR_SIM_AGENT=unloadable
 * plays an agent the loader could not load (a missing dependency). */
static int agent_loaded(void)
{
	const char *g = getenv("HRR_SIM_AGENT");

	return agent_report_enabled(getenv("HSA_TOOLS_LIB"), getenv("LD_LIBRARY_PATH")) &&
	       !(g && !strcmp(g, "unloadable"));
}
static volatile sig_atomic_t quit_pending;
static const char *hung_kernel;

void sim_debug_launch(const char *kernel, const char *grid, const char *workgroup,
		      unsigned long long ordinal)
{
	struct sim_state st;

	sim_state_defaults(&st);
	st.pid = (long)getpid();
	sim_state_copy(st.kernel, sizeof(st.kernel), kernel ? kernel : "");
	sim_state_copy(st.grid, sizeof(st.grid), grid ? grid : "[1,1,1]");
	sim_state_copy(st.workgroup, sizeof(st.workgroup), workgroup ? workgroup : "[1,1,1]");
	st.dispatch = ordinal + 1;
	st.packet = ordinal;
	st.kernel_entry = 0x7f20f5e41000ull + (ordinal % 16) * 0x100000ull;
	last_ordinal = ordinal;
	(void)sim_state_write(sim_state_path(), &st); /* best effort */
}

int sim_debug_fault(FILE *out, const char *kernel, const char *reason, const char *event,
		    const char *faulting_page)
{
	struct agent_report r = { 0 };
	char dir[4096], page[32];

	if (!agent_loaded())
		return 0;
	r.generation = agent_report_generation(getenv("HRR_SIM_AGENT"));
	r.reason = reason ? reason : "MEMORY_VIOLATION";
	r.kernel = kernel && *kernel ? kernel : NULL;
	r.pid = (long)getpid();
	r.wave_id = 27876 + last_ordinal;
	r.load_base = 0x7f20f5e40000ull + (last_ordinal % 16) * 0x100000ull;
	r.faulting_page = faulting_page;
	r.event = event;
	if (!r.event)
		r.event = strstr(r.reason, "ASSERT_TRAP")
				  ? "Queue error (HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation "
				    "resulted in a hardware exception.)"
				  : "System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT: page not present "
				    "or supervisor privilege, write access to a read-only page)";
	if (r.generation == AGENT_OLD && faulting_page) {
		snprintf(page, sizeof(page), "0x%llx", strtoull(faulting_page, NULL, 16) & ~0xfffull);
		r.faulting_page = page;
		if (!event && !strstr(r.reason, "ASSERT_TRAP"))
			r.event = "System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT)";
	}
	agent_report_print(out, &r);
	if (r.generation == AGENT_OLD) {
		/* Its handler runs before ROCr's and ends the process. */
		fflush(NULL);
		signal(SIGABRT, SIG_DFL);
		abort();
	}
	if (agent_report_save_dir(getenv("ROCM_DEBUG_AGENT_OPTIONS"), dir, sizeof(dir)) == 0 &&
	    agent_report_save(dir, &r) < 0)
		fprintf(out, "rocm-debug-agent: warning: could not save code object to %s\n", dir);
	fflush(out);
	return 1;
}

static void on_quit(int sig)
{
	(void)sig;
	quit_pending = 1;
}

void sim_debug_hang(const char *kernel)
{
	struct sigaction sa;

	if (!agent_loaded())
		return;
	hung_kernel = kernel;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGQUIT, &sa, NULL);
}

void sim_debug_quit_dump(FILE *out)
{
	struct agent_report r = { 0 };

	if (!quit_pending)
		return;
	quit_pending = 0;
	r.generation = agent_report_generation(getenv("HRR_SIM_AGENT"));
	r.kernel = hung_kernel && *hung_kernel ? hung_kernel : NULL;
	r.pid = (long)getpid();
	r.load_base = 0x7f20f5e40000ull + (last_ordinal % 16) * 0x100000ull;
	/* Every wave of the hung dispatch, still running. */
	for (int i = 0; i < 2; i++) {
		r.wave_id = 27876 + last_ordinal + (unsigned long long)i;
		agent_report_print(out, &r);
	}
	fflush(out);
}
