/* SPDX-License-Identifier: MIT */
/*
 * mxe_kernels.h - micro kernels of the FAST tiled path and the row decoders
 * that feed its packing. Each exists as portable C (mxe_kernels.c) and as
 * AVX2/FMA/F16C (mxe_kernels_avx2.c); the AVX-512 kernels
 * (mxe_kernels_avx512.c) take two B panels per call. All give identical
 * bits; mxe_cpu_simd() picks the level.
 *
 * Packed panels: A is cut into panels of MXE_MR rows, B into panels of
 * MXE_NR columns. The float kernels take one K block (at most
 * MXE_FAST_KBLOCK k) of a panel: A row-major with a fixed row stride
 * (a[r * MXE_KA_STRIDE + k]: each row is decoded straight into place, no
 * transpose; the kernel broadcasts its elements), B k-major
 * (b[k * NR + c]: two vector loads per k). The integer kernels take pairs
 * of int16 along K packed in one 32-bit word (low half = even k), k-major
 * on both sides (a[kp * MR + r], b[kp * NR + c]), the operand layout of
 * vpmaddwd.
 */
#ifndef MXE_KERNELS_H
#define MXE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "mxe_engine.h"

#define MXE_MR 6
#define MXE_NR 16
#define MXE_KA_STRIDE MXE_FAST_KBLOCK	/* float A panels: row stride (elements) */

/* Update flags of a kernel call. */
#define MXE_KF_FIRST	(1u << 0)	/* first K block: no running value in d */
#define MXE_KF_C	(1u << 1)	/* first block starts from C */
#define MXE_KF_LAST	(1u << 2)	/* last block: canonical NaN / int32 finish */
#define MXE_KF_SAT	(1u << 3)	/* integer: clamp instead of wrap */

/**
 * struct mxe_kf32 - where a float kernel puts its MR x NR block sums p.
 * v = FIRST ? (C ? c + p : p) : d + p;  d = LAST ? canonical_nan(v) : v.
 * Strides in elements; @mr/@nr are the valid rows/columns (edges).
 */
struct mxe_kf32 {
	float *d;
	ptrdiff_t ldd;
	const float *c;
	ptrdiff_t ldc;
	unsigned mr, nr, flags;
};

/**
 * struct mxe_ks32 - integer kernel output. The block sum p (exact, int32
 * for K <= 131072) is added to the previous partial s (unless FIRST); not
 * LAST: d = that partial; LAST: d = finish(C + partial) in int64, wrapped or
 * clamped (SAT) to int32.
 */
struct mxe_ks32 {
	int32_t *d;
	ptrdiff_t ldd;
	const int32_t *s;
	ptrdiff_t lds;
	const int32_t *c;
	ptrdiff_t ldc;
	unsigned mr, nr, flags;
};

typedef void (*mxe_kern_f32_fn)(const float *a, const float *b, size_t k,
				const struct mxe_kf32 *u);
typedef void (*mxe_kern_s16_fn)(const uint32_t *a, const uint32_t *b, size_t kpairs,
				const struct mxe_ks32 *u);

/*
 * For each sub-block of MXE_FAST_KSUB k: q = +0; q = fma(a, b, q) per k in
 * f32; then p = q (first sub-block) or p = p + q. @k <= MXE_FAST_KBLOCK.
 */
void mxe_kern_f32_portable(const float *a, const float *b, size_t k, const struct mxe_kf32 *u);
void mxe_kern_s16_portable(const uint32_t *a, const uint32_t *b, size_t kpairs,
			   const struct mxe_ks32 *u);
void mxe_kern_f32_avx2(const float *a, const float *b, size_t k, const struct mxe_kf32 *u);
void mxe_kern_s16_avx2(const uint32_t *a, const uint32_t *b, size_t kpairs,
		       const struct mxe_ks32 *u);
/*
 * Two B panels at once (AVX-512F): columns 0..15 from the panel at @b into
 * @u0, 16..31 from the next panel, MXE_NR * MXE_FAST_KBLOCK floats on (as
 * packed), into @u1 (@u1->nr == 0: none). The same bits as two calls of
 * the kernels above.
 */
void mxe_kern_f32x2_avx512(const float *a, const float *b, size_t k,
			   const struct mxe_kf32 *u0, const struct mxe_kf32 *u1);
/*
 * The same chains from BF16 pairs (AVX512-BF16; mxe_cpu_simd() >= MXE_SIMD_AVX512BF16):
 * a pair word holds the element of k in its high half and k + 1 in its low half. A's
 * rows at @a, MXE_KA_STRIDE / 2 words apart (a float panel's row, halved); B's pair
 * rows k-major, MXE_NR words each, the second panel MXE_NR * MXE_FAST_KBLOCK words on.
 * The bits of the f32 kernels where no element, product or partial sum is subnormal
 * (the caller's certificate: vdpbf16ps flushes those). @k a multiple of
 * MXE_FAST_KSUB.
 */
void mxe_kern_bf16x2_avx512(const uint32_t *a, const uint32_t *b, size_t k,
			    const struct mxe_kf32 *u0, const struct mxe_kf32 *u1);
/* @n f32 (exact in BF16, @n even) to @n / 2 pair words */
void mxe_bf16_pack_avx512(const float *src, uint32_t *dst, size_t n);
/* The same straight from @n (a multiple of 32) E4M3 (@e4m3) or E5M2 codes of a row,
 * from element @k0 (a multiple of 32), with its MX @scales (or NULL), negated where
 * @neg: the values of mxe_decode_fp8_avx2() */
void mxe_fp8_pairs_avx512(const uint8_t *src, uint32_t *dst, size_t n, int e4m3,
			  const uint8_t *scales, size_t k0, int neg);
/* The same from @n (even) BF16 values */
void mxe_bf16_pairs_avx512(const uint16_t *src, uint32_t *dst, size_t n, int neg);
/* A k-major f32 panel block ([@nk][MXE_NR]) to pair rows ([@nk / 2][MXE_NR]); in place
 * when @dst is @src */
void mxe_bf16_fold_avx512(const float *src, size_t nk, uint32_t *dst);
/* The least exponent field of @n BF16 values' nonzero ones (255: none) */
unsigned mxe_bf16_min_exp_avx512(const uint16_t *p, size_t n);
/* The same of @n f32 where each is exact in BF16 and not subnormal; else 0 */
unsigned mxe_bf16_exact_min_exp_avx512(const float *src, size_t n);
/* 1 when vdpbf16ps rounds as the kernel above needs (mxe_cpu.c, once) */
int mxe_bf16_self_check(void);
/* Integers, two B panels (@b0: columns 0..15, @b1: 16..31; @u1->nr == 0:
 * none): the same bits as two calls of mxe_kern_s16_avx2(). */
void mxe_kern_s16x2_avx512(const uint32_t *a, const uint32_t *b0, const uint32_t *b1,
			   size_t kpairs, const struct mxe_ks32 *u0, const struct mxe_ks32 *u1);

/**
 * struct mxe_kx64 - where EXACT's block-sum kernels put their sums
 * (mxe_tiled.c, for MX types whose 32-k blocks sum exactly in f32): each
 * sub-block's chain q (the float kernels' q, exact there) is converted to
 * double and added to s[i * lds + j] (@first: s starts from +0). Those
 * double sums are exact only under the caller's certificate; the order
 * in which the kernels add them is theirs.
 */
struct mxe_kx64 {
	double *s;
	ptrdiff_t lds;
	unsigned mr, nr, first;
};

/* One B panel (nr <= 16); @k a multiple of MXE_FAST_KSUB. */
void mxe_kern_x64_portable(const float *a, const float *b, size_t k, const struct mxe_kx64 *u);
void mxe_kern_x64_avx2(const float *a, const float *b, size_t k, const struct mxe_kx64 *u);
/* Two B panels (16 < nr <= 32; the second MXE_NR * MXE_FAST_KBLOCK floats on). */
void mxe_kern_x64x2_avx512(const float *a, const float *b, size_t k, const struct mxe_kx64 *u);

/**
 * struct mxe_kd64 - EXACT's kernels for operations whose 32-k block sums are exact in a
 * double but not in f32 (E4M3 or E5M2 against the other MX types, BF16 or F16 by their
 * data; mxe_tiled.c): per sub-block
 * the products are chained with double FMA from +0 (exact under the caller's
 * certificate) and the chain q joins the running pair (@s, @c) by TwoSum:
 * s' = fl(s + q), c' = c + (s + q - s'). The caller's certificate also makes every
 * c' exact, so s + c is the exact sum and the bits do not depend on the kernel. AVX-512
 * only (on AVX2 hosts the general exact path was faster); the portable kernel stands in
 * where a compiler has no AVX-512. @first: the pair starts from (+0, +0).
 */
struct mxe_kd64 {
	double *s, *c;
	ptrdiff_t lds;
	unsigned mr, nr, first;
};

/*
 * Double panels: @a in the float A panel's layout (a[i * MXE_KA_STRIDE + k]), @b0 and
 * @b1 k-major, MXE_NR per k (b[k * MXE_NR + j]), columns 0..15 and 16..31 (@u->nr <= 16:
 * @b1 unused). @k a multiple of MXE_FAST_KSUB.
 */
void mxe_kern_d64_portable(const double *a, const double *b0, const double *b1, size_t k,
			   const struct mxe_kd64 *u);
void mxe_kern_d64_avx512(const double *a, const double *b0, const double *b1, size_t k,
			 const struct mxe_kd64 *u);

/**
 * mxe_finish_f32_avx512() - EXACT's last step for @n (<= 64) outputs of one row whose
 * sums are exact pairs: h + l = @s (+ @cs by TwoSum; @cs NULL: none) (+ @c, an f32 C
 * by TwoSums; NULL: none), rounded once into @d where that is one conversion of h.
 * Returns the mask of the outputs it left to the caller, unwritten: a zero sum, a C or
 * sum that is not finite, |h| >= 2^127, an l that decides a tie of f32 or that the last
 * TwoSum left above half an ulp of h, |h| < 2^-968 (mxe_tiled.c, finish_exact()).
 */
uint64_t mxe_finish_f32_avx512(const double *s, const double *cs, const float *c, float *d,
			       unsigned n);

/*
 * Sums s that are exact doubles on a grid of 2^@g below 2^@t meet an f32 C in one exact
 * double addition when C is 0 or normal with t - 29 <= e(C) <= g + 51 (C is then a
 * multiple of 2^(e(C) - 23), and s + C spans at most 53 bits): the window of C's exponent
 * field, *@lo and up to *@span above it. 0 when there is none: no bound known (@g > @t),
 * s alone wider than 52 bits, or a window reaching subnormal or non-finite C.
 */
static inline int mxe_exact_add_window(int g, int t, int *lo, int *span)
{
	if (g > t || t - g > 52 || 127 + t - 29 < 1 || 127 + g + 51 > 254)
		return 0;
	*lo = 127 + t - 29;
	*span = (g + 51) - (t - 29);
	return 1;
}

/**
 * mxe_finish_f32_add_avx512() - mxe_finish_f32_avx512() for exact double sums @s with an
 * f32 C (@c) whose exponent field lies in [@c_lo, @c_lo + @c_span] (the window of
 * mxe_exact_add_window()): one double addition is s + C exactly and one conversion rounds
 * it, with no TwoSum and no tie to decide. Groups of 32 outputs with a C outside the
 * window, and the rest of @n, go to mxe_finish_f32_avx512(); the same outputs are left to
 * the caller.
 */
uint64_t mxe_finish_f32_add_avx512(const double *s, const float *c, float *d, unsigned n,
				   int c_lo, int c_span);

/*
 * Where B's element (row @j, k) of a WGMMA goes among @kk x @n doubles: K-major within
 * strips of 32 columns (the last one narrower), each strip contiguous, as the WGMMA
 * kernels read it (one K-major array of @n columns put every k 2 KiB apart at N = 256:
 * the same few L1 sets).
 */
static inline double *mxe_wgmma_bt_at(double *bt, unsigned n, unsigned kk, unsigned k,
				      unsigned j)
{
	unsigned j0 = j & ~31u, w = n - j0 < 32 ? n - j0 : 32;

	return bt + (size_t)j0 * kk + k * w + (j - j0);
}

/**
 * mxe_kern_wgmma_d64_avx512() - one strip of @w columns (32, or a multiple of 8 below it)
 * of the 64 x N sums of a WGMMA's K (@k, 16 or 32) in double FMAs: @s[i * @w + j] = sum
 * over k of @a[i * @k + k] x @bs[k * @w + j], @bs the strip as the decoders below leave it.
 * A strip at a time, so that B's part and the sums stay in L1 and the caller rounds them
 * there. Exact whenever the caller's operands make every partial sum a double
 * (mxe_wgmma_exact.c); the order of the FMAs is then immaterial.
 */
void mxe_kern_wgmma_d64_avx512(const double *a, const double *bs, unsigned k, unsigned w,
			       double *s);
/**
 * mxe_kern_wgmma_d64_add_avx512() - a strip of 32 columns as mxe_kern_wgmma_d64_avx512()
 * sums it, each block of 4 rows finished as mxe_finish_f32_add_avx512() does while its
 * sums are in registers: row i of D (@d, @ldd bytes apart) = its sums + row i of C (@c,
 * @ldc apart), C's exponents in the window [@c_lo, @c_lo + @c_span]. A row whose C lies
 * outside goes through mxe_finish_f32_avx512() (its sums put in @s, 32 doubles); @left[i]
 * has the outputs of row i left to the caller.
 */
void mxe_kern_wgmma_d64_add_avx512(const double *a, const double *bs, unsigned kk,
				   const float *c, size_t ldc, float *d, size_t ldd, int c_lo,
				   int c_span, double *s, uint64_t left[64]);
/**
 * mxe_wgmma_decode8_avx512(), mxe_wgmma_decode16_avx512() - a WGMMA's operands as doubles,
 * negated where @neg_a / @neg_b: A's 64 rows (@lda bytes apart) into @ad as they are, B's
 * @n rows (@ldb apart; @n a multiple of 8) into @bt K-major in strips of 32 columns (the
 * last one narrower), strip after strip, as mxe_kern_wgmma_d64_avx512() takes them. 8-bit codes (K = 32): E4M3 where @e4m3_a /
 * @e4m3_b, else E5M2, decoded through F16 (B's E4M3 values then 2^8 low, A's carrying
 * that factor: the products are exact); BF16 (@bf16) or F16 elements (K = 16) converted.
 */
void mxe_wgmma_decode8_avx512(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
			      unsigned n, int e4m3_a, int e4m3_b, int neg_a, int neg_b,
			      double *ad, double *bt);
void mxe_wgmma_decode16_avx512(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
			       unsigned n, int bf16, int neg_a, int neg_b, double *ad, double *bt);
/**
 * mxe_wgmma_w16_rows_avx512() - a WGMMA's E4M3 rows (32 codes, @ld bytes apart) as int16
 * windows (struct mxe_kw16): row r's values over 2^-9, negated where @neg, over 2^w[r]
 * (the leading bit of its largest magnitude less 12; 0 for a row of zeros) into @hi:
 * with @ldt 0, 16 words of int16 pairs a row; else K-major, @hi[kp * @ldt + r] (whole
 * groups of 16 rows: @ldt at least @rows rounded up to 16). 0 when a row holds a NaN
 * code or values more than 13 bits apart (a part under its window: the caller takes
 * the double sums instead).
 */
int mxe_wgmma_w16_rows_avx512(const uint8_t *p, size_t ld, unsigned rows, int neg,
			      uint32_t *hi, size_t ldt, int *w);
/**
 * mxe_kern_wgmma_w16_vnni() - one strip of @w columns (a multiple of 8, at most 32) of a
 * WGMMA on int16 windows: @s[i * @w + j] = (the int32 dot product of A's row i, @a[i *
 * 16 ..], and column j of @bt, [16][@ldb] words) x 2^(@wa[i] + @wb[j] - 18), exact (a
 * product of 32 pairs below 2^13 sums below 2^31; the factors are powers of two in
 * range). AVX512-VNNI.
 */
void mxe_kern_wgmma_w16_vnni(const uint32_t *a, const uint32_t *bt, size_t ldb, unsigned w,
			     const int *wa, const int *wb, double *s);
/*
 * The same two on AVX2 hosts (vpmaddwd and vpaddd; rows in groups of 8, @w at most 32 and
 * a multiple of 8: the kernel reads no column past the strip).
 */
int mxe_wgmma_w16_rows_avx2(const uint8_t *p, size_t ld, unsigned rows, int neg,
			    uint32_t *hi, size_t ldt, int *w);
void mxe_kern_wgmma_w16_avx2(const uint32_t *a, const uint32_t *bt, size_t ldb, unsigned w,
			     const int *wa, const int *wb, double *s);
/* mxe_kern_wgmma_w16_add_vnni() on AVX2 hosts: a strip of 32 columns, each row's sums
 * finished from registers in groups of 16 as mxe_finish_rows_f32_add_avx2() finishes them */
void mxe_kern_wgmma_w16_add_avx2(const uint32_t *a, const uint32_t *bt, size_t ldb,
				 const int *wa, const int *wb, const float *c, size_t ldc,
				 float *d, size_t ldd, int c_lo, int c_span, double *s,
				 uint64_t left[64]);
/**
 * mxe_kern_wgmma_w16_add_vnni() - a strip of 32 columns as mxe_kern_wgmma_w16_vnni() sums
 * it, each row finished while its sums are in registers as mxe_kern_wgmma_d64_add_avx512()
 * does (C's exponents in the window [@c_lo, @c_lo + @c_span]; else through @s and
 * mxe_finish_f32_avx512()); @left[i] has the outputs of row i left to the caller.
 */
void mxe_kern_wgmma_w16_add_vnni(const uint32_t *a, const uint32_t *bt, size_t ldb,
				 const int *wa, const int *wb, const float *c, size_t ldc,
				 float *d, size_t ldd, int c_lo, int c_span, double *s,
				 uint64_t left[64]);
/**
 * mxe_wgmma_exp_fields_avx512() - the smallest (subnormals count as 1) and largest
 * exponent fields over the nonzero finite elements of @rows rows of 32 bytes, @ld apart:
 * 8-bit codes of @mbits mantissa bits (@e4m3: 0x7F is NaN, else the top field is Inf or
 * NaN) or 16-bit elements (@bits16). None: *@lo = ~0, *@hi = 0.
 */
void mxe_wgmma_exp_fields_avx512(const uint8_t *p, size_t ld, unsigned rows, int bits16,
				 unsigned mbits, int e4m3, unsigned *lo, unsigned *hi);

/**
 * struct mxe_ks8 - int8 panels of MX types whose elements are small integers times
 * a power of two (E2M1, E2M3, MXINT8; mxe_tiled.c), for the int8 kernels. Per 32-k
 * block the kernels form each row and column's exact dot product of the integers
 * (vpdpbusd with AVX512-VNNI, vpmaddubsw and vpmaddwd with AVX2), remove the bias,
 * and scale it by the row's and the
 * column's factor: the f32 chain q of the float kernels, exactly (the caller
 * checks that no such q, nor any factor, leaves f32's range).
 * @a:   A panel, this K range: [k / 4][MXE_MR][4] bytes, each integer + the bias (the
 *       largest magnitude of A's type: the bytes are 0 .. 255); for the AVX2 kernels'
 *       @g 16, [k / 2][MXE_MR] words of int16 pairs (the even k low), no bias
 * @b0:  B panel: [k / 4][MXE_NR][4] int8 (@g 16: [k / 2][MXE_NR] int16 pair words);
 *       @b1 the next one (== @b0: none)
 * @sa:  per block, MXE_MR row factors 2^(scale + lowest bit); the next block's
 *       @sa_step floats on
 * @sb0, @sb1: per block, MXE_NR column factors; @cb0, @cb1: the bias x each
 *       column's sum of its block's integers (the bias to remove); @sb_step on
 */
struct mxe_ks8 {
	const uint8_t *a;
	const int8_t *b0, *b1;
	const float *sa, *sb0, *sb1;
	const int32_t *cb0, *cb1;
	size_t sa_step, sb_step;
};

/* FAST: the float kernels' update of @u0 / @u1 (@u1->nr == 0: none); @k a multiple of 32. */
void mxe_kern_s8x2_vnni(const struct mxe_ks8 *in, size_t k, const struct mxe_kf32 *u0,
			const struct mxe_kf32 *u1);
/* EXACT: the block sums, as doubles, added to @u (struct mxe_kx64, up to 32 columns). */
void mxe_kern_s8x2_vnni_x64(const struct mxe_ks8 *in, size_t k, const struct mxe_kx64 *u);
/*
 * The same without VNNI, one B panel (@in->b0; @u nr <= 16): vpmaddubsw adds two
 * products in int16; with @g 8 a block's eight such sums are added in int16 before
 * they are widened, with @g 2 two at a time, with @g 1 each is widened at once. The
 * caller keeps them inside int16 (mxe_tiled.c, s8_avx2_group()). With @g 16 the panels
 * hold int16 pairs (no bias, each block's @cb zero) and vpmaddwd adds each pair in
 * int32: no bound. AVX2 hosts.
 */
void mxe_kern_s8_avx2(const struct mxe_ks8 *in, size_t k, unsigned g, const struct mxe_kf32 *u);
void mxe_kern_s8_avx2_x64(const struct mxe_ks8 *in, size_t k, unsigned g,
			  const struct mxe_kx64 *u);

/*
 * struct mxe_kw16 - EXACT's int16 windows (mxe_tiled.c, TK_W16) of MX operands whose
 * 32-k blocks (a row's or a column's) each hold integers below 2^13 in magnitude times
 * one power of two, the block's window 2^W (its scale, its type's lowest bit, its top
 * bit less 12): E4M3 data whose nonzero values span at most 13 bits, say. A block's
 * 32 products of two such integers sum in int32 (vpdpwssd: |sum| <= 32 (2^13 - 1)^2 <
 * 2^31), then shift left by the row's and the column's W less the operation's least
 * and join an int64 sum: every step exact (the caller bounds the shifts).
 * @a:   A panel, per 32-k block [16 k pairs][MXE_MR] words, each an int16 pair (the
 *       even k in the low half); blocks one after another
 * @b0:  B panel [16][MXE_NR] per block; @b1 the next one (== @b0: none)
 * @sha: per block, MXE_MR row shifts, @sha_step on; @shb0, @shb1: MXE_NR column
 *       shifts, @shb_step on
 */
struct mxe_kw16 {
	const uint32_t *a, *b0, *b1;
	const int32_t *sha, *shb0, *shb1;
	size_t sha_step, shb_step;
};

/*
 * @nblk blocks into the int64 sums @t (MXE_MR rows x 32 columns, rows @ldt apart; with
 * @first from 0): rows below @mr and columns below @nr are read and written.
 * AVX512-VNNI.
 */
void mxe_kern_w16x2_vnni(const struct mxe_kw16 *in, size_t nblk, int64_t *t, ptrdiff_t ldt,
			 unsigned mr, unsigned nr, int first);
/* The same for one B panel (@in->b0; @nr <= 16) with vpmaddwd, on AVX2 hosts. */
void mxe_kern_w16_avx2(const struct mxe_kw16 *in, size_t nblk, int64_t *t, ptrdiff_t ldt,
		       unsigned mr, unsigned nr, int first);

/*
 * struct mxe_kw16u - one 32-k block's parts under the windows (TK_W16), the products the
 * kernel leaves out: @ah the A panel's block of windows ([16][MXE_MR] words of int16
 * pairs), @bh the B panels' ([16][MXE_NR], @bh[1] for columns 16..31); @al, @bl lists
 * of @na, @nb parts under the windows, each a word MXE_W16_UNDER(value, k, row); @sa, @sb
 * the rows' and the 32 columns' shifts.
 * mxe_w16_under_avx512(): A's parts against B's windows into @t1 and against B's parts
 * into @t2, B's parts against A's windows into @t1, each shifted as the kernel shifts
 * (the parts' windows lie 13 bits under); rows below @mr, columns below @nr.
 */
#define MXE_W16_UNDER(v, k, r) ((uint32_t)(uint16_t)(v) | (uint32_t)(k) << 16 | (uint32_t)(r) << 21)
struct mxe_kw16u {
	const uint32_t *ah, *bh[2], *al, *bl[2];
	unsigned na, nb[2];
	const int32_t *sa, *sb;
};

/* A's part @e (row r) against B's parts at its k, into @t2r (row r of T2; columns < @nr). */
static inline void mxe_w16_under_both(const struct mxe_kw16u *u, uint32_t e, int64_t *t2r,
				      unsigned nr)
{
	unsigned k = e >> 16 & 31, r = e >> 21;

	for (unsigned h = 0; h < 2; h++) {
		for (unsigned z = 0; z < u->nb[h]; z++) {
			uint32_t f = u->bl[h][z];
			unsigned j = 16 * h + (f >> 21);

			if ((f >> 16 & 31) == k && j < nr)
				t2r[j] += (int64_t)((int16_t)e * (int16_t)f) *
					  ((int64_t)1 << (u->sa[r] + u->sb[j]));
		}
	}
}

void mxe_w16_under_avx512(const struct mxe_kw16u *u, int64_t *t1, int64_t *t2, ptrdiff_t ldt,
			  unsigned mr, unsigned nr);
/* The same in plain C (AVX2 hosts: such parts are rare). */
void mxe_w16_under_portable(const struct mxe_kw16u *u, int64_t *t1, int64_t *t2, ptrdiff_t ldt,
			    unsigned mr, unsigned nr);

/*
 * mxe_w16_pairs_avx512() - @n (at most 64) of TK_W16's sums T0 + T1 2^-13 + T2 2^-26 (@t0,
 * @t1, @t2; |T0|, |T2| < 2^61) as pairs of doubles times @unit, @h + @l exact, with @h
 * = fl(T0) where T1 and T2 are zero; returns the mask of the lanes left to the caller,
 * those with |T1| >= 2^48, whose rest can pass 2^63 units of 2^-26.
 */
uint64_t mxe_w16_pairs_avx512(const int64_t *t0, const int64_t *t1, const int64_t *t2, unsigned n,
			      double unit, double *h, double *l);
/* The same for AVX2 hosts, four lanes a vector (no vcvtqq2pd: the halves converted apart). */
uint64_t mxe_w16_pairs_avx2(const int64_t *t0, const int64_t *t1, const int64_t *t2, unsigned n,
			    double unit, double *h, double *l);

/*
 * The int16 windows of a row of codes of MX type @t (E4M3, E3M2, E2M3, E2M1 or
 * MXINT8), through @lut (each code's integer: its value over the type's lowest bit,
 * negated as the operation says; INT32_MIN for NaN and Inf).
 * mxe_w16_tops_avx512(): per 32-k block of the @nb from the row's start, the exponent
 * of the leading bit of its largest magnitude (MXE_W16_ZERO: all zeros) into @top, and
 * the number of elements with a part under their block's window added to *@under; 0
 * when a block holds a NaN or Inf code or spans more than 26 bits (two windows).
 * mxe_w16_block_avx512(): the 32 integers of the block from element @k0, each
 * magnitude split at 2^(@top - 12): the part above over that into @hi, the rest over
 * 2^(@top - 25) into @lo, both with the integer's sign (so |hi|, |lo| < 2^13);
 * returns the mask of the nonzero lo (none for a block within 13 bits).
 */
#define MXE_W16_ZERO (-128)
#if defined(__x86_64__)
#include <emmintrin.h>
/* E2M1 codes, two a byte with the low nibble first: @b's low 8 bytes as 16 bytes, one
 * code each (SSE2; each reader widens them to its vector width) */
static inline __m128i mxe_w16_e2m1_bytes(__m128i b)
{
	__m128i m = _mm_set1_epi8(0x0F);

	return _mm_unpacklo_epi8(_mm_and_si128(b, m), _mm_and_si128(_mm_srli_epi16(b, 4), m));
}
#endif
int mxe_w16_tops_avx512(const uint8_t *row, unsigned t, const int32_t *lut, size_t nb,
			int8_t *top, size_t *under);
uint32_t mxe_w16_block_avx512(const uint8_t *row, unsigned t, const int32_t *lut, size_t k0,
			      int top, int16_t *hi, int16_t *lo);
/* The same for AVX2 hosts (Zen 3), 8 lanes a vector. */
int mxe_w16_tops_avx2(const uint8_t *row, unsigned t, const int32_t *lut, size_t nb,
		      int8_t *top, size_t *under);
uint32_t mxe_w16_block_avx2(const uint8_t *row, unsigned t, const int32_t *lut, size_t k0,
			    int top, int16_t *hi, int16_t *lo);

/*
 * The int8 panels' packing of one 32-k block of E2M1 codes (16 bytes at @codes, the low
 * nibble first) through @lut (the 16 codes' integers): the 32 integers at @v, each plus
 * @bias (A's; 0 for B); returns their sum (without the bias). AVX2 hosts.
 */
int32_t mxe_s8_e2m1_block(const uint8_t *codes, const int8_t *lut, int bias, int8_t *v);
/* The same for 32 one-byte codes of E2M3 (the low six bits through @lut's first 64) or,
 * with @lut NULL, MXINT8 (each code its own integer). */
int32_t mxe_s8_byte_block(const uint8_t *codes, const int8_t *lut, int bias, int8_t *v);

/** Apply the update of struct mxe_kf32 to a computed MR x NR block @p. */
void mxe_kf32_apply(const float *p, const struct mxe_kf32 *u);
void mxe_ks32_apply(const int32_t *p, const struct mxe_ks32 *u);

/*
 * Row decoders: n elements of a packed row, starting at element @k0, into
 * f32 (exact). @lut is the type's 256-entry table for 8-bit and narrower
 * float types. Scales and negation are applied by the caller.
 */
void mxe_decode_bf16_avx2(const uint16_t *src, float *dst, size_t n);
void mxe_decode_f16_avx2(const uint16_t *src, float *dst, size_t n);
void mxe_decode_lut8_avx2(const uint8_t *src, const float *lut, float *dst, size_t n);
/* e4m3 (@e4m3) or e5m2 elements k0..k0+n of a row, with the row's MX scales
 * (may be NULL) applied; every scaled value must be a normal-range-safe f32
 * (see mx_scales_safe() in mxe_tiled.c). */
/* dst[k * rows + i] = src[i * stride + k] for k < n, i < rows (6 or 16):
 * moves 32-bit words, float or not, bit for bit. */
void mxe_interleave_avx2(const float *src, size_t stride, unsigned rows, size_t n, float *dst,
			 int nt);
/* Packing output that is read back only after the whole pack phase: with
 * @nt (or in mxe_copy_nt_avx2) 32-byte aligned rows go out with
 * non-temporal stores (no read for ownership); mxe_sfence_avx2() orders
 * them before the phase ends. Data movement only. */
void mxe_copy_nt_avx2(const float *src, float *dst, size_t n);
void mxe_sfence_avx2(void);
/* dst[i] = src[i] as doubles (exact). */
void mxe_widen_f32_avx2(const float *src, double *dst, size_t n);
void mxe_widen_s8_avx2(const uint8_t *src, int16_t *dst, size_t n);
void mxe_decode_fp8_avx2(const uint8_t *src, float *dst, size_t n, int e4m3,
			 const uint8_t *scales, size_t k0);

/*
 * The EXACT WGMMA path's functions for AVX2 hosts (Zen 3): the AVX-512 ones' contracts,
 * with 4-double vectors. mxe_finish_f32_avx2() takes C alone (no separate sums), @n a
 * multiple of 4.
 */
void mxe_kern_wgmma_d64_avx2(const double *a, const double *bs, unsigned k, unsigned w,
			     double *s);
void mxe_wgmma_decode8_avx2(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
			    unsigned n, int e4m3_a, int e4m3_b, int neg_a, int neg_b,
			    double *ad, double *bt);
void mxe_wgmma_decode16_avx2(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
			     unsigned n, int bf16, int neg_a, int neg_b, double *ad, double *bt);
void mxe_wgmma_exp_fields_avx2(const uint8_t *p, size_t ld, unsigned rows, int bits16,
			       unsigned mbits, int e4m3, unsigned *lo, unsigned *hi);
uint64_t mxe_finish_f32_avx2(const double *s, const float *c, float *d, unsigned n);
/* mxe_finish_f32_add_avx512() in groups of 16 for @rows rows of @w sums (@s, @w apart; C
 * and D rows @ldc and @ldd bytes apart), row i's outputs left to the caller in @left[i] */
void mxe_finish_rows_f32_add_avx2(const double *s, unsigned w, const float *c, size_t ldc,
				  float *d, size_t ldd, unsigned rows, int c_lo, int c_span,
				  uint64_t *left);

#endif /* MXE_KERNELS_H */
