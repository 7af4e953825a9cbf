/* SPDX-License-Identifier: MIT */
/*
 * mxe_avx2.h - AVX2 helpers the engine's AVX2 code shares (mxe_kernels_avx2.c,
 * mxe_gemv_fast.c). Empty off x86-64; callers include it in their x86-64 sections.
 */
#ifndef MXE_AVX2_H
#define MXE_AVX2_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* Transpose 8 rows of 8 floats (or 32-bit words, cast) in place: r[i][j] -> r[j][i]. */
__attribute__((target("avx2"), always_inline))
static inline void mxe_transpose8_avx2(__m256 r[8])
{
	__m256 t[8], u[8];

	/* unrolled: GCC kept loops, and r, t and u on the stack (nvg_fast_store()) */
	_Pragma("GCC unroll 4")
	for (int i = 0; i < 4; i++) {
		t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
		t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
	}
	_Pragma("GCC unroll 2")
	for (int i = 0; i < 2; i++) {
		u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
		u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
		u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
		u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
	}
	_Pragma("GCC unroll 4")
	for (int i = 0; i < 4; i++) {
		r[i] = _mm256_permute2f128_ps(u[i], u[4 + i], 0x20);
		r[4 + i] = _mm256_permute2f128_ps(u[i], u[4 + i], 0x31);
	}
}
#endif

#endif /* MXE_AVX2_H */
