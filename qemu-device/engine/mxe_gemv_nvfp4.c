// SPDX-License-Identifier: MIT
/*
 * mxe_gemv_nvfp4.c - NVFP4 x NVFP4 with few rows of A (an LLM's decode step on NVFP4
 * weights and activations), EXACT and FAST, at the speed of streaming the weights'
 * codes and scales, with the bits of the BF16 operation on the copies (mxe_nvfp4.c).
 *
 * The general NVFP4 paths pack all of B before they multiply (the int16 pairs of
 * mxe_tiled.c: 32 MiB of words for a 4096^2 GEMV's 8 MiB of codes, 10-13 ms), which
 * one row of A cannot amortise. Here each column's codes are read once, per row of A:
 *
 * A UE4M3 scale is m 2^x with an integer m <= 15 (mxe_ue4m3_int()), an E2M1
 * element twice an integer e (|2e| <= 12). Row i of A is kept as int16 words 2e m_a
 * (|.| <= 180) in mxe_gemv_int.h's order, so a 16-k block's sum against the weights'
 * integers 2e_b is I = sum 2e_a m_a 2e_b, exact in int32 (|I| <= 34560), and the block
 * contributes T = I m_b 2^(x_a + x_b - 2), with |I m_b| < 2^19.
 *
 * EXACT: every T is an integer times 2^-20 (x >= -9 on either side), below 2^47 of
 * those units (x <= 5), so the sum of K / 16 <= 2^16 of them is exact in int64:
 * S = sum I m_b << (x_a + x_b + 18), and the output is S 2^-20 rounded once to f32
 * ((float)S: the conversion rounds to nearest even). An exact zero (whose sign the
 * integers lose) and a NaN scale go to the general exact path from the codes' values.
 *
 * FAST: the copies' chain q = fma(a_k, b_k, q) from +0 over a 32-k sub-block cannot
 * round where the two 16-k halves' exponents x_a + x_b are at most 4 apart: each
 * product is an integer below 144 x 225 x 2^d units of the sub-block's grid
 * 2^(min x - 2), their 32 magnitudes add up to less than 518400 (1 + 2^4) < 2^24 such
 * units, so every partial sum is exact and q = T_0 + T_1 (+0 for 0). Each T is exact
 * in f32 (I converted, times the f32 scale times 2^(x_a - 2)), and so is their sum.
 * Sub-blocks further apart (or with a NaN scale) run the chain itself, element by
 * element. The sub-block sums then go into the block sums and the accumulator in f32,
 * in K order, as the tiled kernels add them (numerics.rst "FAST").
 *
 * Kernels, one row at a time: AVX-512 (512 k of a column at a time: eight pairs of 32-k
 * blocks, their 16-bit products reduced to 32 block sums in two vectors) and AVX2 (256
 * k: 16 block sums), then pairs of 32-k blocks. Several rows: the task's 16 columns as
 * lanes (nvg_cols_avx512_t(), nvg_cols_avx2_t()), each block's codes decoded once for
 * every row.
 * The block sums come out of the reduction in a fixed lane order; the weights' scale
 * bytes are shuffled into that order, A's per-block data is stored in it (nvg_lane()).
 * An exponent sum x_a + x_b + 18 is never negative; NVG_NONE (a zero scale: no product)
 * makes it so.
 *
 * Taken: NVFP4 x NVFP4, EXACT (one chunk of K) or FAST, M <= 32 (FAST on AVX2: 24), K a
 * multiple of 64 up to 2^20, an f32 D without C, a host with AVX2, B as one array or row
 * by row (the device's weights read in place, mxe_gemv_takes()). Returns 1 otherwise.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "mxe_avx2.h"
#include "mxe_cpu.h"
#include "mxe_formats.h"
#include "mxe_gemm.h"
#include "mxe_gemv_int.h"
#include "mxe_pool.h"

#define NVG_MAX_M	32
/* FAST on AVX2 hosts: past 24 rows the tiled path's int16 pairs are faster (capped at
 * AVX2, 4096^2, ms: 24 rows 8.7 here, 8.8 there; 32 rows 11.4 against 10.3) */
#define NVG_MAX_M_FAST_AVX2 24
#define NVG_COLS	16		/* columns per task */
#define NVG_KMAX	((size_t)1 << 20)	/* S below 2^63 */
#define NVG_HB		MXA_NVFP4_BLOCK	/* 16 k per scale */
#define NVG_SUB		MXE_FAST_KSUB	/* 32: FAST's chains */
#define NVG_CHUNK_512	32		/* 16-k blocks per AVX-512 step */
#define NVG_CHUNK_256	16		/* and per AVX2 step */
#define NVG_NONE	(-1000)		/* a zero scale's exponent: no product */
#define NVG_FAR		4		/* halves' exponent sums further apart: FAST's chain */
/*
 * Fewer rows run one by one (a host loop over mxe_gemm(), 4096^2, 2 threads, best of 5
 * to 7, ms one by one / as lanes, EXACT: 2 rows 0.58 / 0.79, 3 rows 0.87 / 1.00, 4 rows
 * 1.15 / 1.04; capped at AVX2 4 rows 2.04 / 2.08, 8 rows 3.9 / 3.2); but FAST on
 * AVX-512 from 2 rows (0.78 / 0.75; capped at AVX2 2 rows 1.24 / 1.58, 4 rows 2.44 /
 * 2.28).
 */
#define NVG_COLS_MIN 4

struct nvg_job {
	const struct mxe_op *op;	/* the BF16 operation standing in: D, flags, threads */
	const uint8_t *codes_b, *scales_b;
	size_t ld_b, ld_sb;
	const uint8_t *const *b_rows, *const *scale_b_rows;	/* or row by row (in place) */
	size_t m, n, k, nhb;		/* nhb: 16-k blocks of a row */
	int exact, avx512, neg, neg_b;
	int cols, vnni;			/* several rows: the task's columns as lanes */
	size_t chunk;			/* 16-k blocks per vector step (one row) */
	/* A, per row (row i at i k words, i nhb blocks) */
	int16_t *a16;			/* 2e m_a, mxe_gemv_int.h's order (cols: k order) */
	int8_t *a8;			/* cols with VNNI: a16 as bytes, per 32-k block, */
	int32_t *acorr;			/* and per 16-k one (mxe_e2m1_a8_block()) */
	int32_t *ax;			/* per block, in lane order: x_a + 8, NVG_NONE for m_a = 0 */
	float *fa;			/* per block, in lane order: 2^(x_a + 6) (cols: k order) */
	double *av;			/* the values, negated as the op says */
	float *af;			/* the same in f32 (FAST's chains) */
	uint8_t *anan;			/* a NaN scale in the row */
	unsigned tasks;
	int failed;
};

static uint64_t nvg_outputs, nvg_redone, nvg_chains;	/* since the process started */

void mxe_gemv_nvfp4_counts(uint64_t *outputs, uint64_t *redone, uint64_t *chains)
{
	*outputs = __atomic_load_n(&nvg_outputs, __ATOMIC_RELAXED);
	*redone = __atomic_load_n(&nvg_redone, __ATOMIC_RELAXED);
	*chains = __atomic_load_n(&nvg_chains, __ATOMIC_RELAXED);
}

/*
 * Where 16-k block @hb of a row sits in the per-block arrays: the lane that holds its
 * sum after a vector step's reduction (AVX-512: lane 4 L + e of a half holds block
 * 4 e + L, AVX2: block 2 e + L), or @hb itself past the last whole step.
 */
static size_t nvg_lane(const struct nvg_job *job, size_t hb)
{
	size_t c = job->chunk, base = hb / c * c, r = hb % c;

	if (job->cols || base + c > job->nhb)
		return hb;
	if (job->avx512)
		return base + r / 16 * 16 + 4 * (r % 4) + r % 16 / 4;
	return base + r / 8 * 8 + 4 * (r % 2) + r % 8 / 2;
}

/* FAST's chain over sub-block @s of row @i against column @j: the copies' own q. */
static float nvg_chain(const struct nvg_job *job, size_t i, const uint8_t *row,
		       const uint8_t *sc, size_t s)
{
	const float *a = job->af + i * job->k + s * NVG_SUB;
	const float *lut = mxe_decode_lut(MXA_DTYPE_E2M1);
	float q = 0.0f;

	__atomic_add_fetch(&nvg_chains, 1, __ATOMIC_RELAXED);
	for (int t = 0; t < NVG_SUB; t++) {
		size_t kk = s * NVG_SUB + t;
		float b = lut[row[kk / 2] >> (kk & 1) * 4 & 0xF] * mxe_cvt_ue4m3_to_f32(sc[kk / NVG_HB]);

		q = fmaf(a[t], job->neg_b ? -b : b, q);
	}
	return q;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * What a column's kernel leaves: EXACT its integer sum and whether a weight scale is
 * NaN; FAST the sub-block sums q[] in K order, those still to run as chains marked in
 * redo[] (one bit a sub-block).
 */
struct nvg_col {
	int64_t s;
	int nan;
	float *q;
	uint64_t *redo;
};

/* Pairs of 32-k blocks from 16-k block @hb0 on, one at a time (the steps' tail). */
__attribute__((target("avx2")))
static void nvg_tail(const struct nvg_job *job, size_t i, const uint8_t *row, const uint8_t *sc,
		     size_t hb0, struct nvg_col *o)
{
	const __m256i lut = _mm256_setr_epi8(MXE_E2M1_INT_LUT, MXE_E2M1_INT_LUT);
	const int16_t *a16 = job->a16 + i * job->k;
	const int32_t *ax = job->ax + i * job->nhb;
	const float *fa = job->fa + i * job->nhb;

	for (size_t hb = hb0; hb < job->nhb; hb += 4) {
		int32_t l[16];
		__m256i p0, p1;
		float t[4];
		int xs[4];

		/* quarter q's four sums: at 4 q in the plain order (AVX-512 hosts), at
		 * 4 (2 (q % 2) + q / 2) in the in-lane one (halves: lane L block 2 L) */
		if (job->avx512)
			mxe_e2m1_pair_avx2(row, a16, hb / 2, lut, &p0, &p1);
		else
			mxe_e2m1_halves_avx2(row, a16, hb / 2, lut, &p0, &p1);
		_mm256_storeu_si256((__m256i *)l, p0);
		_mm256_storeu_si256((__m256i *)(l + 8), p1);
		for (int q = 0; q < 4; q++) {
			const int32_t *lq = l + 4 * (job->avx512 ? q : 2 * (q % 2) + q / 2);
			int32_t in = lq[0] + lq[1] + lq[2] + lq[3];
			int x, mb = mxe_ue4m3_int(sc[hb + q], &x);

			in = job->neg ? -in : in;
			o->nan |= mxe_ue4m3_nan(sc[hb + q]);
			xs[q] = ax[hb + q] == NVG_NONE || !mb ? NVG_NONE : ax[hb + q] + x + 10;
			if (job->exact) {
				if (xs[q] != NVG_NONE)
					o->s += (int64_t)(in * mb) * ((int64_t)1 << xs[q]);
				continue;
			}
			t[q] = (float)in * (mxe_cvt_ue4m3_to_f32(sc[hb + q]) * 0x1p-8f * fa[hb + q]);
		}
		for (int h = 0; !job->exact && h < 2; h++) {
			size_t s = hb / 2 + h;
			int a = xs[2 * h], b = xs[2 * h + 1];

			o->q[s] = t[2 * h] + t[2 * h + 1];
			if (a != NVG_NONE && b != NVG_NONE && abs(a - b) > NVG_FAR)
				o->redo[s / 64] |= 1ull << (s % 64);
		}
	}
}

#define NVG_AVX512 "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c"

/*
 * 16 UE4M3 scale bytes @s8 as lanes: m (*@mb), max(e, 1) = x + 10 (*@xe), the value
 * times 2^-8 (*@f, an f16 pattern's), and the zero and NaN scales (*@zero, *@nan).
 */
__attribute__((target(NVG_AVX512), always_inline))
static inline void nvg_scales_avx512(__m128i s8, __m512i *mb, __m512i *xe, __m512 *f,
				     __mmask16 *zero, __mmask16 *nan)
{
	const __m512i one = _mm512_set1_epi32(1), m7f = _mm512_set1_epi32(MXE_UE4M3_NAN);
	__m512i s = _mm512_and_si512(_mm512_cvtepu8_epi32(s8), m7f);
	__m512i e = _mm512_srli_epi32(s, 3);

	*mb = _mm512_or_si512(_mm512_and_si512(s, _mm512_set1_epi32(7)),
			      _mm512_slli_epi32(_mm512_min_epu32(e, one), 3));
	*xe = _mm512_max_epi32(e, one);
	*f = _mm512_cvtph_ps(_mm256_slli_epi16(_mm256_cvtepu8_epi16(
		_mm_and_si128(s8, _mm_set1_epi8(MXE_UE4M3_NAN))), 7));
	*zero = _mm512_cmpeq_epi32_mask(s, _mm512_setzero_si512());
	*nan = _mm512_cmpeq_epi32_mask(s, m7f);
}

/* EXACT: @acc (two int64 vectors) += @in m_b << @xs lane by lane (a negative shift, no
 * product, shifts everything out). */
__attribute__((target(NVG_AVX512), always_inline))
static inline void nvg_exact_add_avx512(__m512i acc[2], __m512i in, __m512i mb, __m512i xs)
{
	__m512i im = _mm512_mullo_epi32(in, mb);

	acc[0] = _mm512_add_epi64(acc[0], _mm512_sllv_epi64(
		_mm512_cvtepi32_epi64(_mm512_castsi512_si256(im)),
		_mm512_cvtepi32_epi64(_mm512_castsi512_si256(xs))));
	acc[1] = _mm512_add_epi64(acc[1], _mm512_sllv_epi64(
		_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(im, 1)),
		_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(xs, 1))));
}

/* FAST: the lanes whose halves' exponent sums @x0, @x1 (negative: no product) lie more
 * than NVG_FAR apart, where the chain may round. */
__attribute__((target(NVG_AVX512), always_inline))
static inline __mmask16 nvg_far_avx512(__m512i x0, __m512i x1)
{
	return _mm512_cmpgt_epi32_mask(_mm512_abs_epi32(_mm512_sub_epi32(x0, x1)),
				       _mm512_set1_epi32(NVG_FAR)) &
	       _mm512_cmpgt_epi32_mask(x0, _mm512_set1_epi32(-1)) &
	       _mm512_cmpgt_epi32_mask(x1, _mm512_set1_epi32(-1));
}

/*
 * Row @i against the column @row (codes) / @sc (scales) on AVX-512, @exact constant
 * where inlined: 32 blocks a step, eight pairs' 16-bit products (lane 4 L + d of pair
 * t: a quarter of block 4 t + L) reduced by two levels of adds to w[h], whose lane
 * 4 L + e holds block 16 h + 4 e + L.
 */
__attribute__((target(NVG_AVX512), always_inline))
static inline void nvg_column_avx512_t(const struct nvg_job *job, size_t i, const uint8_t *row,
				       const uint8_t *sc, struct nvg_col *o, int exact)
{
	const __m512i lut = mxe_e2m1_lut_avx512();
	const __m128i order = _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
	const __m512i none = _mm512_set1_epi32(NVG_NONE);
	const int16_t *a16 = job->a16 + i * job->k;
	const int32_t *ax = job->ax + i * job->nhb;
	const float *fa = job->fa + i * job->nhb;
	size_t steps = job->nhb / NVG_CHUNK_512;
	__m512i acc[2] = { _mm512_setzero_si512(), _mm512_setzero_si512() };
	__mmask16 nan = 0;

	for (size_t c = 0; c < steps; c++) {
		size_t hb0 = c * NVG_CHUNK_512;
		__m512i v[8], u[4], w[2], xs[2];
		__m512 t[2];

		/* FAST: the step's 256 bytes of codes prefetched 4 steps ahead (one thread,
		 * 1x8192^2: 2.73-2.78 -> 2.29-2.31 ms; EXACT, which streams them without,
		 * was slower with: 1.60-1.62 -> 1.74-1.88) */
		_Pragma("GCC unroll 4")
		for (int p = 0; p < 4 && !exact; p++)
			_mm_prefetch((const char *)row + hb0 * 8 + 1024 + 64 * p, _MM_HINT_T0);
		_Pragma("GCC unroll 8")
		for (int p = 0; p < 8; p++)
			v[p] = mxe_e2m1_pair_avx512(row, a16, hb0 / 2 + 2 * p, lut);
		_Pragma("GCC unroll 4")
		for (int p = 0; p < 4; p++)
			u[p] = _mm512_add_epi32(_mm512_unpacklo_epi32(v[2 * p], v[2 * p + 1]),
						_mm512_unpackhi_epi32(v[2 * p], v[2 * p + 1]));
		_Pragma("GCC unroll 2")
		for (int h = 0; h < 2; h++) {
			__m128i sb8 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(sc + hb0 + 16 * h)),
						       order);
			__m512i mb, xe;
			__m512 f;
			__mmask16 zero, nh;

			nvg_scales_avx512(sb8, &mb, &xe, &f, &zero, &nh);
			nan |= nh;
			w[h] = _mm512_add_epi32(_mm512_unpacklo_epi64(u[2 * h], u[2 * h + 1]),
						_mm512_unpackhi_epi64(u[2 * h], u[2 * h + 1]));
			if (job->neg)
				w[h] = _mm512_sub_epi32(_mm512_setzero_si512(), w[h]);
			xs[h] = _mm512_add_epi32(xe, _mm512_loadu_si512(ax + hb0 + 16 * h));
			if (exact) {
				nvg_exact_add_avx512(acc, w[h], mb, xs[h]);
			} else {
				t[h] = _mm512_mul_ps(_mm512_cvtepi32_ps(w[h]),
						     _mm512_mul_ps(f, _mm512_loadu_ps(fa + hb0 + 16 * h)));
				xs[h] = _mm512_mask_mov_epi32(xs[h], zero, none);
			}
		}
		if (!exact) {
			/* lanes 4 M + e: sub-block 8 (M / 2) + 2 e + M % 2 of the step; in K
			 * order by the permute */
			static const uint8_t sub[16] = { 0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15 };
			const __m512i ksort = _mm512_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
			__m512 q = _mm512_add_ps(_mm512_shuffle_f32x4(t[0], t[1], 0x88),
						 _mm512_shuffle_f32x4(t[0], t[1], 0xdd));
			__mmask16 bad = nvg_far_avx512(_mm512_shuffle_i32x4(xs[0], xs[1], 0x88),
						       _mm512_shuffle_i32x4(xs[0], xs[1], 0xdd));
			size_t s0 = hb0 / 2;

			_mm512_storeu_ps(o->q + s0, _mm512_permutexvar_ps(ksort, q));
			while (bad) {
				int l = __builtin_ctz(bad);

				o->redo[(s0 + sub[l]) / 64] |= 1ull << ((s0 + sub[l]) % 64);
				bad &= (__mmask16)(bad - 1);
			}
		}
	}
	if (exact)
		o->s += _mm512_reduce_add_epi64(_mm512_add_epi64(acc[0], acc[1]));
	o->nan |= nan != 0;
	nvg_tail(job, i, row, sc, steps * NVG_CHUNK_512, o);
}

__attribute__((target(NVG_AVX512)))
static void nvg_column_avx512(const struct nvg_job *job, size_t i, const uint8_t *row,
			      const uint8_t *sc, struct nvg_col *o)
{
	if (job->exact)
		nvg_column_avx512_t(job, i, row, sc, o, 1);
	else
		nvg_column_avx512_t(job, i, row, sc, o, 0);
}

/* nvg_scales_avx512() on AVX2: 8 scale bytes (the low ones of @s8), the zero and NaN
 * scales as lane masks. */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void nvg_scales_avx2(__m128i s8, __m256i *mb, __m256i *xe, __m256 *f,
				   __m256i *zero, __m256i *nan)
{
	const __m256i one = _mm256_set1_epi32(1), m7f = _mm256_set1_epi32(MXE_UE4M3_NAN);
	__m256i s = _mm256_and_si256(_mm256_cvtepu8_epi32(s8), m7f);
	__m256i e = _mm256_srli_epi32(s, 3);

	*mb = _mm256_or_si256(_mm256_and_si256(s, _mm256_set1_epi32(7)),
			      _mm256_slli_epi32(_mm256_min_epu32(e, one), 3));
	*xe = _mm256_max_epi32(e, one);
	*f = _mm256_cvtph_ps(_mm_slli_epi16(_mm_cvtepu8_epi16(
		_mm_and_si128(s8, _mm_set1_epi8(MXE_UE4M3_NAN))), 7));
	*zero = _mm256_cmpeq_epi32(s, _mm256_setzero_si256());
	*nan = _mm256_cmpeq_epi32(s, m7f);
}

/* nvg_exact_add_avx512() on AVX2. */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void nvg_exact_add_avx2(__m256i acc[2], __m256i in, __m256i mb, __m256i xs)
{
	__m256i im = _mm256_mullo_epi32(in, mb);

	acc[0] = _mm256_add_epi64(acc[0], _mm256_sllv_epi64(
		_mm256_cvtepi32_epi64(_mm256_castsi256_si128(im)),
		_mm256_cvtepi32_epi64(_mm256_castsi256_si128(xs))));
	acc[1] = _mm256_add_epi64(acc[1], _mm256_sllv_epi64(
		_mm256_cvtepi32_epi64(_mm256_extracti128_si256(im, 1)),
		_mm256_cvtepi32_epi64(_mm256_extracti128_si256(xs, 1))));
}

/* nvg_far_avx512() on AVX2, as a mask of the 8 lanes. */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline unsigned nvg_far_avx2(__m256i x0, __m256i x1)
{
	__m256i d = _mm256_and_si256(_mm256_and_si256(_mm256_cmpgt_epi32(x0, _mm256_set1_epi32(-1)),
						      _mm256_cmpgt_epi32(x1, _mm256_set1_epi32(-1))),
				     _mm256_cmpgt_epi32(_mm256_abs_epi32(_mm256_sub_epi32(x0, x1)),
							_mm256_set1_epi32(NVG_FAR)));

	return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(d));
}

/*
 * The same on AVX2: 16 blocks a step, four pairs' halves (mxe_e2m1_halves_avx2(): lane
 * L of p[2 t] four sums of block 4 t + 2 L, of p[2 t + 1] of block 4 t + 2 L + 1)
 * reduced to w[h], whose lane 4 L + e holds block 8 h + 2 e + L, so a sub-block's two
 * halves are the two 128-bit lanes.
 */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void nvg_column_avx2_t(const struct nvg_job *job, size_t i, const uint8_t *row,
				     const uint8_t *sc, struct nvg_col *o, int exact)
{
	const __m256i lut = _mm256_setr_epi8(MXE_E2M1_INT_LUT, MXE_E2M1_INT_LUT);
	const __m128i order = _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15);
	const __m256i none = _mm256_set1_epi32(NVG_NONE);
	const int16_t *a16 = job->a16 + i * job->k;
	const int32_t *ax = job->ax + i * job->nhb;
	const float *fa = job->fa + i * job->nhb;
	size_t steps = job->nhb / NVG_CHUNK_256;
	__m256i acc[4] = { _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
			   _mm256_setzero_si256() };
	__m256i nan = _mm256_setzero_si256();

	for (size_t c = 0; c < steps; c++) {
		size_t hb0 = c * NVG_CHUNK_256;
		__m128i sb16 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(sc + hb0)), order);
		__m256i p[8], u[4];

		_Pragma("GCC unroll 4")
		for (int t = 0; t < 4; t++)
			mxe_e2m1_halves_avx2(row, a16, hb0 / 2 + 2 * t, lut, &p[2 * t], &p[2 * t + 1]);
		_Pragma("GCC unroll 4")
		for (int t = 0; t < 4; t++)
			u[t] = _mm256_add_epi32(_mm256_unpacklo_epi32(p[2 * t], p[2 * t + 1]),
						_mm256_unpackhi_epi32(p[2 * t], p[2 * t + 1]));
		_Pragma("GCC unroll 2")
		for (int h = 0; h < 2; h++) {
			__m128i sb8 = h ? _mm_unpackhi_epi64(sb16, sb16) : sb16;
			/* lane L: blocks 2 L, 2 L + 1, 2 L + 4, 2 L + 5 (of 8 h on); then 2 e + L */
			__m256i w = _mm256_add_epi32(_mm256_unpacklo_epi64(u[2 * h], u[2 * h + 1]),
						     _mm256_unpackhi_epi64(u[2 * h], u[2 * h + 1]));
			__m256i mb, xe, zero, nh, xs;
			__m256 f;

			w = _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 4, 2, 6, 1, 5, 3, 7));
			nvg_scales_avx2(sb8, &mb, &xe, &f, &zero, &nh);
			nan = _mm256_or_si256(nan, nh);
			if (job->neg)
				w = _mm256_sub_epi32(_mm256_setzero_si256(), w);
			xs = _mm256_add_epi32(xe, _mm256_loadu_si256((const __m256i *)(ax + hb0 + 8 * h)));
			if (exact) {
				nvg_exact_add_avx2(acc + 2 * h, w, mb, xs);
			} else {
				__m256 t = _mm256_mul_ps(_mm256_cvtepi32_ps(w),
							 _mm256_mul_ps(f, _mm256_loadu_ps(fa + hb0 + 8 * h)));
				__m128 q = _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
				size_t s0 = hb0 / 2 + 4 * h;
				unsigned bad;

				/* a sub-block's halves are the two 128-bit lanes */
				xs = _mm256_blendv_epi8(xs, none, zero);
				bad = nvg_far_avx2(xs, _mm256_permute2x128_si256(xs, xs, 1)) & 0xF;
				_mm_storeu_ps(o->q + s0, q);
				if (bad)
					o->redo[s0 / 64] |= (uint64_t)bad << (s0 % 64);
			}
		}
	}
	if (exact) {
		int64_t l[4];

		_mm256_storeu_si256((__m256i *)l, _mm256_add_epi64(_mm256_add_epi64(acc[0], acc[1]),
								    _mm256_add_epi64(acc[2], acc[3])));
		o->s += (l[0] + l[1]) + (l[2] + l[3]);
	}
	o->nan |= !_mm256_testz_si256(nan, nan);
	nvg_tail(job, i, row, sc, steps * NVG_CHUNK_256, o);
}

__attribute__((target("avx2,fma,f16c")))
static void nvg_column_avx2(const struct nvg_job *job, size_t i, const uint8_t *row,
			    const uint8_t *sc, struct nvg_col *o)
{
	if (job->exact)
		nvg_column_avx2_t(job, i, row, sc, o, 1);
	else
		nvg_column_avx2_t(job, i, row, sc, o, 0);
}

/* Column @j's codes, and its scales in *@sc. */
static inline const uint8_t *nvg_b_row(const struct nvg_job *job, size_t j, const uint8_t **sc)
{
	*sc = job->scale_b_rows ? job->scale_b_rows[j] : job->scales_b + j * job->ld_sb;
	return job->b_rows ? job->b_rows[j] : job->codes_b + j * job->ld_b;
}

/* Output (i, j) on the general exact path from the codes' values (@bv: column j's,
 * @row and @sc). */
static void nvg_redo_exact(const struct nvg_job *job, size_t i, size_t j, const uint8_t *row,
			   const uint8_t *sc, double *bv, int *have_bv)
{
	if (!*have_bv) {
		mxe_nvfp4_row_values(row, sc, job->k, job->neg_b, bv);
		*have_bv = 1;
	}
	__atomic_add_fetch(&nvg_redone, 1, __ATOMIC_RELAXED);
	mxe_exact_output_rows(job->op, i, j, job->av + i * job->k, bv);
}

/* FAST's output (i, j) from chains alone (a NaN scale: NaN where it reaches). */
static float nvg_fast_chains(const struct nvg_job *job, size_t i, const uint8_t *row,
			     const uint8_t *sc)
{
	size_t nsub = job->k / NVG_SUB;
	float p = 0.0f, acc = 0.0f;

	for (size_t s = 0; s < nsub; s++) {
		float q = nvg_chain(job, i, row, sc, s);

		p = mxe_fast_opens_block(s) ? q : p + q;
		if (mxe_fast_closes_block(s, nsub))
			acc = mxe_fast_first_block(s) ? p : acc + p;
	}
	return acc;
}

/*
 * The outputs of a task's @nc columns from @j0 (@rows, @srows) for every row, from the
 * column kernels' sums (EXACT's @sx, FAST's @sf, per row): the columns of @nan (a NaN
 * scale), the rows with one, and EXACT's exact zeros go to the general paths (@bv: K
 * doubles for a column's values).
 */
static void nvg_cols_store(const struct nvg_job *job, size_t j0, size_t nc,
			   const uint8_t *const rows[16], const uint8_t *const srows[16],
			   unsigned nan, double *bv, const int64_t sx[][16], const float sf[][16])
{
	uint64_t done = 0;	/* rows stored at once: no NaN scale, no exact zero */

	for (size_t r = 0; r < job->m && !nan; r++) {
		float out[16];
		int zero = 0;

		for (size_t c = 0; c < nc; c++) {
			zero |= job->exact && !sx[r][c];
			out[c] = job->exact ? (float)sx[r][c] * 0x1p-20f : sf[r][c];
		}
		if (!job->anan[r] && !zero) {
			mxe_op_store_row_f32(job->op, r, j0, out, nc);
			done |= UINT64_C(1) << r;
		}
	}
	for (size_t c = 0; c < nc; c++) {
		int have_bv = 0;

		for (size_t r = 0; r < job->m; r++) {
			int bad = job->anan[r] || ((nan >> c) & 1);

			if ((done >> r) & 1)
				continue;
			if (!job->exact)
				mxe_op_store_d(job->op, r, j0 + c,
					       bad ? nvg_fast_chains(job, r, rows[c], srows[c]) : sf[r][c]);
			else if (bad || !sx[r][c])
				nvg_redo_exact(job, r, j0 + c, rows[c], srows[c], bv, &have_bv);
			else
				mxe_op_store_d(job->op, r, j0 + c, (double)((float)sx[r][c] * 0x1p-20f));
		}
	}
}

/*
 * Several rows of A on AVX-512: the task's 16 columns are the lanes. Each 32-k block's
 * codes of the columns are transposed and looked up once (struct mxe_cols16), then
 * every row adds each 16-k half (with VNNI eight vpdpbusd on the weights' bytes and A's,
 * mxe_e2m1_a8_block(); without, eight vpmaddwd and vpaddd on int16 pairs, A's pair
 * broadcast from its k order) and scales it:
 * EXACT into two int64 vectors a row, FAST into the row's sub-block, block and
 * accumulator sums in f32, K order, with the columns' chains where a lane's halves
 * are too far apart. A column with a NaN scale, a row with one, and EXACT's exact
 * zeros go to the general paths at the end (@bv: K doubles for a column's values).
 * @exact, @vnni constant where inlined.
 */
__attribute__((target(NVG_AVX512), always_inline))
static inline void nvg_cols_avx512_t(const struct nvg_job *job, size_t j0, double *bv, int exact,
				     int vnni)
{
	const size_t m = job->m, nb = job->k / MXA_MX_BLOCK;
	const size_t nc = job->n - j0 < 16 ? job->n - j0 : 16;
	const __m512i lut = mxe_e2m1_lut_avx512(), none = _mm512_set1_epi32(NVG_NONE);
	const uint8_t *rows[16], *srows[16];
	struct mxe_cols16 cols;
	__m512i acc[NVG_MAX_M][2];
	__m512 p[NVG_MAX_M], sum[NVG_MAX_M];
	int64_t sx[NVG_MAX_M][16];
	float sf[NVG_MAX_M][16];
	__mmask16 nan = 0;

	for (unsigned c = 0; c < 16; c++)	/* columns past N read the last one's */
		rows[c] = nvg_b_row(job, j0 + (c < nc ? c : nc - 1), &srows[c]);
	mxe_cols16_init(&cols, rows, srows, nb, job->nhb);
	for (size_t r = 0; r < m; r++) {
		acc[r][0] = acc[r][1] = _mm512_setzero_si512();
		p[r] = sum[r] = _mm512_setzero_ps();
	}
	for (size_t b = 0; b < nb; b++) {
		__m512i wp[16], cs[2], mb[2], emax[2];	/* VNNI: wp[0 .. 7] the bytes */
		__m512 f[2];
		__mmask16 bz[2];

		if (vnni)
			mxe_cols16_bytes_avx512(&cols, b, wp, cs);
		else
			mxe_cols16_codes_avx512(&cols, b, lut, wp);
		_Pragma("GCC unroll 2")
		for (int h = 0; h < 2; h++) {
			__mmask16 nh;

			nvg_scales_avx512(mxe_cols16_scales_avx512(&cols, 2 * b + h, 0), &mb[h], &emax[h],
					  &f[h], &bz[h], &nh);
			nan |= nh;
		}
		for (size_t r = 0; r < m; r++) {
			const int32_t *a = (const int32_t *)(job->a16 + r * job->k + b * MXA_MX_BLOCK);
			__m512 t[2];
			__m512i xs[2];

			_Pragma("GCC unroll 2")
			for (int h = 0; h < 2; h++) {
				size_t hb = 2 * b + h;
				int32_t ax = job->ax[r * job->nhb + hb];
				__m512i q0 = _mm512_setzero_si512(), q1 = q0, in;

				if (vnni) {
					in = mxe_e2m1_a8_dot_avx512(
						wp, (const int32_t *)(job->a8 + (r * nb + b) * 64), 4 * h, 4 * h + 4,
						_mm512_add_epi32(cs[h], _mm512_set1_epi32(
							job->acorr[(r * nb + b) * 2 + h])));
				} else {
					_Pragma("GCC unroll 8")
					for (int i = 0; i < 8; i += 2) {
						q0 = _mm512_add_epi32(q0, _mm512_madd_epi16(wp[8 * h + i],
							_mm512_set1_epi32(a[8 * h + i])));
						q1 = _mm512_add_epi32(q1, _mm512_madd_epi16(wp[8 * h + i + 1],
							_mm512_set1_epi32(a[8 * h + i + 1])));
					}
					in = _mm512_add_epi32(q0, q1);
				}
				if (job->neg)
					in = _mm512_sub_epi32(_mm512_setzero_si512(), in);
				xs[h] = _mm512_add_epi32(emax[h], _mm512_set1_epi32(ax));
				if (exact) {
					nvg_exact_add_avx512(acc[r], in, mb[h], xs[h]);
				} else {
					t[h] = _mm512_mul_ps(_mm512_cvtepi32_ps(in), _mm512_mul_ps(f[h],
							     _mm512_set1_ps(job->fa[r * job->nhb + hb])));
					xs[h] = _mm512_mask_mov_epi32(xs[h], bz[h], none);
				}
			}
			if (!exact) {
				__m512 q = _mm512_add_ps(t[0], t[1]);
				__mmask16 bad = nvg_far_avx512(xs[0], xs[1]) & (__mmask16)((1u << nc) - 1);

				if (bad) {	/* rare: those columns' chains */
					float qs[16];

					_mm512_storeu_ps(qs, q);
					for (; bad; bad &= (__mmask16)(bad - 1)) {
						int c = __builtin_ctz(bad);

						qs[c] = nvg_chain(job, r, rows[c], srows[c], b);
					}
					q = _mm512_loadu_ps(qs);
				}
				p[r] = mxe_fast_opens_block(b) ? q : _mm512_add_ps(p[r], q);
				if (mxe_fast_closes_block(b, nb))
					sum[r] = mxe_fast_first_block(b) ? p[r] : _mm512_add_ps(sum[r], p[r]);
			}
		}
	}
	for (size_t r = 0; r < m; r++) {
		_mm512_storeu_si512(sx[r], acc[r][0]);
		_mm512_storeu_si512(sx[r] + 8, acc[r][1]);
		_mm512_storeu_ps(sf[r], sum[r]);
	}
	nvg_cols_store(job, j0, nc, rows, srows, nan, bv, sx, sf);
}

__attribute__((target(NVG_AVX512)))
static void nvg_cols_avx512(const struct nvg_job *job, size_t j0, double *bv)
{
	if (job->exact && job->vnni)
		nvg_cols_avx512_t(job, j0, bv, 1, 1);
	else if (job->exact)
		nvg_cols_avx512_t(job, j0, bv, 1, 0);
	else if (job->vnni)
		nvg_cols_avx512_t(job, j0, bv, 0, 1);
	else
		nvg_cols_avx512_t(job, j0, bv, 0, 0);
}

/*
 * The int32 sums of @nr (1 .. 4, a constant) rows of A against pairs i0 .. i0 + n - 1
 * of the 16 columns (@wp, mxe_cols16_codes_avx2()), @a[r] row r's pairs of its int16
 * form as dwords (pair i at a[r][i]): q[r][h] the 8 lanes of half h, each pair of the
 * columns loaded once for all the rows. nvg_cols_avx2_t()'s sums, before its per-row
 * epilogue: 8 x 4096^2 one thread on a Zen 3 7.0 -> 6.2 ms against one row at a time.
 * The MX kernel's rows, each summed then added in (int_cols_row_avx2()), ran no faster
 * so at 8 rows and slower from 16 (A's blocks, rows K / 16 KiB apart, then came in
 * four at once).
 */
__attribute__((target("avx2"), always_inline))
static inline void nvg_sums_avx2(const __m256i wp[16][2], const int32_t *const a[4],
					unsigned nr, int i0, int n, __m256i q[][2])
{
	_Pragma("GCC unroll 4")
	for (unsigned r = 0; r < nr; r++)
		q[r][0] = q[r][1] = _mm256_setzero_si256();
	_Pragma("GCC unroll 16")
	for (int i = i0; i < i0 + n; i++) {
		const __m256i w0 = _mm256_load_si256(&wp[i][0]), w1 = _mm256_load_si256(&wp[i][1]);

		_Pragma("GCC unroll 4")
		for (unsigned r = 0; r < nr; r++) {
			const __m256i av = _mm256_set1_epi32(a[r][i]);

			q[r][0] = _mm256_add_epi32(q[r][0], _mm256_madd_epi16(w0, av));
			q[r][1] = _mm256_add_epi32(q[r][1], _mm256_madd_epi16(w1, av));
			/* each sum a chain in its register: GCC otherwise reorders the adds
			 * into a tree and spills the products first */
			__asm__("" : "+x"(q[r][0]), "+x"(q[r][1]));
		}
	}
}

/*
 * nvg_cols_avx512_t() on AVX2: the 16 columns as two halves of 8 lanes (the pairs in
 * L1: 16 registers hold too few), vpmaddwd and vpaddd, A's pair broadcast.
 */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void nvg_cols_avx2_t(const struct nvg_job *job, size_t j0, double *bv, int exact)
{
	const size_t m = job->m, nb = job->k / MXA_MX_BLOCK;
	const size_t nc = job->n - j0 < 16 ? job->n - j0 : 16;
	const __m256i none = _mm256_set1_epi32(NVG_NONE);
	const uint8_t *rows[16], *srows[16];
	struct mxe_cols16 cols;
	__m256i wp[16][2];
	__m256i ins[2][NVG_MAX_M][2];	/* a block's int32 sums: half-block, row, half */
	/* per row and half of the columns: EXACT's int64 sums (two vectors), FAST's sums */
	__m256i acc[NVG_MAX_M][2][2];
	__m256 p[NVG_MAX_M][2], sum[NVG_MAX_M][2];
	int64_t sx[NVG_MAX_M][16];
	float sf[NVG_MAX_M][16];
	unsigned nan = 0;

	for (unsigned c = 0; c < 16; c++)	/* columns past N read the last one's */
		rows[c] = nvg_b_row(job, j0 + (c < nc ? c : nc - 1), &srows[c]);
	mxe_cols16_init(&cols, rows, srows, nb, job->nhb);
	for (size_t r = 0; r < m; r++)
		for (int g = 0; g < 2; g++) {
			acc[r][g][0] = acc[r][g][1] = _mm256_setzero_si256();
			p[r][g] = sum[r][g] = _mm256_setzero_ps();
		}
	for (size_t b = 0; b < nb; b++) {
		const __m256i (*const wpm)[2] = mxe_cols16_codes_avx2(&cols, b, wp);
		__m256i mb[2][2], emax[2][2], bz[2][2];
		__m256 f[2][2];

		for (int h = 0; h < 2; h++) {
			const __m128i s16 = mxe_cols16_scales_avx2(&cols, 2 * b + h, 0);

			for (int g = 0; g < 2; g++) {
				__m256i nh;

				nvg_scales_avx2(g ? _mm_unpackhi_epi64(s16, s16) : s16, &mb[h][g],
						&emax[h][g], &f[h][g], &bz[h][g], &nh);
				nan |= (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(nh)) << 8 * g;
			}
		}
		/* the rows' sums first, four rows sharing each loaded pair of the columns */
		for (size_t r0 = 0; r0 < m; r0 += 4) {
			const int32_t *a4[4];
			const unsigned nr = m - r0 < 4 ? (unsigned)(m - r0) : 4;

			for (unsigned r = 0; r < nr; r++)
				a4[r] = (const int32_t *)(job->a16 + (r0 + r) * job->k + b * MXA_MX_BLOCK);
			for (int h = 0; h < 2; h++) {
				if (nr == 4)
					nvg_sums_avx2(wpm, a4, 4, 8 * h, 8, ins[h] + r0);
				else
					for (unsigned r = 0; r < nr; r++)
						nvg_sums_avx2(wpm, a4 + r, 1, 8 * h, 8, ins[h] + r0 + r);
			}
		}
		for (size_t r = 0; r < m; r++) {
			__m256 t[2][2];
			__m256i xs[2][2];

			for (int h = 0; h < 2; h++) {
				size_t hb = 2 * b + h;
				__m256i ax = _mm256_set1_epi32(job->ax[r * job->nhb + hb]);

				for (int g = 0; g < 2; g++) {
					__m256i in = ins[h][r][g];

					if (job->neg)
						in = _mm256_sub_epi32(_mm256_setzero_si256(), in);
					xs[h][g] = _mm256_add_epi32(emax[h][g], ax);
					if (exact) {
						nvg_exact_add_avx2(acc[r][g], in, mb[h][g], xs[h][g]);
					} else {
						t[h][g] = _mm256_mul_ps(_mm256_cvtepi32_ps(in), _mm256_mul_ps(f[h][g],
								_mm256_set1_ps(job->fa[r * job->nhb + hb])));
						xs[h][g] = _mm256_blendv_epi8(xs[h][g], none, bz[h][g]);
					}
				}
			}
			for (int g = 0; !exact && g < 2; g++) {
				__m256 q = _mm256_add_ps(t[0][g], t[1][g]);
				unsigned bad = nvg_far_avx2(xs[0][g], xs[1][g]);

				if (bad) {	/* rare: those columns' chains */
					float qs[8];

					_mm256_storeu_ps(qs, q);
					for (; bad; bad &= bad - 1) {
						unsigned c = 8 * g + (unsigned)__builtin_ctz(bad);

						if (c < nc)
							qs[c - 8 * g] = nvg_chain(job, r, rows[c], srows[c], b);
					}
					q = _mm256_loadu_ps(qs);
				}
				p[r][g] = mxe_fast_opens_block(b) ? q : _mm256_add_ps(p[r][g], q);
				if (mxe_fast_closes_block(b, nb))
					sum[r][g] = mxe_fast_first_block(b) ? p[r][g] :
						    _mm256_add_ps(sum[r][g], p[r][g]);
			}
		}
	}
	for (size_t r = 0; r < m; r++) {
		for (int g = 0; g < 2; g++) {
			_mm256_storeu_si256((__m256i *)(sx[r] + 8 * g), acc[r][g][0]);
			_mm256_storeu_si256((__m256i *)(sx[r] + 8 * g + 4), acc[r][g][1]);
			_mm256_storeu_ps(sf[r] + 8 * g, sum[r][g]);
		}
	}
	nvg_cols_store(job, j0, nc, rows, srows, nan, bv, sx, sf);
}

__attribute__((target("avx2,fma,f16c")))
static void nvg_cols_avx2(const struct nvg_job *job, size_t j0, double *bv)
{
	if (job->exact)
		nvg_cols_avx2_t(job, j0, bv, 1);
	else
		nvg_cols_avx2_t(job, j0, bv, 0);
}

/*
 * FAST's outputs of row @i for the task's @nc columns from their sub-block sums @qc (a
 * column's @stride apart, K order): block sums, then the accumulator, in K order, each
 * column a lane (8 x 8 transposes bring 8 sub-blocks of 8 columns into lanes).
 */
__attribute__((target("avx2")))
static void nvg_fast_store(const struct nvg_job *job, size_t i, size_t j0, size_t nc,
			   const float *qc, size_t stride)
{
	size_t nsub = job->k / NVG_SUB;
	__m256 p[2] = { _mm256_setzero_ps(), _mm256_setzero_ps() }, acc[2] = { p[0], p[1] };
	float out[NVG_COLS];

	for (size_t s0 = 0; s0 < nsub; s0 += 8) {
		__m256 r[2][8];

		_Pragma("GCC unroll 2")
		for (int h = 0; h < 2; h++) {
			_Pragma("GCC unroll 8")
			for (int c = 0; c < 8; c++)	/* columns past the task's: none stored */
				r[h][c] = 8 * h + c < (int)nc ? _mm256_loadu_ps(qc + (8 * h + c) * stride + s0) :
				       _mm256_setzero_ps();
			mxe_transpose8_avx2(r[h]);	/* r[h][e]: sub-block s0 + e */
		}
		_Pragma("GCC unroll 8")	/* r[][] in registers: a loop kept it on the stack */
		for (unsigned e = 0; e < 8; e++) {
			const size_t s = s0 + e;

			if (s >= nsub)
				break;

			_Pragma("GCC unroll 2")
			for (int h = 0; h < 2; h++) {
				__m256 q = r[h][e];

				p[h] = mxe_fast_opens_block(s) ? q : _mm256_add_ps(p[h], q);
				if (mxe_fast_closes_block(s, nsub))
					acc[h] = mxe_fast_first_block(s) ? p[h] : _mm256_add_ps(acc[h], p[h]);
			}
		}
	}
	_mm256_storeu_ps(out, acc[0]);
	_mm256_storeu_ps(out + 8, acc[1]);
	for (size_t c = 0; c < nc; c++)
		mxe_op_store_d(job->op, i, j0 + c, out[c]);
}

/* nvg_fast_store() on AVX-512: 16 sub-blocks of the 16 columns a transpose. */
__attribute__((target(NVG_AVX512)))
static void nvg_fast_store_avx512(const struct nvg_job *job, size_t i, size_t j0, size_t nc,
				  const float *qc, size_t stride)
{
	size_t nsub = job->k / NVG_SUB;
	__m512 p = _mm512_setzero_ps(), acc = p;
	float out[NVG_COLS];

	for (size_t s0 = 0; s0 < nsub; s0 += 16) {
		__m512 r[16];

		for (int c = 0; c < 16; c++)	/* columns past the task's: none stored */
			r[c] = c < (int)nc ? _mm512_loadu_ps(qc + c * stride + s0) : _mm512_setzero_ps();
		mxe_transpose16_ps_avx512(r);	/* r[e]: sub-block s0 + e */
		for (size_t s = s0; s < s0 + 16 && s < nsub; s++) {
			p = mxe_fast_opens_block(s) ? r[s - s0] : _mm512_add_ps(p, r[s - s0]);
			if (mxe_fast_closes_block(s, nsub))
				acc = mxe_fast_first_block(s) ? p : _mm512_add_ps(acc, p);
		}
	}
	_mm512_storeu_ps(out, acc);
	for (size_t c = 0; c < nc; c++)
		mxe_op_store_d(job->op, i, j0 + c, out[c]);
}

static unsigned nvg_phase_tasks(void *arg, unsigned phase)
{
	struct nvg_job *job = arg;

	return phase == 0 ? job->tasks : 0;
}

static void nvg_task(void *arg, unsigned phase, unsigned task)
{
	struct nvg_job *job = arg;
	size_t j0 = (size_t)task * NVG_COLS, j1 = j0 + NVG_COLS < job->n ? j0 + NVG_COLS : job->n;
	size_t nsub = job->k / NVG_SUB, words = (nsub + 63) / 64;
	size_t stride = (nsub + 15) / 16 * 16;	/* whole transposes (nvg_fast_store*()) */
	double *bv = mxe_scratch(0, job->k * sizeof(double));
	float *qt = job->exact || job->cols ? NULL :
		    mxe_scratch(1, job->m * NVG_COLS * stride * sizeof(float) + words * sizeof(uint64_t));
	uint64_t *redo = qt ? (uint64_t *)(qt + job->m * NVG_COLS * stride) : NULL;

	(void)phase;
	if (bv && job->cols) {
		if (job->avx512)
			nvg_cols_avx512(job, j0, bv);
		else
			nvg_cols_avx2(job, j0, bv);
		return;
	}
	if (!bv || (!job->exact && !qt)) {
		job->failed = 1;
		return;
	}
	for (size_t j = j0; j < j1; j++) {
		const uint8_t *sc, *row = nvg_b_row(job, j, &sc);
		int have_bv = 0;

		for (size_t i = 0; i < job->m; i++) {
			struct nvg_col o = { 0 };

			if (!job->exact) {
				o.q = qt + (i * NVG_COLS + (j - j0)) * stride;
				o.redo = redo;
				memset(redo, 0, words * sizeof(uint64_t));
			}
			if (job->anan[i]) {	/* NaN everywhere: the general paths */
				o.nan = 1;
			} else if (job->avx512) {
				nvg_column_avx512(job, i, row, sc, &o);
			} else {
				nvg_column_avx2(job, i, row, sc, &o);
			}
			if (job->exact) {
				if (o.nan || !o.s)
					nvg_redo_exact(job, i, j, row, sc, bv, &have_bv);
				else
					mxe_op_store_d(job->op, i, j, (double)((float)o.s * 0x1p-20f));
				continue;
			}
			for (size_t w = 0; w < words; w++) {
				uint64_t bits = o.nan ? ~0ull : redo[w];

				for (; bits && w * 64 + __builtin_ctzll(bits) < nsub; bits &= bits - 1) {
					size_t s = w * 64 + __builtin_ctzll(bits);

					o.q[s] = nvg_chain(job, i, row, sc, s);
				}
			}
		}
	}
	for (size_t i = 0; !job->exact && i < job->m; i++) {
		if (job->avx512)
			nvg_fast_store_avx512(job, i, j0, j1 - j0, qt + i * NVG_COLS * stride, stride);
		else
			nvg_fast_store(job, i, j0, j1 - j0, qt + i * NVG_COLS * stride, stride);
	}
}

static const struct mxe_pool_job_ops nvg_ops = {
	.phase_tasks = nvg_phase_tasks,
	.task = nvg_task,
};

/* A's rows: their values, int16 words and per-block exponents and factors. */
static void nvg_prepare_a(struct nvg_job *job, const uint8_t *codes, size_t ld,
			  const uint8_t *scales, size_t ld_s, int neg_a)
{
	static const int8_t twice[16] = { MXE_E2M1_INT_LUT };
	size_t k = job->k, nb = k / MXA_MX_BLOCK;

	for (size_t i = 0; i < job->m; i++) {
		const uint8_t *c = codes + i * ld, *sc = scales + i * ld_s;

		mxe_nvfp4_row_values(c, sc, k, neg_a, job->av + i * k);
		for (size_t kk = 0; kk < k; kk++)
			job->af[i * k + kk] = (float)job->av[i * k + kk];	/* exact */
		job->anan[i] = 0;
		for (size_t hb = 0; hb < job->nhb; hb++) {
			int x, ma = mxe_ue4m3_int(sc[hb], &x);
			size_t l = i * job->nhb + nvg_lane(job, hb);

			job->anan[i] |= mxe_ue4m3_nan(sc[hb]);
			job->ax[l] = ma ? x + 8 : NVG_NONE;
			job->fa[l] = ldexpf(1.0f, x + 6);
			for (int t = 0; t < NVG_HB; t++) {
				size_t kk = hb * NVG_HB + t;
				size_t at = job->cols ? kk : mxe_e2m1_int_at(nb, kk / MXA_MX_BLOCK,
									     (int)(kk % MXA_MX_BLOCK), !job->avx512);

				job->a16[i * k + at] = (int16_t)(twice[c[kk / 2] >> (kk & 1) * 4 & 0xF] * ma);
			}
		}
		for (size_t b = 0; job->a8 && b < nb; b++)
			mxe_e2m1_a8_block(job->a16 + i * k + b * MXA_MX_BLOCK, job->a8 + (i * nb + b) * 64,
					  job->acorr + (i * nb + b) * 2);
	}
}

/*
 * Whether the GEMV runs @desc: its BF16 stand-in in *@op, the strides in @ld, @ld_s.
 * Weights row by row (b_rows) are checked as if they were one array: the expansion
 * that checks the rest refuses them.
 */
static int nvg_applies(const struct mxe_gemm_desc *desc, struct mxe_op *op, size_t ld[2],
		       size_t ld_s[2])
{
	struct mxe_gemm_desc d, bf;

	if (!desc || desc->type_a != MXA_DTYPE_NVFP4 || desc->type_b != MXA_DTYPE_NVFP4 ||
	    (desc->accum != MXE_ACCUM_FAST && desc->accum != MXE_ACCUM_EXACT) ||
	    !mxe_cpu_use_avx2() || desc->k % 64 || desc->k > NVG_KMAX ||
	    desc->m > (mxe_cpu_simd() < MXE_SIMD_AVX512 && desc->accum == MXE_ACCUM_FAST ?
		       NVG_MAX_M_FAST_AVX2 : NVG_MAX_M) ||
	    desc->type_d != MXA_DTYPE_F32 ||
	    (desc->flags & ~(MXE_GEMM_NEGATE_A | MXE_GEMM_NEGATE_B)) ||
	    (desc->b_rows && !desc->scale_b_rows))
		return 0;
	d = *desc;
	d.b_rows = d.scale_b_rows = NULL;
	return !mxe_nvfp4_expand(&d, &bf, NULL) && !mxe_op_prepare(&bf, op) && !op->has_plan &&
	       (desc->accum != MXE_ACCUM_EXACT || op->k_chunk == desc->k) &&
	       !mxe_nvfp4_layout(&d, ld, ld_s);
}

int mxe_gemv_nvfp4_takes(const struct mxe_gemm_desc *desc)
{
	struct mxe_op op;
	size_t ld[2], ld_s[2];

	return nvg_applies(desc, &op, ld, ld_s);
}

int mxe_gemv_nvfp4_run(struct mxe_engine *eng, const struct mxe_gemm_desc *desc)
{
	struct nvg_job job = { 0 };
	struct mxe_op op;
	size_t ld[2], ld_s[2];
	void *buf;

	if (!nvg_applies(desc, &op, ld, ld_s))
		return 1;	/* (errors: the expansion's own report them) */
	job.op = &op;
	job.m = desc->m;
	job.n = desc->n;
	job.k = desc->k;
	job.nhb = desc->k / NVG_HB;
	job.exact = desc->accum == MXE_ACCUM_EXACT;
	job.avx512 = mxe_cpu_simd() >= MXE_SIMD_AVX512;
	job.chunk = job.avx512 ? NVG_CHUNK_512 : NVG_CHUNK_256;
	job.cols = job.m >= NVG_COLS_MIN || (job.avx512 && !job.exact && job.m >= 2);
	job.vnni = mxe_cpu_simd() >= MXE_SIMD_AVX512VNNI;
	job.neg_b = !!(desc->flags & MXE_GEMM_NEGATE_B);
	job.neg = !!(desc->flags & MXE_GEMM_NEGATE_A) ^ job.neg_b;
	job.codes_b = desc->b;
	job.scales_b = desc->scale_b;
	job.ld_b = ld[1];
	job.ld_sb = ld_s[1];
	job.b_rows = desc->b_rows;
	job.scale_b_rows = desc->scale_b_rows;
	/* the calling thread's scratch (its tasks use slots 0 and 1): no pages faulted in
	 * a call */
	buf = mxe_scratch(3, job.m * job.k * (sizeof(int16_t) + sizeof(double) + sizeof(float) + 2) +
			  job.m * job.nhb * (2 * sizeof(int32_t) + sizeof(float)) + job.m);
	if (!buf)
		return MXE_ENGINE_ENOMEM;
	job.av = buf;
	job.af = (float *)(job.av + job.m * job.k);
	job.ax = (int32_t *)(job.af + job.m * job.k);
	job.fa = (float *)(job.ax + job.m * job.nhb);
	job.a16 = (int16_t *)(job.fa + job.m * job.nhb);
	job.acorr = (int32_t *)(job.a16 + job.m * job.k);	/* 2 a 32-k block: one a 16-k */
	job.a8 = (int8_t *)(job.acorr + job.m * job.nhb);
	job.anan = (uint8_t *)(job.a8 + job.m * job.k * 2);
	if (!(job.cols && job.avx512 && job.vnni))
		job.a8 = NULL;	/* nvg_cols_avx512_t() alone takes them */
	nvg_prepare_a(&job, desc->a, ld[0], desc->scale_a, ld_s[0],
		      !!(desc->flags & MXE_GEMM_NEGATE_A));
	job.tasks = (unsigned)((job.n + NVG_COLS - 1) / NVG_COLS);
	__atomic_add_fetch(&nvg_outputs, job.m * job.n, __ATOMIC_RELAXED);
	mxe_pool_run(eng, op.d.nthreads, &nvg_ops, &job);
	return job.failed ? MXE_ENGINE_ENOMEM : 0;
}
#else
int mxe_gemv_nvfp4_takes(const struct mxe_gemm_desc *desc)
{
	(void)desc;
	return 0;
}

int mxe_gemv_nvfp4_run(struct mxe_engine *eng, const struct mxe_gemm_desc *desc)
{
	(void)eng, (void)desc;
	return 1;
}
#endif
