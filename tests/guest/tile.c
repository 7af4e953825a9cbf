// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "tile": tile registers (TILE_LOAD/STORE between memory, SRAM and
 * tiles, strided) and TMATMULMX / TMATMULMX.ACC (seed 004) compared bit for bit with
 * the engine's mxe_tmatmulmx() run here on the guest's CPU: FP8 MX with M, N, K from
 * immediates, registers and register + immediate, .reuse, BF16 data whose scales are
 * ignored, NaN scales; and the job errors: FP8 with K % 64, a tile used after release,
 * shape mismatches, ACC<size> too small, empty tiles.
 *
 * Plumbing tests: the reference is the same engine code compiled into the guest, so they
 * check operands, encodings and data paths, not numerics (the H200 golden vectors,
 * tests/host/test-engine-golden, are the numerics oracle; Documentation/testing.rst).
 */
#include "mxa_test.h"

#include <math.h>
#include <stdio.h>

#include "accel.h"
#include "accel_test.h"
#include "kselftest_harness.h"
#include "../../qemu-device/engine/mxe_engine.h"


#define A_OFF	0x10000u
#define SA_OFF	0x20000u
#define B_OFF	0x30000u
#define SB_OFF	0x40000u
#define OUT_OFF	0x50000u
#define OUT2_OFF 0xa0000u

#define T_A	MXA_TILE(MXA_TILE_T, 1)
#define U_A	MXA_TILE(MXA_TILE_U, 1)
#define M_B	MXA_TILE(MXA_TILE_M, 1)
#define N_B	MXA_TILE(MXA_TILE_N, 1)
#define ACC0	MXA_TILE(MXA_TILE_ACC, 0)
#define R	MXA_TILE_REUSE

FIXTURE(tile) {
	ACCEL_TEST_FIELDS;
	uint32_t seed;
};

FIXTURE_SETUP(tile)
{
	int ret = accel_test_setup(self, MXA_CAP_TILE, 1 << 20);

	if (ret == 1)
		SKIP(return, "device without MXA_CAP_TILE");
	ASSERT_EQ(0, ret);
	self->seed = 12345;
}

FIXTURE_TEARDOWN(tile)
{
	accel_test_teardown(self);
}

static int run(FIXTURE_DATA(tile) *self)
{
	return accel_test_run_self(self);
}

static uint32_t rnd(FIXTURE_DATA(tile) *self)
{
	self->seed ^= self->seed << 13;
	self->seed ^= self->seed >> 17;
	self->seed ^= self->seed << 5;
	return self->seed;
}

/* Random finite codes of @type (FP8, BF16) and scales 2^-7 .. 2^7. */
static void fill(FIXTURE_DATA(tile) *self, uint8_t *p, size_t n, int type)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t v = rnd(self);

		if (type == MXA_DTYPE_E4M3 && (v & 0x7f) == 0x7f)
			v ^= 1;
		if (type == MXA_DTYPE_E5M2 && (v & 0x7c) == 0x7c)
			v &= ~0x40;
		if (type == MXA_DTYPE_BF16 && (i & 1))
			v = 0x3c + (v & 0x83);	/* sign, exponent near 1.0 */
		if (type == MXA_DTYPE_E8M0)
			v = 120 + v % 15;
		p[i] = v;
	}
}

/* Host reference: D (m x n f32) = (SA x A)(SB x B)^T (+ D). */
static int host_tmm(const uint8_t *data, uint32_t m, uint32_t n, uint32_t k, int ta, int tb,
		    int mx_a, int mx_b, int acc, float *d)
{
	struct mxe_gemm_desc g = {
		.m = m, .n = n, .k = k, .type_a = ta, .type_b = tb,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32,
		.flags = acc ? MXA_GEMM_F_ACCUMULATE : 0,
		.a = data + A_OFF, .b = data + B_OFF, .c = acc ? d : NULL, .d = d,
		.scale_a = mx_a ? data + SA_OFF : NULL, .scale_b = mx_b ? data + SB_OFF : NULL,
		.scale_block = (mx_a || mx_b) ? 32 : 0,
	};

	return mxe_tmatmulmx(NULL, &g);
}

/* Load A, SA, B, SB from memory into T_A, U_A, M_B, N_B. */
static void load_tiles(FIXTURE_DATA(tile) *self, uint32_t m, uint32_t n, uint32_t k,
		       int ta, int tb)
{
	struct accel_prog *p = self->prog;

	accel_prog_tile_load(p, T_A, 1, self->va + A_OFF, 0, m,
			     accel_dtype_row_bytes(ta, k), 0);
	accel_prog_tile_load(p, U_A, 1, self->va + SA_OFF, 0, m, (k + 31) / 32, 0);
	accel_prog_tile_load(p, M_B, 1, self->va + B_OFF, 0, n,
			     accel_dtype_row_bytes(tb, k), 0);
	accel_prog_tile_load(p, N_B, 1, self->va + SB_OFF, 0, n, (k + 31) / 32, 0);
}

static void setup_mx(FIXTURE_DATA(tile) *self, uint32_t m, uint32_t n, uint32_t k,
		     int ta, int tb)
{
	fill(self, self->data + A_OFF, m * accel_dtype_row_bytes(ta, k), ta);
	fill(self, self->data + B_OFF, n * accel_dtype_row_bytes(tb, k), tb);
	fill(self, self->data + SA_OFF, m * ((k + 31) / 32), MXA_DTYPE_E8M0);
	fill(self, self->data + SB_OFF, n * ((k + 31) / 32), MXA_DTYPE_E8M0);
	memset(self->data + OUT_OFF, 0x55, m * n * 4);
	memset(self->data + OUT2_OFF, 0x55, m * n * 4);
}

static int compare(const float *got, const float *want, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		if (memcmp(&got[i], &want[i], 4) && bad++ < 5)
			fprintf(stderr, "# [%zu] = %a, want %a\n", i, got[i], want[i]);
	}
	return bad;
}

TEST_F(tile, load_store_sram_and_memory)
{
	struct accel_prog *p = self->prog;
	uint8_t *out = self->data + OUT_OFF;

	for (int i = 0; i < 64 * 100; i++)
		self->data[A_OFF + i] = i * 7 + i / 100;
	memset(out, 0, 4096);
	accel_prog_reset(p);
	/* rows 0..15 of a 64 x 100 byte matrix, columns 0..47, to T#1; to SRAM 0x1000 */
	accel_prog_tile_load(p, T_A, 1, self->va + A_OFF, 0, 16, 48, 100);
	accel_prog_reg_set(p, 3, 0x1000);
	accel_prog_tile_store(p, T_A, 0, 0, 3, 16, 48, 64);
	/* SRAM to M#2 (strided), then densely to memory */
	accel_prog_tile_load(p, MXA_TILE(MXA_TILE_M, 2), 0, 0x1000, 0, 16, 48, 64);
	accel_prog_tile_store(p, MXA_TILE(MXA_TILE_M, 2), 1, self->va + OUT_OFF, 0, 16,
			      48, 0);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	for (int r = 0; r < 16; r++)
		for (int c = 0; c < 48; c++)
			ASSERT_EQ(self->data[A_OFF + r * 100 + c], out[r * 48 + c]);
	EXPECT_EQ(0, out[16 * 48]);
}

TEST_F(tile, tmatmulmx_fp8_and_acc_plumbing)
{
	const uint32_t m = 32, n = 24, k = 128;
	struct accel_tmatmulmx t = {
		.type_a = MXA_DTYPE_E4M3, .type_b = MXA_DTYPE_E5M2,
		.m = m, .n = 0, .n_reg = 1, .k = 64, .k_reg = 2,	/* imm, reg, reg + imm */
		.a = T_A | R, .scale_a = U_A | R, .b = M_B | R, .scale_b = N_B | R,
		.acc = ACC0, .acc_size = 64 << 10,
	};
	struct accel_prog *p = self->prog;
	static float want[32 * 24];

	setup_mx(self, m, n, k, t.type_a, t.type_b);
	accel_prog_reset(p);
	accel_prog_reg_set(p, 1, n);
	accel_prog_reg_set(p, 2, k - 64);
	load_tiles(self, m, n, k, t.type_a, t.type_b);
	ASSERT_EQ(0, accel_prog_tmatmulmx(p, &t));
	accel_prog_tile_store(p, ACC0, 1, self->va + OUT_OFF, 0, m, n * 4, 0);
	t.flags = MXA_TMM_F_ACC;	/* TMATMULMX.ACC, tiles released afterwards */
	t.a = T_A, t.scale_a = U_A, t.b = M_B, t.scale_b = N_B;
	ASSERT_EQ(0, accel_prog_tmatmulmx(p, &t));
	accel_prog_tile_store(p, ACC0, 1, self->va + OUT2_OFF, 0, m, n * 4, 0);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);

	ASSERT_EQ(0, host_tmm(self->data, m, n, k, t.type_a, t.type_b, 1, 1, 0, want));
	EXPECT_EQ(0, compare((float *)(self->data + OUT_OFF), want, m * n));
	ASSERT_EQ(0, host_tmm(self->data, m, n, k, t.type_a, t.type_b, 1, 1, 1, want));
	EXPECT_EQ(0, compare((float *)(self->data + OUT2_OFF), want, m * n));
}

TEST_F(tile, tmatmulmx_bf16_ignores_scales)
{
	const uint32_t m = 16, n = 8, k = 64;
	struct accel_tmatmulmx t = {
		.type_a = MXA_DTYPE_BF16, .type_b = MXA_DTYPE_BF16, .m = m, .n = n, .k = k,
		.a = T_A | R, .scale_a = MXA_TILE_NONE,
		/* an empty scale tile: never read for BF16 */
		.b = M_B, .scale_b = MXA_TILE(MXA_TILE_N, 7),
		.acc = MXA_TILE(MXA_TILE_ACC, 3), .acc_size = m * n * 4,
	};
	struct accel_prog *p = self->prog;
	static float want[16 * 8];

	setup_mx(self, m, n, k, MXA_DTYPE_BF16, MXA_DTYPE_BF16);
	accel_prog_reset(p);
	accel_prog_tile_load(p, T_A, 1, self->va + A_OFF, 0, m, k * 2, 0);
	accel_prog_tile_load(p, M_B, 1, self->va + B_OFF, 0, n, k * 2, 0);
	ASSERT_EQ(0, accel_prog_tmatmulmx(p, &t));
	accel_prog_tile_store(p, t.acc, 1, self->va + OUT_OFF, 0, m, n * 4, 0);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	ASSERT_EQ(0, host_tmm(self->data, m, n, k, t.type_a, t.type_b, 0, 0, 0, want));
	EXPECT_EQ(0, compare((float *)(self->data + OUT_OFF), want, m * n));
}

TEST_F(tile, tmatmulmx_nan_scale_poisons_its_block)
{
	const uint32_t m = 8, n = 8, k = 64;
	struct accel_tmatmulmx t = {
		.type_a = MXA_DTYPE_E4M3, .type_b = MXA_DTYPE_E4M3, .m = m, .n = n, .k = k,
		.a = T_A, .scale_a = U_A, .b = M_B, .scale_b = N_B, .acc = ACC0,
		.acc_size = 4096,
	};
	float *out = (float *)(self->data + OUT_OFF);
	static float want[8 * 8];

	setup_mx(self, m, n, k, t.type_a, t.type_b);
	self->data[SA_OFF + 3 * (k / 32) + 1] = 0xff;	/* row 3, block 1 */
	accel_prog_reset(self->prog);
	load_tiles(self, m, n, k, t.type_a, t.type_b);
	ASSERT_EQ(0, accel_prog_tmatmulmx(self->prog, &t));
	accel_prog_tile_store(self->prog, ACC0, 1, self->va + OUT_OFF, 0, m, n * 4, 0);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	for (uint32_t i = 0; i < m * n; i++)
		EXPECT_EQ(i / n == 3, isnan(out[i]));
	ASSERT_EQ(0, host_tmm(self->data, m, n, k, t.type_a, t.type_b, 1, 1, 0, want));
	EXPECT_EQ(0, compare(out, want, m * n));
}

/* Emit the tile loads and a TMATMULMX; returns the TMATMULMX's offset. */
static uint32_t tmm_prog(FIXTURE_DATA(tile) *self, struct accel_tmatmulmx *t, uint32_t k_tiles)
{
	uint32_t at;

	setup_mx(self, t->m, t->n, k_tiles, t->type_a, t->type_b);
	accel_prog_reset(self->prog);
	load_tiles(self, t->m, t->n, k_tiles, t->type_a, t->type_b);
	at = accel_prog_size(self->prog);
	accel_prog_tmatmulmx(self->prog, t);
	return at;
}

/*
 * A program around seed 004's example @tmm (one line or the split block), with a0 = 48
 * and a1 = 118 set first: M = 100, N = a0 = 48, K = a1 + 10 = 128, E4M3 x E5M2,
 * accumulating into ACC, which is stored to OUT_OFF.
 */
static void seed_example(FIXTURE_DATA(tile) *self, char *text, size_t len, const char *tmm)
{
	snprintf(text, len,
		 "REG_SET a0, 48\nREG_SET a1, 118\n"
		 "TILE_LOAD.GLOBAL T#1, 0x%llx, 100, 128\nTILE_LOAD.GLOBAL U#1, 0x%llx, 100, 4\n"
		 "TILE_LOAD.GLOBAL M#1, 0x%llx, 48, 128\nTILE_LOAD.GLOBAL N#1, 0x%llx, 48, 4\n"
		 "TILE_LOAD.GLOBAL ACC#0, 0x%llx, 100, 192\n%s"
		 "TILE_STORE.GLOBAL 0x%llx, ACC#0, 100, 192\n",
		 (unsigned long long)self->va + A_OFF, (unsigned long long)self->va + SA_OFF,
		 (unsigned long long)self->va + B_OFF, (unsigned long long)self->va + SB_OFF,
		 (unsigned long long)self->va + OUT2_OFF, tmm,
		 (unsigned long long)self->va + OUT_OFF);
}

static const char seed_block[] =	/* the block, as the seed encodes the example */
	"BSTART.CUBE MAMULBMX.ACC, e4m3\n"
	"B.DATR e5m2\n"
	"B.DIM r0, 100, ->LB0\n"
	"B.DIM a0, 0, ->LB1\n"
	"B.DIM a1, 10, ->LB2\n"
	"B.IOT T#1, U#1\n"
	"B.IOT M#1, N#1, last, ACC, ->ACC<64KB>\n";

/*
 * Seed 004's example as the seed writes it: it runs and matches the engine's
 * reference; with a1 = -10 (K = 0) the error names K. The seed's split encoding of the
 * same instruction gives the same bits.
 */
TEST_F(tile, tmatmulmx_seed_example_as_written)
{
	const uint32_t m = 100, n = 48, k = 128;
	static float want[100 * 48], one_line[100 * 48];
	char text[2048], err[256];

	setup_mx(self, m, n, k, MXA_DTYPE_E4M3, MXA_DTYPE_E5M2);
	for (uint32_t i = 0; i < m * n; i++)	/* C, the incoming accumulator */
		((float *)(self->data + OUT2_OFF))[i] = (float)(int)(i % 7) - 3.0f;
	memcpy(want, self->data + OUT2_OFF, sizeof(want));
	seed_example(self, text, sizeof(text),
		     "TMATMULMX.ACC <LB0:100, LB1:a0, LB2:a1+10, e4m3, e5m2> T#1, U#1, M#1, N#1, "
		     "ACC, ->ACC<64KB>\n");
	accel_prog_reset(self->prog);
	ASSERT_EQ(0, accel_asm(text, self->prog, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status) TH_LOG("error %u info 0x%x", self->r.error, self->r.err_info);
	ASSERT_EQ(0, host_tmm(self->data, m, n, k, MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, 1, 1, 1, want));
	EXPECT_EQ(0, compare((float *)(self->data + OUT_OFF), want, m * n));
	memcpy(one_line, self->data + OUT_OFF, sizeof(one_line));

	/* the split block */
	memset(self->data + OUT_OFF, 0, sizeof(one_line));
	seed_example(self, text, sizeof(text), seed_block);
	accel_prog_reset(self->prog);
	ASSERT_EQ(0, accel_asm(text, self->prog, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status) TH_LOG("error %u info 0x%x", self->r.error, self->r.err_info);
	EXPECT_EQ(0, memcmp(one_line, self->data + OUT_OFF, sizeof(one_line)));

	/* the one-line form with K = a1 + 10 = 0: MXA_ERR_BAD_OPERAND names K and its value */
	seed_example(self, text, sizeof(text),
		     "TMATMULMX.ACC <LB0:100, LB1:a0, LB2:a1+10, e4m3, e5m2> T#1, U#1, M#1, N#1, "
		     "ACC, ->ACC<64KB>\n");
	*strstr(text, "118") = ' ';
	memcpy(strstr(text, " 18"), "-10", 3);
	accel_prog_reset(self->prog);
	ASSERT_EQ(0, accel_asm(text, self->prog, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(-EIO, self->r.status);
	EXPECT_EQ(MXA_ERR_BAD_OPERAND, self->r.error);
	EXPECT_EQ(MXA_BADOP(MXA_BADOP_SHAPE, MXA_OPERAND_K), self->r.err_info);
	EXPECT_EQ(0, self->r.err_addr);
	EXPECT_EQ(MXA_OP_TMATMULMX, MXA_CMD_OPCODE(self->r.err_opcode));
}

/*
 * Each malformed block fails the job at the command that breaks it, naming the
 * command, the reason and the part (or the block's BSTART.CUBE offset).
 */
TEST_F(tile, split_block_errors)
{
	/* the block's lines, by number, and what to do to them */
	static const char *const lines[] = {
		"BSTART.CUBE MAMULBMX.ACC, e4m3", "B.DATR e5m2", "B.DIM r0, 100, ->LB0",
		"B.DIM a0, 0, ->LB1", "B.DIM a1, 10, ->LB2", "B.IOT T#1, U#1",
		"B.IOT M#1, N#1, last, ACC, ->ACC<64KB>",
	};
	const struct {
		const char *what;
		int drop, dup, insert_after;	/* line numbers, -1: none */
		int bare;			/* the program is the block alone */
		const char *insert;
		uint32_t reason, op, nth;	/* the nth command @op of the program breaks it */
		uint32_t addr;			/* ~0u: the (first) BSTART.CUBE's offset */
	} cases[] = {
		{ "a missing B.DIM ->LB2", 4, -1, -1, 0, NULL, MXA_BLOCK_ERR_MISSING, MXA_OP_B_IOT, 1,
		  MXA_BLOCK_PART_LB0 + 2 },
		{ "B.DIM ->LB0 twice", -1, 2, -1, 0, NULL, MXA_BLOCK_ERR_REPEATED, MXA_OP_B_DIM, 2,
		  MXA_BLOCK_PART_LB0 },
		{ "no last B.IOT: the next command", 6, -1, -1, 0, NULL, MXA_BLOCK_ERR_INSIDE,
		  MXA_OP_TILE_STORE, 1, ~0u },
		{ "no last B.IOT: the program's end", 6, -1, -1, 1, NULL, MXA_BLOCK_ERR_OPEN,
		  MXA_OP_BSTART_CUBE, 1, ~0u },
		{ "a NOP inside the block", -1, -1, 1, 0, "NOP", MXA_BLOCK_ERR_INSIDE, MXA_OP_NOP, 1,
		  ~0u },
		{ "a TILE_LOAD inside the block", -1, -1, 5, 0, "TILE_LOAD.GLOBAL T#2, 0x0, 1, 16",
		  MXA_BLOCK_ERR_INSIDE, MXA_OP_TILE_LOAD, 6, ~0u },
		{ "a part with no block", 0, -1, -1, 0, NULL, MXA_BLOCK_ERR_OUTSIDE, MXA_OP_B_DATR, 1,
		  0 },
		{ "BSTART.CUBE inside a block", -1, 0, -1, 0, NULL, MXA_BLOCK_ERR_NESTED,
		  MXA_OP_BSTART_CUBE, 2, ~0u },
		{ "B.DATR after a B.DIM", 1, -1, 2, 0, "B.DATR e5m2", MXA_BLOCK_ERR_ORDER,
		  MXA_OP_B_DATR, 1, MXA_BLOCK_PART_DATR },
		{ "the last B.IOT without the first", 5, -1, -1, 0, NULL, MXA_BLOCK_ERR_MISSING,
		  MXA_OP_B_IOT, 1, MXA_BLOCK_PART_IOT_A },
	};
	char block[1024], text[2048], err[256], why[512];

	setup_mx(self, 100, 48, 128, MXA_DTYPE_E4M3, MXA_DTYPE_E5M2);
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t at = 0, bstart = 0, expect_at = 0;
		struct accel_prog *p = self->prog;

		block[0] = 0;
		for (int l = 0; l < 7; l++) {
			if (l != cases[c].drop)
				snprintf(block + strlen(block), sizeof(block) - strlen(block), "%s\n",
					 lines[l]);
			if (l == cases[c].dup)
				snprintf(block + strlen(block), sizeof(block) - strlen(block), "%s\n",
					 lines[l]);
			if (l == cases[c].insert_after)
				snprintf(block + strlen(block), sizeof(block) - strlen(block), "%s\n",
					 cases[c].insert);
		}
		if (cases[c].bare)
			snprintf(text, sizeof(text), "%s", block);
		else
			seed_example(self, text, sizeof(text), block);
		accel_prog_reset(p);
		ASSERT_EQ(0, accel_asm(text, p, err, sizeof(err))) TH_LOG("%s: %s", cases[c].what, err);
		ASSERT_EQ(0, run(self));
		EXPECT_EQ(MXA_ERR_BLOCK, self->r.error) TH_LOG("%s", cases[c].what);
		EXPECT_EQ(cases[c].reason, self->r.err_info) TH_LOG("%s", cases[c].what);
		EXPECT_EQ(cases[c].op, MXA_CMD_OPCODE(self->r.err_opcode)) TH_LOG("%s", cases[c].what);
		/* the offending command's offset, and the BSTART.CUBE's where the case says */
		for (size_t off = 0, seen = 0; off < accel_prog_size(p); off += at) {
			uint32_t h = accel_prog_dwords(p)[off / 4];

			at = 4 * MXA_CMD_DWORDS(h);
			if (MXA_CMD_OPCODE(h) == MXA_OP_BSTART_CUBE && !bstart)
				bstart = off + 1;
			if (MXA_CMD_OPCODE(h) == cases[c].op && ++seen == cases[c].nth)
				expect_at = off + 1;
		}
		EXPECT_EQ(expect_at - 1, self->r.err_offset) TH_LOG("%s", cases[c].what);
		EXPECT_EQ(cases[c].addr == ~0u ? bstart - 1 : cases[c].addr, self->r.err_addr)
			TH_LOG("%s", cases[c].what);
		accel_job_explain(&self->r, why, sizeof(why));
		EXPECT_TRUE(strstr(why, "split block") != NULL) TH_LOG("%s", why);
	}
}

/*
 * MX data with K % 32 != 0: ceil(K / 32) scales a row, the last block partial (MXFP4,
 * K = 48: U and N tiles of 2 scales a row), the engine's reference bit for bit. Scale
 * tiles hold their rows in 32-byte fragments: 256 rows fill a U tile, 257 do not,
 * though 257 x 2 bytes would fit densely (a T tile takes them).
 */
TEST_F(tile, mx_partial_block_and_scale_fragments)
{
	struct accel_tmatmulmx t = {
		.type_a = MXA_DTYPE_E2M1, .type_b = MXA_DTYPE_E2M1, .m = 16, .n = 8, .k = 48,
		.a = T_A, .scale_a = U_A, .b = M_B, .scale_b = N_B, .acc = ACC0,
		.acc_size = 16 * 8 * 4,
	};
	static float want[16 * 8];
	struct accel_prog *p = self->prog;

	tmm_prog(self, &t, 48);
	accel_prog_tile_store(p, ACC0, 1, self->va + OUT_OFF, 0, 16, 32, 0);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status) TH_LOG("error %u info 0x%x", self->r.error, self->r.err_info);
	ASSERT_EQ(0, host_tmm(self->data, 16, 8, 48, MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, 1, 1, 0, want));
	EXPECT_EQ(0, compare((float *)(self->data + OUT_OFF), want, 16 * 8));

	accel_prog_reset(p);
	accel_prog_tile_load(p, MXA_TILE(MXA_TILE_U, 2), 1, self->va + SA_OFF, 0, 256, 2, 0);
	accel_prog_tile_load(p, MXA_TILE(MXA_TILE_T, 2), 1, self->va + SA_OFF, 0, 257, 2, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(0, self->r.status);
	accel_prog_tile_load(p, MXA_TILE(MXA_TILE_U, 2), 1, self->va + SA_OFF, 0, 257, 2, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_TILE, self->r.error);
	EXPECT_EQ(MXA_TILE(MXA_TILE_U, 2) | MXA_TILE_ERR_SIZE << 16, self->r.err_info);
}

/*
 * TMATMULMX on NVFP4 x NVFP4 (Blackwell's mxf4nvf4): random E2M1 codes, UE4M3 scale tiles
 * of ceil(K / 16) bytes a row (K = 72: a partial last block), checked against float64
 * arithmetic in this test (products of at most 12 bits over a few binades: the double
 * sum is exact, EXACT rounds it once). A scale with its sign bit set is read as without;
 * a NaN scale (0x7F) poisons its row; NVFP4 with an MX type is a BAD_OPERAND, named.
 */
TEST_F(tile, tmatmulmx_nvfp4_checked_in_float64)
{
	const uint32_t m = 12, n = 10, k = 72, kb = (k + 15) / 16, row = (k + 1) / 2;
	struct accel_tmatmulmx t = {
		.type_a = MXA_DTYPE_NVFP4, .type_b = MXA_DTYPE_NVFP4, .m = m, .n = n, .k = k,
		.a = T_A, .scale_a = U_A, .b = M_B, .scale_b = N_B, .acc = ACC0,
		.acc_size = m * n * 4,
	};
	const uint8_t *a = self->data + A_OFF, *b = self->data + B_OFF;
	uint8_t *sa = self->data + SA_OFF, *sb = self->data + SB_OFF;
	const float *out = (const float *)(self->data + OUT_OFF);
	struct accel_prog *p = self->prog;
	int bad = 0;

	fill(self, self->data + A_OFF, m * row, MXA_DTYPE_S8);	/* any 4-bit codes */
	fill(self, self->data + B_OFF, n * row, MXA_DTYPE_S8);
	for (uint32_t i = 0; i < m * kb; i++)
		sa[i] = 0x30 + rnd(self) % 0x18 + (i % 3 == 0 ? 0x80 : 0);	/* 0.5 .. 15 */
	for (uint32_t i = 0; i < n * kb; i++)
		sb[i] = 0x30 + rnd(self) % 0x18;
	sa[5 * kb + 2] = 0x7F;					/* row 5: NaN */
	memset(self->data + OUT_OFF, 0x55, m * n * 4);
	accel_prog_reset(p);
	accel_prog_tile_load(p, T_A, 1, self->va + A_OFF, 0, m, row, 0);
	accel_prog_tile_load(p, U_A, 1, self->va + SA_OFF, 0, m, kb, 0);
	accel_prog_tile_load(p, M_B, 1, self->va + B_OFF, 0, n, row, 0);
	accel_prog_tile_load(p, N_B, 1, self->va + SB_OFF, 0, n, kb, 0);
	ASSERT_EQ(0, accel_prog_tmatmulmx(p, &t));
	accel_prog_tile_store(p, ACC0, 1, self->va + OUT_OFF, 0, m, n * 4, 0);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status) TH_LOG("error %u info 0x%x", self->r.error, self->r.err_info);
	for (uint32_t i = 0; i < m; i++) {
		for (uint32_t j = 0; j < n; j++) {
			double sum = 0;
			float want;

			for (uint32_t kk = 0; kk < k; kk++)
				sum += accel_load_elem(MXA_DTYPE_NVFP4, a + i * row, kk) *
				       mxe_cvt_e4m3_to_f32(sa[i * kb + kk / 16] & 0x7F) *
				       accel_load_elem(MXA_DTYPE_NVFP4, b + j * row, kk) *
				       mxe_cvt_e4m3_to_f32(sb[j * kb + kk / 16]);
			want = i == 5 ? NAN : (float)sum;
			if ((isnan(want) ? !isnan(out[i * n + j]) :
					   memcmp(&out[i * n + j], &want, 4)) && bad++ < 5)
				fprintf(stderr, "# D[%u][%u] = %a, want %a\n", i, j,
					out[i * n + j], want);
		}
	}
	EXPECT_EQ(0, bad);

	t.type_b = MXA_DTYPE_E2M1;
	accel_prog_reset(p);
	accel_prog_tile_load(p, T_A, 1, self->va + A_OFF, 0, m, row, 0);
	accel_prog_tile_load(p, U_A, 1, self->va + SA_OFF, 0, m, kb, 0);
	accel_prog_tile_load(p, M_B, 1, self->va + B_OFF, 0, n, row, 0);
	accel_prog_tile_load(p, N_B, 1, self->va + SB_OFF, 0, n, (k + 31) / 32, 0);
	ASSERT_EQ(0, accel_prog_tmatmulmx(p, &t));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_BAD_OPERAND, self->r.error);
	EXPECT_EQ(MXA_BADOP(MXA_BADOP_DTYPE, MXA_OPERAND_TYPE_B), self->r.err_info);
	EXPECT_EQ(MXA_DTYPE_E2M1, self->r.err_addr);
}

TEST_F(tile, fp8_k_not_multiple_of_64)
{
	struct accel_tmatmulmx t = {
		.type_a = MXA_DTYPE_E4M3, .type_b = MXA_DTYPE_E4M3, .m = 16, .n = 8, .k = 96,
		.a = T_A, .scale_a = U_A, .b = M_B, .scale_b = N_B, .acc = ACC0,
		.acc_size = 4096,
	};
	uint32_t at = tmm_prog(self, &t, 96);

	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_K_ALIGN, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(MXA_OP_TMATMULMX, MXA_CMD_OPCODE(self->r.err_opcode));
}

TEST_F(tile, tile_used_after_release)
{
	struct accel_tmatmulmx t = {
		.type_a = MXA_DTYPE_E4M3, .type_b = MXA_DTYPE_E4M3, .m = 16, .n = 8, .k = 64,
		.a = T_A, .scale_a = U_A | R, .b = M_B | R, .scale_b = N_B | R, .acc = ACC0,
		.acc_size = 16 * 8 * 4,
	};
	uint32_t at;

	tmm_prog(self, &t, 64);		/* releases T#1 (no .reuse) */
	at = accel_prog_size(self->prog);
	t.flags = MXA_TMM_F_ACC;
	accel_prog_tmatmulmx(self->prog, &t);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_TILE_RELEASED, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(T_A, self->r.err_info);

	/* with .reuse the same program runs, and a reload revives a released tile */
	t.flags = 0;
	t.a = T_A | R;
	tmm_prog(self, &t, 64);
	t.flags = MXA_TMM_F_ACC;
	t.a = T_A;
	accel_prog_tmatmulmx(self->prog, &t);
	accel_prog_tile_load(self->prog, T_A, 1, self->va + A_OFF, 0, 16, 64, 0);
	accel_prog_tmatmulmx(self->prog, &t);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(0, self->r.status);
}

TEST_F(tile, shape_size_and_empty_errors)
{
	struct accel_tmatmulmx t = {
		.type_a = MXA_DTYPE_E4M3, .type_b = MXA_DTYPE_E4M3, .m = 16, .n = 8, .k = 64,
		.a = T_A, .scale_a = U_A, .b = M_B, .scale_b = N_B, .acc = ACC0,
		.acc_size = 16 * 8 * 4 - 4,
	};
	uint32_t at;

	/* ACC<size> smaller than M x N x 4 */
	at = tmm_prog(self, &t, 64);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_TILE, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(ACC0 | MXA_TILE_ERR_SIZE << 16, self->r.err_info);

	/* K of the instruction is not the K the tiles were loaded with */
	t.acc_size = 4096;
	at = tmm_prog(self, &t, 128);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_TILE, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(T_A | MXA_TILE_ERR_SHAPE << 16, self->r.err_info);

	/* MX data without its scale tile */
	t.scale_b = MXA_TILE_NONE;
	at = tmm_prog(self, &t, 64);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_TILE, self->r.error);
	EXPECT_EQ(MXA_TILE_ERR_MISSING, self->r.err_info >> 16);

	/* a tile nothing wrote */
	accel_prog_reset(self->prog);
	accel_prog_tile_store(self->prog, MXA_TILE(MXA_TILE_ACC, 5), 0, 0, 0, 4, 4, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_TILE, self->r.error);
	EXPECT_EQ(MXA_TILE(MXA_TILE_ACC, 5) | MXA_TILE_ERR_EMPTY << 16, self->r.err_info);

	/* larger than the register; outside SRAM */
	accel_prog_reset(self->prog);
	accel_prog_tile_load(self->prog, U_A, 0, 0, 0, 64, 256, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_TILE, self->r.error);
	EXPECT_EQ(MXA_TILE_ERR_SIZE, self->r.err_info >> 16);
	accel_prog_reset(self->prog);
	accel_prog_tile_load(self->prog, T_A, 0, MXA_SRAM_SIZE - 64, 0, 2, 64, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_SRAM_RANGE, self->r.error);
}

/*
 * TILE_LOAD / TILE_STORE name the tile's class in the operand itself: a class past the
 * register file (6, 0x7f) or class 0 is MXA_ERR_TILE (MXA_TILE_ERR_NUMBER) at that
 * command. Until 2026-12-02 the device indexed its tile array with it and overwrote the
 * next core's state (a guest fuzz run crashed QEMU); libaccel refuses these operands,
 * so the commands go in raw. The device then still runs a valid tile job.
 */
TEST_F(tile, tile_class_outside_the_register_file)
{
	static const uint32_t bad[] = { MXA_TILE(6, 0), MXA_TILE(6, 3), MXA_TILE(0x7f, 7),
					MXA_TILE(0, 1), MXA_TILE(MXA_TILE_T, 8) };

	for (unsigned int i = 0; i < 2 * sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t t = bad[i / 2], op = i % 2 ? MXA_OP_TILE_STORE : MXA_OP_TILE_LOAD;
		const uint32_t dw[MXA_TILE_DWORDS] = {
			MXA_CMD_HEADER(op, MXA_TILE_DWORDS, 0), t, 4, 64, 0, 0, 0, MXA_REGS3(0, 0, 0),
		};

		EXPECT_EQ(-EINVAL, accel_prog_tile_load(self->prog, t, 0, 0, 0, 4, 64, 0));
		accel_prog_reset(self->prog);
		ASSERT_EQ(0, accel_prog_raw(self->prog, dw, MXA_TILE_DWORDS));
		ASSERT_EQ(0, run(self));
		EXPECT_EQ(MXA_ERR_TILE, self->r.error);
		EXPECT_EQ(0u, self->r.err_offset);
		EXPECT_EQ(t | MXA_TILE_ERR_NUMBER << 16, self->r.err_info);
	}
	/* and the device goes on: a load and a store of a real tile */
	accel_prog_reset(self->prog);
	ASSERT_EQ(0, accel_prog_tile_load(self->prog, T_A, 0, 0, 0, 4, 64, 0));
	ASSERT_EQ(0, accel_prog_tile_store(self->prog, T_A, 0, 1024, 0, 4, 64, 0));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(0u, self->r.error);
}

TEST_HARNESS_MAIN
