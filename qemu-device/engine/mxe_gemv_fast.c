// SPDX-License-Identifier: MIT
/*
 * mxe_gemv_fast.c - FAST numerics for few rows of A (M <= 32) against FP8 or FP4
 * weights: the bits of the tiled path (mxe_tiled.c, numerics.rst "FAST"), at the speed
 * of streaming the weights.
 *
 * The tiled path packs all of B into f32 panels before it multiplies; with one row of
 * A nothing amortises that (a 4096 x 4096 MX-FP8 GEMV took 200 ms, the EXACT GEMV 2 ms).
 * Here 16 columns (AVX2: 8) are the lanes of a vector: for each 32-k sub-block the
 * weights of the columns are transposed in registers as bytes, then decoded with their
 * scales applied (exact), and every row of A runs the sub-block's chain
 * q = fma(a_k, b_k, q) from +0 in increasing k on all the columns at once, four rows
 * side by side (AVX2: two) sharing each load of the decoded weights (a 4096^2
 * MXFP4 GEMV, 2 threads: 2.3-2.9 ms with a float transpose, 0.9-1.2 ms so); the
 * sub-block sums go into the block sum (p = q, then p = p + q) and the block sums
 * (MXE_FAST_KBLOCK) into the accumulator in increasing order, exactly as the tiled
 * kernels do. So the result is the tiled path's bit for bit (test-engine-gemv compares
 * them), on any thread count. With E2M1 weights, the sub-blocks whose chains cannot
 * round come from integer products instead: one row of A column by column with no
 * transpose of the weights (int_span()), several rows with 16 columns as the lanes of
 * int16 pair products, or with VNNI 32 as two vectors of byte products (int_cols_t()).
 * The chains read each column's codes from a
 * copy of its next 64 bytes (mxe_gemv_stage()), not in place.
 *
 * Taken: AVX-512 (16 lanes) or AVX2 (8 lanes), FAST, M <= 32, an f32 D without C,
 * K % 32 == 0, B (N x K) of E4M3, E5M2 or E2M1 with or without MX scales, A of any float
 * type the op's row decoder gives exactly in f32. Not taken (returns 1): everything
 * else, and MX scales that would make an element inexact in f32, which the tiled path
 * also declines.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "mxe_cpu.h"
#include "mxe_gemm.h"
#include "mxe_gemv_int.h"
#include "mxe_kernels.h"
#include "mxe_pool.h"

#define FAST_MAX_M	32
/*
 * AVX-512 tasks: two groups of 16 columns (the lanes). Four held 16 vectors of
 * transposed codes besides their chains and scales and spilled them: a host loop, FAST,
 * two threads, four groups -> two, three alternations, ms: MX-FP8 1x4096^2 1.19-1.22 ->
 * 1.06-1.09, 1x8192^2 5.9-6.0 -> 5.2-5.7, 8x8192^2 9.5-9.6 -> 8.6-9.3; MXFP4 1x8192^2
 * 1.27-1.34 -> 1.21-1.25; SiLU outputs against MXFP4 within the noise.
 */
#define GROUPS		2
#define COLS		(16 * GROUPS)
#define COLS8		64	/* AVX2 tasks: eight groups of 8 columns */
#define SUB		MXE_FAST_KSUB
#define INT_CHUNK	16	/* blocks of A an integer chunk (int_span()) */
#define INT_SPAN	16	/* chunks a column runs at a time: a row of K <= 8192 at once,
			   so a task reads its rows one after the other, in order */
#define INT_MISS_MAX	10	/* blocks of a chunk the chains may run besides the integers */
/*
 * Several rows: at most one block of A in INT_ROWS_MISS_IN without an integer form, or
 * the float kernels. A host loop, FAST, MXFP4 weights 8192^2, one thread, some rows
 * of SiLU outputs (no forms) and the rest of activations around 1 (all): with VNNI, 8
 * rows, int_cols_t() against fast_task() 6.3 / 11.2 ms with every row in form, 12.3 /
 * 11.2-11.9 with one row of eight out, 14.1 / 11.1 with two, 23.4-29 / 10.8-11 with
 * (nearly) all; 32 rows with four out 29.0 / 32.5 (a tie).
 */
#define INT_ROWS_MISS_IN 16
/*
 * AVX2 (vpmaddwd and vpaddd, no VNNI): the integer kernel for at most this many rows,
 * else the float kernels (fast_task8()), every row in form. The engine capped at AVX2
 * on a Zen 5, MXFP4 4096^2 FAST, one thread, three alternations, integer against
 * float: 2 rows 2.46-2.50 / 2.71-2.72 ms, 3 rows 2.91-3.18 / 3.04-3.33, 4 rows
 * 3.64-3.74 / 3.44-3.60, 6 rows 4.77-4.92 / 4.24-4.43, 8 rows 6.43-6.63 / 4.82-4.92,
 * 32 rows 21.4-21.8 / 13.4-14.1. A real Zen 3 (family 25 model 1), the same loop,
 * three alternations, integer / float: 3 rows 4.58-5.02 ms (integers on both), 4 rows
 * 5.53-5.56 / 5.19-5.39, 6 rows 7.25-7.36 / 6.03-6.11, 8 rows 9.08-11.8 / 6.81-7.07.
 */
#define INT_ROWS_AVX2_MAX 3
#define STAGE		64	/* bytes of each column staged at a time (mxe_gemv_stage()) */
#define STAGE_AHEAD	(4 * STAGE)	/* prefetched into L2 this far ahead */

struct fast_job {
	const struct mxe_op *op;
	const float *af;	/* M x K values of A in f32 (scale, negation applied) */
	unsigned tasks;
	int failed;
	/* E2M1 weights, M = 1: A's int16 form (fast_int_prepare()), or NULL */
	const int16_t *a16;	/* [K / 32][32], the layout of mxe_gemv_int.h */
	const int32_t *aexp;	/* [K / 32]: e - 1 for block n * 2^e (the weights' 2^-1) */
	const uint16_t *afit;	/* [K / 512]: which of a chunk's 16 blocks have a form */
	/* E2M1 weights, several rows (fast_int_rows_prepare()): A's int16 form in k order,
	 * block-major ([K / 32][M][32]), aexp [K / 32][M] (FAST_NO_FORM: none), ones: K / 32 scale
	 * bytes of 127 for weights without scales; vnni: AVX512-VNNI, whose kernel takes A
	 * as the signed bytes a8 ([K / 32][M][64]) and acorr ([K / 32][M]) instead
	 * (mxe_e2m1_a8_block()) */
	const uint8_t *ones;
	const int8_t *a8;
	const int32_t *acorr;
	int vnni;
	int avx512;		/* the AVX-512 kernels run (else AVX2: a16 in-lane, mxe_gemv_int.h) */
	/* several rows on BF16 pairs (AVX512-BF16, fast_pairs_prepare()): A's rows as pair
	 * words ([M][K / 2], k in the high half, k + 1 in the low one), or NULL */
	const uint32_t *ap;
};

#define FAST_NO_FORM (-1000)	/* aexp of a block without an int16 form: no grid fits */

static uint64_t fast_outputs, fast_int_sums;	/* since the process started */
static uint64_t fast_pair_ops;			/* GEMVs run on BF16 pairs */

uint64_t mxe_gemv_fast_outputs(void)
{
	return __atomic_load_n(&fast_outputs, __ATOMIC_RELAXED);
}

uint64_t mxe_gemv_fast_int_sums(void)
{
	return __atomic_load_n(&fast_int_sums, __ATOMIC_RELAXED);
}

uint64_t mxe_gemv_fast_pair_ops(void)
{
	return __atomic_load_n(&fast_pair_ops, __ATOMIC_RELAXED);
}

/*
 * The integer chunks' schedule, the same at both vector widths: at sub-block @s (the
 * first of a chunk), how many chunks a span starting there runs (0: none starts), and
 * which of the chunk's sub-blocks to take from the span's sums (counted).
 */
static inline unsigned int_span_at(size_t s, size_t nsub)
{
	size_t ch = s / INT_CHUNK, full = nsub / INT_CHUNK;

	return ch % INT_SPAN || ch >= full ? 0 : (unsigned)(full - ch < INT_SPAN ? full - ch : INT_SPAN);
}

static inline unsigned int_take(size_t s, size_t nsub, const unsigned span[INT_SPAN], size_t nc)
{
	unsigned take = s / INT_CHUNK < nsub / INT_CHUNK ? span[s / INT_CHUNK % INT_SPAN] : 0;

	if (take)
		__atomic_add_fetch(&fast_int_sums, (uint64_t)__builtin_popcount(take) * nc,
				   __ATOMIC_RELAXED);
	return take;
}

static unsigned fast_phase_tasks(void *arg, unsigned phase)
{
	struct fast_job *job = arg;

	return phase == 0 ? job->tasks : 0;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "mxe_avx2.h"

/*
 * A FAST task for one SIMD level: @columns (always inline) per weight type, and one
 * row of A apart (its chains in registers, no row count to test).
 */
#define FAST_ROWS(columns, t)								\
	do {										\
		if (job->op->d.m == 1)							\
			columns(job, task, t, 1);					\
		else									\
			columns(job, task, t, 0);					\
	} while (0)
#define FAST_TASK(name, columns, isa)							\
__attribute__((target(isa)))								\
static void name(void *arg, unsigned phase, unsigned task)				\
{											\
	struct fast_job *job = arg;							\
											\
	(void)phase;									\
	switch (job->op->d.type_b) {							\
	case MXA_DTYPE_E4M3:								\
		FAST_ROWS(columns, MXA_DTYPE_E4M3);					\
		break;									\
	case MXA_DTYPE_E5M2:								\
		FAST_ROWS(columns, MXA_DTYPE_E5M2);					\
		break;									\
	default:									\
		FAST_ROWS(columns, MXA_DTYPE_E2M1);					\
		break;									\
	}										\
}

/*
 * AVX-512: the codes are transposed as bytes, not as floats. A group's 16 columns x 16
 * bytes (an E2M1 sub-block, or half of an FP8 one) take four dword permutes, four
 * in-lane byte shuffles and eight unpacks to become w[i] (lane T: byte 4 T + i of the 16
 * columns), so each byte gives the vectors of its k (two for E2M1) in a few
 * instructions, with no float transpose. The scales are widened once per 16 sub-blocks
 * (a 16 x 16 float transpose per group), negation and E4M3's 2^8 folded into them. One
 * row of A runs its four chains as the bytes are decoded (no store and reload of the
 * weights); more rows go through bt.
 */
#define SCALE_SUBS INT_CHUNK	/* integer chunks skip their scales */

/* Scales of sub-blocks s0 .. s0 + n - 1 (n <= 16) of the task's columns: st[ss][c], times
 * @mul (-1 for a negated B, 2^8 for E4M3's f16 decoding); @mul alone without scales. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void bytes_scales(const struct mxe_op *op, size_t j0, size_t nc, size_t s0,
				unsigned n, float mul, float st[SCALE_SUBS][COLS])
{
	const __m512 f = _mm512_set1_ps(mul);

	for (unsigned g = 0; g < GROUPS; g++) {
		__m512 r[16];

		for (unsigned c = 0; c < 16; c++) {
			size_t j = j0 + (g * 16 + c < nc ? g * 16 + c : nc - 1);
			__m512i b, u;

			if (!op->scale_b) {
				r[c] = f;
				continue;
			}
			b = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8((__mmask16)((1u << n) - 1),
								      mxe_op_b_scales(op, j) + s0));
			u = _mm512_slli_epi32(b, 23);	/* 2^(s - 127) */
			u = _mm512_mask_mov_epi32(u, _mm512_cmpeq_epi32_mask(b, _mm512_setzero_si512()),
						  _mm512_set1_epi32(0x00400000));	/* 2^-127 */
			u = _mm512_mask_mov_epi32(u, _mm512_cmpeq_epi32_mask(b, _mm512_set1_epi32(0xFF)),
						  _mm512_set1_epi32(0x7FC00000));	/* NaN */
			r[c] = _mm512_mul_ps(_mm512_castsi512_ps(u), f);
		}
		mxe_transpose16_ps_avx512(r);		/* r[ss]: sub-block s0 + ss of the 16 columns */
		for (unsigned ss = 0; ss < n; ss++)
			_mm512_store_ps(st[ss] + 16 * g, r[ss]);
	}
}

/* An FP8 byte of 16 columns as 16 f32 (times 2^-8 for E4M3: its scale vector restores
 * it), E4M3 NaN codes as NaN when @nan. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline __m512 fp8_lane(__m128i x, unsigned t, int nan)
{
	if (t == MXA_DTYPE_E5M2)	/* the high byte of an f16 */
		return _mm512_cvtph_ps(_mm256_slli_epi16(_mm256_cvtepu8_epi16(x), 8));
	/* s eeee mmm, sign-extended: << 7 puts s at bit 15 (and 14), eeee mmm at 13..7 */
	__m256i h = _mm256_and_si256(_mm256_slli_epi16(_mm256_cvtepi8_epi16(x), 7),
				     _mm256_set1_epi16((short)0xBF80));
	__m512 v = _mm512_cvtph_ps(h);

	if (nan)
		v = _mm512_mask_mov_ps(v, _mm_cmpeq_epi8_mask(_mm_and_si128(x, _mm_set1_epi8(0x7F)),
							      _mm_set1_epi8(0x7F)),
				       _mm512_set1_ps(NAN));
	return v;
}

/* Whether a group's transposed FP8 bytes hold an E4M3 NaN code (S.1111.111). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline int e4m3_has_nan(const __m512i w[4])
{
	const __m512i m7 = _mm512_set1_epi8(0x7F);
	__mmask64 any = 0;

	for (int i = 0; i < 4; i++)
		any |= _mm512_cmpeq_epi8_mask(_mm512_and_si512(w[i], m7), m7);
	return any != 0;
}

/*
 * E2M1 weights, one row of A: where a 32-k block of A is n * 2^e with integers
 * |n| < 2^15 (its finite values span at most 15 bits), every product of a sub-block's
 * chain is an integer times the grid 2^(e - 1 + s - 127) (s the weights' scale code)
 * and the sum of their magnitudes is at most 32 * 12 * (2^15 - 1) < 2^24 grid units.
 * Where the grid is a normal f32 and 2^24 units do not overflow, no step of the chain
 * rounds, so q is the integer dot product times the grid, summed in any order (and +0
 * when it is 0, as the chain from +0 gives). The integers come column by column
 * (mxe_gemv_int.h: no transpose of the weights), 16 blocks at a time; the 16 sums of
 * the task's columns are then transposed as floats for the block adds, which stay the
 * tiled path's. Blocks without such a form, and chunks where a scale is NaN or puts a
 * grid out of that range, run the chain.
 */

/*
 * The integer sums of chunks c0 .. c0 + n - 1 (n <= INT_SPAN) for the task's 64
 * columns, column by column (a row streams 16 n x 16 bytes at once, the next row's
 * lines prefetched alongside), as qc[ch][c][t] (lane t: block
 * mxe_e2m1_sums16_lanes[t] of chunk c0 + ch); take[ch] the chunk's sub-blocks to take
 * from them: its fitting blocks, or none where a scale is NaN or puts a grid out of
 * range.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void int_span(const struct fast_job *job, const uint8_t *const rows[COLS],
			    size_t j0, size_t nc, size_t c0, unsigned n, unsigned take[INT_SPAN],
			    float qc[INT_SPAN][COLS][16])
{
	const struct mxe_op *op = job->op;
	const __m512i lut = mxe_e2m1_lut_avx512(), zero = _mm512_setzero_si512();
	const __m512i perm = _mm512_load_si512(mxe_e2m1_sums16_lanes);
	const int neg = !!(op->d.flags & MXE_GEMM_NEGATE_B);
	__m512i ae[INT_SPAN];
	__mmask16 lanes[INT_SPAN], bad[INT_SPAN];

	for (unsigned ch = 0; ch < n; ch++) {
		ae[ch] = _mm512_permutexvar_epi32(perm, _mm512_loadu_si512(job->aexp + (c0 + ch) * INT_CHUNK));
		lanes[ch] = bad[ch] = 0;
		for (unsigned t = 0; t < 16; t++)
			lanes[ch] |= (__mmask16)(((job->afit[c0 + ch] >> mxe_e2m1_sums16_lanes[t]) & 1) << t);
	}
	for (unsigned c = 0; c < COLS; c++) {
		const uint8_t *next = rows[c + 1 < COLS ? c + 1 : c];
		const uint8_t *sc = op->scale_b ? mxe_op_b_scales(op, j0 + (c < nc ? c : nc - 1)) : NULL;

		for (unsigned ch = 0; ch < n; ch++) {
			size_t b0 = (c0 + ch) * INT_CHUNK;
			__m512i r, s, eb;

			if (!lanes[ch])
				continue;
			r = mxe_e2m1_sums16_avx512(rows[c], job->a16, b0, lut, next);
			if (neg)	/* on the integer: 0 stays +0 */
				r = _mm512_sub_epi32(zero, r);
			s = sc ? _mm512_permutexvar_epi32(perm, _mm512_cvtepu8_epi32(
					_mm_loadu_si128((const __m128i *)(sc + b0)))) :
				 _mm512_set1_epi32(127);
			eb = _mm512_add_epi32(s, ae[ch]);	/* the grid's biased exponent: 1 .. 231 */
			bad[ch] |= _mm512_mask_cmpeq_epi32_mask(lanes[ch], s, _mm512_set1_epi32(0xFF)) |
				   _mm512_mask_cmplt_epi32_mask(lanes[ch], eb, _mm512_set1_epi32(1)) |
				   _mm512_mask_cmpgt_epi32_mask(lanes[ch], eb, _mm512_set1_epi32(231));
			_mm512_store_ps(qc[ch][c], _mm512_mul_ps(_mm512_cvtepi32_ps(r),
					_mm512_castsi512_ps(_mm512_slli_epi32(eb, 23))));
		}
	}
	for (unsigned ch = 0; ch < n; ch++)
		take[ch] = bad[ch] ? 0 : job->afit[c0 + ch];
}

/* A chunk's sums of int_span() as qi[s][g]: block s of the chunk, group g of 16 columns. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void int_transpose(const float qc[COLS][16], float qi[INT_CHUNK][GROUPS][16])
{
	for (unsigned g = 0; g < GROUPS; g++) {
		__m512 r[16];

		for (unsigned i = 0; i < 16; i++)
			r[i] = _mm512_load_ps(qc[16 * g + i]);
		mxe_transpose16_ps_avx512(r);		/* r[t]: lane t's block over the 16 columns */
		for (unsigned t = 0; t < 16; t++)
			_mm512_store_ps(qi[mxe_e2m1_sums16_lanes[t]][g], r[t]);
	}
}

#define ROWS 4	/* rows of A whose chains share each load of bt */

/*
 * The chains of @nr rows of A (@a, rows @k apart) over one sub-block of bt:
 * q[r][g] = fma(a_i, bt[i][g], .) from +0 in increasing i, each row's as the one-row
 * kernel's. Rows side by side share each load of bt, and each FMA's latency hides
 * behind 4 @nr independent chains. @nr is a constant (1 or ROWS) where it is inlined.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void rows_chains(const float *a, size_t k, unsigned nr,
			       const float bt[SUB][GROUPS][16], __m512 q[][GROUPS])
{
	_Pragma("GCC unroll 4")
	for (unsigned r = 0; r < nr; r++)
		_Pragma("GCC unroll 4")
		for (unsigned g = 0; g < GROUPS; g++)
			q[r][g] = _mm512_setzero_ps();
	for (unsigned i = 0; i < SUB; i++) {
		__m512 b[GROUPS];

		_Pragma("GCC unroll 4")
		for (unsigned g = 0; g < GROUPS; g++)
			b[g] = _mm512_load_ps(bt[i][g]);
		_Pragma("GCC unroll 4")
		for (unsigned r = 0; r < nr; r++) {
			__m512 av = _mm512_set1_ps(a[r * k + i]);

			_Pragma("GCC unroll 4")
			for (unsigned g = 0; g < GROUPS; g++)
				q[r][g] = _mm512_fmadd_ps(av, b[g], q[r][g]);
		}
	}
}

/* Sub-block @s's chain sums @q into the block sums @p and the accumulator @acc of a
 * row's groups, in K order, as the tiled kernels add them. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void fast_block_adds(const __m512 q[GROUPS], size_t s, size_t nsub, __m512 p[GROUPS],
				   __m512 acc[GROUPS])
{
	_Pragma("GCC unroll 2")
	for (unsigned g = 0; g < GROUPS; g++) {
		p[g] = mxe_fast_opens_block(s) ? q[g] : _mm512_add_ps(p[g], q[g]);
		if (mxe_fast_closes_block(s, nsub))
			acc[g] = mxe_fast_first_block(s) ? p[g] : _mm512_add_ps(acc[g], p[g]);
	}
}

/* rows_chains() on pair rows: @nr (1 or ROWS, a constant where inlined) rows of pair
 * words at @a, @kh apart, two steps of each chain a vdpbf16ps. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16"), always_inline))
static inline void pair_chains(const uint32_t *a, size_t kh, unsigned nr,
			       const uint32_t bp[][GROUPS][16], __m512 q[][GROUPS])
{
	_Pragma("GCC unroll 4")
	for (unsigned r = 0; r < nr; r++)
		_Pragma("GCC unroll 2")
		for (unsigned g = 0; g < GROUPS; g++)
			q[r][g] = _mm512_setzero_ps();
	for (unsigned kp = 0; kp < SUB / 2; kp++) {
		__m512bh b[GROUPS];

		_Pragma("GCC unroll 2")
		for (unsigned g = 0; g < GROUPS; g++)
			b[g] = (__m512bh)_mm512_load_si512(bp[kp][g]);
		_Pragma("GCC unroll 4")
		for (unsigned r = 0; r < nr; r++) {
			__m512bh av = (__m512bh)_mm512_set1_epi32((int)a[r * kh + kp]);

			_Pragma("GCC unroll 2")
			for (unsigned g = 0; g < GROUPS; g++)
				q[r][g] = _mm512_dpbf16_ps(q[r][g], av, b[g]);
		}
	}
}

/*
 * Several rows on BF16 pairs (job->ap): sub-block @s's weights, decoded into @bt, are
 * folded in place into pair rows ((k, k + 1) in one word, k high), and each row's
 * chains run two steps a vdpbf16ps, then join @p and @acc as fast_block_adds() does:
 * the float kernels' chains, the same bits under fast_pairs_prepare()'s certificate.
 * ROWS rows share each pair row's loads. Its own function: the instruction needs
 * AVX512-BF16, which the task's other code must not assume.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16"), noinline))
static void pairs_rows(const uint32_t *ap, size_t kh, size_t m, float bt[SUB][GROUPS][16],
		       size_t s, size_t nsub, __m512 p[][GROUPS], __m512 acc[][GROUPS])
{
	const __m512i hi = _mm512_set1_epi32((int)0xFFFF0000u);
	uint32_t (*bp)[GROUPS][16] = (uint32_t (*)[GROUPS][16])(void *)bt;

	/* row kp after rows 2 kp, 2 kp + 1; a NaN among the decode's products is quiet, its
	 * high half a NaN too */
	for (unsigned kp = 0; kp < SUB / 2; kp++)
		_Pragma("GCC unroll 2")
		for (unsigned g = 0; g < GROUPS; g++)
			_mm512_store_si512(bp[kp][g], _mm512_ternarylogic_epi32(
				_mm512_load_si512(bt[2 * kp][g]), hi,
				_mm512_srli_epi32(_mm512_load_si512(bt[2 * kp + 1][g]), 16), 0xEA));
	for (size_t r0 = 0; r0 < m; r0 += ROWS) {
		const size_t nr = m - r0 < ROWS ? m - r0 : ROWS;
		const uint32_t *a = ap + r0 * kh + s * (SUB / 2);
		__m512 q[ROWS][GROUPS];

		if (nr == ROWS)
			pair_chains(a, kh, ROWS, bp, q);
		else
			for (size_t r = 0; r < nr; r++)
				pair_chains(a + r * kh, kh, 1, bp, q + r);
		for (size_t r = 0; r < nr; r++)
			fast_block_adds(q[r], s, nsub, p[r0 + r], acc[r0 + r]);
	}
}

/* 128-bit lane @T of @v: an immediate for each value (clang wants one before it
 * unrolls a loop over @T). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline __m128i lane128(__m512i v, unsigned T)
{
	switch (T) {
	case 0:
		return _mm512_extracti32x4_epi32(v, 0);
	case 1:
		return _mm512_extracti32x4_epi32(v, 1);
	case 2:
		return _mm512_extracti32x4_epi32(v, 2);
	default:
		return _mm512_extracti32x4_epi32(v, 3);
	}
}

/*
 * One row's chains of sub-blocks s and s + 1 (@a: the row from s; their codes at @off
 * of @rows, scales @st0, @st1) interleaved: four chains of 32 FMAs, where one
 * sub-block's two groups give two, whose latency then bound the kernel. E2M1 (no
 * integer sums in either; in mxe_bytes16_q_avx512()'s lanes, @e2ix and @lut as
 * fast_columns_bytes() has them): SiLU outputs, FAST, one thread, 256 columns of 8192:
 * 2.18 -> 2.06-2.10 ns a block and column; 4096 and 8192 columns, two threads, with the
 * lanes of four columns before: 0.67-0.68 -> 0.59-0.64 ms and 3.19-3.36 -> 2.89-3.07.
 * FP8 (one stage without E4M3 NaN codes): MX-FP8, two threads, 1x4096^2 1.20-1.23 ->
 * 1.05-1.08 ms, 1x8192^2 5.73-5.84 -> 5.01-5.22.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void fast_chains2(unsigned t, const float *a, const uint8_t *const *rows, size_t off,
				const float *st0, const float *st1, __m512 lut,
				const __m512i e2ix[4], __m512 q[2][GROUPS])
{
	const int e2m1 = t == MXA_DTYPE_E2M1;
	const unsigned halves = e2m1 ? 1 : 2;	/* 16 bytes each: a sub-block's bytes */
	__m512 sv[2][GROUPS];

	_Pragma("GCC unroll 2")
	for (unsigned d = 0; d < 2; d++)
		_Pragma("GCC unroll 2")
		for (unsigned g = 0; g < GROUPS; g++) {
			sv[d][g] = _mm512_load_ps((d ? st1 : st0) + 16 * g);
			q[d][g] = _mm512_setzero_ps();
		}
	for (unsigned h = 0; h < halves; h++) {
		__m512i w[2][GROUPS][4];

		_Pragma("GCC unroll 2")
		for (unsigned d = 0; d < 2; d++)
			_Pragma("GCC unroll 2")
			for (unsigned g = 0; g < GROUPS; g++) {
				if (e2m1)
					mxe_bytes16_q_avx512(rows + 16 * g, off + 16 * d, w[d][g]);
				else
					mxe_bytes16_t_avx512(rows + 16 * g, off + 32 * d + 16 * h, w[d][g]);
			}
		_Pragma("GCC unroll 4")
		for (unsigned T = 0; T < 4; T++)
			_Pragma("GCC unroll 4")
			for (unsigned i = 0; i < 4; i++)
				_Pragma("GCC unroll 2")
				for (unsigned d = 0; d < 2; d++)
					_Pragma("GCC unroll 2")
					for (unsigned g = 0; g < GROUPS; g++) {
						/* byte b = 4 T + i: E2M1 k = 2 b, 2 b + 1; FP8 k = 16 h + b */
						const float *ak = a + d * SUB + (e2m1 ? 2 : 1) * (4 * T + i) + 16 * h;

						if (e2m1) {
							__m512i x = _mm512_shuffle_epi8(w[d][g][T], e2ix[i]);
							__m512 lo = _mm512_mul_ps(_mm512_permutexvar_ps(x, lut), sv[d][g]);
							__m512 hi = _mm512_mul_ps(_mm512_permutexvar_ps(
								_mm512_srli_epi32(x, 4), lut), sv[d][g]);

							q[d][g] = _mm512_fmadd_ps(_mm512_set1_ps(ak[0]), lo, q[d][g]);
							q[d][g] = _mm512_fmadd_ps(_mm512_set1_ps(ak[1]), hi, q[d][g]);
						} else {
							__m512 v = _mm512_mul_ps(fp8_lane(lane128(w[d][g][i], T),
											  t, 0), sv[d][g]);

							q[d][g] = _mm512_fmadd_ps(_mm512_set1_ps(ak[0]), v, q[d][g]);
						}
					}
	}
}

/* Whether @n (a multiple of 4) columns' staged 64 bytes hold an E4M3 NaN code:
 * e4m3_has_nan() four columns at a time. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline int stage_has_e4m3_nan(const uint8_t (*stage)[STAGE], unsigned n)
{
	for (unsigned c = 0; c < n; c += 4) {
		const __m512i v[4] = { _mm512_load_si512(stage[c]), _mm512_load_si512(stage[c + 1]),
				       _mm512_load_si512(stage[c + 2]), _mm512_load_si512(stage[c + 3]) };

		if (e4m3_has_nan(v))
			return 1;
	}
	return 0;
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void fast_columns_bytes(struct fast_job *job, unsigned task, unsigned t,
				      int one)
{
	const struct mxe_op *op = job->op;
	size_t m = one ? 1 : op->d.m, k = op->d.k, n = op->d.n, nsub = k / SUB;
	size_t j0 = (size_t)task * COLS, nc = n - j0 < COLS ? n - j0 : COLS;
	int neg = !!(op->d.flags & MXE_GEMM_NEGATE_B), e2m1 = t == MXA_DTYPE_E2M1;
	const unsigned halves = e2m1 ? 1 : 2;	/* 16 bytes each: a sub-block's bytes */
	const __m512 lut = _mm512_setr_ps(0, 0.5f, 1, 1.5f, 2, 3, 4, 6,
					  -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6);
	/* vpshufb indices: byte 4 c + i of each lane to dword c's low byte, zeros above */
	const __m512i c4 = _mm512_broadcast_i32x4(_mm_setr_epi32(0, 4, 8, 12));
	const __m512i e2ix[4] = {
		_mm512_or_si512(c4, _mm512_set1_epi32((int)0x80808000)),
		_mm512_or_si512(_mm512_add_epi32(c4, _mm512_set1_epi32(1)), _mm512_set1_epi32((int)0x80808000)),
		_mm512_or_si512(_mm512_add_epi32(c4, _mm512_set1_epi32(2)), _mm512_set1_epi32((int)0x80808000)),
		_mm512_or_si512(_mm512_add_epi32(c4, _mm512_set1_epi32(3)), _mm512_set1_epi32((int)0x80808000)) };
	const uint8_t *rows[COLS];
	__m512 p[FAST_MAX_M][GROUPS], acc[FAST_MAX_M][GROUPS];
	float bt[SUB][GROUPS][16] __attribute__((aligned(64)));	/* k, group, lane */
	float st[SCALE_SUBS][COLS] __attribute__((aligned(64)));
	float qc[INT_SPAN][COLS][16] __attribute__((aligned(64)));
	float qi[INT_CHUNK][GROUPS][16] __attribute__((aligned(64)));
	unsigned take = 0, span[INT_SPAN] = { 0 };	/* sub-blocks whose sums are in qi, qc */
	const int ints = e2m1 && m == 1 && job->a16;
	int stage_nan = 0;	/* the staged bytes hold an E4M3 NaN code (one row) */

	uint8_t stage[COLS][STAGE] __attribute__((aligned(64)));
	const uint8_t *srows[COLS];
	const size_t rowbytes = mxe_dtype_row_bytes(t, k);

	for (unsigned c = 0; c < COLS; c++) {	/* columns past the end read the last one's */
		rows[c] = mxe_op_b_row(op, j0 + (c < nc ? c : nc - 1));
		srows[c] = stage[c];
	}
	for (size_t r = 0; r < m; r++)		/* set by sub-block 0 (fast_block_adds()) */
		for (unsigned g = 0; g < GROUPS; g++)
			p[r][g] = acc[r][g] = _mm512_setzero_ps();
	for (size_t s = 0; s < nsub; s++) {
		__m512 sv[GROUPS], q[GROUPS];

		if (!ints && (s * 16 * halves) % STAGE == 0) {
			mxe_gemv_stage(rows, COLS, s * 16 * halves, rowbytes, stage, STAGE_AHEAD, 1);
			stage_nan = one && t == MXA_DTYPE_E4M3 && stage_has_e4m3_nan(stage, COLS);
		}
		if (ints && s % INT_CHUNK == 0) {
			unsigned n = int_span_at(s, nsub);

			if (n)
				int_span(job, rows, j0, nc, s / INT_CHUNK, n, span, qc);
			if ((take = int_take(s, nsub, span, nc)))
				int_transpose(qc[s / INT_CHUNK % INT_SPAN], qi);
		}
		if (s % SCALE_SUBS == 0 && take != 0xFFFF)
			bytes_scales(op, j0, nc, s, (unsigned)(nsub - s < SCALE_SUBS ? nsub - s : SCALE_SUBS),
				     (neg ? -1.0f : 1.0f) * (t == MXA_DTYPE_E4M3 ? 256.0f : 1.0f), st);
		/* one row: two sub-blocks' chains at once, where both run chains (E2M1:
		 * no integer sums; FP8: one stage without E4M3 NaN codes) */
		if (one && s % 2 == 0 && s + 1 < nsub &&
		    (e2m1 ? !((take >> (s % INT_CHUNK)) & 3) : !stage_nan)) {
			__m512 q2[2][GROUPS];

			fast_chains2(t, job->af + s * SUB, ints ? rows : srows,
				     ints ? s * 16 : s * 16 * halves % STAGE, st[s % SCALE_SUBS],
				     st[(s + 1) % SCALE_SUBS], lut, e2ix, q2);
			fast_block_adds(q2[0], s, nsub, p[0], acc[0]);
			fast_block_adds(q2[1], ++s, nsub, p[0], acc[0]);
			continue;
		}
		for (unsigned g = 0; g < GROUPS; g++) {
			sv[g] = _mm512_load_ps(st[s % SCALE_SUBS] + 16 * g);
			q[g] = (take >> (s % INT_CHUNK)) & 1 ? _mm512_load_ps(qi[s % INT_CHUNK][g]) :
							       _mm512_setzero_ps();
		}
		for (unsigned h = 0; h < halves && !((take >> (s % INT_CHUNK)) & 1); h++) {
			__m512i w[GROUPS][4];
			int nan = 0;

			for (unsigned g = 0; g < GROUPS; g++) {
				const uint8_t *const *r = ints ? rows + 16 * g : srows + 16 * g;
				size_t off = ints ? s * 16 * halves + 16 * h : (s * 16 * halves + 16 * h) % STAGE;

				if (e2m1)	/* w[g][T] (lane L: columns 4 L ..): bytes 4 T .. 4 T + 3 */
					mxe_bytes16_q_avx512(r, off, w[g]);
				else
					mxe_bytes16_t_avx512(r, off, w[g]);
				if (t == MXA_DTYPE_E4M3)
					nan |= e4m3_has_nan(w[g]);
			}
			/* byte b = 4 T + i: E2M1 k = 2 b and 2 b + 1 (low, high nibble); FP8
			 * k = 16 h + b: in increasing k either way */
#define BYTES_ONE(T, i)									\
			_Pragma("GCC unroll 4")						\
			for (unsigned g = 0; g < GROUPS; g++) {				\
				unsigned kb = 4 * T + i;					\
											\
				if (e2m1) {	/* the byte alone in its dword: vpermps reads its low nibble */ \
					__m512i x32 = _mm512_shuffle_epi8(w[g][T], e2ix[i]);	\
					__m512 lo = _mm512_mul_ps(_mm512_permutexvar_ps(x32, lut), sv[g]); \
					__m512 hi = _mm512_mul_ps(_mm512_permutexvar_ps(	\
						_mm512_srli_epi32(x32, 4), lut), sv[g]);	\
											\
					if (m == 1) {						\
						const float *a = job->af + s * SUB + 2 * kb;	\
											\
						q[g] = _mm512_fmadd_ps(_mm512_set1_ps(a[0]), lo, q[g]); \
						q[g] = _mm512_fmadd_ps(_mm512_set1_ps(a[1]), hi, q[g]); \
					} else {						\
						_mm512_store_ps(bt[2 * kb][g], lo);		\
						_mm512_store_ps(bt[2 * kb + 1][g], hi);		\
					}							\
				} else {							\
					__m512 v = _mm512_mul_ps(fp8_lane(			\
						_mm512_extracti32x4_epi32(w[g][i], T), t, NAN_), sv[g]); \
											\
					if (m == 1)						\
						q[g] = _mm512_fmadd_ps(_mm512_set1_ps(		\
							job->af[s * SUB + 16 * h + kb]), v, q[g]); \
					else							\
						_mm512_store_ps(bt[16 * h + kb][g], v);		\
				}								\
			}
#define BYTES_LANE(T) BYTES_ONE(T, 0) BYTES_ONE(T, 1) BYTES_ONE(T, 2) BYTES_ONE(T, 3)
			if (nan) {	/* E4M3 NaN codes: a rare case, decoded apart */
#define NAN_ 1
				BYTES_LANE(0) BYTES_LANE(1) BYTES_LANE(2) BYTES_LANE(3)
#undef NAN_
			} else {
#define NAN_ 0
				BYTES_LANE(0) BYTES_LANE(1) BYTES_LANE(2) BYTES_LANE(3)
#undef NAN_
			}
#undef BYTES_LANE
#undef BYTES_ONE
		}
		if (m > 1 && job->ap) {
			pairs_rows(job->ap, k / 2, m, bt, s, nsub, p, acc);
			continue;
		}
		for (size_t r0 = 0; r0 < m; r0 += ROWS) {
			const size_t nr = m - r0 < ROWS ? m - r0 : ROWS;
			__m512 qr[ROWS][GROUPS];

			if (m > 1 && nr == ROWS)
				rows_chains(job->af + r0 * k + s * SUB, k, ROWS, bt, qr);
			else if (m > 1)
				for (size_t r = 0; r < nr; r++)
					rows_chains(job->af + (r0 + r) * k + s * SUB, k, 1, bt, qr + r);
			for (size_t r = r0; r < r0 + nr; r++)
				fast_block_adds(m > 1 ? qr[r - r0] : q, s, nsub, p[r], acc[r]);
		}
	}
	for (size_t r = 0; r < m; r++) {
		float out[COLS];

		for (unsigned g = 0; g < GROUPS; g++)
			_mm512_storeu_ps(out + 16 * g, acc[r][g]);
		mxe_op_store_row_f32(op, r, j0, out, nc);	/* NaN: 0x7FFFFFFF */
	}
}

/* fast_columns_bytes() inlined per weight type: no type switch per byte */
FAST_TASK(fast_task, fast_columns_bytes, "avx512f,avx512bw,avx512vl,avx512dq")
#define FAST_HAVE_AVX512 1

/* The range of 16 columns' scale codes (a vector's) but NaN over all of K (*@lo > *@hi:
 * none): a row's block whose grids fit it needs no look at its sub-block's. */
__attribute__((target("avx2")))
static void int_cols_range(const uint8_t *const srows[16], size_t nsub, int *lo, int *hi)
{
	*lo = 255, *hi = 0;
	for (unsigned c = 0; c < 16; c++) {
		int l, h;

		mxe_scale_range_avx2(srows[c], nsub, &l, &h);
		*lo = l < *lo ? l : *lo;
		*hi = h > *hi ? h : *hi;
	}
}

/* The outputs of int_cols_t() and int_cols8_t(): every row's @nc columns from @j0,
 * row r at @out + r @ld. */
static void int_cols_out(const struct mxe_op *op, size_t j0, size_t nc, const float *out,
			 size_t ld)
{
	for (size_t r = 0; r < op->d.m; r++)
		mxe_op_store_row_f32(op, r, j0, out + r * ld, nc);	/* NaN: 0x7FFFFFFF */
}

/* The 16 columns' scales @se (E8M0 codes) times @half (0.5 for twice the values, or
 * -0.5 negated), as bytes_scales() takes them. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline __m512 int_cols_scales(__m512i se, float half)
{
	__m512i u = _mm512_slli_epi32(se, 23);	/* 2^(s - 127) */

	u = _mm512_mask_mov_epi32(u, _mm512_cmpeq_epi32_mask(se, _mm512_setzero_si512()),
				  _mm512_set1_epi32(0x00400000));
	u = _mm512_mask_mov_epi32(u, _mm512_cmpeq_epi32_mask(se, _mm512_set1_epi32(0xFF)),
				  _mm512_set1_epi32(0x7FC00000));
	return _mm512_mul_ps(_mm512_castsi512_ps(u), _mm512_set1_ps(half));
}

/* Sub-block @s of the 16 columns as f32 weights bt[k][lane] (scales, negation applied). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void int_cols_decode(const __m512i wp[16], __m512i se, float half,
				   float bt[SUB][16])
{
	__m512 sv = int_cols_scales(se, half);

	for (int i = 0; i < 16; i++) {
		__m512i lo = _mm512_srai_epi32(_mm512_slli_epi32(wp[i], 16), 16);

		_mm512_store_ps(bt[2 * i], _mm512_mul_ps(_mm512_cvtepi32_ps(lo), sv));
		_mm512_store_ps(bt[2 * i + 1],
				_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(wp[i], 16)), sv));
	}
}

/* int_cols_decode() from mxe_cols16_bytes_avx512()'s bytes (twice the values plus 12). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void int_cols_decode_bytes(const __m512i wb[8], __m512i se, float half,
					 float bt[SUB][16])
{
	__m512 sv = int_cols_scales(se, half);

	for (int i = 0; i < 8; i++)	/* k = 8 g + 2 j + h at byte j of wb[2 g + h] */
		for (int j = 0; j < 4; j++) {
			__m512i w = _mm512_sub_epi32(_mm512_srli_epi32(_mm512_slli_epi32(wb[i], 24 - 8 * j), 24),
						     _mm512_set1_epi32(12));

			_mm512_store_ps(bt[8 * (i / 2) + 2 * j + i % 2], _mm512_mul_ps(_mm512_cvtepi32_ps(w), sv));
		}
}

/*
 * E2M1 weights, several rows of A: the task's 16 @groups columns are the lanes of
 * @groups vectors (struct mxe_cols16, as in the EXACT GEMV's several-row kernels),
 * each sub-block's codes of the columns transposed and looked up once: with VNNI as
 * bytes, else as int16 pairs. Where a row's block has an int16 form
 * (fast_int_rows_prepare()) and every column's grid is a normal f32 with room for 2^24
 * units, the chain cannot round (int_span() says why): its q is the integer dot
 * product (16 vpdpbusd on A's bytes, broadcast, mxe_e2m1_a8_block(); or 16 vpmaddwd
 * and vpaddd on its pairs) times the grid, one conversion and one multiply where the
 * chain takes 32 FMAs. Two groups (VNNI only: their 16 byte vectors fit the registers)
 * load each of A's bytes once for both (mxe_e2m1_a8_dot2_avx512()). A NaN scale makes
 * its column's q NaN, as the chain would. Other rows run the chain on the weights
 * decoded once from the same codes (int_cols_decode(), int_cols_decode_bytes()). The
 * sub-block sums go into the block sums and the accumulator in K order, as the tiled
 * kernels add them. @vnni and @groups constant where inlined.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void int_cols_t(const struct fast_job *job, size_t j0, int vnni, int groups,
			      uint64_t *ints)
{
	const struct mxe_op *op = job->op;
	const size_t m = op->d.m, k = op->d.k, nsub = k / SUB, n = op->d.n;
	const size_t nc = n - j0 < 16 * (size_t)groups ? n - j0 : 16 * (size_t)groups;
	const int neg = !!(op->d.flags & MXE_GEMM_NEGATE_B);
	const __m512i lut = mxe_e2m1_lut_avx512(), zero = _mm512_setzero_si512();
	const uint8_t *rows[32], *srows[32];
	struct mxe_cols16 cols[2];
	__m512 p[FAST_MAX_M][2], acc[FAST_MAX_M][2];
	float bt[2][SUB][16] __attribute__((aligned(64))), out[FAST_MAX_M][32];
	int tlo[2], thi[2];
	size_t gc[2];	/* the group's columns that are the task's */

	for (unsigned c = 0; c < 16 * (unsigned)groups; c++) {	/* past N: the last one's */
		size_t j = j0 + (c < nc ? c : nc - 1);

		rows[c] = mxe_op_b_row(op, j);
		srows[c] = op->scale_b ? mxe_op_b_scales(op, j) : job->ones;
	}
	for (int g = 0; g < groups; g++) {
		int_cols_range(srows + 16 * g, nsub, &tlo[g], &thi[g]);
		mxe_cols16_init(&cols[g], rows + 16 * g, srows + 16 * g, nsub, nsub);
		gc[g] = mxe_cols16_group_cols(nc, g);
	}
	for (size_t s = 0; s < nsub; s++) {
		__m512i wp[16], wb[2][8], cs[2], se[2];
		__mmask16 nan[2];
		int lo[2] = { -1, -1 }, hi[2] = { 0, 0 }, decoded[2] = { 0, 0 };

		_Pragma("GCC unroll 2")
		for (int g = 0; g < groups; g++) {
			cs[g] = mxe_cols16_block_avx512(&cols[g], s, vnni, lut, wb[g], wp);
			se[g] = _mm512_cvtepu8_epi32(mxe_cols16_scales_avx512(&cols[g], s, 127));
			nan[g] = _mm512_cmpeq_epi32_mask(se[g], _mm512_set1_epi32(0xFF));
		}
		for (size_t r = 0; r < m; r++) {
			const int32_t ae = job->aexp[s * m + r];
			int fits[2], any = 0;
			__m512i in[2] = { zero, zero };

			_Pragma("GCC unroll 2")
			for (int g = 0; g < groups; g++) {
				/* every grid's biased exponent in range: the task's, else the sub-block's */
				fits[g] = ae + tlo[g] >= 1 && ae + thi[g] <= 231;
				if (!fits[g] && ae != FAST_NO_FORM) {
					if (lo[g] < 0) {	/* the sub-block's range over its lanes but NaN */
						lo[g] = hi[g] = 127;
						if (nan[g] != 0xFFFF) {
							lo[g] = _mm512_mask_reduce_min_epi32((__mmask16)~nan[g], se[g]);
							hi[g] = _mm512_mask_reduce_max_epi32((__mmask16)~nan[g], se[g]);
						}
					}
					fits[g] = ae + lo[g] >= 1 && ae + hi[g] <= 231;
				}
				any |= fits[g];
			}
			if (any && vnni) {
				const int32_t *a8 = (const int32_t *)(job->a8 + (s * m + r) * 64);
				const __m512i corr = _mm512_set1_epi32(job->acorr[s * m + r]);

				if (groups == 2) {
					const __m512i init[2] = { _mm512_add_epi32(cs[0], corr),
								  _mm512_add_epi32(cs[1], corr) };

					mxe_e2m1_a8_dot2_avx512(wb, a8, init, in);
				} else {
					in[0] = mxe_e2m1_a8_dot_avx512(wb[0], a8, 0, 8,
								       _mm512_add_epi32(cs[0], corr));
				}
			} else if (any) {
				const int32_t *a = (const int32_t *)(job->a16 + (s * m + r) * SUB);
				__m512i q4[4] = { zero, zero, zero, zero };

				_Pragma("GCC unroll 16")	/* four chains: the latency */
				for (int i = 0; i < 16; i++)
					q4[i % 4] = _mm512_add_epi32(q4[i % 4], _mm512_madd_epi16(
						wp[i], _mm512_set1_epi32(a[i])));
				in[0] = _mm512_add_epi32(_mm512_add_epi32(q4[0], q4[1]),
							 _mm512_add_epi32(q4[2], q4[3]));
			}
			_Pragma("GCC unroll 2")
			for (int g = 0; g < groups; g++) {
				__m512 q;

				if (fits[g]) {
					__m512i v = neg ? _mm512_sub_epi32(zero, in[g]) : in[g];	/* 0 stays +0 */

					q = _mm512_mul_ps(_mm512_cvtepi32_ps(v), _mm512_castsi512_ps(
						_mm512_slli_epi32(_mm512_add_epi32(se[g], _mm512_set1_epi32(ae)), 23)));
					if (nan[g])
						q = _mm512_mask_mov_ps(q, nan[g], _mm512_set1_ps(NAN));
					*ints += gc[g];
				} else {
					const float *a = job->af + r * k + s * SUB;

					if (!decoded[g]) {
						decoded[g] = 1;
						if (vnni)
							int_cols_decode_bytes(wb[g], se[g], neg ? -0.5f : 0.5f, bt[g]);
						else
							int_cols_decode(wp, se[g], neg ? -0.5f : 0.5f, bt[g]);
					}
					q = _mm512_setzero_ps();
					for (int i = 0; i < SUB; i++)
						q = _mm512_fmadd_ps(_mm512_set1_ps(a[i]), _mm512_load_ps(bt[g][i]), q);
				}
				p[r][g] = mxe_fast_opens_block(s) ? q : _mm512_add_ps(p[r][g], q);
				if (mxe_fast_closes_block(s, nsub))
					acc[r][g] = mxe_fast_first_block(s) ? p[r][g] : _mm512_add_ps(acc[r][g], p[r][g]);
			}
		}
	}
	for (size_t r = 0; r < m; r++)
		for (int g = 0; g < groups; g++)
			_mm512_storeu_ps(out[r] + 16 * g, acc[r][g]);
	int_cols_out(op, j0, nc, out[0], 32);
}

/* A task of int_cols_t(): 32 columns with VNNI (16 where the last task has no more),
 * else 16; the forms resolved once. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
static void fast_int_task(void *arg, unsigned phase, unsigned task)
{
	struct fast_job *job = arg;
	uint64_t ints = 0;
	size_t j0 = (size_t)task * mxe_cols16_task_cols(job->vnni);

	(void)phase;
	if (mxe_cols16_task_groups(job->vnni, job->op->d.n, j0) == 2)
		int_cols_t(job, j0, 1, 2, &ints);
	else if (job->vnni)
		int_cols_t(job, j0, 1, 1, &ints);
	else
		int_cols_t(job, j0, 0, 1, &ints);
	__atomic_add_fetch(&fast_int_sums, ints, __ATOMIC_RELAXED);
}

/* ---- AVX2: 8 lanes, eight groups of 8 columns (COLS8 a task) ---- */

/* Qword @i of @c as the low 8 bytes of an xmm. */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline __m128i qword8(__m256i c, int i)
{
	__m128i x = i < 2 ? _mm256_castsi256_si128(c) : _mm256_extracti128_si256(c, 1);

	return i & 1 ? _mm_unpackhi_epi64(x, x) : x;
}

/* An E2M1 code in each dword of @x (bits 3..0) as 8 f32. */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline __m256 e2m1_8(__m256i x)
{
	return _mm256_xor_ps(_mm256_permutevar8x32_ps(_mm256_setr_ps(0, 0.5f, 1, 1.5f, 2, 3, 4, 6), x),
			     _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(x, _mm256_set1_epi32(8)),
								   28)));
}

/* 8 FP8 codes as 8 f32 (E4M3 times 2^-8, its scale vector restores it; NaN codes as
 * NaN when @nan). */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline __m256 fp8_8(__m128i x, unsigned t, int nan)
{
	__m128i h;
	__m256 v;

	if (t == MXA_DTYPE_E5M2)
		return _mm256_cvtph_ps(_mm_slli_epi16(_mm_cvtepu8_epi16(x), 8));
	h = _mm_and_si128(_mm_slli_epi16(_mm_cvtepi8_epi16(x), 7), _mm_set1_epi16((short)0xBF80));
	v = _mm256_cvtph_ps(h);
	if (nan) {
		__m128i m = _mm_cmpeq_epi16(_mm_and_si128(h, _mm_set1_epi16(0x3F80)),
					    _mm_set1_epi16(0x3F80));

		v = _mm256_blendv_ps(v, _mm256_set1_ps(NAN), _mm256_castsi256_ps(_mm256_cvtepi16_epi32(m)));
	}
	return v;
}

/* The E4M3 NaN codes (S.1111.111) among the 128 bytes of @c, as a byte mask. */
__attribute__((target("avx2"), always_inline))
static inline __m256i e4m3_nan_codes(const __m256i c[4])
{
	const __m256i m7 = _mm256_set1_epi8(0x7F);
	__m256i any = _mm256_setzero_si256();

	_Pragma("GCC unroll 4")	/* c[] stays in registers */
	for (int j = 0; j < 4; j++)
		any = _mm256_or_si256(any, _mm256_cmpeq_epi8(_mm256_and_si256(c[j], m7), m7));
	return any;
}

/*
 * One sub-block of FP8 codes, one row of A (M = 1): the eight groups' chains run side by
 * side, k by k, from the codes transposed once into @codes (qword k of a group: its 8
 * columns' bytes at k). A group's chain of 32 FMAs after another's held the loop to the
 * FMA's latency. Each chain is the one the loop over groups ran: the same bits.
 */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void fp8_chains8_run(const uint64_t codes[8][SUB], unsigned t, int nan,
				   const float *sv, const float *a, __m256 q[8])
{
	_Pragma("GCC unroll 8")
	for (unsigned g = 0; g < 8; g++)
		q[g] = _mm256_setzero_ps();
	for (unsigned k = 0; k < SUB; k++) {
		__m256 av = _mm256_set1_ps(a[k]);

		_Pragma("GCC unroll 8")
		for (unsigned g = 0; g < 8; g++)
			q[g] = _mm256_fmadd_ps(av, _mm256_mul_ps(fp8_8(_mm_loadl_epi64((const __m128i *)&codes[g][k]),
								       t, nan),
							      _mm256_load_ps(sv + 8 * g)), q[g]);
	}
}

__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void fp8_chains8(const uint8_t *const *srows, size_t off, unsigned t,
			       const float *sv, const float *a, __m256 q[8])
{
	uint64_t codes[8][SUB] __attribute__((aligned(32)));
	__m256i any = _mm256_setzero_si256();

	for (unsigned g = 0; g < 8; g++)
		for (unsigned h = 0; h < 2; h++) {
			__m256i c[4];

			mxe_bytes8_t_avx2(srows + 8 * g, (off + 16 * h) % STAGE, c);
			_Pragma("GCC unroll 4")
			for (int j = 0; j < 4; j++)	/* qword i of c[j]: k = 16 h + 4 j + i */
				_mm256_store_si256((__m256i *)&codes[g][16 * h + 4 * j], c[j]);
			if (t == MXA_DTYPE_E4M3)
				any = _mm256_or_si256(any, e4m3_nan_codes(c));
		}
	if (!_mm256_testz_si256(any, any))
		fp8_chains8_run(codes, t, 1, sv, a, q);
	else
		fp8_chains8_run(codes, t, 0, sv, a, q);
}

/* fp8_chains8() for E2M1 codes: a sub-block is 16 bytes of each column, byte b giving
 * k = 2 b (low nibble) and 2 b + 1; the rows at @off of @rows (staged or in place). */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void e2m1_chains8(const uint8_t *const *rows, size_t off, const float *sv,
				const float *a, __m256 q[8])
{
	uint64_t codes[8][SUB / 2] __attribute__((aligned(32)));

	for (unsigned g = 0; g < 8; g++) {
		__m256i c[4];

		mxe_bytes8_t_avx2(rows + 8 * g, off, c);
		_Pragma("GCC unroll 4")
		for (int j = 0; j < 4; j++)	/* qword i of c[j]: byte 4 j + i */
			_mm256_store_si256((__m256i *)&codes[g][4 * j], c[j]);
		q[g] = _mm256_setzero_ps();
	}
	for (unsigned b = 0; b < SUB / 2; b++) {
		__m256 a0 = _mm256_set1_ps(a[2 * b]), a1 = _mm256_set1_ps(a[2 * b + 1]);

		_Pragma("GCC unroll 8")
		for (unsigned g = 0; g < 8; g++) {
			__m256i x = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)&codes[g][b]));
			__m256 s = _mm256_load_ps(sv + 8 * g);

			q[g] = _mm256_fmadd_ps(a0, _mm256_mul_ps(e2m1_8(x), s), q[g]);
			q[g] = _mm256_fmadd_ps(a1, _mm256_mul_ps(e2m1_8(_mm256_srli_epi32(x, 4)), s), q[g]);
		}
	}
}

/* Several rows of A: group @g's weights of the sub-block at byte @off of the staged rows,
 * times their scales @sv, into bt (k, group, lane) for rows_chains8(). */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void weights_bt8(const uint8_t *const *srows, size_t off, unsigned t, __m256 sv,
			       unsigned g, float bt[SUB][8][8])
{
	const unsigned halves = t == MXA_DTYPE_E2M1 ? 1 : 2;

	for (unsigned h = 0; h < halves; h++) {
		__m256i c[4];
		int nan = 0;

		mxe_bytes8_t_avx2(srows + 8 * g, (off + 16 * h) % STAGE, c);
		if (t == MXA_DTYPE_E4M3) {
			__m256i any = e4m3_nan_codes(c);

			nan = !_mm256_testz_si256(any, any);
		}
		/* byte b = 4 j + i: E2M1 k = 2 b, 2 b + 1; FP8 k = 16 h + b */
#pragma GCC unroll 4
		for (int j = 0; j < 4; j++) {
#pragma GCC unroll 4
			for (int i = 0; i < 4; i++) {
				__m128i x = qword8(c[j], i);
				unsigned kb = 4 * j + i;

				if (t == MXA_DTYPE_E2M1) {
					__m256i x32 = _mm256_cvtepu8_epi32(x);

					_mm256_store_ps(bt[2 * kb][g], _mm256_mul_ps(e2m1_8(x32), sv));
					_mm256_store_ps(bt[2 * kb + 1][g],
							_mm256_mul_ps(e2m1_8(_mm256_srli_epi32(x32, 4)), sv));
				} else {
					_mm256_store_ps(bt[16 * h + kb][g], _mm256_mul_ps(fp8_8(x, t, nan), sv));
				}
			}
		}
	}
}

/* bytes_scales() on AVX2: st[ss][c] for sub-blocks s0 .. s0 + n - 1 (n <= 16) of the
 * 64 columns, times @mul; eight columns' codes widened at a time, then transposed. */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void scales8(const struct mxe_op *op, size_t j0, size_t nc, size_t s0,
			   unsigned n, float mul, float st[SCALE_SUBS][COLS8])
{
	const __m256 f = _mm256_set1_ps(mul);

	for (unsigned g = 0; g < 8; g++)
		for (unsigned h = 0; h < 2 && 8 * h < n; h++) {
			const unsigned nh = n - 8 * h < 8 ? n - 8 * h : 8;
			__m256 r[8];

			for (unsigned c = 0; c < 8; c++) {
				size_t j = j0 + (8 * g + c < nc ? 8 * g + c : nc - 1);
				uint8_t part[8] = { 0 };
				const uint8_t *sc;
				__m256i b, u;

				if (!op->scale_b) {
					r[c] = f;
					continue;
				}
				sc = mxe_op_b_scales(op, j) + s0 + 8 * h;
				if (nh < 8)	/* no read past the row's scales */
					sc = memcpy(part, sc, nh);
				b = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)sc));
				u = _mm256_slli_epi32(b, 23);	/* 2^(s - 127) */
				u = _mm256_blendv_epi8(u, _mm256_set1_epi32(0x00400000),	/* 2^-127 */
						       _mm256_cmpeq_epi32(b, _mm256_setzero_si256()));
				u = _mm256_blendv_epi8(u, _mm256_set1_epi32(0x7FC00000),	/* NaN */
						       _mm256_cmpeq_epi32(b, _mm256_set1_epi32(0xFF)));
				r[c] = _mm256_mul_ps(_mm256_castsi256_ps(u), f);
			}
			mxe_transpose8_avx2(r);		/* r[ss]: sub-block s0 + 8 h + ss of the 8 columns */
			for (unsigned ss = 0; ss < nh; ss++)
				_mm256_store_ps(st[8 * h + ss] + 8 * g, r[ss]);
		}
}

/* int_span() on AVX2: qc[ch][c][t], lane t block t of chunk c0 + ch. */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void int_span8(const struct fast_job *job, const uint8_t *const rows[COLS8],
			     size_t j0, size_t nc, size_t c0, unsigned n, unsigned take[INT_SPAN],
			     float qc[INT_SPAN][COLS8][INT_CHUNK])
{
	const struct mxe_op *op = job->op;
	const __m256i lut = _mm256_broadcastsi128_si256(_mm_setr_epi8(MXE_E2M1_INT_LUT));
	const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
	const int neg = !!(op->d.flags & MXE_GEMM_NEGATE_B);
	__m256i ae[INT_SPAN][2], lanes[INT_SPAN][2], bad[INT_SPAN];

	for (unsigned ch = 0; ch < n; ch++) {
		bad[ch] = _mm256_setzero_si256();
		for (int h = 0; h < 2; h++) {
			ae[ch][h] = _mm256_loadu_si256((const __m256i *)(job->aexp + (c0 + ch) * INT_CHUNK + 8 * h));
			lanes[ch][h] = _mm256_cmpeq_epi32(_mm256_and_si256(
				_mm256_set1_epi32((int)(job->afit[c0 + ch] >> (8 * h))), bit), bit);
		}
	}
	for (unsigned c = 0; c < COLS8; c++) {
		const uint8_t *next = rows[c + 1 < COLS8 ? c + 1 : c];
		const uint8_t *sc = op->scale_b ? mxe_op_b_scales(op, j0 + (c < nc ? c : nc - 1)) : NULL;

		for (unsigned ch = 0; ch < n; ch++) {
			if (!job->afit[c0 + ch])
				continue;
			for (int h = 0; h < 2; h++) {	/* blocks 8 h .. 8 h + 7, in order */
				size_t b0 = (c0 + ch) * INT_CHUNK + 8 * h;
				__m256i v[4], r, s, eb;

				_Pragma("GCC unroll 4")	/* v[] in registers */
				for (int i = 0; i < 4; i++) {
					if (!(i & 1))
						_mm_prefetch((const char *)next + (b0 + 2 * i) * 16, _MM_HINT_T0);
					v[i] = mxe_e2m1_pair_inlane_avx2(rows[c], job->a16, b0 + 2 * i, lut);
				}
				/* lane L: blocks L, 2 + L, 4 + L, 6 + L; then in order */
				r = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
				r = _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
				if (neg)	/* on the integer: 0 stays +0 */
					r = _mm256_sub_epi32(_mm256_setzero_si256(), r);
				s = sc ? _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sc + b0))) :
					 _mm256_set1_epi32(127);
				eb = _mm256_add_epi32(s, ae[ch][h]);	/* the grid's biased exponent */
				bad[ch] = _mm256_or_si256(bad[ch], _mm256_and_si256(lanes[ch][h], _mm256_or_si256(
					_mm256_or_si256(_mm256_cmpeq_epi32(s, _mm256_set1_epi32(0xFF)),
							_mm256_cmpgt_epi32(_mm256_set1_epi32(1), eb)),
					_mm256_cmpgt_epi32(eb, _mm256_set1_epi32(231)))));
				_mm256_store_ps(qc[ch][c] + 8 * h, _mm256_mul_ps(_mm256_cvtepi32_ps(r),
						_mm256_castsi256_ps(_mm256_slli_epi32(eb, 23))));
			}
		}
	}
	for (unsigned ch = 0; ch < n; ch++)
		take[ch] = _mm256_testz_si256(bad[ch], bad[ch]) ? job->afit[c0 + ch] : 0;
}

/* int_transpose() on AVX2: qi[s][g], group g of 8 columns. */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void int_transpose8(const float qc[COLS8][INT_CHUNK], float qi[INT_CHUNK][8][8])
{
	for (unsigned g = 0; g < 8; g++) {
		for (int h = 0; h < 2; h++) {
			__m256 r[8];

			for (unsigned i = 0; i < 8; i++)
				r[i] = _mm256_load_ps(qc[8 * g + i] + 8 * h);
			mxe_transpose8_avx2(r);
			for (unsigned t = 0; t < 8; t++)
				_mm256_store_ps(qi[8 * h + t][g], r[t]);
		}
	}
}

#define ROWS8 2	/* AVX2: rows of A whose chains share each load of bt */

/*
 * rows_chains() with 16 registers: @nr rows (a constant, 1 or ROWS8); two rows take
 * four groups of 8 columns at a time (from @g0: 8 chains, 4 loads of bt and 2
 * broadcasts), one row all eight groups at once (@g0 0).
 */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void rows_chains8(const float *a, size_t k, unsigned nr, unsigned g0,
				const float bt[SUB][8][8], __m256 q[][8])
{
	const unsigned ng = nr == 1 ? 8 : 4;

	_Pragma("GCC unroll 8")
	for (unsigned r = 0; r < nr; r++)
		_Pragma("GCC unroll 8")
		for (unsigned g = g0; g < g0 + ng; g++)
			q[r][g] = _mm256_setzero_ps();
	for (unsigned i = 0; i < SUB; i++) {
		_Pragma("GCC unroll 8")
		for (unsigned r = 0; r < nr; r++) {
			__m256 av = _mm256_set1_ps(a[r * k + i]);

			_Pragma("GCC unroll 8")
			for (unsigned g = g0; g < g0 + ng; g++)
				q[r][g] = _mm256_fmadd_ps(av, _mm256_load_ps(bt[i][g]), q[r][g]);
		}
	}
}

__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void fast_columns8(struct fast_job *job, unsigned task, unsigned t, int one)
{
	const struct mxe_op *op = job->op;
	size_t m = one ? 1 : op->d.m, k = op->d.k, n = op->d.n, nsub = k / SUB;
	size_t j0 = (size_t)task * COLS8, nc = n - j0 < COLS8 ? n - j0 : COLS8;
	int e2m1 = t == MXA_DTYPE_E2M1;
	const unsigned halves = e2m1 ? 1 : 2;
	float mul = (op->d.flags & MXE_GEMM_NEGATE_B ? -1.0f : 1.0f) *
		    (t == MXA_DTYPE_E4M3 ? 256.0f : 1.0f);
	const uint8_t *rows[COLS8];
	__m256 p[FAST_MAX_M][8], acc[FAST_MAX_M][8];
	float bt[SUB][8][8] __attribute__((aligned(32)));	/* k, group, lane */
	float st[SCALE_SUBS][COLS8] __attribute__((aligned(32)));
	float qc[INT_SPAN][COLS8][INT_CHUNK] __attribute__((aligned(32)));
	float qi[INT_CHUNK][8][8] __attribute__((aligned(32)));
	unsigned take = 0, span[INT_SPAN] = { 0 };	/* sub-blocks whose sums are in qi, qc */
	const int ints = e2m1 && m == 1 && job->a16;

	uint8_t stage[COLS8][STAGE] __attribute__((aligned(64)));
	const uint8_t *srows[COLS8];
	const size_t rowbytes = mxe_dtype_row_bytes(t, k);

	for (unsigned c = 0; c < COLS8; c++) {	/* columns past the end read the last one's */
		rows[c] = mxe_op_b_row(op, j0 + (c < nc ? c : nc - 1));
		srows[c] = stage[c];
	}
	for (size_t s = 0; s < nsub; s++) {
		__m256 q[8];

		if (!ints && (s * 16 * halves) % STAGE == 0)
			mxe_gemv_stage(rows, COLS8, s * 16 * halves, rowbytes, stage, STAGE_AHEAD, 1);
		if (ints && s % INT_CHUNK == 0) {
			unsigned n = int_span_at(s, nsub);

			if (n)
				int_span8(job, rows, j0, nc, s / INT_CHUNK, n, span, qc);
			if ((take = int_take(s, nsub, span, nc)))
				int_transpose8(qc[s / INT_CHUNK % INT_SPAN], qi);
		}
		if (s % SCALE_SUBS == 0 && take != 0xFFFF)
			scales8(op, j0, nc, s, (unsigned)(nsub - s < SCALE_SUBS ? nsub - s : SCALE_SUBS),
				mul, st);
		if (m == 1 && ((take >> (s % INT_CHUNK)) & 1)) {	/* the sums from integers */
			for (unsigned g = 0; g < 8; g++)
				q[g] = _mm256_load_ps(qi[s % INT_CHUNK][g]);
		} else if (m == 1 && e2m1) {
			e2m1_chains8(ints ? rows : srows, ints ? s * 16 : s * 16 % STAGE,
				     st[s % SCALE_SUBS], job->af + s * SUB, q);
		} else if (m == 1) {
			fp8_chains8(srows, s * SUB, t, st[s % SCALE_SUBS], job->af + s * SUB, q);
		} else {	/* several rows */
			for (unsigned g = 0; g < 8; g++)
				weights_bt8(srows, s * 16 * halves, t,
					    _mm256_load_ps(st[s % SCALE_SUBS] + 8 * g), g, bt);
		}
		for (size_t r0 = 0; r0 < m; r0 += ROWS8) {
			const size_t nr = m - r0 < ROWS8 ? m - r0 : ROWS8;
			__m256 qr[ROWS8][8];

			if (m > 1 && nr == ROWS8)
				for (unsigned g0 = 0; g0 < 8; g0 += 4)
					rows_chains8(job->af + r0 * k + s * SUB, k, ROWS8, g0, bt, qr);
			else if (m > 1)
				for (size_t r = 0; r < nr; r++)
					rows_chains8(job->af + (r0 + r) * k + s * SUB, k, 1, 0, bt, qr + r);
			for (size_t r = r0; r < r0 + nr; r++) {
				for (unsigned g = 0; g < 8; g++) {
					if (m > 1)
						q[g] = qr[r - r0][g];
					p[r][g] = mxe_fast_opens_block(s) ? q[g] : _mm256_add_ps(p[r][g], q[g]);
					if (mxe_fast_closes_block(s, nsub))
						acc[r][g] = mxe_fast_first_block(s) ? p[r][g] :
							    _mm256_add_ps(acc[r][g], p[r][g]);
				}
			}
		}
	}
	for (size_t r = 0; r < m; r++) {
		float out[COLS8];

		for (unsigned g = 0; g < 8; g++)
			_mm256_storeu_ps(out + 8 * g, acc[r][g]);
		mxe_op_store_row_f32(op, r, j0, out, nc);	/* NaN: 0x7FFFFFFF */
	}
}

FAST_TASK(fast_task8, fast_columns8, "avx2,fma,f16c")

/* int_cols_decode() on AVX2: half @g of the columns (lanes 8 g .. 8 g + 7 of bt). */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void int_cols_decode8(const __m256i wp[16][2], int g, __m256i se, float half,
				    float bt[SUB][16])
{
	__m256i u = _mm256_slli_epi32(se, 23);	/* 2^(s - 127), as bytes_scales() */
	__m256 sv;

	u = _mm256_blendv_epi8(u, _mm256_set1_epi32(0x00400000),
			       _mm256_cmpeq_epi32(se, _mm256_setzero_si256()));
	u = _mm256_blendv_epi8(u, _mm256_set1_epi32(0x7FC00000),
			       _mm256_cmpeq_epi32(se, _mm256_set1_epi32(0xFF)));
	sv = _mm256_mul_ps(_mm256_castsi256_ps(u), _mm256_set1_ps(half));
	for (int i = 0; i < 16; i++) {
		__m256i lo = _mm256_srai_epi32(_mm256_slli_epi32(wp[i][g], 16), 16);

		_mm256_store_ps(bt[2 * i] + 8 * g, _mm256_mul_ps(_mm256_cvtepi32_ps(lo), sv));
		_mm256_store_ps(bt[2 * i + 1] + 8 * g,
				_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srai_epi32(wp[i][g], 16)), sv));
	}
}

/*
 * int_cols_t() on AVX2: the 16 columns as two halves of 8 lanes (their pairs in L1:
 * 16 registers hold too few), vpmaddwd and vpaddd with A's pair broadcast.
 */
__attribute__((target("avx2,fma,f16c"), always_inline))
static inline void int_cols8_t(const struct fast_job *job, size_t j0, uint64_t *ints)
{
	const struct mxe_op *op = job->op;
	const size_t m = op->d.m, k = op->d.k, nsub = k / SUB, n = op->d.n;
	const size_t nc = n - j0 < 16 ? n - j0 : 16;
	const int neg = !!(op->d.flags & MXE_GEMM_NEGATE_B);
	const __m256i zero = _mm256_setzero_si256();
	const uint8_t *rows[16], *srows[16];
	struct mxe_cols16 cols;
	__m256i wp[16][2];
	__m256 p[FAST_MAX_M][2], acc[FAST_MAX_M][2];
	float bt[SUB][16] __attribute__((aligned(32))), out[FAST_MAX_M][16];
	int tlo, thi;

	for (unsigned c = 0; c < 16; c++) {	/* columns past N read the last one's */
		size_t j = j0 + (c < nc ? c : nc - 1);

		rows[c] = mxe_op_b_row(op, j);
		srows[c] = op->scale_b ? mxe_op_b_scales(op, j) : job->ones;
	}
	int_cols_range(srows, nsub, &tlo, &thi);
	mxe_cols16_init(&cols, rows, srows, nsub, nsub);
	for (size_t s = 0; s < nsub; s++) {
		uint8_t s8[16];
		__m256i se[2], nan[2];
		int lo = -1, hi = 0, anynan, decoded = 0;

		mxe_cols16_codes_avx2(&cols, s, wp);
		for (unsigned c = 0; c < 16; c++)
			s8[c] = srows[c][s];
		for (int g = 0; g < 2; g++) {
			se[g] = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(s8 + 8 * g)));
			nan[g] = _mm256_cmpeq_epi32(se[g], _mm256_set1_epi32(0xFF));
		}
		anynan = !_mm256_testz_si256(_mm256_or_si256(nan[0], nan[1]),
					     _mm256_or_si256(nan[0], nan[1]));
		for (size_t r = 0; r < m; r++) {
			const int32_t ae = job->aexp[s * m + r];
			/* every grid's biased exponent in range: the task's, else the sub-block's */
			int fits = ae + tlo >= 1 && ae + thi <= 231;
			__m256 q[2];

			if (!fits && ae != FAST_NO_FORM) {
				if (lo < 0) {	/* the sub-block's range over its lanes but NaN */
					lo = 255;
					for (unsigned c = 0; c < 16; c++) {
						lo = s8[c] != 0xFF && s8[c] < lo ? s8[c] : lo;
						hi = s8[c] != 0xFF && s8[c] > hi ? s8[c] : hi;
					}
					if (lo > hi)	/* every scale NaN */
						lo = hi = 127;
				}
				fits = ae + lo >= 1 && ae + hi <= 231;
			}
			if (fits) {
				const int32_t *a = (const int32_t *)(job->a16 + (s * m + r) * SUB);
				__m256i qi[2][2] = { { zero, zero }, { zero, zero } };

				_Pragma("GCC unroll 16")
				for (int i = 0; i < 16; i++) {
					const __m256i av = _mm256_set1_epi32(a[i]);

					qi[0][i % 2] = _mm256_add_epi32(qi[0][i % 2], _mm256_madd_epi16(wp[i][0], av));
					qi[1][i % 2] = _mm256_add_epi32(qi[1][i % 2], _mm256_madd_epi16(wp[i][1], av));
					/* chains in registers (GCC would spill a tree of products) */
					__asm__("" : "+x"(qi[0][i % 2]), "+x"(qi[1][i % 2]));
				}
				for (int g = 0; g < 2; g++) {
					__m256i in = _mm256_add_epi32(qi[g][0], qi[g][1]);

					if (neg)	/* on the integer: 0 stays +0 */
						in = _mm256_sub_epi32(zero, in);
					q[g] = _mm256_mul_ps(_mm256_cvtepi32_ps(in), _mm256_castsi256_ps(
						_mm256_slli_epi32(_mm256_add_epi32(se[g], _mm256_set1_epi32(ae)), 23)));
					if (anynan)
						q[g] = _mm256_blendv_ps(q[g], _mm256_set1_ps(NAN),
									_mm256_castsi256_ps(nan[g]));
				}
				*ints += nc;
			} else {
				const float *a = job->af + r * k + s * SUB;

				if (!decoded++)
					for (int g = 0; g < 2; g++)
						int_cols_decode8(wp, g, se[g], neg ? -0.5f : 0.5f, bt);
				q[0] = q[1] = _mm256_setzero_ps();
				for (int i = 0; i < SUB; i++) {
					const __m256 av = _mm256_set1_ps(a[i]);

					q[0] = _mm256_fmadd_ps(av, _mm256_load_ps(bt[i]), q[0]);
					q[1] = _mm256_fmadd_ps(av, _mm256_load_ps(bt[i] + 8), q[1]);
				}
			}
			for (int g = 0; g < 2; g++) {
				p[r][g] = mxe_fast_opens_block(s) ? q[g] : _mm256_add_ps(p[r][g], q[g]);
				if (mxe_fast_closes_block(s, nsub))
					acc[r][g] = mxe_fast_first_block(s) ? p[r][g] :
						    _mm256_add_ps(acc[r][g], p[r][g]);
			}
		}
	}
	for (size_t r = 0; r < m; r++) {
		_mm256_storeu_ps(out[r], acc[r][0]);
		_mm256_storeu_ps(out[r] + 8, acc[r][1]);
	}
	int_cols_out(op, j0, nc, out[0], 16);
}

__attribute__((target("avx2,fma,f16c")))
static void fast_int_task8(void *arg, unsigned phase, unsigned task)
{
	struct fast_job *job = arg;
	uint64_t ints = 0;

	(void)phase;
	int_cols8_t(job, (size_t)task * 16, &ints);
	__atomic_add_fetch(&fast_int_sums, ints, __ATOMIC_RELAXED);
}

/*
 * A block's 32 f32 values of A as n 2^lo with int16 n, in k order into @n, where all
 * are finite and the nonzero ones' set bits span at most 15 (their highest and lowest
 * bits' exponents hi - lo <= 14): returns lo (0 for a block of zeros), else
 * FAST_NO_FORM (@n untouched). On bits: a value is sig 2^eb with the integer
 * significand sig < 2^24 (the hidden bit set where normal), and the exponents of sig's
 * highest and lowest bits are those of sig and of sig & -sig converted to f32, exact.
 */
__attribute__((target("avx2")))
static int fast_block_form(const float *v, int16_t n[SUB])
{
	const __m256i zero = _mm256_setzero_si256(), ff = _mm256_set1_epi32(0xFF);
	const __m256i bias = _mm256_set1_epi32(127);
	__m256i u[4], sig[4], eb[4], nonfin = zero;
	__m256i vlo = _mm256_set1_epi32(INT_MAX), vhi = _mm256_set1_epi32(INT_MIN);
	int32_t l8[8], h8[8];
	int lo = INT_MAX, hi = INT_MIN;

	for (int i = 0; i < 4; i++) {
		__m256i e, low, h, l, nz;

		u[i] = _mm256_loadu_si256((const __m256i *)(v + 8 * i));
		e = _mm256_and_si256(_mm256_srli_epi32(u[i], 23), ff);
		nonfin = _mm256_or_si256(nonfin, _mm256_cmpeq_epi32(e, ff));
		sig[i] = _mm256_or_si256(_mm256_and_si256(u[i], _mm256_set1_epi32(0x7FFFFF)),
					 _mm256_andnot_si256(_mm256_cmpeq_epi32(e, zero),
							     _mm256_set1_epi32(0x800000)));
		eb[i] = _mm256_sub_epi32(_mm256_max_epi32(e, _mm256_set1_epi32(1)),
					 _mm256_set1_epi32(150));
		low = _mm256_and_si256(sig[i], _mm256_sub_epi32(zero, sig[i]));
		h = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(sig[i])), 23);
		l = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(low)), 23);
		nz = _mm256_cmpeq_epi32(sig[i], zero);	/* zeros: no bits */
		vhi = _mm256_max_epi32(vhi, _mm256_blendv_epi8(_mm256_add_epi32(eb[i], _mm256_sub_epi32(h, bias)),
							       _mm256_set1_epi32(INT_MIN), nz));
		vlo = _mm256_min_epi32(vlo, _mm256_blendv_epi8(_mm256_add_epi32(eb[i], _mm256_sub_epi32(l, bias)),
							       _mm256_set1_epi32(INT_MAX), nz));
	}
	if (!_mm256_testz_si256(nonfin, nonfin))
		return FAST_NO_FORM;
	_mm256_storeu_si256((__m256i *)l8, vlo);
	_mm256_storeu_si256((__m256i *)h8, vhi);
	for (int i = 0; i < 8; i++) {
		lo = l8[i] < lo ? l8[i] : lo;
		hi = h8[i] > hi ? h8[i] : hi;
	}
	if (lo == INT_MAX)
		lo = hi = 0;	/* all zero */
	if (hi - lo > 14)
		return FAST_NO_FORM;
	for (int i = 0; i < 4; i += 2) {	/* |n| = sig 2^(eb - lo) < 2^15, shifted out exactly */
		__m256i x[2];

		for (int j = 0; j < 2; j++) {
			__m256i d = _mm256_sub_epi32(eb[i + j], _mm256_set1_epi32(lo));

			x[j] = _mm256_sllv_epi32(sig[i + j], _mm256_max_epi32(d, zero));
			x[j] = _mm256_srlv_epi32(x[j], _mm256_max_epi32(_mm256_sub_epi32(zero, d), zero));
			x[j] = _mm256_sign_epi32(x[j], u[i + j]);	/* the sign bit; +0 and -0 give 0 */
		}
		_mm256_storeu_si256((__m256i *)(n + 8 * i),
				    _mm256_permute4x64_epi64(_mm256_packs_epi32(x[0], x[1]), 0xD8));
	}
	return lo;
}

/*
 * Bytes of fast_int_prepare()'s buffer (@m 1) or fast_int_rows_prepare()'s for @m rows
 * of @k.
 */
static size_t fast_int_bytes(size_t m, size_t k)
{
	size_t nb = k / SUB;

	return m == 1 ? nb * (SUB * sizeof(int16_t) + sizeof(int32_t)) + nb / INT_CHUNK * sizeof(uint16_t) :
			m * nb * (SUB * sizeof(int16_t) + sizeof(int32_t) + 2 * SUB + sizeof(int32_t)) + nb;
}

/*
 * The int16 form (mxe_gemv_int.h) of A's one row @a where a block has one
 * (fast_block_form()), per chunk of 16 blocks, in @buf (fast_int_bytes()); returns 0
 * when no chunk has enough.
 */
static int fast_int_prepare(struct fast_job *job, const float *a, size_t k, void *buf)
{
	size_t nb = k / SUB, nch = nb / INT_CHUNK;
	int16_t *a16 = buf;
	int32_t *aexp = (int32_t *)(a16 + nb * SUB);
	uint16_t *afit = (uint16_t *)(aexp + nb);
	int any = 0;

	if (!nch)
		return 0;
	memset(afit, 0, nch * sizeof(*afit));
	for (size_t b = 0; b < nch * INT_CHUNK; b++) {
		int16_t n[SUB] = { 0 };
		int lo = fast_block_form(a + b * SUB, n);

		for (int q = 0; q < SUB; q++)	/* zeros where none: the sums read every block */
			a16[mxe_e2m1_int_at(nb, b, q, !job->avx512)] = n[q];
		aexp[b] = lo == FAST_NO_FORM ? 0 : lo - 1;
		if (lo != FAST_NO_FORM)
			afit[b / INT_CHUNK] |= (uint16_t)(1u << (b % INT_CHUNK));
	}
	for (size_t ch = 0; ch < nch; ch++) {
		if (__builtin_popcount(afit[ch]) < INT_CHUNK - INT_MISS_MAX)
			afit[ch] = 0;
		any |= afit[ch] != 0;
	}
	if (!any)
		return 0;
	job->a16 = a16;
	job->aexp = aexp;
	job->afit = afit;
	return 1;
}

/*
 * Several rows of A against E2M1 weights (int_cols_t()), in @buf (fast_int_bytes()):
 * each row's blocks that have a form (fast_block_form()), block-major, and aexp lo - 1
 * (FAST_NO_FORM for the others); with VNNI the forms as bytes too
 * (mxe_e2m1_a8_block()). Returns 0, for the float kernels, on AVX2 above
 * INT_ROWS_AVX2_MAX rows, and when more than one block in INT_ROWS_MISS_IN has none:
 * int_cols_t() then runs the chains on weights it decodes per sub-block, slower than
 * the float kernels (fast_task()).
 */
static int fast_int_rows_prepare(struct fast_job *job, const float *a, size_t m, size_t k,
				 void *buf)
{
	size_t nb = k / SUB;
	int16_t *a16 = buf;
	int32_t *aexp = (int32_t *)(a16 + m * nb * SUB), *acorr = aexp + m * nb;
	int8_t *a8 = (int8_t *)(acorr + m * nb);
	uint8_t *ones = (uint8_t *)(a8 + m * nb * 2 * SUB);
	size_t miss = 0;

	if (mxe_cpu_simd() < MXE_SIMD_AVX512 && m > INT_ROWS_AVX2_MAX)
		return 0;
	memset(ones, 127, nb);
	for (size_t b = 0; b < m * nb; b++) {	/* row b % m, block b / m */
		int lo = fast_block_form(a + (b % m) * k + b / m * SUB, a16 + b * SUB);

		if (lo != FAST_NO_FORM && job->vnni) {
			int32_t corr[2];

			mxe_e2m1_a8_block(a16 + b * SUB, a8 + b * 2 * SUB, corr);
			acorr[b] = corr[0] + corr[1];
		}
		aexp[b] = lo == FAST_NO_FORM ? FAST_NO_FORM : lo - 1;
		miss += lo == FAST_NO_FORM;
	}
	if (miss * INT_ROWS_MISS_IN > m * nb)
		return 0;
	job->a16 = a16;
	job->aexp = aexp;
	job->ones = ones;
	job->a8 = a8;
	job->acorr = acorr;
	return 1;
}

/*
 * Several rows on BF16 pairs (pairs_rows()): an AVX512-BF16 host, every value of A
 * exact in BF16 and not subnormal (its pair words written to @buf, [M][K / 2]), and
 * the weights' least element (their type's least magnitude at their least scale) at
 * least 2^-126 and, with A's lowest bit (its least exponent less 7), a product grid of
 * at least 2^-126: no element, product or partial sum is subnormal, which vdpbf16ps
 * would flush (numerics.rst, "Determinism").
 */
static int fast_pairs_prepare(struct fast_job *job, const float *a, size_t m, size_t k,
			      uint32_t *buf)
{
	unsigned e;

	if (mxe_cpu_simd() < MXE_SIMD_AVX512BF16 || m < 2)
		return 0;
	e = mxe_bf16_exact_min_exp_avx512(a, m * k);
	/* A's lowest bit: its least exponent less 7 (all zeros: any) */
	if (!e || !mxe_fast_pairs_b(job->op, e == 255 ? 0 : (int)e - 127 - 7))
		return 0;
	mxe_bf16_pack_avx512(a, buf, m * k);
	job->ap = buf;
	return 1;
}
#endif

/* The pool's ops for each kind of task (none without the x86 kernels: never run) */
#ifdef FAST_HAVE_AVX512
#define FAST_OPS(name, fn) \
	static const struct mxe_pool_job_ops name = { .phase_tasks = fast_phase_tasks, .task = fn }
#else
#define FAST_OPS(name, fn) \
	static const struct mxe_pool_job_ops name = { .phase_tasks = fast_phase_tasks }
#endif
FAST_OPS(fast_ops, fast_task);
FAST_OPS(fast_ops8, fast_task8);
FAST_OPS(fast_int_ops, fast_int_task);
FAST_OPS(fast_int_ops8, fast_int_task8);

int mxe_gemv_fast_applies(const struct mxe_op *op)
{
	const struct mxe_gemm_desc *d = &op->d;

#ifndef FAST_HAVE_AVX512
	return 0;
#endif
	return mxe_cpu_use_avx2() && d->accum == MXE_ACCUM_FAST &&
	       op->cls == MXE_CLASS_FLOAT && d->m <= FAST_MAX_M && d->k % SUB == 0 &&
	       d->type_d == MXA_DTYPE_F32 &&
	       !(d->flags & ~(MXE_GEMM_NEGATE_A | MXE_GEMM_NEGATE_B)) && op->ldd % 4 == 0 &&
	       d->type_a != MXA_DTYPE_TF32 &&
	       (d->type_b == MXA_DTYPE_E4M3 || d->type_b == MXA_DTYPE_E5M2 ||
		d->type_b == MXA_DTYPE_E2M1);
}

int mxe_gemv_fast_run(struct mxe_engine *eng, const struct mxe_op *op)
{
	const struct mxe_gemm_desc *d = &op->d;
	struct fast_job job = { .op = op };
	size_t m = d->m, k = d->k, abytes = (m * k * sizeof(float) + 63) & ~(size_t)63, cols;
	size_t ibytes = (fast_int_bytes(m, k) + 63) & ~(size_t)63;
	int ints = 0;
	double *row;
	float *af;

	if (!mxe_gemv_fast_applies(op) || !mxe_fast_scales_safe(op))
		return 1;	/* the tiled path declines these too: the exact path */
	/* the calling thread's scratch (its tasks use none): no pages faulted in per call */
	af = mxe_scratch(3, abytes + k * sizeof(double) + ibytes + m * k / 2 * sizeof(uint32_t));
	if (!af)
		return MXE_ENGINE_ENOMEM;
	row = (double *)((uint8_t *)af + abytes);
	for (size_t i = 0; i < m; i++) {
		mxe_op_row_values(op, 0, i, row);	/* exact, and exact in f32 (checked) */
		for (size_t kk = 0; kk < k; kk++)
			af[i * k + kk] = (float)row[kk];
	}
	job.af = af;
	job.avx512 = mxe_cpu_simd() >= MXE_SIMD_AVX512;
	cols = job.avx512 ? COLS : COLS8;
	job.tasks = (unsigned)((d->n + cols - 1) / cols);
	job.vnni = mxe_cpu_simd() >= MXE_SIMD_AVX512VNNI;
#ifdef FAST_HAVE_AVX512
	if (m == 1 && d->type_b == MXA_DTYPE_E2M1)
		ints = fast_int_prepare(&job, af, k, row + k);
	else if (d->type_b == MXA_DTYPE_E2M1)
		ints = fast_int_rows_prepare(&job, af, m, k, row + k);
	if (!ints && fast_pairs_prepare(&job, af, m, k, (uint32_t *)(void *)((uint8_t *)(row + k) +
									     ibytes)))
		__atomic_add_fetch(&fast_pair_ops, 1, __ATOMIC_RELAXED);
#endif
	__atomic_add_fetch(&fast_outputs, m * d->n, __ATOMIC_RELAXED);
	if (m > 1 && ints) {	/* int_cols_t(): 32 columns a task with VNNI, else 16 */
		size_t w = mxe_cols16_task_cols(job.vnni);

		job.tasks = (unsigned)((d->n + w - 1) / w);
		mxe_pool_run(eng, d->nthreads,
			     job.avx512 ? &fast_int_ops : &fast_int_ops8, &job);
	} else {
		mxe_pool_run(eng, d->nthreads,
			     job.avx512 ? &fast_ops : &fast_ops8, &job);
	}
	return 0;
}
