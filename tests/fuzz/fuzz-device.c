// SPDX-License-Identifier: MIT
/*
 * fuzz-device: drive the QEMU mxa device directly through QEMU's qtest protocol -- MMIO,
 * PCI config and guest memory -- with random register writes, rings, contexts, page
 * tables and programs, and check after every input that QEMU is alive and the device
 * still answers. Intended against a QEMU built with AddressSanitizer and UBSan
 * (make fuzz-device), where any memory error or undefined behaviour aborts QEMU.
 *
 *   fuzz-device --qemu PATH [--seconds S] [--inputs N] [--seed X] [--log FILE]
 *   fuzz-device --qemu PATH --scenario NAME      one deterministic case (below)
 *
 * An input is a short random sequence of operations (setup of a queue with a ring,
 * context table and page table in guest RAM, random programs, doorbells, random
 * register writes, resets). A finding is: QEMU exits or dies, a reply is not "OK", or
 * QEMU stops answering for 30 s (hang). The input's seed is printed so it can be
 * replayed with --seed X --inputs 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MXA_ISA_TABLE_DEFINE
#include "mxa_isa_table.h"
#include "mxa_regs.h"
#include "fuzz_rand.h"

#define BAR0		0xe0000000ull	/* where we place BAR0 */
#define BAR1		0xe0100000ull	/* MSI-X table */
#define RAM_SIZE	(64ull << 20)
#define RAM_BASE	0x100000ull	/* our allocations in guest RAM */
#define HANG_SECONDS	30

static pid_t qemu_pid = -1;
static int to_qemu = -1, from_qemu = -1;
static FILE *logf;
static char rbuf[1 << 16];
static size_t rlen;
static unsigned long long n_cmds;

static void die_finding(const char *why)
{
	int status = 0;

	fprintf(stderr, "FINDING: %s\n", why);
	if (qemu_pid > 0) {
		kill(qemu_pid, SIGKILL);
		waitpid(qemu_pid, &status, 0);
	}
	exit(1);
}

/* Read one reply line from QEMU, with the hang timeout. */
static char *qtest_line(void)
{
	for (;;) {
		char *nl = memchr(rbuf, '\n', rlen);

		if (nl) {
			static char line[sizeof(rbuf)];
			size_t n = nl - rbuf;

			memcpy(line, rbuf, n);
			line[n] = 0;
			memmove(rbuf, nl + 1, rlen - n - 1);
			rlen -= n + 1;
			if (!strncmp(line, "IRQ", 3))
				continue;	/* asynchronous interrupt notifications */
			return line;
		}
		struct pollfd p = { .fd = from_qemu, .events = POLLIN };
		int r = poll(&p, 1, HANG_SECONDS * 1000);

		if (r == 0)
			die_finding("QEMU stopped answering (hang)");
		if (r < 0 && errno == EINTR)
			continue;
		ssize_t got = read(from_qemu, rbuf + rlen, sizeof(rbuf) - rlen - 1);

		if (got <= 0)
			die_finding("QEMU exited or crashed (see its stderr above)");
		rlen += got;
	}
}

static char *qtest(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n;
	char *reply;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (logf)
		fputs(cmd, logf);
	if (write(to_qemu, cmd, n) != n)
		die_finding("cannot write to QEMU (it exited?)");
	n_cmds++;
	reply = qtest_line();
	if (strncmp(reply, "OK", 2)) {
		fprintf(stderr, "command: %sreply: %s\n", cmd, reply);
		die_finding("qtest command failed");
	}
	return reply;
}

static void writel(uint64_t addr, uint32_t v) { qtest("writel 0x%" PRIx64 " 0x%x\n", addr, v); }
static uint32_t readl(uint64_t addr)
{
	return strtoull(qtest("readl 0x%" PRIx64 "\n", addr) + 3, NULL, 0);
}
static void outl(uint16_t port, uint32_t v) { qtest("outl 0x%x 0x%x\n", port, v); }
static uint32_t inl(uint16_t port) { return strtoull(qtest("inl 0x%x\n", port) + 3, NULL, 0); }

static void memwrite(uint64_t addr, const void *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char cmd[8192];
	const uint8_t *p = buf;

	while (len) {
		size_t chunk = len > 2048 ? 2048 : len;
		int n = snprintf(cmd, sizeof(cmd), "write 0x%" PRIx64 " 0x%zx 0x", addr, chunk);

		for (size_t i = 0; i < chunk; i++) {
			cmd[n++] = hex[p[i] >> 4];
			cmd[n++] = hex[p[i] & 15];
		}
		cmd[n++] = '\n';
		cmd[n] = 0;
		qtest("%s", cmd);
		addr += chunk;
		p += chunk;
		len -= chunk;
	}
}

static uint32_t pci_cfg_addr(int dev, int reg)
{
	return 0x80000000u | (dev << 11) | (reg & 0xfc);
}

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

static void start_qemu(const char *qemu, const char *extra)
{
	int in[2], out[2];
	char cmd[4096];

	if (pipe(in) || pipe(out)) {
		perror("pipe");
		exit(2);
	}
	snprintf(cmd, sizeof(cmd), "exec %s -machine q35 -nodefaults -display none -accel qtest "
		 "-qtest stdio -qtest-log /dev/null -m %llu -L /usr/share/qemu -L /usr/share/seabios -monitor none "
		 "-serial none -device mxa,queues=4 %s", qemu, RAM_SIZE >> 20, extra ? extra : "");
	qemu_pid = fork();
	if (qemu_pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	to_qemu = in[1];
	from_qemu = out[0];
	signal(SIGPIPE, SIG_IGN);
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
		for (uint32_t i = 1; i < len; i++)
			dw[n + i] = interesting32();
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
			g.type_a = rnd_below(18);
			g.type_b = rnd_below(2) ? g.type_a : rnd_below(18);
			g.type_c = rnd_below(18);
			g.type_d = rnd_below(3) ? MXA_DTYPE_F32 : rnd_below(18);
			g.flags = rnd_below(4) ? rnd_below(8) : (uint32_t)rnd();
			g.scale_block = rnd_below(2) ? 32 : interesting32();
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

static void device_init(void)
{
	writel(BAR0 + MXA_REG_CONTROL, MXA_CONTROL_RESET);
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

/*
 * Scenario mmio-dma-reset: context 1 maps the page at DATA_VA onto MMIO (this device's
 * BAR0), and a job on queue 0 polls a semaphore there (SEM_WAIT for a value it never
 * reaches). Then the machine is reset (port 0xcf9). A queue thread whose DMA reached
 * MMIO needed the BQL, which the system reset holds while it waits for the queue
 * threads: QEMU deadlocked (the next qtest reply never came: a hang finding). The
 * device must refuse DMA to anything but RAM: the job fails with an MMU fault at the
 * semaphore's VA, and the reset completes.
 */
static void scenario_mmio_dma_reset(void)
{
	uint64_t pte = BAR0 | MXA_PTE_VALID | MXA_PTE_WRITE;
	uint32_t prog[6] = { MXA_CMD_HEADER(MXA_OP_SEM_WAIT, MXA_SEM_WAIT_DWORDS, 0),
			     (uint32_t)DATA_VA, (uint32_t)(DATA_VA >> 32), 0xffffffff, 0x7fffffff,
			     MXA_SEM_MAX_TIMEOUT_US };
	struct mxa_job_desc d = { .flags = MXA_JOB_F_IRQ, .ctx = 1, .prog_va = DATA_VA + 4096,
				  .prog_size = sizeof(prog), .completion = COMPLETIONS,
				  .job_id = 42 };
	struct mxa_completion rec;
	char *r;

	device_init();
	memwrite(PT_BASE + 0x2000 + mxa_pt_index(DATA_VA, 0) * 8, &pte, 8);
	memwrite(DATA + 4096, prog, sizeof(prog));
	memset(&rec, 0, sizeof(rec));
	memwrite(COMPLETIONS, &rec, sizeof(rec));
	enable_queue(0, 64);
	memwrite(RINGS, &d, sizeof(d));
	writel(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_TAIL), 1);
	/* the job has started (it may be polling MMIO now, or have failed already) */
	for (int i = 0; i < 100000 && readl(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_COMPLETED)) == 0 &&
			!(readl(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_STATUS)) & MXA_QSTATUS_BUSY); i++)
		;
	qtest("outb 0xcf9 0x6\n");	/* machine reset: runs in the main loop, BQL held */
	if (find_and_enable_device() < 0)	/* hangs if the reset deadlocked */
		die_finding("mmio-dma-reset: no mxa device after the reset");
	if (readl(BAR0 + MXA_REG_ID) != MXA_ID_VALUE)
		die_finding("mmio-dma-reset: the device does not answer after the reset");
	r = qtest("read 0x%llx 0x%zx\n", (unsigned long long)COMPLETIONS, sizeof(rec));
	/* "OK 0x<hex>": the status word follows the 8-byte job id */
	if (strlen(r) < 3 + 2 + 2 * 16) {
		die_finding("mmio-dma-reset: short read of the completion record");
	}
	{
		char hex[9] = { 0 };
		uint32_t status, error;

		memcpy(hex, r + 5 + 16, 8);
		status = __builtin_bswap32((uint32_t)strtoul(hex, NULL, 16));
		memcpy(hex, r + 5 + 24, 8);
		error = __builtin_bswap32((uint32_t)strtoul(hex, NULL, 16));
		printf("fuzz-device: mmio-dma-reset: job status %u error %u; the reset completed\n",
		       status, error);
		if (status != MXA_JOB_STATUS_ERROR || error != MXA_ERR_MMU_FAULT)
			die_finding("mmio-dma-reset: the job did not fail with an MMU fault");
	}
}

/*
 * Scenario tlb-barrier (QEMU with -device mxa,x-dma-delay-us=N, which holds every DMA
 * run between its translation and its copy): a COPY writes three destination pages,
 * one DMA run each (they are not contiguous). Once the first has landed, the driver's
 * part is played: unmap the other two, TLB_INVAL, wait for TLB_STATUS.BUSY to clear,
 * and reuse their pages (write a sentinel). The run that had translated before the
 * invalidation must have finished before BUSY cleared, and the last page must fault:
 * no sentinel may be overwritten. Without the barrier the in-flight run wrote a page
 * after it was "freed".
 */
#define TB_SRC_VA	(DATA_VA + 0x100000)
#define TB_DST_VA	(DATA_VA + 0x110000)
#define TB_SRC		(RAM_BASE + 0x200000)
#define TB_DST		(RAM_BASE + 0x210000)	/* pages 0, 2, 1 of the destination */

static void scenario_tlb_barrier(void)
{
	static const unsigned dst_page[3] = { 0, 2, 1 };
	uint32_t prog[7] = { MXA_CMD_HEADER(MXA_OP_COPY, 7, 0), (uint32_t)TB_SRC_VA, 0,
			     (uint32_t)TB_DST_VA, 0, 3 * 4096, 0 };
	struct mxa_job_desc d = { .flags = MXA_JOB_F_IRQ, .ctx = 1, .prog_va = DATA_VA,
				  .prog_size = sizeof(prog), .completion = COMPLETIONS,
				  .job_id = 43 };
	static uint8_t src[3 * 4096], sentinel[4096];
	uint64_t pte, zero = 0;
	int busy_seen = 0, i;
	char *r;

	device_init();
	for (i = 0; i < 3; i++) {
		pte = (TB_SRC + i * 4096ull) | MXA_PTE_VALID;
		memwrite(PT_BASE + 0x2000 + mxa_pt_index(TB_SRC_VA + i * 4096ull, 0) * 8, &pte, 8);
		pte = (TB_DST + dst_page[i] * 4096ull) | MXA_PTE_VALID | MXA_PTE_WRITE;
		memwrite(PT_BASE + 0x2000 + mxa_pt_index(TB_DST_VA + i * 4096ull, 0) * 8, &pte, 8);
	}
	memset(src, 0x11, sizeof(src));
	memwrite(TB_SRC, src, sizeof(src));
	memset(src, 0, sizeof(src));
	memwrite(TB_DST, src, sizeof(src));
	memwrite(DATA, prog, sizeof(prog));
	memwrite(COMPLETIONS, src, 64);
	enable_queue(0, 64);
	memwrite(RINGS, &d, sizeof(d));
	writel(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_TAIL), 1);
	/* the first destination page has landed: the second is in flight */
	for (i = 0; i < 100000 && readl(TB_DST) != 0x11111111; i++)
		;
	if (i == 100000)
		die_finding("tlb-barrier: the copy never wrote its first page");
	for (i = 1; i < 3; i++)
		memwrite(PT_BASE + 0x2000 + mxa_pt_index(TB_DST_VA + i * 4096ull, 0) * 8, &zero, 8);
	writel(BAR0 + MXA_REG_TLB_INVAL, 1);
	for (i = 0; i < 1000000; i++) {
		if (!(readl(BAR0 + MXA_REG_TLB_STATUS) & MXA_TLB_STATUS_BUSY))
			break;
		busy_seen = 1;
	}
	/* the pages are free: reused at once */
	memset(sentinel, 0xee, sizeof(sentinel));
	memwrite(TB_DST + 4096, sentinel, 4096);
	memwrite(TB_DST + 2 * 4096, sentinel, 4096);
	/* the job ends: with an MMU fault at the third page (the second may have landed) */
	for (i = 0; i < 1000000 && !strtoul(qtest("readl 0x%llx\n", (unsigned long long)
			(COMPLETIONS + 8)) + 3, NULL, 0); i++)
		;
	{
		uint32_t status = readl(COMPLETIONS + 8), error = readl(COMPLETIONS + 12);
		uint32_t va_lo = readl(COMPLETIONS + 24);

		r = qtest("readl 0x%llx\n", (unsigned long long)(TB_DST + 4096));
		printf("fuzz-device: tlb-barrier: BUSY %s after TLB_INVAL; the reused pages hold %s",
		       busy_seen ? "seen" : "never seen", r + 3);
		printf(" and %s; job status %u error %u at 0x%x\n",
		       qtest("readl 0x%llx\n", (unsigned long long)(TB_DST + 2 * 4096)) + 3,
		       status, error, va_lo);
		if (status != MXA_JOB_STATUS_ERROR || error != MXA_ERR_MMU_FAULT)
			die_finding("tlb-barrier: the copy did not fault on an unmapped page");
	}
	if (readl(TB_DST + 4096) != 0xeeeeeeee || readl(TB_DST + 2 * 4096) != 0xeeeeeeee)
		die_finding("tlb-barrier: the device wrote a page after its invalidation completed");
	if (!busy_seen)
		die_finding("tlb-barrier: TLB_STATUS never said a DMA was in flight");
}

int main(int argc, char **argv)
{
	const char *qemu = NULL, *extra = NULL, *scenario = NULL;
	double seconds = 10;
	unsigned long long max_inputs = ~0ull, inputs = 0;
	uint64_t seed = (uint64_t)time(NULL) * 2654435761u;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--qemu") && i + 1 < argc)
			qemu = argv[++i];
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--inputs") && i + 1 < argc)
			max_inputs = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--scenario") && i + 1 < argc)
			scenario = argv[++i];
		else if (!strcmp(argv[i], "--qemu-args") && i + 1 < argc)
			extra = argv[++i];
		else if (!strcmp(argv[i], "--log") && i + 1 < argc)
			logf = fopen(argv[++i], "w");
		else {
			fprintf(stderr, "usage: fuzz-device --qemu PATH [--seconds S] [--inputs N] "
				"[--seed X] [--log FILE] [--qemu-args ARGS]\n");
			return 2;
		}
	}
	if (!qemu) {
		fprintf(stderr, "fuzz-device: --qemu is required\n");
		return 2;
	}
	start_qemu(qemu, extra);
	if (find_and_enable_device() < 0)
		die_finding("no mxa device on PCI bus 0");
	if (readl(BAR0 + MXA_REG_ID) != MXA_ID_VALUE)
		die_finding("BAR0 does not answer with the MXA id");
	setup_memory();
	if (scenario) {
		if (!strcmp(scenario, "mmio-dma-reset")) {
			scenario_mmio_dma_reset();
		} else if (!strcmp(scenario, "tlb-barrier")) {
			scenario_tlb_barrier();
		} else {
			fprintf(stderr, "fuzz-device: unknown scenario %s (mmio-dma-reset, tlb-barrier)\n",
				scenario);
			return 2;
		}
		kill(qemu_pid, SIGTERM);
		waitpid(qemu_pid, NULL, 0);
		return 0;
	}

	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("fuzz-device: seed 0x%" PRIx64 ", %.0f s\n", seed, seconds);
	fflush(stdout);
	for (;;) {
		uint64_t input_seed = seed + inputs * 0x9e3779b97f4a7c15ull;

		rng_state = input_seed | 1;
		one_input();
		/* the device must still answer after every input */
		if (readl(BAR0 + MXA_REG_ID) != MXA_ID_VALUE) {
			fprintf(stderr, "input seed 0x%" PRIx64 "\n", input_seed);
			die_finding("device stopped answering its ID register");
		}
		inputs++;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (inputs >= max_inputs ||
		    (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 >= seconds)
			break;
		if (inputs % 1000 == 0) {
			/* a global reset now and then, so queues do not stay stopped forever */
			writel(BAR0 + MXA_REG_CONTROL, MXA_CONTROL_RESET);
			setup_memory();
		}
	}
	/* orderly shutdown: QEMU must exit cleanly too (threads joined, no leak report) */
	qtest("writel 0x%llx 0x%x\n", (unsigned long long)(BAR0 + MXA_REG_CONTROL), MXA_CONTROL_RESET);
	int status;
	kill(qemu_pid, SIGTERM);
	waitpid(qemu_pid, &status, 0);
	close(to_qemu);
	qemu_pid = -1;
	/* SIGTERM asks QEMU to shut down; a sanitizer report makes it exit non-zero */
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
	    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)) {
		fprintf(stderr, "QEMU exit status 0x%x\n", status);
		die_finding("QEMU did not shut down cleanly");
	}
	printf("fuzz-device: %llu inputs, %llu qtest commands, 0 findings\n", inputs, n_cmds);
	return 0;
}
