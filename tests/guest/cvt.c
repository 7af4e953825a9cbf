// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "cvt": CVT on the device, compared bit for bit with the host: MX
 * quantisation of F32 into every MX element type with E8M0 scales under both scale
 * policies (against libaccel's accel_mx_quantize(), with partial, all-zero and NaN
 * blocks; accel_mx_dequantize() of the device's bits), plain conversions with and without satfinite (against mxe_convert()), and
 * the operand errors.
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


#define N	1000u		/* 31 full blocks and a partial one */
#define IN_OFF	0x10000u
#define OUT_OFF	0x20000u
#define SC_OFF	0x30000u

#define SRAM_IN	0x0u
#define SRAM_OUT 0x8000u
#define SRAM_SC	0xc000u

FIXTURE(cvt) {
	ACCEL_TEST_FIELDS;
};

FIXTURE_SETUP(cvt)
{
	int ret = accel_test_setup(self, MXA_CAP_CVT, 1 << 20);
	float *in;

	if (ret == 1)
		SKIP(return, "device without MXA_CAP_CVT");
	ASSERT_EQ(0, ret);

	/* values over many binades; block 5 all zero, block 7 holds a NaN, 9 an Inf */
	in = (float *)(self->data + IN_OFF);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t h = i * 2654435761u;

		in[i] = ldexpf((float)(int32_t)(h >> 8) / (1 << 23), (int)(h % 41) - 20 +
			       (int)(i / 32) % 7);
	}
	for (uint32_t i = 5 * 32; i < 6 * 32; i++)
		in[i] = 0.0f;
	in[7 * 32 + 3] = NAN;
	in[9 * 32 + 30] = -INFINITY;
	in[N - 1] = 1e30f;	/* overflows the narrow formats: saturation matters */
}

FIXTURE_TEARDOWN(cvt)
{
	accel_test_teardown(self);
}

static int run(FIXTURE_DATA(cvt) *self)
{
	return accel_test_run_self(self);
}

#define TA	MXA_TILE(MXA_TILE_T, 0)

/* Memory -> SRAM_IN, CVT, SRAM_OUT -> memory, through a tile register. */
static void cvt_prog(FIXTURE_DATA(cvt) *self, const struct accel_cvt *c)
{
	struct accel_prog *p = self->prog;
	uint32_t in_bytes = accel_dtype_row_bytes(c->src_type, c->n);
	uint32_t out_bytes = accel_dtype_row_bytes(c->dst_type, c->n);

	memset(self->data + OUT_OFF, 0x55, out_bytes);
	accel_prog_reset(p);
	accel_prog_tile_load(p, TA, 1, self->va + IN_OFF, 0, 1, in_bytes, 0);
	accel_prog_tile_store(p, TA, 0, SRAM_IN, 0, 1, in_bytes, 0);
	accel_prog_cvt(p, c);
	accel_prog_tile_load(p, TA, 0, SRAM_OUT, 0, 1, out_bytes, 0);
	accel_prog_tile_store(p, TA, 1, self->va + OUT_OFF, 0, 1, out_bytes, 0);
}

static int diff(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i] && bad++ < 4)
			fprintf(stderr, "# %s byte %zu: %#x, want %#x\n", what, i, got[i], want[i]);
	return bad;
}

TEST_F(cvt, mx_quantize_plumbing)
{
	static const uint8_t elems[] = {
		MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_E3M2, MXA_DTYPE_E2M3, MXA_DTYPE_E2M1,
		MXA_DTYPE_MXINT8,
	};
	static uint8_t want[N], want_sc[N / 32 + 1];
	static float deq[N];
	int bad;

	for (size_t e = 0; e < sizeof(elems); e++) {
		for (int rceil = 0; rceil < 2; rceil++) {
			struct accel_cvt c = {
				.flags = MXA_CVT_F_MX | (rceil ? MXA_CVT_F_RCEIL : 0),
				.src_type = MXA_DTYPE_F32, .dst_type = elems[e], .n = N,
				.src = SRAM_IN, .dst = 0, .dst_reg = 6, .scales = SRAM_SC,
			};
			size_t out_bytes = accel_dtype_row_bytes(elems[e], N);
			struct accel_prog *p = self->prog;

			/* like cvt_prog(), with the destination through a register */
			memset(self->data + OUT_OFF, 0x55, out_bytes);
			memset(self->data + SC_OFF, 0x55, 64);
			accel_prog_reset(p);
			accel_prog_reg_set(p, 6, SRAM_OUT);
			accel_prog_tile_load(p, TA, 1, self->va + IN_OFF, 0, 1, N * 4, 0);
			accel_prog_tile_store(p, TA, 0, SRAM_IN, 0, 1, N * 4, 0);
			ASSERT_EQ(0, accel_prog_cvt(p, &c));
			accel_prog_tile_load(p, TA, 0, SRAM_OUT, 0, 1, out_bytes, 0);
			accel_prog_tile_store(p, TA, 1, self->va + OUT_OFF, 0, 1, out_bytes, 0);
			accel_prog_tile_load(p, TA, 0, SRAM_SC, 0, 1, N / 32 + 1, 0);
			accel_prog_tile_store(p, TA, 1, self->va + SC_OFF, 0, 1, N / 32 + 1, 0);
			ASSERT_EQ(0, run(self));
			ASSERT_EQ(0, self->r.status);
			ASSERT_EQ(0, accel_mx_quantize((float *)(self->data + IN_OFF), N, elems[e],
						       rceil ? ACCEL_MX_SCALE_RCEIL :
							       ACCEL_MX_SCALE_FLOOR,
						       want_sc, want));
			EXPECT_EQ(0, diff(self->data + OUT_OFF, want, out_bytes,
					  accel_dtype_name(elems[e])));
			EXPECT_EQ(0, diff(self->data + SC_OFF, want_sc, N / 32 + 1, "scales"));
			EXPECT_EQ(0x00, self->data[SC_OFF + 5]);	/* all-zero block */
			EXPECT_EQ(0xff, self->data[SC_OFF + 7]);	/* NaN block */
			/* the device's bits dequantise to element x 2^(scale - 127), NaN for a
			 * NaN scale, 0 for the all-zero block */
			ASSERT_EQ(0, accel_mx_dequantize(self->data + SC_OFF, self->data + OUT_OFF, N,
							 elems[e], deq));
			bad = 0;
			for (size_t i = 0; i < N; i++) {
				uint8_t sc = self->data[SC_OFF + i / 32];
				float want_f = sc == 0xff ? NAN :
					(float)ldexp(accel_load_elem(elems[e], self->data + OUT_OFF, i),
						     (int)sc - 127);

				if (!(deq[i] == want_f || (isnan(deq[i]) && isnan(want_f))) && bad++ < 3)
					TH_LOG("%s [%zu] = %a, want %a", accel_dtype_name(elems[e]), i,
					       deq[i], want_f);
			}
			EXPECT_EQ(0, bad);
			EXPECT_EQ(0.0f, deq[5 * 32]);
			EXPECT_TRUE(isnan(deq[7 * 32]));
		}
	}
}

TEST_F(cvt, convert_plumbing)
{
	static const struct { uint8_t src, dst; uint32_t flags; } cases[] = {
		{ MXA_DTYPE_F32, MXA_DTYPE_BF16, 0 },
		{ MXA_DTYPE_F32, MXA_DTYPE_F16, 0 },
		{ MXA_DTYPE_F32, MXA_DTYPE_E4M3, 0 },
		{ MXA_DTYPE_F32, MXA_DTYPE_E4M3, MXA_CVT_F_SATFINITE },
		{ MXA_DTYPE_F32, MXA_DTYPE_E5M2, MXA_CVT_F_SATFINITE },
		{ MXA_DTYPE_F32, MXA_DTYPE_E2M1, 0 },
		{ MXA_DTYPE_F32, MXA_DTYPE_S8, 0 },
		{ MXA_DTYPE_F32, MXA_DTYPE_TF32, 0 },
	};
	static uint8_t want[N * 4];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct accel_cvt c = {
			.flags = cases[i].flags, .src_type = cases[i].src,
			.dst_type = cases[i].dst, .n = N, .src = SRAM_IN, .dst = SRAM_OUT,
		};
		size_t out_bytes = accel_dtype_row_bytes(c.dst_type, N);

		cvt_prog(self, &c);
		ASSERT_EQ(0, run(self));
		ASSERT_EQ(0, self->r.status);
		ASSERT_EQ(0, mxe_convert(c.dst_type, want, c.src_type, self->data + IN_OFF, N,
					 (c.flags & MXA_CVT_F_SATFINITE) ? MXE_CVT_SATFINITE : 0));
		EXPECT_EQ(0, diff(self->data + OUT_OFF, want, out_bytes,
				  accel_dtype_name(c.dst_type)));
	}
}

TEST_F(cvt, errors)
{
	struct accel_cvt c = {
		.flags = MXA_CVT_F_MX, .src_type = MXA_DTYPE_BF16, .dst_type = MXA_DTYPE_E4M3,
		.n = 64, .src = 0, .dst = 0x1000, .scales = 0x2000,
	};

	/* MX needs F32 in and an MX element type out */
	accel_prog_reset(self->prog);
	ASSERT_EQ(0, accel_prog_cvt(self->prog, &c));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_BAD_OPERAND, self->r.error);

	/* past the end of SRAM */
	c.src_type = MXA_DTYPE_F32;
	c.src = MXA_SRAM_SIZE - 128;
	accel_prog_reset(self->prog);
	ASSERT_EQ(0, accel_prog_cvt(self->prog, &c));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_SRAM_RANGE, self->r.error);
	EXPECT_EQ(MXA_SRAM_SIZE - 128, self->r.err_addr);
}

TEST_HARNESS_MAIN
