# hrr-docker-replay. `make` builds; `make check` sets up what the tests need
# (packages, dockerd, loopback registries) and runs every test; `make demo`
# replays the bundled example. See README.md.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= cc
PKG_CONFIG ?= pkg-config
# Parallel compiles for the builds the test targets make.
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

STD_FLAGS = -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I.
CFLAGS  ?= -O2 -g
SAN_FLAGS ?=
DEP_CFLAGS = $(shell $(PKG_CONFIG) --cflags libcurl libcjson libseccomp sqlite3 libpq libxml-2.0 yaml-0.1 2>/dev/null)
DEP_LIBS   = $(shell $(PKG_CONFIG) --libs libcurl libcjson libseccomp sqlite3 libpq libxml-2.0 yaml-0.1 2>/dev/null) -lm
TEST_LIBS  = $(shell $(PKG_CONFIG) --libs criterion 2>/dev/null || echo -lcriterion)
ALL_CFLAGS = $(STD_FLAGS) $(CFLAGS) $(SAN_FLAGS) $(DEP_CFLAGS) -MMD -MP

# The product's rooms, bottom layer first (docs/design.md "The rule"): a
# room includes only rooms before it in this list, as that rule says;
# `make layout` checks it.
ROOMS = common docker docker/registry preflight \
        $(addprefix orchestrator/,perf finding diagnosis containers seccomp replay lease sweep \
                                  history cluster report site notify bisect jobs cli)
LIB_SRC = $(filter-out orchestrator/cli/main.c,$(foreach m,$(ROOMS),$(wildcard $(m)/*.c)))
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
SUPPORT_SRC = $(wildcard tests/support/*.c)
UNIT_SRC = $(wildcard tests/unit/*.c)
INT_SRC  = $(wildcard tests/integration/*.c)
SIM_SRC  = $(wildcard images/sim/*.c)

BIN  = $(BUILD)/hrr-docker-replay
SIM  = $(BUILD)/sim/hrr-playback
UNIT = $(BUILD)/tests/unit
INTEGRATION = $(BUILD)/tests/integration

.PHONY: all clean check check-unit check-history-pg check-integration check-podman setup images demo try \
        install asan-check bench fuzz valgrind-check check-engines layout check-repeat \
        soak check-soak-short

all: $(BIN) $(SIM)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libhrr.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/obj/orchestrator/cli/main.o $(BUILD)/libhrr.a
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(DEP_LIBS)

# The simulator runs FROM scratch: static, no sanitizers, no libcurl.
$(SIM): $(SIM_SRC) $(wildcard images/sim/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -static -o $@ $(SIM_SRC) -lm

$(UNIT): $(UNIT_SRC:%.c=$(BUILD)/obj/%.o) $(SUPPORT_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/libhrr.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(DEP_LIBS) $(TEST_LIBS) -lutil

$(INTEGRATION): $(INT_SRC:%.c=$(BUILD)/obj/%.o) $(SUPPORT_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/libhrr.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(DEP_LIBS) $(TEST_LIBS) -lutil

setup:
	bash tests/setup.sh

images: $(SIM)
	bash images/build.sh $(SIM)

# Every suite runs even when one before it failed; then the host's network
# interfaces must all still be there (tests/host-interfaces.sh).
check: setup
	$(MAKE) -j$(JOBS) all $(UNIT) $(INTEGRATION)
	$(MAKE) images
	bash tests/host-interfaces.sh save $(BUILD)/host-interfaces.before
	@failed=""; \
	for t in layout check-unit check-history-pg fidelity check-integration check-podman check-soak-short; do \
		$(MAKE) $$t || failed="$$failed $$t"; \
	done; \
	bash tests/host-interfaces.sh compare $(BUILD)/host-interfaces.before || failed="$$failed host-interfaces"; \
	if [ -n "$$failed" ]; then echo "check: FAILED:$$failed" >&2; exit 1; fi; \
	echo "check: every suite passed"

check-unit: $(UNIT)
	$(UNIT) --jobs 2

# The history suites again on PostgreSQL (docs/sweep.md "History on
# PostgreSQL"): a private cluster (tests/pg-cluster.sh) in a temporary
# directory, the same tests with HRR_TEST_HISTORY_PG naming it (a fresh
# database per test), then the cluster stopped and removed.
HISTORY_UNIT_SUITES = history history_reuse history_changes history_perf history_perf_stats history_site history_signatures history_remark cmd_history
HISTORY_PG_INTEGRATION = sweep/history_* history_pg/*
check-history-pg: $(UNIT) $(INTEGRATION) $(BIN)
	@dir=$$(mktemp -d /tmp/hrr-pg.XXXXXX) && chmod 0755 $$dir && \
	bash tests/pg-cluster.sh start $$dir/c >/dev/null || exit 1; \
	rc=0; for s in $(HISTORY_UNIT_SUITES); do \
		HRR_TEST_HISTORY_PG=$$dir/c $(UNIT) --jobs 2 --filter "$$s/*" || rc=1; \
	done; \
	for f in $(HISTORY_PG_INTEGRATION); do \
		HRR_TEST_HISTORY_PG=$$dir/c HRR_BIN=$(abspath $(BIN)) $(INTEGRATION) --jobs 1 --filter "$$f" || rc=1; \
	done; \
	bash tests/pg-cluster.sh stop $$dir/c; rmdir $$dir; exit $$rc

# Integration tests share one engine. Within a shard they run one at a
# time so timeouts measure the replay, not contention; the three shards
# (tests/integration.sh) run at once, since each test has its own state.
check-integration: $(INTEGRATION) $(BIN) images
	HRR_BIN=$(abspath $(BIN)) bash tests/integration.sh $(INTEGRATION)

# The integration suites N times over under the three parallel shards
# (tests/integration.sh), stopping at the first failure: a flake shows in
# a few rounds. `make check-repeat 5` or `make check-repeat N=5`.
REPEAT_N = $(or $(N),$(filter-out check-repeat,$(filter check-repeat $(shell seq 1 999),$(MAKECMDGOALS))),5)
ifneq ($(filter check-repeat,$(MAKECMDGOALS)),)
$(filter-out check-repeat,$(filter $(shell seq 1 999),$(MAKECMDGOALS))):
	@:
endif
check-repeat: $(INTEGRATION) $(BIN) images
	@for i in $$(seq 1 $(REPEAT_N)); do \
		echo "check-repeat: round $$i of $(REPEAT_N)"; \
		HRR_BIN=$(abspath $(BIN)) bash tests/integration.sh $(INTEGRATION) \
			|| { echo "check-repeat: round $$i of $(REPEAT_N) failed" >&2; exit 1; }; \
	done; echo "check-repeat: $(REPEAT_N) rounds passed"

# The fault soak (tests/soak.sh, docs/sweep.md "Every case ends exactly
# once"): SOAK_CASES no-op cases on four fake GPUs through engine kills and
# restarts, a killed sweep, a full disk and a busy database, on a private
# dockerd and a root Podman service of its own; SOAK_SEED replays a run.
# Not in .ci/run: `make check` runs the short form, one engine, ~1 minute.
SOAK_CASES ?= 500
SOAK_SEED ?=
soak: $(BIN) images
	HRR_BIN=$(abspath $(BIN)) bash tests/soak.sh docker $(SOAK_CASES) $(SOAK_SEED)
	HRR_BIN=$(abspath $(BIN)) bash tests/soak.sh podman $(SOAK_CASES) $(SOAK_SEED)

check-soak-short: $(BIN) images
	HRR_BIN=$(abspath $(BIN)) bash tests/soak.sh docker 24 $(SOAK_SEED)

# The replay, interrupt, gc, pull-auth and preflight suites against root
# and rootless Podman at once (tests/podman-check.sh), after dockerd's
# shards: with five suites at once on two cores, a rootless run once ended
# without its closing line. SKIPPED with HRR_SETUP_NO_PODMAN=1.
check-podman: $(INTEGRATION) $(BIN) images
	HRR_BIN=$(abspath $(BIN)) INTEGRATION=$(abspath $(INTEGRATION)) bash tests/podman-check.sh

# The engine-facing suites against Docker 26.1 and 28.5 and root Podman
# 5.4 and 5.8 from Debian trixie and sid, each engine in a container of the
# host's dockerd from a root built once by debootstrap and cached as an
# image (tests/engine-matrix.sh, docs/engines.md).
check-engines: $(INTEGRATION) $(BIN) images
	HRR_BIN=$(abspath $(BIN)) INTEGRATION=$(abspath $(INTEGRATION)) bash tests/engine-matrix.sh

# The same suites built with AddressSanitizer + UBSan; any report fails.
asan-check: images
	$(MAKE) -j$(JOBS) BUILD=build-asan CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	    SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -DHRR_NO_SANDBOX" \
	    build-asan/hrr-docker-replay build-asan/sim/hrr-playback build-asan/tests/unit \
	    build-asan/tests/integration
	bash tests/sanitized.sh build-asan

# The demo installs only what it needs (no registries, no test or fuzz
# tools) and leaves dockerd running; README.md, "What the demo leaves".
demo:
	bash tests/setup.sh demo
	$(MAKE) -j$(JOBS) all
	$(MAKE) images
	bash examples/demo.sh $(abspath $(BIN))

# Play on the fake GPU host of the demo: make try ARGS='--gpu 1 --format json'
TRY_ARGS = --image hrr-sim:$(or $(HRR_IMAGE_TAG),dev) --archive examples/capture.hrr
try: all
	HRR_BIN=$(abspath $(BIN)) bash examples/try.sh $(TRY_ARGS) $(ARGS)

# The integration path under valgrind: no leak, no invalid access. Its own
# build: valgrind's syscalls cannot live under the parser sandbox's filter.
valgrind-check: images
	$(MAKE) -j$(JOBS) BUILD=build-valgrind CFLAGS="-O2 -g -DHRR_NO_SANDBOX" build-valgrind/hrr-docker-replay
	bash tests/valgrind.sh $(abspath build-valgrind/hrr-docker-replay)

# systemd-tmpfiles reads $(PREFIX)/lib/tmpfiles.d for /usr and /usr/local.
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(TMPFILESDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/hrr-docker-replay
	install -m 0644 docs/hrr-docker-replay.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 dist/hrr-docker-replay.tmpfiles $(DESTDIR)$(TMPFILESDIR)/hrr-docker-replay.conf

# Each room's share of the product's C lines, and every include against
# docs/design.md's rule (mk/layout.sh): fails on an arrow against it; no
# print site outside the command layer (mk/prints.sh); then the size limits
# (mk/limits.sh): fails on a function over 100 lines, says each file over
# 700. All three always run.
layout:
	@rc=0; bash mk/layout.sh $(ROOMS) || rc=1; bash mk/prints.sh || rc=1; bash mk/json_headers.sh || rc=1; bash mk/limits.sh || rc=1; exit $$rc

clean:
	rm -rf build build-asan build-valgrind

# Per-module extras (benchmarks, fuzzers) add targets and append to
# BENCH_TARGETS / FUZZ_TARGETS in their own mk/*.mk file.
BENCH_TARGETS ?=
FUZZ_TARGETS ?=
-include $(wildcard mk/*.mk)

bench: $(BENCH_TARGETS)
fuzz: $(FUZZ_TARGETS)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
