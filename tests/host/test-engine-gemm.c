// SPDX-License-Identifier: MIT
/*
 * test-engine-gemm - the general GEMM entry point: every type combination
 * against a naive exact reference (bit for bit), chunked rounding, layouts
 * (B as K x N, A as K x M, padded leading dimensions, C aliasing D), MX scales incl. a
 * NaN scale, special values, every error code, and the FAST numerics
 * (within their documented bound, identical on the portable and AVX2 paths).
 */
#include <stdio.h>

#include "mxe_gemm.h"
#include "host_check.h"
#include "test-engine-util.h"

struct combo {
	enum mxa_isa_dtype a, b, d;
	int mx;		/* with E8M0 scales */
};

static const struct combo combos[] = {
	{ MXA_DTYPE_F32, MXA_DTYPE_F32, MXA_DTYPE_F32, 0 },
	{ MXA_DTYPE_TF32, MXA_DTYPE_TF32, MXA_DTYPE_F32, 0 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F32, 0 },
	{ MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F16, 0 },
	{ MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 0 },
	{ MXA_DTYPE_BF16, MXA_DTYPE_F16, MXA_DTYPE_F32, 0 },
	{ MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 0 },
	{ MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_F32, 0 },
	{ MXA_DTYPE_E5M2, MXA_DTYPE_E5M2, MXA_DTYPE_F16, 0 },
	{ MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
	{ MXA_DTYPE_E5M2, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
	{ MXA_DTYPE_E5M2, MXA_DTYPE_E5M2, MXA_DTYPE_F32, 1 },
	{ MXA_DTYPE_E3M2, MXA_DTYPE_E3M2, MXA_DTYPE_F32, 1 },
	{ MXA_DTYPE_E2M3, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
	{ MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
	{ MXA_DTYPE_MXINT8, MXA_DTYPE_MXINT8, MXA_DTYPE_F32, 1 },
	{ MXA_DTYPE_F16, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },	/* f16 side ignores its scale */
	{ MXA_DTYPE_F64, MXA_DTYPE_F64, MXA_DTYPE_F64, 0 },
	{ MXA_DTYPE_S8, MXA_DTYPE_S8, MXA_DTYPE_S32, 0 },
	{ MXA_DTYPE_S4, MXA_DTYPE_S4, MXA_DTYPE_S32, 0 },
	{ MXA_DTYPE_S8, MXA_DTYPE_S4, MXA_DTYPE_S32, 0 },
	{ MXA_DTYPE_B1, MXA_DTYPE_B1, MXA_DTYPE_S32, 0 },
};


struct bufs {
	uint8_t a[256 * 1024], b[256 * 1024], c[16384], d[16384], r[16384];
	uint8_t sa[1024], sb[1024];
};

static struct bufs B;

/* Build a random operation; returns the descriptor. */
static struct mxe_gemm_desc make_op(const struct combo *cb, unsigned m, unsigned n, unsigned k,
				    int acc)
{
	struct mxe_gemm_desc d;

	memset(&d, 0, sizeof(d));
	d.m = m;
	d.n = n;
	d.k = k;
	d.type_a = cb->a;
	d.type_b = cb->b;
	d.type_c = cb->d;
	d.type_d = cb->d;
	d.a = B.a;
	d.b = B.b;
	d.d = B.d;
	tu_fill(cb->a, B.a, m, k, mxe_dtype_row_bytes(cb->a, k));
	tu_fill(cb->b, B.b, n, k, mxe_dtype_row_bytes(cb->b, k));
	if (acc) {
		d.flags |= MXA_GEMM_F_ACCUMULATE;
		d.c = B.c;
		tu_fill(cb->d, B.c, m, n, mxe_dtype_row_bytes(cb->d, n));
	}
	if (cb->mx) {
		d.scale_block = 32;
		d.scale_a = B.sa;
		d.scale_b = B.sb;
		tu_fill(MXA_DTYPE_E8M0, B.sa, m, k / 32, k / 32);
		tu_fill(MXA_DTYPE_E8M0, B.sb, n, k / 32, k / 32);
	}
	return d;
}

/* @n E8M0 scales, each 2^(@lo - 127 + a random 0 .. @span - 1). */
static void fill_scales(uint8_t *s, size_t n, unsigned lo, unsigned span)
{
	for (size_t i = 0; i < n; i++)
		s[i] = (uint8_t)(lo + tu_rand() % span);
}

/* The E4M3 NaN codes (0x7F, 0xFF) among @n made finite (0x7E, 0xFE). */
static void e4m3_no_nan(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((p[i] & 0x7F) == 0x7F)
			p[i] ^= 1;
}

/* The NaN and Inf codes of E4M3 or E5M2 among @n made finite (other types: kept). */
static void fp8_finite(uint8_t *p, size_t n, unsigned t)
{
	if (t == MXA_DTYPE_E4M3)
		e4m3_no_nan(p, n);
	for (size_t i = 0; t == MXA_DTYPE_E5M2 && i < n; i++)
		if ((p[i] & 0x7C) == 0x7C)
			p[i] ^= 0x04;
}

static int run_and_compare(struct mxe_engine *eng, struct mxe_gemm_desc *d, size_t *nbad)
{
	int rc = mxe_gemm(eng, d);

	if (rc)
		return rc;
	tu_ref_gemm(d, B.r);
	*nbad = tu_diff(d, B.d, d->ldd ? d->ldd : mxe_dtype_row_bytes(d->type_d, d->n), B.r);
	return 0;
}

static void test_combos(struct mxe_engine *eng)
{
	for (size_t i = 0; i < sizeof(combos) / sizeof(combos[0]); i++) {
		const struct combo *cb = &combos[i];
		unsigned k = cb->a == MXA_DTYPE_B1 ? 256 : 128;
		size_t bad_total = 0;
		int rc = 0;

		for (int acc = 0; acc < 2 && !rc; acc++) {
			for (int chunk = 0; chunk < 2 && !rc; chunk++) {
				struct mxe_gemm_desc d = make_op(cb, 7, 9, k, acc);
				size_t bad = 0;

				d.k_chunk = chunk ? 32 : 0;
				if (cb->d == MXA_DTYPE_S32 && acc)
					d.flags |= MXA_GEMM_F_SATFINITE;
				rc = run_and_compare(eng, &d, &bad);
				bad_total += bad;
			}
		}
		host_check(!rc && !bad_total, "exact %s x %s -> %s%s: bit-exact vs reference (%zu differ, rc %d)",
		       mxe_dtype_name(cb->a), mxe_dtype_name(cb->b), mxe_dtype_name(cb->d),
		       cb->mx ? " (MX scales)" : "", bad_total, rc);
	}
}

static void test_int_overflow(struct mxe_engine *eng)
{
	static const struct combo cb = { MXA_DTYPE_S8, MXA_DTYPE_S8, MXA_DTYPE_S32, 0 };
	struct mxe_gemm_desc d = make_op(&cb, 2, 2, 32, 1);
	int32_t *c = (int32_t *)B.c, *out = (int32_t *)B.d;

	memset(B.a, 127, 64);
	memset(B.b, 127, 64);
	c[0] = INT32_MAX - 10;
	c[1] = 5;
	c[2] = INT32_MIN + 3;
	c[3] = 0;
	((int8_t *)B.b)[32] = -128;	/* row 1 of B: -128, 127, ... */
	mxe_gemm(eng, &d);
	host_check(out[0] == (int32_t)((uint32_t)(INT32_MAX - 10) + 32u * 127 * 127) && out[1] == 5 + 31 * 127 * 127 - 128 * 127,
	       "s8: without satfinite the int32 accumulator wraps");
	d.flags |= MXA_GEMM_F_SATFINITE;
	mxe_gemm(eng, &d);
	host_check(out[0] == INT32_MAX && out[2] == INT32_MIN + 3 + 32 * 127 * 127,
	       "s8: satfinite clamps at INT32_MAX");
	c[0] = INT32_MIN + 1;
	memset(B.b, 0x80, 32);
	mxe_gemm(eng, &d);
	host_check(out[0] == INT32_MIN, "s8: satfinite clamps at INT32_MIN");
}

static void test_b1(struct mxe_engine *eng)
{
	static const struct combo cb = { MXA_DTYPE_B1, MXA_DTYPE_B1, MXA_DTYPE_S32, 0 };
	struct mxe_gemm_desc d = make_op(&cb, 1, 1, 128, 0);
	int32_t *out = (int32_t *)B.d;

	memset(B.a, 0xF0, 16);
	memset(B.b, 0x3C, 16);
	mxe_gemm(eng, &d);
	host_check(out[0] == 16 * 2, "b1 AND + popc: popc(0xF0 & 0x3C) * 16 = %d", out[0]);
	d.flags |= MXE_GEMM_B1_XOR;
	mxe_gemm(eng, &d);
	host_check(out[0] == 16 * 4, "b1 XOR + popc: popc(0xF0 ^ 0x3C) * 16 = %d", out[0]);
}

static void test_layouts(struct mxe_engine *eng)
{
	static const struct combo cb = { MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 0 };
	struct mxe_gemm_desc d = make_op(&cb, 5, 6, 40, 1), t;
	static uint8_t bt[40 * 6 * 2], ap[5 * 100], dd[16384];
	size_t bad;

	mxe_gemm(eng, &d);
	memcpy(dd, B.d, 5 * 6 * 4);
	/* B as K x N */
	for (int j = 0; j < 6; j++)
		for (int kk = 0; kk < 40; kk++)
			memcpy(bt + (kk * 6 + j) * 2, B.b + (j * 40 + kk) * 2, 2);
	t = d;
	t.b = bt;
	t.flags |= MXA_GEMM_F_B_KN;
	memset(B.d, 0, 120);
	mxe_gemm(eng, &t);
	host_check(!memcmp(B.d, dd, 120), "B given as K x N gives the same bits as N x K");
	/* padded A rows and D rows */
	for (int i = 0; i < 5; i++)
		memcpy(ap + i * 100, B.a + i * 80, 80);
	t = d;
	t.a = ap;
	t.lda = 100;
	t.ldd = 40;
	memset(B.d, 0, 200);
	mxe_gemm(eng, &t);
	bad = 0;
	for (int i = 0; i < 5; i++)
		bad += memcmp(B.d + i * 40, dd + i * 24, 24) != 0;
	host_check(!bad, "padded leading dimensions (lda 100, ldd 40 bytes)");
	/* C aliasing D */
	memcpy(B.d, B.c, 120);
	t = d;
	t.c = B.d;
	mxe_gemm(eng, &t);
	host_check(!memcmp(B.d, dd, 120), "C may alias D (accumulate in place)");
}

/* A stored K x M (MXA_GEMM_F_A_KM): the same bits as M x K, exact and FAST, any type of
 * whole bytes (with MX scales too); sub-byte A and a short pitch are refused. */
static void test_a_km(struct mxe_engine *eng)
{
	static const struct combo cbs[] = {
		{ MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 0 }, { MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_S8, MXA_DTYPE_S8, MXA_DTYPE_S32, 0 }, { MXA_DTYPE_F64, MXA_DTYPE_F64, MXA_DTYPE_F64, 0 },
		{ MXA_DTYPE_TF32, MXA_DTYPE_TF32, MXA_DTYPE_F32, 0 },
	};
	static uint8_t at[128 * (37 * 8 + 8)], dd[16384];
	static const struct combo sub = { MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 };
	struct mxe_gemm_desc d, t;

	for (size_t c = 0; c < sizeof(cbs) / sizeof(cbs[0]); c++) {
		for (int accum = 0; accum < 2; accum++) {
			size_t es, ld;
			int rc;

			d = make_op(&cbs[c], 37, 9, 128, 1);	/* FP8 MX: K % 64 */
			d.accum = accum ? MXE_ACCUM_FAST : MXE_ACCUM_EXACT;
			rc = mxe_gemm(eng, &d);
			memcpy(dd, B.d, 37 * 9 * 8);
			es = mxe_dtype_bits(cbs[c].a) / 8;
			ld = 37 * es + 8;	/* padded rows */
			for (int kk = 0; kk < 128; kk++)
				for (int i = 0; i < 37; i++)
					memcpy(at + kk * ld + i * es, B.a + (i * 128 + kk) * es, es);
			t = d;
			t.a = at;
			t.lda = ld;
			t.flags |= MXA_GEMM_F_A_KM;
			memset(B.d, 0x5a, 37 * 9 * 8);
			rc = rc ? rc : mxe_gemm_check(&t);
			rc = rc ? rc : mxe_gemm(eng, &t);
			host_check(!rc && !memcmp(B.d, dd, 37 * 9 * mxe_dtype_bits(cbs[c].d) / 8),
			       "A as K x M (%s, %s, %s): the bits of M x K (rc %d)",
			       mxe_dtype_name(cbs[c].a), cbs[c].mx ? "MX scales" : "no scales",
			       accum ? "FAST" : "EXACT", rc);
		}
	}
	t = make_op(&sub, 4, 4, 64, 0);
	t.flags |= MXA_GEMM_F_A_KM;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_LAYOUT &&
	       mxe_gemm(eng, &t) == MXE_ENGINE_EINVAL_LAYOUT,
	       "A as K x M of a sub-byte type -> MXE_ENGINE_EINVAL_LAYOUT");
	t = make_op(&cbs[0], 4, 4, 64, 0);
	t.flags |= MXA_GEMM_F_A_KM;
	t.lda = 4 * 2 - 1;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_LAYOUT,
	       "A as K x M with a pitch shorter than M elements -> MXE_ENGINE_EINVAL_LAYOUT");
}

static void test_specials(struct mxe_engine *eng)
{
	static const struct combo cb = { MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 };
	struct mxe_gemm_desc d = make_op(&cb, 4, 4, 64, 0);
	float *out = (float *)B.d;
	int ok;

	B.sa[1 * 2 + 1] = 0xFF;	/* row 1, block 1 of A */
	B.sb[3 * 2 + 0] = 0xFF;	/* column 3, block 0 of B */
	mxe_gemm(eng, &d);
	ok = 1;
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			ok &= (isnan(out[i * 4 + j]) != 0) == (i == 1 || j == 3);
	host_check(ok, "a NaN scale poisons exactly the outputs that use its block");

	d = make_op(&(struct combo){ MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F32, 0 }, 2, 2, 16, 0);
	memset(B.a, 0, 64);
	memset(B.b, 0, 64);
	((uint16_t *)B.a)[0] = 0x7C00;		/* A row 0: +Inf, 0, ... */
	((uint16_t *)B.a)[16] = 0x7C00;		/* A row 1: +Inf, -Inf, 0, ... */
	((uint16_t *)B.a)[17] = 0xFC00;
	for (int kk = 0; kk < 16; kk++)
		((uint16_t *)B.b)[16 + kk] = 0x3C00;	/* B col 1: all ones; col 0 zeros */
	mxe_gemm(eng, &d);
	host_check(isnan(out[0]) && out[1] == INFINITY && isnan(out[2]) && isnan(out[3]) &&
	       ((uint32_t *)B.d)[0] == 0x7FFFFFFFu,
	       "Inf*0 and Inf-Inf give NaN (canonical 0x7FFFFFFF), Inf survives");
	d = make_op(&(struct combo){ MXA_DTYPE_E5M2, MXA_DTYPE_E5M2, MXA_DTYPE_F32, 0 }, 1, 1, 32, 0);
	memset(B.a, 0x7B, 32);	/* 57344 */
	memset(B.b, 0x7B, 32);
	mxe_gemm(eng, &d);
	host_check(out[0] == (float)(32.0 * 57344.0 * 57344.0), "e5m2 max * max * 32 is exact in f32");
	d.type_d = d.type_c = MXA_DTYPE_F16;
	mxe_gemm(eng, &d);
	host_check(((uint16_t *)B.d)[0] == 0x7C00, "f16 accumulator overflows to +Inf");
}

/*
 * F32 sums whose plain double sum rounds to the wrong f32 (mxe_exact.c, chunk_proof():
 * its interval must fail there), on B as N x K and as K x N (an attention's cache): 1 +
 * 2^-24 + 2^-70 and 1 + 2^-24 - 2^-70 around a tie, spread over K = 40 between zeros
 * and pairs that cancel (x and -x), and 1 + 2^-24 exactly (the tie, to even), against
 * random sums of the same K that the proof takes.
 */
static void test_f32_ties(struct mxe_engine *eng)
{
	static const struct combo cb = { MXA_DTYPE_F32, MXA_DTYPE_F32, MXA_DTYPE_F32, 0 };
	static const float want[3] = { 1.0f + 0x1p-23f, 1.0f, 1.0f };
	int bad = 0;

	for (int kn = 0; kn < 2; kn++) {
		struct mxe_gemm_desc d = make_op(&cb, 2, 3, 40, 0);
		float *a = (float *)B.a, *b = (float *)B.b, *out = (float *)B.d, ref[3];

		memset(a, 0, 40 * sizeof(float));	/* row 0: the ties; row 1 random */
		for (int j = 0; j < 3; j++) {
			float *col = b + (size_t)j * 40;

			memset(col, 0, 40 * sizeof(float));
			col[3] = 1.0f;
			col[17] = 0x1p-24f;
			col[30] = j == 0 ? 0x1p-70f : j == 1 ? -0x1p-70f : 0;
			col[8] = 3.0f, col[9] = -3.0f;		/* cancel */
		}
		a[3] = a[17] = a[30] = a[8] = a[9] = 1.0f;
		for (int j = 0; j < 3; j++) {
			double s = 0;

			for (int k = 0; k < 40; k++)
				s += (double)a[40 + k] * b[(size_t)j * 40 + k];
			ref[j] = (float)s;	/* random data: near the float64 sum */
		}
		if (kn) {	/* the same B stored K x N */
			float t[120];

			for (int j = 0; j < 3; j++)
				for (int k = 0; k < 40; k++)
					t[k * 3 + j] = b[(size_t)j * 40 + k];
			memcpy(b, t, sizeof(t));
			d.flags |= MXA_GEMM_F_B_KN;
		}
		if (mxe_gemm(eng, &d)) {
			bad++;
			continue;
		}
		for (int j = 0; j < 3; j++) {
			bad += memcmp(&out[j], &want[j], 4) != 0;
			bad += fabsf(out[3 + j] - ref[j]) > 0x1p-20f * fabsf(ref[j]);
		}
	}
	host_check(!bad, "f32 sums around a tie the double sum misrounds (1 + 2^-24 -+ 2^-70), "
		   "B as N x K and K x N: the exact sums' f32 (%d wrong)", bad);
}

/*
 * MX data with K % 32 != 0: ceil(K / 32) scales a row, the last block partial. The
 * result is that of K padded with zero elements to the next 32 (same scales), in EXACT
 * and in FAST, for FP4, FP6 and MXINT8 (FP8 needs K % 64).
 */
static void test_partial_mx_block(struct mxe_engine *eng)
{
	static const unsigned types[] = { MXA_DTYPE_E2M1, MXA_DTYPE_E3M2, MXA_DTYPE_MXINT8 };
	static uint8_t a[4 * 64], b[5 * 64], ap[4 * 64], bp[5 * 64], sa[4 * 2], sb[5 * 2];
	static float d[20], dp[20];
	int bad = 0;

	for (unsigned t = 0; t < 3; t++) {
		for (int accum = MXE_ACCUM_EXACT; accum <= MXE_ACCUM_FAST; accum++) {
			unsigned ty = types[t], k = 48, kp = 64;
			size_t rb = mxe_dtype_row_bytes(ty, k), rbp = mxe_dtype_row_bytes(ty, kp);
			struct mxe_gemm_desc g = { 0 }, gp;

			tu_fill(ty, a, 4, k, rb);
			tu_fill(ty, b, 5, k, rb);
			tu_fill(MXA_DTYPE_E8M0, sa, 4, 2, 2);
			tu_fill(MXA_DTYPE_E8M0, sb, 5, 2, 2);
			memset(ap, 0, sizeof(ap));
			memset(bp, 0, sizeof(bp));
			for (int r = 0; r < 5; r++)
				for (unsigned kk = 0; kk < k; kk++) {
					if (r < 4)
						mxe_row_store_code(ty, ap + r * rbp, kk, mxe_row_code(ty, a + r * rb, kk));
					mxe_row_store_code(ty, bp + r * rbp, kk, mxe_row_code(ty, b + r * rb, kk));
				}
			g.m = 4, g.n = 5, g.k = k;
			g.type_a = g.type_b = ty;
			g.type_c = g.type_d = MXA_DTYPE_F32;
			g.a = a, g.b = b, g.d = d;
			g.scale_block = 32, g.scale_a = sa, g.scale_b = sb;
			g.accum = accum;
			gp = g;
			gp.k = kp, gp.a = ap, gp.b = bp, gp.d = dp;
			if (mxe_gemm(eng, &g) || mxe_gemm(eng, &gp) || memcmp(d, dp, sizeof(d))) {
				bad++;
				host_diag("  %s %s K = 48 differs from K padded to 64",
					  mxe_dtype_name(ty), accum ? "FAST" : "EXACT");
			}
		}
	}
	host_check(!bad, "MX with K %% 32 != 0 (48): the last block partial, as K padded "
		   "with zeros to 64 (FP4, FP6, MXINT8; EXACT, FAST)");
}

static void test_errors(struct mxe_engine *eng)
{
	static const struct combo fp8 = { MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 };
	static const struct combo fp4 = { MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 };
	struct mxe_gemm_desc d, e;
	int ok = 1;

	d = make_op(&fp8, 4, 4, 64, 0);
	e = d; e.k = 96;
	ok &= mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_K_ALIGN;
	host_check(ok, "FP8 with MX scales and K %% 64 != 0 -> MXE_ENGINE_EINVAL_K_ALIGN");
	test_partial_mx_block(eng);
	e = d; e.scale_a = NULL;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_SCALE, "MX element type without its scale -> EINVAL_SCALE");
	e = d; e.scale_block = 16;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_SCALE, "scale block other than 32 -> EINVAL_SCALE");
	e = d; e.type_a = e.type_b = MXA_DTYPE_S8; e.type_d = MXA_DTYPE_S32;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_SCALE, "scales on s8 data -> EINVAL_SCALE");
	e = d; e.m = 0;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_SHAPE, "M = 0 -> EINVAL_SHAPE");
	e = d; e.lda = 10;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_LAYOUT, "lda shorter than a row -> EINVAL_LAYOUT");
	e = make_op(&fp4, 4, 4, 64, 0); e.flags |= MXA_GEMM_F_B_KN;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_LAYOUT, "B as K x N with 4-bit data -> EINVAL_LAYOUT");
	e = d; e.lda = SIZE_MAX / 2;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EOVERFLOW, "rows * lda overflowing size_t -> EOVERFLOW");
	e = d; e.type_b = MXA_DTYPE_S8;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_DTYPE, "e4m3 x s8 -> EINVAL_DTYPE");
	e = d; e.flags |= MXA_GEMM_F_ACCUMULATE; e.c = B.c; e.type_c = MXA_DTYPE_F16;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_DTYPE, "C type different from D type -> EINVAL_DTYPE");
	e = d; e.type_d = MXA_DTYPE_BF16;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_DTYPE, "bf16 D -> EINVAL_DTYPE");
	e = d; e.b = NULL;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL && mxe_gemm(eng, NULL) == MXE_ENGINE_EINVAL,
	       "NULL operand or descriptor -> EINVAL");
	e = d; e.flags |= 1u << 20;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL, "unknown flag -> EINVAL");
	e = d; e.accum = 9;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_OPTION, "unknown accumulation mode -> EINVAL_OPTION");
	e = d; e.accum = MXE_ACCUM_HOPPER;	/* d has MX scales */
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL_OPTION,
	       "HOPPER numerics with MX scales -> EINVAL_OPTION (no such tensor core)");
	e = d; e.type_a = e.type_b = MXA_DTYPE_S8; e.type_d = MXA_DTYPE_S32; e.scale_a = e.scale_b = NULL;
	e.scale_block = 0; e.flags |= MXE_GEMM_NEGATE_A;
	host_check(mxe_gemm(eng, &e) == MXE_ENGINE_EINVAL, "negating integer operands -> EINVAL");
	ok = 1;
	for (int err = 0; err >= MXE_ENGINE_EBUSY; err--)
		ok &= strcmp(mxe_engine_strerror(err), mxe_engine_strerror(-99)) != 0;
	host_check(ok && strstr(mxe_engine_strerror(MXE_ENGINE_EINVAL_K_ALIGN), "64") &&
	       strstr(mxe_engine_strerror(-99), "unknown"),
	       "every error code has a text");
}

static char simd_paths[64];	/* the SIMD paths this CPU has, e.g. "portable/avx2" */

/*
 * The SIMD levels that run int16 windows (AVX2, AVX512-VNNI and above; AVX-512 without
 * VNNI keeps the double kernels) among this CPU's, and whether the default level does.
 */
static unsigned w16_levels(int *dflt)
{
	int avx2 = !mxe_engine_set_simd("avx2"), avx512 = !mxe_engine_set_simd("avx512");
	int vnni = !mxe_engine_set_simd("avx512vnni"), bf16 = !mxe_engine_set_simd("avx512bf16");

	mxe_engine_set_simd(NULL);
	*dflt = vnni || (avx2 && !avx512);
	return (unsigned)(avx2 + vnni + bf16);
}

/*
 * Run @d on every SIMD path this CPU has (portable first); 1 when all give
 * the bits of the portable path. D is left as the best path wrote it; *rc
 * collects the return codes.
 */
static int same_on_every_path(struct mxe_engine *eng, struct mxe_gemm_desc *d, size_t bytes,
			      int *rc)
{
	static uint8_t ref[16384];
	int same = 1;

	*rc = 0;
	for (unsigned l = 0; mxe_engine_simd_name(l); l++) {
		if (mxe_engine_set_simd(mxe_engine_simd_name(l)))
			continue;
		memset(d->d, 0xAA, bytes);
		*rc |= mxe_gemm(eng, d);
		if (!l)
			memcpy(ref, d->d, bytes);
		else
			same &= !memcmp(ref, d->d, bytes);
	}
	mxe_engine_set_simd(NULL);
	return same;
}

/* same_on_every_path(), counting the outputs the tiled EXACT path computed there (*@on). */
static int same_counted(struct mxe_engine *eng, struct mxe_gemm_desc *d, size_t bytes, int *rc,
			uint64_t *on)
{
	uint64_t o0, r0, o1, r1;
	int same;

	mxe_tiled_exact_counts(&o0, &r0);
	same = same_on_every_path(eng, d, bytes, rc);
	mxe_tiled_exact_counts(&o1, &r1);
	*on = o1 - o0;
	return same;
}

/* run_and_compare(), counting the outputs the tiled EXACT path computed (*@on) and
 * handed to the general path (*@redone). */
static int compare_counted(struct mxe_engine *eng, struct mxe_gemm_desc *d, size_t *bad,
			   uint64_t *on, uint64_t *redone)
{
	uint64_t o0, r0, o1, r1;
	int rc;

	*bad = 0;
	mxe_tiled_exact_counts(&o0, &r0);
	rc = run_and_compare(eng, d, bad);
	mxe_tiled_exact_counts(&o1, &r1);
	*on = o1 - o0;
	*redone = r1 - r0;
	return rc;
}

/*
 * EXACT where a double sum is not exact: 1 + 2^-24 + 2^-80 is above the
 * f32 midpoint, so it rounds to 1 + 2^-23; a sum kept in a double loses the
 * 2^-80 and rounds the tie to 1. Every column (the SIMD paths take 4 or 8
 * at once) and every SIMD path must find the exact result.
 */
static void test_exact_beyond_double(struct mxe_engine *eng)
{
	static const struct combo cb = { MXA_DTYPE_F32, MXA_DTYPE_F32, MXA_DTYPE_F32, 0 };
	struct mxe_gemm_desc d = make_op(&cb, 3, 20, 64, 0);
	float *a = (float *)B.a, *b = (float *)B.b, *out = (float *)B.d;
	int rc, same, good = 0;

	memset(B.a, 0, 3 * 64 * 4);
	memset(B.b, 0, 20 * 64 * 4);
	for (int i = 0; i < 3; i++)
		a[i * 64 + 5] = a[i * 64 + 17] = a[i * 64 + 40] = 1.0f;
	for (int j = 0; j < 20; j++) {
		b[j * 64 + 5] = 1.0f;
		b[j * 64 + 17] = 0x1p-24f;
		b[j * 64 + 40] = j % 2 ? 0x1p-80f : -0x1p-80f;	/* below: rounds to 1 */
	}
	same = same_on_every_path(eng, &d, 3 * 20 * 4, &rc);
	for (int i = 0; i < 3 * 20; i++)
		good += out[i] == (i % 20 % 2 ? 1.0f + 0x1p-23f : 1.0f);
	host_check(!rc && same && good == 60,
	       "exact: 1 + 2^-24 +- 2^-80 rounds to 1 + 2^-23 / 1 (%d of 60 right), SIMD paths "
	       "%s agree: %s", good, simd_paths, same ? "yes" : "NO");

	/*
	 * 2^24 + 1 +- 2^-30 from a . b with a = b = (2^12, 1, 2^-15): 55 bits, so
	 * the plain double sum that the exactness certificate allows only below
	 * 2^(lowest bit + 52) must not be used (it would round the tie to even).
	 */
	memset(B.a, 0, 3 * 64 * 4);
	memset(B.b, 0, 20 * 64 * 4);
	for (int i = 0; i < 3; i++)
		a[i * 64 + 2] = 0x1p12f, a[i * 64 + 30] = 1.0f, a[i * 64 + 61] = 0x1p-15f;
	for (int j = 0; j < 20; j++)
		b[j * 64 + 2] = 0x1p12f, b[j * 64 + 30] = 1.0f,
		b[j * 64 + 61] = j % 2 ? 0x1p-15f : -0x1p-15f;
	same = same_on_every_path(eng, &d, 3 * 20 * 4, &rc);
	good = 0;
	for (int i = 0; i < 3 * 20; i++)
		good += out[i] == (i % 20 % 2 ? 0x1p24f + 2.0f : 0x1p24f);
	host_check(!rc && same && good == 60,
	       "exact: 2^24 + 1 +- 2^-30 rounds to 2^24 + 2 / 2^24 (%d of 60 right), SIMD paths "
	       "%s agree: %s", good, simd_paths, same ? "yes" : "NO");
}

/*
 * EXACT on MX E4M3 with scales far apart, where the whole-chunk certificate
 * fails and the 32-k block sums are added with TwoSum: random data with
 * scales 2^-67 ... 2^73 against the reference, then block sums 1, 2^-24 and
 * +-2^-80 (scales 127, 103, 47) whose plain double sum would round the tie
 * the wrong way.
 */
static void test_exact_mx_blocks(struct mxe_engine *eng)
{
	static const struct combo cb = { MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 };
	struct mxe_gemm_desc d = make_op(&cb, 5, 24, 256, 1);
	float *out = (float *)B.d;
	size_t bad = 0;
	int rc, same, good = 0;

	for (int i = 0; i < 5 * 8; i++)
		B.sa[i] = (uint8_t)(60 + tu_rand() % 141);
	for (int i = 0; i < 24 * 8; i++)
		B.sb[i] = (uint8_t)(60 + tu_rand() % 141);
	same = same_on_every_path(eng, &d, 5 * 24 * 4, &rc);
	if (!rc)
		rc = run_and_compare(eng, &d, &bad);
	host_check(!rc && same && !bad,
	       "exact e4m3 MX, scales 2^-67 ... 2^73: bit-exact vs reference (%zu differ), SIMD "
	       "paths %s agree: %s", bad, simd_paths, same ? "yes" : "NO");

	/* 5 rows (the GEMV path takes them), 40 (the tiles, four rows at a time) */
	for (unsigned m = 5; m <= 40; m += 35) {
		d = make_op(&cb, m, 24, 256, 0);
		memset(B.a, 0, m * 256);
		memset(B.b, 0, 24 * 256);
		memset(B.sa, 127, m * 8);
		for (unsigned i = 0; i < m; i++)
			B.a[i * 256] = B.a[i * 256 + 32] = B.a[i * 256 + 64] = 0x38;	/* 1.0 */
		for (int j = 0; j < 24; j++) {
			B.b[j * 256] = B.b[j * 256 + 32] = 0x38;
			B.b[j * 256 + 64] = j % 2 ? 0x38 : 0xB8;	/* +-1.0 */
			memset(B.sb + j * 8, 127, 8);
			B.sb[j * 8 + 1] = 127 - 24;
			B.sb[j * 8 + 2] = 127 - 80;
		}
		same = same_on_every_path(eng, &d, m * 24 * 4, &rc);
		good = 0;
		for (unsigned i = 0; i < m * 24; i++)
			good += out[i] == (i % 24 % 2 ? 1.0f + 0x1p-23f : 1.0f);
		host_check(!rc && same && good == (int)m * 24,
		       "exact e4m3 MX, %u rows: block sums 1 + 2^-24 +- 2^-80 round to 1 + 2^-23 / "
		       "1 (%d of %u right), SIMD paths %s agree: %s", m, good, m * 24, simd_paths,
		       same ? "yes" : "NO");
	}

	/* E5M2 spans too many bits for exact block sums: 2^30 + 2^6 +- 2^-32 in one block */
	static const struct combo cb5 = { MXA_DTYPE_E5M2, MXA_DTYPE_E5M2, MXA_DTYPE_F32, 1 };

	d = make_op(&cb5, 5, 24, 256, 0);
	memset(B.a, 0, 5 * 256);
	memset(B.b, 0, 24 * 256);
	memset(B.sa, 127, 5 * 8);
	memset(B.sb, 127, 24 * 8);
	for (int i = 0; i < 5; i++)
		B.a[i * 256 + 3] = 0x78, B.a[i * 256 + 9] = 0x48, B.a[i * 256 + 20] = 0x01;
	for (int j = 0; j < 24; j++)
		B.b[j * 256 + 3] = 0x78, B.b[j * 256 + 9] = 0x48,	/* 2^15, 8 */
		B.b[j * 256 + 20] = j % 2 ? 0x01 : 0x81;		/* +-2^-16 */
	same = same_on_every_path(eng, &d, 5 * 24 * 4, &rc);
	good = 0;
	for (int i = 0; i < 5 * 24; i++)
		good += out[i] == (i % 24 % 2 ? 0x1p30f + 0x1p7f : 0x1p30f);
	host_check(!rc && same && good == 5 * 24,
	       "exact e5m2 MX: 2^30 + 2^6 +- 2^-32 in one block rounds to 2^30 + 2^7 / 2^30 (%d of "
	       "120 right), SIMD paths %s agree: %s", good, simd_paths, same ? "yes" : "NO");
}

/*
 * EXACT on the tiled path's float kernels (MX types whose 32-k blocks sum exactly
 * in f32): against the reference on every SIMD path, with and without C, K over
 * several 256-k blocks and a partial one, 40 columns (a pair of panels and a
 * single one); the path must have run. Then what it must hand on: an element
 * whose sum is zero, a C whose lowest bit is below the block grid, and scales
 * too far apart for the certificate. Last, block sums 1, 2^-24 and +-2^-36,
 * which an f32 sum of block sums rounds to 1 both times.
 */
static void test_exact_tiled_blocks(struct mxe_engine *eng)
{
	static const struct combo cbs[] = {
		{ MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E2M3, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E3M2, MXA_DTYPE_E3M2, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_MXINT8, MXA_DTYPE_MXINT8, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E3M2, MXA_DTYPE_MXINT8, MXA_DTYPE_F32, 1 },
	};
	unsigned m = 40, n = 40;
	uint64_t on, redone;
	float *out = (float *)B.d;

	for (size_t c = 0; c < sizeof(cbs) / sizeof(cbs[0]); c++) {
		for (unsigned k = 96; k <= 608; k += 512) {
			for (int acc = 0; acc < 2; acc++) {
				struct mxe_gemm_desc d = make_op(&cbs[c], m, n, k, acc);
				size_t bad = 0;
				int rc, same;

				fill_scales(B.sa, m * k / 32, 121, 13);	/* 2^-6 ... 2^6 */
				fill_scales(B.sb, n * k / 32, 121, 13);
				same = same_counted(eng, &d, m * n * 4, &rc, &on);
				if (!rc)
					rc = run_and_compare(eng, &d, &bad);
				host_check(!rc && same && !bad && on >= m * n,
				       "exact %s x %s MX, K %u%s, on the float kernels: bit-exact vs "
				       "reference (%zu differ), SIMD paths %s agree: %s, %llu elements "
				       "on the path", mxe_dtype_name(cbs[c].a), mxe_dtype_name(cbs[c].b),
				       k, acc ? ", C" : "", bad, simd_paths, same ? "yes" : "NO",
				       (unsigned long long)on);
			}
		}
	}

	/* handed on: a zero row (scales 2^-127, which the certificate leaves out), a C
	 * that is not finite; then scales 2^-100 ... 2^100 */
	for (int spread = 0; spread < 2; spread++) {
		struct mxe_gemm_desc d = make_op(&cbs[0], m, n, 256, 1);
		size_t bad = 0;
		int rc;

		memset(B.a + 3 * mxe_dtype_row_bytes(cbs[0].a, 256), 0,
		       mxe_dtype_row_bytes(cbs[0].a, 256));
		for (unsigned j = 0; j < n; j++)
			((float *)B.c)[3 * n + j] = 0.0f;
		((float *)B.c)[5 * n + 7] = INFINITY;
		for (unsigned i = 0; i < m * 8; i++)
			B.sa[i] = (uint8_t)(spread ? 27 + tu_rand() % 201 : 121 + tu_rand() % 13);
		for (unsigned i = 0; i < n * 8; i++)
			B.sb[i] = (uint8_t)(spread ? 27 + tu_rand() % 201 : 121 + tu_rand() % 13);
		memset(B.sa + 3 * 8, 0, 8);	/* the zero row's scales: 2^-127, as quantised */
		rc = compare_counted(eng, &d, &bad, &on, &redone);
		if (!spread)
			host_check(!rc && !bad && redone == n + 1 && on == m * n - n - 1,
			       "exact e2m1 MX on the float kernels: a zero row and a C of Inf go to "
			       "the general path (%llu of %u elements), bit-exact vs reference (%zu "
			       "differ)", (unsigned long long)redone, n + 1, bad);
		else
			host_check(!rc && !bad && !on && !redone,
			       "exact e2m1 MX, scales 2^-100 ... 2^100: not certified, the general "
			       "path (%llu elements on the float kernels), bit-exact vs reference "
			       "(%zu differ)", (unsigned long long)on, bad);
	}

	/* 1 + 2^-24 +- 2^-36 from three blocks of MXINT8 (64 = 1.0, 1 = 2^-6) */
	static const struct combo cbi = { MXA_DTYPE_MXINT8, MXA_DTYPE_MXINT8, MXA_DTYPE_F32, 1 };
	struct mxe_gemm_desc d = make_op(&cbi, m, n, 96, 0);
	int rc, same, good = 0;

	memset(B.a, 0, m * 96);
	memset(B.b, 0, n * 96);
	memset(B.sa, 127, m * 3);
	for (unsigned i = 0; i < m; i++)
		B.a[i * 96] = B.a[i * 96 + 32] = 64, B.a[i * 96 + 64] = 1;
	for (unsigned j = 0; j < n; j++) {
		B.b[j * 96] = B.b[j * 96 + 32] = 64;
		B.b[j * 96 + 64] = j % 2 ? 1 : 0xFF;	/* +-1 */
		B.sb[j * 3] = 127, B.sb[j * 3 + 1] = B.sb[j * 3 + 2] = 127 - 24;
	}
	same = same_counted(eng, &d, m * n * 4, &rc, &on);
	for (unsigned i = 0; i < m * n; i++)
		good += out[i] == (i % n % 2 ? 1.0f + 0x1p-23f : 1.0f);
	host_check(!rc && same && good == (int)(m * n) && on >= m * n,
	       "exact mxint8 MX on the float kernels: block sums 1 + 2^-24 +- 2^-36 round to "
	       "1 + 2^-23 / 1 (%d of %u right), SIMD paths %s agree: %s", good, m * n, simd_paths,
	       same ? "yes" : "NO");

	/* the midpoint 1 + 2^-24 from the blocks, C = +-2^-80 decides */
	d.flags |= MXA_GEMM_F_ACCUMULATE;
	d.c = B.c;
	for (unsigned i = 0; i < m; i++) {
		B.a[i * 96 + 64] = 0;
		for (unsigned j = 0; j < n; j++)
			((float *)B.c)[i * n + j] = j % 2 ? 0x1p-80f : -0x1p-80f;
	}
	same = same_counted(eng, &d, m * n * 4, &rc, &on);
	good = 0;
	for (unsigned i = 0; i < m * n; i++)
		good += out[i] == (i % n % 2 ? 1.0f + 0x1p-23f : 1.0f);
	host_check(!rc && same && good == (int)(m * n) && on >= m * n,
	       "exact mxint8 MX on the float kernels: block sums 1 + 2^-24 and C +-2^-80 round to "
	       "1 + 2^-23 / 1 (%d of %u right), SIMD paths %s agree: %s", good, m * n, simd_paths,
	       same ? "yes" : "NO");
}

/*
 * E4M3 MX, 40 x 40 x 128 with C: block sums 1 and 2^-24 (scales 2^0 and 2^-24), the f32
 * midpoint 1 + 2^-24, that C = +-2^-80 (by column) rounds up or down; @wide adds 448
 * and 2^-9 in a block of A against zeros of B. On every SIMD path (*@same, *@rc), the
 * outputs the tiled EXACT path computed (*@on) and the int16-window operations (*@w16);
 * returns how many outputs are right.
 */
static int midpoint_1p24(struct mxe_engine *eng, int wide, int *same, int *rc, uint64_t *on,
			 uint64_t *w16)
{
	static const struct combo e4 = { MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 };
	unsigned m = 40, n = 40;
	struct mxe_gemm_desc d = make_op(&e4, m, n, 128, 1);
	int good = 0;

	memset(B.a, 0, m * 128);
	memset(B.b, 0, n * 128);
	memset(B.sa, 127, m * 4);
	for (unsigned i = 0; i < m; i++) {
		B.a[i * 128] = B.a[i * 128 + 32] = 0x38;
		if (wide)
			B.a[i * 128 + 64] = 0x7E, B.a[i * 128 + 65] = 0x01;
	}
	for (unsigned j = 0; j < n; j++) {
		B.b[j * 128] = B.b[j * 128 + 32] = 0x38;
		memset(B.sb + j * 4, 127, 4);
		B.sb[j * 4 + 1] = 127 - 24;
	}
	for (unsigned i = 0; i < m * n; i++)
		((float *)B.c)[i] = i % n % 2 ? 0x1p-80f : -0x1p-80f;
	*w16 = mxe_tiled_w16_ops();
	*same = same_counted(eng, &d, m * n * 4, rc, on);
	*w16 = mxe_tiled_w16_ops() - *w16;
	for (unsigned i = 0; i < m * n; i++)
		good += ((float *)B.d)[i] == (i % n % 2 ? 1.0f + 0x1p-23f : 1.0f);
	return good;
}

/*
 * EXACT on the tiled path's double kernels (AVX-512 hosts; E4M3 or E5M2 against the
 * other MX types, BF16 and F16 whose data allow it: 32-k block sums exact in a double,
 * not in f32; the blocks joined by TwoSum; elsewhere the general path): against
 * the reference on every SIMD path, with and without C, K over several 256-k blocks
 * and a partial one, 40 columns; the path must have run. Then an E4M3 NaN code (its
 * row goes to the general path), block sums whose plain double sum would lose a 1
 * that decides the rounding, and the midpoint 1 + 2^-24 that C = +-2^-80 decides.
 */
static void test_exact_tiled_d64(struct mxe_engine *eng)
{
	static const struct combo cbs[] = {
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E5M2, MXA_DTYPE_E3M2, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_MXINT8, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E5M2, MXA_DTYPE_E3M2, MXA_DTYPE_F32, 0 },
	};
	static const struct combo e4 = { MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 };
	unsigned m = 40, n = 40;
	uint64_t on, redone, w16;
	float *out = (float *)B.d;
	struct mxe_gemm_desc d;
	size_t bad = 0;
	int rc, same, good = 0, w512 = !mxe_engine_set_simd("avx512");	/* AVX-512 hosts only */

	mxe_engine_set_simd(NULL);

	for (size_t c = 0; c < sizeof(cbs) / sizeof(cbs[0]); c++) {
		for (unsigned k = 128; k <= 640; k += 512) {	/* FP8 MX: K % 64 == 0 */
			for (int acc = 0; acc < 2; acc++) {
				d = make_op(&cbs[c], m, n, k, acc);
				bad = 0;
				/* scales 2^-10 ... 2^10: too far apart for int16 windows */
				if (cbs[c].mx) {
					fill_scales(B.sa, m * k / 32, 117, 21);
					fill_scales(B.sb, n * k / 32, 117, 21);
				}
				if (cbs[c].a == MXA_DTYPE_E4M3)	/* no NaN codes here */
					e4m3_no_nan(B.a, m * k);
				if (cbs[c].b == MXA_DTYPE_E4M3)
					e4m3_no_nan(B.b, n * k);
				for (unsigned i = 0; i < m * k; i++)	/* nor E5M2 Inf / NaN */
					if (cbs[c].a == MXA_DTYPE_E5M2 && (B.a[i] & 0x7C) == 0x7C)
						B.a[i] ^= 0x04;
				w16 = mxe_tiled_w16_ops();
				same = same_counted(eng, &d, m * n * 4, &rc, &on);
				if (!rc)
					rc = run_and_compare(eng, &d, &bad);
				/* random codes span more than int16 windows take */
				w16 = mxe_tiled_w16_ops() - w16;
				host_check(!rc && same && !bad && (w512 ? on >= m * n : !on) && !w16,
				       "exact %s x %s%s, K %u%s, on the double kernels: bit-exact vs "
				       "reference (%zu differ), SIMD paths %s agree: %s, %llu elements "
				       "on the path", mxe_dtype_name(cbs[c].a), mxe_dtype_name(cbs[c].b),
				       cbs[c].mx ? " MX" : "", k, acc ? ", C" : "", bad, simd_paths,
				       same ? "yes" : "NO", (unsigned long long)on);
			}
		}
	}

	/* BF16 and F16 by their data: values over 2^-8 ... 2^4 take the double kernels;
	 * an element of 2^-60 in A (BF16), or 2^-24 and 2^15 (F16), too far apart for the
	 * certificate, sends the operation back */
	static const struct combo bh[] = {
		{ MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_F16, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 0 },
	};
	for (size_t c = 0; c < sizeof(bh) / sizeof(bh[0]); c++) {
		for (int wide = 0; wide < 2; wide++) {
			unsigned k = 320;
			uint16_t *a16 = (uint16_t *)B.a, *b16 = (uint16_t *)B.b;

			d = make_op(&bh[c], m, n, k, 1);
			bad = 0;
			for (unsigned i = 0; i < m * k; i++)	/* sign, 7 or 10 bits, 2^-8 .. 2^4 */
				a16[i] = bh[c].a == MXA_DTYPE_BF16 ?
					 (uint16_t)((tu_rand() & 0x807F) | (119 + tu_rand() % 13) << 7) :
					 (uint16_t)((tu_rand() & 0x83FF) | (7 + tu_rand() % 13) << 10);
			for (unsigned i = 0; bh[c].b == MXA_DTYPE_BF16 && i < n * k; i++)
				b16[i] = (uint16_t)((tu_rand() & 0x807F) | (119 + tu_rand() % 13) << 7);
			for (unsigned i = 0; bh[c].b == MXA_DTYPE_E4M3 && i < n * k; i++)	/* no NaN */
				if ((B.b[i] & 0x7F) == 0x7F)
					B.b[i] ^= 1;
			if (wide && bh[c].a == MXA_DTYPE_BF16)
				a16[7 * k + 5] = 0x2180;			/* 2^-60 */
			else if (wide)
				a16[7 * k + 5] = 0x0001, a16[7 * k + 6] = 0x7800;	/* 2^-24, 2^15 */
			same = same_counted(eng, &d, m * n * 4, &rc, &on);
			if (!rc)
				rc = run_and_compare(eng, &d, &bad);
			host_check(!rc && same && !bad && (wide || !w512 ? !on : on >= m * n),
			       "exact %s x %s, C, data over 2^-8 ... 2^4%s: %s, bit-exact vs "
			       "reference (%zu differ), SIMD paths %s agree: %s", mxe_dtype_name(bh[c].a),
			       mxe_dtype_name(bh[c].b), wide ? " and outliers" : "",
			       !on ? "the general path" : "the double kernels", bad, simd_paths,
			       same ? "yes" : "NO");
		}
	}

	/* an E4M3 NaN in row 3: its n elements go to the general path */
	d = make_op(&e4, m, n, 128, 0);
	fill_scales(B.sa, m * 4, 121, 13);
	fill_scales(B.sb, n * 4, 121, 13);
	e4m3_no_nan(B.a, m * 128);
	e4m3_no_nan(B.b, n * 128);
	B.a[3 * 128 + 40] = 0x7F;
	rc = compare_counted(eng, &d, &bad, &on, &redone);
	host_check(!rc && !bad && (w512 ? redone == n && on == m * n - n : !on && !redone),
	       "exact e4m3 MX on the double kernels: a NaN code's row goes to the general path "
	       "(%llu of %u elements), bit-exact vs reference (%zu differ)",
	       (unsigned long long)redone, n, bad);

	/* block sums 2^58, +-1, -2^58, 2^25, +-2: 2^25 +- 3 rounds to 2^25 +- 4; without
	 * the +-1 that only TwoSum keeps, 2^25 +- 2 stays (an f32, or a tie to even) */
	d = make_op(&e4, m, n, 192, 0);
	memset(B.a, 0, m * 192);
	memset(B.b, 0, n * 192);
	for (unsigned i = 0; i < m; i++) {
		static const uint8_t sa[6] = { 127 + 29, 127, 127 + 29, 127 + 12, 127, 127 };

		for (unsigned b = 0; b < 5; b++)
			B.a[i * 192 + 32 * b] = 0x38;				/* 1.0 */
		memcpy(B.sa + i * 6, sa, 6);
	}
	for (unsigned j = 0; j < n; j++) {
		static const uint8_t sb[6] = { 127 + 29, 127, 127 + 29, 127 + 13, 127, 127 };
		uint8_t sign = j % 2 ? 0 : 0x80;

		B.b[j * 192] = B.b[j * 192 + 96] = 0x38;
		B.b[j * 192 + 32] = 0x38 | sign;				/* +-1.0 */
		B.b[j * 192 + 64] = 0xB8;					/* -1.0 */
		B.b[j * 192 + 128] = 0x40 | sign;				/* +-2.0 */
		memcpy(B.sb + j * 6, sb, 6);
	}
	w16 = mxe_tiled_w16_ops();
	same = same_counted(eng, &d, m * n * 4, &rc, &on);
	w16 = mxe_tiled_w16_ops() - w16;	/* scales 2^29 apart: past the int64 bound */
	for (unsigned i = 0; i < m * n; i++)
		good += out[i] == (i % n % 2 ? 0x1p25f + 4 : 0x1p25f - 4);
	host_check(!rc && same && good == (int)(m * n) && (w512 ? on >= m * n : !on) && !w16,
	       "exact e4m3 MX on the double kernels: block sums 2^58, +-1, -2^58, 2^25, +-2 "
	       "round to 2^25 +- 4 (%d of %u right), SIMD paths %s agree: %s", good, m * n,
	       simd_paths, same ? "yes" : "NO");

	/* the midpoint 1 + 2^-24 that C = +-2^-80 decides, with 448 and 2^-9 in a block of
	 * A against zeros of B: B's scales 2^24 apart then pass the int16 windows' bound */
	good = midpoint_1p24(eng, 1, &same, &rc, &on, &w16);
	host_check(!rc && same && good == (int)(m * n) && (w512 ? on >= m * n : !on) && !w16,
	       "exact e4m3 MX on the double kernels: block sums 1 + 2^-24 and C +-2^-80 round "
	       "to 1 + 2^-23 / 1 (%d of %u right), SIMD paths %s agree: %s", good, m * n,
	       simd_paths, same ? "yes" : "NO");
}

/* E4M3 codes of values spread evenly over -448 ... 448 (the bench's data): the nonzero
 * values of a block of 32 then span at most 13 bits. */
static void fill_e4m3_even(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = mxe_cvt_f32_to_e4m3((float)((int)(tu_rand() % 2001) - 1000) * 0.448f, 1);
}

/* Run @d on the default path, counting int16-window operations (*@w) and the outputs
 * the tiled EXACT path computed (*@on); against the reference (*@bad). */
static int w16_counted(struct mxe_engine *eng, struct mxe_gemm_desc *d, size_t *bad,
		       uint64_t *w, uint64_t *on)
{
	uint64_t w0 = mxe_tiled_w16_ops(), redone;
	int rc = compare_counted(eng, d, bad, on, &redone);

	*w = mxe_tiled_w16_ops() - w0;
	return rc;
}

/*
 * EXACT on int16 windows (AVX512-VNNI hosts): 32-k blocks of E4M3 (values spread as
 * the bench's), E2M1, E3M2 and MXINT8 against E4M3, with and without C, negated or
 * not, K of 128 and 640, 40 x 40: bit-exact vs reference, every SIMD path agrees, and
 * the windows ran exactly where they apply. Then the limits: a block spanning 12 bits
 * runs on them and one of 13 does not, scales too far apart for the int64 sums, the
 * largest int32 block sums (E4M3 448 x 448, 32 a block), blocks of zeros with scale
 * 2^-127 left out of the span, and the midpoint 1 + 2^-24 that C = +-2^-80 decides.
 */
static void test_exact_tiled_w16(struct mxe_engine *eng)
{
	static const struct combo cbs[] = {
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_MXINT8, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E3M2, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 0 },
	};
	static const struct combo e4 = { MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 };
	unsigned m = 40, n = 40;
	float *out = (float *)B.d;
	struct mxe_gemm_desc d;
	uint64_t w, on;
	size_t bad;
	int rc, same, good, vnni;
	unsigned levels = w16_levels(&vnni);	/* vnni: the default level runs them */

	for (size_t c = 0; c < sizeof(cbs) / sizeof(cbs[0]); c++) {
		for (unsigned k = 128; k <= 640; k += 512) {
			for (unsigned v = 0; v < 6; v++) {	/* bit 0: C; v / 2: -A, -B */
				uint64_t w0 = mxe_tiled_w16_ops(), w1;

				d = make_op(&cbs[c], m, n, k, v & 1);
				d.flags |= v / 2 == 1 ? MXE_GEMM_NEGATE_A :
					   v / 2 == 2 ? MXE_GEMM_NEGATE_B : 0;
				if (cbs[c].mx) {
					fill_scales(B.sa, m * k / 32, 121, 13);	/* 2^-6 ... 2^6 */
					fill_scales(B.sb, n * k / 32, 121, 13);
				}
				if (cbs[c].a == MXA_DTYPE_E4M3)
					fill_e4m3_even(B.a, m * k);
				if (cbs[c].b == MXA_DTYPE_E4M3)
					fill_e4m3_even(B.b, n * k);
				same = same_on_every_path(eng, &d, m * n * 4, &rc);
				w1 = mxe_tiled_w16_ops();
				if (!rc)
					rc = w16_counted(eng, &d, &bad, &w, &on);
				host_check(!rc && same && !bad && w1 - w0 == levels &&
					   w == (uint64_t)vnni && (!vnni || on == m * n),
					   "exact %s x %s%s, K %u%s%s, on int16 windows: bit-exact vs "
					   "reference (%zu differ), SIMD paths %s agree: %s, ran there: "
					   "%s", mxe_dtype_name(cbs[c].a), mxe_dtype_name(cbs[c].b),
					   cbs[c].mx ? " MX" : "", k, v & 1 ? ", C" : "",
					   v / 2 == 1 ? ", -A" : v / 2 == 2 ? ", -B" : "", bad, simd_paths, same ? "yes" : "NO",
					   w ? "yes" : "no");
			}
		}
	}

	/* a block of 2^8 and 2^-4 (12 bits apart) fits its window; with 2^-5 (13 bits) or
	 * 2^-9 (17) a part lies below it, with its products summed apart */
	for (int wide = 0; wide < 3; wide++) {
		static const uint8_t small[3] = { 0x18, 0x10, 0x01 };
		static const char *const name[3] = { "2^-4 (12 bits)", "2^-5 (13 bits)",
						      "2^-9 (17 bits)" };

		d = make_op(&e4, m, n, 128, 1);
		fill_scales(B.sa, m * 4, 121, 13);
		fill_scales(B.sb, n * 4, 121, 13);
		fill_e4m3_even(B.a, m * 128);
		fill_e4m3_even(B.b, n * 128);
		B.a[7 * 128 + 40] = 0x78;			/* 2^8 */
		B.a[7 * 128 + 41] = small[wide];
		B.b[3 * 128 + 40] = 0x78;
		B.b[3 * 128 + 41] = (uint8_t)(small[wide] | 0x80);
		rc = w16_counted(eng, &d, &bad, &w, &on);
		host_check(!rc && !bad && w == (uint64_t)vnni,
			   "exact e4m3 MX, a block of 2^8 and %s in A and in B: int16 windows: %s, "
			   "bit-exact vs reference (%zu differ)", name[wide], w ? "yes" : "no", bad);
	}

	/* random codes (no NaN) in row 7 of A and column 9 of B, bench data elsewhere:
	 * parts under the windows in most of their blocks, on the windows; random codes
	 * everywhere (half the elements with such parts) go to the double kernels */
	for (int v = 0; v < 3; v++) {
		int all = v == 2;

		d = make_op(&e4, m, n, 640, v & 1);
		fill_scales(B.sa, m * 20, 124, 7);
		fill_scales(B.sb, n * 20, 124, 7);
		if (!all) {
			fill_e4m3_even(B.a, 7 * 640);
			fill_e4m3_even(B.a + 8 * 640, (m - 8) * 640);
			fill_e4m3_even(B.b, 9 * 640);
			fill_e4m3_even(B.b + 10 * 640, (n - 10) * 640);
		}
		e4m3_no_nan(B.a, m * 640);
		e4m3_no_nan(B.b, n * 640);
		same = same_on_every_path(eng, &d, m * n * 4, &rc);
		rc |= w16_counted(eng, &d, &bad, &w, &on);
		host_check(!rc && same && !bad && w == (uint64_t)(vnni && !all),
			   "exact e4m3 MX, random codes %s%s: int16 windows: %s, bit-exact vs "
			   "reference (%zu differ), SIMD paths %s agree: %s",
			   all ? "everywhere" : "in a row of A and a column of B", v & 1 ? ", C" : "",
			   w ? "yes" : "no", bad, simd_paths, same ? "yes" : "NO");
	}

	/* every element 448 (block sums 32 x 7680^2 in the windows), B's first block scaled
	 * by 2^33: its sums times 2^33 pass 2^63, so the int64 sums are not used */
	d = make_op(&e4, m, n, 128, 0);
	memset(B.a, 0x7E, m * 128);
	memset(B.b, 0x7E, n * 128);
	memset(B.sa, 127, m * 4);
	memset(B.sb, 127, n * 4);
	for (unsigned j = 0; j < n; j++)
		B.sb[j * 4] = 127 + 33;
	rc = w16_counted(eng, &d, &bad, &w, &on);
	good = 0;
	for (unsigned i = 0; i < m * n; i++)
		good += out[i] == 0x31p50f;
	host_check(!rc && !bad && !w && good == (int)(m * n), "exact e4m3 MX, 448 everywhere "
		   "and a scale of 2^33: not on int16 windows (int64 bound), 49 x 2^50 (%d of %u "
		   "right), bit-exact vs reference (%zu differ)", good, m * n, bad);

	/* an E4M3 NaN code: not on int16 windows */
	d = make_op(&e4, m, n, 128, 0);
	fill_e4m3_even(B.a, m * 128);
	fill_e4m3_even(B.b, n * 128);
	memset(B.sa, 127, m * 4);
	memset(B.sb, 127, n * 4);
	B.b[9 * 128 + 77] = 0x7F;
	rc = w16_counted(eng, &d, &bad, &w, &on);
	host_check(!rc && !bad && !w, "exact e4m3 MX, a NaN code in B: not on int16 windows, "
		   "bit-exact vs reference (%zu differ)", bad);

	/* scales 2^-15 ... 2^15 on both sides: K / 32 block sums below 2^31 shifted by up to
	 * 60 bits could pass 2^62, so the int64 sums are not used */
	d = make_op(&e4, m, n, 128, 0);
	for (unsigned i = 0; i < m * 4; i++)
		B.sa[i] = (uint8_t)(112 + (i % 2) * 30);
	for (unsigned i = 0; i < n * 4; i++)
		B.sb[i] = (uint8_t)(112 + (i % 2) * 30);
	fill_e4m3_even(B.a, m * 128);
	fill_e4m3_even(B.b, n * 128);
	rc = w16_counted(eng, &d, &bad, &w, &on);
	host_check(!rc && !bad && !w, "exact e4m3 MX, scales 2^-15 ... 2^15: not on int16 "
		   "windows (int64 bound), bit-exact vs reference (%zu differ)", bad);

	/* the largest block sums: 32 x 448 x 448 a block (7680^2 x 32 in the windows), all
	 * of one sign or alternating by column; 640 of them sum to 245 x 2^19 */
	d = make_op(&e4, m, n, 640, 0);
	memset(B.sa, 127, m * 20);
	memset(B.sb, 127, n * 20);
	memset(B.a, 0x7E, m * 640);
	for (unsigned j = 0; j < n; j++)
		memset(B.b + j * 640, j % 2 ? 0xFE : 0x7E, 640);
	rc = w16_counted(eng, &d, &bad, &w, &on);
	good = 0;
	for (unsigned i = 0; i < m * n; i++)
		good += out[i] == (i % n % 2 ? -0x1p19f : 0x1p19f) * 245;
	host_check(!rc && !bad && good == (int)(m * n) && w == (uint64_t)vnni,
		   "exact e4m3 MX, every element 448 (block sums 32 x 7680^2 in int32): +-245 x "
		   "2^19 (%d of %u right), bit-exact vs reference (%zu differ), int16 windows: %s",
		   good, m * n, bad, w ? "yes" : "no");

	/* blocks of zeros with scale 2^-127 (as the quantisers write them) between blocks
	 * of scale 2^0: their scale is left out of the span */
	d = make_op(&e4, m, n, 128, 1);
	fill_e4m3_even(B.a, m * 128);
	fill_e4m3_even(B.b, n * 128);
	memset(B.sa, 127, m * 4);
	memset(B.sb, 127, n * 4);
	for (unsigned i = 0; i < m; i += 3) {
		memset(B.a + i * 128 + 64, 0, 32);
		B.sa[i * 4 + 2] = 0;
	}
	rc = w16_counted(eng, &d, &bad, &w, &on);
	host_check(!rc && !bad && w == (uint64_t)vnni,
		   "exact e4m3 MX, blocks of zeros with scale 2^-127: int16 windows: %s, "
		   "bit-exact vs reference (%zu differ)", w ? "yes" : "no", bad);

	/* D = 2^36 + 2^12 +- 2^-18: in the windows 2^54 + 2^30 +- 1 units, past a
	 * double's 53 bits. The f32 midpoint 2^36 + 2^12 is what a double keeps; the +-1
	 * that the pair's low part keeps rounds it up or down. With 16.0 for 8.0 beside
	 * the two 2^-9, those lie under their windows and the +-1 comes from their parts;
	 * a fourth block adds 2^13 from a part under A's window times 2^22 (2^43 units of
	 * those parts: the sum goes through TwoSum), D = 2^36 + 3 x 2^12 +- 2^-18, or 2^18
	 * from one times 2^27 (2^48 units: through 128 bits), D = 2^36 + 2^18 + 2^12 +-
	 * 2^-18, or 2^20 from one times 2^29 (2^50 units: the rest would pass 2^63 units
	 * of 2^-26, where the eight-lane conversion leaves the lane to 128 bits) */
	for (int under = 0; under < 5; under++) {
		static const float up[5] = { 0x1p36f + 0x1p13f, 0x1p36f + 0x1p13f, 0x1p36f + 0x1p14f,
					     0x1p36f + 0x1p18f + 0x1p13f,
					     0x1p36f + 0x1p20f + 0x1p13f };
		static const float down[5] = { 0x1p36f, 0x1p36f, 0x1p36f + 0x1p13f,
					       0x1p36f + 0x1p18f, 0x1p36f + 0x1p20f };
		uint8_t big = under ? 0x58 : 0x50;	/* 16.0, 8.0 */

		d = make_op(&e4, m, n, 128, 0);
		memset(B.a, 0, m * 128);
		memset(B.b, 0, n * 128);
		memset(B.sa, 127, m * 4);
		for (unsigned i = 0; i < m; i++) {
			memset(B.a + i * 128, 0x50, 32);		/* 8.0 */
			B.a[i * 128 + 32] = 0x50;
			B.a[i * 128 + 64] = big;
			B.a[i * 128 + 65] = 0x01;			/* 2^-9 */
			if (under >= 2)
				B.a[i * 128 + 96] = 0x58, B.a[i * 128 + 97] = 0x01;
		}
		for (unsigned j = 0; j < n; j++) {
			static const uint8_t sb[4] = { 127 + 28, 127 + 9, 127, 127 + 22 };

			memset(B.b + j * 128, 0x38, 32);		/* 1.0 */
			B.b[j * 128 + 32] = 0x38;
			B.b[j * 128 + 65] = j % 2 ? 0x01 : 0x81;	/* +-2^-9 */
			B.b[j * 128 + 66] = big;
			if (under >= 2)
				B.b[j * 128 + 97] = 0x38;
			memcpy(B.sb + j * 4, sb, 4);
			if (under >= 3)
				B.sb[j * 4 + 3] = (uint8_t)(127 + 27 + 2 * (under - 3));
		}
		same = same_on_every_path(eng, &d, m * n * 4, &rc);
		rc |= w16_counted(eng, &d, &bad, &w, &on);
		good = 0;
		for (unsigned i = 0; i < m * n; i++)
			good += out[i] == (i % n % 2 ? up[under] : down[under]);
		host_check(!rc && same && !bad && good == (int)(m * n) && w == (uint64_t)vnni,
			   "exact e4m3 MX on int16 windows: the midpoint 2^36 + %s +- 2^-18 "
			   "(+-1 unit past 53 bits%s) rounds up / down (%d of %u right), SIMD paths "
			   "%s agree: %s, int16 windows: %s", under == 4 ? "2^20 + 2^12" :
			   under == 3 ? "2^18 + 2^12" :
			   under == 2 ? "3 x 2^12" : "2^12",
			   under == 1 ? ", from parts under the windows" : under == 2 ?
			   ", the parts' sum past 2^38 units" : under == 3 ?
			   ", past 2^48 units: through 128 bits" : under == 4 ?
			   ", 2^50 units: past 2^63 in the rest" : "", good, m * n, simd_paths,
			   same ? "yes" : "NO",
			   w ? "yes" : "no");
	}

	/* parts under the windows that sum past 2^48 units (the sum then goes through 128
	 * bits): row 5 of A has blocks of 256 and 31 x 1.875 x 2^-5 (each 7680 under its
	 * window), B 448 with a scale of 2^18 on its first block */
	d = make_op(&e4, m, n, 128, 1);
	memset(B.sa, 127, m * 4);
	memset(B.sb, 127, n * 4);
	fill_e4m3_even(B.a, m * 128);
	memset(B.a + 5 * 128, 0x17, 128);
	for (unsigned b = 0; b < 4; b++)
		B.a[5 * 128 + 32 * b + 3 * b] = 0x78;
	memset(B.b, 0x7E, n * 128);
	for (unsigned j = 0; j < n; j++)
		B.sb[j * 4] = 127 + 18;
	same = same_on_every_path(eng, &d, m * n * 4, &rc);
	rc |= w16_counted(eng, &d, &bad, &w, &on);
	host_check(!rc && same && !bad && w == (uint64_t)vnni,
		   "exact e4m3 MX on int16 windows, parts under them summing past 2^48 units: "
		   "bit-exact vs reference (%zu differ), SIMD paths %s agree: %s", bad, simd_paths,
		   same ? "yes" : "NO");

	/* the midpoint 1 + 2^-24 from two blocks (scales 2^0 and 2^-24), C = +-2^-80 */
	good = midpoint_1p24(eng, 0, &same, &rc, &on, &w);
	host_check(!rc && same && good == (int)(m * n) && w == levels,
		   "exact e4m3 MX on int16 windows: block sums 1 + 2^-24 and C +-2^-80 round to "
		   "1 + 2^-23 / 1 (%d of %u right), SIMD paths %s agree: %s, int16 windows: %s",
		   good, m * n, simd_paths, same ? "yes" : "NO", w ? "yes" : "no");
}

/*
 * Int16 windows over several super chunks: 6200 x 16 x 8192 E4M3 MX with C packs more
 * than the tiled path's budget at once, so the int64 sums of all of D live between the
 * chunks. Eight rows, the first and last among them, against the reference, each as a
 * one-row operation of its own.
 */
static void test_exact_w16_super_chunks(struct mxe_engine *eng)
{
	enum { M = 6200, N = 16, K = 8192 };
	static const unsigned rows[8] = { 0, 1, 5, 6, 3001, 4096, M - 2, M - 1 };
	uint8_t *a = malloc((size_t)M * K), *sa = malloc((size_t)M * K / 32);
	uint8_t *sb = malloc((size_t)N * K / 32);
	float *c = malloc((size_t)M * N * 4), *dd = malloc((size_t)M * N * 4);
	struct mxe_gemm_desc d;
	uint64_t w0 = mxe_tiled_w16_ops();
	size_t bad = 0;
	int rc, vnni;

	w16_levels(&vnni);
	if (!a || !sa || !sb || !c || !dd) {
		host_check(0, "exact e4m3 MX over two super chunks: out of memory");
		goto out;
	}
	memset(&d, 0, sizeof(d));
	d.m = M, d.n = N, d.k = K;
	d.type_a = d.type_b = MXA_DTYPE_E4M3;
	d.type_c = d.type_d = MXA_DTYPE_F32;
	d.a = a, d.b = B.b, d.c = c, d.d = dd;
	d.flags = MXA_GEMM_F_ACCUMULATE;
	d.scale_block = 32;
	d.scale_a = sa, d.scale_b = sb;
	fill_e4m3_even(a, (size_t)M * K);
	fill_e4m3_even(B.b, (size_t)N * K);
	for (size_t i = 0; i < (size_t)M * K / 32; i++)
		sa[i] = (uint8_t)(121 + tu_rand() % 13);
	for (size_t i = 0; i < (size_t)N * K / 32; i++)
		sb[i] = (uint8_t)(121 + tu_rand() % 13);
	tu_fill(MXA_DTYPE_F32, c, M, N, N * 4);
	rc = mxe_gemm(eng, &d);
	for (unsigned r = 0; !rc && r < 8; r++) {
		struct mxe_gemm_desc one = d;

		one.m = 1;
		one.a = a + (size_t)rows[r] * K;
		one.scale_a = sa + (size_t)rows[r] * K / 32;
		one.c = c + (size_t)rows[r] * N;
		tu_ref_gemm(&one, B.r);
		bad += tu_diff(&one, dd + (size_t)rows[r] * N, N * 4, B.r);
	}
	host_check(!rc && !bad && mxe_tiled_w16_ops() - w0 == (uint64_t)vnni,
		   "exact e4m3 MX 6200 x 16 x 8192 with C (three super chunks) on int16 windows: "
		   "8 rows bit-exact vs reference (%zu of 128 differ), rc %d, w16 ops %llu", bad, rc, (unsigned long long)(mxe_tiled_w16_ops() - w0));
out:
	free(a), free(sa), free(sb), free(c), free(dd);
}

/*
 * A WGMMA's shape (64 x 64 x 32 E4M3 with C), where rounding the pairs is most of the
 * work: on AVX-512 eight outputs at a time, the rest one by one. Against the reference
 * and on every SIMD path, with the outputs that one conversion cannot round in it: C
 * Inf, -Inf, NaN, FLT_MAX (the general path), C = -sum (an exact zero: its sign is the
 * general path's), the midpoint 64 + 2^-18 that C = +-2^-80 decides, an f32 subnormal C.
 */
static void test_exact_wgmma_finish(struct mxe_engine *eng)
{
	static const struct combo e4 = { MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 0 };
	static const float special[] = { INFINITY, -INFINITY, NAN, 0x1p-149f, 0x1.fffffep127f };
	unsigned m = 64, n = 64, k = 32;
	struct mxe_gemm_desc d = make_op(&e4, m, n, k, 1);
	float *c = (float *)B.c, *out = (float *)B.d;
	uint64_t o0, r0, o1, r1, v0, v1;
	size_t bad = 0;
	int rc, same, w512 = !mxe_engine_set_simd("avx512");

	mxe_engine_set_simd(NULL);
	e4m3_no_nan(B.a, m * k);	/* no NaN codes */
	e4m3_no_nan(B.b, n * k);
	/* row 0: 1.0 then zeros, against 1.0 in columns 0 .. 4: sums of 1 that C's special
	 * values join (2^-149 rounds away in a vector, the others go to the general path) */
	memset(B.a, 0, k);
	B.a[0] = 0x38;
	for (unsigned j = 0; j < sizeof(special) / sizeof(special[0]); j++) {
		c[j] = special[j];
		B.b[j * k] = 0x38;
	}
	memset(B.a + 5 * k, 0, 2 * k);		/* row 5: 1.0; row 6: 8.0, 2^-9 */
	B.a[5 * k] = 0x38;
	B.a[6 * k] = 0x50, B.a[6 * k + 1] = 0x01;
	for (unsigned j = 9; j < 13; j++)
		memset(B.b + j * k, 0, k);
	B.b[9 * k] = 0x38, B.b[10 * k] = 0xB8;	/* sums 1 and -1; C cancels them */
	c[5 * n + 9] = -1.0f, c[5 * n + 10] = 1.0f;
	for (unsigned j = 11; j < 13; j++) {	/* 64 + 2^-18, C = +-2^-80 */
		B.b[j * k] = 0x50, B.b[j * k + 1] = 0x01;
		c[6 * n + j] = j == 11 ? 0x1p-80f : -0x1p-80f;
	}
	mxe_tiled_exact_counts(&o0, &r0);
	v0 = mxe_tiled_exact_vector_outputs();
	rc = run_and_compare(eng, &d, &bad);
	mxe_tiled_exact_counts(&o1, &r1);
	v1 = mxe_tiled_exact_vector_outputs();
	host_check(!rc && !bad && out[6 * n + 11] == 64.0f + 0x1p-17f && out[6 * n + 12] == 64.0f &&
		   (w512 ? r1 - r0 == 6 && v1 - v0 == m * n - 8 : v1 == v0),
		   "exact e4m3 64 x 64 x 32 with C (a WGMMA): bit-exact vs reference (%zu differ), "
		   "the midpoint 64 + 2^-18 decided by C; %llu outputs rounded in vectors, %llu by "
		   "the general path", bad, (unsigned long long)(v1 - v0),
		   (unsigned long long)(r1 - r0));
	same = same_on_every_path(eng, &d, m * n * 4, &rc);
	host_check(!rc && same, "exact e4m3 64 x 64 x 32 with C: SIMD paths %s agree: %s",
		   simd_paths, same ? "yes" : "NO");

	/* one chunk of K: the interwave policy is the same computation, on the same path */
	d.sched = MXE_SCHED_INTERWAVE;
	v0 = mxe_tiled_exact_vector_outputs();
	rc = run_and_compare(eng, &d, &bad);
	v1 = mxe_tiled_exact_vector_outputs();
	host_check(!rc && !bad && (w512 ? v1 - v0 == m * n - 8 : v1 == v0),
		   "exact e4m3 64 x 64 x 32 with C, interwave: bit-exact vs reference (%zu differ), "
		   "%llu outputs rounded in vectors", bad, (unsigned long long)(v1 - v0));
}

/*
 * The int8 panels (E2M1/E2M3/MXINT8 on both sides; AVX512-VNNI, or AVX2): FAST and
 * EXACT, with C, negated sides, 40 x 45 (a pair of B panels and a single one, a partial
 * one) and K over several 256-k blocks, give the portable path's bits, and each SIMD
 * level with int8 panels ran them there; with VNNI a negated MXINT8 (-(-128) is not an
 * int8) stays on the float kernels, AVX2 takes it, and MXINT8 x MXINT8, as int16 pairs.
 * The "largest" cases hold every element at its type's largest integer (MXINT8: 127 in
 * A, whose biased byte is 255, and -128 in B): each int16 pair sum of the AVX2 kernel
 * at its bound, so that one pair sum more in a group than s8_avx2_group() allows
 * overflows int16.
 */
static void test_s8_panels(struct mxe_engine *eng)
{
	static const struct combo cbs[] = {
		{ MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E2M3, MXA_DTYPE_MXINT8, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_MXINT8, MXA_DTYPE_MXINT8, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_E2M3, MXA_DTYPE_E2M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E2M3, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_MXINT8, MXA_DTYPE_E2M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_MXINT8, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E2M1, MXA_DTYPE_E2M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E2M1, MXA_DTYPE_MXINT8, MXA_DTYPE_F32, 1 },
	};
	static const char *const level[2] = { "avx2", "avx512vnni" };
	int has[2];

	for (int l = 0; l < 2; l++)
		has[l] = !mxe_engine_set_simd(level[l]);
	mxe_engine_set_simd(NULL);
	for (size_t c = 0; c < sizeof(cbs) / sizeof(cbs[0]); c++) {
		for (int largest = 0; largest < 2; largest++) {
			for (int accum = 0; accum < 2; accum++) {
				for (unsigned neg = 0; neg < 4; neg++) {
					struct mxe_gemm_desc d = make_op(&cbs[c], 40, 45, 608, neg & 1);
					size_t bad = 0;
					uint64_t ran[2] = { 0, 0 };
					int rc, same, want[2], neg8;

					d.accum = accum ? MXE_ACCUM_FAST : MXE_ACCUM_EXACT;
					d.flags |= (neg & 1 ? MXE_GEMM_NEGATE_A : 0) |
						   (neg & 2 ? MXE_GEMM_NEGATE_B : 0);
					for (unsigned i = 0; cbs[c].mx && i < 45 * 19; i++)
						B.sa[i % (40 * 19)] = (uint8_t)(121 + tu_rand() % 13),
						B.sb[i] = (uint8_t)(121 + tu_rand() % 13);
					for (unsigned side = 0; largest && side < 2; side++) {
						/* codes of 6.0, 7.5 and 127 (A) or -128 (B) */
						enum mxa_isa_dtype t = side ? cbs[c].b : cbs[c].a;
						unsigned code = t == MXA_DTYPE_E2M1 ? 0x7 :
								t == MXA_DTYPE_E2M3 ? 0x1F :
								side ? 0x80 : 0x7F;
						uint8_t *buf = side ? B.b : B.a;
						size_t ld = mxe_dtype_row_bytes(t, 608);

						for (unsigned r = 0; r < (side ? 45u : 40u); r++)
							for (unsigned j = 0; j < 608; j++)
								mxe_row_store_code(t, buf + r * ld, j, code);
					}
					same = same_on_every_path(eng, &d, 40 * 45 * 4, &rc);
					for (int l = 0; l < 2; l++) {
						uint64_t ops0 = mxe_tiled_s8_ops();

						if (has[l]) {
							mxe_engine_set_simd(level[l]);
							rc |= mxe_gemm(eng, &d);
						}
						ran[l] = mxe_tiled_s8_ops() - ops0;
					}
					mxe_engine_set_simd(NULL);
					if (!rc && !accum)
						rc = run_and_compare(eng, &d, &bad);
					/* with VNNI a negated MXINT8 side keeps the float kernels */
					neg8 = ((neg & 1) && cbs[c].a == MXA_DTYPE_MXINT8) ||
					       ((neg & 2) && cbs[c].b == MXA_DTYPE_MXINT8);
					want[0] = has[0];
					want[1] = has[1] && !neg8;
					host_check(!rc && same && !bad && (ran[0] > 0) == want[0] &&
						   (ran[1] > 0) == want[1],
						   "int8 panels: %s %s x %s%s%s%s%s, C %s: portable path's "
						   "bits: %s, bit-exact (EXACT) vs reference (%zu differ), "
						   "on the int8 panels with avx2 / avx512vnni: %s / %s (want "
						   "%s / %s)", accum ? "FAST" : "EXACT",
						   mxe_dtype_name(cbs[c].a), mxe_dtype_name(cbs[c].b),
						   cbs[c].mx ? " (MX)" : "", largest ? ", largest" : "",
						   neg & 1 ? " -A" : "", neg & 2 ? " -B" : "",
						   neg & 1 ? "yes" : "no", same ? "yes" : "NO", bad,
						   ran[0] ? "yes" : "no", ran[1] ? "yes" : "no",
						   !has[0] ? "n/a" : want[0] ? "yes" : "no",
						   !has[1] ? "n/a" : want[1] ? "yes" : "no");
				}
			}
		}
	}
}

/* FAST numerics: within the documented bound; same bits on every SIMD path. */
static void test_fast(struct mxe_engine *eng)
{
	static const struct combo fc[] = {
		{ MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E5M2, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_MXINT8, MXA_DTYPE_MXINT8, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_TF32, MXA_DTYPE_TF32, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_F32, MXA_DTYPE_F32, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_S8, MXA_DTYPE_S8, MXA_DTYPE_S32, 0 },
		{ MXA_DTYPE_S4, MXA_DTYPE_S4, MXA_DTYPE_S32, 0 },
		{ MXA_DTYPE_B1, MXA_DTYPE_B1, MXA_DTYPE_S32, 0 },
	};

	for (size_t i = 0; i < sizeof(fc) / sizeof(fc[0]); i++) {
		unsigned m = 37, n = 45, k = fc[i].a == MXA_DTYPE_B1 ? 1024 : 576;
		struct mxe_gemm_desc d = make_op(&fc[i], m, n, k, 1);
		double worst = 0, bound;
		int rc1, rc2, same;

		d.accum = MXE_ACCUM_FAST;
		same = same_on_every_path(eng, &d, (size_t)m * n * 4, &rc1);
		rc2 = 0;
		tu_ref_gemm(&d, B.r);
		if (fc[i].d == MXA_DTYPE_S32) {
			host_check(!rc1 && !rc2 && same && !tu_diff(&d, B.d, n * 4, B.r),
			       "fast %s: exact, and the same bits on every SIMD path (%s)",
			       mxe_dtype_name(fc[i].a), simd_paths);
			continue;
		}
		/* |D - exact| <= (min(K, KBLOCK) + blocks + 1) u (|C| + sum |a b|) */
		bound = (double)((k < MXE_FAST_KBLOCK ? k : MXE_FAST_KBLOCK) +
				 (k + MXE_FAST_KBLOCK - 1) / MXE_FAST_KBLOCK + 1) * 0x1p-24;
		for (unsigned r = 0; r < m; r++) {
			for (unsigned c = 0; c < n; c++) {
				struct mxe_xacc x;
				double den = fabs(mxe_load_elem(MXA_DTYPE_F32, B.c + r * n * 4, c)), s, e;

				mxe_xacc_init(&x);
				mxe_xacc_add(&x, mxe_load_elem(MXA_DTYPE_F32, B.c + r * n * 4, c));
				for (unsigned kk = 0; kk < k; kk++) {
					double p = tu_a(&d, r, kk) * tu_b(&d, c, kk);

					mxe_xacc_add(&x, p);
					den += fabs(p);
				}
				s = mxe_xacc_round(&x, MXE_XACC_F64);
				e = fabs(((float *)B.d)[r * n + c] - s) / den;
				if (e > worst)
					worst = e;
			}
		}
		host_check(!rc1 && !rc2 && same && worst <= bound,
		       "fast %s x %s: error %.3g <= bound %.3g; SIMD paths %s agree: %s",
		       mxe_dtype_name(fc[i].a), mxe_dtype_name(fc[i].b), worst, bound,
		       simd_paths, same ? "yes" : "NO");
	}
}

/*
 * FAST s8 on whole 6 x 16 kernel blocks with C at the int32 limits: the
 * vector update wraps (or, satfinite, clamps) as the portable one does.
 */
static void test_fast_int_limits(struct mxe_engine *eng)
{
	static const struct combo cb = { MXA_DTYPE_S8, MXA_DTYPE_S8, MXA_DTYPE_S32, 0 };

	for (int sat = 0; sat < 2; sat++) {
		struct mxe_gemm_desc d = make_op(&cb, 12, 64, 96, 1);
		int32_t *c = (int32_t *)B.c, *out = (int32_t *)B.d;
		int same, rc, over = 0, bad;

		for (int i = 0; i < 12 * 64; i++) {
			c[i] = i % 3 == 0 ? INT32_MAX - (int32_t)(tu_rand() % 20000) :
			       i % 3 == 1 ? INT32_MIN + (int32_t)(tu_rand() % 20000) : c[i];
		}
		d.accum = MXE_ACCUM_FAST;
		if (sat)
			d.flags |= MXA_GEMM_F_SATFINITE;
		same = same_on_every_path(eng, &d, 12 * 64 * 4, &rc);
		tu_ref_gemm(&d, B.r);
		bad = tu_diff(&d, B.d, 64 * 4, B.r);
		for (int i = 0; i < 12 * 64; i++)
			over += sat ? out[i] == INT32_MAX || out[i] == INT32_MIN
				    : (i % 3 == 0 && out[i] < 0) || (i % 3 == 1 && out[i] > 0);
		host_check(!rc && same && !bad && over > 100,
		       "fast s8, C at the int32 limits, %s: exact (%d differ), %d outputs %s, SIMD "
		       "paths %s agree: %s", sat ? "satfinite" : "wrapping", bad, over,
		       sat ? "clamped" : "wrapped", simd_paths, same ? "yes" : "NO");
	}
}

/* FP8 with NaN/Inf codes, subnormals and edge scales: same bits on both paths. */
static void test_fast_fp8_specials(struct mxe_engine *eng)
{
	static const enum mxa_isa_dtype t[2] = { MXA_DTYPE_E4M3, MXA_DTYPE_E5M2 };

	for (int x = 0; x < 4; x++) {
		struct combo cb = { t[x & 1], t[x >> 1], MXA_DTYPE_F32, 1 };
		struct mxe_gemm_desc d = make_op(&cb, 33, 35, 128, 1);
		int nan = 0, ok, rc;

		for (size_t i = 0; i < 33 * 128; i++)
			B.a[i] = (uint8_t)(tu_rand() % 97 ? tu_rand() & 0xF7 : tu_rand());	/* NaN/Inf rare */
		for (size_t i = 0; i < 35 * 128; i++)
			B.b[i] = (uint8_t)(tu_rand() % 3 ? tu_rand() & 0x87 : tu_rand() & 0xF7);
		for (size_t i = 0; i < 33 * 4; i++)
			B.sa[i] = (uint8_t)(i % 17 == 0 ? 0 : i % 23 == 0 ? 0xFF : 100 + tu_rand() % 50);
		for (size_t i = 0; i < 35 * 4; i++)
			B.sb[i] = (uint8_t)(i % 19 == 0 ? 0 : 110 + tu_rand() % 30);
		d.accum = MXE_ACCUM_FAST;
		ok = same_on_every_path(eng, &d, 33 * 35 * 4, &rc);
		for (int i = 0; i < 33 * 35; i++)
			nan += isnan(((float *)B.d)[i]);
		host_check(ok && !rc && nan > 0 && nan < 33 * 35,
		       "fast %s x %s with NaN/Inf codes, subnormals, scales 2^-127 and NaN: "
		       "SIMD paths %s agree (%d NaN outputs)", mxe_dtype_name(cb.a),
		       mxe_dtype_name(cb.b), simd_paths, nan);
	}
}

/*
 * FAST on FP4/FP6/MXINT8 MX data: every 32-product chain is exact, so the
 * result must equal, bit for bit, the documented order computed with exact
 * sub-block sums: q = exact(sum of 32), p = p + q, acc = acc + p (f32).
 */
static void test_fast_mx_block_exact(struct mxe_engine *eng)
{
	static const struct combo cbs[] = {
		{ MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E3M2, MXA_DTYPE_E2M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_MXINT8, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
	};

	for (size_t c = 0; c < sizeof(cbs) / sizeof(cbs[0]); c++) {
		unsigned m = 9, n = 11, k = 800 / 32 * 32;
		struct mxe_gemm_desc d = make_op(&cbs[c], m, n, k, 1);
		size_t bad = 0;
		struct mxe_xacc x;

		d.accum = MXE_ACCUM_FAST;
		mxe_gemm(eng, &d);
		mxe_xacc_init(&x);
		for (unsigned i = 0; i < m; i++) {
			for (unsigned j = 0; j < n; j++) {
				float acc = ((float *)B.c)[i * n + j];

				for (unsigned k0 = 0; k0 < k; k0 += MXE_FAST_KBLOCK) {
					float p = 0;

					for (unsigned s0 = k0; s0 < k0 + MXE_FAST_KBLOCK && s0 < k;
					     s0 += MXE_FAST_KSUB) {
						float q;

						mxe_xacc_clear(&x);
						for (unsigned kk = s0; kk < s0 + MXE_FAST_KSUB && kk < k; kk++)
							mxe_xacc_add_prod(&x, tu_a(&d, i, kk), tu_b(&d, j, kk), 0);
						q = (float)mxe_xacc_round(&x, MXE_XACC_F32);
						p = s0 == k0 ? q : p + q;
					}
					acc = acc + p;
				}
				bad += memcmp(&acc, (float *)B.d + i * n + j, 4) != 0;
			}
		}
		host_check(!bad, "fast %s x %s (MX): every 32-product chain is exact (%zu outputs differ "
		       "from the block-exact order)", mxe_dtype_name(cbs[c].a), mxe_dtype_name(cbs[c].b),
		       bad);
	}
}

/* B as K x N through the FAST path (float and int packing) */
static void test_fast_kn(struct mxe_engine *eng)
{
	static const struct combo cbs[] = {
		{ MXA_DTYPE_BF16, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_S8, MXA_DTYPE_S8, MXA_DTYPE_S32, 0 },
	};
	static uint8_t bt[320 * 40], dd[40 * 40 * 4];

	for (size_t c = 0; c < 2; c++) {
		unsigned m = 13, n = 37, k = 320;	/* FP8 MX: K % 64 == 0 */
		struct mxe_gemm_desc d = make_op(&cbs[c], m, n, k, 1), t;
		size_t es = mxe_dtype_bits(cbs[c].b) / 8;

		d.accum = MXE_ACCUM_FAST;
		mxe_gemm(eng, &d);
		memcpy(dd, B.d, m * n * 4);
		for (unsigned j = 0; j < n; j++)
			for (unsigned kk = 0; kk < k; kk++)
				memcpy(bt + (kk * n + j) * es, B.b + (j * k + kk) * es, es);
		t = d;
		t.b = bt;
		t.flags |= MXA_GEMM_F_B_KN;
		memset(B.d, 0, m * n * 4);
		host_check(!mxe_gemm(eng, &t) && !memcmp(B.d, dd, m * n * 4),
		       "fast %s x %s: B as K x N gives the same bits as N x K",
		       mxe_dtype_name(cbs[c].a), mxe_dtype_name(cbs[c].b));
	}
}

/* @n BF16 values 2^(@lo .. @lo + @span - 1) with random fractions and signs, one in
 * 16 zero. */
static void fill_bf16(uint8_t *p, size_t n, int lo, unsigned span)
{
	for (size_t i = 0; i < n; i++) {
		uint16_t v = (uint16_t)((tu_rand() & 0x807F) | (127 + lo + tu_rand() % span) << 7);

		memcpy(p + 2 * i, &v, 2);
		if (tu_rand() % 16 == 0)
			memset(p + 2 * i, 0, 2);
	}
}

/* Run @d on every path: the same bits everywhere (the interwave policy's too), and on
 * BF16 pairs at the default level when @want (with AVX512-BF16); 1 when all hold. */
static int bf16_case(struct mxe_engine *eng, struct mxe_gemm_desc *d, int want, int *ran)
{
	static uint8_t intra[16384];
	size_t bytes = (size_t)d->m * d->n * 4;
	uint64_t o0;
	int rc, same;

	same = same_on_every_path(eng, d, bytes, &rc);
	memcpy(intra, d->d, bytes);
	o0 = mxe_tiled_bf16_ops();
	d->sched = MXE_SCHED_INTERWAVE;
	rc |= mxe_gemm(eng, d);
	d->sched = MXE_SCHED_INTRAWAVE;
	same &= !memcmp(intra, d->d, bytes);
	rc |= mxe_gemm(eng, d);
	*ran = mxe_tiled_bf16_ops() - o0 == 2;
	return !rc && same && *ran == (want && !strcmp(mxe_engine_simd(), "avx512bf16"));
}

/*
 * FAST on BF16 pairs (AVX512-BF16, mxe_kern_bf16x2_avx512()) gives the float kernels'
 * bits: BF16, E4M3 and E5M2 with C, an odd number of B panels (the last one alone),
 * K not a multiple of the 256-k block, negated sides, B as K x N, NaN and Inf elements.
 * Operations where vdpbf16ps would flush a subnormal stay on the float kernels: a
 * subnormal BF16 element (against elements of 2^15, so that the grid would do), or a
 * product grid of 2^-127 (a1 b1 - a2 b2 = 2^-127 exactly: 129 2^-63 x 129 2^-64 -
 * 2^-56 x 130 2^-64), where 2^-126 takes the pairs; an E4M3 scale that puts an element
 * at 2^-127 (against 2^-126).
 */
static void test_fast_bf16_pairs(struct mxe_engine *eng)
{
	static const struct combo cbs[] = {
		{ MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E5M2, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F32, 0 },
	};
	static uint8_t bt[576 * 45 * 2];
	int ran, ok;

	for (size_t c = 0; c < sizeof(cbs) / sizeof(cbs[0]); c++) {
		for (int v = 0; v < 3; v++) {	/* plain; negated, NaN and Inf; B as K x N */
			unsigned m = 37, n = 45, k = 576;
			struct mxe_gemm_desc d = make_op(&cbs[c], m, n, k, 1);
			size_t es = mxe_dtype_bits(cbs[c].b) / 8;

			d.accum = MXE_ACCUM_FAST;
			if (cbs[c].a == MXA_DTYPE_BF16)
				fill_bf16(B.a, (size_t)m * k, -8, 17);
			if (cbs[c].b == MXA_DTYPE_BF16)
				fill_bf16(B.b, (size_t)n * k, -8, 17);
			if (cbs[c].mx) {
				fill_scales(B.sa, (size_t)m * k / 32, 120, 14);
				fill_scales(B.sb, (size_t)n * k / 32, 120, 14);
			}
			if (cbs[c].a == MXA_DTYPE_E4M3 || cbs[c].a == MXA_DTYPE_E5M2)
				fp8_finite(B.a, (size_t)m * k, cbs[c].a);
			fp8_finite(B.b, (size_t)n * k, cbs[c].b);
			if (v == 1) {
				d.flags |= MXE_GEMM_NEGATE_A | MXE_GEMM_NEGATE_B;
				if (cbs[c].a == MXA_DTYPE_BF16) {
					memcpy(B.a + 2 * (3 * k + 5), &(uint16_t){ 0x7FC1 }, 2);
					memcpy(B.a + 2 * (4 * k + 300), &(uint16_t){ 0xFF80 }, 2);
				} else {	/* E4M3 NaN; E5M2 NaN and -Inf */
					B.a[3 * k + 5] = cbs[c].a == MXA_DTYPE_E4M3 ? 0x7F : 0x7E;
					B.a[4 * k + 300] = cbs[c].a == MXA_DTYPE_E4M3 ? 0xFF : 0xFC;
				}
				if (cbs[c].b == MXA_DTYPE_E4M3)
					B.b[9 * k + 70] = 0xFF;
			}
			if (v == 2) {
				for (unsigned j = 0; j < n; j++)
					for (unsigned kk = 0; kk < k; kk++)
						memcpy(bt + (kk * n + j) * es, B.b + (j * k + kk) * es, es);
				d.b = bt;
				d.flags |= MXA_GEMM_F_B_KN;
			}
			ok = bf16_case(eng, &d, cbs[c].a != MXA_DTYPE_F16, &ran);
			host_check(ok, "fast %s x %s (%s): on BF16 pairs: %s; the same bits on every SIMD "
				   "path (%s)", mxe_dtype_name(cbs[c].a), mxe_dtype_name(cbs[c].b),
				   v == 1 ? "negated, NaN and Inf" : v == 2 ? "B as K x N" : "with C",
				   ran ? "yes" : "no", simd_paths);
		}
	}
	for (int g = 0; g < 3; g++) {	/* a subnormal; grids 2^-127 and 2^-126 */
		static const struct combo bf = { MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 0 };
		unsigned m = 8, n = 40, k = 64;
		struct mxe_gemm_desc d = make_op(&bf, m, n, k, 0);

		d.accum = MXE_ACCUM_FAST;
		fill_bf16(B.a, (size_t)m * k, -8, 17);
		fill_bf16(B.b, (size_t)n * k, -8, 17);
		if (g == 0) {	/* 2^-133 against A's 2^15 .. 2^16: products above 2^-118 */
			fill_bf16(B.a, (size_t)m * k, 15, 2);
			memcpy(B.b + 2 * (7 * k + 33), &(uint16_t){ 0x0001 }, 2);
		} else {
			/* row 0 of A: 129 2^-63, -2^-56; column 0 of B: 129 2^-64, 130 2^-64
			 * (g 2: twice that), every other element at least 2^-8 */
			memcpy(B.a, &(uint16_t){ 0x2381 }, 2);
			memcpy(B.a + 2, &(uint16_t){ 0xA380 }, 2);
			memcpy(B.b, &(uint16_t){ g == 1 ? 0x2301 : 0x2381 }, 2);
			memcpy(B.b + 2, &(uint16_t){ g == 1 ? 0x2302 : 0x2382 }, 2);
			memset(B.a + 4, 0, 2 * (k - 2));
			memset(B.b + 4, 0, 2 * (k - 2));
		}
		ok = bf16_case(eng, &d, g == 2, &ran);
		host_check(ok && (g != 1 || ((const float *)B.d)[0] == 0x1p-127f),
			   "fast bf16: %s: on BF16 pairs: %s, the same bits on every SIMD path",
			   g == 0 ? "a subnormal element" : g == 1 ? "a product grid of 2^-127 "
			   "(D = 2^-127)" : "a product grid of 2^-126", ran ? "yes" : "no");
	}
	for (int x = 9; x <= 10; x++) {	/* E4M3's least element 2^-9 at scale 2^(x - 127) */
		static const struct combo e4 = { MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1 };
		unsigned m = 40, n = 40, k = 64;	/* not a GEMV: more than 32 rows */
		struct mxe_gemm_desc d = make_op(&e4, m, n, k, 0);

		d.accum = MXE_ACCUM_FAST;
		fp8_finite(B.a, (size_t)m * k, MXA_DTYPE_E4M3);
		fp8_finite(B.b, (size_t)n * k, MXA_DTYPE_E4M3);
		fill_scales(B.sa, (size_t)m * k / 32, 136, 3);
		fill_scales(B.sb, (size_t)n * k / 32, 137, 3);
		B.sa[5] = (uint8_t)x;	/* A's least scale; B's elements all 2^1 or more */
		B.a[2 * k + 32] = 0x01;	/* row 2, block 1: E4M3's least element */
		ok = bf16_case(eng, &d, x == 10, &ran);
		host_check(ok, "fast e4m3: scale 2^%d (least element 2^%d): on BF16 pairs: %s, the "
			   "same bits on every SIMD path", x - 127, x - 136, ran ? "yes" : "no");
	}
}

/*
 * TF32 at full f32 (MXE_TF32_IN_FULL, the GEMM command's default): EXACT is the exact sum
 * of the unrounded inputs (the reference's), which rounding them (RNE) changes; FAST gives
 * the F32 type's bits.
 */
static void test_tf32_full(struct mxe_engine *eng)
{
	static const struct combo tf32 = { MXA_DTYPE_TF32, MXA_DTYPE_TF32, MXA_DTYPE_F32, 0 };
	static uint8_t rne[16384], f32[16384];
	struct mxe_gemm_desc d = make_op(&tf32, 7, 9, 160, 1), e;
	size_t bad = 1, bytes = 7 * 9 * 4;
	int rc;

	d.tf32_input = MXE_TF32_IN_FULL;
	rc = run_and_compare(eng, &d, &bad);
	e = d;
	e.tf32_input = MXE_TF32_IN_RNE;
	e.d = rne;
	mxe_gemm(eng, &e);
	host_check(!rc && !bad && memcmp(B.d, rne, bytes),
		   "TF32 at full f32: EXACT is the exact sum of the unrounded inputs (%zu differ), "
		   "not the rounded ones'", bad);
	d.accum = e.accum = MXE_ACCUM_FAST;
	e.type_a = e.type_b = MXA_DTYPE_F32;
	e.d = f32;
	rc = mxe_gemm(eng, &d) || mxe_gemm(eng, &e);
	host_check(!rc && !memcmp(B.d, f32, bytes), "TF32 at full f32: FAST gives F32's bits");
}

int main(void)
{
	struct mxe_engine *eng = mxe_engine_create(2);

	ksft_print_header();
	for (unsigned l = 0; mxe_engine_simd_name(l); l++)
		if (!mxe_engine_set_simd(mxe_engine_simd_name(l)))
			snprintf(simd_paths + strlen(simd_paths),
				 sizeof(simd_paths) - strlen(simd_paths), "%s%s", l ? "/" : "",
				 mxe_engine_simd_name(l));
	mxe_engine_set_simd(NULL);
	host_diag("SIMD paths: %s; by default: %s", simd_paths, mxe_engine_simd());
	test_combos(eng);
	test_int_overflow(eng);
	test_b1(eng);
	test_layouts(eng);
	test_a_km(eng);
	test_specials(eng);
	test_f32_ties(eng);
	test_errors(eng);
	test_exact_beyond_double(eng);
	test_exact_mx_blocks(eng);
	test_exact_tiled_blocks(eng);
	test_exact_tiled_d64(eng);
	test_exact_tiled_w16(eng);
	test_exact_w16_super_chunks(eng);
	test_exact_wgmma_finish(eng);
	test_s8_panels(eng);
	test_fast(eng);
	test_fast_fp8_specials(eng);
	test_fast_int_limits(eng);
	test_fast_mx_block_exact(eng);
	test_fast_kn(eng);
	test_fast_bf16_pairs(eng);
	test_tf32_full(eng);
	mxe_engine_destroy(eng);
	return host_check_end();
}
