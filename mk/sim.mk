# The hrr-playback simulator (images/sim) and its fixture archives.

# The simulator's unit tests (tests/unit/test_sim_format.c) run the
# host-built binary, so it must exist before they do.
check-unit: $(SIM)

# Regenerate the committed fixture archives and examples/capture.hrr
# (deterministic: a re-run without script changes leaves git clean).
.PHONY: fixtures
fixtures:
	bash tests/fixtures/make-archives.sh
