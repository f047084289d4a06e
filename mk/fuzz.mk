# libFuzzer harnesses for untrusted input: the replay-log classifier and
# the manifest reader. `make fuzz` builds them with clang into build-fuzz/
# and runs each for FUZZ_TIME seconds, seeded from tests/fuzz/corpus/<name>
# (the classifier's seeds are the unit tests' sample logs). New inputs go
# to build-fuzz/corpus/<name>, crashes to build-fuzz/crash-*; the seed
# corpus in the tree is never written.

FUZZ_CC    ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME  ?= 30
FUZZ_SAN   = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = $(STD_FLAGS) -g -O1 -fno-omit-frame-pointer $(DEP_CFLAGS)

# Only what the harnesses reach: no engine, no libcurl.
FUZZ_LIB_SRC = $(wildcard common/*.c orchestrator/finding/*.c) preflight/manifest.c \
               preflight/preflight.c preflight/preflight_json.c preflight/topology.c
FUZZ_LIB_OBJ = $(FUZZ_LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_NAMES   = classifier manifest
# The engine client's parsers of what the engine, a registry or the user's
# config.json send (docker/): each a generic run below.
DOCKER_FUZZ_NAMES = tar demux pull_progress auth_config image_ref api_version
FUZZ_NAMES   += $(DOCKER_FUZZ_NAMES)
FUZZ_LIB_SRC += $(wildcard docker/*.c)
# More small parsers of untrusted text, run the same way: site seccomp
# profiles (--seccomp FILE) and owner labels (gc decides on what parses).
FUZZ_LIB_SRC += orchestrator/seccomp/seccomp_profile.c orchestrator/containers/ours.c
DOCKER_FUZZ_NAMES += seccomp_profile owner_label
# --gpu lists, sizes, booleans, versions, library names and hip/version
# files read out of an image.
FUZZ_LIB_SRC += orchestrator/cli/option_values.c preflight/stack_files.c \
	orchestrator/replay/playback_args.c orchestrator/replay/kernel_replace.c
DOCKER_FUZZ_NAMES += small_parsers
# Failure signatures: the evidence line's normalization and the kernel
# family, over log lines and kernel names as printed.
DOCKER_FUZZ_NAMES += signature
# The known-issues file (YAML through libyaml): people edit it, others
# with write access to a shared checkout can.
DOCKER_FUZZ_NAMES += known_issues

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/libfuzzhrr.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_BUILD)/libfuzzhrr.a
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(DEP_LIBS) -lm

.PRECIOUS: $(FUZZ_BUILD)/obj/%.o
.PHONY: fuzz-build fuzz-clean $(FUZZ_NAMES:%=fuzz-%)
fuzz-build: $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)

# 150000 bytes: long enough for a line to cross the classifier's 64 KiB
# window twice (overlong lines are read in overlapping windows).
fuzz-classifier: $(FUZZ_BUILD)/fuzz_classifier
	@mkdir -p $(FUZZ_BUILD)/corpus/classifier
	$< -max_total_time=$(FUZZ_TIME) -max_len=150000 -timeout=10 -rss_limit_mb=1024 \
	    -artifact_prefix=$(FUZZ_BUILD)/ -print_final_stats=1 \
	    $(FUZZ_BUILD)/corpus/classifier tests/fuzz/corpus/classifier

fuzz-manifest: $(FUZZ_BUILD)/fuzz_manifest
	@mkdir -p $(FUZZ_BUILD)/corpus/manifest
	$< -max_total_time=$(FUZZ_TIME) -max_len=16384 -timeout=10 -rss_limit_mb=1024 \
	    -artifact_prefix=$(FUZZ_BUILD)/ -print_final_stats=1 \
	    $(FUZZ_BUILD)/corpus/manifest tests/fuzz/corpus/manifest

# 70000 bytes: many tar blocks, frame headers and progress lines.
$(DOCKER_FUZZ_NAMES:%=fuzz-%): fuzz-%: $(FUZZ_BUILD)/fuzz_%
	@mkdir -p $(FUZZ_BUILD)/corpus/$*
	$< -max_total_time=$(FUZZ_TIME) -max_len=70000 -timeout=10 -rss_limit_mb=1024 \
	    -artifact_prefix=$(FUZZ_BUILD)/ -print_final_stats=1 \
	    $(FUZZ_BUILD)/corpus/$* tests/fuzz/corpus/$*

fuzz-clean:
	rm -rf $(FUZZ_BUILD)

FUZZ_TARGETS += $(FUZZ_NAMES:%=fuzz-%)

-include $(shell find $(FUZZ_BUILD)/obj -name '*.d' 2>/dev/null)
