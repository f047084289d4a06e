# History at the scale of a capture library (tests/bench/history.sh): 10,000
# cases x 60 nightly sweeps imported without an engine, `history` per case
# and per label, `history site` whole and after one more night, the sweep
# parent's memory at 64 and 10,000 planned cases, the database's size.
#
#   make bench-history   BENCH_HISTORY_CASES=N BENCH_HISTORY_NIGHTS=N

$(BUILD)/bench/bench_history: tests/bench/bench_history.c $(BUILD)/libhrr.a
	@mkdir -p $(dir $@)
	$(CC) $(STD_FLAGS) $(CFLAGS) $(SAN_FLAGS) $(DEP_CFLAGS) -o $@ $< $(BUILD)/libhrr.a $(DEP_LIBS)

.PHONY: bench-history
bench-history: $(BIN) $(BUILD)/bench/bench_history $(BUILD)/bench/timeit
	@HRR_BIN=$(abspath $(BIN)) BENCH_TIMEIT=$(abspath $(BUILD)/bench/timeit) \
	    BENCH_HISTORY=$(abspath $(BUILD)/bench/bench_history) bash tests/bench/history.sh

BENCH_TARGETS += bench-history
