# Benchmarks of the replay run and of preflight (tests/bench/): each prints ratios
# against the docker CLI / raw Engine API measured side by side in the same
# run. They measure, they do not gate: every one exits 0, and says SKIPPED
# with the reason when the machine cannot run it.
#
#   make bench-overhead   BENCH_RUNS=K (default 10)
#   make bench-stream     BENCH_LOG_MB=N (default 256)
#   make bench-preflight  BENCH_RUNS=K
#   make bench-podman     BENCH_RUNS=K (root and rootless Podman vs podman run --rm)
#   make bench-perf       BENCH_RUNS=K (run --perf 5 vs 6 plain replays), then
#                         BENCH_PERF_SWEEP_RUNS=K sweeps: plain, --perf 5, --perf-adaptive 15

BENCH_TIMEIT = $(BUILD)/bench/timeit
BENCH_RUN_DEPS = $(BIN) $(SIM) $(BENCH_TIMEIT) bench-run-image
BENCH_RUN_ENV = HRR_BIN=$(abspath $(BIN)) BENCH_TIMEIT=$(abspath $(BENCH_TIMEIT))

.PHONY: bench-overhead bench-stream bench-preflight bench-podman bench-perf bench-run-image

$(BENCH_TIMEIT): tests/bench/timeit.c
	@mkdir -p $(dir $@)
	$(CC) $(STD_FLAGS) $(CFLAGS) -o $@ $<

# `make images` rebuilds every image; only do it when the simulator image is
# missing, so a bench run does not invalidate the preflight cache of a
# concurrent one (the cache is keyed by image id).
bench-run-image: $(SIM)
	@docker image inspect hrr-sim:$${HRR_IMAGE_TAG:-dev} >/dev/null 2>&1 || $(MAKE) images

bench-overhead: $(BENCH_RUN_DEPS)
	@$(BENCH_RUN_ENV) bash tests/bench/overhead.sh

bench-stream: $(BENCH_RUN_DEPS)
	@$(BENCH_RUN_ENV) bash tests/bench/stream.sh

bench-preflight: $(BENCH_RUN_DEPS)
	@$(BENCH_RUN_ENV) bash tests/bench/preflight.sh

bench-podman: $(BENCH_RUN_DEPS)
	@$(BENCH_RUN_ENV) bash tests/bench/podman.sh

bench-perf: $(BENCH_RUN_DEPS)
	@$(BENCH_RUN_ENV) bash tests/bench/perf.sh

BENCH_TARGETS += bench-overhead bench-stream bench-preflight bench-podman bench-perf
