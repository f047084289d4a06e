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

# The outputs of this build against those of BASE (a commit) on the same
# seeded nights (tests/bench/outputs.sh): a change that says it changes no
# output shows it here. FRESH=1 adds a real sweep of fixture captures
# (an engine and `make images` needed). Outside .ci/run.
#
#   make compare-outputs BASE=REV [FRESH=1]
.PHONY: compare-outputs
compare-outputs: $(BIN) $(BUILD)/bench/bench_history
	@test -n "$(BASE)" || { echo "compare-outputs: name the base: make compare-outputs BASE=REV" >&2; exit 2; }
	rm -rf $(BUILD)/compare-base && mkdir -p $(BUILD)/compare-base
	git archive "$(BASE)" | tar -x -C $(BUILD)/compare-base
	$(MAKE) -C $(BUILD)/compare-base -j$(JOBS) build/hrr-docker-replay >$(BUILD)/compare-base.log 2>&1 || \
	    { tail -20 $(BUILD)/compare-base.log >&2; exit 2; }
	OUTPUTS_FRESH=$(FRESH) bash tests/bench/outputs.sh $(BUILD)/compare-base/build/hrr-docker-replay \
	    $(abspath $(BIN)) $(BUILD)/bench/bench_history
