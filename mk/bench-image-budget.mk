# The image budget at the size of real layers (tests/bench/image-budget.sh):
# a sweep over 6 registry images of 40 MB random layers each, 3 cases of
# each, under `--image-budget` of about 2.3 images, the engine polled every
# 0.2 s; the images built, pushed and pulled through the engine and the
# loopback registry of tests/setup.sh. Fails when a promise of the budget
# breaks (the other benchmarks only measure).
#
#   make bench-image-budget   BENCH_IMAGE_MB=N (each image's own layer, default 40)

.PHONY: bench-image-budget

bench-image-budget: $(BIN) $(SIM) $(BUILD)/bench/timeit bench-run-image
	@HRR_BIN=$(abspath $(BIN)) BENCH_TIMEIT=$(abspath $(BUILD)/bench/timeit) bash tests/bench/image-budget.sh

BENCH_TARGETS += bench-image-budget
