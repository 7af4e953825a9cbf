// SPDX-License-Identifier: MIT
/*
 * test-engine-ops - the instruction-level entry points: TMATMULMX and
 * TMATMULMX.ACC (seed 004), the Ampere mma.sync shapes (seed 001) and the
 * Hopper wgmma shapes (seed 003): accepted shapes give the reference bits,
 * everything else is rejected with the right error.
 */
#include <stdio.h>

#include "host_check.h"
#include "mxe_gemm.h"
#include "test-engine-util.h"

static uint8_t A[64 * 1024], Bm[256 * 1024], C[300 * 1024], D[300 * 1024], R[300 * 1024];
static uint8_t SA[4096], SB[4096];

static struct mxe_gemm_desc op(enum mxa_isa_dtype ta, enum mxa_isa_dtype tb, enum mxa_isa_dtype td,
			       unsigned m, unsigned n, unsigned k, int acc, int scales)
{
	struct mxe_gemm_desc d;

	memset(&d, 0, sizeof(d));
	d.m = m, d.n = n, d.k = k;
	d.type_a = ta, d.type_b = tb, d.type_c = td, d.type_d = td;
	d.a = A, d.b = Bm, d.d = D;
	tu_fill(ta, A, m, k, mxe_dtype_row_bytes(ta, k));
	tu_fill(tb, Bm, n, k, mxe_dtype_row_bytes(tb, k));
	if (acc) {
		d.flags = MXA_GEMM_F_ACCUMULATE;
		d.c = C;
		tu_fill(td, C, m, n, mxe_dtype_row_bytes(td, n));
	}
	if (scales) {
		d.scale_block = 32;
		d.scale_a = SA, d.scale_b = SB;
		tu_fill(MXA_DTYPE_E8M0, SA, m, k / 32, k / 32);
		tu_fill(MXA_DTYPE_E8M0, SB, n, k / 32, k / 32);
	}
	return d;
}

static int check(int rc, struct mxe_gemm_desc *d)
{
	struct mxe_gemm_desc r = *d;

	if (rc)
		return 0;
	r.k_chunk = 0;
	tu_ref_gemm(&r, R);
	return tu_diff(d, D, mxe_dtype_row_bytes(d->type_d, d->n), R) == 0;
}

struct shape {
	enum mxa_isa_dtype t, td;
	unsigned m, n, k;
	unsigned flags;
};

static void test_mma(struct mxe_engine *eng)
{
	static const struct shape s[] = {	/* seed 001 (CUTLASS on Ampere) */
		{ MXA_DTYPE_TF32, MXA_DTYPE_F32, 16, 8, 4, 0 },
		{ MXA_DTYPE_TF32, MXA_DTYPE_F32, 16, 8, 8, 0 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 16, 8, 8, 0 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 16, 8, 16, 0 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F32, 16, 8, 16, 0 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F16, 16, 8, 16, 0 },
		{ MXA_DTYPE_F64, MXA_DTYPE_F64, 8, 8, 4, 0 },
		{ MXA_DTYPE_S8, MXA_DTYPE_S32, 16, 8, 16, 0 },
		{ MXA_DTYPE_S8, MXA_DTYPE_S32, 16, 8, 32, 0 },
		{ MXA_DTYPE_S8, MXA_DTYPE_S32, 16, 8, 16, MXA_GEMM_F_SATFINITE },
		{ MXA_DTYPE_S8, MXA_DTYPE_S32, 16, 8, 32, MXA_GEMM_F_SATFINITE },
		{ MXA_DTYPE_S4, MXA_DTYPE_S32, 16, 8, 64, 0 },
		{ MXA_DTYPE_S4, MXA_DTYPE_S32, 16, 8, 64, MXA_GEMM_F_SATFINITE },
		{ MXA_DTYPE_B1, MXA_DTYPE_S32, 16, 8, 256, 0 },
		{ MXA_DTYPE_B1, MXA_DTYPE_S32, 16, 8, 256, MXE_GEMM_B1_XOR },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_F32, 16, 8, 32, 0 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F32, 16, 16, 16, 0 },	/* wmma */
		{ MXA_DTYPE_F64, MXA_DTYPE_F64, 16, 8, 16, 0 },	/* sm_90 */
	};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		int ok = 1;

		for (int acc = 0; acc < 2; acc++) {
			struct mxe_gemm_desc d = op(s[i].t, s[i].t, s[i].td, s[i].m, s[i].n, s[i].k, acc, 0);

			d.flags |= s[i].flags;
			ok &= check(mxe_mma(eng, &d), &d);
		}
		host_check(ok, "mma %s.%s m%un%uk%u%s%s: D = C + A*B bit-exact (with and without C)",
		       mxe_dtype_name(s[i].td), mxe_dtype_name(s[i].t), s[i].m, s[i].n, s[i].k,
		       s[i].flags & MXA_GEMM_F_SATFINITE ? ".satfinite" : "",
		       s[i].t == MXA_DTYPE_B1 ? (s[i].flags & MXE_GEMM_B1_XOR ? ".xor.popc" : ".and.popc") : "");
	}
	{
		struct mxe_gemm_desc d = op(MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 16, 8, 4, 0, 0);
		int r1 = mxe_mma(eng, &d), r2, r3, r4;

		d = op(MXA_DTYPE_TF32, MXA_DTYPE_TF32, MXA_DTYPE_F16, 16, 8, 8, 0, 0);
		r2 = mxe_mma(eng, &d);
		d = op(MXA_DTYPE_F16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 16, 8, 16, 0, 0);
		r3 = mxe_mma(eng, &d);
		d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 16, 8, 64, 0, 1);
		r4 = mxe_mma(eng, &d);
		host_check(r1 == MXE_ENGINE_EINVAL_SHAPE && r2 == MXE_ENGINE_EINVAL_SHAPE &&
		       r3 == MXE_ENGINE_EINVAL_DTYPE && r4 == MXE_ENGINE_EINVAL_SCALE,
		       "mma rejects bf16 m16n8k4, tf32 with f16 D, mixed f16/bf16, scales");
	}
	{
		/* One rounding of C + the whole chunk: rounding the chunk first
		 * (2^-24 + 2^-50 -> 2^-24) and then adding C = 1 would tie to 1. */
		struct mxe_gemm_desc d = op(MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 16, 8, 8, 1, 0);
		uint16_t *a = (uint16_t *)A, *b = (uint16_t *)Bm;
		float *c = (float *)C, *out = (float *)D;

		memset(A, 0, 16 * 8 * 2);
		memset(Bm, 0, 8 * 8 * 2);
		a[0] = 0x3380;	/* 2^-24 */
		a[1] = 0x3300;	/* 2^-25 */
		b[0] = 0x3F80;	/* 1 */
		b[1] = 0x3300;	/* 2^-25 */
		c[0] = 1.0f;
		mxe_mma(eng, &d);
		host_check(out[0] == 1.0f + 0x1p-23f,
		       "mma bf16: C + chunk rounded once (1 + 2^-24 + 2^-50 -> 1 + 2^-23)");
	}
}

static void test_wgmma(struct mxe_engine *eng)
{
	static const struct shape s[] = {
		{ MXA_DTYPE_F16, MXA_DTYPE_F32, 64, 8, 16, 0 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F16, 64, 128, 16, 0 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 64, 256, 16, 0 },
		{ MXA_DTYPE_TF32, MXA_DTYPE_F32, 64, 64, 8, 0 },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_F32, 64, 200, 32, 0 },
		{ MXA_DTYPE_E5M2, MXA_DTYPE_F16, 64, 24, 32, 0 },
		{ MXA_DTYPE_S8, MXA_DTYPE_S32, 64, 48, 32, 0 },
		{ MXA_DTYPE_S8, MXA_DTYPE_S32, 64, 256, 32, MXA_GEMM_F_SATFINITE },
		{ MXA_DTYPE_B1, MXA_DTYPE_S32, 64, 16, 256, 0 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_F32, 64, 64, 16, MXE_GEMM_NEGATE_A },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_F32, 64, 32, 32, MXE_GEMM_NEGATE_A | MXE_GEMM_NEGATE_B },
	};
	int ok = 1, nok = 0;

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		for (int acc = 0; acc < 2; acc++) {
			struct mxe_gemm_desc d = op(s[i].t, s[i].t, s[i].td, s[i].m, s[i].n, s[i].k, acc, 0);

			d.flags |= s[i].flags;
			ok = check(mxe_wgmma(eng, &d), &d);
			host_check(ok, "wgmma m%un%uk%u %s.%s%s%s scale-d=%d: bit-exact", s[i].m, s[i].n,
			       s[i].k, mxe_dtype_name(s[i].td), mxe_dtype_name(s[i].t),
			       s[i].flags & MXE_GEMM_NEGATE_A ? " -A" : "",
			       s[i].flags & MXE_GEMM_NEGATE_B ? " -B" : "", acc);
		}
	}
	/* N = 8..256 step 8 for f16; s8 only 8, 16, 24, 32, then multiples of 16 */
	for (unsigned n = 8; n <= 264; n += 8) {
		struct mxe_gemm_desc d = op(MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F32, 64, n, 16, 0, 0);
		int want = n <= 256 ? 0 : MXE_ENGINE_EINVAL_SHAPE;

		nok += mxe_wgmma(eng, &d) == want;
		d = op(MXA_DTYPE_S8, MXA_DTYPE_S8, MXA_DTYPE_S32, 64, n, 32, 0, 0);
		want = n <= 256 && (n <= 32 || n % 16 == 0) ? 0 : MXE_ENGINE_EINVAL_SHAPE;
		nok += mxe_wgmma(eng, &d) == want;
	}
	host_check(nok == 2 * 33, "wgmma N: 8..256 step 8 (s8: 8, 16, 24, 32, then step 16); %d/66", nok);
	{
		struct mxe_gemm_desc d = op(MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F32, 64, 64, 32, 0, 0);
		int r1 = mxe_wgmma(eng, &d), r2, r3, r4, r5;

		d = op(MXA_DTYPE_TF32, MXA_DTYPE_TF32, MXA_DTYPE_F32, 128, 64, 8, 0, 0);
		r2 = mxe_wgmma(eng, &d);
		d = op(MXA_DTYPE_B1, MXA_DTYPE_B1, MXA_DTYPE_S32, 64, 64, 256, 0, 0);
		d.flags |= MXE_GEMM_B1_XOR;
		r3 = mxe_wgmma(eng, &d);
		d = op(MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F16, 64, 64, 16, 0, 0);
		r4 = mxe_wgmma(eng, &d);
		d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_F32, 64, 64, 32, 0, 0);
		r5 = mxe_wgmma(eng, &d);
		host_check(r1 == MXE_ENGINE_EINVAL_SHAPE && r2 == MXE_ENGINE_EINVAL_SHAPE &&
		       r3 == MXE_ENGINE_EINVAL_DTYPE && r4 == MXE_ENGINE_EINVAL_DTYPE && r5 == 0,
		       "wgmma: K must be 32 bytes, M 64; b1 is .and only; bf16 has no f16 D; e4m3 x e5m2 ok");
	}
}

/*
 * D as mxe_wgmma() left it, against mxe_gemm()'s EXACT path on the same operation
 * (*@same; return codes into *@rc), against mxe_wgmma() capped at AVX2, where the
 * double-sum path runs its AVX2 functions when it ran (@ran) and the CPU has AVX2, and
 * capped at portable code, where it does not run (@ops: WGMMAs it ran so far).
 */
static int wgmma_paths_agree(struct mxe_engine *eng, struct mxe_gemm_desc *d, uint64_t ops,
			     int ran, int *rc, int *same)
{
	static uint8_t ref[64 * 256 * 4];
	size_t bytes = 64 * (size_t)d->n * 4;
	int capped, avx2;

	memcpy(ref, D, bytes);
	d->accum = MXE_ACCUM_EXACT;	/* the tiled / general path */
	*rc |= mxe_gemm(eng, d);
	*same = !memcmp(ref, D, bytes);
	avx2 = !mxe_engine_set_simd("avx2");
	memset(D, 0xA5, bytes);
	capped = mxe_wgmma(eng, d) == 0 && !memcmp(ref, D, bytes) &&
		 mxe_wgmma_exact_ops() == ops + (uint64_t)(avx2 && ran);
	ops = mxe_wgmma_exact_ops();
	mxe_engine_set_simd("portable");
	memset(D, 0xA5, bytes);
	capped &= mxe_wgmma(eng, d) == 0 && !memcmp(ref, D, bytes) && mxe_wgmma_exact_ops() == ops;
	mxe_engine_set_simd(NULL);
	return capped;
}

/*
 * A WGMMA's outputs that one conversion cannot round, in C (@n columns) and in A and B
 * (rows @lda bytes apart): C Inf, NaN, FLT_MAX; row 5 of A and column 3 of B 1.0, with C
 * = -1 (an exact zero); row 6 and column 4 8.0 and 2^-9, with C = 2^-80 deciding the
 * midpoint 64 + 2^-18; row 8 of A -0 with C -0 (D -0 in column 3, +0 where B has a
 * negative value).
 */
static void wgmma_specials(unsigned n, unsigned lda)
{
	float *c = (float *)C;

	c[0] = INFINITY, c[1] = NAN, c[2] = 0x1.fffffep127f;
	memset(A + 5 * lda, 0, 2 * lda);		/* row 5: 1.0 */
	A[5 * lda] = 0x38;				/* row 6: 8, 2^-9 */
	A[6 * lda] = 0x50, A[6 * lda + 1] = 0x01;
	memset(Bm + 3 * lda, 0, 2 * lda);		/* col 3: 1.0 */
	Bm[3 * lda] = 0x38;				/* col 4: 8, 2^-9 */
	Bm[4 * lda] = 0x50, Bm[4 * lda + 1] = 0x01;
	c[5 * n + 3] = -1.0f;				/* 1 - 1 = 0 */
	c[6 * n + 4] = 0x1p-80f;			/* 64 + 2^-18 + 2^-80 */
	memset(A + 8 * lda, 0x80, 32);			/* row 8: -0, C -0: */
	for (unsigned j = 0; j < n; j++)		/* -0 x (1, +0 ...) - 0 = -0 */
		c[8 * n + j] = -0.0f;
}

/*
 * EXACT E4M3 WGMMAs in double sums (AVX-512 hosts): the same bits as the reference and
 * as mxe_gemm()'s EXACT, at N 8, 40 (narrow column blocks) and 256, with and without C,
 * negated sides, padded rows, an E4M3 NaN code, and C values that one conversion cannot
 * round: Inf, NaN, FLT_MAX, -sum (an exact zero), and +-2^-80 that decides the midpoint
 * 64 + 2^-18, and a NaN code in B (0xFF). On an AVX2 host, and capped at AVX2, the path
 * runs its AVX2 functions, capped at portable code it does not run; the bits stay.
 */
static void test_wgmma_exact_e4m3(struct mxe_engine *eng)
{
	static const unsigned ns[] = { 8, 40, 256 };
	int here = !mxe_engine_set_simd("avx2");	/* the path runs on AVX2 and up */

	mxe_engine_set_simd(NULL);
	for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
		for (int v = 0; v < 4; v++) {	/* v: C, negations, padded rows, specials */
			unsigned n = ns[t], lda = v >= 2 ? 48 : 32;
			struct mxe_gemm_desc d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 64, n,
						    32, v > 0, 0);
			uint64_t ops0 = mxe_wgmma_exact_ops(), ops1;
			int rc, same, capped, good;

			if (v >= 2) {	/* rows 48 bytes apart: the codes move, the pad is junk */
				for (int r = 63; r >= 0; r--)
					memmove(A + r * lda, A + r * 32, 32), memset(A + r * lda + 32, 0x7F, 16);
				for (int r = (int)n - 1; r >= 0; r--)
					memmove(Bm + r * lda, Bm + r * 32, 32), memset(Bm + r * lda + 32, 0x7F, 16);
				d.lda = d.ldb = lda;
			}
			for (unsigned i = 0; i < 64; i++)	/* no NaN codes but one */
				for (unsigned k = 0; k < 32; k++)
					if ((A[i * lda + k] & 0x7F) == 0x7F)
						A[i * lda + k] ^= 1;
			for (unsigned j = 0; j < n; j++)
				for (unsigned k = 0; k < 32; k++)
					if ((Bm[j * lda + k] & 0x7F) == 0x7F)
						Bm[j * lda + k] ^= 1;
			if (v == 1)
				d.flags |= MXE_GEMM_NEGATE_A | MXE_GEMM_NEGATE_B;
			if (v == 3) {
				A[7 * lda + 5] = 0x7F;				/* row 7: NaN */
				wgmma_specials(n, lda);
				Bm[(n - 1) * lda + 2] = 0xFF;			/* last col: -NaN */
			}
			rc = mxe_wgmma(eng, &d);
			ops1 = mxe_wgmma_exact_ops();
			good = check(rc, &d) && (v != 3 || (((float *)D)[6 * n + 4] == 64.0f + 0x1p-17f &&
							    signbit(((float *)D)[8 * n + 3]) &&
							    isnan(((float *)D)[7 * n]) &&
							    isnan(((float *)D)[n - 1]) &&
							    isnan(((float *)D)[63 * n + n - 1])));
			capped = wgmma_paths_agree(eng, &d, ops1, ops1 != ops0, &rc, &same);
			host_check(!rc && good && same && capped && ops1 - ops0 == (uint64_t)here,
				   "wgmma m64n%uk32 f32.e4m3%s in double sums: bit-exact vs reference and "
				   "mxe_gemm(): %s, %s; ran %s", n,
				   v == 0 ? "" : v == 1 ? " C, -A -B" : v == 2 ? " C, rows 48 apart" :
				   " C Inf/NaN/FLT_MAX/-sum/midpoint, NaN codes",
				   good ? "yes" : "NO", same ? "yes" : "NO",
				   ops1 - ops0 ? "on the double path" : "elsewhere (no AVX2)");
		}
	}
}

/*
 * EXACT E4M3 WGMMAs on int16 windows (AVX512-VNNI and AVX2 hosts): rows of bench-gemm
 * pipeline's codes (0.5 ... 3.75, values a few bits apart) take them, with the bits of
 * the reference, of mxe_gemm()'s EXACT, of the double sums (capped at AVX-512 without
 * VNNI) and of the AVX2 windows (capped at AVX2), at N 8, 40 and 256, with and without
 * C, negated sides, rows 48 bytes apart, and C values that one conversion cannot round
 * (Inf, NaN, FLT_MAX, -sum, and +-2^-80 that decides the midpoint 64 + 2^-18 of 8.0 and
 * 2^-9, 12 bits apart). A row of 16.0 and 2^-9 (13 bits apart) or a NaN code sends the
 * WGMMA to the double sums.
 */
static void test_wgmma_exact_w16(struct mxe_engine *eng)
{
	static const unsigned ns[] = { 8, 40, 256 };
	int vnni = !mxe_engine_set_simd("avx512vnni"), w512 = !mxe_engine_set_simd("avx512");
	int avx2 = !mxe_engine_set_simd("avx2");

	mxe_engine_set_simd(NULL);
	for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
		for (int v = 0; v < 6; v++) {	/* C, negations, padded rows, specials, misfits */
			unsigned n = ns[t], lda = v == 2 ? 48 : 32;
			struct mxe_gemm_desc d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 64, n,
						    32, v > 0, 0);
			uint64_t w0 = mxe_wgmma_exact_w16(), w1;
			/* the windows: with VNNI, or on AVX2 without AVX-512 (a Zen 3) */
			int rc, same, good, capped = 1, want = (vnni || (avx2 && !w512)) && v < 4, on2 = 1;

			for (unsigned i = 0; i < 64 * lda; i++)
				A[i] = (uint8_t)(0x30 + (i * 2654435761u >> 13) % 0x18) | (i & 0x80);
			for (unsigned i = 0; i < n * lda; i++)
				Bm[i] = (uint8_t)(0x30 + (i * 40503u >> 7) % 0x18) | (i * 7 & 0x80);
			d.lda = d.ldb = lda;
			if (v == 1)
				d.flags |= MXE_GEMM_NEGATE_A | MXE_GEMM_NEGATE_B;
			if (v == 3) {
				wgmma_specials(n, lda);
			}
			if (v == 4) {	/* row 9: 16.0 and 2^-9, 13 bits apart */
				A[9 * lda] = 0x58;
				A[9 * lda + 1] = 0x01;
			}
			if (v == 5)
				Bm[2 * lda + 7] = 0xFF;				/* NaN */
			rc = mxe_wgmma(eng, &d);
			w1 = mxe_wgmma_exact_w16();
			good = check(rc, &d) && (v != 3 || (((float *)D)[6 * n + 4] == 64.0f + 0x1p-17f &&
							    signbit(((float *)D)[8 * n + 3])));
			same = 1;
			if (w512) {	/* the double sums, capped at AVX-512 without VNNI */
				static uint8_t ref[64 * 256 * 4];

				memcpy(ref, D, 64 * (size_t)n * 4);
				mxe_engine_set_simd("avx512");
				memset(D, 0xA5, 64 * (size_t)n * 4);
				capped = mxe_wgmma(eng, &d) == 0 && !memcmp(ref, D, 64 * (size_t)n * 4) &&
					 mxe_wgmma_exact_w16() == w1;
				mxe_engine_set_simd(NULL);
				d.accum = MXE_ACCUM_EXACT;
				rc |= mxe_gemm(eng, &d);
				same = !memcmp(ref, D, 64 * (size_t)n * 4);
			}
			if (avx2) {	/* the AVX2 windows: D as the reference's */
				static uint8_t ref[64 * 256 * 4];
				uint64_t w2;

				memcpy(ref, D, 64 * (size_t)n * 4);
				mxe_engine_set_simd("avx2");
				d.accum = MXE_ACCUM_EXACT;
				memset(D, 0xA5, 64 * (size_t)n * 4);
				w2 = mxe_wgmma_exact_w16();
				on2 = mxe_wgmma(eng, &d) == 0 && !memcmp(ref, D, 64 * (size_t)n * 4) &&
				      mxe_wgmma_exact_w16() - w2 == (uint64_t)(v < 4);
				mxe_engine_set_simd(NULL);
			}
			host_check(!rc && good && same && capped && on2 && w1 - w0 == (uint64_t)want,
				   "wgmma m64n%uk32 f32.e4m3%s on int16 windows: bit-exact vs reference: "
				   "%s, the double sums and mxe_gemm(): %s; ran there: %s (want %s); "
				   "capped at AVX2, the same D, on its windows where they fit: %s", n,
				   v == 0 ? "" : v == 1 ? " C, -A -B" : v == 2 ? " C, rows 48 apart" :
				   v == 3 ? " C Inf/NaN/FLT_MAX/-sum/midpoint" :
				   v == 4 ? " C, a row 13 bits wide" : " C, a NaN code",
				   good ? "yes" : "NO", same && capped ? "yes" : "NO",
				   w1 - w0 ? "yes" : "no", want ? "yes" : "no",
				   avx2 ? (on2 ? "yes" : "NO") : "(no AVX2)");
		}
	}
}

/*
 * The int16 windows' edge: a row fits when its leading bit and its lowest set bit lie
 * at most 12 apart. Row 10 of A holds 0x7E (14 x 2^14 over 2^-9: leading bit 17) and
 * one code whose lowest bit is 5 (fits) or 4 (13 apart: does not), for each significand
 * m of a normal code (lowest bit e - 1 + ctz(8 + m)), and a subnormal 2^-9 (bit 0)
 * beside 8.0 (bit 12, fits) or 16.0 (13, does not).
 * The bits are the reference's either way; the windows run exactly where the row fits
 * (on hosts that have them: with VNNI, or AVX2 without AVX-512).
 */
static void test_wgmma_w16_edges(struct mxe_engine *eng)
{
	int vnni = !mxe_engine_set_simd("avx512vnni"), w512 = !mxe_engine_set_simd("avx512");
	int avx2 = !mxe_engine_set_simd("avx2"), on = vnni || (avx2 && !w512);
	unsigned bad = 0, cases = 0;

	mxe_engine_set_simd(NULL);
	for (unsigned m = 0; m <= 8; m++) {
		for (unsigned low = 4; low <= 5; low++) {
			struct mxe_gemm_desc d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 64, 40,
						    32, 1, 0);
			unsigned tz = (8 + m) & 1 ? 0 : (8 + m) & 2 ? 1 : (8 + m) & 4 ? 2 : 3;
			uint64_t w0;
			int fits = low == 5, ok;

			for (unsigned i = 0; i < 64 * 32; i++)
				A[i] = (uint8_t)(0x30 + (i * 2654435761u >> 13) % 0x18) | (i & 0x80);
			for (unsigned i = 0; i < 40 * 32; i++)
				Bm[i] = (uint8_t)(0x30 + (i * 40503u >> 7) % 0x18) | (i * 7 & 0x80);
			memset(A + 10 * 32, 0, 32);
			if (m < 8) {	/* 0x7E and (e, m): e - 1 + tz = low */
				A[10 * 32] = 0x7E;
				A[10 * 32 + 3] = (uint8_t)(0x80 | (low + 1 - tz) << 3 | m);
			} else {	/* 2^-9 beside 8.0 (fits) or 16.0 */
				A[10 * 32] = fits ? 0x50 : 0x58;
				A[10 * 32 + 3] = 0x81;
			}
			w0 = mxe_wgmma_exact_w16();
			ok = check(mxe_wgmma(eng, &d), &d) &&
			     mxe_wgmma_exact_w16() - w0 == (uint64_t)(on && fits);
			bad += !ok;
			cases++;
		}
	}
	host_check(!bad, "wgmma f32.e4m3 int16 windows at their edge (a row's bits 12 apart fit, "
		   "13 apart do not; every significand, and a subnormal): %u of %u cases right",
		   cases - bad, cases);
}

/*
 * A C below the exact-addition window must not take it: every output of A's rows and
 * B's columns [8.0, 2^-9, 0 ...] is the f32 midpoint 64 + 2^-18, and C a subnormal
 * whose few bits (2^-149, 3 x 2^-149, -2^-149, 2^-140) or a small normal (2^-126)
 * decide its rounding; the double addition would lose them. The reference's D on
 * every SIMD level the host has (until session 55 the window let subnormal C with
 * few mantissa bits in: 64 instead of 64 + 2^-17).
 */
static void test_wgmma_exact_tiny_c(struct mxe_engine *eng)
{
	static const float cs[] = { 0x1p-149f, 3 * 0x1p-149f, -0x1p-149f, 0x1p-140f, 0x1p-126f };
	static const char *const levels[] = { NULL, "avx512", "avx2" };
	unsigned bad = 0, cases = 0;

	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		if (levels[l] && mxe_engine_set_simd(levels[l]))
			continue;	/* not on this host */
		for (size_t t = 0; t < sizeof(cs) / sizeof(cs[0]); t++) {
			struct mxe_gemm_desc d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 64, 64,
						    32, 1, 0);

			memset(A, 0, 64 * 32);
			memset(Bm, 0, 64 * 32);
			for (unsigned i = 0; i < 64; i++) {
				A[i * 32] = Bm[i * 32] = 0x50;
				A[i * 32 + 1] = Bm[i * 32 + 1] = 0x01;
			}
			for (unsigned i = 0; i < 64 * 64; i++)
				((float *)C)[i] = cs[t];
			bad += !check(mxe_wgmma(eng, &d), &d);
			cases++;
		}
		mxe_engine_set_simd(NULL);
	}
	host_check(!bad, "wgmma f32.e4m3 with C tiny beside a midpoint (subnormal, 2^-126): "
		   "the reference's D on every SIMD level: %u of %u", cases - bad, cases);
}

/*
 * FP8 data lie on coarse grids, so s + C often lands exactly on a midpoint of two f32
 * values: 1.0 x 2^-7 + 2^17 in every output, at N = 256 (groups of 32) and 40. Such a tie
 * is exact (TwoSum's l = 0), so it rounds to even in the vector finish: D = 2^17, no
 * output redone on the general path, on every SIMD level the path has.
 */
static void test_wgmma_exact_ties(struct mxe_engine *eng)
{
	static const unsigned ns[] = { 40, 256 };
	static const char *const levels[] = { "avx512", "avx2" };

	for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
		for (size_t lv = 0; lv < 2; lv++) {
			unsigned n = ns[t], exact = 1;
			struct mxe_gemm_desc d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 64, n,
						    32, 1, 0);
			uint64_t ops0, redone0;
			int rc, has = !mxe_engine_set_simd(levels[lv]);

			memset(A, 0, 64 * 32);
			memset(Bm, 0, (size_t)n * 32);
			for (unsigned i = 0; i < 64; i++)
				A[i * 32 + 3] = 0x38;		/* 1.0 */
			for (unsigned j = 0; j < n; j++)
				Bm[j * 32 + 3] = 0x04;		/* 2^-7 */
			for (unsigned i = 0; i < 64 * n; i++)
				((float *)C)[i] = 0x1p17f;
			ops0 = mxe_wgmma_exact_ops();
			redone0 = mxe_wgmma_exact_redone();
			rc = mxe_wgmma(eng, &d);
			for (unsigned i = 0; i < 64 * n; i++)
				exact &= ((float *)D)[i] == 0x1p17f;
			host_check(!has || (!rc && exact && mxe_wgmma_exact_ops() == ops0 + 1 &&
					    mxe_wgmma_exact_redone() == redone0),
				   "wgmma m64n%uk32 f32.e4m3 (%s), every output an exact tie 2^17 + 2^-7: "
				   "rounded to even in the vector finish, none redone%s", n, levels[lv],
				   has ? "" : " (no such CPU)");
		}
		mxe_engine_set_simd(NULL);
	}
}

/* @count elements of type @t, signs and mantissas random, magnitudes in 2^-4 .. 2^5. */
static void fill_moderate(enum mxa_isa_dtype t, uint8_t *p, size_t count)
{
	unsigned mbits = t == MXA_DTYPE_E4M3 ? 3 : t == MXA_DTYPE_E5M2 ? 2 : t == MXA_DTYPE_F16 ? 10 : 7;
	unsigned bias = t == MXA_DTYPE_E4M3 ? 7 : t == MXA_DTYPE_BF16 ? 127 : 15;

	for (size_t i = 0; i < count; i++) {
		uint32_t r = tu_rand(), e = bias - 4 + r % 9, m = (r >> 8) & ((1u << mbits) - 1);

		if (mbits > 3) {
			uint16_t v = (uint16_t)((r >> 20 & 1) << 15 | e << mbits | m);

			memcpy(p + 2 * i, &v, 2);
		} else {
			p[i] = (uint8_t)((r >> 20 & 1) << 7 | e << mbits | m);
		}
	}
}

/*
 * The other types of that path: E4M3 x E5M2 and E5M2 x E4M3 (E4M3 decodes 2^8 low, A
 * carries the factor), E5M2 x E5M2 (K = 32), F16 and BF16
 * (K = 16), whose sums a double holds only for some data. With magnitudes in
 * 2^-4 .. 2^5 (the certificate holds: the path runs), with C, negated sides, C's special
 * values and an E5M2 or F16 Inf; then with elements far apart (448 or 57344 against 2^-16,
 * 2^15 against 2^-24, 2^-60 in BF16): the path must decline. Always the reference's and
 * mxe_gemm()'s bits.
 */
static void test_wgmma_exact_other(struct mxe_engine *eng)
{
	static const enum mxa_isa_dtype pairs[][2] = {
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E5M2 }, { MXA_DTYPE_E5M2, MXA_DTYPE_E4M3 },
		{ MXA_DTYPE_E5M2, MXA_DTYPE_E5M2 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F16 }, { MXA_DTYPE_BF16, MXA_DTYPE_BF16 },
	};
	int here = !mxe_engine_set_simd("avx2");	/* the path runs on AVX2 and up */

	mxe_engine_set_simd(NULL);
	for (size_t t = 0; t < sizeof(pairs) / sizeof(pairs[0]); t++) {
		enum mxa_isa_dtype ta = pairs[t][0], tb = pairs[t][1];
		unsigned k = mxe_dtype_bits(ta) == 16 ? 16 : 32;

		for (int v = 0; v < 4; v++) {	/* v: plain, C + specials, -A -B, far apart */
			unsigned n = v == 2 ? 40 : 256;
			struct mxe_gemm_desc d = op(ta, tb, MXA_DTYPE_F32, 64, n, k, v > 0, 0);
			float *c = (float *)C;
			uint64_t ops0, ops1;
			int rc, same, good, capped, want = here && v < 3;

			fill_moderate(ta, A, 64 * (size_t)k);
			fill_moderate(tb, Bm, (size_t)n * k);
			if (v == 1) {
				c[0] = INFINITY, c[1] = NAN, c[2] = 0x1.fffffep127f;
				if (tb == MXA_DTYPE_E5M2)
					Bm[2 * 32 + 3] = 0x7C;				/* Inf */
				if (tb == MXA_DTYPE_F16)
					Bm[2 * 32 + 6] = 0x00, Bm[2 * 32 + 7] = 0x7C;	/* Inf */
			}
			if (v == 2)
				d.flags |= MXE_GEMM_NEGATE_A | MXE_GEMM_NEGATE_B;
			if (v == 3) {	/* A: the largest value; B: the smallest */
				if (ta == MXA_DTYPE_E5M2 && tb == MXA_DTYPE_E4M3)
					/* 57344, 2^-16; 2^-9, 448 */
					A[9] = 0x7B, A[10] = 0x01, Bm[40] = 0x01, Bm[41] = 0x7E;
				else if (ta == MXA_DTYPE_E5M2)	/* 57344; 2^-16, 57344 */
					A[9] = 0x7B, Bm[40] = 0x01, Bm[41] = 0x7B;
				else if (ta == MXA_DTYPE_E4M3)	/* 448, 2^-9; 2^-16, 57344 */
					A[9] = 0x7E, A[10] = 0x01, Bm[40] = 0x01, Bm[41] = 0x7B;
				else if (ta == MXA_DTYPE_F16)
					A[18] = 0x00, A[19] = 0x78, Bm[40] = 0x01, Bm[41] = 0x00;
				else
					A[18] = 0x80, A[19] = 0x21;		/* 2^-60 */
			}
			ops0 = mxe_wgmma_exact_ops();
			rc = mxe_wgmma(eng, &d);
			ops1 = mxe_wgmma_exact_ops();
			good = check(rc, &d);
			capped = wgmma_paths_agree(eng, &d, ops1, ops1 != ops0, &rc, &same);
			host_check(!rc && good && same && capped && ops1 - ops0 == (uint64_t)want,
				   "wgmma m64n%uk%u f32.%s.%s%s: bit-exact vs reference and mxe_gemm(): "
				   "%s, %s; %s", n, k, mxe_dtype_name(ta), mxe_dtype_name(tb),
				   v == 0 ? "" : v == 1 ? " C Inf/NaN/FLT_MAX, an Inf" :
				   v == 2 ? " C, -A -B" : " C, values far apart",
				   good ? "yes" : "NO", same ? "yes" : "NO",
				   ops1 - ops0 ? "in double sums" : "elsewhere");
		}
	}
}

static void test_tmatmulmx(struct mxe_engine *eng)
{
	static const enum mxa_isa_dtype pairs[][2] = {
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E4M3 }, { MXA_DTYPE_E4M3, MXA_DTYPE_E5M2 }, { MXA_DTYPE_E5M2, MXA_DTYPE_E5M2 },
		{ MXA_DTYPE_E3M2, MXA_DTYPE_E2M3 }, { MXA_DTYPE_E2M1, MXA_DTYPE_E2M1 }, { MXA_DTYPE_MXINT8, MXA_DTYPE_MXINT8 },
		{ MXA_DTYPE_F16, MXA_DTYPE_E4M3 }, { MXA_DTYPE_BF16, MXA_DTYPE_BF16 },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		int ok = 1;

		for (int acc = 0; acc < 2; acc++) {
			struct mxe_gemm_desc d = op(pairs[i][0], pairs[i][1], MXA_DTYPE_F32, 100, 24, 192, acc, 1);

			ok &= check(mxe_tmatmulmx(eng, &d), &d);
		}
		host_check(ok, "TMATMULMX%s <100, 24, 192, %s, %s>: bit-exact, whole K rounded once",
		       "(.ACC)", mxe_dtype_name(pairs[i][0]), mxe_dtype_name(pairs[i][1]));
	}
	{
		/* ACC accumulates; plain TMATMULMX overwrites */
		struct mxe_gemm_desc d = op(MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 4, 4, 64, 1, 1);
		float *c = (float *)C, *out = (float *)D, plain[16];
		int ok = 1;

		for (int i = 0; i < 16; i++)
			c[i] = 1000.0f;
		memset(SA, 127, sizeof(SA));
		memset(SB, 127, sizeof(SB));
		d.flags = 0;
		mxe_tmatmulmx(eng, &d);
		memcpy(plain, out, sizeof(plain));
		d.flags = MXA_GEMM_F_ACCUMULATE;
		mxe_tmatmulmx(eng, &d);
		for (int i = 0; i < 16; i++)
			ok &= out[i] == plain[i] + 1000.0f;
		host_check(ok, "TMATMULMX.ACC adds to ACC, TMATMULMX does not");
	}
	{
		/* FP16/BF16 data ignore scales: garbage or NULL scales change nothing */
		struct mxe_gemm_desc d = op(MXA_DTYPE_BF16, MXA_DTYPE_F16, MXA_DTYPE_F32, 8, 8, 64, 0, 1);
		float ref[64];
		int ok;

		memset(SA, 0xFF, 64);	/* NaN scales: would poison if used */
		memset(SB, 0x00, 64);
		ok = mxe_tmatmulmx(eng, &d) == 0;
		memcpy(ref, D, sizeof(ref));
		d.scale_a = d.scale_b = NULL;
		ok &= mxe_tmatmulmx(eng, &d) == 0 && !memcmp(ref, D, sizeof(ref)) && !isnan(ref[0]);
		ok &= check(0, &(struct mxe_gemm_desc){ .m = 8, .n = 8, .k = 64, .type_a = MXA_DTYPE_BF16,
						      .type_b = MXA_DTYPE_F16, .type_d = MXA_DTYPE_F32,
						      .a = A, .b = Bm, .d = D });
		host_check(ok, "TMATMULMX with FP16/BF16 data ignores the scale tiles (NaN or absent)");
	}
	{
		struct mxe_gemm_desc d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 4, 4, 64, 0, 1);
		float *out = (float *)D;

		SA[0 * 2 + 1] = 0xFF;
		mxe_tmatmulmx(eng, &d);
		host_check(isnan(out[0]) && isnan(out[3]) && !isnan(out[4]) && !isnan(out[15]),
		       "TMATMULMX: a NaN scale poisons its block (row 0 only)");
	}
	{
		struct mxe_gemm_desc d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 4, 4, 96, 0, 1);
		int r1 = mxe_tmatmulmx(eng, &d), r2, r3, r4, r5, r6;

		d.k = 32;
		r2 = mxe_tmatmulmx(eng, &d);
		d = op(MXA_DTYPE_E2M1, MXA_DTYPE_E5M2, MXA_DTYPE_F32, 4, 4, 96, 0, 1);
		r3 = mxe_tmatmulmx(eng, &d);
		d = op(MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 4, 4, 96, 0, 1);
		r4 = mxe_tmatmulmx(eng, &d);
		d.k = 48;
		r5 = mxe_tmatmulmx(eng, &d);
		d = op(MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F16, 4, 4, 64, 0, 1);
		r6 = mxe_tmatmulmx(eng, &d);
		host_check(r1 == MXE_ENGINE_EINVAL_K_ALIGN && r2 == MXE_ENGINE_EINVAL_K_ALIGN &&
		       r3 == MXE_ENGINE_EINVAL_K_ALIGN && r4 == 0 && r5 == 0 &&
		       r6 == MXE_ENGINE_EINVAL_DTYPE,
		       "TMATMULMX: FP8 needs K %% 64 == 0 (K = 96, 32 -> EINVAL_K_ALIGN), FP4 K = 96 "
		       "and 48 (a partial last block) run, D must be f32");
		d = op(MXA_DTYPE_S8, MXA_DTYPE_S8, MXA_DTYPE_F32, 4, 4, 64, 0, 0);
		r1 = mxe_tmatmulmx(eng, &d);
		d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 4, 4, 64, 0, 0);
		r2 = mxe_tmatmulmx(eng, &d);
		host_check(r1 == MXE_ENGINE_EINVAL_DTYPE && r2 == MXE_ENGINE_EINVAL_SCALE,
		       "TMATMULMX: s8 data -> EINVAL_DTYPE, missing FP8 scales -> EINVAL_SCALE");
	}
	{
		/* whole K exact: big + tiny - big keeps the tiny term */
		struct mxe_gemm_desc d = op(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1, 1, 128, 0, 1);
		float *out = (float *)D;

		memset(A, 0, 128);
		memset(Bm, 0, 128);
		A[0] = 0x78;	/* 256 */
		A[64] = 0x01;	/* 2^-9 */
		A[127] = 0xF8;	/* -256 */
		memset(Bm, 0x38, 128);	/* 1.0 */
		SA[0] = 127 + 100, SA[1] = 127 - 100, SA[2] = 127 - 60, SA[3] = 127 + 100;
		memset(SB, 127, 4);
		mxe_tmatmulmx(eng, &d);
		host_check(out[0] == (float)ldexp(1.0, -9 - 60),
		       "TMATMULMX: 2^108 + 2^-69 - 2^108 = 2^-69 (exact sum over K)");
	}
}

int main(void)
{
	struct mxe_engine *eng = mxe_engine_create(2);

	ksft_print_header();
	test_mma(eng);
	test_wgmma(eng);
	test_wgmma_exact_e4m3(eng);
	test_wgmma_exact_ties(eng);
	test_wgmma_exact_w16(eng);
	test_wgmma_w16_edges(eng);
	test_wgmma_exact_tiny_c(eng);
	test_wgmma_exact_other(eng);
	test_tmatmulmx(eng);
	mxe_engine_destroy(eng);
	return host_check_end();
}
