// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "async": asynchronous commands. COPY (cp.async) with commit and wait
 * groups, loops advancing addresses in registers, FENCE_WRITE draining outstanding work,
 * asynchronous GEMMs giving the same bits as synchronous ones under both scheduling
 * policies, GEMM operand addresses from registers (and FENCE), errors of asynchronous
 * commands reported with the issuing command's offset, TIMESTAMP.MODEL's view of the
 * cycle model, and a load/compute overlap timed against the serial order (reported
 * only).
 */
#include "mxa_test.h"

#include <stdio.h>

#include "accel.h"
#include "accel_test.h"
#include "kselftest_harness.h"

#define DATA_SIZE	(8u << 20)

FIXTURE(async) {
	ACCEL_TEST_FIELDS;
};

FIXTURE_SETUP(async)
{
	int ret = accel_test_setup(self, MXA_CAP_ASYNC, DATA_SIZE);

	if (ret == 1)
		SKIP(return, "device without MXA_CAP_ASYNC");
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(async)
{
	accel_test_teardown(self);
}

static int run(FIXTURE_DATA(async) *self)
{
	return accel_test_run_self(self);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = seed >> 24;
	}
}

TEST_F(async, copy_loop_commit_wait)
{
	struct accel_prog *p = self->prog;
	const uint32_t chunk = 64 << 10, n = 16;
	uint64_t src = self->va, dst = self->va + (1 << 20), out = self->va + (4 << 20);
	uint64_t *o = (uint64_t *)(self->data + (4 << 20));

	fill(self->data, n * chunk, 1);
	/* R1 = offset; one group per chunk */
	ASSERT_EQ(0, accel_prog_loop(p, n, 0));
	ASSERT_EQ(0, accel_prog_copy(p, dst, 1, src, 1, chunk, 0));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_reg_add(p, 1, 1, 0, chunk));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_COPY, 0));
	/* after the wait the device itself sees the copied bytes */
	ASSERT_EQ(0, accel_prog_reg_load(p, 2, dst + n * chunk - 8));
	ASSERT_EQ(0, accel_prog_reg_store(p, 2, out));
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(0, memcmp(self->data, self->data + (1 << 20), n * chunk));
	EXPECT_EQ(0, memcmp(o, self->data + n * chunk - 8, 8));
}

/*
 * TIMESTAMP.MODEL writes the cycle model's view at no modelled cost: a COPY of 64 KiB
 * gives the copy engine 32 + 65536 / 64 busy cycles when it is issued (both presets),
 * the math engine none, and the WAIT_GROUP moves the clock past the copy's modelled
 * completion. A misaligned VA is MXA_ERR_MISALIGNED.
 */
TEST_F(async, timestamp_model_shows_the_cycle_model)
{
	struct accel_prog *p = self->prog;
	const uint32_t at = 6 << 20, bytes = 64 << 10;
	struct mxa_timestamp_model *t = (struct mxa_timestamp_model *)(self->data + at);
	uint64_t ts = self->va + at;

	ASSERT_EQ(0, accel_prog_timestamp_model(p, ts));
	ASSERT_EQ(0, accel_prog_timestamp_model(p, ts + 32));
	ASSERT_EQ(0, accel_prog_copy(p, self->va + (1 << 20), 0, self->va, 0, bytes, 0));
	ASSERT_EQ(0, accel_prog_timestamp_model(p, ts + 64));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_COPY, 0));
	ASSERT_EQ(0, accel_prog_timestamp_model(p, ts + 96));
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(t[0].cycles, t[1].cycles);		/* observing costs nothing */
	EXPECT_LT(t[1].cycles, t[2].cycles);		/* issuing the COPY does */
	EXPECT_EQ(32 + bytes / 64, t[2].busy[MXA_GROUP_COPY] - t[1].busy[MXA_GROUP_COPY]);
	EXPECT_EQ(t[1].busy[MXA_GROUP_MMA], t[3].busy[MXA_GROUP_MMA]);
	EXPECT_LE(t[1].cycles + 32 + bytes / 64, t[3].cycles);
	EXPECT_LT(t[3].cycles, t[1].cycles + 32 + bytes / 64 + 200);
	EXPECT_LE(t[0].ns, t[1].ns);
	EXPECT_LE(t[2].ns, t[3].ns);
	EXPECT_LE(self->r.start_ns, t[0].ns);

	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_raw(p, (uint32_t[]){ MXA_CMD_HEADER(MXA_OP_TIMESTAMP,
			MXA_TIMESTAMP_DWORDS, MXA_TIMESTAMP_F_MODEL), (uint32_t)(ts + 4),
			(uint32_t)((ts + 4) >> 32) }, MXA_TIMESTAMP_DWORDS));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_MISALIGNED, self->r.error);
	EXPECT_EQ(-EINVAL, accel_prog_timestamp_model(p, ts + 4));
}

TEST_F(async, wait_group_n_covers_older_groups)
{
	struct accel_prog *p = self->prog;
	uint64_t *o = (uint64_t *)(self->data + (7 << 20));

	fill(self->data, 2 << 20, 2);
	/* group 1: 2 MiB; group 2: 8 bytes; wait_group 1 guarantees group 1 only */
	ASSERT_EQ(0, accel_prog_copy(p, self->va + (2 << 20), 0, self->va, 0, 2 << 20, 0));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_copy(p, self->va + (6 << 20), 0, self->va, 0, 8, 0));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_COPY, 1));
	ASSERT_EQ(0, accel_prog_reg_load(p, 3, self->va + (4 << 20) - 8));
	ASSERT_EQ(0, accel_prog_reg_store(p, 3, self->va + (7 << 20)));
	/* an empty group and a wait for more groups than exist return at once */
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_MMA));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_MMA, 0));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_COPY, 100));
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(0, memcmp(o, self->data + (2 << 20) - 8, 8));
	EXPECT_EQ(0, memcmp(self->data, self->data + (2 << 20), 2 << 20));
}

TEST_F(async, fence_write_drains_uncommitted_copies)
{
	struct accel_prog *p = self->prog;

	fill(self->data, 1 << 20, 3);
	ASSERT_EQ(0, accel_prog_copy(p, self->va + (1 << 20), 0, self->va, 0, 1 << 20, 0));
	ASSERT_EQ(0, accel_prog_fence_write(p, self->va + (3 << 20), 1));
	ASSERT_EQ(0, accel_prog_reg_load(p, 1, self->va + (2 << 20) - 8));
	ASSERT_EQ(0, accel_prog_reg_store(p, 1, self->va + (3 << 20) + 8));
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(0, memcmp(self->data, self->data + (1 << 20), 1 << 20));
	EXPECT_EQ(0, memcmp(self->data + (3 << 20) + 8, self->data + (1 << 20) - 8, 8));
}

TEST_F(async, error_reported_with_issuing_offset)
{
	struct accel_prog *p = self->prog;
	uint64_t bad = 1ull << 37;	/* never mapped */
	uint32_t at;

	ASSERT_EQ(0, accel_prog_copy(p, self->va + 4096, 0, self->va, 0, 4096, 0));
	at = accel_prog_size(p);
	ASSERT_EQ(0, accel_prog_copy(p, self->va, 0, bad, 0, 4096, 0));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_nop(p));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_COPY, 0));
	ASSERT_EQ(0, accel_prog_fence_write(p, self->va + 8192, 1));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(-EFAULT, self->r.status);
	EXPECT_EQ(MXA_ERR_MMU_FAULT, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(bad, self->r.err_addr);
	EXPECT_EQ(0, *(uint64_t *)(self->data + 8192));

	/* an error nobody waits for is reported at the end of the job */
	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_nop(p));
	ASSERT_EQ(0, accel_prog_copy(p, bad, 0, self->va, 0, 64, 0));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_MMU_FAULT, self->r.error);
	EXPECT_EQ(4, self->r.err_offset);
}

static struct accel_gemm f32_gemm(uint64_t va, uint32_t m, uint32_t n, uint32_t k,
				  uint64_t d, uint8_t sched)
{
	struct accel_gemm g = {
		.m = m, .n = n, .k = k,
		.type_a = MXA_DTYPE_BF16, .type_b = MXA_DTYPE_BF16,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32,
		.a = va, .b = va + (1 << 20), .d = d, .sched = sched,
	};
	return g;
}

/*
 * The GEMM command, synchronous and asynchronous, intrawave and interwave: K = 768 is
 * three of the EXACT path's interwave chunks, so the two policies run different
 * strategies (test-engine-interwave counts them); the bits are the same.
 */
TEST_F(async, gemm_async_bits_match_sync_both_policies)
{
	struct accel_prog *p = self->prog;
	const uint32_t m = 96, n = 80, k = 768;
	uint64_t d0 = self->va + (2 << 20), d1 = self->va + (3 << 20), d2 = self->va + (4 << 20);
	struct accel_gemm g;
	size_t dbytes = m * n * 4;

	/* bf16 inputs: finite random values (exponent bits limited) */
	fill(self->data, 2 << 20, 4);
	for (size_t i = 1; i < (2u << 20); i += 2)
		self->data[i] = (self->data[i] & 0x80) | 0x3c | (self->data[i] & 1);
	g = f32_gemm(self->va, m, n, k, d0, 0);
	ASSERT_EQ(0, accel_prog_gemm(p, &g));
	g = f32_gemm(self->va, m, n, k, d1, 0);
	ASSERT_EQ(0, accel_prog_gemm_async(p, &g));
	g = f32_gemm(self->va, m, n, k, d2, 1);
	ASSERT_EQ(0, accel_prog_gemm_async(p, &g));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_MMA));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_MMA, 0));
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(0, memcmp(self->data + (2 << 20), self->data + (3 << 20), dbytes));
	EXPECT_EQ(0, memcmp(self->data + (2 << 20), self->data + (4 << 20), dbytes));
	/* the result is not all zeros */
	size_t nz = 0;

	for (size_t i = 0; i < dbytes; i++)
		nz += self->data[(2 << 20) + i] != 0;
	EXPECT_GT(nz, dbytes / 2);
}

/*
 * GEMM operand addresses from registers: a LOOP walks a 128-row problem in four 32-row
 * asynchronous GEMMs (FENCE first, as a wgmma program would) and gets the bits of one
 * 128-row GEMM.
 */
TEST_F(async, gemm_addresses_from_registers_in_a_loop)
{
	struct accel_prog *p = self->prog;
	const uint32_t m = 128, n = 48, k = 64;
	uint64_t d0 = self->va + (2 << 20), d1 = self->va + (3 << 20);
	const uint8_t regs[6] = { 1, 0, 0, 2, 0, 0 };	/* A + R1, D + R2 */
	struct accel_gemm g;
	uint32_t at;

	fill(self->data, 2 << 20, 9);
	for (size_t i = 1; i < (2u << 20); i += 2)
		self->data[i] = (self->data[i] & 0x80) | 0x3c | (self->data[i] & 1);
	memset(self->data + (3 << 20), 0x55, m * n * 4);
	g = f32_gemm(self->va, m, n, k, d0, 0);
	ASSERT_EQ(0, accel_prog_gemm(p, &g));
	ASSERT_EQ(0, accel_prog_fence(p));
	g = f32_gemm(self->va, 32, n, k, d1, 0);
	ASSERT_EQ(0, accel_prog_loop(p, 4, 0));
	ASSERT_EQ(0, accel_prog_gemm_regs(p, &g, 1, regs));
	ASSERT_EQ(0, accel_prog_reg_add(p, 1, 1, 0, 32 * k * 2));
	ASSERT_EQ(0, accel_prog_reg_add(p, 2, 2, 0, 32 * n * 4));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_MMA));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_MMA, 0));
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(0, memcmp(self->data + (2 << 20), self->data + (3 << 20), m * n * 4));

	/* a register number out of range fails at the GEMM; FENCE takes no flags */
	accel_prog_reset(p);
	at = accel_prog_size(p);
	ASSERT_EQ(0, accel_prog_gemm_regs(p, &g, 0, regs));
	((uint32_t *)accel_prog_dwords(p))[at / 4 + 26] = MXA_REGS3(1, MXA_NUM_REGS, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_BAD_REGISTER, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_fence(p));
	((uint32_t *)accel_prog_dwords(p))[0] |= MXA_CMD_HEADER(0, 0, 1);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_BAD_FLAGS, self->r.error);
}

/*
 * A two-stage pipeline: copy stage s+1 while the GEMM of stage s runs, against the same
 * work in serial order. Reports both times.
 */
TEST_F(async, pipeline_overlaps_copy_and_mma)
{
	struct accel_prog *p = self->prog;
	const uint32_t m = 128, n = 128, k = 512, stages = 4;
	const uint32_t copy = 1 << 20;
	uint64_t t[2], cyc[2];
	struct accel_gemm g;
	int pass;

	fill(self->data, 2 << 20, 5);
	for (size_t i = 1; i < (2u << 20); i += 2)
		self->data[i] = (self->data[i] & 0x80) | 0x3c | (self->data[i] & 1);
	for (pass = 0; pass < 2; pass++) {
		accel_prog_reset(p);
		g = f32_gemm(self->va, m, n, k, self->va + (7 << 20), 0);
		ASSERT_EQ(0, accel_prog_loop(p, stages, 0));
		ASSERT_EQ(0, accel_prog_copy(p, self->va + (4 << 20), 0, self->va + (2 << 20), 0,
					     copy, 0));
		ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_COPY));
		if (pass == 0)		/* serial: wait for the load before computing */
			ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_COPY, 0));
		ASSERT_EQ(0, accel_prog_gemm(p, &g));
		ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_COPY, 0));
		ASSERT_EQ(0, accel_prog_endloop(p));
		ASSERT_EQ(0, run(self));
		ASSERT_EQ(0, self->r.status);
		t[pass] = self->r.end_ns - self->r.start_ns;
		cyc[pass] = self->r.cycles;
	}
	/*
	 * The overlap is asserted in modelled cycles (Documentation/device.rst: the copy
	 * and math engines have clocks of their own, and only a wait joins them), which
	 * the host's load cannot change: in each stage the shorter of the copy and the
	 * GEMM runs hidden behind the longer one. Host time is reported only: on a host with
	 * fewer cores than the device's threads the engine's workers compete with the copy
	 * engine.
	 */
	{
		/* timing=mxa: 2048 MACs a cycle (Documentation/device.rst) */
		uint64_t copy_cycles = 32 + copy / 64;
		uint64_t gemm_cycles = (uint64_t)m * n * k / 2048 + 1;
		uint64_t hidden = copy_cycles < gemm_cycles ? copy_cycles : gemm_cycles;

		ASSERT_LT(cyc[1], cyc[0]);
		/* a few command-processor cycles per stage are not hidden */
		EXPECT_LE(stages * (hidden - 16), cyc[0] - cyc[1])
			TH_LOG("serial %llu cycles, overlapped %llu: %llu per stage should be hidden",
			       (unsigned long long)cyc[0], (unsigned long long)cyc[1],
			       (unsigned long long)hidden);
	}
	fprintf(stderr, "# serial %.3f ms %llu cycles, overlapped %.3f ms %llu cycles\n",
		t[0] / 1e6, (unsigned long long)cyc[0], t[1] / 1e6, (unsigned long long)cyc[1]);
}

TEST_HARNESS_MAIN
