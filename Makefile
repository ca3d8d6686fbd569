# SPDX-License-Identifier: GPL-2.0-only
#
# iommu-bench build. Objects go under .output/, the binary to ./iommu-bench.
#   make                   build
#   make check             build and run every test (TAP, aggregated by prove)
#   make check-quick       unit tests and the CLI tests that boot no VM
#   make check SANITIZE=1  the same under ASan + UBSan
#   make fuzz              every libFuzzer target in turn (FUZZ_TIME seconds)
#   make bench             benchmarks; they print figures, they do not gate
#   make install           PREFIX=/usr/local DESTDIR=
#   make deb               Debian packages of the working tree in .output/deb/
#   make format            clang-format every C file in place
#   make folder-table      README.md's layout table from docs/architecture.md
#   make demo-screenshot   docs/demo-report.png from make demo's results/demo.html

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# bash-completion's layout: loaded on demand, by the command's name.
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
# systemd reads units from /usr/local/lib/systemd/system too.
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
FUZZ_TIME ?= 60

CC ?= cc
PKG_CONFIG ?= pkg-config
LIBS_PC := sqlite3 jansson libbpf gsl libcurl

ifeq ($(SANITIZE),1)
OUT := .output/san
BIN := $(OUT)/iommu-bench
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	     -fno-sanitize-recover=all
else
OUT := .output/obj
BIN := iommu-bench
SAN_FLAGS :=
endif

CFLAGS ?= -O2 -g
# ccache where it is installed (scripts/install-deps.sh installs it): a
# clean clone's build, make check's first minute, is then mostly cache
# hits. The debug info names paths relative to the checkout, so that one
# clone's objects serve another's (ccache hashes the mapped directory).
# CCACHE= builds without it.
CCACHE ?= $(shell command -v ccache 2>/dev/null)
DEBUG_MAP := -fdebug-prefix-map=$(CURDIR)=.
# libperf is built from Debian's kernel source package (Debian ships perf
# but not its library); see scripts/build-libperf.sh.
LIBPERF_DIR := .output/libperf
LIBPERF_STAMP := $(LIBPERF_DIR)/.built
LIBPERF_LIBS := $(LIBPERF_DIR)/lib/libperf.a $(LIBPERF_DIR)/lib/libapi.a

# Shared with the fuzz build (tests/fuzz/fuzz.mk), which uses clang.
WARN_INC_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -Wshadow \
	-Wno-missing-field-initializers -Wstrict-prototypes \
	-D_GNU_SOURCE -I. -Isrc -I$(SKEL_DIR) -I.output/gen \
	-I$(LIBPERF_DIR)/include \
	$(shell $(PKG_CONFIG) --cflags $(LIBS_PC))
override CFLAGS += $(WARN_INC_CFLAGS) $(SAN_FLAGS) $(DEBUG_MAP)
# libiperf ships no .pc file.
LDLIBS += $(LIBPERF_LIBS) -liperf $(shell $(PKG_CONFIG) --libs $(LIBS_PC)) \
	$(EXTRA_LDLIBS) -lelf -lz -lm
override LDFLAGS += $(SAN_FLAGS)

# Every C file under these folders (and their subsystem folders) is part
# of the tool; main.c alone is left out of the library so that unit tests
# can link against the rest.
SRC_DIRS := cmd src store stats bench collectors analysis report kcidb
LIB_SRCS := $(filter-out cmd/main.c,\
	      $(sort $(shell find $(SRC_DIRS) -name '*.c')))
LIB_OBJS := $(patsubst %.c,$(OUT)/%.o,$(LIB_SRCS)) $(OUT)/gen/schemas.o \
	    $(OUT)/gen/version.o
LIB := $(OUT)/libiommu-bench.a

# BPF programs: compiled once (not per sanitizer build), CO-RE against the
# build machine's BTF, and turned into skeleton headers, as libbpf-tools do.
# A cross build (agent-ARCH below) gives them their own folders: the
# kprobe program reads the registers of the arch it is built for.
BPF_ARCH ?= $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
BPF_OUT ?= .output/bpf
SKEL_DIR ?= .output/gen
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(BPF_OUT)/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(patsubst bpf/%.bpf.c,$(SKEL_DIR)/%.skel.h,$(BPF_SRCS))
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux

UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
# Built with the others, but run by the shell test that sets their stage
# (test-host-ssh needs the sshd that tests/cli/ssh.t starts, test-kcidb-submit
# the stand-in of kcidb-ng that tests/cli/kcidb-submit.t starts).
UNIT_DRIVEN := $(OUT)/tests/test-host-ssh $(OUT)/tests/test-kcidb-submit
UNIT_RUN := $(filter-out $(UNIT_DRIVEN),$(UNIT_BINS))
DECODER := $(OUT)/tests/toml-decoder
CLI_TESTS := $(wildcard tests/cli/*.t)
# make check runs in two lanes, each one file at a time, so that both
# cores are busy and at most two VMs run at once. Lane A: the kernel
# builds and what builds in or boots from their kept worktree
# (kernel-build.t primes it for testbed-nightly.t, testbed-cost.t and
# testbed-dma-map.t), two short testbed files, then the lab machine,
# the longest file. Lane B: everything that boots no VM, beside lane
# A's kernel build, then the other testbed files and the LAVA lab. The
# split keeps the lanes even by the figures run-tests.sh prints
# (docs/hacking.md). testbed-cost.t judges CPU per GB, which any
# neighbour stretches: it runs last, alone.
CHECK_ALONE := tests/cli/testbed-cost.t
CHECK_LANE_A := tests/cli/kernel-build.t tests/cli/testbed-nightly.t \
	tests/cli/testbed-dma-map.t \
	tests/cli/testbed-newest.t tests/cli/testbed-arm64.t \
	tests/cli/testbed-labvm.t
CHECK_LANE_B_VM := tests/cli/testbed.t tests/cli/testbed-sync.t \
	tests/cli/testbed-suite.t tests/cli/testbed-iommus.t \
	tests/cli/testbed-exposure.t tests/cli/testbed-kexec.t \
	tests/cli/testbed-build.t tests/cli/testbed-lava.t
CLI_VM := $(wildcard tests/cli/testbed*.t)
# A testbed file in neither lane would not run: make check says so.
CLI_UNLANED := $(filter-out $(CHECK_LANE_A) $(CHECK_LANE_B_VM) \
	$(CHECK_ALONE),$(CLI_VM))
# deb.t builds the Debian packages (a minute): make check's lane B, not
# the edit loop's.
CLI_QUICK := $(filter-out $(CLI_VM) tests/cli/kernel-build.t \
	tests/cli/fuzz.t tests/cli/deb.t,$(CLI_TESTS))
comma := ,
space := $(subst ,, )
CHECK_LANES := -j2 --rules='seq={$(subst $(space),$(comma),$(strip \
	$(CHECK_LANE_A)))}' --rules='seq=**'
BENCH_SRCS := $(wildcard tests/bench/bench-*.c)
BENCH_BINS := $(patsubst tests/bench/%.c,$(OUT)/tests/%,$(BENCH_SRCS))

SCHEMAS := $(sort $(wildcard schemas/[0-9][0-9][0-9][0-9]-*.sql))
VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)

# The agent of an arm64 guest (the testbed's Arm machine): this tool
# cross-built, linked against Debian's arm64 libraries (multiarch, from
# scripts/install-deps.sh), its BPF programs built for arm64. The guest
# runs it from this machine's root, where those libraries are.
ARM64_OUT := .output/arm64
ARM64_AGENT := $(ARM64_OUT)/iommu-bench
ARM64_TRIPLET := aarch64-linux-gnu
# Built by make (and so by make check, which boots an arm64 guest) where
# the cross toolchain and the arm64 libraries are here.
CROSS_AGENTS := $(shell command -v $(ARM64_TRIPLET)-gcc >/dev/null && \
	test -f /usr/lib/$(ARM64_TRIPLET)/pkgconfig/libbpf.pc && \
	echo agent-arm64)

.PHONY: all agent-arm64 bench check check-quick deb demo demo-netns demo-screenshot fuzz fuzz-build install \
	uninstall clean folder-table format format-check FORCE
all: $(BIN) $(CROSS_AGENTS)

$(BIN): $(OUT)/cmd/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# libgsl-dev is not co-installable for two arches; its arm64 runtime is,
# and its headers are the same: link the runtime through names of our own.
ARM64_LIB := /usr/lib/$(ARM64_TRIPLET)
agent-arm64: $(BIN)
	@mkdir -p $(ARM64_OUT)/lib
	ln -sf $(ARM64_LIB)/libgsl.so.27 $(ARM64_OUT)/lib/libgsl.so
	ln -sf $(ARM64_LIB)/libgslcblas.so.0 $(ARM64_OUT)/lib/libgslcblas.so
	$(MAKE) SANITIZE= OUT=$(ARM64_OUT) BIN=$(ARM64_AGENT) \
		CC=$(ARM64_TRIPLET)-gcc AR=$(ARM64_TRIPLET)-ar \
		PKG_CONFIG='PKG_CONFIG_LIBDIR=$(ARM64_LIB)/pkgconfig:/usr/share/pkgconfig pkg-config' \
		LIBS_PC='sqlite3 jansson libbpf libcurl' \
		EXTRA_LDLIBS='-L$(ARM64_OUT)/lib -lgsl -lgslcblas' \
		BPF_ARCH=arm64 BPF_OUT=$(ARM64_OUT)/bpf \
		SKEL_DIR=$(ARM64_OUT)/gen LIBPERF_DIR=$(ARM64_OUT)/libperf \
		LIBPERF_CROSS=$(ARM64_TRIPLET)- $(ARM64_AGENT)

$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(OUT)/%.o: %.c | $(BPF_SKELS) $(LIBPERF_STAMP)
	@mkdir -p $(@D)
	$(CCACHE) $(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# The stage-2 scripts are in the object itself (.incbin): -MMD cannot see them.
$(OUT)/bench/labvm/labvm-stage2.o: $(wildcard bench/labvm/*.sh)

$(LIBPERF_STAMP): scripts/build-libperf.sh
	sh scripts/build-libperf.sh $(LIBPERF_DIR) $(LIBPERF_CROSS)
	@touch $@

.output/gen/vmlinux.h:
	@mkdir -p $(@D)
	@test -r $(VMLINUX_BTF) || { echo "no BTF at $(VMLINUX_BTF):" \
		"this kernel lacks CONFIG_DEBUG_INFO_BTF" >&2; exit 1; }
	bpftool btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c .output/gen/vmlinux.h $(wildcard bpf/*.h)
	@mkdir -p $(@D)
	$(CCACHE) clang -g -O2 -Wall -Werror -target bpf $(BPF_CPU) $(DEBUG_MAP) \
		-D__TARGET_ARCH_$(BPF_ARCH) \
		-I.output/gen -Ibpf -I. -c $< -o $@

# The exposure window counts with atomics that return the old value
# (BPF_FETCH), which clang emits from -mcpu=v3 on. Only there: v3's
# 32-bit arithmetic makes a 6.1 verifier lose the bound of the probes'
# histogram index ("math between map_value pointer and register with
# unbounded min value"), measured in the arm64 testbed guest.
$(BPF_OUT)/exposure.bpf.o: BPF_CPU := -mcpu=v3

# Generated headers are inputs to the C build, not intermediates to delete.
.SECONDARY: $(BPF_OBJS) $(BPF_SKELS)

$(SKEL_DIR)/%.skel.h: $(BPF_OUT)/%.bpf.o
	@mkdir -p $(@D)
	bpftool gen skeleton $< > $@.tmp && mv $@.tmp $@

# The schema migrations are compiled into the binary so that a user's
# database can be migrated by any copy of the tool, wherever it runs.
.output/gen/schemas.c: $(SCHEMAS) scripts/embed-schemas.sh
	@mkdir -p $(@D)
	sh scripts/embed-schemas.sh $(SCHEMAS) > $@.tmp && mv $@.tmp $@

# Rewritten only when the revision changes, so a no-op make stays a no-op.
.output/gen/version.c: FORCE
	@mkdir -p $(@D)
	@printf '/* generated */\nconst char iommu_bench_version[] = "%s";\n' \
		'$(VERSION)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(OUT)/gen/%.o: .output/gen/%.c
	@mkdir -p $(@D)
	$(CCACHE) $(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OUT)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests -MMD -MP $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(OUT)/tests/bench-%: tests/bench/bench-%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests -MMD -MP $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(DECODER): tests/toml-decoder.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

check: $(BIN) $(UNIT_BINS) $(DECODER) $(CROSS_AGENTS)
	$(if $(CLI_UNLANED),$(error $(CLI_UNLANED): in no lane of make \
		check (CHECK_LANE_A, CHECK_LANE_B_VM or CHECK_ALONE in the Makefile)))
	IOMMU_BENCH=$(abspath $(BIN)) TOML_DECODER=$(abspath $(DECODER)) \
	SRCDIR=$(CURDIR) sh tests/run-tests.sh \
		$(foreach f,$(CHECK_ALONE),--alone $(f)) $(CHECK_LANES) $(CHECK_LANE_A) \
		$(UNIT_RUN) tests/toml-test.t $(CLI_QUICK) tests/cli/deb.t \
		tests/cli/fuzz.t $(CHECK_LANE_B_VM)

# The edit loop's: no VM, no kernel build, no fuzzing, two at a time.
check-quick: $(BIN) $(UNIT_BINS) $(DECODER)
	IOMMU_BENCH=$(abspath $(BIN)) TOML_DECODER=$(abspath $(DECODER)) \
	SRCDIR=$(CURDIR) CHECK_BUDGET_S=180 sh tests/run-tests.sh -j2 \
		$(UNIT_RUN) tests/toml-test.t $(CLI_QUICK)

# Figures, not verdicts: performance goals are read off, never asserted.
bench: $(BIN) $(BENCH_BINS)
	IOMMU_BENCH=$(abspath $(BIN)) SRCDIR=$(CURDIR) \
	sh tests/bench/run-bench.sh $(BENCH_BINS) $(wildcard tests/bench/*.sh)

# The README's first command: the demo matrix on the QEMU testbed
# (strict, lazy, passthrough on an emulated Intel IOMMU), stored in
# results/, then compared and reported. Needs root, QEMU and the Debian
# mirror once (the guest kernel). demo-netns is the quick one, no VM.
demo: $(BIN)
	./$(BIN) plan configs/demo.toml
	./$(BIN) testbed build
	./$(BIN) run configs/demo.toml
	./$(BIN) compare --by mode --only metric=throughput \
		--only metric=exposure_p99_us --only metric=stale_max
	./$(BIN) compare --cost --at 10G,25G,100G
	./$(BIN) report -o results/demo.html
	@echo "report: results/demo.html"

demo-netns: $(BIN)
	./$(BIN) plan configs/demo-netns.toml
	./$(BIN) run configs/demo-netns.toml
	./$(BIN) compare --only metric=throughput
	./$(BIN) report -o results/demo-report.html
	@echo "report: results/demo-report.html"

# The README's picture: make demo's report as headless Chromium draws it
# (the flags of tests/cli/page.sh), in a profile of its own thrown away
# after. DEMO_HTML and DEMO_PNG let tests/cli/readme.t aim it elsewhere.
DEMO_HTML ?= results/demo.html
DEMO_PNG ?= docs/demo-report.png
demo-screenshot:
	@test -f $(DEMO_HTML) || { echo "$(DEMO_HTML): no such report: run make demo first" >&2; exit 1; }
	@rm -f $(DEMO_PNG); profile=$$(mktemp -d) && \
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --user-data-dir="$$profile" --window-size=1300,900 \
		--screenshot=$(DEMO_PNG) file://$(abspath $(DEMO_HTML)) >/dev/null 2>&1; \
	st=$$?; rm -rf "$$profile"; \
	if [ $$st -ne 0 ] || [ ! -s $(DEMO_PNG) ]; then echo "chromium failed to render $(DEMO_HTML) (exit $$st)" >&2; exit 1; fi; \
	echo "picture: $(DEMO_PNG)"

# libFuzzer targets, one per parser of what other programs and hosts
# send: built by tests/fuzz/fuzz.mk, each run in turn for FUZZ_TIME
# seconds on its seed corpus (docs/fuzzing.md).
include tests/fuzz/fuzz.mk

fuzz: $(FUZZ_BINS)
	@fail=0; for t in $(FUZZ_TARGETS); do \
		sh tests/fuzz/fuzz-run.sh $(FUZZ_OUT) $(FUZZ_OUT) $$t \
			$(FUZZ_TIME) || fail=1; \
	done; exit $$fail

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/iommu-bench
	install -m 0644 docs/iommu-bench.1 $(DESTDIR)$(MANDIR)/man1/iommu-bench.1
	install -d $(DESTDIR)$(COMPLETIONDIR)
	install -m 0644 completions/iommu-bench \
		$(DESTDIR)$(COMPLETIONDIR)/iommu-bench
	@# The nightly as a service (docs/nightly.md), ExecStart at BINDIR.
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	for u in service timer; do \
		sed 's|/usr/bin/iommu-bench|$(BINDIR)/iommu-bench|' \
			configs/systemd/iommu-bench-nightly@.$$u \
			>$(DESTDIR)$(SYSTEMDUNITDIR)/iommu-bench-nightly@.$$u && \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/iommu-bench-nightly@.$$u || \
		exit 1; \
	done
	@# For a LAVA lab's admin to install (docs/lava.md).
	install -d $(DESTDIR)$(PREFIX)/share/iommu-bench/lava
	install -m 0644 bench/host/lava/device-type/iommu-bench-qemu.jinja2 \
		$(DESTDIR)$(PREFIX)/share/iommu-bench/lava/iommu-bench-qemu.jinja2
	@# Where host__agent_exe() looks: ../lib/iommu-bench/ARCH beside bin/.
	if [ -f $(ARM64_AGENT) ]; then \
		install -d $(DESTDIR)$(PREFIX)/lib/iommu-bench/arm64 && \
		install -m 0755 $(ARM64_AGENT) \
			$(DESTDIR)$(PREFIX)/lib/iommu-bench/arm64/iommu-bench; \
	fi

# Debian packages (debian/, docs/install.md) of the working tree,
# uncommitted work too, built in a copy of it: dpkg-buildpackage starts
# with `make clean`, which would delete this checkout's build. The .debs
# and their .changes are left in DEB_DIR, checked by lintian, which fails
# on any error or warning. ccache keeps its own cache (debhelper gives
# the build a HOME of its own); the package does not need it. The
# package's make sees none of this one's variables (make deb SANITIZE=1,
# make check's): its flags are dpkg-buildflags'.
DEB_DIR ?= .output/deb
deb:
	$(if $(strip $(DEB_DIR)),,$(error DEB_DIR is empty))
	@for t in dpkg-buildpackage dh lintian; do command -v $$t >/dev/null || \
		{ echo "make deb: no $$t (dpkg-dev, debhelper, lintian:" \
			"scripts/install-deps.sh)" >&2; exit 1; }; done
	@v=$$(dpkg-parsechangelog -S Version) && d=$(DEB_DIR)/iommu-bench-$$v && \
	rm -rf $(DEB_DIR) && mkdir -p $$d && \
	git ls-files -z -co --exclude-standard | \
		tar --null --ignore-failed-read -T - -cf - 2>/dev/null | \
		tar -C $$d -xf - && \
	if command -v ccache >/dev/null; then \
		CCACHE_DIR=$${CCACHE_DIR:-$$(ccache -k cache_dir)}; \
		export CCACHE_DIR; fi && \
	(cd $$d && unset MAKEFLAGS MFLAGS MAKELEVEL && \
		dpkg-buildpackage -us -uc -b -jauto) && \
	lintian --fail-on error,warning \
		$(DEB_DIR)/iommu-bench_$${v}_$$(dpkg --print-architecture).changes && \
	ls -l $(DEB_DIR)/*.deb

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/iommu-bench \
		$(DESTDIR)$(MANDIR)/man1/iommu-bench.1 \
		$(DESTDIR)$(COMPLETIONDIR)/iommu-bench \
		$(DESTDIR)$(SYSTEMDUNITDIR)/iommu-bench-nightly@.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/iommu-bench-nightly@.timer \
		$(DESTDIR)$(PREFIX)/share/iommu-bench/lava/iommu-bench-qemu.jinja2 \
		$(DESTDIR)$(PREFIX)/lib/iommu-bench/arm64/iommu-bench

format:
	clang-format -i $(shell git ls-files '*.c' '*.h')

clean:
	rm -rf .output iommu-bench

# Not the package build's own tree under .output/deb: its objects' rules
# name the same paths as ours.
-include $(shell find .output -path '.output/deb*' -prune -o -name '*.d' \
	-print 2>/dev/null)

# README.md's layout table, from docs/architecture.md's (tree.t checks it).
folder-table:
	python3 scripts/folder-table.py

format-check:
	clang-format --dry-run --Werror $(shell git ls-files '*.c' '*.h')
