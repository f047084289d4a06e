# The corpus of real logs (tests/fixtures/real-logs, issue 40 §3): how far
# the classifier agrees with the verdicts a triager wrote before it ran.
# `make fidelity` prints the agreement table and exits 1 below 100%;
# `make check` (and so .ci/run) runs it and fails below 100%.
FIDELITY_CORPUS ?= tests/fixtures/real-logs

.PHONY: fidelity
fidelity: $(BIN)
	bash tests/fidelity.sh $(BIN) $(FIDELITY_CORPUS)
