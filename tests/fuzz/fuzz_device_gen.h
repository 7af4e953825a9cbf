/* SPDX-License-Identifier: MIT */
/*
 * fuzz_device_gen.h - the device fuzzers' inputs: the structures they place in guest RAM
 * (context table, page tables, rings, completions, data), random programs, descriptors,
 * register writes and resets, all drawn from rnd() (fuzz_rand.h). Shared by fuzz-device
 * (qtest over a pipe, rnd() a seeded xorshift) and the libFuzzer target inside QEMU
 * (tests/fuzz/mxa_qemu_fuzz.c, rnd() the fuzzer's bytes), so that a seed of the one is
 * an input of the other.
 *
 * The includer defines, before including this file, the accessors writel(addr, v),
 * readl(addr) and memwrite(addr, buf, len) on guest physical addresses and
 * outl(port, v), inl(port) on I/O ports.
 */
#ifndef FUZZ_DEVICE_GEN_H
#define FUZZ_DEVICE_GEN_H

#include <stdint.h>
#include <string.h>

#include "fuzz_rand.h"
#include "mxa_regs.h"

#define BAR0		0xe0000000ull	/* where the fuzzers place BAR0 */
#define BAR1		0xe0100000ull	/* MSI-X table */
#define RAM_BASE	0x100000ull	/* their allocations in guest RAM */

static uint32_t pci_cfg_addr(int dev, int reg)
{
	return 0x80000000u | (dev << 11) | (reg & 0xfc);
}

/* Find the mxa on PCI bus 0, map its BARs, enable memory and bus mastering: its slot or -1. */
static int find_and_enable_device(void)
{
	for (int dev = 0; dev < 32; dev++) {
		outl(0xcf8, pci_cfg_addr(dev, 0));
		if (inl(0xcfc) == (MXA_PCI_DEVICE_ID << 16 | MXA_PCI_VENDOR_ID)) {
			outl(0xcf8, pci_cfg_addr(dev, 0x10));	/* BAR0 */
			outl(0xcfc, (uint32_t)BAR0);
			outl(0xcf8, pci_cfg_addr(dev, 0x14));	/* BAR1 (64-bit) */
			outl(0xcfc, (uint32_t)BAR1);
			outl(0xcf8, pci_cfg_addr(dev, 0x18));
			outl(0xcfc, 0);
			outl(0xcf8, pci_cfg_addr(dev, 0x04));	/* memory + bus master */
			outl(0xcfc, 0x6);
			return dev;
		}
	}
	return -1;
}

/* ---- structures in guest RAM ---- */

#define CTX_TABLE	(RAM_BASE)			/* 16 contexts */
#define PT_BASE		(RAM_BASE + 0x10000)		/* 3 tables: L2, L1, L0 */
#define RINGS		(RAM_BASE + 0x20000)		/* 4 queues x 4 KiB */
#define COMPLETIONS	(RAM_BASE + 0x30000)
#define DATA		(RAM_BASE + 0x100000)		/* 1 MiB mapped at VA 0x400000 */
#define DATA_VA		0x400000ull
#define DATA_PAGES	256

static void setup_memory(void)
{
	static uint64_t pt[3][512];
	struct mxa_ctx_desc ctx[16] = { 0 };

	memset(pt, 0, sizeof(pt));
	pt[0][mxa_pt_index(DATA_VA, 2)] = (PT_BASE + 0x1000) | MXA_PTE_VALID;
	pt[1][mxa_pt_index(DATA_VA, 1)] = (PT_BASE + 0x2000) | MXA_PTE_VALID;
	for (int i = 0; i < DATA_PAGES; i++) {
		/* some pages read-only, a few missing: the MMU paths get exercised */
		if (i % 61 == 60)
			continue;
		pt[2][mxa_pt_index(DATA_VA, 0) + i] = (DATA + i * 4096ull) | MXA_PTE_VALID |
						      (i % 17 == 16 ? 0 : MXA_PTE_WRITE);
	}
	memwrite(PT_BASE, pt, sizeof(pt));
	for (int i = 1; i < 16; i++) {
		ctx[i].pt_root = PT_BASE;
		ctx[i].flags = (i == 7) ? 0 : MXA_CTX_F_VALID;
	}
	memwrite(CTX_TABLE, ctx, sizeof(ctx));
}

static uint32_t interesting32(void)
{
	static const uint32_t v[] = { 0, 1, 2, 3, 4, 7, 8, 16, 31, 32, 63, 64, 255, 256, 4095,
				      4096, 4097, 65535, 65536, 0x7fffffff, 0x80000000,
				      0xfffffffe, 0xffffffff, 0x100000, 0xe0000000,
				      /* cluster addresses: a peer's SRAM, the last rank's end */
				      MXA_DSMEM(1, 0), MXA_DSMEM(1, 0x100), MXA_DSMEM(7, 0x3fff0),
				      MXA_DSMEM(8, 0), MXA_TMA_MCAST_MASK, 0x00030000 };

	switch (rnd_below(4)) {
	case 0:
		return v[rnd_below(sizeof(v) / sizeof(v[0]))];
	case 1:
		return rnd_below(512);
	default:
		return (uint32_t)rnd();
	}
}

static uint64_t interesting_va(void)
{
	switch (rnd_below(6)) {
	case 0:
		return rnd();
	case 1:
		return DATA_VA + rnd_below(DATA_PAGES * 4096 + 8192) - 4096;
	case 2:
		return BAR0 + rnd_below(0x10000);	/* device MMIO through the MMU? */
	default:
		return DATA_VA + (rnd_below(DATA_PAGES * 4096) & ~7ull);
	}
}

/* A tile operand: any of the 7-bit classes (the register file has 6) and indexes past 8. */
static uint32_t tile_operand(void)
{
	return MXA_TILE(rnd_below(128), rnd_below(12)) | (rnd_below(4) ? 0 : MXA_TILE_REUSE);
}

/* A random program: mostly well-formed commands with random operands. */
static size_t random_program(uint32_t *dw, size_t max)
{
	size_t n = 0;

	while (n < max) {
		uint32_t op, len, flags = ~0u;

		switch (rnd_below(10)) {
		case 0:
			op = rnd_below(256);
			len = rnd_below(40);
			break;
		case 1:
		case 2:
			op = MXA_OP_FENCE_WRITE;
			len = MXA_FENCE_WRITE_DWORDS;
			break;
		case 3:
			op = MXA_OP_GEMM;
			len = MXA_GEMM_DWORDS;
			break;
		case 4:
			op = rnd_below(0x80);
			len = 1 + rnd_below(12);
			break;
		default: {	/* a command of the ISA table: its length, its flags */
			const struct mxa_isa_cmd *cmd = random_command();

			op = cmd->opcode;
			len = cmd->dwords;
			flags = rnd_below(8) ? rnd() & cmd->flags : rnd() & 0xffff;
			break;
		}
		}
		if (n + len > max)
			len = max - n;
		if (len == 0)
			break;
		if (flags == ~0u)
			flags = rnd_below(8) ? 0 : rnd() & 0xffff;
		dw[n] = MXA_CMD_HEADER(op, len, flags);
		for (uint32_t i = 1; i < len; i++)	/* tile-shaped now and then (tile.c) */
			dw[n + i] = rnd_below(8) ? interesting32() : tile_operand();
		if (op == MXA_OP_FENCE_WRITE && len == MXA_FENCE_WRITE_DWORDS) {
			uint64_t va = interesting_va();

			dw[n + 1] = (uint32_t)va;
			dw[n + 2] = va >> 32;
		}
		if (op == MXA_OP_GEMM && len == MXA_GEMM_DWORDS && rnd_below(2)) {
			struct mxa_isa_gemm g = { 0 };

			g.m = 1 + rnd_below(rnd_below(4) ? 64 : 100000);
			g.n = 1 + rnd_below(rnd_below(4) ? 64 : 100000);
			g.k = rnd_below(4) ? 32 * (1 + rnd_below(4)) : interesting32();
			g.type_a = rnd_below(MXA_DTYPE_COUNT + 1);	/* one past the last */
			g.type_b = rnd_below(2) ? g.type_a : rnd_below(MXA_DTYPE_COUNT + 1);
			g.type_c = rnd_below(MXA_DTYPE_COUNT + 1);
			g.type_d = rnd_below(3) ? MXA_DTYPE_F32 : rnd_below(MXA_DTYPE_COUNT + 1);
			g.flags = rnd_below(4) ? rnd_below(8) : (uint32_t)rnd();
			g.scale_block = rnd_below(2) ? mxa_dtype_scale_block(g.type_a) :
						       interesting32();
			g.a = interesting_va();
			g.b = interesting_va();
			g.c = interesting_va();
			g.d = interesting_va();
			g.scale_a = interesting_va();
			g.scale_b = interesting_va();
			g.lda = rnd_below(3) ? 0 : interesting32();
			g.ldd = rnd_below(3) ? 0 : interesting32();
			g.accum = rnd_below(3);
			g.sched = rnd_below(3);
			memcpy(&dw[n + 1], &g, sizeof(g));
		}
		n += len;
	}
	return n;
}

static void enable_queue(unsigned q, uint32_t size)
{
	writel(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_CONTROL), 0);
	writel(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_RING_LO), (uint32_t)(RINGS + q * 4096));
	writel(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_RING_HI), 0);
	writel(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_RING_SIZE), size);
	writel(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_CONTROL), MXA_QCTRL_ENABLE);
}

static uint32_t tails[4];

static void submit_random_job(unsigned q)
{
	static uint32_t prog[1024];
	struct mxa_job_desc d = { 0 };
	size_t n = random_program(prog, 1 + rnd_below(rnd_below(8) ? 64 : 1024));
	uint64_t prog_off = rnd_below(DATA_PAGES * 4096 - n * 4) & ~3ull;

	memwrite(DATA + prog_off, prog, n * 4);
	d.flags = rnd_below(4) ? MXA_JOB_F_IRQ : (uint32_t)rnd();
	d.ctx = rnd_below(8) ? 1 + rnd_below(3) : interesting32();
	d.prog_va = rnd_below(8) ? DATA_VA + prog_off : interesting_va();
	d.prog_size = rnd_below(8) ? n * 4 : interesting32();
	d.completion = rnd_below(10) ? COMPLETIONS + q * 8192 +
				       (tails[q] % 64) * sizeof(struct mxa_completion)
				     : (uint64_t)interesting32() | (rnd_below(2) ? BAR0 : 0);
	d.job_id = rnd();
	/* multi-instance jobs: mostly shapes that run (clusters of up to 4), some that do not */
	if (rnd_below(2)) {
		d.cluster_x = rnd_below(4) ? 1 + rnd_below(4) : (uint8_t)rnd();
		d.cluster_y = rnd_below(4) ? 1 : (uint8_t)rnd();
		d.grid_x = rnd_below(4) ? d.cluster_x * (1 + rnd_below(3)) : (uint16_t)rnd();
		d.grid_y = rnd_below(4) ? 1 + rnd_below(2) : (uint16_t)rnd();
	}
	memwrite(RINGS + q * 4096 + (tails[q] % 64) * sizeof(d), &d, sizeof(d));
	tails[q] = (tails[q] + 1) % 64;
	writel(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_TAIL), tails[q]);
}

/*
 * Reset the device and wait until it is done, as the driver does: the queue threads
 * finish a reset asynchronously, and a queue register written meanwhile is dropped
 * (a ring set up then never ran its job). Bounded by a count of reads: the reset of an
 * idle device takes microseconds.
 */
static void device_init(void)
{
	writel(BAR0 + MXA_REG_CONTROL, MXA_CONTROL_RESET);
	for (unsigned n = 0; n < 1000000 && (readl(BAR0 + MXA_REG_CONTROL) & MXA_CONTROL_RESET);
	     n++)
		;
	writel(BAR0 + MXA_REG_CTX_TABLE_LO, (uint32_t)CTX_TABLE);
	writel(BAR0 + MXA_REG_CTX_TABLE_HI, 0);
	writel(BAR0 + MXA_REG_CTX_COUNT, 16);
	writel(BAR0 + MXA_REG_INT_MASK, 0);
	writel(BAR0 + MXA_REG_CONTROL, MXA_CONTROL_ENABLE);
	memset(tails, 0, sizeof(tails));
}

static void one_input(void)
{
	unsigned ops = 1 + rnd_below(12);

	for (unsigned i = 0; i < ops; i++) {
		unsigned q = rnd_below(4);

		switch (rnd_below(12)) {
		case 0:	/* a random register write anywhere in BAR0 */
			writel(BAR0 + (rnd_below(0x2000) & ~3u), interesting32());
			break;
		case 1: /* a random queue register write */
			writel(BAR0 + MXA_QUEUE_REG(rnd_below(17), rnd_below(0x40) & ~3u),
			       interesting32());
			break;
		case 2:
			enable_queue(q, rnd_below(4) ? 64 : interesting32());
			tails[q] = 0;
			break;
		case 3:
			writel(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_CONTROL), MXA_QCTRL_RESET);
			tails[q] = 0;
			break;
		case 4:
			if (rnd_below(4) == 0) {
				device_init();
			} else {
				writel(BAR0 + MXA_REG_TLB_INVAL, interesting32());
			}
			break;
		case 5:	/* a random byte pattern as a descriptor */
		{
			uint8_t junk[64];

			for (int j = 0; j < 64; j++)
				junk[j] = rnd();
			memwrite(RINGS + q * 4096 + (tails[q] % 64) * 64, junk, sizeof(junk));
			tails[q] = (tails[q] + 1) % 64;
			writel(BAR0 + MXA_QUEUE_REG(q, MXA_QREG_TAIL), tails[q]);
			break;
		}
		case 6:	/* corrupt a page-table entry or the context table */
		{
			uint64_t v = rnd_below(2) ? rnd() : ((DATA + rnd_below(DATA_PAGES) * 4096) | 3);

			memwrite((rnd_below(2) ? PT_BASE : CTX_TABLE) + (rnd_below(0x3000) & ~7u), &v, 8);
			break;
		}
		case 7:
			(void)readl(BAR0 + (rnd_below(0x1400) & ~3u));
			break;
		default:
			submit_random_job(q);
			break;
		}
	}
}

#endif /* FUZZ_DEVICE_GEN_H */
