/* SPDX-License-Identifier: MIT */
/*
 * mxe_gemv_int.h - E2M1 weights against a row of A in int16 form: the integer products
 * of two 32-k blocks that the EXACT GEMV (mxe_gemv.c) and the FAST one
 * (mxe_gemv_fast.c) share, and the staging and byte transposes of 16 (AVX2: 8) weight
 * rows both use for their kernels with columns as lanes (with AVX512-VNNI: the rows'
 * lines transposed as dwords and looked up as unsigned bytes, A split into two signed
 * bytes, mxe_cols16_bytes_avx512() and mxe_e2m1_a8_block()).
 *
 * A block b of A is n * 2^e with integers n, stored per pair of blocks (b even) as
 * [even k of b | even k of b + 1 | odd k of b | odd k of b + 1] (16 values each), a
 * lone last block as [even k | odd k]: the low nibble of a weight byte is its even k,
 * the high one its odd k, so the codes need no shuffle. The AVX2 kernels take each 16
 * in two 8s instead, in the order their in-lane unpacking leaves (mxe_e2m1_int_at(),
 * mxe_e2m1_halves_avx2()). A weight code is looked up as twice its value (an integer,
 * |w| <= 12).
 */
#ifndef MXE_GEMV_INT_H
#define MXE_GEMV_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MXE_E2M1_INT_LUT 0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12

/*
 * Where k = 32 b + q of A goes in the int16 form of @nb blocks. @inlane: the order of
 * mxe_e2m1_halves_avx2() instead, a pair's values in 8s as [even k 0..15 of b |
 * of b + 1 | even k 16..31 of b | of b + 1 | odd k likewise]: the halves of each 128-bit
 * lane that unpacking the codes with their signs leaves (the lone last block as above).
 */
static inline size_t mxe_e2m1_int_at(size_t nb, size_t b, int q, int inlane)
{
	size_t i = (size_t)q / 2;	/* the code's byte in the block */

	if (b >= (nb & ~(size_t)1))
		return b * 32 + (q % 2) * 16 + i;
	return (b & ~(size_t)1) * 32 + (q % 2) * 32 +
	       (inlane ? i / 8 * 16 + (b & 1) * 8 + i % 8 : (b & 1) * 16 + i);
}

/*
 * A several-row MX task's columns: with VNNI two groups of 16 (two vectors of lanes,
 * A's bytes loaded once for both: mxe_e2m1_a8_dot2_avx512()), else one.
 * mxe_cols16_task_groups(): the groups a task from column j0 of @n takes (one where no
 * more than 16 are left); mxe_cols16_group_cols(): how many of its @nc columns are
 * group @g's.
 */
static inline size_t mxe_cols16_task_cols(int vnni)
{
	return vnni ? 32 : 16;
}

static inline int mxe_cols16_task_groups(int vnni, size_t n, size_t j0)
{
	return vnni && n - j0 > 16 ? 2 : 1;
}

static inline size_t mxe_cols16_group_cols(size_t nc, int g)
{
	return nc - 16 * (size_t)g < 16 ? nc - 16 * (size_t)g : 16;	/* nc > 16 g */
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/*
 * The line (64 bytes) at @off of each of @n weight rows, @bytes long, copied to @stage,
 * and the line @ahead bytes on prefetched (into L2 when @l2, else L1): rows a multiple
 * of 4 KiB apart fall in one set of L1, so reading a few bytes of each row in place
 * missed it at nearly every load; here each line is read once, by copies that do not
 * wait on each other. At the rows' ends no read goes past them (a mapping may end).
 */
__attribute__((always_inline))
static inline void mxe_gemv_stage(const uint8_t *const *rows, unsigned n, size_t off,
				  size_t bytes, uint8_t (*stage)[64], size_t ahead, int l2)
{
	for (unsigned i = 0; i < n; i++) {
		if (bytes - off >= 64)	/* a constant size: one or two vector moves */
			memcpy(stage[i], rows[i] + off, 64);
		else
			memcpy(stage[i], rows[i] + off, bytes - off);
		if (l2)
			_mm_prefetch((const char *)rows[i] + off + ahead, _MM_HINT_T1);
		else
			_mm_prefetch((const char *)rows[i] + off + ahead, _MM_HINT_T0);
	}
}

/*
 * Transpose 16 rows of 16 32-bit words (or floats, cast) in place: r[i][j] -> r[j][i].
 * Unrolled, each step's results over the inputs it has read: in loops GCC did not
 * unroll, or with a second array for the last step, it kept the rows on the stack and
 * the byte kernels (mxe_cols16_bytes_avx512()) ran 20 % slower.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void mxe_transpose16_avx512(__m512i r[16])
{
	__m512i t[16];

	_Pragma("GCC unroll 8")
	for (int i = 0; i < 16; i += 2) {
		t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
		t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
	}
	/* r[4 q + d], 128-bit lane L: word 4 L + d of rows 4 q .. 4 q + 3 */
	_Pragma("GCC unroll 4")
	for (int q = 0; q < 4; q++) {
		r[4 * q] = _mm512_unpacklo_epi64(t[4 * q], t[4 * q + 2]);
		r[4 * q + 1] = _mm512_unpackhi_epi64(t[4 * q], t[4 * q + 2]);
		r[4 * q + 2] = _mm512_unpacklo_epi64(t[4 * q + 1], t[4 * q + 3]);
		r[4 * q + 3] = _mm512_unpackhi_epi64(t[4 * q + 1], t[4 * q + 3]);
	}
	_Pragma("GCC unroll 4")
	for (int d = 0; d < 4; d++) {	/* the 128-bit lanes' 4 x 4 transpose */
		__m512i v0 = _mm512_shuffle_i32x4(r[d], r[4 + d], 0x44);
		__m512i v1 = _mm512_shuffle_i32x4(r[d], r[4 + d], 0xEE);
		__m512i w0 = _mm512_shuffle_i32x4(r[8 + d], r[12 + d], 0x44);
		__m512i w1 = _mm512_shuffle_i32x4(r[8 + d], r[12 + d], 0xEE);

		r[d] = _mm512_shuffle_i32x4(v0, w0, 0x88);	/* in place: these four are read */
		r[4 + d] = _mm512_shuffle_i32x4(v0, w0, 0xDD);
		r[8 + d] = _mm512_shuffle_i32x4(v1, w1, 0x88);
		r[12 + d] = _mm512_shuffle_i32x4(v1, w1, 0xDD);
	}
}

/* mxe_transpose16_avx512() on floats. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void mxe_transpose16_ps_avx512(__m512 r[16])
{
	__m512i x[16];

	_Pragma("GCC unroll 16")
	for (int i = 0; i < 16; i++)
		x[i] = _mm512_castps_si512(r[i]);
	mxe_transpose16_avx512(x);
	_Pragma("GCC unroll 16")
	for (int i = 0; i < 16; i++)
		r[i] = _mm512_castsi512_ps(x[i]);
}

/* The smallest of an AVX2 vector's 32 unsigned bytes. */
__attribute__((target("avx2"), always_inline))
static inline int mxe_min_epu8_avx2(__m256i v)
{
	__m128i x = _mm_min_epu8(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));

	x = _mm_min_epu8(x, _mm_srli_si128(x, 8));
	x = _mm_min_epu8(x, _mm_srli_si128(x, 4));
	x = _mm_min_epu8(x, _mm_srli_si128(x, 2));
	x = _mm_min_epu8(x, _mm_srli_si128(x, 1));
	return _mm_cvtsi128_si32(x) & 0xFF;
}

/*
 * The smallest (*@lo) and largest (*@hi) of @n E8M0 scale codes @sc but NaN (0xFF):
 * the range of a column's grids (lo > hi: every code NaN, or none).
 */
__attribute__((target("avx2"), always_inline))
static inline void mxe_scale_range_avx2(const uint8_t *sc, size_t n, int *lo, int *hi)
{
	const __m256i ff = _mm256_set1_epi8((char)0xFF);
	__m256i mn = ff, mx = _mm256_setzero_si256();	/* NaN codes: 0 for the largest */
	size_t b = 0;

	for (; b + 32 <= n; b += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(sc + b));

		mn = _mm256_min_epu8(mn, v);
		mx = _mm256_max_epu8(mx, _mm256_andnot_si256(_mm256_cmpeq_epi8(v, ff), v));
	}
	*lo = mxe_min_epu8_avx2(mn);
	*hi = 255 - mxe_min_epu8_avx2(_mm256_xor_si256(mx, ff));
	for (; b < n; b++) {
		*lo = sc[b] < *lo ? sc[b] : *lo;
		*hi = sc[b] != 0xFF && sc[b] > *hi ? sc[b] : *hi;
	}
}

/* The 16-bit table of twice the E2M1 values, for mxe_e2m1_pair_avx512(). */
__attribute__((target("avx512f,avx512bw"), always_inline))
static inline __m512i mxe_e2m1_lut_avx512(void)
{
	return _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				-12, -8, -6, -4, -3, -2, -1, 0, 12, 8, 6, 4, 3, 2, 1, 0);
}

/*
 * The 64 codes of blocks @b and @b + 1 (b even) of a weight row (32 bytes) as 16-bit
 * table indices, looked up (vpermw) as twice their values: *@wl the low nibbles (even
 * k), *@wh the high ones (odd k).
 */
__attribute__((target("avx512f,avx512bw"), always_inline))
static inline void mxe_e2m1_codes_avx512(const uint8_t *row, size_t b, __m512i lut, __m512i *wl,
					 __m512i *wh)
{
	__m512i y = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(row + b * 16)));

	*wl = _mm512_permutexvar_epi16(_mm512_and_si512(y, _mm512_set1_epi16(15)), lut);
	*wh = _mm512_permutexvar_epi16(_mm512_srli_epi16(y, 4), lut);
}

/*
 * Those codes against the pair's 64 values of A's int16 form at @a: lanes 0..7 hold
 * block b's products summed in pairs of pairs, 8..15 block b + 1's (each lane exact:
 * |sum| <= 4 * 12 * 2^15).
 */
__attribute__((target("avx512f,avx512bw"), always_inline))
static inline __m512i mxe_e2m1_madd_avx512(__m512i wl, __m512i wh, const int16_t *a)
{
	return _mm512_add_epi32(_mm512_madd_epi16(wl, _mm512_loadu_si512(a)),
				_mm512_madd_epi16(wh, _mm512_loadu_si512(a + 32)));
}

/* Both: blocks @b, @b + 1 of a weight row against A's int16 form @a16. */
__attribute__((target("avx512f,avx512bw"), always_inline))
static inline __m512i mxe_e2m1_pair_avx512(const uint8_t *row, const int16_t *a16, size_t b,
					   __m512i lut)
{
	__m512i wl, wh;

	mxe_e2m1_codes_avx512(row, b, lut, &wl, &wh);
	return mxe_e2m1_madd_avx512(wl, wh, a16 + b * 32);
}

/* The block (of 16) whose sum mxe_e2m1_sums16_avx512() leaves in lane t; each half
 * holds its own eight blocks, so the first eight entries order either half. */
static const int32_t mxe_e2m1_sums16_lanes[16] __attribute__((aligned(64))) = {
	0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15
};

/*
 * The integer sums of blocks @b0 .. @b0 + 15 (b0 even) of a weight row against @parts
 * (1 .. 3) int16 forms of A (@a16[p]), one a lane (lane t: block
 * mxe_e2m1_sums16_lanes[t]): eight pairs, then three levels of adds, fewer
 * instructions than widening each pair's 16 lanes; r[p] the part's sums. Each pair's
 * codes are loaded and looked up once for all parts (the lookups and the widening are
 * shuffles, as the sums' adds are), the first level of adds done as the pairs come so
 * that few registers stay live. The lines of @next (the row read after this one; NULL:
 * none) at the same blocks are prefetched alongside.
 */
__attribute__((target("avx512f,avx512bw"), always_inline))
static inline void mxe_e2m1_sums16_parts_avx512(const uint8_t *row, const int16_t *const a16[3],
						unsigned parts, size_t b0, __m512i lut,
						const uint8_t *next, __m512i r[3])
{
	__m512i u[3][4], w[2];

	_Pragma("GCC unroll 4")
	for (int i = 0; i < 4; i++) {
		__m512i v[3][2];

		_Pragma("GCC unroll 2")
		for (int h = 0; h < 2; h++) {
			const size_t b = b0 + 4 * i + 2 * h;
			__m512i wl, wh;

			if (next && !h)
				_mm_prefetch((const char *)next + b * 16, _MM_HINT_T0);
			mxe_e2m1_codes_avx512(row, b, lut, &wl, &wh);
			_Pragma("GCC unroll 3")
			for (unsigned p = 0; p < parts; p++)
				v[p][h] = mxe_e2m1_madd_avx512(wl, wh, a16[p] + b * 32);
		}
		_Pragma("GCC unroll 3")
		for (unsigned p = 0; p < parts; p++)
			u[p][i] = _mm512_add_epi32(_mm512_unpacklo_epi32(v[p][0], v[p][1]),
						   _mm512_unpackhi_epi32(v[p][0], v[p][1]));
	}
	_Pragma("GCC unroll 3")
	for (unsigned p = 0; p < parts; p++) {
		_Pragma("GCC unroll 2")
		for (int i = 0; i < 2; i++)
			w[i] = _mm512_add_epi32(_mm512_unpacklo_epi64(u[p][2 * i], u[p][2 * i + 1]),
						_mm512_unpackhi_epi64(u[p][2 * i], u[p][2 * i + 1]));
		r[p] = _mm512_add_epi32(_mm512_shuffle_i32x4(w[0], w[1], 0x88),
					_mm512_shuffle_i32x4(w[0], w[1], 0xdd));
	}
}

/* mxe_e2m1_sums16_parts_avx512() of one int16 form of A. */
__attribute__((target("avx512f,avx512bw"), always_inline))
static inline __m512i mxe_e2m1_sums16_avx512(const uint8_t *row, const int16_t *a16, size_t b0,
					     __m512i lut, const uint8_t *next)
{
	const int16_t *const a[3] = { a16 };
	__m512i r[3];

	mxe_e2m1_sums16_parts_avx512(row, a, 1, b0, lut, next, r);
	return r[0];
}

/* 16 bytes at @off of rows 4 q .. 4 q + 3 of @rows, row 4 q + c' as lane c', dwords
 * regrouped: lane T, dword c': bytes 4 T .. 4 T + 3 of row 4 q + c'. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline __m512i mxe_bytes4x16_avx512(const uint8_t *const rows[16], size_t off, int q)
{
	const __m512i pd = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
	__m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(rows[4 * q] + off)));

	v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(rows[4 * q + 1] + off)), 1);
	v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(rows[4 * q + 2] + off)), 2);
	v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(rows[4 * q + 3] + off)), 3);
	return _mm512_permutexvar_epi32(pd, v);
}

/* 16 bytes at @off of 16 rows (a FAST group's columns, or a task's in the EXACT GEMV of
 * several rows) as w[i] (lane T: byte 4 T + i of the rows). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void mxe_bytes16_t_avx512(const uint8_t *const rows[16], size_t off, __m512i w[4])
{
	/* in each lane byte 4 t' + c' <- byte 4 c' + t' */
	const __m512i pb = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6,
								 10, 14, 3, 7, 11, 15));
	__m512i z[4], u[4];

	for (int q = 0; q < 4; q++)
		z[q] = _mm512_shuffle_epi8(mxe_bytes4x16_avx512(rows, off, q), pb);
	/* lane T of z[q], dword t': byte 4 T + t' of rows 4 q .. 4 q + 3 */
	u[0] = _mm512_unpacklo_epi32(z[0], z[1]);
	u[1] = _mm512_unpackhi_epi32(z[0], z[1]);
	u[2] = _mm512_unpacklo_epi32(z[2], z[3]);
	u[3] = _mm512_unpackhi_epi32(z[2], z[3]);
	w[0] = _mm512_unpacklo_epi64(u[0], u[2]);
	w[1] = _mm512_unpackhi_epi64(u[0], u[2]);
	w[2] = _mm512_unpacklo_epi64(u[1], u[3]);
	w[3] = _mm512_unpackhi_epi64(u[1], u[3]);
}

/*
 * 16 bytes at @off of 16 rows as x[j] (lane L, dword c, byte kk: byte 4 j + kk of row
 * 4 L + c): mxe_bytes4x16_avx512()'s lanes transposed, 16 shuffles where
 * mxe_bytes16_t_avx512() takes 28; an in-lane vpshufb then gives one byte of every row
 * in a dword each.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void mxe_bytes16_q_avx512(const uint8_t *const rows[16], size_t off, __m512i x[4])
{
	__m512i z[4], v0, v1, w0, w1;

	for (int q = 0; q < 4; q++)
		z[q] = mxe_bytes4x16_avx512(rows, off, q);
	v0 = _mm512_shuffle_i32x4(z[0], z[1], 0x44);
	v1 = _mm512_shuffle_i32x4(z[0], z[1], 0xEE);
	w0 = _mm512_shuffle_i32x4(z[2], z[3], 0x44);
	w1 = _mm512_shuffle_i32x4(z[2], z[3], 0xEE);
	x[0] = _mm512_shuffle_i32x4(v0, w0, 0x88);
	x[1] = _mm512_shuffle_i32x4(v0, w0, 0xDD);
	x[2] = _mm512_shuffle_i32x4(v1, w1, 0x88);
	x[3] = _mm512_shuffle_i32x4(v1, w1, 0xDD);
}

/* mxe_e2m1_pair_avx512() on AVX2 against A in the plain order, for the NVFP4 kernels'
 * AVX2 tail on AVX-512 hosts: block b's 8 lanes in *@p0 (lanes 0..3 its k 0..15),
 * block b + 1's in *@p1. */
__attribute__((target("avx2"), always_inline))
static inline void mxe_e2m1_pair_avx2(const uint8_t *row, const int16_t *a16, size_t b,
				      __m256i lut, __m256i *p0, __m256i *p1)
{
	const __m256i m4 = _mm256_set1_epi8(15);
	const int16_t *a = a16 + b * 32;
	__m256i x = _mm256_loadu_si256((const __m256i *)(row + b * 16));
	__m256i lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(x, m4));
	__m256i hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(x, 4), m4));

	*p0 = _mm256_add_epi32(
		_mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_castsi256_si128(lo)),
				  _mm256_loadu_si256((const __m256i *)a)),
		_mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_castsi256_si128(hi)),
				  _mm256_loadu_si256((const __m256i *)(a + 32))));
	*p1 = _mm256_add_epi32(
		_mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_extracti128_si256(lo, 1)),
				  _mm256_loadu_si256((const __m256i *)(a + 16))),
		_mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_extracti128_si256(hi, 1)),
				  _mm256_loadu_si256((const __m256i *)(a + 48))));
}

/*
 * mxe_e2m1_pair_avx512() on AVX2, against A in the in-lane order (mxe_e2m1_int_at(...,
 * 1)): the looked-up codes widen to int16 by unpacking with their signs inside each
 * 128-bit lane (block b's codes in lane 0, b + 1's in lane 1) where vpmovsxbw needs
 * each half extracted first: six shuffles a pair instead of eight. Lane L of *@f holds
 * the products of k 0..15 of block b + L in four int32 sums, of *@s those of k 16..31
 * (NVFP4's 16-k blocks; each sum exact: |sum| <= 4 * 12 * 2^15).
 */
__attribute__((target("avx2"), always_inline))
static inline void mxe_e2m1_halves_avx2(const uint8_t *row, const int16_t *a16, size_t b,
					__m256i lut, __m256i *f, __m256i *s)
{
	const __m256i m4 = _mm256_set1_epi8(15), z = _mm256_setzero_si256();
	const __m256i *a = (const __m256i *)(a16 + b * 32);
	__m256i x = _mm256_loadu_si256((const __m256i *)(row + b * 16));
	__m256i lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(x, m4));
	__m256i hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(x, 4), m4));
	__m256i sl = _mm256_cmpgt_epi8(z, lo), sh = _mm256_cmpgt_epi8(z, hi);

	*f = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi8(lo, sl), _mm256_loadu_si256(a)),
			      _mm256_madd_epi16(_mm256_unpacklo_epi8(hi, sh), _mm256_loadu_si256(a + 2)));
	*s = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi8(lo, sl), _mm256_loadu_si256(a + 1)),
			      _mm256_madd_epi16(_mm256_unpackhi_epi8(hi, sh), _mm256_loadu_si256(a + 3)));
}

/* Both halves: lane L holds block b + L's 32 products in four int32 sums. */
__attribute__((target("avx2"), always_inline))
static inline __m256i mxe_e2m1_pair_inlane_avx2(const uint8_t *row, const int16_t *a16, size_t b,
						__m256i lut)
{
	__m256i f, s;

	mxe_e2m1_halves_avx2(row, a16, b, lut, &f, &s);
	return _mm256_add_epi32(f, s);
}

/*
 * 16 bytes at @off of 8 rows transposed in each lane: rows paired into the two lanes
 * (row q in lane 0, row q + 4 in lane 1), unpacked by bytes and words, so that dword d
 * of lane L of t[j] holds byte 4 j + d of rows 4 L .. 4 L + 3.
 */
__attribute__((target("avx2"), always_inline))
static inline void mxe_bytes8_t_lanes_avx2(const uint8_t *const rows[8], size_t off, __m256i t[4])
{
	__m256i y[4], a[4];

	_Pragma("GCC unroll 4")
	for (int q = 0; q < 4; q++)
		y[q] = _mm256_inserti128_si256(
			_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(rows[q] + off))),
			_mm_loadu_si128((const __m128i *)(rows[q + 4] + off)), 1);
	a[0] = _mm256_unpacklo_epi8(y[0], y[1]);	/* rows (0, 1), (4, 5): bytes 0..7 */
	a[1] = _mm256_unpackhi_epi8(y[0], y[1]);	/* bytes 8..15 */
	a[2] = _mm256_unpacklo_epi8(y[2], y[3]);	/* rows (2, 3), (6, 7) */
	a[3] = _mm256_unpackhi_epi8(y[2], y[3]);
	t[0] = _mm256_unpacklo_epi16(a[0], a[2]);
	t[1] = _mm256_unpackhi_epi16(a[0], a[2]);
	t[2] = _mm256_unpacklo_epi16(a[1], a[3]);
	t[3] = _mm256_unpackhi_epi16(a[1], a[3]);
}

/*
 * 16 bytes at @off of 8 rows (a FAST group's 8 columns: an E2M1 sub-block, or half of
 * an FP8 one; or a task's scales) transposed as bytes: mxe_bytes8_t_lanes_avx2(), then
 * a dword permute per result: c[j] qword i holds byte 4 j + i of the 8 rows.
 */
__attribute__((target("avx2"), always_inline))
static inline void mxe_bytes8_t_avx2(const uint8_t *const rows[8], size_t off, __m256i c[4])
{
	const __m256i pd = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);

	mxe_bytes8_t_lanes_avx2(rows, off, c);
	_Pragma("GCC unroll 4")
	for (int j = 0; j < 4; j++)
		c[j] = _mm256_permutevar8x32_epi32(c[j], pd);
}
/*
 * Byte i of 16 columns' E2M1 codes (k = 2 i in the low nibble, 2 i + 1 in the high one)
 * as 16 dwords, each the pair of twice their values as int16 (low word: the even k),
 * as A's pairs are: the GEMVs of several rows, 16 columns the lanes.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline __m512i mxe_e2m1_col_pairs_avx512(__m128i x, __m512i lut)
{
	__m512i d = _mm512_cvtepu8_epi32(x);

	/* (d | d << 12) & 0x000F000F: the low nibble in word 0, the high one in word 1 */
	return _mm512_permutexvar_epi16(_mm512_ternarylogic_epi32(d, _mm512_slli_epi32(d, 12),
								  _mm512_set1_epi32(0x000F000F), 0xA8),
					lut);
}

/*
 * A task's 16 columns of E2M1 weights, 32-k block by block, for several rows of A
 * (mxe_gemv.c's MX kernels, mxe_gemv_nvfp4.c's): each block's codes of the 16 columns
 * as int16 pairs (mxe_cols16_codes_avx512(), mxe_cols16_codes_avx2()),
 * and the columns' scale bytes (mxe_cols16_scales_avx512(): one a block for MX, two
 * for NVFP4). A line (4 blocks) of each column is copied at once and the line 16
 * blocks ahead prefetched (mxe_gemv_stage(): rows 4 KiB apart, K = 8192, fall in one
 * set of L1). The scales are transposed 16 bytes at a time.
 */
struct mxe_cols16 {
	uint8_t stage[16][64] __attribute__((aligned(64)));	/* 4 blocks of each column */
	uint32_t tq[16][16] __attribute__((aligned(64)));	/* dword g of a line: tq[g][column] */
	uint8_t sct[4][64] __attribute__((aligned(64)));	/* byte 4 T + i: sct[i] + 16 T */
	const uint8_t *rows[16], *srows[16], *wrows[16];
	size_t nb, nsb;		/* 32-k blocks and scale bytes a column */
};

/* The line of block @b of each column into c->stage, when a line starts there. */
static inline void mxe_cols16_stage(struct mxe_cols16 *c, size_t b)
{
	if (b % 4 == 0)
		mxe_gemv_stage(c->rows, 16, b * 16, c->nb * 16, c->stage, 16 * 16, 0);
}

/* @rows, @srows of 16 columns, @nb blocks and @nsb scale bytes each. */
static inline void mxe_cols16_init(struct mxe_cols16 *c, const uint8_t *const rows[16],
				   const uint8_t *const srows[16], size_t nb, size_t nsb)
{
	for (unsigned i = 0; i < 16; i++) {
		c->rows[i] = rows[i];
		c->srows[i] = srows[i];
		c->wrows[i] = c->stage[i];
	}
	c->nb = nb;
	c->nsb = nsb;
}

/* The columns' scale byte @s (in increasing order from 0; @fill stands past the end of
 * a transposed 16 that the scales do not fill). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline __m128i mxe_cols16_scales_avx512(struct mxe_cols16 *c, size_t s, uint8_t fill)
{
	if (s % 16 == 0) {
		__m512i st[4];

		if (c->nsb - s >= 16) {
			mxe_bytes16_t_avx512(c->srows, s, st);
		} else {	/* no 16-byte read past the scales (a mapping may end there) */
			uint8_t tail[16][16];
			const uint8_t *tr[16];

			for (unsigned i = 0; i < 16; i++) {
				memset(tail[i], fill, 16);
				memcpy(tail[i], c->srows[i] + s, c->nsb - s);
				tr[i] = tail[i];
			}
			mxe_bytes16_t_avx512(tr, 0, st);
		}
		for (int i = 0; i < 4; i++)
			_mm512_store_si512(c->sct[i], st[i]);
	}
	return _mm_load_si128((const __m128i *)(c->sct[s % 4] + s % 16 / 4 * 16));
}

/*
 * mxe_cols16_scales_avx512() on AVX2: the 16 columns' scale byte @s, 16 of each
 * transposed at once (two byte transposes of 8 columns, joined by qwords) into c->sct,
 * scale 4 j + i at c->sct[j] + 32 (i & 1) + 16 (i >> 1): a byte loop over the columns
 * at each block took an eighth of the several-row GEMVs' time on a Zen 3.
 */
__attribute__((target("avx2"), always_inline))
static inline __m128i mxe_cols16_scales_avx2(struct mxe_cols16 *c, size_t s, uint8_t fill)
{
	if (s % 16 == 0) {
		uint8_t tail[16][16];
		const uint8_t *tr[16], *const *src = c->srows;
		__m256i h0[4], h1[4];	/* qword i of h[j]: byte 4 j + i of 8 columns */
		size_t off = s;

		if (c->nsb - s < 16) {	/* no 16-byte read past the scales */
			for (unsigned i = 0; i < 16; i++) {
				memset(tail[i], fill, 16);
				memcpy(tail[i], c->srows[i] + s, c->nsb - s);
				tr[i] = tail[i];
			}
			src = tr;
			off = 0;
		}
		mxe_bytes8_t_avx2(src, off, h0);
		mxe_bytes8_t_avx2(src + 8, off, h1);
		_Pragma("GCC unroll 4")
		for (int j = 0; j < 4; j++) {
			_mm256_store_si256((__m256i *)(void *)c->sct[j], _mm256_unpacklo_epi64(h0[j], h1[j]));
			_mm256_store_si256((__m256i *)(void *)(c->sct[j] + 32),
					   _mm256_unpackhi_epi64(h0[j], h1[j]));
		}
	}
	return _mm_load_si128((const __m128i *)(const void *)(c->sct[s % 16 / 4] + 32 * (s & 1) +
							      16 * (s % 4 >> 1)));
}

/* Block @b (in increasing order from 0) of the 16 columns as int16 pairs: wp[i] holds
 * the pair of k 2 i, 2 i + 1 of each column. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void mxe_cols16_codes_avx512(struct mxe_cols16 *c, size_t b, __m512i lut,
					   __m512i wp[16])
{
	__m512i w[4];

	mxe_cols16_stage(c, b);
	mxe_bytes16_t_avx512(c->wrows, b % 4 * 16, w);	/* lane T of w[i]: byte 4 T + i */
#define MXE_COL_PAIRS(T)								\
	_Pragma("GCC unroll 4")								\
	for (int i = 0; i < 4; i++)							\
		wp[4 * T + i] = mxe_e2m1_col_pairs_avx512(_mm512_extracti32x4_epi32(w[i], T), lut);
	MXE_COL_PAIRS(0) MXE_COL_PAIRS(1) MXE_COL_PAIRS(2) MXE_COL_PAIRS(3)
#undef MXE_COL_PAIRS
}

/*
 * Block @b (in increasing order from 0) of the 16 columns as unsigned bytes for
 * vpdpbusd: lane c of wb[2 g + h] holds the code of k = 8 g + 2 j + h (byte j = 0..3)
 * of column c, looked up as twice its value plus 12 (0..24), and lane c of cs[h] 128
 * times the sum of them over the block's half h (k 16 h .. 16 h + 15, wb[4 h .. 4 h +
 * 3]), for A's biased low bytes (mxe_e2m1_a8_block()).
 * The four blocks of a line are loaded straight from each column (one 64-byte load
 * a column, nothing staged) and transposed as dwords into c->tq at once: half the
 * instructions of the int16 pairs' byte transpose and lookups.
 */
#define MXE_E2M1_U8_LUT 12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void mxe_cols16_bytes_avx512(struct mxe_cols16 *c, size_t b, __m512i wb[8],
					   __m512i cs[2])
{
	const __m512i lut = _mm512_broadcast_i32x4(_mm_setr_epi8(MXE_E2M1_U8_LUT));
	const __m512i m4 = _mm512_set1_epi8(15);

	if (b % 4 == 0) {
		const size_t off = b * 16, left = c->nb * 16 - off;
		/* no read past a row's end (a mapping may end there): masked bytes do not fault */
		const __mmask64 k = left >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1;
		__m512i l[16];

		_Pragma("GCC unroll 16")
		for (int i = 0; i < 16; i++) {
			l[i] = _mm512_maskz_loadu_epi8(k, c->rows[i] + off);
			/* 8 lines ahead: 4 left a few rows' step short of the memory's latency
			 * (FAST, one thread, 2 and 8 rows 4096^2, pages scattered as a guest's:
			 * 0.69-0.72 -> 0.64-0.66 ms and 1.52-1.61 -> 1.26; 16 and 32 lines ahead
			 * were slower there) */
			_mm_prefetch((const char *)c->rows[i] + off + 512, _MM_HINT_T0);
		}
		mxe_transpose16_avx512(l);	/* l[g], lane c: dword g of column c's line */
		_Pragma("GCC unroll 16")
		for (int g = 0; g < 16; g++)
			_mm512_store_si512(c->tq[g], l[g]);
	}
	_Pragma("GCC unroll 4")
	for (int g = 0; g < 4; g++) {
		__m512i x = _mm512_load_si512(c->tq[b % 4 * 4 + g]);

		wb[2 * g] = _mm512_shuffle_epi8(lut, _mm512_and_si512(x, m4));
		wb[2 * g + 1] = _mm512_shuffle_epi8(lut, _mm512_and_si512(_mm512_srli_epi16(x, 4), m4));
	}
	_Pragma("GCC unroll 2")
	for (int h = 0; h < 2; h++) {	/* bytes of at most 4 x 24, then a lane's four */
		__m512i s = _mm512_add_epi8(_mm512_add_epi8(wb[4 * h], wb[4 * h + 1]),
					    _mm512_add_epi8(wb[4 * h + 2], wb[4 * h + 3]));

		s = _mm512_madd_epi16(_mm512_maddubs_epi16(s, _mm512_set1_epi8(1)), _mm512_set1_epi16(1));
		cs[h] = _mm512_slli_epi32(s, 7);
	}
}

/*
 * Block @b of the 16 columns as the several-row MX kernels take it: with @vnni their
 * bytes @wb, returning both halves' cs added (mxe_cols16_bytes_avx512()), else their
 * int16 pairs @wp (returning 0).
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline __m512i mxe_cols16_block_avx512(struct mxe_cols16 *c, size_t b, int vnni,
					     __m512i lut, __m512i wb[8], __m512i wp[16])
{
	__m512i ch[2];

	if (!vnni) {
		mxe_cols16_codes_avx512(c, b, lut, wp);
		return _mm512_setzero_si512();
	}
	mxe_cols16_bytes_avx512(c, b, wb, ch);
	return _mm512_add_epi32(ch[0], ch[1]);
}

/*
 * @acc plus, in every lane, the four products of @w's unsigned bytes and the signed
 * bytes at @a (broadcast from memory): vpdpbusd, in assembly so that one kernel can
 * hold the VNNI form and the one without (a function with AVX512-VNNI's target would
 * not inline into one without).
 */
__attribute__((target("avx512f"), always_inline))
static inline __m512i mxe_dpbusd_bcast_avx512(__m512i acc, __m512i w, const int32_t *a)
{
	__asm__("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(w), "m"(*a));
	return acc;
}

/* A row's four chains of vpdpbusd (two on A's low bytes, two on its high) as the sum:
 * the low ones' plus 256 the high ones'. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline __m512i mxe_e2m1_a8_sum_avx512(const __m512i q[4])
{
	return _mm512_add_epi32(_mm512_add_epi32(q[0], q[1]),
				_mm512_slli_epi32(_mm512_add_epi32(q[2], q[3]), 8));
}

/*
 * The lanes' integer sums of 2 w n over the weights' bytes wb[@i0 .. @i1)
 * (mxe_cols16_bytes_avx512(): a whole block 0 .. 8, a half 4 h .. 4 h + 4) against A's
 * bytes at @a (mxe_e2m1_a8_block()), from @init (the weights' sums cs plus A's corr for
 * the same k): the low bytes' sums plus 256 the high ones', in four chains (their
 * latency shows at few rows).
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline __m512i mxe_e2m1_a8_dot_avx512(const __m512i wb[8], const int32_t *a, unsigned i0,
					     unsigned i1, __m512i init)
{
	__m512i q[4] = { init, _mm512_setzero_si512(), _mm512_setzero_si512(),
			 _mm512_setzero_si512() };

	_Pragma("GCC unroll 8")
	for (unsigned i = i0; i < i1; i++) {
		q[i % 2] = mxe_dpbusd_bcast_avx512(q[i % 2], wb[i], a + i);
		q[2 + i % 2] = mxe_dpbusd_bcast_avx512(q[2 + i % 2], wb[i], a + 8 + i);
	}
	return mxe_e2m1_a8_sum_avx512(q);
}

/* mxe_dpbusd_bcast_avx512() with A's four bytes already broadcast in @a. */
__attribute__((target("avx512f"), always_inline))
static inline __m512i mxe_dpbusd_avx512(__m512i acc, __m512i w, __m512i a)
{
	__asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(w), "v"(a));
	return acc;
}

/*
 * mxe_e2m1_a8_dot_avx512() over a whole block for two groups of 16 columns at once
 * (@wb[0], @wb[1]; sums into @out[0], @out[1]): each of A's 16 dwords is loaded once
 * for two vpdpbusd, where one group takes a load a vpdpbusd (the host's two loads a
 * cycle then bind as much as its two vpdpbusd a cycle). A FAST GEMV of 32 rows
 * 4096^2, one thread: 4.70-4.75 -> 3.85-3.94 ms (16 rows 2.26-2.37 -> 2.04-2.07, 8 rows
 * 1.27-1.30 -> 1.18-1.20). NVFP4's several-row kernel keeps one group: two ran 3-9 %
 * faster at 16 and 32 rows but 7-10 % slower in FAST at 4 and 8.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void mxe_e2m1_a8_dot2_avx512(const __m512i wb[2][8], const int32_t *a,
					   const __m512i init[2], __m512i out[2])
{
	__m512i q[2][4];

	_Pragma("GCC unroll 2")
	for (int g = 0; g < 2; g++) {
		q[g][0] = init[g];
		q[g][1] = q[g][2] = q[g][3] = _mm512_setzero_si512();
	}
	_Pragma("GCC unroll 8")
	for (unsigned i = 0; i < 8; i++) {
		const __m512i lo = _mm512_set1_epi32(a[i]), hi = _mm512_set1_epi32(a[8 + i]);

		_Pragma("GCC unroll 2")
		for (int g = 0; g < 2; g++) {
			q[g][i % 2] = mxe_dpbusd_avx512(q[g][i % 2], wb[g][i], lo);
			q[g][2 + i % 2] = mxe_dpbusd_avx512(q[g][2 + i % 2], wb[g][i], hi);
		}
	}
	_Pragma("GCC unroll 2")
	for (int g = 0; g < 2; g++)
		out[g] = mxe_e2m1_a8_sum_avx512(q[g]);
}

/*
 * A block of A's int16 form @n (k order) as the signed bytes mxe_cols16_bytes_avx512()'s
 * weights take (@a8, 64 bytes: n = 256 hi + lo + 128, lo's 32 bytes then hi's, k = 8 g
 * + 2 j + h at byte 4 (2 g + h) + j of each), and corr[t] = -12 times the sum of its
 * half t (k 16 t .. 16 t + 15). The weights' bytes are 2 w + 12, so a half's sum of 2 w
 * n is 256 (hi's sum) + lo's sum + 128 (the weights' sum, cs[t]) + corr[t]: every int16
 * fits, and no sum leaves int32 (|256 x 32 x 24 x 128| < 2^25).
 */
__attribute__((target("avx2")))
static inline void mxe_e2m1_a8_block(const int16_t n[32], int8_t a8[64], int32_t corr[2])
{
	/* in each 8 k, byte 2 j + h (k order) to 4 h + j */
	const __m256i perm = _mm256_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15,
					      0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15);
	const __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)n);
	const __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(n + 16));
	const __m256i ff = _mm256_set1_epi16(0xFF);
	/* lo: n & 255 less 128 (its top bit flipped), hi: n >> 8; both packed in k order */
	__m256i lo = _mm256_permute4x64_epi64(_mm256_packus_epi16(_mm256_and_si256(v0, ff),
								  _mm256_and_si256(v1, ff)), 0xD8);
	__m256i hi = _mm256_permute4x64_epi64(_mm256_packs_epi16(_mm256_srai_epi16(v0, 8),
								 _mm256_srai_epi16(v1, 8)), 0xD8);

	lo = _mm256_xor_si256(lo, _mm256_set1_epi8((char)0x80));
	_mm256_storeu_si256((__m256i *)(void *)a8, _mm256_shuffle_epi8(lo, perm));
	_mm256_storeu_si256((__m256i *)(void *)(a8 + 32), _mm256_shuffle_epi8(hi, perm));
	for (int t = 0; t < 2; t++) {
		__m256i s = _mm256_madd_epi16(t ? v1 : v0, _mm256_set1_epi16(1));
		__m128i x = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));

		x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
		x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
		corr[t] = -12 * _mm_cvtsi128_si32(x);
	}
}

/*
 * mxe_cols16_codes_avx512() on AVX2: block @b of the 16 columns as two halves of 8
 * lanes, wp[i][h] the pairs of k 2 i, 2 i + 1 of columns 8 h .. 8 h + 7: the codes
 * transposed as bytes within lanes (mxe_bytes8_t_lanes_avx2(): lane L holds columns
 * 4 L .. 4 L + 3, as the results do), looked up as int8 (pshufb), paired and widened
 * in-lane (the sign bytes from a compare): no lane-crossing step, which a Zen 3 runs
 * on the same two pipes as the shuffles. Returns @wp as a pointer GCC cannot see
 * through, for the rows to load the pairs from where they are: held as values, the
 * 32 vectors were copied to a second place on the stack at every block.
 */
__attribute__((target("avx2"), always_inline))
static inline const __m256i (*mxe_cols16_codes_avx2(struct mxe_cols16 *c, size_t b,
						    __m256i wp[16][2]))[2]
{
	const __m256i (*stored)[2] = wp;

	const __m256i lut = _mm256_setr_epi8(MXE_E2M1_INT_LUT, MXE_E2M1_INT_LUT);
	const __m256i m4 = _mm256_set1_epi8(15), zero = _mm256_setzero_si256();

	mxe_cols16_stage(c, b);
	for (int h = 0; h < 2; h++) {
		__m256i t[4];

		mxe_bytes8_t_lanes_avx2(c->wrows + 8 * h, b % 4 * 16, t);
		_Pragma("GCC unroll 4")
		for (int j = 0; j < 4; j++) {
			__m256i lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(t[j], m4));
			__m256i hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(t[j], 4), m4));
			/* per lane: (lo, hi) of bytes 4 j, 4 j + 1 (p0) and 4 j + 2, 4 j + 3 (p1) */
			__m256i p0 = _mm256_unpacklo_epi8(lo, hi), p1 = _mm256_unpackhi_epi8(lo, hi);
			__m256i s0 = _mm256_cmpgt_epi8(zero, p0), s1 = _mm256_cmpgt_epi8(zero, p1);

			wp[4 * j][h] = _mm256_unpacklo_epi8(p0, s0);
			wp[4 * j + 1][h] = _mm256_unpackhi_epi8(p0, s0);
			wp[4 * j + 2][h] = _mm256_unpacklo_epi8(p1, s1);
			wp[4 * j + 3][h] = _mm256_unpackhi_epi8(p1, s1);
		}
	}
	__asm__("" : "+r"(stored));
	return stored;
}

#endif

#endif /* MXE_GEMV_INT_H */
