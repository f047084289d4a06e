# Sweep benchmarks (tests/bench/sweep.sh): makespan on 4 fake GPUs, longest first
# on a heavy-tailed second night against its bound, a sweep against
# `xargs -P4` over single runs, the sweep's peak RSS at 64 and 256 cases.
#
#   make bench-sweep   BENCH_SWEEP_LONG=N BENCH_SWEEP_BIG=N BENCH_SWEEP_TAIL=N

.PHONY: bench-sweep

bench-sweep: $(BIN) $(SIM) $(BUILD)/bench/timeit bench-run-image
	@HRR_BIN=$(abspath $(BIN)) BENCH_TIMEIT=$(abspath $(BUILD)/bench/timeit) bash tests/bench/sweep.sh

BENCH_TARGETS += bench-sweep
