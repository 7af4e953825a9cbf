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
#define FUZZ_RAND_RECORD
#include "mxa_isa_table.h"
#include "mxa_regs.h"
#include "fuzz_rand.h"

#define RAM_SIZE	(64ull << 20)
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

/*
 * --write-seeds: inputs are generated but not sent (dry), and rnd()'s outputs are
 * recorded: the byte stream that makes the coverage-guided target (mxa_qemu_fuzz.c)
 * do what this input does.
 */
static int dry;
static uint8_t *rec;
static size_t rec_len, rec_cap;

static void fuzz_rand_record(uint64_t x)
{
	if (!rec)
		return;
	if (rec_len + 8 > rec_cap) {
		rec_cap = rec_cap ? 2 * rec_cap : 1 << 16;
		rec = realloc(rec, rec_cap);
		if (!rec) {
			perror("realloc");
			exit(2);
		}
	}
	memcpy(rec + rec_len, &x, 8);
	rec_len += 8;
}

static char *qtest(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n;
	char *reply;

	if (dry)
		return "OK 0x0";
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

	while (len && !dry) {
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

#include "fuzz_device_gen.h"

/*
 * Waits in the scenarios are for the event, bounded by wall time (WAIT_SECONDS), not
 * by a count of qtest round trips, whose speed depends on the host: 100000 reads
 * once ended before a copy held 0.3 s a DMA run had written its first page.
 */
#define WAIT_SECONDS	20

/* @secs have not passed since @t0 (CLOCK_MONOTONIC). */
static int within(const struct timespec *t0, int secs)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec - t0->tv_sec < secs;
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
	/*
	 * The job fails at once on the MMIO semaphore; a device whose DMA reached MMIO polls
	 * it until the reset below (which then deadlocked). Wait for the completion, not
	 * for BUSY: a reset between BUSY and the job's context lookup aborts the job
	 * before it reaches the semaphore (a loaded host made that happen).
	 */
	{
		struct timespec t0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (readl(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_COMPLETED)) == 0 &&
		       within(&t0, WAIT_SECONDS))
			;
		if (!readl(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_COMPLETED))) {
			fprintf(stderr, "queue 0: status 0x%x, error %u\n",
				readl(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_STATUS)),
				readl(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_ERROR)));
			die_finding("mmio-dma-reset: the job did not complete within 20 s");
		}
	}
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
	struct timespec t0;
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
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (readl(TB_DST) != 0x11111111 && within(&t0, WAIT_SECONDS))
		;
	if (readl(TB_DST) != 0x11111111)
		die_finding("tlb-barrier: the copy never wrote its first page");
	for (i = 1; i < 3; i++)
		memwrite(PT_BASE + 0x2000 + mxa_pt_index(TB_DST_VA + i * 4096ull, 0) * 8, &zero, 8);
	writel(BAR0 + MXA_REG_TLB_INVAL, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((readl(BAR0 + MXA_REG_TLB_STATUS) & MXA_TLB_STATUS_BUSY) &&
	       within(&t0, WAIT_SECONDS))
		busy_seen = 1;
	/* the pages are free: reused at once */
	memset(sentinel, 0xee, sizeof(sentinel));
	memwrite(TB_DST + 4096, sentinel, 4096);
	memwrite(TB_DST + 2 * 4096, sentinel, 4096);
	/* the job ends: with an MMU fault at the third page (the second may have landed) */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!strtoul(qtest("readl 0x%llx\n", (unsigned long long)(COMPLETIONS + 8)) + 3,
			NULL, 0) && within(&t0, WAIT_SECONDS))
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

/*
 * Scenario doorbell-jobs: control jobs (a TIMESTAMP and a FENCE_WRITE) on an idle queue
 * have ended when their TAIL write returns: read right after the write, COMPLETED
 * counts them, their records say OK and their fences are written (device.rst, "Jobs a
 * doorbell runs"): one job a write, twice, then two in one write. What a doorbell
 * leaves to the queue thread ends too, with the results it had before: a COPY and the
 * control job behind it (one write), and a control job whose program is not mapped
 * (an MMU fault at the program's VA).
 */
#define DB_JOB(slot)	(COMPLETIONS + (slot) * sizeof(struct mxa_completion))
#define DB_PROG(slot)	(0x1000 + (slot) * 0x100)	/* the programs, in DATA */

static void db_place(uint32_t slot, uint64_t prog_va, uint32_t size)
{
	struct mxa_job_desc d = { .flags = MXA_JOB_F_IRQ, .ctx = 1, .prog_va = prog_va,
				  .prog_size = size, .completion = DB_JOB(slot),
				  .job_id = 100 + slot };

	memwrite(RINGS + slot * sizeof(d), &d, sizeof(d));
}

/*
 * Write TAIL and read COMPLETED in one write to QEMU: qtest runs the two back to back
 * under the BQL, so the queue thread has microseconds, not a round trip, to end a
 * job. Returns COMPLETED.
 */
static uint32_t db_ring(uint32_t tail)
{
	qtest("writel 0x%llx 0x%x\nreadl 0x%llx\n",
	      (unsigned long long)(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_TAIL)), tail,
	      (unsigned long long)(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_COMPLETED)));
	return strtoul(qtest_line() + 3, NULL, 0);
}

/* A control job in @slot whose fence writes @slot + 1 at DATA + 0x2000 + 16 * slot. */
static void db_control_job(uint32_t slot)
{
	const uint64_t fence_va = DATA_VA + 0x2000 + 16 * slot;
	uint32_t ctl[MXA_TIMESTAMP_DWORDS + MXA_FENCE_WRITE_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_TIMESTAMP, MXA_TIMESTAMP_DWORDS, 0),
		(uint32_t)(fence_va + 8), 0,
		MXA_CMD_HEADER(MXA_OP_FENCE_WRITE, MXA_FENCE_WRITE_DWORDS, 0),
		(uint32_t)fence_va, 0, slot + 1, 0x600d };

	memwrite(DATA + DB_PROG(slot), ctl, sizeof(ctl));
	db_place(slot, DATA_VA + DB_PROG(slot), sizeof(ctl));
}

static int db_control_ended(uint32_t slot)
{
	return readl(DB_JOB(slot) + 8) == MXA_JOB_STATUS_OK &&
	       readl(DATA + 0x2000 + 16 * slot) == slot + 1 &&
	       (readl(DATA + 0x2008 + 16 * slot) || readl(DATA + 0x200c + 16 * slot));
}

static void db_wait(uint32_t completed)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (readl(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_COMPLETED)) < completed &&
	       within(&t0, WAIT_SECONDS))
		;
	if (readl(BAR0 + MXA_QUEUE_REG(0, MXA_QREG_COMPLETED)) < completed)
		die_finding("doorbell-jobs: a job the queue thread runs never ended");
}

static void scenario_doorbell_jobs(void)
{
	const uint64_t unmapped_va = DATA_VA + 60 * 4096;	/* setup_memory() skips it */
	uint32_t copy[7] = { MXA_CMD_HEADER(MXA_OP_COPY, 7, 0), (uint32_t)(DATA_VA + 0x3000), 0,
			     (uint32_t)(DATA_VA + 0x4000), 0, 64, 0 };
	static uint8_t zero[8192], src[64];
	uint32_t slot;

	device_init();
	memwrite(COMPLETIONS, zero, sizeof(zero));
	memwrite(DATA + 0x2000, zero, 4096);
	memset(src, 0x5c, sizeof(src));
	memwrite(DATA + 0x3000, src, sizeof(src));
	memwrite(DATA + 0x4000, zero, 4096);
	enable_queue(0, 64);
	for (slot = 0; slot < 2; slot++) {
		db_control_job(slot);
		if (db_ring(slot + 1) != slot + 1 || !db_control_ended(slot))
			die_finding("doorbell-jobs: a control job had not ended when its "
				    "doorbell write returned");
	}
	db_control_job(2);
	db_control_job(3);
	if (db_ring(4) != 4 || !db_control_ended(2) || !db_control_ended(3))
		die_finding("doorbell-jobs: two control jobs of one doorbell write had not "
			    "ended when it returned");
	/* a COPY, then a control job: both the thread's */
	memwrite(DATA + DB_PROG(4), copy, sizeof(copy));
	db_place(4, DATA_VA + DB_PROG(4), sizeof(copy));
	db_control_job(5);
	db_ring(6);
	db_wait(6);
	if (readl(DB_JOB(4) + 8) != MXA_JOB_STATUS_OK || readl(DATA + 0x4000) != 0x5c5c5c5c ||
	    readl(DATA + 0x403c) != 0x5c5c5c5c || !db_control_ended(5))
		die_finding("doorbell-jobs: the COPY and the control job behind it did not end "
			    "as they should");
	db_place(6, unmapped_va, 32);
	db_ring(7);
	db_wait(7);
	if (readl(DB_JOB(6) + 8) != MXA_JOB_STATUS_ERROR ||
	    readl(DB_JOB(6) + 12) != MXA_ERR_MMU_FAULT || readl(DB_JOB(6) + 24) != (uint32_t)unmapped_va)
		die_finding("doorbell-jobs: an unmapped program did not fail with an MMU fault "
			    "at its VA");
	printf("fuzz-device: doorbell-jobs: four control jobs ended within their doorbell "
	       "writes; a COPY, the job behind it and an unmapped program on the queue thread\n");
}

/* The seeds of the coverage-guided target: input i of a run with @seed, as bytes. */
static int write_seeds(const char *dir, uint64_t seed, unsigned long long n)
{
	dry = 1;
	rec = malloc(1);
	for (unsigned long long i = 0; i < n; i++) {
		uint64_t input_seed = seed + i * 0x9e3779b97f4a7c15ull;
		char path[4096];
		FILE *f;

		rec_len = 0;
		rng_state = input_seed | 1;
		one_input();
		snprintf(path, sizeof(path), "%s/seed-%016" PRIx64, dir, input_seed);
		f = fopen(path, "wb");
		if (!f || fwrite(rec, 1, rec_len, f) != rec_len || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	printf("fuzz-device: %llu seed inputs in %s\n", n, dir);
	return 0;
}

int main(int argc, char **argv)
{
	const char *qemu = NULL, *extra = NULL, *scenario = NULL, *seeds_dir = NULL;
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
		else if (!strcmp(argv[i], "--write-seeds") && i + 1 < argc)
			seeds_dir = argv[++i];
		else {
			fprintf(stderr, "usage: fuzz-device --qemu PATH [--seconds S] [--inputs N] "
				"[--seed X] [--log FILE] [--qemu-args ARGS]\n"
				"       fuzz-device --write-seeds DIR --inputs N [--seed X]\n");
			return 2;
		}
	}
	if (seeds_dir)
		return write_seeds(seeds_dir, seed, max_inputs == ~0ull ? 100 : max_inputs);
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
		} else if (!strcmp(scenario, "doorbell-jobs")) {
			scenario_doorbell_jobs();
		} else {
			fprintf(stderr, "fuzz-device: unknown scenario %s (mmio-dma-reset, "
				"tlb-barrier, doorbell-jobs)\n",
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
