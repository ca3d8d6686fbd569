# SPDX-License-Identifier: GPL-2.0-only
#
# The libFuzzer targets, included by the Makefile. Every
# tests/fuzz/fuzz-NAME.c is a target: a new parser to fuzz is one new
# file here (plus, if it helps, NAME.dict and seeds in seeds/NAME/).
#
# The library is compiled a second time, by clang, instrumented for
# coverage (fuzzer-no-link) and under ASan + UBSan, into its own folder:
# the normal build, SANITIZE=1 and the fuzz build never share an object.
# Each target links against that library, so it fuzzes the very code
# the tool runs, not a copy.

FUZZ_OUT := .output/fuzz
FUZZ_OBJ := $(FUZZ_OUT)/obj
FUZZ_CC ?= clang
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz-%.c,%,\
		  $(sort $(wildcard tests/fuzz/fuzz-*.c)))
FUZZ_BINS := $(patsubst %,$(FUZZ_OUT)/fuzz-%,$(FUZZ_TARGETS))
FUZZ_LIB := $(FUZZ_OBJ)/libiommu-bench.a
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_OBJ)/%.o,$(LIB_SRCS)) \
		 $(FUZZ_OBJ)/gen/schemas.o $(FUZZ_OBJ)/gen/version.o
# -O1 as libFuzzer's own documentation builds; no recovery, so that a
# sanitizer's report is a crash the fuzzer keeps.
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer
# clang warns inside glibc's NLMSG_OK (an int length against a __u32),
# where gcc keeps quiet about macros of system headers.
FUZZ_CFLAGS = -g -O1 $(WARN_INC_CFLAGS) -Wno-sign-compare $(FUZZ_SAN) \
	      $(DEBUG_MAP)

fuzz-build: $(FUZZ_BINS)

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	@rm -f $@
	@echo "AR $@"
	@$(AR) rcs $@ $^

$(FUZZ_OBJ)/%.o: %.c | $(BPF_SKELS) $(LIBPERF_STAMP)
	@mkdir -p $(@D)
	$(CCACHE) $(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c \
		-o $@ $<

$(FUZZ_OBJ)/gen/%.o: .output/gen/%.c
	@mkdir -p $(@D)
	$(CCACHE) $(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_OUT)/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz-util.h $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests -fsanitize=fuzzer -MMD -MP -o $@ $< \
		$(FUZZ_LIB) $(LDLIBS)
