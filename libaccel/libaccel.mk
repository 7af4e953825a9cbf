# SPDX-License-Identifier: MIT
#
# libaccel.mk - libaccel: $(BUILD)/libaccel/libaccel.a, its host tests and the demo.
# Included by the top-level Makefile (which defines BUILD, HOST_CFLAGS, DRM_CFLAGS,
# KSFT_INC and the HOST_TESTS / GUEST_PROGS lists).
#
# Defines: LIBACCEL_LIB, LIBACCEL_CFLAGS, LIBACCEL_LDLIBS (for programs linking it; the
# guest links them -static against Debian's liburing.a and libdrm.a), ACCEL_KSFT_CFLAGS,
# HOST_TESTS += test-libaccel-*, GUEST_PROGS += accel-demo; target libaccel.

LIBACCEL_DIR := libaccel
LIBACCEL_SRCS := $(addprefix $(LIBACCEL_DIR)/, \
	device.c bo.c prog.c job.c submit_ioctl.c submit_uring.c error.c gemm.c mx.c prog_ops.c \
	asm.c asm_lex.c disasm.c group.c vm.c sync.c tmap.c prime.c queue.c)
LIBACCEL_HDRS := $(wildcard $(LIBACCEL_DIR)/*.h uapi/*.h uapi/drm/*.h)
LIBACCEL_OBJS := $(patsubst $(LIBACCEL_DIR)/%.c,$(BUILD)/libaccel/%.o,$(LIBACCEL_SRCS))
LIBACCEL_LIB := $(BUILD)/libaccel/libaccel.a
LIBACCEL_CFLAGS := $(HOST_CFLAGS) $(DRM_CFLAGS) -I$(LIBACCEL_DIR)
LIBACCEL_LDLIBS := -luring -ldrm -lm -pthread
# kselftest_harness.h compares ints with size_t in its macros.
ACCEL_KSFT_CFLAGS := -I$(KSFT_INC) -Wno-sign-compare -Wno-clobbered

.PHONY: libaccel
libaccel: $(LIBACCEL_LIB)

$(BUILD)/libaccel/%.o: $(LIBACCEL_DIR)/%.c $(LIBACCEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -c -o $@ $<

# The engine's objects (formats, MX, kernels) are part of libaccel, so host-side
# quantisation gives the device's bits; the golden-vector reader is test-only.
LIBACCEL_ENGINE_OBJS := $(filter-out %/mxe_golden.o,$(ENGINE_OBJS))

$(LIBACCEL_LIB): $(LIBACCEL_OBJS) $(LIBACCEL_ENGINE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# Host tests: what works without a device (program encodings, error texts).
LIBACCEL_TEST_NAMES := prog error asm tmap isa mx-others
LIBACCEL_HOST_TESTS := $(patsubst %,$(BUILD)/tests/host/test-libaccel-%,$(LIBACCEL_TEST_NAMES))
HOST_TESTS += $(LIBACCEL_HOST_TESTS)

# They use the kselftest harness, whose headers make setup fetches (KSFT_HOST_TESTS).
KSFT_HOST_TESTS += $(LIBACCEL_HOST_TESTS)

$(BUILD)/tests/host/test-libaccel-%: tests/host/test-libaccel-%.c $(LIBACCEL_LIB) | $(KSFT_INC)/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) $(ACCEL_KSFT_CFLAGS) \
		-DMXA_GOLDEN_DIR_DEFAULT='"$(abspath tests/golden/h200)"' -o $@ $< $(LIBACCEL_LIB) \
		$(LIBACCEL_LDLIBS)

# The demo, installed in the guest as /bin/accel-demo.
ACCEL_DEMO := $(BUILD)/bin/accel-demo
GUEST_PROGS += $(ACCEL_DEMO)

$(ACCEL_DEMO): $(LIBACCEL_DIR)/examples/accel-demo.c $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)

# The MX-FP8 GEMM example, installed in the guest as /bin/accel-gemm (make demo).
ACCEL_GEMM_DEMO := $(BUILD)/bin/accel-gemm
GUEST_PROGS += $(ACCEL_GEMM_DEMO)

$(ACCEL_GEMM_DEMO): $(LIBACCEL_DIR)/examples/accel-gemm.c $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)

# An LLM decode step with MXFP4 weights (/bin/accel-llm; make bench writes llm.csv).
ACCEL_LLM_DEMO := $(BUILD)/bin/accel-llm
GUEST_PROGS += $(ACCEL_LLM_DEMO)

$(ACCEL_LLM_DEMO): $(LIBACCEL_DIR)/examples/accel-llm.c $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)

# The tools (accel-info, accel-run, accel-trace, accel-bench), static: /bin in the guest.
# accel-trace is accel-run built with -DACCEL_TRACE_TOOL.
ACCEL_TOOL_NAMES := accel-info accel-run accel-trace accel-bench
ACCEL_TOOLS := $(patsubst %,$(BUILD)/bin/%,$(ACCEL_TOOL_NAMES))
GUEST_PROGS += $(ACCEL_TOOLS)

.PHONY: accel-tools
accel-tools: $(ACCEL_TOOLS)

$(BUILD)/bin/accel-trace: $(LIBACCEL_DIR)/tools/accel-run.c $(LIBACCEL_DIR)/tools/tool.h $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -DACCEL_TRACE_TOOL -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)

$(BUILD)/bin/accel-%: $(LIBACCEL_DIR)/tools/accel-%.c $(LIBACCEL_DIR)/tools/tool.h $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)

# ---- packaging: libaccel.so.0 (PIC objects of the same sources), libaccel.pc, install ----
LIBACCEL_VERSION := 0.1.0
LIBACCEL_SONAME := libaccel.so.0
LIBACCEL_SO := $(BUILD)/libaccel/libaccel.so.$(LIBACCEL_VERSION)
LIBACCEL_PIC_OBJS := $(patsubst $(LIBACCEL_DIR)/%.c,$(BUILD)/libaccel/pic/%.o,$(LIBACCEL_SRCS)) \
	$(patsubst $(BUILD)/engine/%.o,$(BUILD)/libaccel/pic/engine/%.o,$(LIBACCEL_ENGINE_OBJS))

$(BUILD)/libaccel/pic/%.o: $(LIBACCEL_DIR)/%.c $(LIBACCEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/libaccel/pic/engine/%.o: $(ENGINE_DIR)/%.c $(ENGINE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_CFLAGS) -fPIC -c -o $@ $<
$(BUILD)/libaccel/pic/engine/mxe_cublas_plan.o: $(ENGINE_PLANS_INC)

$(LIBACCEL_SO): $(LIBACCEL_PIC_OBJS) $(LIBACCEL_DIR)/libaccel.map
	$(CC) -shared -Wl,-soname,$(LIBACCEL_SONAME) -Wl,--version-script,$(LIBACCEL_DIR)/libaccel.map \
		-o $@ $(LIBACCEL_PIC_OBJS) $(LIBACCEL_LDLIBS)
	ln -sf $(notdir $@) $(BUILD)/libaccel/$(LIBACCEL_SONAME)
	ln -sf $(LIBACCEL_SONAME) $(BUILD)/libaccel/libaccel.so

.PHONY: libaccel-so install libaccel-install
libaccel-so: $(LIBACCEL_SO)

# make install PREFIX=/usr/local [DESTDIR=...]: library, headers (accel.h and the uapi
# headers it works with), pkg-config file, tools and man pages.
PREFIX ?= /usr/local
LIBACCEL_INSTALL_HDRS := $(LIBACCEL_DIR)/accel.h uapi/mxa_isa.h uapi/mxa_isa_table.h uapi/mxa_regs.h
install: libaccel-install
libaccel-install: $(LIBACCEL_LIB) $(LIBACCEL_SO) $(ACCEL_TOOLS)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/accel/drm \
		$(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 $(LIBACCEL_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBACCEL_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(notdir $(LIBACCEL_SO)) $(DESTDIR)$(PREFIX)/lib/$(LIBACCEL_SONAME)
	ln -sf $(LIBACCEL_SONAME) $(DESTDIR)$(PREFIX)/lib/libaccel.so
	install -m 644 $(LIBACCEL_INSTALL_HDRS) $(DESTDIR)$(PREFIX)/include/accel/
	install -m 644 uapi/drm/mxa_accel.h $(DESTDIR)$(PREFIX)/include/accel/drm/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIBACCEL_VERSION)|' \
		$(LIBACCEL_DIR)/libaccel.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/libaccel.pc
	install -m 755 $(ACCEL_TOOLS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(wildcard $(LIBACCEL_DIR)/man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(wildcard $(LIBACCEL_DIR)/man/*.3) $(DESTDIR)$(PREFIX)/share/man/man3/
	$(LIBACCEL_DIR)/man/man-links.sh install $(DESTDIR)$(PREFIX)/share/man/man3 \
		$(wildcard $(LIBACCEL_DIR)/man/*.3)

# Host test: make install into a temporary PREFIX, build a program with pkg-config.
HOST_TESTS += tests/host/test-libaccel-install.sh

# Host test: every function libaccel.so exports is declared in accel.h, has a man page
# and is called by a guest test (or an example the guest suite runs).
HOST_TESTS += tests/host/test-libaccel-api.py
all: $(LIBACCEL_SO)

# Host test: every program in the tree (*.s, Documentation's, those embedded in C) round
# trips through the assembler (accel-run -n: no device needed).
HOST_TESTS += tests/host/test-libaccel-programs.py

# Two queues, a producer and a consumer ordered by a device semaphore (/bin/accel-queues).
ACCEL_QUEUES_DEMO := $(BUILD)/bin/accel-queues
GUEST_PROGS += $(ACCEL_QUEUES_DEMO)

$(ACCEL_QUEUES_DEMO): $(LIBACCEL_DIR)/examples/accel-queues.c $(LIBACCEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LIBACCEL_CFLAGS) -static -o $@ $< $(LIBACCEL_LIB) $(LIBACCEL_LDLIBS)
