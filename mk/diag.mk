# The GPU debuggers' output parsers and the diagnosis model
# (orchestrator/diagnosis/diag_*.c, orchestrator/diagnosis/diagnosis*.c; docs/gpu-debug-tools.md), part of
# libhrr.a with the rest of the product, fuzzed with libFuzzer like the
# classifier: `make fuzz-diag_agent fuzz-diag_mi`.
DIAG_SRC = orchestrator/diagnosis/diag_lines.c orchestrator/diagnosis/diag_agent.c orchestrator/diagnosis/diag_mi.c orchestrator/diagnosis/diag_mi_record.c \
           orchestrator/diagnosis/diagnosis.c orchestrator/diagnosis/diagnosis_json.c orchestrator/diagnosis/diagnosis_render.c orchestrator/diagnosis/diag_plan.c

# Own rules rather than FUZZ_NAMES/FUZZ_LIB_SRC: mk/fuzz.mk assigns those
# with '=' and is read after this file (hence its FUZZ_BUILD default here:
# rule targets are expanded as they are read).
FUZZ_BUILD ?= build-fuzz
DIAG_FUZZ_NAMES = diag_agent diag_mi
# Only what the harnesses reach: common/ and the parsers (not libfuzzhrr.a).
DIAG_FUZZ_OBJ = $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(wildcard common/*.c) $(DIAG_SRC))

$(DIAG_FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%): $(FUZZ_BUILD)/fuzz_%: \
		$(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(DIAG_FUZZ_OBJ)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(DEP_LIBS) -lm

.PHONY: $(DIAG_FUZZ_NAMES:%=fuzz-%)
fuzz-build: $(DIAG_FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)

$(DIAG_FUZZ_NAMES:%=fuzz-%): fuzz-%: $(FUZZ_BUILD)/fuzz_%
	@mkdir -p $(FUZZ_BUILD)/corpus/$*
	$< -max_total_time=$(FUZZ_TIME) -max_len=70000 -timeout=10 -rss_limit_mb=1024 \
	    -artifact_prefix=$(FUZZ_BUILD)/ -print_final_stats=1 \
	    $(FUZZ_BUILD)/corpus/$* tests/fuzz/corpus/$*

FUZZ_TARGETS += $(DIAG_FUZZ_NAMES:%=fuzz-%)
