# The known-issues reader on a 4 MiB file of distinct keys: `make
# bench-known` fails over 1 s (docs/sweep.md "Known issues").
$(BUILD)/bench/bench_known: tests/bench/bench_known.c $(BUILD)/libhrr.a
	@mkdir -p $(dir $@)
	$(CC) $(STD_FLAGS) $(CFLAGS) $(SAN_FLAGS) $(DEP_CFLAGS) -o $@ $< $(BUILD)/libhrr.a $(DEP_LIBS) -lm

.PHONY: bench-known
bench-known: $(BUILD)/bench/bench_known
	$<

BENCH_TARGETS += bench-known
