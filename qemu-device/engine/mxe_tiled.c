// SPDX-License-Identifier: MIT
/*
 * mxe_tiled.c - the FAST tiled GEMM path (and the integer path of both
 * numerics, whose results are exact either way, and EXACT for the MX types
 * whose 32-k blocks the float kernels sum exactly, or double kernels do).
 *
 * DOC: FAST numerics and how the work is cut
 *
 * Every input element is first converted exactly to f32 (MX scale applied,
 * TF32 rounded as the op says, negation applied). For each output element
 * K is cut into fixed blocks of MXE_FAST_KBLOCK elements from k = 0; inside
 * a block the products are chained with f32 FMA starting from +0, in
 * increasing k; the block sums are added in increasing block order to the
 * accumulator, which starts as C (or as the first block sum). NaN results
 * are written as 0x7FFFFFFF. None of this depends on tiling or threads.
 *
 * On AVX512-VNNI CPUs, MX E2M1/E2M3/MXINT8 operations are packed as int8
 * panels instead and each 32-k block summed as an integer dot product, which
 * is that block's f32 chain exactly (s8_applies()); the rest is the same. AVX2
 * CPUs do so too, as int16 pairs where a pair of bytes could overflow int16 (MXINT8
 * x MXINT8, a negated MXINT8). NVFP4 takes the same int16 pairs from its codes, each
 * element times its UE4M3 scale's integer, where its block sums are exact in f32
 * (mxe_tiled_nvfp4_run(), nv_applies()): EXACT on any CPU with AVX2, FAST too (on
 * AVX-512 ones only where M or N is below NV_FAST_WIDE_MIN).
 *
 * Integers (s8, s4) are multiplied as int16 pairs and summed exactly in
 * int32 (|sum| < 2^31 for up to 131072 products) and once in int64 with C,
 * then wrapped or clamped to int32; b1 uses popcount on 64-bit words.
 *
 * Work: A and B are packed into MR-row / NR-column panels for a "super
 * chunk" of K (a pack phase, split over threads), then the output tiles
 * are computed (a compute phase). INTRAWAVE uses one super chunk covering
 * all of K when the packed copy fits MXE_TILED_PACK_BUDGET, so each thread
 * runs its tiles over the whole K alone; INTERWAVE uses super chunks of one
 * K block, so all threads step through K together, sharing each packed
 * chunk, with the phase barrier between chunks. Cases the path does not
 * cover (f16 or f64 accumulators, MX scales that would make a scaled
 * element inexact in f32, unaligned strides) return 1 and run on the
 * exact path instead; that choice depends only on the operation.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_cpu.h"
#include "mxe_formats.h"
#include "mxe_gemm.h"
#include "mxe_kernels.h"
#include "mxe_pool.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define KB MXE_FAST_KBLOCK
#define MXE_TILED_PACK_BUDGET ((size_t)96 << 20)
#define MXE_TILED_KEEP_BYTES ((size_t)64 << 20)
#define INT_KMAX 131072		/* products per exact int32 block sum */
#define TILE_MP 24		/* row panels per output tile (144 rows) */
#define TILE_NP 16		/* column panels per output tile (256 columns) */
#define TILES_MIN 16		/* output tiles an operation is cut into at least, */
#define TILE_MP_MIN 6		/* unless its tiles would have fewer row panels */
#define PACK_A_PANELS 16
#define PACK_B_PANELS 8
#define PACK_TASKS_MIN 8	/* pack tasks per side at least (panels allowing) */
#define PACK_KC 64		/* K elements packed per pass (an L1-sized slice) */

/* float panels; int16 pairs (integer types); int8 panels of small-integer MX types
 * for the AVX512-VNNI kernels (a float operation, the float kernels' bits); int16
 * windows of MX blocks (EXACT, struct mxe_kw16) */
enum tkind { TK_F32, TK_S16, TK_S8, TK_W16 };

/* An NVFP4 operation's codes and UE4M3 scales, A's then B's (mxe_tiled_nvfp4_run()). */
struct nv_src {
	const uint8_t *codes[2], *scales[2];
	size_t ld[2], ld_s[2];
};

struct tiled {
	const struct mxe_op *op;
	enum tkind kind;
	size_t m, n, k;
	size_t mp, np;			/* A and B panels */
	size_t ks;			/* super chunk length (multiple of KB) */
	unsigned nsuper;
	size_t ks_words;		/* elements (f32) or pair words per panel row */
	void *apack, *bpack;
	unsigned tiles_m, tiles_n;
	size_t tile_mp, tile_np;	/* panels per output tile (<= TILE_MP, TILE_NP) */
	unsigned pack_a, pack_b;	/* pack tasks */
	size_t pack_ap, pack_bp;	/* panels per pack task */
	int32_t *sacc;			/* integer running partial (> 1 block) */
	int avx2;
	int bf16;			/* TK_F32 as BF16 pair words (bf16_applies()) */
	enum mxe_simd simd;
	int failed;
	mxe_kern_f32_fn kf32;
	mxe_kern_s16_fn ks16;
	/* EXACT: 1 through the float kernels (exact_blocks_certified()), 2 through
	 * the double kernels (exact_d64_certified()), 3 through int16 windows
	 * (w16_applies()) */
	int exact;
	void (*kx64)(const float *a, const float *b, size_t k, const struct mxe_kx64 *u);
	double *dacc;			/* the double sums of all of D (> 1 super chunk) */
	double *cacc;			/* exact 2: their TwoSum compensations */
	int exact_g;			/* every block sum a multiple of 2^exact_g */
	double exact_bound;		/* and every partial sum below this */
	/* TK_S8: per 32-k block of the super chunk, row and column factors and the
	 * columns' bias sums (struct mxe_ks8); element code -> integer per side */
	float *sfa, *sfb;
	int32_t *scb;
	int8_t lut8[2][256];
	int lsb8[2];
	int s8_bias;			/* added to A's integers: the largest magnitude of its type */
	unsigned s8_g;			/* without VNNI: s8_avx2_group(); 16: int16 pairs */
	const struct nv_src *nv;	/* NVFP4 codes behind a BF16 stand-in (int16 pairs) */
	/* its scales, found once (nv_scan()): 0 not yet, 1 found, -1 a NaN scale; per side
	 * the largest shift in a block and the lowest and highest x of a nonzero scale */
	int nv_state, nv_most[2], nv_xlo[2], nv_xhi[2];
	/* TK_W16: per side each code's integer, each row's blocks' leading bits (all of
	 * K), the least window exponent; per panel block the list of parts under the
	 * windows (in a panel of their own, the place of the block), per 32-k block of
	 * the super chunk the rows' and columns' shifts and per panel the lists' lengths;
	 * the three int64 sums of all of D (> 1 super chunk) */
	int32_t lut16[2][256];
	int w16_avx2;			/* the AVX2 functions (no AVX512-VNNI) */
	int8_t *w16_top[2];
	int w16_lsb[2], w16_wmin[2];
	void *apack_lo, *bpack_lo;
	int32_t *wsa, *wsb;
	uint16_t *wma, *wmb;
	int64_t *tacc;
	/* both sides' extreme scale exponents, found once (tiled_scales()) */
	int sc_state;			/* 0: not yet, 1: found, -1: a NaN scale */
	int sc_lo[2], sc_hi[2];
};

/* ---- exact conversion of one row segment to f32 / int16 ------------------ */

/* Smallest element exponent (its last bit) and floor(log2(max)) per type. */
static void mx_exp_range(unsigned t, int *lsb, int *top)
{
	switch (t) {
	case MXA_DTYPE_E4M3:
		*lsb = -9, *top = 8;
		break;
	case MXA_DTYPE_E5M2:
		*lsb = -16, *top = 15;
		break;
	case MXA_DTYPE_E3M2:
		*lsb = -4, *top = 4;
		break;
	case MXA_DTYPE_E2M3:
		*lsb = -3, *top = 2;
		break;
	case MXA_DTYPE_E2M1:
		*lsb = -1, *top = 2;
		break;
	default:	/* MXINT8 */
		*lsb = -6, *top = 0;
		break;
	}
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* Whether any of the @n codes at @r lies outside lo .. hi but for NaN (0xFF): 64 a step. */
__attribute__((target("avx512f,avx512bw")))
static int scales_bad_avx512(const uint8_t *r, size_t n, int lo, int hi)
{
	const __m512i vlo = _mm512_set1_epi8((char)lo), vhi = _mm512_set1_epi8((char)hi);
	const __m512i ones = _mm512_set1_epi8((char)0xFF);
	__mmask64 bad = 0;
	size_t b = 0;

	for (; b < n; b += 64) {
		__mmask64 in = n - b < 64 ? (__mmask64)-1 >> (64 - (n - b)) : (__mmask64)-1;
		__m512i c = _mm512_maskz_loadu_epi8(in, r + b);	/* no read past the codes */

		bad |= _mm512_mask_cmplt_epu8_mask(in, c, vlo) |
		       (_mm512_mask_cmpgt_epu8_mask(in, c, vhi) & _mm512_cmpneq_epi8_mask(c, ones));
	}
	return bad != 0;
}

/* The same, 32 a step: c < lo where max(c, lo) != c, c > hi where min(c, hi) != c. */
__attribute__((target("avx2")))
static int scales_bad_avx2(const uint8_t *r, size_t n, int lo, int hi)
{
	const __m256i vlo = _mm256_set1_epi8((char)lo), vhi = _mm256_set1_epi8((char)hi);
	const __m256i ones = _mm256_set1_epi8((char)0xFF);
	__m256i ok = _mm256_set1_epi8((char)0xFF);
	size_t b = 0;
	int bad = 0;

	for (; b + 32 <= n; b += 32) {
		__m256i c = _mm256_loadu_si256((const __m256i *)(r + b));

		ok = _mm256_and_si256(ok, _mm256_cmpeq_epi8(_mm256_max_epu8(c, vlo), c));
		ok = _mm256_and_si256(ok, _mm256_or_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(c, vhi), c),
							  _mm256_cmpeq_epi8(c, ones)));
	}
	bad = _mm256_movemask_epi8(ok) != -1;
	for (; b < n; b++)
		bad |= r[b] != 0xFF && (r[b] < lo || r[b] > hi);
	return bad;
}
#endif

/* Whether any of the @n codes at @r lies outside lo .. hi but for NaN (0xFF). */
static int scales_bad(const uint8_t *r, size_t n, int lo, int hi)
{
	size_t b = 0;
	int bad = 0;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (mxe_cpu_simd() >= MXE_SIMD_AVX512)
		return scales_bad_avx512(r, n, lo, hi);
	if (mxe_cpu_simd() >= MXE_SIMD_AVX2)
		return scales_bad_avx2(r, n, lo, hi);
#endif
#ifdef __SSE2__
	const __m128i flip = _mm_set1_epi8((char)0x80), ones = _mm_set1_epi8((char)0xFF);
	const __m128i vlo = _mm_set1_epi8((char)(lo ^ 0x80)), vhi = _mm_set1_epi8((char)(hi ^ 0x80));
	__m128i acc = _mm_setzero_si128();

	for (; b + 16 <= n; b += 16) {	/* unsigned compares: signed ones on c ^ 0x80 */
		__m128i c = _mm_loadu_si128((const __m128i *)(r + b)), x = _mm_xor_si128(c, flip);

		acc = _mm_or_si128(acc, _mm_cmpgt_epi8(vlo, x));
		acc = _mm_or_si128(acc, _mm_andnot_si128(_mm_cmpeq_epi8(c, ones),
							 _mm_cmpgt_epi8(x, vhi)));
	}
	bad = _mm_movemask_epi8(acc);
#endif
	for (; b < n; b++)
		bad |= r[b] != 0xFF && (r[b] < lo || r[b] > hi);
	return bad != 0;
}

/*
 * Whether every code of @nrows rows of @nb scale codes from @rows (or, when NULL, @ld
 * apart from @s) lies in @lo .. @hi or is NaN (0xFF); rows that follow each other in
 * memory checked as one: a 4096^2 GEMV's weights have 512 Ki scales, read before the
 * threads start (11 % of its time one code at a time, some 40 us 16 at a time in rows
 * of 128).
 */
static int scales_within(const uint8_t *s, const uint8_t *const *rows, size_t nrows, size_t nb,
			 size_t ld, int lo, int hi)
{
	for (size_t i = 0; i < nrows;) {
		const uint8_t *r = rows ? rows[i] : s + i * ld;
		size_t n = 1;

		while (i + n < nrows && (rows ? rows[i + n] : s + (i + n) * ld) == r + n * nb)
			n++;
		if (scales_bad(r, n * nb, lo, hi))
			return 0;
		i += n;
	}
	return 1;
}

/*
 * Every scaled element of type @t exact in f32? (NaN scales are fine: they poison.)
 * Code c (2^(c - 127)) is safe when c - 127 + lsb >= -149 and c - 127 + top <= 127.
 */
static int mx_scales_safe(unsigned t, const uint8_t *s, const uint8_t *const *rows,
			  size_t nrows, size_t nb, size_t ld)
{
	int lsb, top, lo, hi;

	mx_exp_range(t, &lsb, &top);
	lo = -22 - lsb < 0 ? 0 : -22 - lsb;
	hi = 254 - top > 254 ? 254 : 254 - top;
	return scales_within(s, rows, nrows, nb, ld, lo, hi);
}

int mxe_fast_pairs_b(const struct mxe_op *op, int la)
{
	int lsb, top, need = -126 - la > -126 ? -126 - la : -126;

	/* lsb + x >= need, x = code - 127 the least scale exponent */
	mx_exp_range(op->d.type_b, &lsb, &top);
	if (!op->scale_b)
		return lsb >= need;
	return need - lsb + 127 <= 0 ||
	       scales_within(op->d.scale_b, op->d.scale_b_rows, op->d.n, op->d.k / 32, op->ld_sb,
			     need - lsb + 127, 254);
}

int mxe_fast_scales_safe(const struct mxe_op *op)
{
	size_t nb = op->d.k / 32;

	if (op->scale_a && !mx_scales_safe(op->d.type_a, op->d.scale_a, NULL, op->d.m, nb, op->ld_sa))
		return 0;
	return !op->scale_b || mx_scales_safe(op->d.type_b, op->d.scale_b, op->d.scale_b_rows,
					      op->d.n, nb, op->ld_sb);
}

static void decode_f32(const struct mxe_op *op, unsigned t, const uint8_t *row,
		       size_t k0, size_t len, float *out, int avx2)
{
	const float *lut = mxe_decode_lut(t);

	switch (t) {
	case MXA_DTYPE_F32:
		memcpy(out, row + k0 * 4, len * 4);
		break;
	case MXA_DTYPE_TF32:
		for (size_t i = 0; i < len; i++) {
			uint32_t u;
			float f;

			memcpy(&u, row + (k0 + i) * 4, 4);
			if ((u & 0x7F800000u) != 0x7F800000u &&
			    op->d.tf32_input != MXE_TF32_IN_FULL) {
				if (op->d.tf32_input == MXE_TF32_IN_RNE)
					u += 0xFFFu + ((u >> 13) & 1);
				else if (op->d.tf32_input == MXE_TF32_IN_RNA)
					u += 0x1000u;
				u &= ~0x1FFFu;
			}
			memcpy(&f, &u, 4);
			out[i] = f;
		}
		break;
	case MXA_DTYPE_BF16:
		if (avx2) {
			mxe_decode_bf16_avx2((const uint16_t *)row + k0, out, len);
		} else {
			for (size_t i = 0; i < len; i++)
				out[i] = mxe_cvt_bf16_to_f32((uint16_t)mxe_row_code(t, row, k0 + i));
		}
		break;
	case MXA_DTYPE_F16:
		if (avx2) {
			mxe_decode_f16_avx2((const uint16_t *)row + k0, out, len);
		} else {
			for (size_t i = 0; i < len; i++)
				out[i] = mxe_cvt_f16_to_f32((uint16_t)mxe_row_code(t, row, k0 + i));
		}
		break;
	case MXA_DTYPE_E2M1:
		for (size_t i = 0; i < len; i++)
			out[i] = lut[mxe_row_code(t, row, k0 + i)];
		break;
	default:	/* 8-bit codes: E4M3, E5M2, E3M2, E2M3, MXINT8 */
		if (avx2) {
			mxe_decode_lut8_avx2(row + k0, lut, out, len);
		} else {
			for (size_t i = 0; i < len; i++)
				out[i] = lut[row[k0 + i]];
		}
		break;
	}
}

/* Apply MX scales of one row (@s: its scale bytes) to elements k0..k0+len. */
static void apply_scales(const uint8_t *s, size_t k0, size_t len, float *out)
{
	size_t i = 0;

	while (i < len) {
		size_t kk = k0 + i, blk = kk / MXA_MX_BLOCK;
		size_t end = (blk + 1) * MXA_MX_BLOCK - k0;
		uint8_t sb = s[blk];

		if (end > len)
			end = len;
		if (sb == 0xFF) {
			float nan = mxe_bits_f32(MXE_F32_CANON_NAN);

			for (; i < end; i++)
				out[i] = nan;
		} else if (sb != 127) {
			float f = (float)ldexp(1.0, (int)sb - 127);

			for (; i < end; i++)
				out[i] *= f;
		} else {
			i = end;
		}
	}
}

static void negate(float *out, size_t len)
{
	for (size_t i = 0; i < len; i++)
		out[i] = -out[i];
}

/* Row @r of A (side 0) or of B^T (side 1, N x K layout), elements k0.. */
static void row_f32(const struct tiled *tl, int side, size_t r, size_t k0, size_t len, float *out)
{
	const struct mxe_op *op = tl->op;
	unsigned t = side ? op->d.type_b : op->d.type_a;
	const uint8_t *base = side ? op->d.b : op->d.a;
	size_t ld = side ? op->ldb : op->lda;
	const uint8_t *sc = NULL;

	if (side ? op->scale_b : op->scale_a)
		sc = (side ? op->d.scale_b : op->d.scale_a) + r * (side ? op->ld_sb : op->ld_sa);
	if (tl->avx2 && (t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2)) {
		mxe_decode_fp8_avx2(base + r * ld + k0, out, len, t == MXA_DTYPE_E4M3, sc, k0);
	} else {
		decode_f32(op, t, base + r * ld, k0, len, out, tl->avx2);
		if (sc)
			apply_scales(sc, k0, len, out);
	}
	if (op->d.flags & (side ? MXE_GEMM_NEGATE_B : MXE_GEMM_NEGATE_A))
		negate(out, len);
}

/* The same as BF16 pair words (@len even; tl->bf16): E4M3 and E5M2 rows (@k0 and @len
 * multiples of 32) and BF16 ones straight from their codes, others through f32 in
 * @tmp (@len floats). */
static void row_pairs(const struct tiled *tl, int side, size_t r, size_t k0, size_t len,
		      float *tmp, uint32_t *out)
{
	const struct mxe_op *op = tl->op;
	unsigned t = side ? op->d.type_b : op->d.type_a;
	const uint8_t *row = (const uint8_t *)(side ? op->d.b : op->d.a) + r * (side ? op->ldb : op->lda);
	const uint8_t *sc = NULL;
	int neg = !!(op->d.flags & (side ? MXE_GEMM_NEGATE_B : MXE_GEMM_NEGATE_A));

	if (side ? op->scale_b : op->scale_a)
		sc = (side ? op->d.scale_b : op->d.scale_a) + r * (side ? op->ld_sb : op->ld_sa);
	if ((t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2) && k0 % 32 == 0 && len % 32 == 0) {
		mxe_fp8_pairs_avx512(row + k0, out, len, t == MXA_DTYPE_E4M3, sc, k0, neg);
	} else if (t == MXA_DTYPE_BF16 && !sc) {
		mxe_bf16_pairs_avx512((const uint16_t *)(const void *)row + k0, out, len, neg);
	} else {
		row_f32(tl, side, r, k0, len, tmp);
		mxe_bf16_pack_avx512(tmp, out, len);
	}
}

static void row_s16(const struct tiled *tl, int side, size_t r, size_t k0, size_t len, int16_t *out)
{
	const struct mxe_op *op = tl->op;
	unsigned t = side ? op->d.type_b : op->d.type_a;
	const uint8_t *row = (const uint8_t *)(side ? op->d.b : op->d.a) + r * (side ? op->ldb : op->lda);

	if (side && (op->d.flags & MXA_GEMM_F_B_KN)) {
		/* K x N (s8 only): column r */
		for (size_t i = 0; i < len; i++)
			out[i] = (int8_t)((const uint8_t *)op->d.b)[(k0 + i) * op->ldb + r];
		return;
	}
	if (t == MXA_DTYPE_S8) {
		if (tl->avx2)
			mxe_widen_s8_avx2(row + k0, out, len);
		else
			for (size_t i = 0; i < len; i++)
				out[i] = (int8_t)row[k0 + i];
	} else {
		for (size_t i = 0; i < len; i++)
			out[i] = (int16_t)((((int)mxe_row_code(t, row, k0 + i)) ^ 8) - 8);
	}
}

/* ---- packing ---------------------------------------------------------------- */

/*
 * Float panels are stored K-block major: K block b (KB elements of the
 * super chunk) of all panels, then block b + 1, so that a tile's panels for
 * one block are one sequential stream. Address of element @k (from the
 * super chunk's start) of panel @p, for the k-major B panels; a float A
 * panel's block starts at the same place (k a multiple of KB) and holds its
 * rows one after the other (stride MXE_KA_STRIDE = KB).
 */
static float *f32_panel(void *base, size_t npanels, unsigned rows, size_t p, size_t k)
{
	return (float *)base + ((k / KB * npanels + p) * KB + k % KB) * rows;
}

/* The same for 32-bit words made of int16 pairs (pure data movement; the
 * words are read with memcpy as they were written as int16). Non-temporal
 * where it can (16-row B panels): s8 2048^3 packing 4.9 -> 3.9 ms of
 * thread time with 2 threads. */
static void interleave32(const struct tiled *tl, const void *tmp, size_t stride,
			 unsigned rows, size_t n, uint32_t *dst)
{
	if (tl->avx2) {
		mxe_interleave_avx2(tmp, stride, rows, n, (float *)(void *)dst, 1);
		return;
	}
	for (size_t k = 0; k < n; k++)
		for (unsigned i = 0; i < rows; i++)
			memcpy(dst + k * rows + i, (const uint8_t *)tmp + (i * stride + k) * 4, 4);
}

/* Rows of @tmp (stride PACK_KC) into the k-major panel layout. */
static void interleave(const struct tiled *tl, const float *tmp, unsigned rows, size_t n,
		       float *dst)
{
	if (tl->avx2) {
		mxe_interleave_avx2(tmp, PACK_KC, rows, n, dst, 1);
		return;
	}
	for (size_t k = 0; k < n; k++)
		for (unsigned i = 0; i < rows; i++)
			dst[k * rows + i] = tmp[i * PACK_KC + k];
}

/*
 * Pack @rows (MXE_MR or MXE_NR) rows of one side, starting at row @r0 (rows
 * from @nvalid on are zero), elements k0..k0+len, into the k-major panel
 * @dst. Works in L1-sized K slices: decode each row's slice, then transpose.
 */
static void pack_panel(struct tiled *tl, int side, size_t r0, unsigned rows, size_t nvalid,
		       size_t k0, size_t len, void *base, size_t npanels, size_t pidx)
{
	if (tl->kind == TK_F32) {
		float *tmp = mxe_scratch(0, rows * PACK_KC * sizeof(float) + 64);

		if (!tmp) {
			tl->failed = 1;
			return;
		}
		for (size_t c0 = 0; c0 < len; c0 += PACK_KC) {
			size_t cl = len - c0 < PACK_KC ? len - c0 : PACK_KC;

			if (tl->bf16) {
				/* each row's pair words, then k-major into the block's first half */
				uint32_t pw[MXE_NR * PACK_KC / 2] __attribute__((aligned(64)));
				float *blk = f32_panel(base, npanels, rows, pidx, c0 - c0 % KB);

				for (unsigned r = 0; r < rows; r++) {
					if (r0 + r < nvalid)
						row_pairs(tl, side, r0 + r, k0 + c0, cl, tmp,
							  pw + r * PACK_KC / 2);
					else
						memset(pw + r * PACK_KC / 2, 0, cl / 2 * sizeof(uint32_t));
				}
				mxe_interleave_avx2((const float *)(const void *)pw, PACK_KC / 2, rows,
						    cl / 2, (float *)(void *)((uint32_t *)blk +
									c0 % KB / 2 * MXE_NR), 1);
				continue;
			}
			for (unsigned r = 0; r < rows; r++) {
				if (r0 + r < nvalid)
					row_f32(tl, side, r0 + r, k0 + c0, cl, tmp + r * PACK_KC);
				else
					memset(tmp + r * PACK_KC, 0, cl * sizeof(float));
			}
			interleave(tl, tmp, rows, cl, f32_panel(base, npanels, rows, pidx, c0));
		}
	} else {
		int16_t *tmp = mxe_scratch(0, rows * (PACK_KC + 2) * sizeof(int16_t) + 64);

		if (!tmp) {
			tl->failed = 1;
			return;
		}
		for (size_t c0 = 0; c0 < len; c0 += PACK_KC) {
			size_t cl = len - c0 < PACK_KC ? len - c0 : PACK_KC;

			for (unsigned r = 0; r < rows; r++) {
				int16_t *t = tmp + r * PACK_KC;

				t[cl] = 0;	/* odd K: the last pair's high half */
				if (r0 + r < nvalid)
					row_s16(tl, side, r0 + r, k0 + c0, cl, t);
				else
					memset(t, 0, cl * sizeof(int16_t));
			}
			/* little-endian: int16 pair (2kp, 2kp+1) is one vpmaddwd word */
			interleave32(tl, tmp, PACK_KC / 2, rows, (cl + 1) / 2,
				     (uint32_t *)base + pidx * rows * tl->ks_words + c0 / 2 * rows);
		}
	}
}

/* Float A: each row's K block is decoded straight into place (no transpose). */
static void pack_a_rows(struct tiled *tl, size_t p, size_t k0, size_t len)
{
	size_t r0 = p * MXE_MR;
	float *tmp = NULL;

	/* AVX2: through an L1 buffer, then out with non-temporal stores (or as pairs) */
	if (tl->avx2 && !(tmp = mxe_scratch(0, KB * sizeof(float)))) {
		tl->failed = 1;
		return;
	}
	for (size_t c0 = 0; c0 < len; c0 += KB) {
		size_t cl = len - c0 < KB ? len - c0 : KB;
		float *blk = f32_panel(tl->apack, tl->mp, MXE_MR, p, c0);

		for (unsigned r = 0; r < MXE_MR; r++) {
			if (r0 + r >= tl->m) {	/* pairs: half a row's bytes */
				memset(blk + r * (tl->bf16 ? MXE_KA_STRIDE / 2 : MXE_KA_STRIDE), 0,
				       cl * sizeof(float) >> tl->bf16);
			} else if (tl->bf16) {
				row_pairs(tl, 0, r0 + r, k0 + c0, cl, tmp,
					  (uint32_t *)(blk + r * MXE_KA_STRIDE / 2));
			} else if (tmp) {
				row_f32(tl, 0, r0 + r, k0 + c0, cl, tmp);
				mxe_copy_nt_avx2(tmp, blk + r * MXE_KA_STRIDE, cl);
			} else {
				row_f32(tl, 0, r0 + r, k0 + c0, cl, blk + r * MXE_KA_STRIDE);
			}
		}
	}
}

static void pack_s8_panel(struct tiled *tl, int side, size_t r0, unsigned rows, size_t nvalid,
			  size_t k0, size_t len, size_t pidx);
static void pack_w16_panel(struct tiled *tl, int side, size_t r0, unsigned rows, size_t nvalid,
			   size_t k0, size_t len, size_t pidx);

static void pack_a_panel(struct tiled *tl, size_t p, size_t k0, size_t len)
{
	if (tl->kind == TK_S8)
		pack_s8_panel(tl, 0, p * MXE_MR, MXE_MR, tl->m, k0, len, p);
	else if (tl->kind == TK_W16)
		pack_w16_panel(tl, 0, p * MXE_MR, MXE_MR, tl->m, k0, len, p);
	else if (tl->kind == TK_F32)
		pack_a_rows(tl, p, k0, len);
	else
		pack_panel(tl, 0, p * MXE_MR, MXE_MR, tl->m, k0, len, tl->apack, tl->mp, p);
}

/* B given as K x N, float types: row kk of B holds this panel's 16 columns. */
static void pack_b_panel_kn(struct tiled *tl, size_t q, size_t k0, size_t len)
{
	const struct mxe_op *op = tl->op;
	size_t j0 = q * MXE_NR, nv = tl->n - j0 < MXE_NR ? tl->n - j0 : MXE_NR;
	float tmp[MXE_NR];

	for (size_t kk = 0; kk < len; kk++) {
		const uint8_t *row = (const uint8_t *)op->d.b + (k0 + kk) * op->ldb;
		float *dst = f32_panel(tl->bpack, tl->np, MXE_NR, q, kk);

		decode_f32(op, op->d.type_b, row, j0, nv, tmp, tl->avx2);
		for (size_t c = 0; c < MXE_NR; c++) {
			float v = c < nv ? tmp[c] : 0.0f;

			if (c < nv && op->scale_b) {
				uint8_t s = op->d.scale_b[(j0 + c) * op->ld_sb + (k0 + kk) / MXA_MX_BLOCK];

				v = s == 0xFF ? mxe_bits_f32(MXE_F32_CANON_NAN)
					      : v * (float)ldexp(1.0, (int)s - 127);
			}
			if (c < nv && (op->d.flags & MXE_GEMM_NEGATE_B))
				v = -v;
			dst[c] = v;
		}
	}
	for (size_t kb = 0; tl->bf16 && kb < len; kb += KB) {	/* each block's pairs, in place */
		float *blk = f32_panel(tl->bpack, tl->np, MXE_NR, q, kb);

		mxe_bf16_fold_avx512(blk, len - kb < KB ? len - kb : KB, (uint32_t *)blk);
	}
}

static void pack_b_panel(struct tiled *tl, size_t q, size_t k0, size_t len)
{
	if (tl->kind == TK_S8)
		pack_s8_panel(tl, 1, q * MXE_NR, MXE_NR, tl->n, k0, len, q);
	else if (tl->kind == TK_W16)
		pack_w16_panel(tl, 1, q * MXE_NR, MXE_NR, tl->n, k0, len, q);
	else if (tl->kind == TK_F32 && (tl->op->d.flags & MXA_GEMM_F_B_KN))
		pack_b_panel_kn(tl, q, k0, len);
	else
		pack_panel(tl, 1, q * MXE_NR, MXE_NR, tl->n, k0, len, tl->bpack, tl->np, q);
}

static int scale_range(const struct mxe_op *op, int side, int *lo, int *hi);

/* Both sides' scale ranges (scale_range()), scanned once per operation: EXACT's
 * certificate and the int8 panels' check both need them. 0: a NaN scale. */
static int tiled_scales(struct tiled *tl)
{
	if (!tl->sc_state)
		tl->sc_state = scale_range(tl->op, 0, &tl->sc_lo[0], &tl->sc_hi[0]) &&
			       scale_range(tl->op, 1, &tl->sc_lo[1], &tl->sc_hi[1]) ? 1 : -1;
	return tl->sc_state > 0;
}

static uint64_t s8_ops;	/* operations run on the int8 panels (tests) */
static uint64_t bf16_ops;	/* FAST operations run on BF16 pair panels (tests) */

/* ---- BF16 pair panels -------------------------------------------------------- */

/*
 * A side's elements for BF16 pairs: *@lsb the exponent of the lowest bit any nonzero
 * element may have. 0 where one could be inexact in BF16 (more than 8 significant bits:
 * F16, TF32, F32) or subnormal in f32 (vdpbf16ps would flush it). MX types and FP8: from
 * the type and the least scale; BF16: from the data (the least exponent of a nonzero
 * element, minus its 7 fraction bits).
 */
static int bf16_side(struct tiled *tl, int side, int *lsb)
{
	const struct mxe_op *op = tl->op;
	unsigned t = side ? op->d.type_b : op->d.type_a;
	int top;

	if (t == MXA_DTYPE_BF16) {
		int kn = side && (op->d.flags & MXA_GEMM_F_B_KN);
		size_t rows = kn ? op->d.k : side ? op->d.n : op->d.m;
		size_t cols = kn ? op->d.n : op->d.k;
		unsigned e = 255;

		for (size_t r = 0; r < rows && e; r++) {
			const void *row = side ? (const void *)mxe_op_b_row(op, r) :
					  (const uint8_t *)op->d.a + r * op->lda;
			unsigned er = mxe_bf16_min_exp_avx512(row, cols);

			e = er < e ? er : e;
		}
		*lsb = e == 255 ? 0 : (int)e - 127 - 7;	/* all zeros: any grid */
		return e > 0;
	}
	if (!mxe_dtype_is_mx_elem(t) || t == MXA_DTYPE_NVFP4 || !tiled_scales(tl))
		return 0;
	mx_exp_range(t, lsb, &top);	/* the type's least nonzero magnitude */
	*lsb += tl->sc_lo[side];
	return *lsb >= -126;
}

/*
 * FAST on BF16 pairs (mxe_kern_bf16x2_avx512()): an AVX512-BF16 host, whole MX
 * sub-blocks, every element exact in BF16 and normal, and every product on a grid of at
 * least 2^-126, so that no product or partial sum of a chain is subnormal.
 */
static int bf16_applies(struct tiled *tl)
{
	int la, lb;

	if (tl->simd < MXE_SIMD_AVX512BF16 || tl->kind != TK_F32 || tl->exact || tl->nv ||
	    tl->k % MXE_FAST_KSUB)
		return 0;
	return bf16_side(tl, 0, &la) && bf16_side(tl, 1, &lb) && la + lb >= -126;
}

/* ---- int8 panels (TK_S8) ----------------------------------------------------- */

/* Bytes an element of the int8 panels takes: 2 where they hold int16 pairs. */
static unsigned s8_esize(const struct tiled *tl)
{
	return tl->s8_g == 16 ? 2 : 1;
}

/* The bytes of element @k (a multiple of 4) of panel @p: f32_panel()'s layout in
 * bytes, each k group of four holding [rows][4] (int16 pairs: each pair [rows][2]). */
static uint8_t *s8_panel(const struct tiled *tl, void *base, size_t npanels, unsigned rows,
			 size_t p, size_t k)
{
	return (uint8_t *)base + ((k / KB * npanels + p) * KB + k % KB) * rows * s8_esize(tl);
}

/* Integer of each code of a side's type (its value over 2^lowest bit; NVFP4: E2M1's
 * codes, twice their value), negated as the op says. */
static void s8_lut(struct tiled *tl, int side)
{
	const struct mxe_op *op = tl->op;
	unsigned t = tl->nv ? MXA_DTYPE_E2M1 : side ? op->d.type_b : op->d.type_a;
	const float *lut = mxe_decode_lut(t);
	int neg = !!(op->d.flags & (side ? MXE_GEMM_NEGATE_B : MXE_GEMM_NEGATE_A)), top;

	mx_exp_range(t, &tl->lsb8[side], &top);
	for (unsigned c = 0; c < 256; c++) {
		int v = (int)ldexpf(lut[c], -tl->lsb8[side]);

		tl->lut8[side][c] = (int8_t)(neg ? -v : v);
	}
}

/* 2^(scale + lowest bit) of row @r's block @b (MXINT8's 2^-6, E2M1's 2^-1 ...). */
static float s8_factor(const struct tiled *tl, int side, size_t r, size_t b)
{
	const struct mxe_op *op = tl->op;
	int e = tl->lsb8[side];

	if (side ? op->scale_b : op->scale_a)
		e += (int)(side ? mxe_op_b_scales(op, r) : op->d.scale_a + r * op->ld_sa)[b] - 127;
	/* a normal power of two on its bits (ldexpf was a tenth of the packing) */
	return e >= -126 && e <= 127 ? mxe_bits_f32((uint32_t)(e + 127) << 23) : ldexpf(1.0f, e);
}

/* A block's 32 integers @v (negated where @neg) as int16 pairs, the even k low, into
 * @dst[kp * @rows] for each k pair kp. */
static void s16_pairs(const int8_t *v, int neg, uint32_t *dst, unsigned rows)
{
	for (unsigned kp = 0; kp < MXA_MX_BLOCK / 2; kp++) {
		int lo = neg ? -v[2 * kp] : v[2 * kp], hi = neg ? -v[2 * kp + 1] : v[2 * kp + 1];

		dst[kp * rows] = (uint32_t)(uint16_t)lo | (uint32_t)(uint16_t)hi << 16;
	}
}

/*
 * Row @r's 32-k block @b of an NVFP4 side: its two halves' scales m 2^x; the lower x of
 * the nonzero ones is the block's grid, the other half's shift above it in *@shift.
 * Returns the grid's x, INT_MAX for a block of zero scales, INT_MIN for a NaN scale.
 */
static inline int nv_block(const struct nv_src *nv, int side, size_t r, size_t b, int m[2],
			   int shift[2])
{
	const uint8_t *sc = nv->scales[side] + r * nv->ld_s[side] + 2 * b;
	int x[2], lo;

	if (mxe_ue4m3_nan(sc[0]) || mxe_ue4m3_nan(sc[1]))
		return INT_MIN;
	m[0] = mxe_ue4m3_int(sc[0], &x[0]);
	m[1] = mxe_ue4m3_int(sc[1], &x[1]);
	lo = !m[0] ? (m[1] ? x[1] : INT_MAX) : !m[1] || x[0] < x[1] ? x[0] : x[1];
	shift[0] = m[0] ? x[0] - lo : 0;
	shift[1] = m[1] ? x[1] - lo : 0;
	return lo;
}

/* Row @r's 32-k block @b of an NVFP4 side as integers (@v) times *@fac: an element's
 * code's integer (twice its E2M1 value, negated as the op says) times its scale's m,
 * shifted above the block's grid; fac = 2^(grid - 1). */
static void nv_pack_block(const struct tiled *tl, int side, size_t r, size_t b, int16_t *v,
			  float *fac)
{
	const struct nv_src *nv = tl->nv;
	int m[2], shift[2], lo = nv_block(nv, side, r, b, m, shift);	/* no NaN: nv_scan() */
	int8_t c8[MXA_MX_BLOCK];

	*fac = lo == INT_MAX ? 1.0f : mxe_bits_f32((uint32_t)(lo - 1 + 127) << 23);
	/* the codes' integers (E2M1's table; AVX2 hosts only take this path) */
	mxe_s8_e2m1_block(nv->codes[side] + r * nv->ld[side] + b * MXA_MX_BLOCK / 2,
			  tl->lut8[side], 0, c8);
	for (int h = 0; h < 2; h++) {
		int16_t f = (int16_t)(m[h] << shift[h]);

		for (int i = 0; i < MXA_NVFP4_BLOCK; i++)
			v[h * MXA_NVFP4_BLOCK + i] = (int16_t)(c8[h * MXA_NVFP4_BLOCK + i] * f);
	}
}

/* The 32-k block @b of a panel's @rows rows from @r0 (zeros from @nvalid on) of an
 * NVFP4 side, as s16_pairs() lays them out, the panel's words written in order; the
 * rows' factors into @fac. */
static void nv_pack_rows(const struct tiled *tl, int side, size_t r0, unsigned rows,
			 size_t nvalid, size_t b, uint32_t *dst, float *fac)
{
	uint32_t words[MXE_NR][MXA_MX_BLOCK / 2];	/* k pairs of each row: int16 pairs */

	for (unsigned r = 0; r < rows; r++) {
		if (r0 + r < nvalid) {
			nv_pack_block(tl, side, r0 + r, b, (int16_t *)(void *)words[r], &fac[r]);
		} else {
			memset(words[r], 0, sizeof(words[r]));
			fac[r] = 1.0f;
		}
	}
	for (unsigned kp = 0; kp < MXA_MX_BLOCK / 2; kp++)
		for (unsigned r = 0; r < rows; r++)
			dst[kp * rows + r] = words[r][kp];
}

/*
 * Pack @rows rows of a side from @r0 (zeros from @nvalid on), elements k0 .. k0 +
 * len (multiples of 32), into panel @pidx: A's integers + tl->s8_bias as bytes, B's as
 * int8 with each block's column sums (times the bias) and factors; or both sides'
 * integers as int16 pairs (tl->s8_g 16, no bias).
 */
static void pack_s8_panel(struct tiled *tl, int side, size_t r0, unsigned rows, size_t nvalid,
			  size_t k0, size_t len, size_t pidx)
{
	const struct mxe_op *op = tl->op;
	unsigned t = side ? op->d.type_b : op->d.type_a;
	const uint8_t *base = side ? op->d.b : op->d.a;
	size_t ld = side ? op->ldb : op->lda, npanels = side ? tl->np : tl->mp;
	void *pack = side ? tl->bpack : tl->apack;
	float *fac = side ? tl->sfb : tl->sfa;
	int8_t v[MXA_MX_BLOCK];
	/* a negated MXINT8 (int16 pairs only): the integers negated as they widen */
	int neg16 = t == MXA_DTYPE_MXINT8 &&
		    (op->d.flags & (side ? MXE_GEMM_NEGATE_B : MXE_GEMM_NEGATE_A));

	for (size_t c = 0; c < len; c += MXA_MX_BLOCK) {
		size_t blk = c / MXA_MX_BLOCK, at = (blk * npanels + pidx) * rows;
		uint8_t *dst = s8_panel(tl, pack, npanels, rows, pidx, c);	/* 32 k: one run */

		if (tl->nv) {	/* NVFP4: int16 pairs, no bias, no sums */
			nv_pack_rows(tl, side, r0, rows, nvalid, (k0 + c) / MXA_MX_BLOCK,
				     (uint32_t *)(void *)dst, &fac[at]);
			if (side)
				memset(&tl->scb[at], 0, rows * sizeof(tl->scb[0]));
			continue;
		}
		for (unsigned r = 0; r < rows; r++) {
			int32_t sum = 0;

			if (r0 + r < nvalid) {	/* the integers, biased for A, and their sum */
				const uint8_t *row = base + (r0 + r) * ld;

				if (t == MXA_DTYPE_E2M1)
					sum = mxe_s8_e2m1_block(row + (k0 + c) / 2, tl->lut8[side],
								side ? 0 : tl->s8_bias, v);
				else	/* E2M3 through its table; MXINT8 (never negated here) as is */
					sum = mxe_s8_byte_block(row + k0 + c, t == MXA_DTYPE_E2M3 ?
								tl->lut8[side] : NULL,
								side ? 0 : tl->s8_bias, v);
				fac[at + r] = s8_factor(tl, side, r0 + r, (k0 + c) / MXA_MX_BLOCK);
			} else {	/* a padding row: zeros (A's biased) */
				memset(v, side ? 0 : tl->s8_bias, sizeof(v));
				fac[at + r] = 1.0f;
			}
			if (side)
				tl->scb[at + r] = tl->s8_bias * sum;
			if (tl->s8_g == 16)	/* int16 pairs: k pairs of [rows] words */
				s16_pairs(v, neg16, (uint32_t *)(void *)dst + r, rows);
			else
				for (unsigned g = 0; g < MXA_MX_BLOCK / 4; g++)	/* k groups of four */
					memcpy(dst + g * rows * 4 + r * 4, v + 4 * g, 4);
		}
	}
}

/* The largest magnitude of a type's integers (its values over its lowest bit). */
static int s8_max_int(unsigned t)
{
	const float *lut = mxe_decode_lut(t);
	int lsb, top, max = 0;

	mx_exp_range(t, &lsb, &top);
	for (unsigned c = 0; c < 256; c++) {
		int v = abs((int)ldexpf(lut[c], -lsb));

		max = v > max ? v : max;
	}
	return max;
}

/*
 * Without VNNI (AVX2), vpmaddubsw adds two products of A's biased byte and B's integer
 * in int16. A's bias @bias_a is its type's largest magnitude, so its bytes lie in 0 .. twice
 * that (MXINT8: 0 .. 255), the least that makes them unsigned: 8 when a 32-k block's
 * eight pair sums a lane add up inside int16 (E2M1 x E2M1: 8 x 576; E2M1 x E2M3 and
 * E2M3 x E2M1: 8 x 2880), 2 when two k groups' do and each two are widened (E2M3 x
 * E2M3: 2 x 14400; E2M1 x MXINT8: 2 x 6144; MXINT8 x E2M1: 2 x 6120), 1 when one pair
 * sum does and each is widened at once (E2M3 x MXINT8: 30720; MXINT8 x E2M3: 30600),
 * 0 when one could pass 2^15 - 1 (MXINT8 x MXINT8: 65280; the float kernels run).
 */
static unsigned s8_avx2_group(int bias_a, unsigned tb)
{
	int top = 2 * bias_a < 255 ? 2 * bias_a : 255;
	long pair = 2L * top * s8_max_int(tb);

	return 8 * pair <= INT16_MAX ? 8 : 2 * pair <= INT16_MAX ? 2 : pair <= INT16_MAX ? 1 : 0;
}

/* An NVFP4 operation's scales, read once (tl->nv_*); 0: a NaN scale. */
static int nv_scan(struct tiled *tl)
{
	if (tl->nv_state)
		return tl->nv_state > 0;
	tl->nv_state = -1;
	for (int side = 0; side < 2; side++) {
		size_t rows = side ? tl->n : tl->m;
		int most = 0, lo = INT_MAX, hi = INT_MIN;

		for (size_t r = 0; r < rows; r++) {
			for (size_t b = 0; b < tl->k / MXA_MX_BLOCK; b++) {
				int m[2], shift[2], x = nv_block(tl->nv, side, r, b, m, shift);

				if (x == INT_MIN)
					return 0;
				if (x == INT_MAX)
					continue;
				shift[0] = shift[0] > shift[1] ? shift[0] : shift[1];
				most = shift[0] > most ? shift[0] : most;
				lo = x < lo ? x : lo;
				hi = x + shift[0] > hi ? x + shift[0] : hi;
			}
		}
		tl->nv_most[side] = most;
		tl->nv_xlo[side] = lo;
		tl->nv_xhi[side] = hi;
	}
	tl->nv_state = 1;
	return 1;
}

/*
 * EXACT's certificate for an NVFP4 operation on the int16 pairs (exact_blocks_certified()
 * for its types): every block sum is a multiple of 2^g, g the two sides' lowest grids
 * (x - 1 each), and with |element| <= 6 x 15 x 2^x < 2^(x + 7) no partial sum of K
 * products reaches 2^(g + 53). A side without a nonzero scale makes every sum zero.
 */
static int nv_exact_certified(struct tiled *tl)
{
	int g, top;

	if (tl->op->d.sched == MXE_SCHED_INTERWAVE || !nv_scan(tl))
		return 0;
	if (tl->nv_xlo[0] == INT_MAX || tl->nv_xlo[1] == INT_MAX)
		return 1;
	g = tl->nv_xlo[0] - 1 + tl->nv_xlo[1] - 1;
	top = tl->nv_xhi[0] + 7 + tl->nv_xhi[1] + 7;
	tl->exact_g = g;
	tl->exact_bound = (double)tl->k * ldexp(1.0, top);
	return tl->exact_bound < ldexp(1.0, g + 53);
}

/*
 * FAST on an AVX-512 host takes the pairs below this many rows or columns, where the
 * BF16 copies and their f32 panels cost more than the AVX-512 kernels save (bench-engine
 * --types nvfp4, 2 threads: 2048^3 259-264 GFLOP/s on the pairs, 293-300 on the BF16
 * kernels; 1024^3 235-239 / 235-248; 512^3 110-163 / 113-118; M = 1 and 8 x 4096^2
 * 13 ms / 155 and 117 ms).
 */
#define NV_FAST_WIDE_MIN 1024

/*
 * Whether an NVFP4 operation (tl->nv) runs as int16 pairs (s8_lut() then gives their
 * tables): on the
 * AVX2 kernel (with VNNI the panels hold bytes, too narrow for these integers; FAST on
 * an AVX-512 host only for narrow operations, NV_FAST_WIDE_MIN), K
 * a multiple of 32, no NaN scale, and shifts small enough that FAST's f32 chain over a
 * 32-k block cannot round: a half's 16 products stay below 16 x (12 x 15)^2 < 2^19
 * units of their own grid, and with the largest shift of A's blocks and of B's adding
 * up to at most 4 the block's sum stays below 2^19 x 17 < 2^24 units of the block's
 * grid, so every partial sum of the chain is that integer exactly (and +0 where it is
 * 0), as the kernel's sum is, and so is EXACT's block sum. Elements then reach
 * 12 x 15 x 2^4 = 2880: int16.
 */
static int nv_applies(struct tiled *tl)
{
	if (tl->simd < MXE_SIMD_AVX2 || (!tl->exact && tl->simd != MXE_SIMD_AVX2 &&
					 tl->m >= NV_FAST_WIDE_MIN && tl->n >= NV_FAST_WIDE_MIN) ||
	    tl->k % MXA_MX_BLOCK || !nv_scan(tl) || tl->nv_most[0] + tl->nv_most[1] > 4)
		return 0;
	tl->simd = MXE_SIMD_AVX2;	/* its kernels, panels and rounding, on any host */
	tl->s8_g = 16;
	tl->s8_bias = 0;
	return 1;
}

/* Row @r of an NVFP4 side's values (element x scale, negated as the op says) into @out,
 * as mxe_op_row_values() gives the BF16 copies'. */
static void nv_row_values(const struct tiled *tl, int side, size_t r, double *out)
{
	const struct nv_src *nv = tl->nv;

	mxe_nvfp4_row_values(nv->codes[side] + r * nv->ld[side], nv->scales[side] + r * nv->ld_s[side],
			     tl->k, !!(tl->op->d.flags & (side ? MXE_GEMM_NEGATE_B : MXE_GEMM_NEGATE_A)),
			     out);
}

/* Output (i, j) of an NVFP4 operation on the general exact path (mxe_exact_output()). */
static int nv_exact_output(const struct tiled *tl, size_t i, size_t j)
{
	double *a = mxe_scratch(0, 2 * tl->k * sizeof(double));

	if (!a)
		return -1;
	nv_row_values(tl, 0, i, a);
	nv_row_values(tl, 1, j, a + tl->k);
	mxe_exact_output_rows(tl->op, i, j, a, a + tl->k);
	return 0;
}

/*
 * Whether the int8 panels take @tl's float operation: E2M1, E2M3 or MXINT8 on both
 * sides (integers of at most 8 bits over the type's lowest bit), an AVX512-VNNI
 * CPU or an AVX2 one, every block's exact sum and
 * factor inside f32 (products on a grid of at least 2^-149, block sums below 2^127:
 * the float kernels' q exactly), no NaN scale, B as N x K, and with VNNI no negated
 * MXINT8 (-(-128) is not an int8). On AVX2, bytes where s8_avx2_group() allows, else
 * int16 pairs (vpmaddwd: in measured 2048^3 runs faster than the float kernels, where
 * vpmaddubsw's pairs, widened at once, were not).
 */
static int s8_applies(struct tiled *tl)
{
	const struct mxe_op *op = tl->op;
	int la, ta, lb, tb, neg8 = 0;
	unsigned t[2] = { op->d.type_a, op->d.type_b };

	if (tl->nv)
		return nv_applies(tl);

	/* (AVX-512 without VNNI keeps its float kernels: 16 lanes a FMA, two B panels) */
	if ((tl->simd < MXE_SIMD_AVX512VNNI && tl->simd != MXE_SIMD_AVX2) ||
	    (op->d.flags & MXA_GEMM_F_B_KN) || tl->k % MXA_MX_BLOCK)
		return 0;
	for (int side = 0; side < 2; side++) {
		if (t[side] != MXA_DTYPE_E2M1 && t[side] != MXA_DTYPE_E2M3 &&
		    t[side] != MXA_DTYPE_MXINT8)
			return 0;
		if (t[side] == MXA_DTYPE_MXINT8 &&
		    (op->d.flags & (side ? MXE_GEMM_NEGATE_B : MXE_GEMM_NEGATE_A)))
			neg8 = 1;
	}
	if (neg8 && tl->simd != MXE_SIMD_AVX2)
		return 0;
	tl->s8_bias = s8_max_int(t[0]);
	tl->s8_g = tl->simd == MXE_SIMD_AVX2 && !neg8 ? s8_avx2_group(tl->s8_bias, t[1]) : 0;
	if (tl->simd == MXE_SIMD_AVX2 && !tl->s8_g) {
		tl->s8_g = 16;
		tl->s8_bias = 0;
	}
	mx_exp_range(t[0], &la, &ta);
	mx_exp_range(t[1], &lb, &tb);
	if (!tiled_scales(tl))
		return 0;
	/* |block sum| < 32 * 128 * 128 = 2^19 units of the two lowest bits */
	return la + lb + tl->sc_lo[0] + tl->sc_lo[1] >= -149 &&
	       la + lb + tl->sc_hi[0] + tl->sc_hi[1] + 19 <= 127;
}

/* ---- int16 windows (TK_W16, EXACT) -------------------------------------------- */

static uint64_t w16_ops;	/* operations run on int16 windows (tests) */

/* The words of k pair @k / 2 (k a multiple of 32) of panel @p: each 32-k block holds
 * [16][rows] words, f32_panel()'s K-block order. */
static uint32_t *w16_panel(void *base, size_t npanels, unsigned rows, size_t p, size_t k)
{
	return (uint32_t *)base + ((k / KB * npanels + p) * (KB / 2) + k % KB / 2) * rows;
}

static const uint8_t *w16_row(const struct mxe_op *op, int side, size_t r)
{
	return side ? mxe_op_b_row(op, r) : (const uint8_t *)op->d.a + r * op->lda;
}

/* The window exponent of row @r's block @b: its scale, the type's lowest bit and the
 * block's leading bit less 12 (the integers lie below 2^13). */
static int w16_window(const struct tiled *tl, int side, size_t r, size_t b, int top)
{
	const struct mxe_op *op = tl->op;
	int e = tl->w16_lsb[side] + top - 12;

	if (side ? op->scale_b : op->scale_a)
		e += (int)(side ? mxe_op_b_scales(op, r) : op->d.scale_a + r * op->ld_sa)[b] - 127;
	return e;
}

/*
 * Whether int16 windows take @tl's EXACT operation (AVX512-VNNI, or AVX2): E4M3, E3M2, E2M3,
 * E2M1 or MXINT8 on both sides, B as N x K, no NaN scale, no NaN or Inf code (every
 * block of these types fits two windows: mxe_w16_tops_avx512()), few enough parts
 * under the windows, and the int64 sums bounded. Output (i, j) sums |s_b| 2^(sa_ib + sb_jb) over its blocks, each |s_b| <
 * 2^31 and the shifts at most the sides' spans Ra, Rb of window exponents: with SA the
 * largest sum over a row of A of 2^sa_ib (and SB for B), that is below 2^31 min(SA
 * 2^Rb, SB 2^Ra), which must stay below 2^61 (the sum of the cross parts, two such
 * terms a block, below 2^62 for the pair's conversion). Reads every block once,
 * stopping at the first that fails.
 */
static int w16_applies(struct tiled *tl)
{
	const struct mxe_op *op = tl->op;
	size_t nb = tl->k / MXA_MX_BLOCK, under[2] = { 0, 0 };
	double rows_max[2], bound[2];
	int span[2];

	/* AVX-512 without VNNI keeps the double kernels (16 lanes of them) */
	if ((mxe_cpu_simd() < MXE_SIMD_AVX512VNNI && mxe_cpu_simd() != MXE_SIMD_AVX2) ||
	    (op->d.flags & MXA_GEMM_F_B_KN) || tl->k % MXA_MX_BLOCK || !tiled_scales(tl))
		return 0;
	tl->w16_avx2 = mxe_cpu_simd() == MXE_SIMD_AVX2;
	for (int side = 0; side < 2; side++) {
		unsigned t = side ? op->d.type_b : op->d.type_a;
		int neg = !!(op->d.flags & (side ? MXE_GEMM_NEGATE_B : MXE_GEMM_NEGATE_A)), top;
		size_t rows = side ? tl->n : tl->m;
		const float *lut = mxe_decode_lut(t);
		int lo = INT_MAX, hi = INT_MIN;

		if (t != MXA_DTYPE_E4M3 && t != MXA_DTYPE_E3M2 && t != MXA_DTYPE_E2M3 &&
		    t != MXA_DTYPE_E2M1 && t != MXA_DTYPE_MXINT8)
			return 0;
		mx_exp_range(t, &tl->w16_lsb[side], &top);
		for (unsigned c = 0; c < 256; c++) {
			int v = (int)ldexpf(lut[c], -tl->w16_lsb[side]);

			tl->lut16[side][c] = !isfinite(lut[c]) ? INT32_MIN : neg ? -v : v;
		}
		tl->w16_top[side] = malloc(rows * nb);
		if (!tl->w16_top[side])
			return 0;
		rows_max[side] = 0;
		for (size_t r = 0; r < rows; r++) {
			int8_t *tops = tl->w16_top[side] + r * nb;
			double sum = 0;	/* of 2^window, exact enough: < 2^26 powers of two */

			if (!(tl->w16_avx2 ? mxe_w16_tops_avx2 : mxe_w16_tops_avx512)(
				    w16_row(op, side, r), t, tl->lut16[side], nb, tops, &under[side]))
				return 0;
			for (size_t b = 0; b < nb; b++) {
				int w = w16_window(tl, side, r, b, tops[b]);

				if (tops[b] == MXE_W16_ZERO)
					continue;
				lo = w < lo ? w : lo;
				hi = w > hi ? w : hi;
				/* 2^w on its bits (|w| < 300; ldexp was 7 % of a 1024^3 run) */
				sum += mxe_bits_f64((uint64_t)(w + 1023) << 52);
			}
			rows_max[side] = sum > rows_max[side] ? sum : rows_max[side];
		}
		tl->w16_wmin[side] = lo == INT_MAX ? 0 : lo;
		span[side] = lo == INT_MAX ? 0 : hi - lo;
		rows_max[side] = ldexp(rows_max[side], -tl->w16_wmin[side]);
	}
	bound[0] = ldexp(rows_max[0], 31 + span[1]);
	bound[1] = ldexp(rows_max[1], 31 + span[0]);
	if ((bound[0] < bound[1] ? bound[0] : bound[1]) >= 0x1p61)
		return 0;
	/* Parts under the windows cost vector steps the kernel does not: about N for each
	 * of A's (32 columns a step), 4 M / 3 for each of B's (6 rows a step), against
	 * M N K / 19 for the kernel (320 steps a 6 x 32 x 32 block). Where they would more
	 * than double the work (random codes: half the elements), the double kernels run. */
	return (double)under[0] * (double)tl->n + (double)under[1] * (double)tl->m * 4 / 3 <
	       (double)tl->m * (double)tl->n * (double)tl->k / 19;
}

/*
 * Pack @rows rows of a side from @r0 (zeros from @nvalid on), elements k0 .. k0 + len
 * (multiples of 32), into panel @pidx: each block's integers over its window as int16
 * pairs, the parts under the windows (mxe_w16_block_avx512()) as a list in the same
 * place of the low panels (32 a row at most: it fits), and its shift (the window less
 * the side's least; 0 for zeros).
 */
static void pack_w16_panel(struct tiled *tl, int side, size_t r0, unsigned rows, size_t nvalid,
			   size_t k0, size_t len, size_t pidx)
{
	const struct mxe_op *op = tl->op;
	unsigned t = side ? op->d.type_b : op->d.type_a;
	size_t npanels = side ? tl->np : tl->mp, nb = tl->k / MXA_MX_BLOCK;
	void *pack = side ? tl->bpack : tl->apack, *pack_lo = side ? tl->bpack_lo : tl->apack_lo;
	int32_t *sh = side ? tl->wsb : tl->wsa;
	uint16_t *count = side ? tl->wmb : tl->wma;
	int16_t v[MXA_MX_BLOCK], lo[MXA_MX_BLOCK];

	for (size_t c = 0; c < len; c += MXA_MX_BLOCK) {
		size_t blk = c / MXA_MX_BLOCK, b = (k0 + c) / MXA_MX_BLOCK;
		size_t at = (blk * npanels + pidx) * rows;
		uint32_t *dst = w16_panel(pack, npanels, rows, pidx, c);
		uint32_t *list = w16_panel(pack_lo, npanels, rows, pidx, c);
		unsigned n = 0;

		for (unsigned r = 0; r < rows; r++) {
			int top = r0 + r < nvalid ? tl->w16_top[side][(r0 + r) * nb + b] : MXE_W16_ZERO;

			if (top == MXE_W16_ZERO) {
				memset(v, 0, sizeof(v));
				sh[at + r] = 0;
			} else {
				uint32_t under = (tl->w16_avx2 ? mxe_w16_block_avx2 : mxe_w16_block_avx512)(
					w16_row(op, side, r0 + r), t, tl->lut16[side], k0 + c, top, v, lo);

				for (; under; under &= under - 1) {
					unsigned k = (unsigned)__builtin_ctz(under);

					list[n++] = MXE_W16_UNDER(lo[k], k, r);
				}
				sh[at + r] = w16_window(tl, side, r0 + r, b, top) - tl->w16_wmin[side];
			}
			for (unsigned kp = 0; kp < MXA_MX_BLOCK / 2; kp++)
				memcpy(dst + kp * rows + r, v + 2 * kp, 4);
		}
		count[blk * npanels + pidx] = (uint16_t)n;
	}
}

/*
 * The products the kernel leaves out (mxe_w16_under_avx512()), for @nblk blocks of A
 * panel @p against B panels @q .. from element @kr of the super chunk, where the
 * blocks' masks name rows or columns with parts under their windows: rare on data
 * that fits (w16_applies() weighs them), so most blocks cost two loads here.
 */
static void w16_residuals(const struct tiled *tl, size_t p, size_t q, unsigned strip, size_t kr,
			  size_t nblk, int64_t *t1, int64_t *t2, ptrdiff_t ldt, unsigned mr,
			  unsigned nr)
{
	for (size_t x = 0; x < nblk; x++) {
		size_t blk = kr / MXA_MX_BLOCK + x, kb = kr + x * MXA_MX_BLOCK;
		struct mxe_kw16u u = {
			.na = tl->wma[blk * tl->mp + p],
			.nb = { tl->wmb[blk * tl->np + q], strip == 2 ? tl->wmb[blk * tl->np + q + 1] : 0 },
		};

		if (!u.na && !u.nb[0] && !u.nb[1])
			continue;
		u.ah = w16_panel(tl->apack, tl->mp, MXE_MR, p, kb);
		u.al = w16_panel(tl->apack_lo, tl->mp, MXE_MR, p, kb);
		for (unsigned h = 0; h < 2; h++) {	/* strip 1: panel q twice, columns < 16 */
			u.bh[h] = w16_panel(tl->bpack, tl->np, MXE_NR, q + (h < strip ? h : 0), kb);
			u.bl[h] = w16_panel(tl->bpack_lo, tl->np, MXE_NR, q + (h < strip ? h : 0), kb);
		}
		u.sa = tl->wsa + (blk * tl->mp + p) * MXE_MR;
		u.sb = tl->wsb + (blk * tl->np + q) * MXE_NR;	/* panel q + 1's next */
		(tl->w16_avx2 ? mxe_w16_under_portable : mxe_w16_under_avx512)(&u, t1, t2, ldt, mr, nr);
	}
}

/* The int16 windows of A panel @p and B panels @q (.. @q + 1 when @strip is 2) from
 * element @kr of the super chunk (a multiple of KB). */
static void w16_in(const struct tiled *tl, size_t p, size_t q, size_t kr, unsigned strip,
		   struct mxe_kw16 *in)
{
	size_t blk = kr / MXA_MX_BLOCK;

	in->a = w16_panel(tl->apack, tl->mp, MXE_MR, p, kr);
	in->b0 = w16_panel(tl->bpack, tl->np, MXE_NR, q, kr);
	in->b1 = strip == 2 ? w16_panel(tl->bpack, tl->np, MXE_NR, q + 1, kr) : in->b0;
	in->sha = tl->wsa + (blk * tl->mp + p) * MXE_MR;
	in->shb0 = tl->wsb + (blk * tl->np + q) * MXE_NR;
	in->shb1 = strip == 2 ? in->shb0 + MXE_NR : in->shb0;
	in->sha_step = tl->mp * MXE_MR;
	in->shb_step = tl->np * MXE_NR;
}

/* ---- phases ----------------------------------------------------------------- */

static unsigned tiled_phase_tasks(void *arg, unsigned phase)
{
	struct tiled *tl = arg;

	if (phase >= 2 * tl->nsuper || tl->failed)
		return 0;
	if (phase % 2 == 0)
		return tl->pack_a + tl->pack_b;
	return tl->tiles_m * tl->tiles_n;
}

static void chunk_range(const struct tiled *tl, unsigned s, size_t *k0, size_t *k1)
{
	*k0 = (size_t)s * tl->ks;
	*k1 = *k0 + tl->ks < tl->k ? *k0 + tl->ks : tl->k;
}

static void do_pack(struct tiled *tl, unsigned s, unsigned task)
{
	size_t k0, k1;

	chunk_range(tl, s, &k0, &k1);
	if (task < tl->pack_a) {
		size_t p0 = (size_t)task * tl->pack_ap;
		size_t p1 = p0 + tl->pack_ap < tl->mp ? p0 + tl->pack_ap : tl->mp;

		for (size_t p = p0; p < p1; p++)
			pack_a_panel(tl, p, k0, k1 - k0);
	} else {
		size_t q0 = (size_t)(task - tl->pack_a) * tl->pack_bp;
		size_t q1 = q0 + tl->pack_bp < tl->np ? q0 + tl->pack_bp : tl->np;

		for (size_t q = q0; q < q1; q++)
			pack_b_panel(tl, q, k0, k1 - k0);
	}
	if (tl->avx2)
		mxe_sfence_avx2();
}

/*
 * When a tile runs all of K here (intrawave, one super chunk), its running
 * block sums live in a thread-local buffer with a stride that is not a
 * power of two (D's rows, often 2^n floats apart, fight for the same L2
 * sets): the first block writes it (from C or +0), the middle ones add to
 * it, and the last one reads it as its "C" and writes D. The additions are
 * the same, in the same order, as with D as the running value.
 */
/* The int8 panels of A panel @p and B panels @q (.. @q + 1 when @strip is 2) from
 * element @kr of the super chunk (a multiple of KB). */
static void s8_in(const struct tiled *tl, size_t p, size_t q, size_t kr, unsigned strip,
		  struct mxe_ks8 *in)
{
	size_t blk = kr / MXA_MX_BLOCK, sq = (blk * tl->np + q) * MXE_NR;

	in->a = s8_panel(tl, tl->apack, tl->mp, MXE_MR, p, kr);
	in->b0 = (const int8_t *)s8_panel(tl, tl->bpack, tl->np, MXE_NR, q, kr);
	in->b1 = strip == 2 ? (const int8_t *)s8_panel(tl, tl->bpack, tl->np, MXE_NR, q + 1, kr)
			    : in->b0;
	in->sa = tl->sfa + (blk * tl->mp + p) * MXE_MR;
	in->sb0 = tl->sfb + sq;
	in->sb1 = strip == 2 ? in->sb0 + MXE_NR : in->sb0;
	in->cb0 = tl->scb + sq;
	in->cb1 = strip == 2 ? in->cb0 + MXE_NR : in->cb0;
	in->sa_step = tl->mp * MXE_MR;
	in->sb_step = tl->np * MXE_NR;
}

#define TBUF_LD (TILE_NP * MXE_NR + 16)

static void compute_f32(struct tiled *tl, size_t k0, size_t k1, size_t p0, size_t p1,
			size_t q0, size_t q1)
{
	const struct mxe_op *op = tl->op;
	int acc = !!(op->d.flags & MXA_GEMM_F_ACCUMULATE);
	size_t ldd = op->ldd / 4, ldc = op->ldc / 4;
	float *tbuf = NULL;

	int wide = tl->simd >= MXE_SIMD_AVX512;

	if (k0 == 0 && k1 == tl->k && tl->k > KB)
		tbuf = mxe_scratch(1, (size_t)TILE_MP * MXE_MR * TBUF_LD * sizeof(float));
	for (size_t kb0 = k0; kb0 < k1; kb0 += KB) {
		size_t len = k1 - kb0 < KB ? k1 - kb0 : KB;
		unsigned flags = 0;

		if (kb0 == 0)
			flags |= MXE_KF_FIRST | (acc ? MXE_KF_C : 0);
		if (kb0 + len == tl->k)
			flags |= MXE_KF_LAST;
		/* a strip: one B panel, or two with the AVX-512 kernel */
		for (size_t q = q0; q < q1; q += wide ? 2 : 1) {
			const float *b = f32_panel(tl->bpack, tl->np, MXE_NR, q, kb0 - k0);
			unsigned strip = wide && q + 1 < q1 ? 2 : 1;
			/* the int8 panels hold a byte an element, in their own layout */
			int s8 = tl->kind == TK_S8;
			const char *bnext = s8 ? (const char *)s8_panel(tl, tl->bpack, tl->np, MXE_NR,
									 q + strip, kb0 - k0)
					       : (const char *)(b + strip * MXE_NR * KB);
			size_t np = p1 - p0, next = q1 - q - strip < strip ? q1 - q - strip : strip;
			size_t lines = next * len * MXE_NR * (s8 ? s8_esize(tl) : sizeof(float)) / 64;
			/* BF16 pairs fill the first half of each panel's block */
			size_t pl = tl->bf16 ? len * MXE_NR * 2 / 64 : lines, per;

			lines = tl->bf16 ? next * pl : lines;
			per = (lines + np - 1) / np;

			for (size_t p = p0; p < p1; p++) {
				const float *a = f32_panel(tl->apack, tl->mp, MXE_MR, p, kb0 - k0);
				size_t i = p * MXE_MR;
				struct mxe_kf32 u[2];

				/* The next B strip streams in while this one is reused
				 * from L1: spread its prefetches over this strip's calls
				 * (measured: +5% at 2048^3). */
				for (size_t l = (p - p0) * per; l < (p - p0 + 1) * per && l < lines; l++)
					__builtin_prefetch(bnext + l / pl * (MXE_NR * KB * 4) + l % pl * 64,
							   0, 3);
				/* the running sums of the next call: fetched a whole call early */
				if (tbuf && p + 1 < p1)
					for (unsigned r = 0; r < MXE_MR; r++)
						for (unsigned h = 0; h < strip; h++)
							__builtin_prefetch(tbuf + ((p + 1 - p0) * MXE_MR + r) * TBUF_LD +
									   (q + h - q0) * MXE_NR, 1, 3);
				for (unsigned h = 0; h < 2; h++) {
					size_t j = (q + h) * MXE_NR;

					u[h] = (struct mxe_kf32){
						.d = (float *)op->d.d + i * ldd + j,
						.ldd = (ptrdiff_t)ldd,
						.c = acc ? (const float *)op->d.c + i * ldc + j : NULL,
						.ldc = (ptrdiff_t)ldc,
						.mr = tl->m - i < MXE_MR ? (unsigned)(tl->m - i) : MXE_MR,
						.nr = h >= strip ? 0 : tl->n - j < MXE_NR ?
							(unsigned)(tl->n - j) : MXE_NR,
						.flags = flags,
					};
					if (tbuf && u[h].nr) {
						float *t = tbuf + (i - p0 * MXE_MR) * TBUF_LD +
							   (j - q0 * MXE_NR);

						if (flags & MXE_KF_LAST) {
							u[h].c = t;
							u[h].ldc = TBUF_LD;
							u[h].flags = MXE_KF_FIRST | MXE_KF_C | MXE_KF_LAST;
						} else {
							u[h].d = t;
							u[h].ldd = TBUF_LD;
						}
					}
				}
				if (tl->kind == TK_S8) {
					struct mxe_ks8 in;

					s8_in(tl, p, q, kb0 - k0, strip, &in);
					if (tl->s8_g)
						mxe_kern_s8_avx2(&in, len, tl->s8_g, &u[0]);
					else
						mxe_kern_s8x2_vnni(&in, len, &u[0], &u[1]);
				} else if (tl->bf16) {
					mxe_kern_bf16x2_avx512((const uint32_t *)a, (const uint32_t *)b,
							       len, &u[0], &u[1]);
				} else if (wide) {
					mxe_kern_f32x2_avx512(a, b, len, &u[0], &u[1]);
				} else {
					tl->kf32(a, b, len, &u[0]);
				}
			}
		}
	}
}

static void compute_s16(struct tiled *tl, size_t k0, size_t k1, size_t p0, size_t p1,
			size_t q0, size_t q1)
{
	const struct mxe_op *op = tl->op;
	int acc = !!(op->d.flags & MXA_GEMM_F_ACCUMULATE);
	size_t ldd = op->ldd / 4, ldc = op->ldc / 4, lds = tl->n;
	const uint32_t *ap = tl->apack, *bp = tl->bpack;
	unsigned flags = 0;
	int last = k1 == tl->k, wide = tl->simd >= MXE_SIMD_AVX512;

	if (k0 == 0)
		flags |= MXE_KF_FIRST;
	if (last)
		flags |= MXE_KF_LAST | (acc ? MXE_KF_C : 0);
	if (op->d.flags & MXA_GEMM_F_SATFINITE)
		flags |= MXE_KF_SAT;
	/* a strip: one B panel, or two with the AVX-512 kernel */
	for (size_t q = q0; q < q1; q += wide ? 2 : 1) {
		const uint32_t *b = bp + q * MXE_NR * tl->ks_words;
		unsigned strip = wide && q + 1 < q1 ? 2 : 1;

		for (size_t p = p0; p < p1; p++) {
			const uint32_t *a = ap + p * MXE_MR * tl->ks_words;
			size_t i = p * MXE_MR;
			struct mxe_ks32 u[2];

			for (unsigned h = 0; h < 2; h++) {
				size_t j = (q + h) * MXE_NR;

				u[h] = (struct mxe_ks32){
					.d = last ? (int32_t *)op->d.d + i * ldd + j
						  : tl->sacc + i * lds + j,
					.ldd = (ptrdiff_t)(last ? ldd : lds),
					.s = tl->sacc ? tl->sacc + i * lds + j : NULL,
					.lds = (ptrdiff_t)lds,
					.c = acc ? (const int32_t *)op->d.c + i * ldc + j : NULL,
					.ldc = (ptrdiff_t)ldc,
					.mr = tl->m - i < MXE_MR ? (unsigned)(tl->m - i) : MXE_MR,
					.nr = h >= strip ? 0 : tl->n - j < MXE_NR ?
						(unsigned)(tl->n - j) : MXE_NR,
					.flags = flags,
				};
			}
			if (wide)
				mxe_kern_s16x2_avx512(a, b, b + MXE_NR * tl->ks_words,
						      (k1 - k0 + 1) / 2, &u[0], &u[1]);
			else
				tl->ks16(a, b, (k1 - k0 + 1) / 2, &u[0]);
		}
	}
}

/* ---- EXACT through the float kernels ----------------------------------------
 *
 * For MX types whose 32-k blocks sum exactly in f32 (e3m2, e2m3, e2m1,
 * mxint8: 23 bits at most, above 2^-149), the float kernels' sub-block
 * chains are exact block sums. EXACT then needs only their exact sum with
 * C, rounded once: the kernels add the block sums in doubles, which is
 * exact when every block sum is a multiple of 2^g and every partial sum is
 * below 2^(g + 53) -- a certificate from the types and the extreme scales,
 * checked once per operation. C is added last with TwoSum and the pair
 * rounded once; an element whose sum is zero (the sign of an exact zero is
 * the general path's rule), near the top of f32, or with a C that is not
 * finite, is redone on the general path.
 * The bits are mxe_exact_run()'s, whatever the kernel or the thread count.
 */

static uint64_t exact_redone;	/* elements handed to the general path (tests) */
static uint64_t exact_outputs;	/* elements this path computed */
static uint64_t exact_vector;	/* of those, rounded by mxe_finish_f32_avx512() */

/*
 * h + l rounded once to f32, where h = fl(h + l) (TwoSum): only when h is the
 * midpoint of two f32 values does l decide; otherwise h + l rounds as h does.
 */
static float round_pair_f32(double h, double l)
{
	float r = (float)h;
	uint64_t bits;

	memcpy(&bits, &h, sizeof(bits));
	/* in f32's normal range a midpoint has 1 and 28 zeros below f32's last bit */
	if (fabs(h) >= 0x1p-126 && (bits & 0x1FFFFFFFu) != 0x10000000u)
		return r;
	if (l != 0 && (double)r != h) {
		float o = nextafterf(r, h > (double)r ? INFINITY : -INFINITY);

		if (h == ((double)r + (double)o) / 2 && (l > 0) == (o > r))
			r = o;
	}
	return r;
}

/* (h, l) = TwoSum(x, y): h = fl(x + y), h + l = x + y exactly. */
static void two_sum(double x, double y, double *h, double *l)
{
	double t = x + y, bp = t - x;

	*l = (x - (t - bp)) + (y - bp);
	*h = t;
}

/*
 * One output (i, j): its sum h (exact 1) or h + cs (exact 2), exactly (the
 * certificate), plus C, rounded once into @d; 1 when it went to the general path.
 */
static unsigned finish_one(struct tiled *tl, double h, const double *cs, float *d, size_t i,
			   size_t j)
{
	const struct mxe_op *op = tl->op;
	double l = 0;

	if (cs)		/* h + l = s + c, |l| <= ulp(h) / 2 */
		two_sum(h, *cs, &h, &l);
	if (op->d.flags & MXA_GEMM_F_ACCUMULATE) {	/* h + l + v = the sum + C, exactly */
		double c = mxe_op_load_c(op, i, j), t, e, u, v;

		two_sum(h, c, &t, &e);
		two_sum(e, l, &u, &v);
		two_sum(t, u, &h, &e);	/* a C that cancelled: renormalise */
		two_sum(e, v, &l, &v);
		if (!isfinite(c))
			h = 0;
		/* l decides alone (v cannot change its sign) while |l| <= ulp(h) / 2;
		 * else (a tie of the last TwoSum) the general path */
		if (h != 0 && isfinite(h) && fabs(l) > ldexp(1.0, ilogb(h) - 53))
			h = 0;
	}
	/* a zero (its sign is the general path's rule), a C that is not finite, NaN or
	 * Inf elements (E4M3, E5M2), or a sum near the top of f32: the general path */
	if (h == 0 || !(fabs(h) < 0x1p127)) {
		if (tl->nv ? nv_exact_output(tl, i, j) : mxe_exact_output(op, i, j))
			tl->failed = 1;
		return 1;
	}
	*d = round_pair_f32(h, l);
	return 0;
}

/*
 * Round (i0, j0) .. of one kernel call into D; returns how many went to the general
 * path. On AVX-512 eight outputs at a time, f32 C read in place, and only what one
 * conversion cannot round goes through finish_one(): with K = 32 (a WGMMA) this step
 * was most of the operation: 64 x 256 x 32 E4M3 with C, one thread, 348 -> 53 us.
 */
static unsigned finish_exact(struct tiled *tl, const double *s, const double *cs, ptrdiff_t lds,
			     size_t i0, size_t j0, unsigned mr, unsigned nr)
{
	const struct mxe_op *op = tl->op;
	int acc = !!(op->d.flags & MXA_GEMM_F_ACCUMULATE);
	int f32c = !acc || op->d.type_c == MXA_DTYPE_F32;
	int wide = tl->simd >= MXE_SIMD_AVX512 && f32c;
	unsigned redo = 0, vector = 0;

	for (unsigned i = 0; i < mr; i++) {
		float *d = (float *)((uint8_t *)op->d.d + (i0 + i) * op->ldd) + j0;
		const double *si = s + i * lds, *ci = cs ? cs + i * lds : NULL;
		const float *c = acc ? (const float *)((const uint8_t *)op->d.c + (i0 + i) * op->ldc) +
				       j0 : NULL;
		uint64_t left = nr < 64 ? (1ull << nr) - 1 : ~0ull;
		int lows = 0;	/* AVX2: a row whose low parts are all zero, four at a time */

		for (unsigned j = 0; !wide && ci && j < nr; j++)
			lows |= ci[j] != 0;
		if (wide) {
			left = mxe_finish_f32_avx512(si, ci, c, d, nr);
			vector += nr - (unsigned)__builtin_popcountll(left);
		} else if (tl->avx2 && f32c && !lows && nr % 4 == 0) {
			left = mxe_finish_f32_avx2(si, c, d, nr);
		}
		for (; left; left &= left - 1) {
			unsigned j = (unsigned)__builtin_ctzll(left);

			redo += finish_one(tl, si[j], ci ? ci + j : NULL, d + j, i0 + i, j0 + j);
		}
	}
	__atomic_fetch_add(&exact_vector, vector, __ATOMIC_RELAXED);
	return redo;
}

static void compute_exact(struct tiled *tl, size_t k0, size_t k1, size_t p0, size_t p1,
			  size_t q0, size_t q1)
{
	int wide = tl->simd >= MXE_SIMD_AVX512;
	double *s = tl->dacc;
	ptrdiff_t lds = (ptrdiff_t)tl->n;
	size_t ti = 0, tj = 0;
	uint64_t done = 0, redo = 0;

	if (!s) {	/* one super chunk: the tile's sums on this thread */
		lds = TILE_NP * MXE_NR;
		s = mxe_scratch(1, (size_t)TILE_MP * MXE_MR * lds * sizeof(double));
		if (!s) {
			tl->failed = 1;
			return;
		}
		ti = p0 * MXE_MR;
		tj = q0 * MXE_NR;
	}
	for (size_t kb0 = k0; kb0 < k1; kb0 += KB) {
		size_t len = k1 - kb0 < KB ? k1 - kb0 : KB;
		int last = kb0 + len == tl->k;

		for (size_t q = q0; q < q1; q += wide ? 2 : 1) {
			const float *b = f32_panel(tl->bpack, tl->np, MXE_NR, q, kb0 - k0);
			unsigned strip = wide && q + 1 < q1 ? 2 : 1;
			size_t j = q * MXE_NR;

			for (size_t p = p0; p < p1; p++) {
				const float *a = f32_panel(tl->apack, tl->mp, MXE_MR, p, kb0 - k0);
				size_t i = p * MXE_MR;
				struct mxe_kx64 u = {
					.s = s + (i - ti) * lds + (j - tj),
					.lds = lds,
					.mr = tl->m - i < MXE_MR ? (unsigned)(tl->m - i) : MXE_MR,
					.nr = tl->n - j < strip * MXE_NR ? (unsigned)(tl->n - j) :
									    strip * MXE_NR,
					.first = kb0 == 0,
				};

				if (tl->kind == TK_S8) {
					struct mxe_ks8 in;

					s8_in(tl, p, q, kb0 - k0, strip, &in);
					if (tl->s8_g)
						mxe_kern_s8_avx2_x64(&in, len, tl->s8_g, &u);
					else
						mxe_kern_s8x2_vnni_x64(&in, len, &u);
				} else if (strip == 2 && u.nr > MXE_NR) {
					mxe_kern_x64x2_avx512(a, b, len, &u);
				} else {
					tl->kx64(a, b, len, &u);
				}
				if (last) {
					redo += finish_exact(tl, u.s, NULL, lds, i, j, u.mr, u.nr);
					done += (uint64_t)u.mr * u.nr;
				}
			}
		}
	}
	__atomic_fetch_add(&exact_outputs, done - redo, __ATOMIC_RELAXED);
	__atomic_fetch_add(&exact_redone, redo, __ATOMIC_RELAXED);
}

/*
 * EXACT through the double kernels (exact 2, AVX-512 hosts): per K block, the tile's A
 * panels become
 * double panels in a thread-local buffer (each is read by every B strip of the tile),
 * and so does each B strip (read by every A panel). Strips of half a block, to stay in
 * L1, ran slower: the pairs' loads and stores per call weigh more.
 */
static void compute_exact_d64(struct tiled *tl, size_t k0, size_t k1, size_t p0, size_t p1,
			      size_t q0, size_t q1)
{
	int wide = tl->simd >= MXE_SIMD_AVX512;
	double *s = tl->dacc, *cs = tl->cacc, *ad, *bd;
	ptrdiff_t lds = (ptrdiff_t)tl->n;
	size_t ti = 0, tj = 0;
	uint64_t done = 0, redo = 0;

	ad = mxe_scratch(4, (size_t)TILE_MP * MXE_MR * KB * sizeof(double));
	bd = mxe_scratch(5, (size_t)2 * MXE_NR * KB * sizeof(double));
	if (!s) {	/* one super chunk: the tile's pairs on this thread */
		lds = TILE_NP * MXE_NR;
		s = mxe_scratch(1, (size_t)2 * TILE_MP * MXE_MR * lds * sizeof(double));
		cs = s ? s + (size_t)TILE_MP * MXE_MR * lds : NULL;
		ti = p0 * MXE_MR;
		tj = q0 * MXE_NR;
	}
	if (!s || !ad || !bd) {
		tl->failed = 1;
		return;
	}
	for (size_t kb0 = k0; kb0 < k1; kb0 += KB) {
		size_t len = k1 - kb0 < KB ? k1 - kb0 : KB;
		int last = kb0 + len == tl->k;

		for (size_t p = p0; p < p1; p++) {	/* the same layout, rows KB apart */
			const float *a = f32_panel(tl->apack, tl->mp, MXE_MR, p, kb0 - k0);
			double *d = ad + (p - p0) * MXE_MR * KB;

			for (unsigned r = 0; r < MXE_MR; r++)
				mxe_widen_f32_avx2(a + r * MXE_KA_STRIDE, d + r * MXE_KA_STRIDE, len);
		}
		for (size_t q = q0; q < q1; q += wide ? 2 : 1) {
			unsigned strip = wide && q + 1 < q1 ? 2 : 1;
			size_t j = q * MXE_NR;

			for (unsigned h = 0; h < strip; h++)
				mxe_widen_f32_avx2(f32_panel(tl->bpack, tl->np, MXE_NR, q + h, kb0 - k0),
						   bd + h * MXE_NR * KB, len * MXE_NR);
			for (size_t p = p0; p < p1; p++) {
				size_t i = p * MXE_MR;
				struct mxe_kd64 u = {
					.s = s + (i - ti) * lds + (j - tj),
					.c = cs + (i - ti) * lds + (j - tj),
					.lds = lds,
					.mr = tl->m - i < MXE_MR ? (unsigned)(tl->m - i) : MXE_MR,
					.nr = tl->n - j < strip * MXE_NR ? (unsigned)(tl->n - j) :
									    strip * MXE_NR,
					.first = kb0 == 0,
				};

				mxe_kern_d64_avx512(ad + (p - p0) * MXE_MR * KB, bd, bd + MXE_NR * KB,
						    len, &u);
				if (last) {
					redo += finish_exact(tl, u.s, u.c, lds, i, j, u.mr, u.nr);
					done += (uint64_t)u.mr * u.nr;
				}
			}
		}
	}
	__atomic_fetch_add(&exact_outputs, done - redo, __ATOMIC_RELAXED);
	__atomic_fetch_add(&exact_redone, redo, __ATOMIC_RELAXED);
}

/*
 * One of TK_W16's sums T0 + T1 2^-13 + T2 2^-26 (|T0|, |T2| < 2^61) as a pair of doubles
 * times @unit, *@h + *@l exact, through 128 bits (T is below 2^88: |l| <= 2^35): the
 * lanes mxe_w16_pairs_avx512() / _avx2() leave, whose T1 passes 2^48 units. Those two
 * do every other lane (h = fl(T0) and the rest by TwoSum), and TK_W16 runs only where
 * one of them does.
 */
static void w16_pair(int64_t x0, int64_t x1, int64_t x2, double unit, double *hp, double *lp)
{
	__int128 x = (__int128)x0 * ((__int128)1 << 26) + (__int128)x1 * (1 << 13) + x2;
	double h = (double)x * 0x1p-26;

	*hp = h * unit;
	*lp = (double)(x - (__int128)(h * 0x1p26)) * 0x1p-26 * unit;
}

/*
 * EXACT through int16 windows (exact 3): each tile's three int64 sums, T0 of the
 * windows' products (the kernel), T1 and T2 of the parts below them (w16_residuals()),
 * thread-local with one super chunk, else in tl->tacc. Per element the exact sum is T0
 * + T1 2^-13 + T2 2^-26 units of 2^(the two least windows), as a pair of doubles
 * whose sum is exact (h = fl(T0), l the rest, when the rest is below 2^53 units of
 * 2^-26; else through 128 bits), rounded with C as the double kernels' pairs are.
 */
static void compute_exact_w16(struct tiled *tl, size_t k0, size_t k1, size_t p0, size_t p1,
			      size_t q0, size_t q1)
{
	int64_t *t = tl->tacc;
	ptrdiff_t ldt = (ptrdiff_t)tl->n;
	size_t ti = 0, tj = 0, tsz = tl->m * tl->n;
	uint64_t done = 0, redo = 0;
	double unit = ldexp(1.0, tl->w16_wmin[0] + tl->w16_wmin[1]), *hs;

	hs = mxe_scratch(4, (size_t)2 * MXE_MR * 32 * sizeof(double));
	if (!t) {	/* one super chunk: the tile's sums on this thread */
		ldt = TILE_NP * MXE_NR;
		tsz = (size_t)TILE_MP * MXE_MR * ldt;
		t = mxe_scratch(1, 3 * tsz * sizeof(int64_t));
		ti = p0 * MXE_MR;
		tj = q0 * MXE_NR;
	}
	if (!t || !hs) {
		tl->failed = 1;
		return;
	}
	for (size_t kb0 = k0; kb0 < k1; kb0 += KB) {
		size_t len = k1 - kb0 < KB ? k1 - kb0 : KB;
		int last = kb0 + len == tl->k;

		for (size_t q = q0; q < q1; q += tl->w16_avx2 ? 1 : 2) {
			unsigned strip = !tl->w16_avx2 && q + 1 < q1 ? 2 : 1;
			size_t j = q * MXE_NR;

			for (size_t p = p0; p < p1; p++) {
				size_t i = p * MXE_MR;
				unsigned mr = tl->m - i < MXE_MR ? (unsigned)(tl->m - i) : MXE_MR;
				unsigned nr = tl->n - j < strip * MXE_NR ? (unsigned)(tl->n - j) :
									    strip * MXE_NR;
				int64_t *t0 = t + (i - ti) * ldt + (j - tj), *t1 = t0 + tsz, *t2 = t1 + tsz;
				struct mxe_kw16 in;

				if (kb0 == 0) {
					for (unsigned r = 0; r < mr; r++) {
						memset(t1 + r * ldt, 0, nr * sizeof(int64_t));
						memset(t2 + r * ldt, 0, nr * sizeof(int64_t));
					}
				}
				w16_in(tl, p, q, kb0 - k0, strip, &in);
				(tl->w16_avx2 ? mxe_kern_w16_avx2 : mxe_kern_w16x2_vnni)(
					&in, len / MXA_MX_BLOCK, t0, ldt, mr, nr, kb0 == 0);
				w16_residuals(tl, p, q, strip, kb0 - k0, len / MXA_MX_BLOCK, t1, t2, ldt,
					      mr, nr);
				if (!last)
					continue;
				for (unsigned r = 0; r < mr; r++) {
					const int64_t *x0 = t0 + r * ldt, *x1 = t1 + r * ldt, *x2 = t2 + r * ldt;
					double *h = hs + r * 32, *l = hs + (MXE_MR + r) * 32;
					uint64_t left = (tl->w16_avx2 ? mxe_w16_pairs_avx2 :
							 mxe_w16_pairs_avx512)(x0, x1, x2, nr, unit, h, l);
					for (; left; left &= left - 1) {
						unsigned c = (unsigned)__builtin_ctzll(left);

						w16_pair(x0[c], x1[c], x2[c], unit, h + c, l + c);
					}
				}
				redo += finish_exact(tl, hs, hs + MXE_MR * 32, 32, i, j, mr, nr);
				done += (uint64_t)mr * nr;
			}
		}
	}
	__atomic_fetch_add(&exact_outputs, done - redo, __ATOMIC_RELAXED);
	__atomic_fetch_add(&exact_redone, redo, __ATOMIC_RELAXED);
}

/* Types whose 32-k block sums are exact in f32: exponent of the lowest bit
 * and floor(log2) of the largest value (unscaled); 0 for the others. */
static int exact_block_type(unsigned t, int *lsb, int *top)
{
	switch (t) {
	case MXA_DTYPE_E3M2:
	case MXA_DTYPE_E2M3:
	case MXA_DTYPE_E2M1:
	case MXA_DTYPE_MXINT8:
		mx_exp_range(t, lsb, top);
		return 1;
	default:
		return 0;
	}
}

/* Whether block @b of row @r of a side is all zeros (its scale does not matter). */
static int block_is_zero(const struct mxe_op *op, int side, size_t r, size_t b)
{
	for (size_t kk = b * MXA_MX_BLOCK; kk < (b + 1) * MXA_MX_BLOCK; kk++)
		if ((side ? mxe_op_elem_b(op, r, kk) : mxe_op_elem_a(op, r, kk)) != 0)
			return 0;
	return 1;
}

/*
 * Smallest and largest scale exponent of one side (0, 0 unscaled); 0: a NaN
 * scale. An all-zero block's scale (2^-127 from the quantisers) is left out.
 */
static int scale_range(const struct mxe_op *op, int side, int *lo, int *hi)
{
	size_t nb = op->d.k / MXA_MX_BLOCK, rows = side ? op->d.n : op->d.m;

	*lo = 0, *hi = 0;
	if (!(side ? op->scale_b : op->scale_a))
		return 1;
	*lo = 127, *hi = -127;
	for (size_t r = 0; r < rows; r++) {
		const uint8_t *sc = side ? mxe_op_b_scales(op, r) : op->d.scale_a + r * op->ld_sa;

		for (size_t b = 0; b < nb; b++) {
			int e = (int)sc[b] - 127;

			if (sc[b] == 0xFF)
				return 0;
			if (sc[b] == 0 && block_is_zero(op, side, r, b))
				continue;
			*lo = e < *lo ? e : *lo;
			*hi = e > *hi ? e : *hi;
		}
	}
	return 1;
}

/*
 * Whether every block sum of @op is exact in f32 and their sums in double
 * (without C): products on a grid of 2^g with g >= -149, a block of 32 of
 * them within 24 bits, every scaled element and block sum finite, and K
 * products in all below 2^(g + 53).
 */
static int exact_blocks_certified(struct tiled *tl)
{
	const struct mxe_op *op = tl->op;
	int la, ta, lb, tb, loa, hia, lob, hib, g, top;

	if (!exact_block_type(op->d.type_a, &la, &ta) || !exact_block_type(op->d.type_b, &lb, &tb) ||
	    (ta + tb + 2 + 5) - (la + lb) > 24 ||
	    !tiled_scales(tl))
		return 0;
	loa = tl->sc_lo[0], hia = tl->sc_hi[0], lob = tl->sc_lo[1], hib = tl->sc_hi[1];
	g = la + lb + loa + lob;
	top = ta + 1 + hia + tb + 1 + hib;	/* |product| < 2^top */
	if (g < -149 || ta + 1 + hia > 127 || tb + 1 + hib > 127 || top + 5 > 127)
		return 0;
	tl->exact_g = g;
	tl->exact_bound = (double)tl->k * ldexp(1.0, top);
	return tl->exact_bound < ldexp(1.0, g + 53);
}

/*
 * The exponents of the lowest set bit and of the leading bit over a side's nonzero
 * finite BF16 or F16 elements, read from the data (an NVFP4 operation's BF16 copy, say,
 * spans 2^-10 .. 2^11 whatever BF16 allows); 0: not one of these types, or a span
 * wider than a certificate takes (46 bits). A side of zeros (and NaN / Inf, which its
 * outputs' finishing hands on) gives 0, 0.
 */
static int data_exp_range(const struct mxe_op *op, int side, int *lsb, int *top)
{
	unsigned t = side ? op->d.type_b : op->d.type_a;
	int kn = side && (op->d.flags & MXA_GEMM_F_B_KN);
	size_t rows = kn ? op->d.k : side ? op->d.n : op->d.m, cols = kn ? op->d.n : op->d.k;
	unsigned mbits = t == MXA_DTYPE_BF16 ? 7 : 10, ebits = t == MXA_DTYPE_BF16 ? 8 : 5;
	int bias = (1 << (ebits - 1)) - 1, lo = INT_MAX, hi = INT_MIN;
	uint32_t emax = (1u << ebits) - 1, mmask = (1u << mbits) - 1;

	if (t != MXA_DTYPE_BF16 && t != MXA_DTYPE_F16)
		return 0;
	for (size_t r = 0; r < rows; r++) {
		const uint16_t *row = (const uint16_t *)(side ? (const void *)mxe_op_b_row(op, r) :
						       (const uint8_t *)op->d.a + r * op->lda);
		int rlo = INT_MAX, rhi = INT_MIN;

		for (size_t c = 0; c < cols; c++) {
			uint32_t x = row[c], e = (x >> mbits) & emax, m = x & mmask;
			int ee, l;

			if ((!e && !m) || e == emax)
				continue;
			ee = e ? (int)e : 1;	/* a subnormal: the lowest exponent */
			l = ee - bias - (int)mbits + __builtin_ctz(m | (e ? 1u << mbits : 0u) |
								    (1u << (mbits + 1)));
			rlo = l < rlo ? l : rlo;
			rhi = ee - bias > rhi ? ee - bias : rhi;
		}
		lo = rlo < lo ? rlo : lo;
		hi = rhi > hi ? rhi : hi;
		if (lo != INT_MAX && hi - lo > 46)
			return 0;	/* wider than any certificate takes: stop reading */
	}
	*lsb = lo == INT_MAX ? 0 : lo;
	*top = hi == INT_MIN ? 0 : hi;
	return 1;
}

/* A side's lowest bit and leading bit exponents, unscaled: from its MX type, or its data. */
static int side_exp_range(const struct mxe_op *op, int side, int *lsb, int *top)
{
	unsigned t = side ? op->d.type_b : op->d.type_a;

	if (mxe_dtype_is_mx_elem(t) && t != MXA_DTYPE_NVFP4) {
		mx_exp_range(t, lsb, top);
		return 1;
	}
	return data_exp_range(op, side, lsb, top);
}

/*
 * Whether every block sum of @op is exact in a double and the double kernels' pairs
 * stay exact (exact 2): each side's elements of an MX float type or MXINT8, or BF16 /
 * F16 whose data span few enough bits, their scaled values exact and finite in f32 (the
 * panels), a block of 32 products within 53 bits, and the TwoSum compensations exact:
 * every rounding error is a multiple of the products' grid 2^g and at most 2^-53 of a
 * partial sum (< K * 2^top), so K / 32 of them stay below 2^(g + 53) when
 * (K / 32) * K * 2^top < 2^(g + 106).
 */
static int exact_d64_certified(struct tiled *tl)
{
	const struct mxe_op *op = tl->op;
	int la, ta, lb, tb, loa, hia, lob, hib, g, top;

	if (!side_exp_range(op, 0, &la, &ta) || !side_exp_range(op, 1, &lb, &tb))
		return 0;
	if ((ta + tb + 2 + 5) - (la + lb) > 53 || !tiled_scales(tl))
		return 0;
	loa = tl->sc_lo[0], hia = tl->sc_hi[0], lob = tl->sc_lo[1], hib = tl->sc_hi[1];
	g = la + lb + loa + lob;
	top = ta + 1 + hia + tb + 1 + hib;
	if (la + loa < -149 || lb + lob < -149 || ta + 1 + hia > 127 || tb + 1 + hib > 127)
		return 0;
	return (double)(tl->k / MXA_MX_BLOCK) * (double)tl->k * ldexp(1.0, top) <
	       ldexp(1.0, g + 106);
}

static void tiled_task(void *arg, unsigned phase, unsigned task)
{
	struct tiled *tl = arg;
	unsigned s = phase / 2;
	size_t k0, k1, p0, p1, q0, q1;

	if (tl->failed)
		return;
	if (phase % 2 == 0) {
		do_pack(tl, s, task);
		return;
	}
	chunk_range(tl, s, &k0, &k1);
	p0 = (size_t)(task / tl->tiles_n) * tl->tile_mp;
	q0 = (size_t)(task % tl->tiles_n) * tl->tile_np;
	p1 = p0 + tl->tile_mp < tl->mp ? p0 + tl->tile_mp : tl->mp;
	q1 = q0 + tl->tile_np < tl->np ? q0 + tl->tile_np : tl->np;
	if (tl->exact == 3)
		compute_exact_w16(tl, k0, k1, p0, p1, q0, q1);
	else if (tl->exact == 2)
		compute_exact_d64(tl, k0, k1, p0, p1, q0, q1);
	else if (tl->exact)
		compute_exact(tl, k0, k1, p0, p1, q0, q1);
	else if (tl->kind != TK_S16)	/* float panels, or int8 ones of a float operation */
		compute_f32(tl, k0, k1, p0, p1, q0, q1);
	else
		compute_s16(tl, k0, k1, p0, p1, q0, q1);
}

static const struct mxe_pool_job_ops tiled_ops = {
	.phase_tasks = tiled_phase_tasks,
	.task = tiled_task,
};

/* ---- b1: popcount ---------------------------------------------------------- */

struct b1_job {
	const struct mxe_op *op;
	unsigned rows_per_task;
};

static unsigned b1_phase_tasks(void *arg, unsigned phase)
{
	struct b1_job *j = arg;

	return phase ? 0 : (j->op->d.m + j->rows_per_task - 1) / j->rows_per_task;
}

static uint64_t load_bits(const uint8_t *p, size_t w, size_t nbytes)
{
	uint64_t v = 0;
	size_t off = w * 8, n = nbytes - off < 8 ? nbytes - off : 8;

	memcpy(&v, p + off, n);	/* little-endian: bit kk of the row is bit kk % 64 */
	return v;
}

static void b1_task(void *arg, unsigned phase, unsigned task)
{
	struct b1_job *j = arg;
	const struct mxe_op *op = j->op;
	size_t k = op->d.k, nbytes = (k + 7) / 8, nw = (k + 63) / 64;
	uint64_t lastmask = (k % 64) ? ((uint64_t)1 << (k % 64)) - 1 : ~(uint64_t)0;
	int xor = !!(op->d.flags & MXE_GEMM_B1_XOR);
	size_t i0 = (size_t)task * j->rows_per_task, i1 = i0 + j->rows_per_task;

	(void)phase;
	if (i1 > op->d.m)
		i1 = op->d.m;
	for (size_t i = i0; i < i1; i++) {
		const uint8_t *a = (const uint8_t *)op->d.a + i * op->lda;

		for (size_t jj = 0; jj < op->d.n; jj++) {
			const uint8_t *b = (const uint8_t *)op->d.b + jj * op->ldb;
			int64_t s = 0;

			for (size_t w = 0; w < nw; w++) {
				uint64_t x = load_bits(a, w, nbytes), y = load_bits(b, w, nbytes);
				uint64_t v = xor ? x ^ y : x & y;

				if (w == nw - 1)
					v &= lastmask;
				s += __builtin_popcountll(v);
			}
			s += mxe_op_load_c_int(op, i, jj);
			mxe_op_store_d_int(op, i, jj, mxe_int32_finish(s, !!(op->d.flags & MXA_GEMM_F_SATFINITE)));
		}
	}
}

static const struct mxe_pool_job_ops b1_ops = {
	.phase_tasks = b1_phase_tasks,
	.task = b1_task,
};

/* ---- entry ---------------------------------------------------------------- */

/* Set up @tl for @op and run it; 1: the path does not take @op. */
static int tiled_go(struct mxe_engine *eng, const struct mxe_op *op, int exact, struct tiled *tl)
{
	size_t apanel_bytes, bytes, per_k, kwords;
	int acc = !!(op->d.flags & MXA_GEMM_F_ACCUMULATE);

	if (op->cls == MXE_CLASS_B1) {
		struct b1_job j = { .op = op, .rows_per_task = 16 };

		mxe_pool_run(eng, op->d.nthreads, &b1_ops, &j);
		return 0;
	}
	tl->op = op;
	tl->m = op->d.m;
	tl->n = op->d.n;
	tl->k = op->d.k;
	if (op->cls == MXE_CLASS_FLOAT && op->d.type_d == MXA_DTYPE_F32)
		tl->kind = TK_F32;
	else if (op->cls == MXE_CLASS_INT && !exact)
		tl->kind = TK_S16;
	else
		return 1;	/* f16 / f64 accumulators: exact path */
	if (op->ldd % 4 || (acc && op->ldc % 4) ||
	    ((op->scale_a || op->scale_b) && tl->k % MXA_MX_BLOCK))
		return 1;	/* a partial last MX block: the exact path */
	if (exact) {
		if (op->k_chunk != op->d.k || tl->k % MXA_MX_BLOCK)
			return 1;
		if (tl->nv) {
			if (!nv_exact_certified(tl))
				return 1;
		} else if (exact_blocks_certified(tl)) {
			/* the float kernels, or the int8 panels (below) */
		} else if (w16_applies(tl)) {
			__atomic_fetch_add(&w16_ops, 1, __ATOMIC_RELAXED);
			exact = 3;
			tl->kind = TK_W16;
		} else {
			/* the double kernels: AVX-512 only (with the engine capped at AVX2,
			 * MX-FP8 1024^3 / 2048^3 ran 22.8 / 24.6 GFLOP/s on them, 30.9 / 30.1
			 * on the general path) */
			if (mxe_cpu_simd() < MXE_SIMD_AVX512 || !exact_d64_certified(tl))
				return 1;
			exact = 2;
		}
	} else if (!mxe_fast_scales_safe(op)) {
		return 1;
	}

	tl->exact = exact;
	tl->simd = mxe_cpu_simd();
	tl->avx2 = tl->simd >= MXE_SIMD_AVX2;
	tl->kf32 = tl->avx2 ? mxe_kern_f32_avx2 : mxe_kern_f32_portable;
	tl->ks16 = tl->avx2 ? mxe_kern_s16_avx2 : mxe_kern_s16_portable;
	tl->kx64 = tl->avx2 ? mxe_kern_x64_avx2 : mxe_kern_x64_portable;
	tl->mp = (tl->m + MXE_MR - 1) / MXE_MR;
	tl->np = (tl->n + MXE_NR - 1) / MXE_NR;
	if (tl->kind == TK_F32 && exact != 2 && s8_applies(tl)) {
		__atomic_fetch_add(&s8_ops, 1, __ATOMIC_RELAXED);
		tl->kind = TK_S8;
		s8_lut(tl, 0);
		s8_lut(tl, 1);
	}
	if (tl->nv && tl->kind != TK_S8)
		return 1;	/* the stand-in's A and B are NVFP4 codes: the panels or nothing */
	if (bf16_applies(tl)) {
		__atomic_fetch_add(&bf16_ops, 1, __ATOMIC_RELAXED);
		tl->bf16 = 1;
	}
	if (exact)
		mxe_stats_count_intrawave();
	/* Super chunk: all of K (intrawave) within the budget, else KB. */
	/* packed bytes per k: f32, half of an int16 pair word (two for the int16 windows'
	 * high and low panels), or int8 (and, per 32 k, the int8 panels' factors and sums) */
	per_k = (tl->mp * MXE_MR + tl->np * MXE_NR) *
		(tl->kind == TK_F32 || tl->kind == TK_W16 ? 4 : tl->kind == TK_S16 ? 2 :
		 s8_esize(tl));
	if (op->d.sched == MXE_SCHED_INTERWAVE) {
		tl->ks = KB;
	} else {
		tl->ks = MXE_TILED_PACK_BUDGET / per_k / KB * KB;
		if (tl->ks < KB)
			tl->ks = KB;
	}
	if (tl->kind == TK_S16 && tl->ks > INT_KMAX)
		tl->ks = INT_KMAX;
	if (tl->ks >= tl->k)
		tl->ks = (tl->k + KB - 1) / KB * KB;
	tl->nsuper = (unsigned)((tl->k + tl->ks - 1) / tl->ks);
	kwords = tl->kind == TK_F32 ? tl->ks :
		 tl->kind == TK_S16 || tl->kind == TK_W16 ? tl->ks / 2 : tl->ks * s8_esize(tl) / 4;
	tl->ks_words = kwords;
	apanel_bytes = (tl->mp * MXE_MR * kwords * 4 + 63) & ~(size_t)63;
	bytes = apanel_bytes + ((tl->np * MXE_NR * kwords * 4 + 63) & ~(size_t)63) + 64;
	if (tl->kind == TK_S8)	/* factors of both sides, B's sums: per 32-k block */
		bytes += tl->ks / MXA_MX_BLOCK * (tl->mp * MXE_MR + 2 * tl->np * MXE_NR) * 4 + 64;
	if (tl->kind == TK_W16)	/* the low panels; both sides' shifts and masks per 32-k block */
		bytes += bytes + tl->ks / MXA_MX_BLOCK * ((tl->mp * MXE_MR + tl->np * MXE_NR) * 4 +
							      (tl->mp + tl->np) * 2) + 64;
	tl->apack = mxe_scratch(2, bytes);
	if (!tl->apack)
		return MXE_ENGINE_ENOMEM;
	tl->bpack = (uint8_t *)tl->apack + apanel_bytes;
	if (tl->kind == TK_S8) {
		tl->sfa = (float *)((uint8_t *)tl->bpack +
				   ((tl->np * MXE_NR * kwords * 4 + 63) & ~(size_t)63));
		tl->sfb = tl->sfa + tl->ks / MXA_MX_BLOCK * tl->mp * MXE_MR;
		tl->scb = (int32_t *)(tl->sfb + tl->ks / MXA_MX_BLOCK * tl->np * MXE_NR);
	}
	if (tl->kind == TK_W16) {	/* the low panels as the high ones, then the rest */
		size_t hi_bytes = apanel_bytes + ((tl->np * MXE_NR * kwords * 4 + 63) & ~(size_t)63);

		tl->apack_lo = (uint8_t *)tl->apack + hi_bytes;
		tl->bpack_lo = (uint8_t *)tl->apack_lo + apanel_bytes;
		tl->wsa = (int32_t *)((uint8_t *)tl->apack_lo + hi_bytes);
		tl->wsb = tl->wsa + tl->ks / MXA_MX_BLOCK * tl->mp * MXE_MR;
		tl->wma = (uint16_t *)(tl->wsb + tl->ks / MXA_MX_BLOCK * tl->np * MXE_NR);
		tl->wmb = tl->wma + tl->ks / MXA_MX_BLOCK * tl->mp;
	}
	if (tl->kind == TK_S16 && tl->nsuper > 1) {
		tl->sacc = mxe_scratch(3, tl->m * tl->n * sizeof(int32_t) + MXE_MR * MXE_NR * 4);
		if (!tl->sacc)
			return MXE_ENGINE_ENOMEM;
	}
	if (exact == 3 && tl->nsuper > 1) {
		tl->tacc = mxe_scratch(3, 3 * tl->m * tl->n * sizeof(int64_t));
		if (!tl->tacc)
			return MXE_ENGINE_ENOMEM;
	} else if (exact && tl->nsuper > 1) {
		tl->dacc = mxe_scratch(3, (exact == 2 ? 2 : 1) * tl->m * tl->n * sizeof(double));
		if (!tl->dacc)
			return MXE_ENGINE_ENOMEM;
		if (exact == 2)
			tl->cacc = tl->dacc + tl->m * tl->n;
	}
	/* pack tasks: as many again, smaller, for small operations (balance) */
	tl->pack_ap = tl->mp >= PACK_TASKS_MIN * PACK_A_PANELS ? PACK_A_PANELS :
		     (tl->mp + PACK_TASKS_MIN - 1) / PACK_TASKS_MIN;
	tl->pack_bp = tl->np >= PACK_TASKS_MIN * PACK_B_PANELS ? PACK_B_PANELS :
		     (tl->np + PACK_TASKS_MIN - 1) / PACK_TASKS_MIN;
	tl->pack_a = (unsigned)((tl->mp + tl->pack_ap - 1) / tl->pack_ap);
	tl->pack_b = (unsigned)((tl->np + tl->pack_bp - 1) / tl->pack_bp);
	/* Smaller tiles for small operations: enough of them that the threads finish
	 * together (512^3: 8 tiles of 144 x 256 left one thread idle for a fifth of the
	 * compute phase). Each element's arithmetic does not depend on its tile. */
	tl->tile_mp = TILE_MP;
	tl->tile_np = TILE_NP;
	for (;;) {
		tl->tiles_m = (unsigned)((tl->mp + tl->tile_mp - 1) / tl->tile_mp);
		tl->tiles_n = (unsigned)((tl->np + tl->tile_np - 1) / tl->tile_np);
		if ((size_t)tl->tiles_m * tl->tiles_n >= TILES_MIN)
			break;
		if (tl->tile_mp < 2 * TILE_MP_MIN)
			break;	/* thinner tiles cost one thread more than balance gains */
		tl->tile_mp /= 2;
	}

	mxe_pool_run(eng, op->d.nthreads, &tiled_ops, tl);
	/* Keep packing buffers of everyday sizes for the next call on this
	 * thread; give very large ones back. */
	mxe_scratch_trim(2, MXE_TILED_KEEP_BYTES);
	mxe_scratch_trim(3, MXE_TILED_KEEP_BYTES);
	return tl->failed ? MXE_ENGINE_ENOMEM : 0;
}

static int tiled_run(struct mxe_engine *eng, const struct mxe_op *op, int exact)
{
	struct tiled tl;
	int rc;

	memset(&tl, 0, sizeof(tl));
	rc = tiled_go(eng, op, exact, &tl);
	free(tl.w16_top[0]);
	free(tl.w16_top[1]);
	return rc;
}

int mxe_tiled_run(struct mxe_engine *eng, const struct mxe_op *op)
{
	return tiled_run(eng, op, 0);
}

int mxe_tiled_nvfp4_run(struct mxe_engine *eng, const struct mxe_gemm_desc *desc)
{
	struct mxe_gemm_desc bf;
	struct mxe_op op;
	struct nv_src nv;
	struct tiled tl;

	if (desc->type_a != MXA_DTYPE_NVFP4 || desc->type_b != MXA_DTYPE_NVFP4 ||
	    (desc->accum != MXE_ACCUM_FAST && desc->accum != MXE_ACCUM_EXACT) ||
	    mxe_cpu_simd() < MXE_SIMD_AVX2 || mxe_nvfp4_expand(desc, &bf, NULL) ||
	    mxe_op_prepare(&bf, &op) || mxe_nvfp4_layout(desc, nv.ld, nv.ld_s))
		return 1;	/* (errors: the expansion's own report them) */
	nv.codes[0] = desc->a;
	nv.codes[1] = desc->b;
	nv.scales[0] = desc->scale_a;
	nv.scales[1] = desc->scale_b;
	memset(&tl, 0, sizeof(tl));
	tl.nv = &nv;
	return tiled_go(eng, &op, desc->accum == MXE_ACCUM_EXACT, &tl);
}

int mxe_tiled_exact_run(struct mxe_engine *eng, const struct mxe_op *op)
{
	if (op->d.accum != MXE_ACCUM_EXACT || mxe_interwave_applies(op))
		return 1;
	return tiled_run(eng, op, 1);
}

uint64_t mxe_tiled_w16_ops(void)
{
	return __atomic_load_n(&w16_ops, __ATOMIC_RELAXED);
}

uint64_t mxe_tiled_s8_ops(void)
{
	return __atomic_load_n(&s8_ops, __ATOMIC_RELAXED);
}

uint64_t mxe_tiled_bf16_ops(void)
{
	return __atomic_load_n(&bf16_ops, __ATOMIC_RELAXED);
}

void mxe_tiled_exact_counts(uint64_t *outputs, uint64_t *redone)
{
	*outputs = __atomic_load_n(&exact_outputs, __ATOMIC_RELAXED);
	*redone = __atomic_load_n(&exact_redone, __ATOMIC_RELAXED);
}

uint64_t mxe_tiled_exact_vector_outputs(void)
{
	return __atomic_load_n(&exact_vector, __ATOMIC_RELAXED);
}
