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
QEMU := $(MXA_CACHE)/qemu/qemu-system-x86_64

CC := gcc
WARN := -Wall -Wextra -Wno-unused-parameter
HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iuapi
DRM_CFLAGS := $(shell pkg-config --cflags libdrm 2>/dev/null)

HOST_TESTS :=
GUEST_TESTS :=
GUEST_PROGS :=

-include qemu-device/engine/engine.mk
-include libaccel/libaccel.mk
-include tests/guest/guest.mk
include bench/bench.mk
include tests/fuzz/fuzz.mk
include tests/stress/stress.mk

# The test machinery's own test (needs QEMU, the kernel and the initramfs), and the
# driver lint (checkpatch, W=1, sparse).
HOST_SCRIPT_TESTS := tests/host/test-harness.sh tests/host/test-fuzz-device.sh \
	tests/host/test-driver-lint.sh

.PHONY: all setup setup-packages kernel qemu driver initramfs check check-host check-guest \
	demo clean vm-test

all: $(HOST_TESTS) driver $(GUEST_TESTS) $(GUEST_PROGS) $(FUZZ_DEVICE)

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
# (2: sparse and checkpatch for the driver lint), so set-up machines run them again.
SETUP_REV := 2
SETUP_STAMP := $(MXA_CACHE)/setup-$(KVER)-r$(SETUP_REV).stamp
$(SETUP_STAMP):
	@scripts/setup-packages.sh
	@scripts/fetch-kernel.sh
	@mkdir -p $(dir $@) && touch $@
.PHONY: ensure-setup
ensure-setup: | $(SETUP_STAMP)

# ---- the kernel driver (out of tree, through the top-level Kbuild) ----
# make install also installs the udev rule for /dev/accel permissions (uapi.rst).
.PHONY: udev-install
install: udev-install
udev-install:
	install -d $(DESTDIR)$(PREFIX)/lib/udev/rules.d
	install -m 644 driver/70-mxa.rules $(DESTDIR)$(PREFIX)/lib/udev/rules.d/

DRIVER_SRCS := $(wildcard driver/*.c driver/*.h driver/Kbuild) $(wildcard uapi/*.h uapi/drm/*.h) Kbuild
driver: $(BUILD)/driver/mxa.ko
$(BUILD)/driver/mxa.ko: $(DRIVER_SRCS) | $(SETUP_STAMP)
	@echo "  KBUILD  mxa.ko (kernel $(KVER))"
	@$(MAKE) -s -C $(KDIR) M=$(TOP) modules
	@mkdir -p $(dir $@) && cp driver/mxa.ko $@

# ---- guest image ----
initramfs: $(BUILD)/initramfs.cpio.gz
$(BUILD)/initramfs.cpio.gz: $(BUILD)/driver/mxa.ko $(GUEST_TESTS) $(GUEST_PROGS) \
		tests/vm/mkinitramfs.sh tests/vm/init.sh | $(SETUP_STAMP)
	@tests/vm/mkinitramfs.sh $@ $(BUILD)/driver/mxa.ko $(GUEST_TESTS) $(GUEST_PROGS)

# ---- tests ----
check: | $(SETUP_STAMP)
	@$(MAKE) -s qemu-bin all initramfs
	@tests/run-check.sh $(BUILD) "$(HOST_TESTS) $(HOST_SCRIPT_TESTS)" "$(notdir $(GUEST_TESTS))"

.PHONY: qemu-bin
qemu-bin: | $(SETUP_STAMP)
	@scripts/build-qemu.sh >/dev/null

# Run guest tests only (or a subset: make vm-test TESTS="bo submit").
vm-test: | $(SETUP_STAMP)
	@$(MAKE) -s qemu-bin all initramfs
	@tests/vm/run-guest.py --qemu $(QEMU) --kernel $(KROOT)/boot/vmlinuz-$(KVER) \
		--initrd $(BUILD)/initramfs.cpio.gz --log $(BUILD)/guest-console.log \
		$(if $(TESTS),--tests "$(TESTS)",--tests "$(notdir $(GUEST_TESTS))")

# The demo: an MX-FP8 GEMM (size: DEMO_GEMM="M N K"), then a job-submission workload.
DEMO_GEMM ?= 1024 1024 1024
demo: | $(SETUP_STAMP)
	@$(MAKE) -s qemu-bin all initramfs
	@tests/vm/run-guest.py --qemu $(QEMU) --kernel $(KROOT)/boot/vmlinuz-$(KVER) \
		--initrd $(BUILD)/initramfs.cpio.gz --log $(BUILD)/demo-console.log \
		--run "/bin/accel-gemm $(DEMO_GEMM)" --run "/bin/accel-demo" --raw

clean:
	rm -rf $(BUILD)
	-$(MAKE) -s -C $(KDIR) M=$(TOP) clean 2>/dev/null
