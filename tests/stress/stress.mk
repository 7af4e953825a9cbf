# SPDX-License-Identifier: MIT
#
# stress.mk - driver fuzzing, concurrency stress and fault injection in the guest
# (Documentation/hardening.rst). Included by the top-level Makefile.
#   make fuzz-driver SECONDS=N   boot a guest, fuzz mxa.ko's ioctls and io_uring commands
#                                for N s (WORKERS=W processes), check debugfs counters
#                                for leaks; the harness checks the kernel log
#   make stress SECONDS=N        K processes x T threads (PROCS=K THREADS=T) of checked
#                                ioctl and io_uring jobs with fault injection, then
#                                RELOADS rmmod/insmod cycles (default 100)
#   KERNEL=debug                 either on the debug guest kernel (kmemleak at the end)
# Short runs of both are the guest kselftest "stress" in make check.

FUZZ_DRIVER := $(BUILD)/bin/fuzz-driver
MXA_STRESS := $(BUILD)/bin/mxa-stress
STRESS_KSFT := $(BUILD)/guest/stress
GUEST_PROGS += $(FUZZ_DRIVER) $(MXA_STRESS)

STRESS_CFLAGS := $(LIBACCEL_CFLAGS) -Itests/stress
STRESS_SECONDS := $(if $(SECONDS),$(SECONDS),60)
WORKERS ?= 4
PROCS ?= 3
THREADS ?= 2
RELOADS ?= 100

$(FUZZ_DRIVER): tests/fuzz/fuzz-driver.c tests/fuzz/fuzz_rand.h tests/stress/mxa_counters.h $(LIBACCEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(STRESS_CFLAGS) -static -o $@ $< -luring

$(MXA_STRESS): tests/stress/mxa-stress.c tests/stress/mxa_counters.h tests/stress/kfault.h $(LIBACCEL_LIB) $(LIBACCEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(STRESS_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)

# The kselftest (its name is in GUEST_TEST_NAMES of tests/guest/guest.mk).
$(STRESS_KSFT): tests/stress/stress-ksft.c tests/stress/mxa_counters.h tests/guest/mxa_test.h \
		$(LIBACCEL_HDRS) | $(KSFT_INC)/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_TEST_CFLAGS) -Itests/stress -static -o $@ $<

# KERNEL=debug: the run boots the debug guest kernel (KASAN, lockdep, kmemleak, fault
# injection; the Makefile's "debug guest kernel" part), whose /init ends with a kmemleak
# scan that fails the run on any unreferenced object.
STRESS_KERNEL_READY := $(if $(filter debug,$(KERNEL)),$(DEBUG_INITRD))
STRESS_RUN = $(if $(filter debug,$(KERNEL)),MXA_GUEST_KERNEL=$$(scripts/build-debug-kernel.sh)/arch/x86/boot/bzImage \
	MXA_INITRD=$(DEBUG_INITRD)) $(BOOT_GUEST) --timeout $$(($(STRESS_SECONDS) * 3 + 900))

.PHONY: fuzz-driver stress
fuzz-driver: $(GUEST_READY) $(STRESS_KERNEL_READY)
	@mkdir -p $(BUILD)/fuzz
	@$(STRESS_RUN) --log $(BUILD)/fuzz/driver-console.log --raw \
		--run "/bin/fuzz-driver --seconds $(STRESS_SECONDS) --workers $(WORKERS) $(if $(SEED),--seed $(SEED))"

stress: $(GUEST_READY) $(STRESS_KERNEL_READY)
	@mkdir -p $(BUILD)/stress
	@$(STRESS_RUN) --log $(BUILD)/stress/console.log --raw \
		--run "/bin/mxa-stress --seconds $(STRESS_SECONDS) --procs $(PROCS) --threads $(THREADS) --faults $(if $(SEED),--seed $(SEED))" \
		--run "/bin/mxa-stress --reload $(RELOADS)"
