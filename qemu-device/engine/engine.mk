# SPDX-License-Identifier: MIT
#
# engine.mk - the MXA matrix engine: libmxaengine.a, its host tests, the
# golden-vector runner and the engine benchmark.
#
# Included by the top-level Makefile; also works alone (the host tests print TAP
# through the kernel's kselftest.h, which make setup fetches into the cache):
#   make -f qemu-device/engine/engine.mk [engine-all|engine-check|golden|bench-engine]
#
# Defines: ENGINE_SRCS, ENGINE_LIB, HOST_TESTS += the engine's host tests,
# targets golden (GOLDEN ?= tests/golden/h200, the H200 cases kept in the tree),
# bench-engine, engine-check.

BUILD ?= build
GOLDEN ?= tests/golden/h200
CC ?= cc

ENGINE_DIR := qemu-device/engine
ENGINE_SAVED_GOAL := $(.DEFAULT_GOAL)

ENGINE_SRCS := \
	$(ENGINE_DIR)/mxe_formats.c \
	$(ENGINE_DIR)/mxe_mx.c \
	$(ENGINE_DIR)/mxe_nvfp4.c \
	$(ENGINE_DIR)/mxe_xacc.c \
	$(ENGINE_DIR)/mxe_gemm.c \
	$(ENGINE_DIR)/mxe_exact.c \
	$(ENGINE_DIR)/mxe_gemv.c \
	$(ENGINE_DIR)/mxe_gemv_fast.c \
	$(ENGINE_DIR)/mxe_gemv_nvfp4.c \
	$(ENGINE_DIR)/mxe_interwave.c \
	$(ENGINE_DIR)/mxe_hopper.c \
	$(ENGINE_DIR)/mxe_cublas_plan.c \
	$(ENGINE_DIR)/mxe_tiled.c \
	$(ENGINE_DIR)/mxe_kernels.c \
	$(ENGINE_DIR)/mxe_kernels_avx2.c \
	$(ENGINE_DIR)/mxe_kernels_avx512.c \
	$(ENGINE_DIR)/mxe_ops.c \
	$(ENGINE_DIR)/mxe_wgmma_exact.c \
	$(ENGINE_DIR)/mxe_smem_desc.c \
	$(ENGINE_DIR)/mxe_pool.c \
	$(ENGINE_DIR)/mxe_cpu.c \
	$(ENGINE_DIR)/mxe_golden.c
ENGINE_HDRS := $(wildcard $(ENGINE_DIR)/*.h) uapi/mxa_isa.h uapi/mxa_regs.h
ENGINE_OBJS := $(patsubst $(ENGINE_DIR)/%.c,$(BUILD)/engine/%.o,$(ENGINE_SRCS))
ENGINE_LIB := $(BUILD)/engine/libmxaengine.a

# -ffp-contract=off: the portable kernels must round exactly where the C
# says, so that they give the same bits as the AVX2 kernels.
# -Iuapi: the element types are the ISA's (uapi/mxa_isa.h).
ENGINE_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra \
	-Wno-unused-parameter -ffp-contract=off -fno-fast-math -pthread -Iuapi
ENGINE_LDLIBS := -lm -pthread

ENGINE_TEST_NAMES := formats mx nvfp4 xacc gemm gemv interwave ops threads golden hopper wgmma-desc
ENGINE_HOST_TESTS := $(patsubst %,$(BUILD)/tests/host/test-engine-%,$(ENGINE_TEST_NAMES))
HOST_TESTS += $(ENGINE_HOST_TESTS)
# They print TAP through kselftest.h, whose headers make setup fetches (KSFT_HOST_TESTS).
KSFT_HOST_TESTS += $(ENGINE_HOST_TESTS)
ifndef KSFT_INC	# engine.mk alone
KSFT_INC := $(shell bash -c '. scripts/mxa-env.sh && echo $$MXA_CACHE/ksft/$$MXA_KSRC_VERSION/include')
endif

ENGINE_GOLDEN_RUNNER := $(BUILD)/tests/golden/mxa-golden
# experiment driver for the HOPPER GEMM model (Documentation/numerics.rst)
ENGINE_EXPLORE := $(BUILD)/tests/host/explore-hopper-gemm
# fits the cuBLAS plan table to the H200 grid (qemu-device/engine/mxe_cublas_plans.tsv)
ENGINE_FIT_PLANS := $(BUILD)/tests/host/fit-cublas-plans
ENGINE_BENCH := $(BUILD)/bench/bench-engine

.PHONY: engine-all engine-check golden bench-engine engine-print-srcs

# The source list for QEMU's engine/meson.build (scripts/build-qemu.sh generates it).
engine-print-srcs:
	@echo $(ENGINE_SRCS)

engine-all: $(ENGINE_LIB) $(ENGINE_HOST_TESTS) $(ENGINE_GOLDEN_RUNNER) $(ENGINE_EXPLORE) \
	$(ENGINE_FIT_PLANS)

$(BUILD)/engine/%.o: $(ENGINE_DIR)/%.c $(ENGINE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_CFLAGS) -c -o $@ $<

# The cuBLAS plan table, generated from its TSV (scripts/gen-cublas-plans.sh).
ENGINE_PLANS_INC := $(BUILD)/engine/mxe_cublas_plans.inc
$(ENGINE_PLANS_INC): $(ENGINE_DIR)/mxe_cublas_plans.tsv scripts/gen-cublas-plans.sh
	@mkdir -p $(dir $@)
	sh scripts/gen-cublas-plans.sh $< $@
# Every build of mxe_cublas_plan.c (this one, libaccel's PIC one) finds it here.
$(BUILD)/engine/mxe_cublas_plan.o: $(ENGINE_PLANS_INC)
ENGINE_CFLAGS += -I$(BUILD)/engine

$(ENGINE_LIB): $(ENGINE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/tests/host/test-engine-%: tests/host/test-engine-%.c tests/host/host_check.h tests/host/test-engine-util.h $(ENGINE_LIB) | $(KSFT_INC)/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_CFLAGS) -I$(ENGINE_DIR) -Itests/host -I$(KSFT_INC) \
		-DMXA_GOLDEN_DIR_DEFAULT='"$(abspath tests/golden/h200)"' \
		-DMXA_NVFP4_GOLDEN_DIR='"$(abspath tests/golden/nvfp4)"' -o $@ $< $(ENGINE_LIB) $(ENGINE_LDLIBS)

$(ENGINE_EXPLORE) $(ENGINE_FIT_PLANS): $(BUILD)/tests/host/%: tests/host/%.c $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_CFLAGS) -I$(ENGINE_DIR) -o $@ $< $(ENGINE_LIB) $(ENGINE_LDLIBS)

$(ENGINE_GOLDEN_RUNNER): tests/golden/mxa-golden.c $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_CFLAGS) -I$(ENGINE_DIR) -o $@ $< $(ENGINE_LIB) $(ENGINE_LDLIBS)

golden: $(ENGINE_GOLDEN_RUNNER)
	$(ENGINE_GOLDEN_RUNNER) $(if $(NUMERICS),--accum $(NUMERICS)) $(GOLDEN_FLAGS) $(GOLDEN)

engine-check: $(ENGINE_HOST_TESTS)
	@fail=0; for t in $(ENGINE_HOST_TESTS); do \
		MXA_GOLDEN_DIR=$${MXA_GOLDEN_DIR:-$(GOLDEN)} $$t || fail=1; \
	done; exit $$fail

# OpenBLAS (Debian libopenblas-dev) is the reference measured in the same run.
$(ENGINE_BENCH): bench/bench-engine.c bench/bench_fma.h $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_CFLAGS) -I$(ENGINE_DIR) -o $@ $< $(ENGINE_LIB) -lopenblas $(ENGINE_LDLIBS)

bench-engine: $(ENGINE_BENCH)
	$(ENGINE_BENCH) --csv $(BUILD)/bench-engine.csv $(BENCH_ENGINE_FLAGS)

ifeq ($(ENGINE_SAVED_GOAL),)
.DEFAULT_GOAL := engine-all
else
.DEFAULT_GOAL := $(ENGINE_SAVED_GOAL)
endif
