# Classifier throughput and bounded memory: `make bench-classify`
# (BENCH_CLASSIFY_MB=1024 by default; BENCH_CLASSIFY_STRICT=1 fails the
# target under 200 MB/s).
BENCH_CLASSIFY_MB ?= 1024

$(BUILD)/bench/bench_classify: tests/bench/bench_classify.c $(BUILD)/libhrr.a
	@mkdir -p $(dir $@)
	$(CC) $(STD_FLAGS) $(CFLAGS) $(SAN_FLAGS) $(DEP_CFLAGS) -o $@ $< $(BUILD)/libhrr.a $(DEP_LIBS) -lm

.PHONY: bench-classify
bench-classify: $(BUILD)/bench/bench_classify
	$< $(BENCH_CLASSIFY_MB)

BENCH_TARGETS += bench-classify
