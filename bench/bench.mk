# bench.mk - benchmarks (never part of make check). Included by the top-level Makefile.
#   make bench          every benchmark: a table of ratios, build/bench/*.csv, PNG plots
#   make bench-submit   job submission (guest) against null_blk through io_uring
# bench-engine comes from qemu-device/engine/engine.mk.

BENCH_SUBMIT := $(BUILD)/bin/bench-submit
GUEST_PROGS += $(BENCH_SUBMIT)

$(BENCH_SUBMIT): bench/bench-submit.c $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)

BENCH_SECONDS ?= 1

.PHONY: bench bench-submit
bench-submit: | $(SETUP_STAMP)
	@$(MAKE) -s qemu-bin all initramfs
	@mkdir -p $(BUILD)/bench
	@tests/vm/run-guest.py --qemu $(QEMU) --kernel $(KROOT)/boot/vmlinuz-$(KVER) \
		--initrd $(BUILD)/initramfs.cpio.gz --log $(BUILD)/bench/submit-console.log \
		--run "/bin/bench-submit --seconds $(BENCH_SECONDS)" >$(BUILD)/bench/submit.csv
	@bench/report.sh $(BUILD)/bench

bench: bench-engine bench-submit
	@cp $(BUILD)/bench-engine.csv $(BUILD)/bench/engine.csv
	@bench/report.sh $(BUILD)/bench
