// SPDX-License-Identifier: MIT
/*
 * mxe_wgmma_exact.c - EXACT WGMMAs (64 x N x K, F32 C and D) in double sums on AVX-512
 * and AVX2 hosts: FP8 (E4M3, E5M2; K = 32), F16 and BF16 (K = 16).
 *
 * Where every product of a WGMMA and every partial sum of its K products is a double,
 * plain double FMAs in any order give the exact sum; C joins it in the last step
 * (mxe_finish_f32_avx512(): TwoSum, one rounding; where C's exponent keeps sum and C
 * within 53 bits, mxe_exact_add_window(), mxe_finish_f32_add_avx512(): one exact
 * addition, on AVX-512 done while a strip's sums are still in registers,
 * mxe_kern_wgmma_d64_add_avx512()), and what one
 * conversion cannot round
 * (a zero, NaN or Inf, a midpoint that C's low part decides) goes to the general path
 * element by element, as on the tiled path. So the bits are mxe_gemm()'s EXACT ones.
 * The work goes a strip of 32 columns at a time: B's part, the sums and their rounding
 * stay in L1.
 *
 * The certificate: products lie on a grid of 2^(la + lb) (the sides' lowest bits) and
 * below 2^(ta + tb + 2) (their leading bits), so K of them sum exactly when
 * ta + tb + 2 + log2(K) - (la + lb) <= 53. E4M3 x E4M3 always passes (41 bits: products
 * on 2^-18 below 2^18); the others are read from the exponent fields of the data.
 * The tiled path, built for large K, spent most of a WGMMA packing panels and pairs.
 *
 * E4M3 x E4M3 with AVX512-VNNI or on AVX2 (not AVX-512 without VNNI): where every row
 * of A and of B holds values at most 13 bits apart (no NaN), the rows become int16
 * windows (struct mxe_kw16) and each sum an int32 dot product times a power of two
 * (mxe_kern_wgmma_w16_vnni(), a quarter of the double FMAs' instructions;
 * mxe_kern_wgmma_w16_avx2(), vpmaddwd and vpaddd, half), the same exact sums;
 * otherwise the double FMAs.
 */
#include <string.h>

#include "mxe_gemm.h"
#include "mxe_kernels.h"
#include "mxe_pool.h"
#include "mxe_cpu.h"
#include "mxe_formats.h"

static uint64_t wgmma_ops, wgmma_redone;	/* WGMMAs this path ran, outputs it redid (tests) */
static uint64_t wgmma_w16;			/* of those, on int16 windows */

/*
 * A's and B's rows as int16 windows, B's K-major ([16][@ldb] words) for the kernel: 0
 * where a row does not fit (mxe_wgmma_w16_rows_avx512()).
 */
static int w16_rows(int avx2, const struct mxe_gemm_desc *g, const struct mxe_op *op,
		    uint32_t *a, uint32_t *bt, size_t ldb, int *wa, int *wb)
{
	int (*rows)(const uint8_t *, size_t, unsigned, int, uint32_t *, size_t, int *) =
		avx2 ? mxe_wgmma_w16_rows_avx2 : mxe_wgmma_w16_rows_avx512;

	return rows(g->a, op->lda, 64, !!(g->flags & MXE_GEMM_NEGATE_A), a, 0, wa) &&
	       rows(g->b, op->ldb, g->n, !!(g->flags & MXE_GEMM_NEGATE_B), bt, ldb, wb);
}

/* Mantissa bits and exponent bias of the types this path takes; 0: not one. */
static unsigned type_bits(unsigned t, int *bias)
{
	switch (t) {
	case MXA_DTYPE_E4M3:
	case MXA_DTYPE_E5M2:
	case MXA_DTYPE_F16:
	case MXA_DTYPE_BF16:
		return mxe_dtype_float_bits(t, bias);
	default:
		return 0;
	}
}

/*
 * One side's lowest-bit and leading-bit exponents over its nonzero finite elements
 * (@rows rows of 32 bytes, @ld apart); 0: none (every product is then 0, NaN or Inf).
 */
static int side_range(int wide, unsigned t, const void *p, size_t ld, unsigned rows, int *lsb,
		      int *top)
{
	int bias = 0;
	unsigned mbits = type_bits(t, &bias), lo, hi;

	(wide ? mxe_wgmma_exp_fields_avx512 : mxe_wgmma_exp_fields_avx2)(
		p, ld, rows, mbits > 3, mbits, t == MXA_DTYPE_E4M3, &lo, &hi);
	if (lo == ~0u)
		return 0;
	*lsb = (int)lo - bias - (int)mbits;
	*top = (int)hi - bias;
	return 1;
}

/*
 * Whether every partial sum of the WGMMA's K products is a double (see above); then the
 * sums lie on a grid of 2^*@grid below 2^*@top (*@grid > *@top: no such bound known).
 */
static int certified(int wide, const struct mxe_gemm_desc *g, const struct mxe_op *op,
		     unsigned k, int *grid, int *top)
{
	int la, ta, lb, tb;

	*grid = 1, *top = 0;
	if (g->type_a == MXA_DTYPE_E4M3 && g->type_b == MXA_DTYPE_E4M3) {
		*grid = -18, *top = 23;	/* products on 2^-9 x 2^-9, 32 x 448^2 < 2^23 */
		return 1;
	}
	if (!side_range(wide, g->type_a, g->a, op->lda, 64, &la, &ta) ||
	    !side_range(wide, g->type_b, g->b, op->ldb, g->n, &lb, &tb))
		return 1;
	*grid = la + lb, *top = ta + tb + 2 + (k == 32 ? 5 : 4);
	return *top - *grid <= 53;
}

/* The outputs of row @i from column @j0 on that @left marks, on the general path. */
static int redo(const struct mxe_op *op, unsigned i, unsigned j0, uint64_t left)
{
	if (left)
		__atomic_fetch_add(&wgmma_redone, (uint64_t)__builtin_popcountll(left),
				   __ATOMIC_RELAXED);
	for (; left; left &= left - 1)
		if (mxe_exact_output(op, i, j0 + (unsigned)__builtin_ctzll(left)))
			return -1;
	return 0;
}

int mxe_wgmma_exact(const struct mxe_gemm_desc *desc)
{
	const struct mxe_gemm_desc *g = desc;
	int acc = !!(g->flags & MXA_GEMM_F_ACCUMULATE), bias;
	int neg_a = !!(g->flags & MXE_GEMM_NEGATE_A), neg_b = !!(g->flags & MXE_GEMM_NEGATE_B);
	unsigned n = g->n, bits = type_bits(g->type_a, &bias), k = bits > 3 ? 16 : 32;
	enum mxe_simd simd = mxe_cpu_simd();
	int wide = simd >= MXE_SIMD_AVX512;	/* else AVX2 */
	struct mxe_op op;
	double *a, *bt, *s;
	uint32_t *wi = NULL, *wbt = NULL;
	int rc, grid, top, c_lo = 0, c_span = 0, win, wa[64], wb[256 + 32];
	size_t wld = (size_t)n + 32;	/* the kernel reads up to 32 columns from a strip's start */

	if (simd < MXE_SIMD_AVX2 || g->accum != MXE_ACCUM_EXACT || g->m != 64 ||
	    !bits || !type_bits(g->type_b, &bias) || (bits > 3) != (type_bits(g->type_b, &bias) > 3) ||
	    g->k != k || g->type_d != MXA_DTYPE_F32 || (acc && g->type_c != MXA_DTYPE_F32) ||
	    n % 8 || n > 256 || (g->flags & (MXA_GEMM_F_B_KN | MXA_GEMM_F_A_KM)) || g->b_rows ||
	    (k == 16 && g->type_a != g->type_b))
		return 1;
	rc = mxe_op_prepare(g, &op);
	if (rc)
		return rc;
	if (!certified(wide, g, &op, k, &grid, &top))
		return 1;
	win = acc && mxe_exact_add_window(grid, top, &c_lo, &c_span);
	a = mxe_scratch(4, (64 + (size_t)k) * 256 * sizeof(double));
	s = mxe_scratch(1, (size_t)64 * 32 * sizeof(double));
	if (!a || !s)
		return MXE_ENGINE_ENOMEM;
	bt = a + 64 * k;
	if ((simd >= MXE_SIMD_AVX512VNNI || !wide) && g->type_a == MXA_DTYPE_E4M3 &&
	    g->type_b == MXA_DTYPE_E4M3) {
		/* A's rows, B K-major: in the double panels' room (it fits) */
		wi = (uint32_t *)a;
		wbt = wi + 64 * 16;
		if (!w16_rows(!wide, g, &op, wi, wbt, wld, wa, wb))
			wi = NULL;
	}
	if (!wi && k == 32)	/* else the sums come from the int16 windows */
		(wide ? mxe_wgmma_decode8_avx512 : mxe_wgmma_decode8_avx2)(
			g->a, op.lda, g->b, op.ldb, n, g->type_a == MXA_DTYPE_E4M3,
			g->type_b == MXA_DTYPE_E4M3, neg_a, neg_b, a, bt);
	else if (!wi)
		(wide ? mxe_wgmma_decode16_avx512 : mxe_wgmma_decode16_avx2)(
			g->a, op.lda, g->b, op.ldb, n, g->type_a == MXA_DTYPE_BF16, neg_a, neg_b, a,
			bt);
	for (unsigned j0 = 0, w; j0 < n; j0 += w) {	/* strips of 32 columns */
		w = n - j0 >= 32 ? 32 : n - j0;
		/* C's part of the strip (a pipeline's accumulator, in the device's SRAM: out
		 * of L1) comes in while the kernel runs; its first load was a seventh of the
		 * rounding's time in QEMU */
		for (unsigned i = 0; acc && i < 64; i++) {
			const uint8_t *cr = (const uint8_t *)g->c + i * op.ldc + j0 * 4;

			__builtin_prefetch(cr);
			__builtin_prefetch(cr + w * 4 - 1);
		}
		if (win && w == 32 && (wide || wi)) {	/* summed and rounded in registers */
			uint64_t left[64];

			if (!wide)
				mxe_kern_wgmma_w16_add_avx2(wi, wbt + j0, wld, wa, wb + j0,
							    (const float *)g->c + j0, op.ldc,
							    (float *)g->d + j0, op.ldd, c_lo, c_span,
							    s, left);
			else if (wi)
				mxe_kern_wgmma_w16_add_vnni(wi, wbt + j0, wld, wa, wb + j0,
							    (const float *)g->c + j0, op.ldc,
							    (float *)g->d + j0, op.ldd, c_lo, c_span,
							    s, left);
			else
				mxe_kern_wgmma_d64_add_avx512(a, bt + (size_t)j0 * k, k,
							      (const float *)g->c + j0, op.ldc,
							      (float *)g->d + j0, op.ldd, c_lo,
							      c_span, s, left);
			for (unsigned i = 0; i < 64; i++)
				if (redo(&op, i, j0, left[i]))
					return MXE_ENGINE_ENOMEM;
			continue;
		} else if (wi) {
			(wide ? mxe_kern_wgmma_w16_vnni : mxe_kern_wgmma_w16_avx2)(
				wi, wbt + j0, wld, w, wa, wb + j0, s);
		} else {
			(wide ? mxe_kern_wgmma_d64_avx512 : mxe_kern_wgmma_d64_avx2)(
				a, bt + (size_t)j0 * k, k, w, s);
		}
		if (!wide && win) {	/* the strip's rows in one call */
			uint64_t left[64];

			mxe_finish_rows_f32_add_avx2(s, w, (const float *)g->c + j0, op.ldc,
						     (float *)g->d + j0, op.ldd, 64, c_lo, c_span, left);
			for (unsigned i = 0; i < 64; i++)
				if (redo(&op, i, j0, left[i]))
					return MXE_ENGINE_ENOMEM;
			continue;
		}
		for (unsigned i = 0; i < 64; i++) {
			float *d = (float *)((uint8_t *)g->d + i * op.ldd) + j0;
			const float *c = acc ? (const float *)((const uint8_t *)g->c + i * op.ldc) + j0
					     : NULL;
			uint64_t left =
				wide && win ? mxe_finish_f32_add_avx512(s + i * w, c, d, w, c_lo, c_span) :
				wide ? mxe_finish_f32_avx512(s + i * w, NULL, c, d, w) :
				mxe_finish_f32_avx2(s + i * w, c, d, w);

			if (redo(&op, i, j0, left))
				return MXE_ENGINE_ENOMEM;
		}
	}
	__atomic_fetch_add(&wgmma_ops, 1, __ATOMIC_RELAXED);
	if (wi)
		__atomic_fetch_add(&wgmma_w16, 1, __ATOMIC_RELAXED);
	return 0;
}

uint64_t mxe_wgmma_exact_w16(void)
{
	return __atomic_load_n(&wgmma_w16, __ATOMIC_RELAXED);
}

uint64_t mxe_wgmma_exact_ops(void)
{
	return __atomic_load_n(&wgmma_ops, __ATOMIC_RELAXED);
}

uint64_t mxe_wgmma_exact_redone(void)
{
	return __atomic_load_n(&wgmma_redone, __ATOMIC_RELAXED);
}
