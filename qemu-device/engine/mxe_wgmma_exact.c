// SPDX-License-Identifier: MIT
/*
 * mxe_wgmma_exact.c - EXACT E4M3 x E4M3 WGMMAs (64 x N x 32, F32 C and D) on AVX-512.
 *
 * The 32 products of a WGMMA's K sum exactly in a double when both sides are E4M3:
 * every product is a multiple of 2^-18 below 2^18, so every partial sum is one below
 * 2^23, 41 bits in all. Plain double FMAs in any order then give the exact sum; C joins
 * it in the last step (mxe_finish_f32_avx512(): TwoSum, one rounding), and what one
 * conversion cannot round (a zero, NaN or Inf, a midpoint that C decides) goes to the
 * general path element by element, as on the tiled path. So the bits are mxe_gemm()'s
 * EXACT ones. The tiled path, built for large K, spent most of a WGMMA packing panels
 * and pairs for its 32 k.
 */
#include <pthread.h>
#include <string.h>

#include "mxe_gemm.h"
#include "mxe_kernels.h"
#include "mxe_pool.h"
#include "mxe_cpu.h"
#include "mxe_formats.h"

#define WG_K 32

static uint64_t wgmma_ops;	/* WGMMAs this path ran (tests) */

static double lut_e4m3[256];
static pthread_once_t lut_once = PTHREAD_ONCE_INIT;

static void lut_init(void)
{
	const float *f = mxe_decode_lut(MXA_DTYPE_E4M3);

	for (unsigned i = 0; i < 256; i++)
		lut_e4m3[i] = f[i];
}

int mxe_wgmma_exact(const struct mxe_gemm_desc *desc)
{
	const struct mxe_gemm_desc *g = desc;
	int acc = !!(g->flags & MXA_GEMM_F_ACCUMULATE);
	struct mxe_op op;
	double *a, *bt, *s;
	unsigned n = g->n;
	int rc;

	if (mxe_cpu_simd() < MXE_SIMD_AVX512 || g->accum != MXE_ACCUM_EXACT || g->m != 64 ||
	    g->k != WG_K || g->type_a != MXA_DTYPE_E4M3 || g->type_b != MXA_DTYPE_E4M3 ||
	    g->type_d != MXA_DTYPE_F32 || (acc && g->type_c != MXA_DTYPE_F32) || n % 8 ||
	    n > 256 || (g->flags & (MXA_GEMM_F_B_KN | MXA_GEMM_F_A_KM)) || g->b_rows)
		return 1;
	rc = mxe_op_prepare(g, &op);
	if (rc)
		return rc;
	a = mxe_scratch(4, (64 + (size_t)WG_K) * 256 * sizeof(double));
	s = mxe_scratch(1, (size_t)64 * 256 * sizeof(double));
	if (!a || !s)
		return MXE_ENGINE_ENOMEM;
	bt = a + 64 * WG_K;
	pthread_once(&lut_once, lut_init);
	mxe_wgmma_decode_avx512(g->a, op.lda, g->b, op.ldb, n, lut_e4m3,
				!!(g->flags & MXE_GEMM_NEGATE_A), !!(g->flags & MXE_GEMM_NEGATE_B),
				a, bt);
	mxe_kern_wgmma_d64_avx512(a, bt, n, s);
	for (unsigned i = 0; i < 64; i++) {
		float *d = (float *)((uint8_t *)g->d + i * op.ldd);
		const float *c = acc ? (const float *)((const uint8_t *)g->c + i * op.ldc) : NULL;

		for (unsigned j0 = 0; j0 < n; j0 += 64) {
			unsigned w = n - j0 < 64 ? n - j0 : 64;
			uint64_t left = mxe_finish_f32_avx512(s + i * n + j0, NULL, c ? c + j0 : NULL,
							      d + j0, w);

			for (; left; left &= left - 1)
				if (mxe_exact_output(&op, i, j0 + (unsigned)__builtin_ctzll(left)))
					return MXE_ENGINE_ENOMEM;
		}
	}
	__atomic_fetch_add(&wgmma_ops, 1, __ATOMIC_RELAXED);
	return 0;
}

uint64_t mxe_wgmma_exact_ops(void)
{
	return __atomic_load_n(&wgmma_ops, __ATOMIC_RELAXED);
}
