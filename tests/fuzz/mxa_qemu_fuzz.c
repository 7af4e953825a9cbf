/* SPDX-License-Identifier: MIT */
/*
 * mxa_qemu_fuzz.c - the mxa device under QEMU's own fuzzing framework: a libFuzzer
 * target ("mxa") of qemu-fuzz-x86_64, coverage guided, with AddressSanitizer and UBSan.
 * scripts/build-qemu.sh (MXA_QEMU_FLAVOR=fuzz) copies this file, fuzz_rand.h,
 * fuzz_device_gen.h and uapi/ into QEMU's tests/qtest/fuzz/ and builds it with
 * --enable-fuzzing and clang; make fuzz-device runs it.
 *
 * An input is the byte stream that rnd() draws from (fuzz_rand.h, FUZZ_RAND_BYTES), so
 * the generator is fuzz-device's own (fuzz_device_gen.h): page tables, contexts, rings,
 * random programs, descriptors, register writes and resets. fuzz-device --write-seeds
 * turns its seeded inputs into this target's seed corpus.
 *
 * Each input runs on a freshly reset machine: the device is found and enabled on PCI,
 * the guest-RAM structures are written, the device and its four queues are enabled,
 * then the input runs; the device is given up to 100 ms to drain its queues, and it
 * must then still answer its ID register (else abort(): a finding). QEMU is reset
 * before the next input. Memory errors, undefined behaviour, leaks and hangs (libFuzzer's
 * -timeout) are findings too.
 */
#include "qemu/osdep.h"

#include "qemu/module.h"
#include "tests/qtest/libqtest.h"
#include "fuzz.h"

/* (the ISA table itself is the device's: hw/mxa/mxa_exec.c defines it in this binary) */
#define FUZZ_RAND_BYTES
#include "mxa/mxa_isa_table.h"
#include "mxa/mxa_regs.h"
#include "mxa/fuzz_rand.h"

#define SETTLE_US	5000

static QTestState *qts;

static void writel(uint64_t addr, uint32_t v)
{
	qtest_writel(qts, addr, v);
}

static uint32_t readl(uint64_t addr)
{
	return qtest_readl(qts, addr);
}

static void memwrite(uint64_t addr, const void *buf, size_t len)
{
	qtest_memwrite(qts, addr, buf, len);
}

static void outl(uint16_t port, uint32_t v)
{
	qtest_outl(qts, port, v);
}

static uint32_t inl(uint16_t port)
{
	return qtest_inl(qts, port);
}

#include "mxa/fuzz_device_gen.h"

/* Up to SETTLE_US for every queue to consume its ring and go idle (or stop). */
static void settle(void)
{
	int64_t end = g_get_monotonic_time() + SETTLE_US;

	while (g_get_monotonic_time() < end) {
		bool idle = true;

		for (unsigned int q = 0; q < 4 && idle; q++) {
			uint32_t st = readl(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_STATUS));

			idle = (st & MXA_QSTATUS_STOPPED) || (!(st & MXA_QSTATUS_BUSY) &&
				readl(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_HEAD)) ==
				readl(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_TAIL)));
		}
		if (idle)
			return;
		g_usleep(200);
	}
}

static void mxa_fuzz(QTestState *s, const unsigned char *data, size_t size)
{
	qts = s;
	if (find_and_enable_device() < 0) {
		fprintf(stderr, "mxa fuzz target: no mxa device on PCI bus 0\n");
		abort();
	}
	setup_memory();
	device_init();
	for (unsigned int q = 0; q < 4; q++)
		enable_queue(q, 64);
	fuzz_rand_bytes(data, size);
	one_input();
	settle();
	if (readl(BAR0 + MXA_REG_ID) != MXA_ID_VALUE) {
		fprintf(stderr, "mxa fuzz target: the device stopped answering its ID register\n");
		abort();
	}
	fuzz_reset(s);
}

static GString *mxa_fuzz_cmdline(FuzzTarget *t)
{
	return g_string_new(TARGET_NAME " -machine q35,accel=qtest -nodefaults -display none "
			    "-m 64 -L /usr/share/qemu -L /usr/share/seabios "
			    "-device mxa,queues=4 ");
}

static void register_mxa_fuzz_targets(void)
{
	fuzz_add_target(&(FuzzTarget){
		.name = "mxa",
		.description = "the mxa device: fuzz-device's generator driven by the input bytes",
		.get_init_cmdline = mxa_fuzz_cmdline,
		.fuzz = mxa_fuzz,
	});
}

fuzz_target_init(register_mxa_fuzz_targets);
