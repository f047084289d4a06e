# The simulator image's debug tools (images/sim-tools): a rocgdb and an
# llvm-objdump stand-in, built like the simulator (static, no sanitizers,
# they run FROM scratch), and the librocm-debug-agent.so.2 placeholder.
# The simulator will build images/sim-tools/sim_debug.c and agent_report.c
# into itself (sim_debug.h: two calls); the unit tests link them too and
# check that the wave report parses with orchestrator/diagnosis/diag_agent.
SIM_TOOLS_DIR = $(BUILD)/sim-tools
SIM_TOOLS = $(SIM_TOOLS_DIR)/rocgdb $(SIM_TOOLS_DIR)/llvm-objdump \
            $(SIM_TOOLS_DIR)/librocm-debug-agent.so.2
SIM_TOOLS_CFLAGS = -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -static

all: $(SIM_TOOLS)

$(SIM_TOOLS_DIR)/rocgdb: images/sim-tools/rocgdb.c images/sim-tools/rocgdb_info.c \
                         images/sim-tools/rocgdb.h images/sim-tools/sim_state.h
	@mkdir -p $(dir $@)
	$(CC) $(SIM_TOOLS_CFLAGS) -o $@ images/sim-tools/rocgdb.c images/sim-tools/rocgdb_info.c

$(SIM_TOOLS_DIR)/llvm-objdump: images/sim-tools/llvm_objdump.c
	@mkdir -p $(dir $@)
	$(CC) $(SIM_TOOLS_CFLAGS) -o $@ $<

$(SIM_TOOLS_DIR)/librocm-debug-agent.so.2: images/sim-tools/librocm-debug-agent.so.2
	@mkdir -p $(dir $@)
	cp $< $@

# The unit tests run this build's rocgdb and llvm-objdump against a child
# process (tests/unit/test_diag_sim_tools.c), and link the simulator's
# side (agent_report.c, sim_debug.c).
$(UNIT): $(BUILD)/obj/images/sim-tools/agent_report.o $(BUILD)/obj/images/sim-tools/sim_debug.o \
         | $(SIM_TOOLS)

# The simulator prints the agent's report and writes the state rocgdb reads
# (images/sim/replay.c calls sim_debug.h): it links these two as well.
SIM_SRC += images/sim-tools/sim_debug.c images/sim-tools/agent_report.c
$(SIM): images/sim-tools/sim_debug.c images/sim-tools/agent_report.c \
        $(wildcard images/sim-tools/*.h)

# images/build.sh stages $(BUILD)/sim-tools for the images that COPY them
# (images/sim-debug): build them before the images.
images: $(SIM_TOOLS)
