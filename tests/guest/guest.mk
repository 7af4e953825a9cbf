# SPDX-License-Identifier: MIT
#
# guest.mk - the kselftests run in the guest, one binary per area: each is built
# statically into $(BUILD)/guest/<name> and runs there as /tests/<name> (with mxa.ko
# loaded and /dev/accel/accel0 present). Included by the top-level Makefile after
# libaccel/libaccel.mk; appends to GUEST_TESTS.

GUEST_TEST_NAMES := device bo submit uring errors isa async tma groups tile mma cvt asm tools examples
# Runs after every other test: it unbinds the device and reloads mxa.ko.
GUEST_TEST_LAST := lifecycle
GUEST_TEST_BINS := $(patsubst %,$(BUILD)/guest/%,$(GUEST_TEST_NAMES) $(GUEST_TEST_LAST))
GUEST_TESTS += $(GUEST_TEST_BINS)

GUEST_TEST_CFLAGS := $(LIBACCEL_CFLAGS) $(ACCEL_KSFT_CFLAGS) -Itests/guest

.PHONY: guest-tests
guest-tests: $(GUEST_TEST_BINS)

$(BUILD)/guest/%: tests/guest/%.c tests/guest/mxa_test.h $(LIBACCEL_LIB) $(LIBACCEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_TEST_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)
