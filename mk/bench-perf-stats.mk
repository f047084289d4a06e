# The GPU-time statistics' seeded simulation at full size, no engine
# (docs/perf.md "What the statistics promise"): `make bench-perf-stats`
# fails when a promise does not hold. Not in .ci/run: a few minutes.
$(BUILD)/bench/bench_perf_stats: tests/bench/bench_perf_stats.c tests/support/perf_sim.c $(BUILD)/libhrr.a
	@mkdir -p $(dir $@)
	$(CC) $(STD_FLAGS) $(CFLAGS) $(SAN_FLAGS) $(DEP_CFLAGS) -o $@ $(filter %.c,$^) $(BUILD)/libhrr.a $(DEP_LIBS) -lm

.PHONY: bench-perf-stats
bench-perf-stats: $(BUILD)/bench/bench_perf_stats
	$<

BENCH_TARGETS += bench-perf-stats
