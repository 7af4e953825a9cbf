# fuzz.mk - fuzzing (issue: hardening). Included by the top-level Makefile.
#   make fuzz-device SECONDS=N   coverage-guided fuzzing of the device inside QEMU's own
#                                fuzzing framework (qemu-fuzz-x86_64 --fuzz-target=mxa:
#                                libFuzzer, clang, ASan + UBSan; built once), seeded with
#                                fuzz-device's inputs; the corpus grows in
#                                $(BUILD)/fuzz/device-corpus
#   make fuzz-device-qtest SECONDS=N   the random (not coverage-guided) fuzz-device
#                                through qtest against a QEMU built with ASan + UBSan
#   make fuzz-asm SECONDS=N      libFuzzer (coverage guided, clang, ASan + UBSan) on
#                                libaccel's assembler and disassembler, round trips as the
#                                oracle; the corpus grows in $(BUILD)/fuzz/asm-corpus
#   make fuzz-tmap SECONDS=N     the same on the tensor-map encoder, the device's rules
#                                (mxa_tensor_map_check()) as the oracle
#   make fuzz-args SECONDS=N     the same on the driver's argument checks
#                                (driver/mxa_args.h, built in userspace), the uAPI's
#                                rules restated as the oracle
# Short runs of all are part of make check (test-fuzz-device.sh, test-fuzz-libaccel.sh).

FUZZ_DEVICE := $(BUILD)/tests/fuzz-device
FUZZ_SECONDS := $(if $(SECONDS),$(SECONDS),60)

$(FUZZ_DEVICE): tests/fuzz/fuzz-device.c tests/fuzz/fuzz_device_gen.h tests/fuzz/fuzz_rand.h \
		$(wildcard uapi/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $<

# The assembler, disassembler and what they call, nothing that needs a device; the
# linker drops the rest (the engine's kernels are not needed: mxe_formats, mxe_mx, mxe_nvfp4).
FUZZ_ASM := $(BUILD)/tests/fuzz-asm
FUZZ_CC ?= clang
FUZZ_ASM_SRCS := tests/fuzz/fuzz-asm.c $(LIBACCEL_SRCS) \
	qemu-device/engine/mxe_formats.c qemu-device/engine/mxe_mx.c qemu-device/engine/mxe_nvfp4.c
FUZZ_SAN := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

$(FUZZ_ASM): $(FUZZ_ASM_SRCS) $(LIBACCEL_HDRS) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=gnu11 -g -O1 -ffp-contract=off $(FUZZ_SAN) -ffunction-sections \
		-fdata-sections -Wl,--gc-sections -pthread -Iuapi -I$(LIBACCEL_DIR) \
		-Iqemu-device/engine $(DRM_CFLAGS) -o $@ $(FUZZ_ASM_SRCS) -luring -ldrm -lm

FUZZ_TMAP := $(BUILD)/tests/fuzz-tmap
$(FUZZ_TMAP): tests/fuzz/fuzz-tmap.c tests/fuzz/fuzz_edge.h $(LIBACCEL_DIR)/tmap.c \
		$(LIBACCEL_HDRS) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=gnu11 -g -O1 $(FUZZ_SAN) -Iuapi -I$(LIBACCEL_DIR) $(DRM_CFLAGS) -o $@ \
		tests/fuzz/fuzz-tmap.c $(LIBACCEL_DIR)/tmap.c

# The driver's argument checks, in userspace (tests/fuzz/mxa_kcompat.h).
FUZZ_ARGS := $(BUILD)/tests/fuzz-args
$(FUZZ_ARGS): tests/fuzz/fuzz-args.c tests/fuzz/fuzz_edge.h tests/fuzz/mxa_kcompat.h driver/mxa_args.h \
		$(wildcard uapi/*.h uapi/drm/*.h) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=gnu11 -g -O1 $(FUZZ_SAN) -Idriver -Iuapi -Itests/fuzz $(DRM_CFLAGS) \
		-o $@ tests/fuzz/fuzz-args.c

# The seed corpus: libaccel's example programs (text inputs start with a 0 byte).
FUZZ_ASM_CORPUS := $(BUILD)/fuzz/asm-corpus
$(FUZZ_ASM_CORPUS)/.seeded: $(wildcard libaccel/examples/*.s)
	@mkdir -p $(dir $@)
	@for s in $^; do { printf '\000'; cat "$$s"; } >$(dir $@)/seed-$$(basename $$s); done
	@touch $@

.PHONY: fuzz-device fuzz-device-qtest qemu-asan qemu-fuzz fuzz-asm fuzz-tmap fuzz-args
fuzz-asm: $(FUZZ_ASM) $(FUZZ_ASM_CORPUS)/.seeded
	$(FUZZ_ASM) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
		-artifact_prefix=$(BUILD)/fuzz/ \
		$(FUZZ_ASM_CORPUS)

qemu-asan: | $(SETUP_STAMP)
	@MXA_QEMU_FLAVOR=asan scripts/build-qemu.sh >/dev/null

fuzz-device-qtest: $(FUZZ_DEVICE) qemu-asan
	@mkdir -p $(BUILD)/fuzz
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		$(FUZZ_DEVICE) --qemu $(MXA_CACHE)/qemu/qemu-system-x86_64-asan \
		--seconds $(FUZZ_SECONDS) $(if $(SEED),--seed $(SEED))

# QEMU's libFuzzer binary with the mxa target (tests/fuzz/mxa_qemu_fuzz.c).
QEMU_FUZZ := $(MXA_CACHE)/qemu/qemu-fuzz-x86_64
qemu-fuzz: | $(SETUP_STAMP)
	@MXA_QEMU_FLAVOR=fuzz scripts/build-qemu.sh >/dev/null

# Its seeds: fuzz-device's first 200 inputs of seed 1, as the byte streams rnd() reads.
FUZZ_DEVICE_SEEDS := $(BUILD)/fuzz/device-seeds
$(FUZZ_DEVICE_SEEDS)/.seeded: $(FUZZ_DEVICE)
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	@$(FUZZ_DEVICE) --write-seeds $(dir $@) --inputs 200 --seed 1 >/dev/null
	@touch $@

fuzz-device: qemu-fuzz $(FUZZ_DEVICE_SEEDS)/.seeded
	@tests/fuzz/run-qemu-fuzz.sh $(FUZZ_SECONDS) $(BUILD)/fuzz/device-corpus $(FUZZ_DEVICE_SEEDS)

fuzz-tmap: $(FUZZ_TMAP)
	@mkdir -p $(BUILD)/fuzz/tmap-corpus
	$(FUZZ_TMAP) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/tmap-corpus

fuzz-args: $(FUZZ_ARGS)
	@mkdir -p $(BUILD)/fuzz/args-corpus
	$(FUZZ_ARGS) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/args-corpus
