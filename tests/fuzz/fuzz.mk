# fuzz.mk - fuzzing the device (issue: hardening). Included by the top-level Makefile.
#   make fuzz-device SECONDS=N   fuzz the device for N seconds through qtest against a
#                                QEMU built with AddressSanitizer + UBSan (built once)
# A short run against the regular QEMU is part of make check (test-fuzz-device.sh).

FUZZ_DEVICE := $(BUILD)/tests/fuzz-device
FUZZ_SECONDS := $(if $(SECONDS),$(SECONDS),60)

$(FUZZ_DEVICE): tests/fuzz/fuzz-device.c tests/fuzz/fuzz_rand.h $(wildcard uapi/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $<

.PHONY: fuzz-device qemu-asan
qemu-asan: | $(SETUP_STAMP)
	@MXA_QEMU_FLAVOR=asan scripts/build-qemu.sh >/dev/null

fuzz-device: $(FUZZ_DEVICE) qemu-asan
	@mkdir -p $(BUILD)/fuzz
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		$(FUZZ_DEVICE) --qemu $(MXA_CACHE)/qemu/qemu-system-x86_64-asan \
		--seconds $(FUZZ_SECONDS) $(if $(SEED),--seed $(SEED))
