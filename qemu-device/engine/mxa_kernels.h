/* SPDX-License-Identifier: MIT */
/*
 * mxa_kernels.h - micro kernels of the FAST tiled path and the row decoders
 * that feed its packing. Each exists as portable C (mxa_kernels.c) and as
 * AVX2/FMA/F16C (mxa_kernels_avx2.c); the AVX-512 kernels
 * (mxa_kernels_avx512.c) take two B panels per call. All give identical
 * bits; mxa_cpu_simd() picks the level.
 *
 * Packed panels: A is cut into panels of MXA_MR rows, B into panels of
 * MXA_NR columns. The float kernels take one K block (at most
 * MXA_FAST_KBLOCK k) of a panel: A row-major with a fixed row stride
 * (a[r * MXA_KA_STRIDE + k]: each row is decoded straight into place, no
 * transpose; the kernel broadcasts its elements), B k-major
 * (b[k * NR + c]: two vector loads per k). The integer kernels take pairs
 * of int16 along K packed in one 32-bit word (low half = even k), k-major
 * on both sides (a[kp * MR + r], b[kp * NR + c]), the operand layout of
 * vpmaddwd.
 */
#ifndef MXA_KERNELS_H
#define MXA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "mxa_engine.h"

#define MXA_MR 6
#define MXA_NR 16
#define MXA_KA_STRIDE MXA_FAST_KBLOCK	/* float A panels: row stride (elements) */

/* Update flags of a kernel call. */
#define MXA_KF_FIRST	(1u << 0)	/* first K block: no running value in d */
#define MXA_KF_C	(1u << 1)	/* first block starts from C */
#define MXA_KF_LAST	(1u << 2)	/* last block: canonical NaN / int32 finish */
#define MXA_KF_SAT	(1u << 3)	/* integer: clamp instead of wrap */

/**
 * struct mxa_kf32 - where a float kernel puts its MR x NR block sums p.
 * v = FIRST ? (C ? c + p : p) : d + p;  d = LAST ? canonical_nan(v) : v.
 * Strides in elements; @mr/@nr are the valid rows/columns (edges).
 */
struct mxa_kf32 {
	float *d;
	ptrdiff_t ldd;
	const float *c;
	ptrdiff_t ldc;
	unsigned mr, nr, flags;
};

/**
 * struct mxa_ks32 - integer kernel output. The block sum p (exact, int32
 * for K <= 131072) is added to the previous partial s (unless FIRST); not
 * LAST: d = that partial; LAST: d = finish(C + partial) in int64, wrapped or
 * clamped (SAT) to int32.
 */
struct mxa_ks32 {
	int32_t *d;
	ptrdiff_t ldd;
	const int32_t *s;
	ptrdiff_t lds;
	const int32_t *c;
	ptrdiff_t ldc;
	unsigned mr, nr, flags;
};

typedef void (*mxa_kern_f32_fn)(const float *a, const float *b, size_t k,
				const struct mxa_kf32 *u);
typedef void (*mxa_kern_s16_fn)(const uint32_t *a, const uint32_t *b, size_t kpairs,
				const struct mxa_ks32 *u);

/*
 * For each sub-block of MXA_FAST_KSUB k: q = +0; q = fma(a, b, q) per k in
 * f32; then p = q (first sub-block) or p = p + q. @k <= MXA_FAST_KBLOCK.
 */
void mxa_kern_f32_portable(const float *a, const float *b, size_t k, const struct mxa_kf32 *u);
void mxa_kern_s16_portable(const uint32_t *a, const uint32_t *b, size_t kpairs,
			   const struct mxa_ks32 *u);
void mxa_kern_f32_avx2(const float *a, const float *b, size_t k, const struct mxa_kf32 *u);
void mxa_kern_s16_avx2(const uint32_t *a, const uint32_t *b, size_t kpairs,
		       const struct mxa_ks32 *u);
/*
 * Two B panels at once (AVX-512F): columns 0..15 from the panel at @b into
 * @u0, 16..31 from the next panel, MXA_NR * MXA_FAST_KBLOCK floats on (as
 * packed), into @u1 (@u1->nr == 0: none). The same bits as two calls of
 * the kernels above.
 */
void mxa_kern_f32x2_avx512(const float *a, const float *b, size_t k,
			   const struct mxa_kf32 *u0, const struct mxa_kf32 *u1);
/* Integers, two B panels (@b0: columns 0..15, @b1: 16..31; @u1->nr == 0:
 * none): the same bits as two calls of mxa_kern_s16_avx2(). */
void mxa_kern_s16x2_avx512(const uint32_t *a, const uint32_t *b0, const uint32_t *b1,
			   size_t kpairs, const struct mxa_ks32 *u0, const struct mxa_ks32 *u1);

/** Apply the update of struct mxa_kf32 to a computed MR x NR block @p. */
void mxa_kf32_apply(const float *p, const struct mxa_kf32 *u);
void mxa_ks32_apply(const int32_t *p, const struct mxa_ks32 *u);

/*
 * Row decoders: n elements of a packed row, starting at element @k0, into
 * f32 (exact). @lut is the type's 256-entry table for 8-bit and narrower
 * float types. Scales and negation are applied by the caller.
 */
void mxa_decode_bf16_avx2(const uint16_t *src, float *dst, size_t n);
void mxa_decode_f16_avx2(const uint16_t *src, float *dst, size_t n);
void mxa_decode_lut8_avx2(const uint8_t *src, const float *lut, float *dst, size_t n);
/* e4m3 (@e4m3) or e5m2 elements k0..k0+n of a row, with the row's MX scales
 * (may be NULL) applied; every scaled value must be a normal-range-safe f32
 * (see mx_scales_safe() in mxa_tiled.c). */
/* dst[k * rows + i] = src[i * stride + k] for k < n, i < rows (6 or 16):
 * moves 32-bit words, float or not, bit for bit. */
void mxa_interleave_avx2(const float *src, size_t stride, unsigned rows, size_t n, float *dst,
			 int nt);
/* Packing output that is read back only after the whole pack phase: with
 * @nt (or in mxa_copy_nt_avx2) 32-byte aligned rows go out with
 * non-temporal stores (no read for ownership); mxa_sfence_avx2() orders
 * them before the phase ends. Data movement only. */
void mxa_copy_nt_avx2(const float *src, float *dst, size_t n);
void mxa_sfence_avx2(void);
void mxa_widen_s8_avx2(const uint8_t *src, int16_t *dst, size_t n);
void mxa_decode_fp8_avx2(const uint8_t *src, float *dst, size_t n, int e4m3,
			 const uint8_t *scales, size_t k0);

#endif /* MXA_KERNELS_H */
