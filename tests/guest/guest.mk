# SPDX-License-Identifier: MIT
#
# guest.mk - the kselftests run in the guest, one binary per area: each is built
# statically into $(BUILD)/guest/<name> and runs there as /tests/<name> (with mxa.ko
# loaded and /dev/accel/accel0 present). Included by the top-level Makefile after
# libaccel/libaccel.mk; appends to GUEST_TESTS.

GUEST_TEST_NAMES := device bo prime submit uring errors isa async tma wgmma groups queues observe tile mma cvt asm tools examples vm sync gemm reset isolation errors_classes grid stress
# Run after every other test: lifecycle unbinds the device and reloads mxa.ko; hotplug
# removes the device for good (QMP device_del through the harness).
GUEST_TEST_LAST := lifecycle hotplug
GUEST_TEST_BINS := $(patsubst %,$(BUILD)/guest/%,$(GUEST_TEST_NAMES) $(GUEST_TEST_LAST))
GUEST_TESTS += $(GUEST_TEST_BINS)

GUEST_TEST_CFLAGS := $(LIBACCEL_CFLAGS) $(ACCEL_KSFT_CFLAGS) -Itests/guest

.PHONY: guest-tests
guest-tests: $(GUEST_TEST_BINS)

$(BUILD)/guest/%: tests/guest/%.c tests/guest/mxa_test.h tests/guest/accel_test.h $(LIBACCEL_LIB) $(LIBACCEL_HDRS) \
		| $(KSFT_INC)/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_TEST_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)
