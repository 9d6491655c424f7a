# xfab: one entry point. `make help` lists the targets.
KDIR ?= /lib/modules/$(shell uname -r)/build
# The drivers: what `make modules` builds and `make install` installs.
MODDIRS := $(wildcard netfront netback blkfront blkback window)
# Modules for the testbed only, never installed: a load-time check of
# common/ in the kernel, and peers that break the protocol on purpose.
TEST_MODDIRS := tests/peer tests/hostile tests/wnprobe
# Warnings are errors where we build (make check's builds pass
# XFAB_WERROR=y through tests/vm/kbuild.sh), not where users do: DKMS or
# make deb on a newer compiler must not fail over a warning it newly
# reports. The Kbuild files and the toolstack's flags read it.
XFAB_WERROR ?=
HELPERS_OUT ?= build/helpers
UNIT_CFLAGS := -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
	-fno-sanitize-recover=all -Icommon
# common/ minus what only the kernel can build (sysfs glue)
COMMON_SRC := $(filter-out common/xfab_kstats.c,$(wildcard common/*.c))
UNIT_SRC := $(wildcard tests/unit/*.c)

.PHONY: help modules test-modules install helpers toolstack xen deb kernel-patch unit unit-core unit-harness fuzz style sparse check check-full vm-check bench bench-quick deps \
	testbed-clean clean

help:
	@echo "make check          unit tests, fuzz, 6.12 + 6.1 compile check, VM scenarios (CI)"
	@echo "make bench          the appliance benchmark on the nested testbed"
	@echo "make bench-quick    the same, one short round (a first look, minutes)"
	@echo "make modules        build the kernel modules against KDIR ($(KDIR))"
	@echo "make install        install them for that kernel (in updates/)"
	@echo "make test-modules   the testbed's test modules (tests/peer, tests/hostile, tests/wnprobe; never installed)"
	@echo "make toolstack      toolstack/xfabctl and xfab-appliance (needs libxen-dev)"
	@echo "make xen            Xen 4.20.4 with xen-patches/ applied (cached; testbed image chroot)"
	@echo "make deb            xfab-dkms and xfab-utils .debs of HEAD into build/deb (docs/packages.md)"
	@echo "make kernel-patch KSRC=DIR  drivers/xen/xfab for that Linux tree (docs/kernel-patch.md)"
	@echo "make unit           userspace unit tests of common/ (ASan+UBSan)"
	@echo "make fuzz           libFuzzer on common/'s validators (FUZZ_SECONDS=60 each)"
	@echo "make style          checkpatch.pl over the kernel code (no findings)"
	@echo "make sparse         the modules built with sparse (C=2), 6.12 headers"
	@echo "make vm-check SCENARIOS='001 002'  selected VM scenarios only"
	@echo "make deps           install the host packages the testbed needs"
	@echo "make testbed-clean  drop the cached testbed image and build chroots"

# $(call kbuild_each,DIRS,ARGS): kbuild with ARGS in each of DIRS, in
# turn, stopping at the first that fails.
kbuild_each = @for d in $(1); do \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/$$d $(2) || exit 1; \
	done

modules:
	$(call kbuild_each,$(MODDIRS),modules)

# tests/wnprobe calls xfab_window's API: modpost needs its symbols.
test-modules:
	$(call kbuild_each,$(TEST_MODDIRS),KBUILD_EXTRA_SYMBOLS=$(CURDIR)/window/Module.symvers modules)

# Into /lib/modules/<version>/updates on every kernel (6.1's kbuild would
# pick extra/, 6.12's updates/); kbuild runs depmod. The stock drivers stay.
install: modules
	$(call kbuild_each,$(MODDIRS),INSTALL_MOD_DIR=updates modules_install)

helpers:
	@mkdir -p $(HELPERS_OUT)
	$(CC) -O2 -Wall -Wextra -Werror -o $(HELPERS_OUT)/xfab-xfer \
		tests/vm/helpers/xfab-xfer.c -lm
	$(CC) -O2 -Wall -Wextra -Werror -o $(HELPERS_OUT)/xfab-records \
		tests/vm/helpers/xfab-records.c
	$(CC) -O2 -Wall -Wextra -Werror -o $(HELPERS_OUT)/xfab-spray \
		tests/vm/helpers/xfab-spray.c
	$(CC) -O2 -Wall -Wextra -Werror -o $(HELPERS_OUT)/xfab-peek \
		tests/vm/helpers/xfab-peek.c -lxenforeignmemory -lxencall
	$(MAKE) -s toolstack TOOLSTACK_OUT=$(HELPERS_OUT)

# xfabctl, against the Xen libraries of the system it is built on
# (Debian: libxen-dev); the appliance-group commands need a hypervisor
# with xen-patches/ applied.
TOOLSTACK_OUT ?= build/toolstack
# CFLAGS from the environment when set (dpkg-buildflags in make deb)
TOOLSTACK_CFLAGS ?= $(or $(CFLAGS),-O2)
toolstack:
	@mkdir -p $(TOOLSTACK_OUT)
	$(CC) $(TOOLSTACK_CFLAGS) -Wall -Wextra $(if $(XFAB_WERROR),-Werror) $(CPPFLAGS) \
		-o $(TOOLSTACK_OUT)/xfabctl toolstack/xfabctl.c toolstack/status.c \
		$(LDFLAGS) -lxenstore -lxencall
	install -m 755 toolstack/xfab-appliance $(TOOLSTACK_OUT)/xfab-appliance

deb:
	packaging/deb.sh

# drivers/xen/xfab, Kconfig and Makefile hooks, the compat header
# force-included as out of tree; into build/kernel-patch/
kernel-patch:
	@[ -n "$(KSRC)" ] || { echo "make kernel-patch: set KSRC to a Linux source tree," \
		"e.g. KSRC=/usr/src/linux-source-6.12" >&2; exit 2; }
	packaging/kernel-patch.py $(KSRC)

build/unit/xfab-unit: $(UNIT_SRC) $(COMMON_SRC) $(wildcard common/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -o $@ $(UNIT_SRC) $(COMMON_SRC)

# Two suites, two targets: with make -k one failing does not hide the other.
unit: unit-core unit-harness

unit-core: build/unit/xfab-unit
	./build/unit/xfab-unit

unit-harness:
	python3 tests/unit/test_harness.py

deps:
	tests/vm/deps.sh

style:
	tests/style.sh

sparse:
	tests/sparse.sh

# Coverage-guided fuzzing of the validators with libFuzzer (clang), each
# target for FUZZ_SECONDS; the corpus stays in build/fuzz between runs.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz:
	@tests/vm/deps.sh clang libclang-rt-dev
	@mkdir -p build/fuzz
	@for t in $(FUZZ_TARGETS); do \
		clang -g -O1 -fsanitize=fuzzer,address,undefined \
			-fno-sanitize-recover=all -Icommon -o build/fuzz/$$t \
			tests/fuzz/fuzz_$$t.c $(COMMON_SRC) || exit 1; \
		mkdir -p build/fuzz/corpus-$$t; \
		echo "fuzz $$t for $(FUZZ_SECONDS)s"; \
		build/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=512 \
			-print_final_stats=1 build/fuzz/corpus-$$t 2>build/fuzz/$$t.log \
			|| { tail -n 40 build/fuzz/$$t.log; exit 1; }; \
		grep -E 'stat::number_of_executed_units|cov:' build/fuzz/$$t.log | tail -n 2; \
	done

check:
	tests/check.sh

check-full:
	XFAB_FULL=1 tests/check.sh

xen:
	tests/vm/xen-build.sh

vm-check:
	tests/vm/run.py $(if $(SCENARIOS),--scenarios "$(SCENARIOS)")

bench:
	tests/bench/run.sh

bench-quick:
	tests/bench/run.sh --quick

testbed-clean:
	rm -rf $${XFAB_CACHE:-/var/cache/xfab}

clean:
	rm -rf build
	@for d in $(MODDIRS) $(TEST_MODDIRS); do \
		[ -d $(KDIR) ] && $(MAKE) -C $(KDIR) M=$(CURDIR)/$$d clean >/dev/null; \
	done; true
