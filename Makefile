# MXA top-level Makefile.
#   make demo    set up what is missing, boot a guest, run the demo through libaccel
#   make check   host tests + guest kselftests; one TAP stream, "N passed, N failed"
#   make setup   only the setup (packages, kernel, QEMU); needs root
#   make golden GOLDEN=<dir> [NUMERICS=exact|fast|hopper]   golden vectors against the engine
#   make bench   benchmarks (never part of check)
SHELL := /bin/bash
.DEFAULT_GOAL := all
BUILD ?= build
TOP := $(CURDIR)

env = $(shell . scripts/mxa-env.sh && echo $$$(1))
MXA_CACHE := $(call env,MXA_CACHE)
KVER := $(call env,MXA_KVER)
KSRC_VERSION := $(call env,MXA_KSRC_VERSION)
KROOT := $(MXA_CACHE)/kernel/$(KVER)/root
KDIR := $(KROOT)/usr/src/linux-headers-$(KVER)
KSFT_INC := $(MXA_CACHE)/ksft/$(KSRC_VERSION)/include

# Scripts see the same build folder (scripts/mxa-env.sh reads MXA_BUILD).
export MXA_BUILD := $(abspath $(BUILD))
# The debug guest kernel's mxa.ko and initramfs (its part below; stress.mk uses them).
DEBUG_BUILD := $(BUILD)/debug
DEBUG_KO := $(DEBUG_BUILD)/mxa.ko
DEBUG_INITRD := $(DEBUG_BUILD)/initramfs.cpio.gz
# Boots a guest with this checkout's QEMU, kernel and initramfs (run-guest.py options follow).
BOOT_GUEST := tests/vm/boot-guest.sh
# What a goal that boots a guest needs built (its prerequisites; see GUEST_GOALS).
GUEST_READY := qemu-bin all initramfs

CC := gcc
WARN := -Wall -Wextra -Wno-unused-parameter
HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iuapi
DRM_CFLAGS := $(shell pkg-config --cflags libdrm 2>/dev/null)

HOST_TESTS :=
KSFT_HOST_TESTS :=
GUEST_TESTS :=
GUEST_PROGS :=

-include qemu-device/engine/engine.mk
-include libaccel/libaccel.mk
-include tests/guest/guest.mk
include bench/bench.mk
include tests/fuzz/fuzz.mk
include tests/stress/stress.mk

# SANITIZE=1: the host programs built with AddressSanitizer and UBSan (any report ends
# the program, leaks included); make check builds its C host tests so, under
# $(BUILD)/san, and runs those (SAN_HOST_TESTS) in place of the plain ones.
SAN_BUILD := $(BUILD)/san
SAN_HOST_TESTS := $(patsubst $(BUILD)/%,$(SAN_BUILD)/%,$(KSFT_HOST_TESTS))
ifdef SANITIZE
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
HOST_CFLAGS += $(SAN_FLAGS)
# the engine's stack frames uninstrumented: ASan aligns a frame's locals to 32 bytes,
# and GCC's AVX-512 code stores 64-byte vectors to locals it takes as 64-byte aligned
# (vmovaps): every sanitized test faulted on an AVX-512 host. Heap and globals stay checked.
ENGINE_CFLAGS += $(SAN_FLAGS) --param asan-stack=0
LIBACCEL_CFLAGS += $(SAN_FLAGS)
endif

# The test machinery's own test (needs QEMU, the kernel and the initramfs), and the
# driver lint (checkpatch, W=1, sparse).
HOST_SCRIPT_TESTS := tests/host/test-harness.sh tests/host/test-fuzz-device.sh \
	tests/host/test-fuzz-libaccel.sh tests/host/test-driver-lint.sh tests/host/test-golden-runner.sh

.PHONY: all setup setup-packages kernel qemu driver initramfs check demo clean vm-test

# A plain `make` builds what it can and installs nothing: mxa.ko needs the guest kernel's
# headers, and the kselftest programs the kselftest headers, which `make setup` (or
# `make check`, `make demo`) fetches into $(MXA_CACHE).
KSFT_HDR := $(KSFT_INC)/kselftest_harness.h
KSFT_BUILT := $(GUEST_TESTS) $(KSFT_HOST_TESTS)
ALL_BUILT := $(filter-out $(KSFT_BUILT),$(HOST_TESTS) $(GUEST_PROGS)) $(FUZZ_DEVICE) \
	$(if $(wildcard $(KSFT_HDR)),$(KSFT_BUILT)) $(if $(wildcard $(KDIR)/Makefile),driver)
all: $(ALL_BUILT)
	$(if $(wildcard $(KDIR)/Makefile),,@echo "make: mxa.ko not built: no kernel headers in $(MXA_CACHE) (make setup fetches them)")
	$(if $(wildcard $(KSFT_HDR)),,@echo "make: kselftest programs not built: no kselftest headers in $(MXA_CACHE) (make setup fetches them)")

$(KDIR)/Makefile $(KSFT_HDR):
	@echo "mxa: $@ is missing: run 'make setup' (as root) to fetch the guest kernel and its headers" >&2; exit 1

# ---- setup: idempotent; each step does nothing when already done ----
setup: setup-packages kernel qemu
setup-packages:
	@scripts/setup-packages.sh
kernel:
	@scripts/fetch-kernel.sh
qemu:
	@scripts/build-qemu.sh >/dev/null

# The stamp exists once packages, kernel and headers are in place, so `make check` on a
# set-up machine never calls apt. Bump SETUP_REV when the setup scripts gain a step
# (2: sparse and checkpatch for the driver lint; 3: the headers' Makefile points into the
# cache, not /usr/src; 4: clang and libFuzzer for make fuzz-asm; 5: libelf and libssl
# headers for the debug guest kernel), so set-up machines run them again.
SETUP_REV := 5
SETUP_STAMP := $(MXA_CACHE)/setup-$(KVER)-r$(SETUP_REV).stamp
$(SETUP_STAMP):
	@scripts/setup-packages.sh
	@scripts/fetch-kernel.sh
	@mkdir -p $(dir $@) && touch $@
.PHONY: ensure-setup
ensure-setup: | $(SETUP_STAMP)

# Goals that boot a guest need a set-up machine and everything built. For them make
# includes the setup stamp: GNU make first remakes a missing included file (that runs
# the setup) and then reads every makefile again, so what the setup installed (packages
# for pkg-config, the kernel and kselftest headers) is seen, with no second make.
GUEST_GOALS := check demo vm-test debug-guest bench bench-gemm bench-submit fuzz-driver stress
ifneq ($(filter $(GUEST_GOALS),$(MAKECMDGOALS)),)
-include $(SETUP_STAMP)
MAKEFLAGS += --silent
endif

# ---- the kernel driver (out of tree, through the top-level Kbuild) ----
# make install also installs the udev rule for /dev/accel permissions (uapi.rst).
.PHONY: udev-install
install: udev-install
udev-install:
	install -d $(DESTDIR)$(PREFIX)/lib/udev/rules.d
	install -m 644 driver/70-mxa.rules $(DESTDIR)$(PREFIX)/lib/udev/rules.d/

DRIVER_SRCS := $(wildcard driver/*.c driver/*.h driver/Kbuild) $(wildcard uapi/*.h uapi/drm/*.h) Kbuild
driver: $(BUILD)/driver/mxa.ko
$(BUILD)/driver/mxa.ko: $(DRIVER_SRCS) | $(KDIR)/Makefile
	@echo "  KBUILD  mxa.ko (kernel $(KVER))"
	@$(MAKE) -s -C $(KDIR) M=$(TOP) modules
	@mkdir -p $(dir $@) && cp driver/mxa.ko $@

# ---- the debug guest kernel (KASAN, lockdep, UBSAN, kmemleak, fault injection) ----
# Built once from linux-source-6.12 into the cache (scripts/build-debug-kernel.sh);
# mxa.ko is built for it from a copy of the sources under $(BUILD)/debug, so that its
# objects never mix with those of the Debian-kernel build in driver/.
.PHONY: debug-kernel debug-guest
debug-kernel: | $(SETUP_STAMP)
	@scripts/build-debug-kernel.sh >/dev/null
$(DEBUG_KO): $(DRIVER_SRCS) scripts/debug-kernel.config | debug-kernel
	@echo "  KBUILD  mxa.ko (debug kernel)"
	@kobj=$$(scripts/build-debug-kernel.sh) && stage=$(abspath $(DEBUG_BUILD))/src && \
		rm -rf $$stage && mkdir -p $$stage/driver && cp Kbuild $$stage/ && \
		cp driver/*.c driver/*.h driver/Kbuild $$stage/driver/ && cp -r uapi $$stage/ && \
		$(MAKE) -s -C $$kobj M=$$stage modules && cp $$stage/driver/mxa.ko $@
$(DEBUG_INITRD): $(DEBUG_KO) $(GUEST_TESTS) $(GUEST_PROGS) tests/vm/mkinitramfs.sh tests/vm/init.sh
	@MXA_GUEST_EXTRA_MODULES= tests/vm/mkinitramfs.sh $@ $(DEBUG_KO) $(GUEST_TESTS) $(GUEST_PROGS)
# The whole guest suite on the debug kernel (make check does this too).
debug-guest: $(GUEST_READY) $(DEBUG_INITRD)
	@MXA_GUEST_KERNEL=$$(scripts/build-debug-kernel.sh)/arch/x86/boot/bzImage \
		MXA_INITRD=$(DEBUG_INITRD) $(BOOT_GUEST) --log $(BUILD)/guest-debug-console.log \
		$(if $(TESTS),--tests "$(TESTS)",--tests "$(notdir $(GUEST_TESTS))")

# ---- guest image ----
initramfs: $(BUILD)/initramfs.cpio.gz
$(BUILD)/initramfs.cpio.gz: $(BUILD)/driver/mxa.ko $(GUEST_TESTS) $(GUEST_PROGS) \
		tests/vm/mkinitramfs.sh tests/vm/init.sh
	@tests/vm/mkinitramfs.sh $@ $(BUILD)/driver/mxa.ko $(GUEST_TESTS) $(GUEST_PROGS)

# ---- tests ----
check: $(GUEST_READY) $(DEBUG_INITRD) qemu-fuzz $(FUZZ_DEVICE_SEEDS)/.seeded \
	$(ENGINE_GOLDEN_RUNNER) $(FUZZ_ASM) $(FUZZ_TMAP) $(FUZZ_ARGS) \
	$(FUZZ_ASM_CORPUS)/.seeded san-host-tests
	@tests/run-check.sh $(BUILD) "$(filter-out $(KSFT_HOST_TESTS),$(HOST_TESTS)) \
		$(SAN_HOST_TESTS) $(HOST_SCRIPT_TESTS)" "$(notdir $(GUEST_TESTS))"

# The C host tests with ASan + UBSan (a make of their own: other flags, other folder).
.PHONY: san-host-tests
san-host-tests: | $(SETUP_STAMP)
	@$(MAKE) -s --no-print-directory BUILD=$(SAN_BUILD) SANITIZE=1 $(SAN_HOST_TESTS)

.PHONY: qemu-bin
qemu-bin: | $(SETUP_STAMP)
	@scripts/build-qemu.sh >/dev/null

# Run guest tests only (or a subset: make vm-test TESTS="bo submit").
vm-test: $(GUEST_READY)
	@$(BOOT_GUEST) --log $(BUILD)/guest-console.log \
		$(if $(TESTS),--tests "$(TESTS)",--tests "$(notdir $(GUEST_TESTS))")

# The demo: an MX-FP8 GEMM (size: DEMO_GEMM="M N K"), then a job-submission workload.
DEMO_GEMM ?= 1024 1024 1024
demo: $(GUEST_READY)
	@$(BOOT_GUEST) --log $(BUILD)/demo-console.log \
		--run "/bin/accel-gemm $(DEMO_GEMM)" --run "/bin/accel-demo" --raw

clean:
	rm -rf $(BUILD)
	-$(MAKE) -s -C $(KDIR) M=$(TOP) clean 2>/dev/null
