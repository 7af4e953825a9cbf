// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "mma": the synchronous Ampere MMA shapes (TF32, BF16, FP16 with f16
 * and f32 accumulators, FP64, INT8 with and without satfinite, INT4, 1-bit AND/XOR +
 * popc) on SRAM operands and on tile registers, each compared bit for bit with the
 * engine's mxe_mma() run on the guest's CPU; and the errors for a shape that is no
 * instruction and for misaligned SRAM operands.
 *
 * Plumbing tests: the reference is the same engine code compiled into the guest, so they
 * check operands, encodings and data paths, not numerics (the H200 golden vectors,
 * tests/host/test-engine-golden, are the numerics oracle; Documentation/testing.rst).
 */
#include "mxa_test.h"

#include <stdio.h>

#include "accel.h"
#include "accel_test.h"
#include "kselftest_harness.h"
#include "../../qemu-device/engine/mxe_engine.h"


#define A_OFF	0x10000u
#define B_OFF	0x20000u
#define C_OFF	0x30000u
#define OUT_OFF	0x40000u

#define SRAM_A	0x0u
#define SRAM_B	0x8000u
#define SRAM_D	0x10000u

FIXTURE(mma) {
	ACCEL_TEST_FIELDS;
	uint32_t seed;
};

FIXTURE_SETUP(mma)
{
	int ret = accel_test_setup(self, MXA_CAP_MMA, 1 << 20);

	if (ret == 1)
		SKIP(return, "device without MXA_CAP_MMA");
	ASSERT_EQ(0, ret);
	self->seed = 777;
}

FIXTURE_TEARDOWN(mma)
{
	accel_test_teardown(self);
}

static int run(FIXTURE_DATA(mma) *self)
{
	return accel_test_run_self(self);
}

static uint32_t rnd(FIXTURE_DATA(mma) *self)
{
	self->seed ^= self->seed << 13;
	self->seed ^= self->seed >> 17;
	self->seed ^= self->seed << 5;
	return self->seed;
}

/* @n elements of @type: floats from [-4, 4) converted, integer types random bits. */
static void fill(FIXTURE_DATA(mma) *self, void *dst, size_t n, int type, size_t bytes)
{
	static float f[256 * 256];

	if (type == MXA_DTYPE_S8 || type == MXA_DTYPE_S4 || type == MXA_DTYPE_B1 || type == MXA_DTYPE_S32) {
		for (size_t i = 0; i < bytes; i++)
			((uint8_t *)dst)[i] = rnd(self);
		return;
	}
	for (size_t i = 0; i < n; i++)
		f[i] = (float)((int32_t)(rnd(self) % 4096) - 2048) / 512.0f;
	mxe_convert(type, dst, MXA_DTYPE_F32, f, n, 0);
}

struct shape {
	uint8_t ta, td;
	uint32_t m, n, k;
	uint32_t flags;
};

/*
 * D = A x B^T (+ C) on the device (through SRAM, or tile registers with
 * MXA_MMA_F_TILES) and with mxe_mma() here; returns the number of differing bytes.
 */
static int mma_check(struct __test_metadata *_metadata, FIXTURE_DATA(mma) *self,
		     const struct shape *s)
{
	size_t arow = accel_dtype_row_bytes(s->ta, s->k), drow = accel_dtype_row_bytes(s->td, s->n);
	size_t abytes = s->m * arow, bbytes = s->n * arow, dbytes = s->m * drow;
	int acc = s->flags & MXA_MMA_F_ACCUMULATE, tiles = s->flags & MXA_MMA_F_TILES;
	uint16_t ta = MXA_TILE(MXA_TILE_T, 2), tb = MXA_TILE(MXA_TILE_M, 2);
	uint16_t td = MXA_TILE(MXA_TILE_ACC, 2);
	struct accel_mma mma = {
		.flags = s->flags, .type_a = s->ta, .type_b = s->ta, .type_d = s->td,
		.m = s->m, .n = s->n, .k = s->k,
	};
	struct mxe_gemm_desc g = {
		.m = s->m, .n = s->n, .k = s->k, .type_a = s->ta, .type_b = s->ta,
		.type_c = s->td, .type_d = s->td,
		.flags = (acc ? MXA_GEMM_F_ACCUMULATE : 0) |
			 ((s->flags & MXA_MMA_F_SATFINITE) ? MXA_GEMM_F_SATFINITE : 0) |
			 ((s->flags & MXA_MMA_F_B1_XOR) ? MXE_GEMM_B1_XOR : 0),
	};
	struct accel_prog *p = self->prog;
	static uint8_t want[1 << 16];
	int bad = 0;

	fill(self, self->data + A_OFF, s->m * s->k, s->ta, abytes);
	fill(self, self->data + B_OFF, s->n * s->k, s->ta, bbytes);
	fill(self, self->data + C_OFF, s->m * s->n, s->td, dbytes);
	memset(self->data + OUT_OFF, 0x55, dbytes);

	accel_prog_reset(p);
	accel_prog_tile_load(p, ta, 1, self->va + A_OFF, 0, s->m, arow, 0);
	accel_prog_tile_load(p, tb, 1, self->va + B_OFF, 0, s->n, arow, 0);
	accel_prog_tile_load(p, td, 1, self->va + C_OFF, 0, s->m, drow, 0);
	if (tiles) {
		mma.a = ta;
		mma.b = tb;
		mma.d = td;
		EXPECT_EQ(0, accel_prog_mma(p, &mma));
	} else {
		accel_prog_tile_store(p, ta, 0, SRAM_A, 0, s->m, arow, 0);
		accel_prog_tile_store(p, tb, 0, SRAM_B, 0, s->n, arow, 0);
		accel_prog_tile_store(p, td, 0, SRAM_D, 0, s->m, drow, 0);
		/* B's offset from a register, D's from register + immediate */
		accel_prog_reg_set(p, 4, SRAM_B);
		accel_prog_reg_set(p, 5, SRAM_D - 0x100);
		mma.a = SRAM_A;
		mma.b = 0;
		mma.b_reg = 4;
		mma.d = 0x100;
		mma.d_reg = 5;
		EXPECT_EQ(0, accel_prog_mma(p, &mma));
		accel_prog_tile_load(p, td, 0, SRAM_D, 0, s->m, drow, 0);
	}
	accel_prog_tile_store(p, td, 1, self->va + OUT_OFF, 0, s->m, drow, 0);
	EXPECT_EQ(0, run(self));
	EXPECT_EQ(0, self->r.status);

	memcpy(want, self->data + C_OFF, dbytes);
	g.a = self->data + A_OFF;
	g.b = self->data + B_OFF;
	g.c = acc ? want : NULL;
	g.d = want;
	/* -device mxa,numerics=hopper: float MMAs follow the engine's H200 model */
	if ((accel_device_info(self->dev)->caps & MXA_CAP_HOPPER_NUMERICS) &&
	    s->ta != MXA_DTYPE_S8 && s->ta != MXA_DTYPE_S4 && s->ta != MXA_DTYPE_B1) {
		g.accum = MXE_ACCUM_HOPPER;
		g.tf32_input = MXE_TF32_IN_TRUNCATE;
	}
	EXPECT_EQ(0, mxe_mma(NULL, &g));
	for (size_t i = 0; i < dbytes; i++)
		if (want[i] != self->data[OUT_OFF + i] && bad++ < 4)
			fprintf(stderr, "# %s %ux%ux%u byte %zu: %#x, want %#x\n",
				accel_dtype_name(s->ta), s->m, s->n, s->k, i,
				self->data[OUT_OFF + i], want[i]);
	return bad;
}

static const struct shape shapes[] = {
	{ MXA_DTYPE_TF32, MXA_DTYPE_F32, 16, 8, 4, MXA_MMA_F_ACCUMULATE },
	{ MXA_DTYPE_TF32, MXA_DTYPE_F32, 16, 8, 8, 0 },
	{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 16, 8, 8, MXA_MMA_F_ACCUMULATE },
	{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 16, 8, 16, MXA_MMA_F_ACCUMULATE },
	{ MXA_DTYPE_F16, MXA_DTYPE_F16, 16, 8, 16, MXA_MMA_F_ACCUMULATE },
	{ MXA_DTYPE_F16, MXA_DTYPE_F32, 16, 8, 16, MXA_MMA_F_ACCUMULATE },
	{ MXA_DTYPE_F64, MXA_DTYPE_F64, 8, 8, 4, MXA_MMA_F_ACCUMULATE },
	{ MXA_DTYPE_S8, MXA_DTYPE_S32, 16, 8, 16, MXA_MMA_F_ACCUMULATE },
	{ MXA_DTYPE_S8, MXA_DTYPE_S32, 16, 8, 32, MXA_MMA_F_ACCUMULATE | MXA_MMA_F_SATFINITE },
	{ MXA_DTYPE_S4, MXA_DTYPE_S32, 16, 8, 64, MXA_MMA_F_ACCUMULATE },
	{ MXA_DTYPE_B1, MXA_DTYPE_S32, 16, 8, 256, MXA_MMA_F_ACCUMULATE },
	{ MXA_DTYPE_B1, MXA_DTYPE_S32, 16, 8, 256, MXA_MMA_F_B1_XOR },
};

TEST_F(mma, shapes_on_sram_plumbing)
{
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		EXPECT_EQ(0, mma_check(_metadata, self, &shapes[i]));
}

TEST_F(mma, shapes_on_tiles_plumbing)
{
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct shape s = shapes[i];

		s.flags |= MXA_MMA_F_TILES;
		EXPECT_EQ(0, mma_check(_metadata, self, &s));
	}
}

TEST_F(mma, int8_satfinite_clamps)
{
	struct shape s = { MXA_DTYPE_S8, MXA_DTYPE_S32, 16, 8, 32,
			   MXA_MMA_F_ACCUMULATE | MXA_MMA_F_SATFINITE | MXA_MMA_F_TILES };
	int32_t *out = (int32_t *)(self->data + OUT_OFF), *c = (int32_t *)(self->data + C_OFF);
	int clamped = 0;

	/* the MMA fills C itself; run once to learn the layout, then with C near the top */
	ASSERT_EQ(0, mma_check(_metadata, self, &s));
	for (int i = 0; i < 16 * 8; i++)
		c[i] = INT32_MAX - 100;
	accel_prog_reset(self->prog);
	accel_prog_tile_load(self->prog, MXA_TILE(MXA_TILE_T, 2), 1, self->va + A_OFF, 0,
			     16, 32, 0);
	accel_prog_tile_load(self->prog, MXA_TILE(MXA_TILE_M, 2), 1, self->va + B_OFF, 0,
			     8, 32, 0);
	accel_prog_tile_load(self->prog, MXA_TILE(MXA_TILE_ACC, 2), 1, self->va + C_OFF, 0,
			     16, 32, 0);
	accel_prog_mma(self->prog, &(struct accel_mma){
		.flags = s.flags, .type_a = MXA_DTYPE_S8, .type_b = MXA_DTYPE_S8,
		.type_d = MXA_DTYPE_S32, .m = 16, .n = 8, .k = 32,
		.a = MXA_TILE(MXA_TILE_T, 2), .b = MXA_TILE(MXA_TILE_M, 2),
		.d = MXA_TILE(MXA_TILE_ACC, 2) });
	accel_prog_tile_store(self->prog, MXA_TILE(MXA_TILE_ACC, 2), 1,
			      self->va + OUT_OFF, 0, 16, 32, 0);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	for (int i = 0; i < 16 * 8; i++) {
		EXPECT_TRUE(out[i] >= INT32_MAX - 100 - 32 * 128 * 128);
		clamped += out[i] == INT32_MAX;
	}
	EXPECT_NE(0, clamped);
}

/*
 * Run in the guest boot with -device mxa,numerics=hopper (tests/run-check.sh): the device
 * says so, and its float MMAs give the H200 model's bits (shapes_* above compare every
 * shape against it), which differ from the exact mode's on random FP8 data (the H200
 * truncates FP8 sums at about 13 bits).
 */
TEST_F(mma, hopper_numerics_mode)
{
	struct shape s = { MXA_DTYPE_E4M3, MXA_DTYPE_F32, 16, 8, 32, MXA_MMA_F_ACCUMULATE };
	size_t dbytes = 16 * 8 * 4;
	static uint8_t exact[16 * 8 * 4];
	struct mxe_gemm_desc g = {
		.m = 16, .n = 8, .k = 32, .type_a = MXA_DTYPE_E4M3, .type_b = MXA_DTYPE_E4M3,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32, .flags = MXA_GEMM_F_ACCUMULATE,
	};
	int differ = 0;

	if (!(accel_device_info(self->dev)->caps & MXA_CAP_HOPPER_NUMERICS))
		SKIP(return, "device in the default numerics mode (the hopper boot runs this)");
	for (int round = 0; round < 8 && !differ; round++) {
		ASSERT_EQ(0, mma_check(_metadata, self, &s));	/* device == H200 model */
		memcpy(exact, self->data + C_OFF, dbytes);
		g.a = self->data + A_OFF;
		g.b = self->data + B_OFF;
		g.c = exact;
		g.d = exact;
		ASSERT_EQ(0, mxe_mma(NULL, &g));
		differ = memcmp(exact, self->data + OUT_OFF, dbytes) != 0;
	}
	EXPECT_TRUE(differ) {
		TH_LOG("hopper mode gave the exact mode's bits on 8 random FP8 MMAs");
	}
}

/*
 * Hopper boot: the GEMM command runs a library GEMM as cuBLAS does on the H200 (the
 * engine's mxe_hopper_gemm() with the measured plan: FP8 promoted every 128 of K, none
 * with accum FAST = cuBLASLt fast accumulation). Bit for bit against the engine, and
 * not the exact mode's bits.
 */
TEST_F(mma, hopper_gemm_command_is_the_cublas_model)
{
	static const struct { uint8_t t; uint8_t accum; uint32_t k; } cases[] = {
		{ MXA_DTYPE_E4M3, 0, 512 }, { MXA_DTYPE_E4M3, 1, 512 }, { MXA_DTYPE_BF16, 0, 256 },
	};
	static uint8_t want[64 * 64 * 4], exact[64 * 64 * 4];
	struct mxe_engine *eng;

	if (!(accel_device_info(self->dev)->caps & MXA_CAP_HOPPER_NUMERICS))
		SKIP(return, "device in the default numerics mode (the hopper boot runs this)");
	eng = mxe_engine_create(1);
	ASSERT_NE(NULL, eng);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t m = 64, n = 64, k = cases[i].k;
		size_t row = accel_dtype_row_bytes(cases[i].t, k);
		struct accel_gemm g = {
			.m = m, .n = n, .k = k, .type_a = cases[i].t, .type_b = cases[i].t,
			.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32, .accum = cases[i].accum,
			.a = self->va + A_OFF, .b = self->va + B_OFF, .d = self->va + OUT_OFF,
		};
		struct mxe_gemm_desc d = {
			.m = m, .n = n, .k = k, .type_a = cases[i].t, .type_b = cases[i].t,
			.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32,
			.a = self->data + A_OFF, .b = self->data + B_OFF, .d = want,
		};
		struct mxe_hopper_plan plan;

		fill(self, self->data + A_OFF, (size_t)m * k, cases[i].t, m * row);
		fill(self, self->data + B_OFF, (size_t)n * k, cases[i].t, n * row);
		ASSERT_EQ(0, accel_gemm(self->dev, 0, &g, &self->r));
		mxe_hopper_cublas_plan(&d, cases[i].accum == 1, &plan);
		ASSERT_EQ(0, mxe_hopper_gemm(eng, &d, &plan));
		EXPECT_EQ(0, memcmp(want, self->data + OUT_OFF, sizeof(want))) {
			TH_LOG("case %zu: device D is not the cuBLAS model's", i);
		}
		d.d = exact;
		ASSERT_EQ(0, mxe_gemm(eng, &d));
		EXPECT_NE(0, memcmp(exact, self->data + OUT_OFF, sizeof(exact))) {
			TH_LOG("case %zu: hopper GEMM gave the exact mode's bits", i);
		}
	}
	mxe_engine_destroy(eng);
}

TEST_F(mma, errors)
{
	struct accel_mma mma = {
		.type_a = MXA_DTYPE_F16, .type_b = MXA_DTYPE_F16, .type_d = MXA_DTYPE_F32,
		.m = 16, .n = 8, .k = 12, .a = 0, .b = 0x1000, .d = 0x2000,
	};
	uint32_t at;

	/* 16x8x12 is no instruction */
	accel_prog_reset(self->prog);
	accel_prog_nop(self->prog);
	at = accel_prog_size(self->prog);
	ASSERT_EQ(0, accel_prog_mma(self->prog, &mma));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_BAD_OPERAND, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);

	/* a misaligned SRAM operand (through the register) */
	mma.k = 16;
	mma.a_reg = 3;
	accel_prog_reset(self->prog);
	accel_prog_reg_set(self->prog, 3, 8);
	at = accel_prog_size(self->prog);
	ASSERT_EQ(0, accel_prog_mma(self->prog, &mma));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_SRAM_RANGE, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(8, self->r.err_addr);
}

TEST_HARNESS_MAIN
