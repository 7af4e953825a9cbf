// SPDX-License-Identifier: MIT
/*
 * mxe_gemv.c - the EXACT numerics for operations with few rows of A (M <= 32) and
 * narrow B (FP8, FP6, FP4 or MXINT8 weights, with or without MX scales): an LLM's
 * GEMV, at the speed of streaming the weights.
 *
 * The general exact path (mxe_exact.c) decodes B into double panels before it sums;
 * with one row of A nothing amortises that. Here each weight block (32 k) is decoded
 * in registers, scaled, and multiplied into double accumulators, one per row of A.
 * The result must be the correctly rounded exact sum, as on the general path, so
 * every output carries a proof: with L >= 8 lanes of FMA chains (AVX2: 4, K / 4) and a few levels of
 * adds, the double result s is within e = (K / 8 + 8) * 2^-53 * sum |a * b| of the exact sum
 * (each product is exact in a double, each addition rounds by at most 2^-53 of a
 * partial sum that sum |a * b| bounds; the code uses 2^-52, which also covers the
 * rounding of the bound itself). Here sum |a * b| is bounded by the sum over
 * blocks of sum |a| times the block's largest possible |b|. When s - e and s + e
 * round to the same f32, that f32 is the exact sum's; otherwise (a sum near a
 * rounding boundary or a tie, heavy cancellation, NaN or Inf in A or in the weights) that
 * output is redone: from E2M1 weights' integer blocks, summed exactly (gemv_int_redo()),
 * else on the general path. Either way the bits are the general path's.
 *
 * With more than one row of A the sums are bound by the FMAs, not by the weights: a
 * task runs its 16 columns over one span of k at a time (GEMV_SPAN_BLOCKS), each span
 * of A staying in L1 for all of them, the accumulators in registers and between spans
 * in struct gemv_acc (Documentation/performance.rst, gemv.csv). E2M1 weights sum in
 * integers instead: one row of A column by column, several with the task's 16 columns
 * (32 with VNNI, two vectors) as the lanes of int32 dot products (gemv_int_cols_t(),
 * gemv_int_cols_avx2()), whose double sums need no bound where every addition is exact
 * (gemv_sums_exact()).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_cpu.h"
#include "mxe_formats.h"
#include "mxe_gemm.h"
#include "mxe_gemv_int.h"
#include "mxe_pool.h"
#include "mxe_xacc.h"

#define GEMV_MAX_M	32
#define GEMV_COLS	16	/* columns per task */
#define BLK		MXA_MX_BLOCK

/*
 * A weight type's facts for the kernels, from its format (mxe_formats.c): max, the
 * largest |weight| of a finite code, and lsb, the exponent of the lowest bit a nonzero
 * code can have, for the proofs; for the FP8 and FP6 types how their codes become
 * numbers: on AVX2 an f32 bit pattern whose value times 2^adj is the weight's, on
 * AVX-512 the top 16 bits of the weight's double (decode32_pd_avx512(), subnormal codes
 * from sub16). E2M1 weights are looked up as values, MXINT8 ones converted as integers
 * (times 2^-6).
 */
struct wfmt {
	double max;
	int lsb;
	int adj;
	uint16_t sub16[32];	/* subnormal code m: its double's top 16 bits */
};

/*
 * An FP8 or FP6 code's fields for both decoders' shifts and masks (immediates where @t
 * is a constant): magnitude bits (the sign the next bit up), mantissa bits, exponent
 * bias, and the codes that are no finite number: code & nan_mask == nan_mask (E4M3's
 * NaN S.1111.111, E5M2's Inf and NaN S.11111.xx; FP6 has none: 0).
 */
struct gemv_fp_layout {
	unsigned mag, mbits;
	int bias;
	unsigned nan_mask;
};

static inline struct gemv_fp_layout gemv_fp_layout(unsigned t)
{
	switch (t) {
	case MXA_DTYPE_E4M3:
		return (struct gemv_fp_layout){ 0x7f, 3, 7, 0x7f };
	case MXA_DTYPE_E5M2:
		return (struct gemv_fp_layout){ 0x7f, 2, 15, 0x7c };
	case MXA_DTYPE_E3M2:
		return (struct gemv_fp_layout){ 0x1f, 2, 3, 0 };
	default:	/* E2M3 */
		return (struct gemv_fp_layout){ 0x1f, 3, 1, 0 };
	}
}

/* Fills @f for weight type @t; 0 where the GEMV does not take @t. */
static int weight_fmt(unsigned t, struct wfmt *f)
{
	struct gemv_fp_layout l = gemv_fp_layout(t);
	unsigned mb;
	int bias = 0;
	double v;
	uint64_t u;

	memset(f, 0, sizeof(*f));
	switch (t) {
	case MXA_DTYPE_MXINT8:	/* an int8, times 2^-6: |-128| the largest */
		f->max = 128.0 / 64, f->lsb = -6;
		return 1;
	case MXA_DTYPE_E2M1:
	case MXA_DTYPE_E4M3:
	case MXA_DTYPE_E5M2:
	case MXA_DTYPE_E3M2:
	case MXA_DTYPE_E2M3:
		break;
	default:
		return 0;
	}
	mb = mxe_dtype_float_bits(t, &bias);
	f->max = mxe_dtype_max_finite(t);
	f->lsb = 1 - bias - (int)mb;
	if (t == MXA_DTYPE_E2M1)
		return 1;
	/* the decoders' layout is the format's (the bias is 2^(exponent bits - 1) - 1) */
	if (l.mbits != mb || l.bias != bias ||
	    l.mag != (1u << (__builtin_ctz((unsigned)bias + 1) + 1 + mb)) - 1)
		return 0;
	f->adj = 127 - bias;	/* the magnitude bits at an f32's exponent and mantissa */
	for (unsigned m = 1; m < 1u << mb; m++) {
		v = ldexp(m, f->lsb);
		memcpy(&u, &v, sizeof(u));
		f->sub16[m] = (uint16_t)(u >> 48);
	}
	return 1;
}

/*
 * A's preparation, a row a task (gemv_phase_tasks()): the buffers the tasks write, which
 * the job's const views then read, and what each row needs of the integer form.
 */
struct gemv_prep {
	double *av, *ablk;
	int *ga;
	int16_t *part[3];	/* E2M1: the integer form (gemv_int_alloc()), or NULL */
	int8_t *a8[3];		/* several rows with VNNI: the parts as bytes, */
	int32_t *acorr[3];	/* mxe_e2m1_a8_block() */
	int64_t *ebias;
	double *asum, *tr;
	int *lo, *hi;		/* [M][K / 32]: each block's lowest and highest bit */
	uint8_t *ones;
	/* per row: the parts its widest block needs (1 .. 3, 4: rounded, 0: NaN or Inf);
	 * its nonzero blocks' exponent span (-1: none); a block's exponent out of range */
	int need[GEMV_MAX_M], span[GEMV_MAX_M], out[GEMV_MAX_M];
	int parts, rounded;	/* all rows' (gemv_int_parts()) */
	unsigned phase_cols;	/* the columns' phase: 1, or 2 after the integer form's */
};

struct gemv_job {
	const struct mxe_op *op;
	struct wfmt w;
	const double *av;	/* M x K values of A, scales and negation applied */
	size_t lda;		/* its row stride (mxe_gemv_run()) */
	const double *ablk;	/* [K / 32][8 * groups]: sum |a| per block and row */
	const int *ga;		/* per row: lowest set bit exponent, INT_MAX: all zero */
	unsigned groups;	/* of 8 rows */
	int avx512;		/* else AVX2 */
	int vnni;		/* AVX512-VNNI (several rows' integer blocks) */
	int failed;
	/* E2M1 weights: the integer block path (gemv_int_finish()), or NULL; per row of A,
	 * row r's at r K / 32 blocks */
	const int16_t *a16;	/* [K / 32][32]: mxe_gemv_int.h's order (M = 1), else k's */
	const int16_t *part[3];	/* a16, then the next 15 bits up (times 2^15), the next */
	const int8_t *a8[3];	/* several rows with VNNI: the parts as bytes ([M K / 32][64]) */
	const int32_t *acorr[3];	/* and their blocks' corrections (mxe_e2m1_a8_block()) */
	unsigned parts;		/* 1 .. 3 */
	const double *tr;	/* [K / 32]: bound of sum |a - its integer form|, or NULL */
	const int64_t *ebias;	/* [K / 32]: a block factor's exponent field, less the scale */
	const double *asum;	/* [K / 32]: sum |a| of the block */
	const uint8_t *ones;	/* K / 32 scale bytes of 127, for weights without scales */
	/* one part, no rounding: the widest span of a row's nonzero blocks' exponents
	 * (gemv_int_cols_t()'s exact sums), else INT_MAX */
	int erange;
	struct gemv_prep prep;
};

/* outputs of the several-row kernels summed without a bound (gemv_sums_exact()) */
static uint64_t gemv_exact_sums;


/* 2^(s - 127 + adj) for block scale s (1 without scales); NaN for 0xFF. */
static inline double block_factor(const uint8_t *sc, size_t b, int adj)
{
	int e = adj + (sc ? (int)sc[b] - 127 : 0);
	uint64_t u = (uint64_t)(e + 1023) << 52;	/* -127 .. 142: normal */
	double f;

	if (sc && sc[b] == 0xFF)
		return NAN;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * The proofs for output (i, j): @s, in whatever order it was summed, is within @e of
 * the exact sum, and |every partial sum| <= @bound. If s - e and s + e round to the same
 * f32, that is the result. Else, if every product is a multiple of 2^g (the lowest bits
 * of row i and of the weights' grid under column j's smallest scale) and 2 bound <
 * 2^(g + 52), every partial sum was exact, so s is the exact sum: round it (a tie
 * among low-precision data is common). Returns 0 when neither holds. *@smin caches
 * the smallest of the column's scale codes @sc (127 without) for the column's other
 * rows, -1 until the second proof first needs it.
 */
static int gemv_scale_min(const uint8_t *sc, size_t nb);

static int gemv_store(const struct gemv_job *job, const uint8_t *sc, int *smin, size_t i, size_t j,
		      double s, double e, double bound)
{
	const struct mxe_op *op = job->op;
	float lo = (float)(s - e), hi = (float)(s + e);
	int g;

	if (!isfinite(s) || !isfinite(e))
		return 0;
	if (memcmp(&lo, &hi, sizeof(lo))) {
		if (job->ga[i] == INT_MAX || job->tr)	/* rounded blocks: no exact sum */
			return 0;
		if (*smin < 0)
			*smin = sc ? gemv_scale_min(sc, op->d.k / BLK) : 127;
		g = job->ga[i] + job->w.lsb + (sc ? *smin - 127 : 0);
		if (g + 52 < -1022 || g + 52 > 1023 || !(2 * bound < mxe_pow2(g + 52)))
			return 0;
	}
	mxe_op_store_d(op, i, j, (double)(float)s);
	return 1;
}

/*
 * A later column's row, to prefetch while this one is summed: the device hands the
 * weights row by row from guest pages that lie anywhere, where the hardware's
 * prefetchers (which stop at page boundaries) see no stream. About 8 KiB ahead, so
 * that weights streamed from DRAM (an LLM's, too large for any cache) arrive in time.
 */
static inline const uint8_t *gemv_next_row(const struct gemv_job *job, size_t j)
{
	size_t bytes = mxe_dtype_row_bytes(job->op->d.type_b, job->op->d.k);
	size_t ahead = bytes >= 8192 ? 1 : (8192 + bytes - 1) / bytes;

	return j + ahead < job->op->d.n ? mxe_op_b_row(job->op, j + ahead) : NULL;
}

/* What a kernel needs of column @j and row group @g. */
struct gemv_col {
	size_t k, nb;
	unsigned t, rows;		/* weight type, rows of A in the group (1..8) */
	const uint8_t *row, *sc;	/* the column's weights and scales (or NULL) */
	const double *a0;		/* the group's first row of A */
};

static struct gemv_col gemv_col(const struct gemv_job *job, size_t j, unsigned g)
{
	const struct mxe_op *op = job->op;
	struct gemv_col c = { .k = op->d.k, .nb = op->d.k / BLK, .t = op->d.type_b };

	c.rows = op->d.m - 8 * g < 8 ? (unsigned)(op->d.m - 8 * g) : 8;
	c.row = mxe_op_b_row(op, j);
	c.sc = op->scale_b ? mxe_op_b_scales(op, j) : NULL;
	c.a0 = job->av + (size_t)8 * g * job->lda;
	return c;
}

/*
 * A column's sums for a group's rows between spans of k (gemv_task()): per row its
 * lanes (AVX2: the first 4), and per row the bound of sum |a * b|.
 */
struct gemv_acc {
	double acc[8][8];
	double bnd[8];
	int nan;	/* an E4M3 NaN code among the weights */
	size_t j;	/* the column */
	unsigned g;	/* the group */
	struct gemv_col c;
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* gemv_store()'s smallest scale of a column's @nb, 127 at most (32 a step: a byte
 * loop took 8 % of a one-row GEMV, run at each column whose first proof fails). */
__attribute__((target("avx2")))
static int gemv_scale_min(const uint8_t *sc, size_t nb)
{
	int lo, hi;

	mxe_scale_range_avx2(sc, nb, &lo, &hi);
	return lo < 127 ? lo : 127;
}

/*
 * Blocks [@b0, @b1) of a column's weights and scales, to prefetch a span ahead: the
 * task's columns are as many streams through memory, more than the hardware's
 * prefetchers follow, and a span waiting for its lines stalls every row it runs.
 */
static inline void gemv_prefetch_span(const struct gemv_col *c, size_t b0, size_t b1,
				      size_t blk_bytes)
{
	b1 = b1 < c->nb ? b1 : c->nb;
	if (b0 >= b1)
		return;
	for (size_t off = b0 * blk_bytes; off < b1 * blk_bytes; off += 64)
		_mm_prefetch((const char *)c->row + off, _MM_HINT_T0);
	_mm_prefetch((const char *)c->row + b1 * blk_bytes - 1, _MM_HINT_T0);
	if (c->sc)
		_mm_prefetch((const char *)c->sc + b0, _MM_HINT_T0);
}

/*
 * The 32 byte-sized FP8 or FP6 codes (type @t) of block @b of @row times 2^@e (the
 * block's scale) as doubles, k's order, in @w. Each double's top 16 bits (sign,
 * exponent, the top 4 of the mantissa) hold every such value; they are made from the
 * codes in 16-bit lanes (a normal code's exponent and mantissa bits shifted into place
 * plus the exponent bias, a subnormal's from @sub, the format's sub16 loaded once a
 * span, @e added to the exponent of each nonzero code) and moved to the top of each 64-bit lane
 * by vpermw: all integer operations, where converting f16 patterns (vcvtph2ps,
 * vcvtps2pd) and multiplying by the scale bound a one-row GEMV. The layout comes from @t
 * (gemv_fp_layout(): immediates where @t is a constant; weight_fmt() checks it against
 * the format's definition). *@nan when a NaN or Inf code is among them.
 */
__attribute__((target("avx512f,avx512bw"), always_inline))
static inline void decode32_pd_avx512(unsigned t, __m512i sub, const uint8_t *row, size_t b,
				      int e, int *nan, __m512d w[4])
{
	const struct gemv_fp_layout l = gemv_fp_layout(t);
	__m512i c = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(row + b * 32)));
	__m512i m = _mm512_and_si512(c, _mm512_set1_epi16((short)l.mag)), h;
	__mmask32 nz = _mm512_test_epi16_mask(c, _mm512_set1_epi16((short)l.mag));
	__mmask32 subn = _mm512_testn_epi16_mask(c, _mm512_set1_epi16(
		(short)(l.mag & ~((1u << l.mbits) - 1))));	/* exponent field 0 */

	if (l.nan_mask == l.mag)
		*nan |= _mm512_cmpeq_epi16_mask(m, _mm512_set1_epi16((short)l.mag)) != 0;
	else if (l.nan_mask)
		*nan |= _mm512_cmpeq_epi16_mask(_mm512_and_si512(c, _mm512_set1_epi16((short)l.nan_mask)),
						_mm512_set1_epi16((short)l.nan_mask)) != 0;
	h = _mm512_add_epi16(_mm512_slli_epi16(m, (unsigned)(4 - l.mbits)),
			     _mm512_set1_epi16((short)((1023 - l.bias) << 4)));
	h = _mm512_mask_permutexvar_epi16(h, subn, m, sub);
	h = _mm512_mask_add_epi16(h, nz, h, _mm512_set1_epi16((short)(e * 16)));
	h = _mm512_ternarylogic_epi32(h, _mm512_slli_epi16(c, l.mag == 0x7f ? 8 : 10),
				      _mm512_set1_epi16((short)0x8000), 0xF8);	/* | sign & 0x8000 */
	for (int q = 0; q < 4; q++)	/* word 4i + 3 of vector q: word 8q + i of h */
		w[q] = _mm512_castsi512_pd(_mm512_maskz_permutexvar_epi16(
			0x88888888u, _mm512_add_epi16(_mm512_set_epi64(7ll << 48, 6ll << 48, 5ll << 48,
								       4ll << 48, 3ll << 48, 2ll << 48,
								       1ll << 48, 0),
						      _mm512_set1_epi16((short)(8 * q))), h));
}

/*
 * Blocks [@b0, @b1) of column @j for the rows of group @g, added to the sums in @st.
 * Inlined with the weight type @t and @rows constant where that pays
 * (gemv_span_avx512()): the accumulators then stay in registers.
 */
__attribute__((target("avx512f,avx512bw"), always_inline))
static inline void gemv_span_avx512_t(const struct gemv_job *job, struct gemv_acc *st,
				      size_t b0, size_t b1, unsigned t, unsigned rows)
{
	const struct gemv_col c = st->c;
	const size_t j = st->j;
	const unsigned g = st->g;
	const uint8_t *row = c.row, *sc = c.sc;
	const double *a0 = c.a0;
	__m512d acc[8], bnd = _mm512_loadu_pd(st->bnd);
	int nan = 0;

#pragma GCC unroll 8	/* the accumulators in registers, not in memory */
	for (unsigned r = 0; r < 8; r++)
		acc[r] = r < rows ? _mm512_loadu_pd(st->acc[r]) : _mm512_setzero_pd();
	const uint8_t *next = rows == 1 ? gemv_next_row(job, j) : NULL;
	const size_t blk_bytes = mxe_dtype_row_bytes(t, BLK);
	const __m512i sub = _mm512_loadu_si512(job->w.sub16);

	if (rows > 1 && g == 0)
		gemv_prefetch_span(&c, b1, b1 + (b1 - b0), blk_bytes);
	for (size_t b = b0; b < b1; b++) {
		if (next && !(b & 1))
			_mm_prefetch((const char *)next + b * blk_bytes, _MM_HINT_T0);
		double f = block_factor(sc, b, 0);
		__m512d w[4];	/* the block's weights times its scale (exact: a power of two) */

		if (t == MXA_DTYPE_E2M1) {
			/* table lookups, activations stored even k then odd k per 16 */
			__m512d fv = _mm512_set1_pd(f);
			__m512d tl = _mm512_mul_pd(_mm512_setr_pd(0, 0.5, 1, 1.5, 2, 3, 4, 6), fv);
			__m512d th = _mm512_mul_pd(_mm512_setr_pd(-0.0, -0.5, -1, -1.5, -2, -3, -4, -6), fv);

			for (int h = 0; h < 2; h++) {
				__m512i q = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(row + b * 16 + 8 * h)));

				w[2 * h] = _mm512_permutex2var_pd(tl, _mm512_and_si512(q, _mm512_set1_epi64(15)), th);
				w[2 * h + 1] = _mm512_permutex2var_pd(tl, _mm512_srli_epi64(q, 4), th);
			}
		} else if (t == MXA_DTYPE_MXINT8) {
			__m512i x = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(row + b * 32)));
			__m512i y = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(row + b * 32 + 16)));
			__m512 xf = _mm512_cvtepi32_ps(x), yf = _mm512_cvtepi32_ps(y);
			__m512d fv = _mm512_set1_pd(f * 0x1p-6);	/* MXINT8: int8 / 64 */

			w[0] = _mm512_cvtps_pd(_mm512_castps512_ps256(xf));
			w[1] = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(xf), 1)));
			w[2] = _mm512_cvtps_pd(_mm512_castps512_ps256(yf));
			w[3] = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(yf), 1)));
#pragma GCC unroll 4	/* a loop kept w[] on the stack: a store and reload per block */
			for (int q = 0; q < 4; q++)
				w[q] = _mm512_mul_pd(w[q], fv);
		} else {	/* a NaN scale (0xFF) makes f, so the bound, NaN: redone */
			decode32_pd_avx512(t, sub, row, b, sc ? (int)sc[b] - 127 : 0, &nan, w);
		}
		if (rows == 1) {
			/* the block's products summed, then added: per lane still K / 8
			 * additions, as with four chains */
			const double *a = a0 + b * BLK;
			__m512d p = _mm512_mul_pd(_mm512_loadu_pd(a), w[0]);

			for (int q = 1; q < 4; q++)
				p = _mm512_fmadd_pd(_mm512_loadu_pd(a + 8 * q), w[q], p);
			acc[0] = _mm512_add_pd(p, acc[0]);
		} else {
#pragma GCC unroll 8
			for (unsigned r = 0; r < rows; r++) {
				const double *a = a0 + r * job->lda + b * BLK;

				acc[r] = _mm512_fmadd_pd(_mm512_loadu_pd(a), w[0], acc[r]);
				acc[r] = _mm512_fmadd_pd(_mm512_loadu_pd(a + 8), w[1], acc[r]);
				acc[r] = _mm512_fmadd_pd(_mm512_loadu_pd(a + 16), w[2], acc[r]);
				acc[r] = _mm512_fmadd_pd(_mm512_loadu_pd(a + 24), w[3], acc[r]);
			}
		}
		bnd = _mm512_fmadd_pd(_mm512_loadu_pd(job->ablk + (b * job->groups + g) * 8),
				      _mm512_set1_pd(f * job->w.max), bnd);
	}
#pragma GCC unroll 8
	for (unsigned r = 0; r < rows; r++)
		_mm512_storeu_pd(st->acc[r], acc[r]);
	_mm512_storeu_pd(st->bnd, bnd);
	st->nan |= nan;
}

/*
 * A span kernel's entry for one SIMD level: @kernel (always inline) with the weight
 * type and the row count constant for one and for eight rows of E4M3, E5M2 or E2M1
 * weights, where the accumulators then stay in registers; variables otherwise.
 */
#define GEMV_SPAN_TYPES(kernel, rows)							\
	switch (st->c.t) {								\
	case MXA_DTYPE_E4M3:								\
		kernel(job, st, b0, b1, MXA_DTYPE_E4M3, rows);				\
		return;									\
	case MXA_DTYPE_E5M2:								\
		kernel(job, st, b0, b1, MXA_DTYPE_E5M2, rows);				\
		return;									\
	case MXA_DTYPE_E2M1:								\
		kernel(job, st, b0, b1, MXA_DTYPE_E2M1, rows);				\
		return;									\
	default:									\
		kernel(job, st, b0, b1, st->c.t, rows);					\
		return;									\
	}
#define GEMV_SPAN_ENTRY(name, kernel, isa)						\
__attribute__((target(isa)))								\
static void name(const struct gemv_job *job, struct gemv_acc *st, size_t b0, size_t b1)	\
{											\
	if (st->c.rows == 1)								\
		GEMV_SPAN_TYPES(kernel, 1)						\
	if (st->c.rows == 8)								\
		GEMV_SPAN_TYPES(kernel, 8)						\
	kernel(job, st, b0, b1, st->c.t, st->c.rows);					\
}

GEMV_SPAN_ENTRY(gemv_span_avx512, gemv_span_avx512_t, "avx512f,avx512bw")

/* The rows of @st that could not be stored (gemv_store()), as a mask. */
__attribute__((target("avx512f,avx512bw")))
static unsigned gemv_finish_avx512(const struct gemv_job *job, const struct gemv_acc *st)
{
	double e = (double)(st->c.k / 8 + 8) * 0x1p-52;
	unsigned redo = 0;
	int smin = -1;

	for (unsigned r = 0; r < st->c.rows; r++)
		if (st->nan || !gemv_store(job, st->c.sc, &smin, 8 * st->g + r, st->j,
					   _mm512_reduce_add_pd(_mm512_loadu_pd(st->acc[r])),
					   e * st->bnd[r], st->bnd[r]))
			redo |= 1u << r;
	return redo;
}
#define GEMV_HAVE_AVX512 1

/* Eight weights from 8 codes (bytes, or E2M1 nibbles already split) as floats. */
__attribute__((target("avx2,fma"), always_inline))
static inline __m256 decode8_avx2(unsigned t, __m256i x)
{
	switch (t) {
	case MXA_DTYPE_E2M1: {
		__m256 mag = _mm256_permutevar8x32_ps(_mm256_setr_ps(0, 0.5, 1, 1.5, 2, 3, 4, 6), x);
		__m256i sign = _mm256_slli_epi32(_mm256_and_si256(x, _mm256_set1_epi32(8)), 28);

		return _mm256_xor_ps(mag, _mm256_castsi256_ps(sign));
	}
	case MXA_DTYPE_MXINT8:
		return _mm256_cvtepi32_ps(_mm256_srai_epi32(_mm256_slli_epi32(x, 24), 24));
	default: {	/* FP6, which has no NaN (FP8: gemv_span_avx2_t() decodes it from
			 * sign-extended codes): f32 patterns whose value times 2^adj is
			 * the weight's, the sign (bit 5) moved to bit 31 */
		const struct gemv_fp_layout l = gemv_fp_layout(t);

		return _mm256_castsi256_ps(_mm256_or_si256(
			_mm256_slli_epi32(_mm256_and_si256(x, _mm256_set1_epi32((int)l.mag)), 23 - l.mbits),
			_mm256_slli_epi32(_mm256_and_si256(x, _mm256_set1_epi32((int)l.mag + 1)), 26)));
	}
	}
}

/* gemv_span_avx512_t() on AVX2 (f32 patterns, some denormal: exact in a double). */
__attribute__((target("avx2,fma"), always_inline))
static inline void gemv_span_avx2_t(const struct gemv_job *job, struct gemv_acc *st,
				    size_t b0, size_t b1, unsigned t, unsigned rows)
{
	const struct gemv_col c = st->c;
	const size_t j = st->j;
	const unsigned g = st->g;
	const uint8_t *row = c.row, *sc = c.sc;
	const double *a0 = c.a0;
	__m256d acc[8], bnd[2] = { _mm256_loadu_pd(st->bnd), _mm256_loadu_pd(st->bnd + 4) };

#pragma GCC unroll 8	/* the accumulators in registers, not in memory */
	for (unsigned r = 0; r < 8; r++)
		acc[r] = r < rows ? _mm256_loadu_pd(st->acc[r]) : _mm256_setzero_pd();
	const uint8_t *next = rows == 1 ? gemv_next_row(job, j) : NULL;
	const size_t blk_bytes = mxe_dtype_row_bytes(t, BLK);
	const struct gemv_fp_layout l = gemv_fp_layout(t);
	const int fp8 = (t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2);
	const __m256i fp8_mask = _mm256_set1_epi32((int)(0x80000000u | l.mag << (23 - l.mbits)));
	__m256i nanv = _mm256_setzero_si256();

	if (rows > 1 && g == 0)
		gemv_prefetch_span(&c, b1, b1 + (b1 - b0), blk_bytes);
	for (size_t b = b0; b < b1; b++) {
		if (next && !(b & 1))
			_mm_prefetch((const char *)next + b * blk_bytes, _MM_HINT_T0);
		double f = block_factor(sc, b, 0);
		__m256d fv = _mm256_set1_pd(t == MXA_DTYPE_MXINT8 ? f * 0x1p-6 :
					    f * mxe_pow2(job->w.adj));
		__m256 wf[4];

		if (t == MXA_DTYPE_E2M1) {	/* even k, then odd k, per 16 */
			for (int h = 0; h < 2; h++) {
				__m256i q = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(row + b * 16 + 8 * h)));

				wf[2 * h] = decode8_avx2(t, _mm256_and_si256(q, _mm256_set1_epi32(15)));
				wf[2 * h + 1] = decode8_avx2(t, _mm256_srli_epi32(q, 4));
			}
		} else if (fp8) {
			/* sign-extended codes: one shift and one mask give the f32 pattern; the
			 * block's 32 codes that are no number (both FP8 formats have some)
			 * ORed up, tested once a span */
			const __m256i m = _mm256_set1_epi8((char)l.nan_mask);

			nanv = _mm256_or_si256(nanv, _mm256_cmpeq_epi8(_mm256_and_si256(
				_mm256_loadu_si256((const __m256i *)(row + b * 32)), m), m));
#pragma GCC unroll 4	/* wf[] in registers: a loop stored and reloaded them */
			for (int q = 0; q < 4; q++)
				wf[q] = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(
						_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(row + b * 32 + 8 * q))),
						23 - (int)l.mbits), fp8_mask));
		} else {
			for (int q = 0; q < 4; q++)
				wf[q] = decode8_avx2(t, _mm256_cvtepu8_epi32(_mm_loadl_epi64(
							(const __m128i *)(row + b * 32 + 8 * q))));
		}
		if (rows == 1) {	/* as on AVX-512: K / 4 additions per lane */
			/* two chains of the block's products (a chain of 8 held the loop
			 * back), then one sum: the same number of additions */
			const double *a = a0 + b * BLK;
			__m256d p[2];

#pragma GCC unroll 2
			for (int h = 0; h < 2; h++) {
				p[h] = _mm256_mul_pd(_mm256_loadu_pd(a + 16 * h),
						     _mm256_cvtps_pd(_mm256_castps256_ps128(wf[2 * h])));
				p[h] = _mm256_fmadd_pd(_mm256_loadu_pd(a + 16 * h + 4),
						       _mm256_cvtps_pd(_mm256_extractf128_ps(wf[2 * h], 1)), p[h]);
				p[h] = _mm256_fmadd_pd(_mm256_loadu_pd(a + 16 * h + 8),
						       _mm256_cvtps_pd(_mm256_castps256_ps128(wf[2 * h + 1])), p[h]);
				p[h] = _mm256_fmadd_pd(_mm256_loadu_pd(a + 16 * h + 12),
						       _mm256_cvtps_pd(_mm256_extractf128_ps(wf[2 * h + 1], 1)), p[h]);
			}
			p[0] = _mm256_add_pd(p[0], p[1]);
			acc[0] = _mm256_fmadd_pd(p[0], fv, acc[0]);
		} else {
			/* eight weights at a time into every row: few registers for them */
			for (int q = 0; q < 4; q++) {
				__m256d w0 = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(wf[q])), fv);
				__m256d w1 = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(wf[q], 1)), fv);

#pragma GCC unroll 8
				for (unsigned r = 0; r < rows; r++) {
					const double *a = a0 + r * job->lda + b * BLK + 8 * q;

					acc[r] = _mm256_fmadd_pd(_mm256_loadu_pd(a), w0, acc[r]);
					acc[r] = _mm256_fmadd_pd(_mm256_loadu_pd(a + 4), w1, acc[r]);
				}
			}
		}
		for (int h = 0; h < 2; h++)
			bnd[h] = _mm256_fmadd_pd(_mm256_loadu_pd(job->ablk + (b * job->groups + g) * 8 + 4 * h),
						 _mm256_set1_pd(f * job->w.max), bnd[h]);
	}
#pragma GCC unroll 8
	for (unsigned r = 0; r < rows; r++)
		_mm256_storeu_pd(st->acc[r], acc[r]);
	_mm256_storeu_pd(st->bnd, bnd[0]);
	_mm256_storeu_pd(st->bnd + 4, bnd[1]);
	st->nan |= !_mm256_testz_si256(nanv, nanv);
}

GEMV_SPAN_ENTRY(gemv_span_avx2, gemv_span_avx2_t, "avx2,fma")

/* gemv_finish_avx512() of gemv_span_avx2()'s sums. */
static unsigned gemv_finish_avx2(const struct gemv_job *job, const struct gemv_acc *st)
{
	double e = (double)(st->c.k / 4 + 8) * 0x1p-52;
	unsigned redo = 0;
	int smin = -1;

	for (unsigned r = 0; r < st->c.rows; r++) {
		const double *l = st->acc[r];

		if (st->nan || !gemv_store(job, st->c.sc, &smin, 8 * st->g + r, st->j, (l[0] + l[1]) + (l[2] + l[3]),
					   e * st->bnd[r], st->bnd[r]))
			redo |= 1u << r;
	}
	return redo;
}
#define GEMV_HAVE_AVX2 1

/*
 * The integer block kernels: E2M1 weights, one row of A. Each block of A is an int16
 * vector times 2^E (gemv_int_row_form()), each weight an integer times 2^-1, so a
 * block's 32 products sum exactly in int32 (|a| < 2^15, |w| <= 12); the sum times the
 * block's factor 2^(E - 1) 2^(scale - 127) is exact in a double, and the blocks add up
 * in double chains as on the other kernels (fewer additions: the same proof holds).
 * A decode is one table lookup (pshufb) per 16 codes, a block's products one
 * multiply-add of 16-bit pairs, so streaming the weights costs a few instructions
 * per 16 bytes. Block factors come 8 (AVX2: 4) at a time from the scale bytes;
 * a NaN scale (0xFF) hands the column to the general path, and so does a sum of
 * zero, whose sign the integers lose.
 */
#define GEMV_INT_CHUNK 64	/* block factors computed ahead, per column */
#define GEMV_PART_BITS 15	/* bits of A per int16 part (gemv_int_row_form()) */
/* what each part of A weighs: 2^(15 i) */
static const double gemv_part_weight[3] = { 1.0, 0x1p15, 0x1p30 };

/* Blocks @b and @b + 1 (b even) of A's int16 form (mxe_gemv_int.h) as doubles, 8 lanes each. */
__attribute__((target("avx512f,avx512bw")))
static inline void int_pair_avx512(const uint8_t *row, const int16_t *a16, size_t b,
				   __m512i lut, __m512d *d0, __m512d *d1)
{
	__m512i p = mxe_e2m1_pair_avx512(row, a16, b, lut);

	*d0 = _mm512_cvtepi32_pd(_mm512_castsi512_si256(p));
	*d1 = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(p, 1));
}

/* A lone last block @b (A stored [even k | odd k]): 32 products to 8 doubles. */
__attribute__((target("avx512f,avx512bw")))
static inline __m512d int_block_avx512(const uint8_t *row, const int16_t *a16, size_t b,
				       __m128i lut)
{
	const __m128i m4 = _mm_set1_epi8(15);
	__m128i x = _mm_loadu_si128((const __m128i *)(row + b * 16));
	__m128i lo = _mm_shuffle_epi8(lut, _mm_and_si128(x, m4));
	__m128i hi = _mm_shuffle_epi8(lut, _mm_and_si128(_mm_srli_epi16(x, 4), m4));
	__m512i w = _mm512_cvtepi8_epi16(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1));
	__m512i p = _mm512_madd_epi16(w, _mm512_loadu_si512(a16 + b * BLK));

	return _mm512_cvtepi32_pd(_mm256_add_epi32(_mm512_castsi512_si256(p),
						   _mm512_extracti64x4_epi64(p, 1)));
}

/* Blocks b, b + 1 over every part of A (exact: every lane |sum| < 2^51). */
__attribute__((target("avx512f,avx512bw")))
static inline void int_pairs_avx512(const struct gemv_job *job, const uint8_t *row, size_t b,
				    __m512i lut, __m512d *d0, __m512d *d1)
{
	int_pair_avx512(row, job->part[0], b, lut, d0, d1);
	for (unsigned i = 1; i < job->parts; i++) {
		__m512d h0, h1, f = _mm512_set1_pd(gemv_part_weight[i]);

		int_pair_avx512(row, job->part[i], b, lut, &h0, &h1);
		*d0 = _mm512_fmadd_pd(h0, f, *d0);
		*d1 = _mm512_fmadd_pd(h1, f, *d1);
	}
}

/*
 * Blocks @b .. @b + 15 (b even) over every part of A as doubles, *@lo blocks b .. b + 7
 * and *@hi the next eight, each half in the order of mxe_e2m1_sums16_lanes. Exact: a
 * lane is one block's sum, |sum| <= 32 x 12 x 2^44 < 2^53 (|n| <= 2^44 over the parts),
 * and the first two parts' < 32 x 12 x 2^30.
 */
__attribute__((target("avx512f,avx512bw"), always_inline))
static inline void int_sums16_avx512(const struct gemv_job *job, const uint8_t *row, size_t b,
				     __m512i lut, const uint8_t *next, __m512d *lo, __m512d *hi)
{
	__m512i r[3];

	if (job->parts == 1)
		r[0] = mxe_e2m1_sums16_avx512(row, job->part[0], b, lut, next);
	else if (job->parts == 2)
		mxe_e2m1_sums16_parts_avx512(row, job->part, 2, b, lut, next, r);
	else
		mxe_e2m1_sums16_parts_avx512(row, job->part, 3, b, lut, next, r);
	*lo = _mm512_cvtepi32_pd(_mm512_castsi512_si256(r[0]));
	*hi = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(r[0], 1));
	for (unsigned i = 1; i < job->parts; i++) {
		__m512d f = _mm512_set1_pd(gemv_part_weight[i]);

		*lo = _mm512_fmadd_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(r[i])), f, *lo);
		*hi = _mm512_fmadd_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(r[i], 1)), f, *hi);
	}
}

/* A lone last block over every part of A's row whose form starts @off values in. */
__attribute__((target("avx512f,avx512bw")))
static inline __m512d int_blocks_avx512(const struct gemv_job *job, const uint8_t *row, size_t b,
					__m128i lut, size_t off)
{
	__m512d d = int_block_avx512(row, job->part[0] + off, b, lut);

	for (unsigned i = 1; i < job->parts; i++)
		d = _mm512_fmadd_pd(int_block_avx512(row, job->part[i] + off, b, lut),
				    _mm512_set1_pd(gemv_part_weight[i]), d);
	return d;
}

__attribute__((target("avx512f,avx512bw")))
static unsigned gemv_int_column_avx512(const struct gemv_job *job, size_t j)
{
	struct gemv_col c = gemv_col(job, j, 0);
	const uint8_t *sc = c.sc ? c.sc : job->ones;
	const __m128i lut = _mm_setr_epi8(MXE_E2M1_INT_LUT);
	const __m512i lut16 = mxe_e2m1_lut_avx512();
	__m512d acc0 = _mm512_setzero_pd(), acc1 = acc0, bnd = acc0, tbnd = acc0;
	__m512i nan = _mm512_setzero_si512();
	double fac[GEMV_INT_CHUNK], s, e, bound;
	const uint8_t *next = gemv_next_row(job, j);
	/* lane t of int_sums16_avx512()'s halves: block lanes[t] of their eight */
	const __m512i lanes = _mm512_cvtepi32_epi64(
		_mm256_load_si256((const __m256i *)mxe_e2m1_sums16_lanes));

	for (size_t b0 = 0; b0 < c.nb; b0 += GEMV_INT_CHUNK) {
		size_t n = c.nb - b0 < GEMV_INT_CHUNK ? c.nb - b0 : GEMV_INT_CHUNK, b;

		for (b = 0; b + 8 <= n; b += 8) {
			__m512i s8 = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(sc + b0 + b)));
			__m512i f = _mm512_add_epi64(s8, _mm512_loadu_si512(job->ebias + b0 + b));
			__m512i sf = _mm512_add_epi64(s8, _mm512_set1_epi64(1023 - 127));

			nan = _mm512_or_si512(nan, _mm512_maskz_set1_epi64(
				_mm512_cmpeq_epi64_mask(s8, _mm512_set1_epi64(0xFF)), 1));
			_mm512_storeu_pd(fac + b, _mm512_castsi512_pd(_mm512_slli_epi64(f, 52)));
			bnd = _mm512_fmadd_pd(_mm512_loadu_pd(job->asum + b0 + b),
					      _mm512_castsi512_pd(_mm512_slli_epi64(sf, 52)), bnd);
			if (job->tr)
				tbnd = _mm512_fmadd_pd(_mm512_loadu_pd(job->tr + b0 + b),
						       _mm512_castsi512_pd(_mm512_slli_epi64(sf, 52)), tbnd);
		}
		for (; b < n; b++) {	/* K / 32 not a multiple of 8 */
			double f = block_factor(sc, b0 + b, 0);

			nan = _mm512_or_si512(nan, _mm512_set1_epi64(sc[b0 + b] == 0xFF));
			fac[b] = f * mxe_pow2((int)job->ebias[b0 + b] - 1023 + 127);
			bnd = _mm512_add_pd(bnd, _mm512_maskz_mov_pd(1, _mm512_set1_pd(job->asum[b0 + b] * f)));
			if (job->tr)
				tbnd = _mm512_add_pd(tbnd, _mm512_maskz_mov_pd(1, _mm512_set1_pd(job->tr[b0 + b] * f)));
		}
		/* 16 blocks' integer sums at a time (one vector), then pairs; two chains
		 * (FMA latency), named so that they stay in registers */
		for (b = 0; b + 16 <= n; b += 16) {
			__m512d lo, hi;

			int_sums16_avx512(job, c.row, b0 + b, lut16, next, &lo, &hi);
			acc0 = _mm512_fmadd_pd(lo, _mm512_permutexvar_pd(lanes, _mm512_loadu_pd(fac + b)), acc0);
			acc1 = _mm512_fmadd_pd(hi, _mm512_permutexvar_pd(lanes, _mm512_loadu_pd(fac + b + 8)),
					       acc1);
		}
		for (; b + 2 <= n; b += 2) {
			__m512d p0, p1;

			if (next && !(b & 3))
				_mm_prefetch((const char *)next + (b0 + b) * 16, _MM_HINT_T0);
			int_pairs_avx512(job, c.row, b0 + b, lut16, &p0, &p1);
			acc0 = _mm512_fmadd_pd(p0, _mm512_set1_pd(fac[b]), acc0);
			acc1 = _mm512_fmadd_pd(p1, _mm512_set1_pd(fac[b + 1]), acc1);
		}
		if (b < n) {
			__m512d p0 = int_blocks_avx512(job, c.row, b0 + b, lut, 0);

			acc0 = _mm512_fmadd_pd(p0, _mm512_set1_pd(fac[b]), acc0);
		}
	}
	if (_mm512_test_epi64_mask(nan, nan))
		return 1;
	s = _mm512_reduce_add_pd(_mm512_add_pd(acc0, acc1));
	bound = _mm512_reduce_add_pd(bnd) * job->w.max;
	e = (double)(c.k / 8 + 8) * 0x1p-52 * bound + _mm512_reduce_add_pd(tbnd) * job->w.max;
	return s == 0 || !gemv_store(job, c.sc, &(int){ -1 }, 0, j, s, e, bound);
}

/*
 * Row @r's outputs of the task's @nc columns from @j0 (sums @s, the proof's bounds @bd
 * and @tb): those that neither a NaN scale (@nan) nor gemv_store() stops, stored; the
 * others returned as a mask of columns. @mins: the columns' smallest scale codes.
 */
__attribute__((target("avx2")))
static uint16_t int_cols_store(const struct gemv_job *job, size_t j0, size_t nc, size_t r,
			       const double s[16], const double bd[16], const double tb[16],
			       unsigned nan, const uint8_t mins[16], const uint8_t *const srows[16])
{
	/* gemv_store()'s first proof on vectors: where s - e and s + e round to the same
	 * f32, s does too, and the row stores at once when every column has it */
	const __m256d wmax = _mm256_set1_pd(job->w.max), sgn = _mm256_set1_pd(-0.0);
	const __m256d ke = _mm256_set1_pd((double)(job->op->d.k / 8 + 8) * 0x1p-52);
	const __m256d inf = _mm256_set1_pd(INFINITY);
	const unsigned lanes = (1u << nc) - 1;
	double bounds[16], errs[16];	/* for the columns that go on to gemv_store() */
	float out[16];
	unsigned ok = 0;
	uint16_t redo = 0;

	for (unsigned c = 0; c < 16; c += 4) {
		__m256d sv = _mm256_loadu_pd(s + c), bound = _mm256_mul_pd(_mm256_loadu_pd(bd + c), wmax);
		__m256d e = _mm256_add_pd(_mm256_mul_pd(ke, bound),
					  _mm256_mul_pd(_mm256_loadu_pd(tb + c), wmax));
		__m128i lo = _mm_castps_si128(_mm256_cvtpd_ps(_mm256_sub_pd(sv, e)));
		__m128i hi = _mm_castps_si128(_mm256_cvtpd_ps(_mm256_add_pd(sv, e)));
		__m256d fine = _mm256_and_pd(_mm256_cmp_pd(_mm256_andnot_pd(sgn, sv), inf, _CMP_LT_OQ),
					     _mm256_cmp_pd(_mm256_andnot_pd(sgn, e), inf, _CMP_LT_OQ));

		fine = _mm256_and_pd(fine, _mm256_cmp_pd(sv, _mm256_setzero_pd(), _CMP_NEQ_OQ));
		ok |= (unsigned)(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(lo, hi))) &
				 _mm256_movemask_pd(fine)) << c;
		_mm_storeu_ps(out + c, _mm256_cvtpd_ps(sv));
		_mm256_storeu_pd(bounds + c, bound);
		_mm256_storeu_pd(errs + c, e);
	}
	ok &= ~nan & lanes;
	if (ok == lanes) {
		mxe_op_store_row_f32(job->op, r, j0, out, nc);
		return 0;
	}
	for (unsigned c = 0; c < nc; c++) {
		if ((ok >> c) & 1)
			mxe_op_store_d(job->op, r, j0 + c, out[c]);
		else if (((nan >> c) & 1) || s[c] == 0 ||
			 !gemv_store(job, job->op->scale_b ? srows[c] : NULL, &(int){ mins[c] }, r,
				     j0 + c, s[c], errs[c], bounds[c]))
			redo |= (uint16_t)(1u << c);
	}
	return redo;
}

/*
 * The row's part of block @rb's factor, 2^(e - 1), as a term to add to the exponent
 * field of the scales' 2^(s - 127): the sum stays a normal double (job->ebias).
 */
static inline uint64_t int_cols_exp(const struct gemv_job *job, size_t rb)
{
	return (uint64_t)(job->ebias[rb] + 127 - 1023) << 52;
}

/*
 * Whether the several-row kernels' double sums are exact for the task's @nc columns
 * (scales @srows, @nb each), so that they need no bound: with one part and no
 * rounding, a block's integer sum is below 2^24 and times 2^E (E its row's exponent
 * plus the column's scale); where every row's nonzero blocks' E span at most
 * R = 29 - ceil(log2(nb)) bits, each partial sum is a multiple of the smallest grid
 * below 2^53 of it, and every addition is exact. The sum s is then the exact sum,
 * rounded once to f32 by the store (zero sums, whose sign the integers lose, and NaN
 * scales still go to the general path).
 */
__attribute__((target("avx2")))
static int gemv_sums_exact(const struct gemv_job *job, const uint8_t *const srows[16], size_t nc,
			   size_t nb)
{
	int r = 29, srange = 0;

	for (size_t n = 1; n < nb; n *= 2)
		r--;
	if (job->erange > r)
		return 0;
	for (size_t c = 0; c < nc && job->op->scale_b; c++) {
		int lo, hi;

		mxe_scale_range_avx2(srows[c], nb, &lo, &hi);
		srange = hi - lo > srange ? hi - lo : srange;
	}
	if (job->erange + srange > r)
		return 0;
	__atomic_add_fetch(&gemv_exact_sums, job->op->d.m * nc, __ATOMIC_RELAXED);
	return 1;
}

/*
 * Block rb % K / 32 of row rb / (K / 32) of A's form (@parts of it) against @groups
 * of 16 columns: their pairs @wp (one group), or with VNNI their bytes @wb, each of A's
 * bytes loaded once for both groups (mxe_e2m1_a8_dot2_avx512()); the int32 sums (four
 * chains a group), then into the row's @acc (times the scales @sf and the row's factor)
 * and the proof's bounds.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void int_cols_row(const struct gemv_job *job, const __m512i wp[16],
				const __m512i wb[2][8], const __m512i cs[2], const __m512d sf[2][2],
				size_t rb, unsigned parts, int tr, int vnni, int groups, int bound,
				__m512d acc[2][2], __m512d bnd[2][2], __m512d tbnd[2][2])
{
	__m512d t[2][2] = { { _mm512_setzero_pd(), _mm512_setzero_pd() },
			    { _mm512_setzero_pd(), _mm512_setzero_pd() } };
	const __m512i f = _mm512_set1_epi64((long long)int_cols_exp(job, rb));
	const __m512d as = _mm512_set1_pd(job->asum[rb]);

	for (unsigned p = 0; p < parts; p++) {
		__m512i q[2];

		if (vnni) {
			const int32_t *a8 = (const int32_t *)(job->a8[p] + rb * 2 * BLK);
			const __m512i corr = _mm512_set1_epi32(job->acorr[p][rb]);

			if (groups == 2) {
				const __m512i init[2] = { _mm512_add_epi32(cs[0], corr),
							  _mm512_add_epi32(cs[1], corr) };

				mxe_e2m1_a8_dot2_avx512(wb, a8, init, q);
			} else {
				q[0] = mxe_e2m1_a8_dot_avx512(wb[0], a8, 0, 8, _mm512_add_epi32(cs[0], corr));
			}
		} else {
			const int32_t *a = (const int32_t *)(job->part[p] + rb * BLK);
			__m512i q4[4];

			_Pragma("GCC unroll 4")
			for (int i = 0; i < 4; i++)
				q4[i] = _mm512_setzero_si512();
			_Pragma("GCC unroll 16")
			for (int i = 0; i < 16; i++)
				q4[i % 4] = _mm512_add_epi32(q4[i % 4], _mm512_madd_epi16(wp[i],
							     _mm512_set1_epi32(a[i])));
			q[0] = _mm512_add_epi32(_mm512_add_epi32(q4[0], q4[1]), _mm512_add_epi32(q4[2], q4[3]));
		}
		_Pragma("GCC unroll 2")
		for (int g = 0; g < groups; g++)
			_Pragma("GCC unroll 2")
			for (int h = 0; h < 2; h++) {
				__m512d d = _mm512_cvtepi32_pd(h ? _mm512_extracti64x4_epi64(q[g], 1) :
								   _mm512_castsi512_si256(q[g]));

				t[g][h] = p ? _mm512_fmadd_pd(d, _mm512_set1_pd(gemv_part_weight[p]), t[g][h]) : d;
			}
	}
	_Pragma("GCC unroll 2")
	for (int g = 0; g < groups; g++)
		_Pragma("GCC unroll 2")
		for (int h = 0; h < 2; h++) {
			acc[g][h] = _mm512_fmadd_pd(t[g][h], _mm512_castsi512_pd(_mm512_add_epi64(
				_mm512_castpd_si512(sf[g][h]), f)), acc[g][h]);
			if (bound)
				bnd[g][h] = _mm512_fmadd_pd(sf[g][h], as, bnd[g][h]);
			if (tr)
				tbnd[g][h] = _mm512_fmadd_pd(sf[g][h], _mm512_set1_pd(job->tr[rb]), tbnd[g][h]);
		}
}

/*
 * Several rows of A (AVX-512): the task's 16 @groups columns are the lanes of @groups
 * vectors (two with VNNI, one without). Each block's codes of the columns are
 * transposed and looked up once, then every row of A adds the block in int32 lanes:
 * with VNNI 16 vpdpbusd a group, each on four of the weights' bytes and four of A's
 * (mxe_cols16_bytes_avx512(), mxe_e2m1_a8_block()), A's bytes loaded once for both
 * groups, else one vpmaddwd and vpaddd a pair of k on the int16 pairs, A's pair
 * broadcast from its form in k order: no horizontal sums, and A's form is read once per
 * task, where column by column its 64 KiB (8 rows of K = 4096) streamed from L2 for
 * every column. A lane's block sum is exact (|sum| <= 32 x 12 x 2^15 < 2^24; over the
 * parts < 2^53 in a double), times the exact factor 2^(s - 127) 2^(e - 1), added into
 * one double chain per row and column, in the proof's bound (K / 32 adds). Returns,
 * per row, a mask of the task's columns whose proofs failed (@redo), for the general
 * path. A group whose sums are exact (gemv_sums_exact()) needs no bound: its bounds
 * are dropped where the other group's are kept.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline))
static inline void gemv_int_cols_t(const struct gemv_job *job, size_t j0, int vnni, int groups,
				   uint32_t redo[GEMV_MAX_M])
{
	const struct mxe_op *op = job->op;
	const size_t m = op->d.m, nb = op->d.k / BLK, n = op->d.n;
	const size_t nc = n - j0 < 16 * (size_t)groups ? n - j0 : 16 * (size_t)groups;
	const __m512i lut = mxe_e2m1_lut_avx512();
	const uint8_t *rows[32], *srows[32];
	struct mxe_cols16 cols[2];
	__m512d acc[GEMV_MAX_M][2][2], bnd[GEMV_MAX_M][2][2], tbnd[GEMV_MAX_M][2][2];
	__mmask16 nan[2] = { 0, 0 };
	__m128i smin[2];	/* per column, for gemv_store() */
	uint8_t mins[2][16];
	size_t gc[2];		/* the group's columns that are the task's */
	int exact[2] = { 1, 1 };

	for (unsigned c = 0; c < 16 * (unsigned)groups; c++) {	/* past N: the last one's */
		rows[c] = mxe_op_b_row(op, j0 + (c < nc ? c : nc - 1));
		srows[c] = op->scale_b ? mxe_op_b_scales(op, j0 + (c < nc ? c : nc - 1)) : job->ones;
	}
	for (int g = 0; g < groups; g++) {
		gc[g] = mxe_cols16_group_cols(nc, g);
		exact[g] = gemv_sums_exact(job, srows + 16 * g, gc[g], nb);
		mxe_cols16_init(&cols[g], rows + 16 * g, srows + 16 * g, nb, nb);
		smin[g] = _mm_set1_epi8((char)0xFF);
	}
	for (size_t r = 0; r < m; r++)
		for (int g = 0; g < 2; g++)
			for (int h = 0; h < 2; h++)
				acc[r][g][h] = bnd[r][g][h] = tbnd[r][g][h] = _mm512_setzero_pd();
	for (size_t b = 0; b < nb; b++) {
		__m512i wp[16], wb[2][8], cs[2] = { _mm512_setzero_si512(), _mm512_setzero_si512() };
		__m512d sf[2][2];

		_Pragma("GCC unroll 2")
		for (int g = 0; g < groups; g++) {
			__m128i s8 = mxe_cols16_scales_avx512(&cols[g], b, 127);

			cs[g] = mxe_cols16_block_avx512(&cols[g], b, vnni, lut, wb[g], wp);
			nan[g] |= _mm_cmpeq_epi8_mask(s8, _mm_set1_epi8((char)0xFF));
			smin[g] = _mm_min_epu8(smin[g], s8);
			_Pragma("GCC unroll 2")
			for (int h = 0; h < 2; h++)	/* 2^(s - 127), columns 8 h .. 8 h + 7 */
				sf[g][h] = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(
					_mm512_cvtepu8_epi64(h ? _mm_srli_si128(s8, 8) : s8),
					_mm512_set1_epi64(1023 - 127)), 52));
		}
		if (exact[0] && (groups == 1 || exact[1]))	/* the common case, its loops resolved */
			for (size_t r = 0; r < m; r++)
				int_cols_row(job, wp, wb, cs, sf, r * nb + b, 1, 0, vnni, groups, 0,
					     acc[r], bnd[r], NULL);
		else if (job->parts == 1 && !job->tr)
			for (size_t r = 0; r < m; r++)
				int_cols_row(job, wp, wb, cs, sf, r * nb + b, 1, 0, vnni, groups, 1,
					     acc[r], bnd[r], NULL);
		else
			for (size_t r = 0; r < m; r++)
				int_cols_row(job, wp, wb, cs, sf, r * nb + b, job->parts, job->tr != NULL,
					     vnni, groups, 1, acc[r], bnd[r], tbnd[r]);
	}
	for (int g = 0; g < groups; g++)
		_mm_storeu_si128((__m128i *)mins[g], smin[g]);
	for (size_t r = 0; r < m; r++) {
		redo[r] = 0;
		for (int g = 0; g < groups; g++) {
			double s[16], bd[16], tb[16];

			for (int h = 0; h < 2; h++) {
				_mm512_storeu_pd(s + 8 * h, acc[r][g][h]);
				_mm512_storeu_pd(bd + 8 * h, exact[g] ? _mm512_setzero_pd() : bnd[r][g][h]);
				_mm512_storeu_pd(tb + 8 * h, tbnd[r][g][h]);
			}
			redo[r] |= (uint32_t)int_cols_store(job, j0 + 16 * g, gc[g], r, s, bd, tb, nan[g],
							    mins[g], srows + 16 * g) << (16 * g);
		}
	}
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
static void gemv_int_cols_avx512(const struct gemv_job *job, size_t j0, uint32_t redo[GEMV_MAX_M])
{
	gemv_int_cols_t(job, j0, 0, 1, redo);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
static void gemv_int_cols_vnni(const struct gemv_job *job, size_t j0, uint32_t redo[GEMV_MAX_M])
{
	if (mxe_cols16_task_groups(1, job->op->d.n, j0) == 2)
		gemv_int_cols_t(job, j0, 1, 2, redo);
	else
		gemv_int_cols_t(job, j0, 1, 1, redo);
}

/*
 * int_cols_row() on AVX2: @wp the 16 pairs of each half of the columns (in L1: 16
 * registers hold too few), vpmaddwd and vpaddd, the sums as 4 vectors of 4 doubles.
 */
__attribute__((target("avx2,fma"), always_inline))
static inline void int_cols_row_avx2(const struct gemv_job *job, const __m256i wp[16][2],
				     const __m256d sf[4], size_t rb, unsigned parts, int tr, int bound,
				     double acc[16], double bnd[16], double tbnd[16])
{
	__m256d t[4] = { _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(),
			 _mm256_setzero_pd() };
	const __m256i f = _mm256_set1_epi64x((long long)int_cols_exp(job, rb));
	const __m256d as = _mm256_set1_pd(job->asum[rb]);

	for (unsigned p = 0; p < parts; p++) {
		const int32_t *a = (const int32_t *)(job->part[p] + rb * BLK);
		__m256i q[2][2];

		q[0][0] = q[0][1] = q[1][0] = q[1][1] = _mm256_setzero_si256();
		_Pragma("GCC unroll 16")
		for (int i = 0; i < 16; i++) {
			const __m256i av = _mm256_set1_epi32(a[i]);

			q[0][i % 2] = _mm256_add_epi32(q[0][i % 2], _mm256_madd_epi16(wp[i][0], av));
			q[1][i % 2] = _mm256_add_epi32(q[1][i % 2], _mm256_madd_epi16(wp[i][1], av));
			/* each sum stays a chain in its register: GCC otherwise reorders the
			 * integer adds into a tree and spills all 32 products first */
			__asm__("" : "+x"(q[0][i % 2]), "+x"(q[1][i % 2]));
		}
		_Pragma("GCC unroll 2")
		for (int h = 0; h < 2; h++) {
			__m256i v = _mm256_add_epi32(q[h][0], q[h][1]);
			__m256d d0 = _mm256_cvtepi32_pd(_mm256_castsi256_si128(v));
			__m256d d1 = _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1));

			t[2 * h] = p ? _mm256_fmadd_pd(d0, _mm256_set1_pd(gemv_part_weight[p]), t[2 * h]) : d0;
			t[2 * h + 1] = p ? _mm256_fmadd_pd(d1, _mm256_set1_pd(gemv_part_weight[p]), t[2 * h + 1]) :
					   d1;
		}
	}
	_Pragma("GCC unroll 4")
	for (int q = 0; q < 4; q++) {
		_mm256_store_pd(acc + 4 * q, _mm256_fmadd_pd(t[q], _mm256_castsi256_pd(_mm256_add_epi64(
			_mm256_castpd_si256(sf[q]), f)), _mm256_load_pd(acc + 4 * q)));
		if (bound)
			_mm256_store_pd(bnd + 4 * q, _mm256_fmadd_pd(sf[q], as, _mm256_load_pd(bnd + 4 * q)));
		if (tr)
			_mm256_store_pd(tbnd + 4 * q, _mm256_fmadd_pd(sf[q], _mm256_set1_pd(job->tr[rb]),
								      _mm256_load_pd(tbnd + 4 * q)));
	}
}

/*
 * gemv_int_cols_t() on AVX2 (a Zen 3): the 16 columns as two halves of 8 lanes, each
 * block's codes as int16 pairs (mxe_cols16_codes_avx2()), rows through
 * int_cols_row_avx2().
 */
__attribute__((target("avx2,fma")))
static void gemv_int_cols_avx2(const struct gemv_job *job, size_t j0, uint32_t redo[GEMV_MAX_M])
{
	const struct mxe_op *op = job->op;
	const size_t m = op->d.m, nb = op->d.k / BLK, n = op->d.n;
	const size_t nc = n - j0 < GEMV_COLS ? n - j0 : GEMV_COLS;
	const uint8_t *rows[16], *srows[16];
	struct mxe_cols16 cols;	/* its weights' and scales' staging */
	__m256i wp[16][2];
	/* per row: the sums, the proof's bounds and the rounded blocks' bounds */
	double acc[GEMV_MAX_M][16] __attribute__((aligned(32)));
	double bnd[GEMV_MAX_M][16] __attribute__((aligned(32)));
	double tbnd[GEMV_MAX_M][16] __attribute__((aligned(32)));
	uint8_t mins[16];
	__m128i nanv = _mm_setzero_si128(), minv = _mm_set1_epi8((char)0xFF);
	unsigned nan;
	int exact;

	memset(acc, 0, m * sizeof(acc[0]));
	memset(bnd, 0, m * sizeof(bnd[0]));
	memset(tbnd, 0, m * sizeof(tbnd[0]));
	for (unsigned c = 0; c < 16; c++) {	/* columns past N read the last one's */
		rows[c] = mxe_op_b_row(op, j0 + (c < nc ? c : nc - 1));
		srows[c] = op->scale_b ? mxe_op_b_scales(op, j0 + (c < nc ? c : nc - 1)) : job->ones;
	}
	exact = gemv_sums_exact(job, srows, nc, nb);
	mxe_cols16_init(&cols, rows, srows, nb, nb);
	for (size_t b = 0; b < nb; b++) {
		const __m128i s8 = mxe_cols16_scales_avx2(&cols, b, 127);
		const __m128i s4[4] = { s8, _mm_srli_si128(s8, 4), _mm_srli_si128(s8, 8),
					_mm_srli_si128(s8, 12) };
		const __m256i (*const wpm)[2] = mxe_cols16_codes_avx2(&cols, b, wp);
		__m256d sf[4];

		nanv = _mm_or_si128(nanv, _mm_cmpeq_epi8(s8, _mm_set1_epi8((char)0xFF)));
		minv = _mm_min_epu8(minv, s8);
		_Pragma("GCC unroll 4")
		for (int q = 0; q < 4; q++)	/* 2^(s - 127), columns 4 q .. 4 q + 3 */
			sf[q] = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(
				_mm256_cvtepu8_epi64(s4[q]), _mm256_set1_epi64x(1023 - 127)), 52));
		if (exact)
			for (size_t r = 0; r < m; r++)
				int_cols_row_avx2(job, wpm, sf, r * nb + b, 1, 0, 0, acc[r], bnd[r], NULL);
		else if (job->parts == 1 && !job->tr)
			for (size_t r = 0; r < m; r++)
				int_cols_row_avx2(job, wpm, sf, r * nb + b, 1, 0, 1, acc[r], bnd[r], NULL);
		else
			for (size_t r = 0; r < m; r++)
				int_cols_row_avx2(job, wpm, sf, r * nb + b, job->parts, job->tr != NULL, 1,
						  acc[r], bnd[r], tbnd[r]);
	}
	nan = (unsigned)_mm_movemask_epi8(nanv);
	_mm_storeu_si128((__m128i *)(void *)mins, minv);
	for (size_t r = 0; r < m; r++)
		redo[r] = int_cols_store(job, j0, nc, r, acc[r], bnd[r], tbnd[r], nan, mins, srows);
}

__attribute__((target("avx2,fma")))
static inline __m256d int_block_avx2(const uint8_t *row, const int16_t *a16, size_t b,
				     __m128i lut)
{
	const __m128i m4 = _mm_set1_epi8(15);
	const int16_t *a = a16 + b * BLK;
	__m128i x = _mm_loadu_si128((const __m128i *)(row + b * 16));
	__m128i lo = _mm_shuffle_epi8(lut, _mm_and_si128(x, m4));
	__m128i hi = _mm_shuffle_epi8(lut, _mm_and_si128(_mm_srli_epi16(x, 4), m4));
	__m256i p = _mm256_add_epi32(
		_mm256_madd_epi16(_mm256_cvtepi8_epi16(lo), _mm256_loadu_si256((const __m256i *)a)),
		_mm256_madd_epi16(_mm256_cvtepi8_epi16(hi), _mm256_loadu_si256((const __m256i *)(a + 16))));

	return _mm256_cvtepi32_pd(_mm_add_epi32(_mm256_castsi256_si128(p),
						_mm256_extracti128_si256(p, 1)));
}

/* int_pair_avx512() on AVX2 (A in-lane). */
__attribute__((target("avx2,fma")))
static inline void int_pair_avx2(const uint8_t *row, const int16_t *a16, size_t b,
				 __m256i lut, __m256d *d0, __m256d *d1)
{
	__m256i p = mxe_e2m1_pair_inlane_avx2(row, a16, b, lut);

	*d0 = _mm256_cvtepi32_pd(_mm256_castsi256_si128(p));
	*d1 = _mm256_cvtepi32_pd(_mm256_extracti128_si256(p, 1));
}

__attribute__((target("avx2,fma")))
static inline void int_pairs_avx2(const struct gemv_job *job, const uint8_t *row, size_t b,
				  __m256i lut, unsigned parts, __m256d *d0, __m256d *d1)
{
	int_pair_avx2(row, job->part[0], b, lut, d0, d1);
	for (unsigned i = 1; i < parts; i++) {
		__m256d h0, h1, f = _mm256_set1_pd(gemv_part_weight[i]);

		int_pair_avx2(row, job->part[i], b, lut, &h0, &h1);
		*d0 = _mm256_fmadd_pd(h0, f, *d0);
		*d1 = _mm256_fmadd_pd(h1, f, *d1);
	}
}

/* The sums of blocks b .. b + 3 (two in-lane pairs), lanes added across in integers:
 * one conversion and one FMA for four blocks where pairs took two each. */
__attribute__((target("avx2,fma")))
static inline __m256d int_quad_avx2(const uint8_t *row, const int16_t *a16, size_t b, __m256i lut)
{
	__m256i p = mxe_e2m1_pair_inlane_avx2(row, a16, b, lut);
	__m256i q = mxe_e2m1_pair_inlane_avx2(row, a16, b + 2, lut);
	/* lane L: block b + L's sums x, b + 2 + L's y: x0 + x2, y0 + y2, x1 + x3, y1 + y3 */
	__m256i u = _mm256_add_epi32(_mm256_unpacklo_epi32(p, q), _mm256_unpackhi_epi32(p, q));
	__m256i v = _mm256_add_epi32(u, _mm256_shuffle_epi32(u, 0x4E));	/* x, y, x, y */

	return _mm256_cvtepi32_pd(_mm_unpacklo_epi32(_mm256_castsi256_si128(v),
						     _mm256_extracti128_si256(v, 1)));
}

/* Blocks b .. b + 3 (@quad: int_quad_avx2()) or block b alone over A's @parts int16
 * parts: part 0's sums, then each further part's times its weight. */
__attribute__((target("avx2,fma"), always_inline))
static inline __m256d int_parts_avx2(const struct gemv_job *job, const uint8_t *row, size_t b,
				     __m256i lut, int quad, unsigned parts)
{
#define INT_PART(i) (quad ? int_quad_avx2(row, job->part[i], b, lut) :			\
		     int_block_avx2(row, job->part[i], b, _mm256_castsi256_si128(lut)))
	__m256d d = INT_PART(0);

	for (unsigned i = 1; i < parts; i++)
		d = _mm256_fmadd_pd(INT_PART(i), _mm256_set1_pd(gemv_part_weight[i]), d);
	return d;
#undef INT_PART
}

__attribute__((target("avx2,fma"), always_inline))
static inline unsigned int_column_avx2_t(const struct gemv_job *job, size_t j, unsigned parts)
{
	struct gemv_col c = gemv_col(job, j, 0);
	const uint8_t *sc = c.sc ? c.sc : job->ones;
	const __m128i lut = _mm_setr_epi8(MXE_E2M1_INT_LUT);
	const __m256i lut2 = _mm256_broadcastsi128_si256(lut);
	__m256d acc0 = _mm256_setzero_pd(), acc1 = acc0, bnd = acc0, tbnd = acc0;
	__m256i nan = _mm256_setzero_si256();
	double fac[GEMV_INT_CHUNK], s, e, bound, lanes[4];
	const uint8_t *next = gemv_next_row(job, j);

	for (size_t b0 = 0; b0 < c.nb; b0 += GEMV_INT_CHUNK) {
		size_t n = c.nb - b0 < GEMV_INT_CHUNK ? c.nb - b0 : GEMV_INT_CHUNK, b;

		for (b = 0; b + 4 <= n; b += 4) {
			uint32_t s4;
			__m256i s8, f, sf;

			memcpy(&s4, sc + b0 + b, 4);
			s8 = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)s4));
			f = _mm256_add_epi64(s8, _mm256_loadu_si256((const __m256i *)(job->ebias + b0 + b)));
			sf = _mm256_add_epi64(s8, _mm256_set1_epi64x(1023 - 127));
			nan = _mm256_or_si256(nan, _mm256_cmpeq_epi64(s8, _mm256_set1_epi64x(0xFF)));
			_mm256_storeu_pd(fac + b, _mm256_castsi256_pd(_mm256_slli_epi64(f, 52)));
			bnd = _mm256_fmadd_pd(_mm256_loadu_pd(job->asum + b0 + b),
					      _mm256_castsi256_pd(_mm256_slli_epi64(sf, 52)), bnd);
			if (job->tr)
				tbnd = _mm256_fmadd_pd(_mm256_loadu_pd(job->tr + b0 + b),
						       _mm256_castsi256_pd(_mm256_slli_epi64(sf, 52)), tbnd);
		}
		for (; b < n; b++) {
			double f = block_factor(sc, b0 + b, 0);

			nan = _mm256_or_si256(nan, _mm256_set1_epi64x(sc[b0 + b] == 0xFF));
			fac[b] = f * mxe_pow2((int)job->ebias[b0 + b] - 1023 + 127);
			bnd = _mm256_add_pd(bnd, _mm256_setr_pd(job->asum[b0 + b] * f, 0, 0, 0));
			if (job->tr)
				tbnd = _mm256_add_pd(tbnd, _mm256_setr_pd(job->tr[b0 + b] * f, 0, 0, 0));
		}
		for (b = 0; b + 8 <= n; b += 8) {	/* lane i: block b + i */
			if (next) {
				_mm_prefetch((const char *)next + (b0 + b) * 16, _MM_HINT_T0);
				_mm_prefetch((const char *)next + (b0 + b) * 16 + 64, _MM_HINT_T0);
			}
			acc0 = _mm256_fmadd_pd(int_parts_avx2(job, c.row, b0 + b, lut2, 1, parts),
					       _mm256_loadu_pd(fac + b), acc0);
			acc1 = _mm256_fmadd_pd(int_parts_avx2(job, c.row, b0 + b + 4, lut2, 1, parts),
					       _mm256_loadu_pd(fac + b + 4), acc1);
		}
		for (; b + 2 <= n; b += 2) {
			__m256d p0, p1;

			if (next && !(b & 3))
				_mm_prefetch((const char *)next + (b0 + b) * 16, _MM_HINT_T0);

			int_pairs_avx2(job, c.row, b0 + b, lut2, parts, &p0, &p1);
			acc0 = _mm256_fmadd_pd(p0, _mm256_set1_pd(fac[b]), acc0);
			acc1 = _mm256_fmadd_pd(p1, _mm256_set1_pd(fac[b + 1]), acc1);
		}
		if (b < n) {
			__m256d p0 = int_parts_avx2(job, c.row, b0 + b, lut2, 0, parts);

			acc0 = _mm256_fmadd_pd(p0, _mm256_set1_pd(fac[b]), acc0);
		}
	}
	if (!_mm256_testz_si256(nan, nan))
		return 1;
	_mm256_storeu_pd(lanes, _mm256_add_pd(acc0, acc1));
	s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
	_mm256_storeu_pd(lanes, bnd);
	bound = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) * job->w.max;
	e = (double)(c.k / 4 + 8) * 0x1p-52 * bound;
	_mm256_storeu_pd(lanes, tbnd);
	e += ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) * job->w.max;
	return s == 0 || !gemv_store(job, c.sc, &(int){ -1 }, 0, j, s, e, bound);
}

/* One part (A's blocks within 15 bits: the common case) compiled apart: the widened
 * codes are not kept for a further part, so nothing spills to the stack. */
__attribute__((target("avx2,fma")))
static unsigned gemv_int_column_avx2(const struct gemv_job *job, size_t j)
{
	return job->parts == 1 ? int_column_avx2_t(job, j, 1) : int_column_avx2_t(job, j, job->parts);
}
#endif

/* E2M1 rows are looked up even k, then odd k, per 16: values in that order too. */
static void deinterleave(double *v, size_t k)
{
	for (size_t k0 = 0; k0 < k; k0 += 16) {
		double t[16];

		for (int q = 0; q < 16; q++)
			t[q % 2 * 8 + q / 2] = v[k0 + q];
		memcpy(v + k0, t, sizeof(t));
	}
}

static uint64_t gemv_outputs, gemv_redone, gemv_int, gemv_int_redone;	/* since the process started */

uint64_t mxe_gemv_exact_sums(void)
{
	return __atomic_load_n(&gemv_exact_sums, __ATOMIC_RELAXED);
}

void mxe_gemv_counts(uint64_t *outputs, uint64_t *redone)
{
	*outputs = __atomic_load_n(&gemv_outputs, __ATOMIC_RELAXED);
	*redone = __atomic_load_n(&gemv_redone, __ATOMIC_RELAXED);
}

uint64_t mxe_gemv_int_redone(void)
{
	return __atomic_load_n(&gemv_int_redone, __ATOMIC_RELAXED);
}

uint64_t mxe_gemv_int_outputs(void)
{
	return __atomic_load_n(&gemv_int, __ATOMIC_RELAXED);
}

#ifdef GEMV_HAVE_AVX512
/* gemv_block_bits() on AVX-512 (DQ: the 64-bit conversion). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
static int gemv_block_bits_avx512(const double *v, int *lo, int *hi)
{
	const __m512i emask = _mm512_set1_epi64(0x7FF), mmask = _mm512_set1_epi64((INT64_C(1) << 52) - 1);
	__m512i l = _mm512_set1_epi64(INT_MAX), h = _mm512_set1_epi64(INT_MIN);
	__mmask8 inf = 0;

	for (int q = 0; q < BLK; q += 8) {
		__m512i u = _mm512_loadu_si512(v + q), e = _mm512_and_si512(_mm512_srli_epi64(u, 52), emask);
		__m512i m = _mm512_and_si512(u, mmask), low, tz;
		__mmask8 nz, fin = _mm512_cmpneq_epi64_mask(e, emask);

		inf |= (__mmask8)~fin;
		nz = _mm512_mask_test_epi64_mask(fin, u, _mm512_set1_epi64(INT64_MAX));
		/* the significand with its implicit bit; its lowest set bit as a power of two */
		m = _mm512_mask_or_epi64(m, _mm512_test_epi64_mask(e, e), m,
					 _mm512_set1_epi64(INT64_C(1) << 52));
		low = _mm512_and_si512(m, _mm512_sub_epi64(_mm512_setzero_si512(), m));
		tz = _mm512_sub_epi64(_mm512_srli_epi64(_mm512_castpd_si512(_mm512_cvtepu64_pd(low)), 52),
				      _mm512_set1_epi64(1023));
		/* mxe_lsb_exponent(): (e ? e - 1075 : -1074) + tz */
		l = _mm512_mask_min_epi64(l, nz, l, _mm512_add_epi64(_mm512_sub_epi64(
			_mm512_max_epi64(e, _mm512_set1_epi64(1)), _mm512_set1_epi64(1075)), tz));
		h = _mm512_mask_max_epi64(h, nz, h, _mm512_sub_epi64(e, _mm512_set1_epi64(1023)));
	}
	*lo = (int)_mm512_reduce_min_epi64(l);
	*hi = (int)_mm512_reduce_max_epi64(h);
	return !inf;
}
#endif

/*
 * The integer block kernels' form of A's rows (K values each, in k order, @lda apart):
 * one row in mxe_gemv_int.h's order, several in k order (gemv_int_cols_t()).
 * Block b of a row is n * 2^E with integers n in up to three int16 parts (n = n0 + n1 2^15 + n2 2^30): one part when its
 * finite values span at most 15 bits (from the highest bit of the largest to the lowest
 * set bit of any), as activations of narrow types and BF16 ones of similar size do; two
 * up to 30 bits, three up to 45, each part's int32 sum combining exactly in a double.
 * All rows take as many parts as the widest block of any. A block that spans more (a
 * SiLU output next to a large value) is rounded to its top 44 bits: the kernels then
 * add a bound of what that rounding can change to the proof's error (job->tr), and
 * prove by the interval alone. In three steps: each row's blocks' bits
 * (gemv_int_block_bits(), in gemv_prepare_row(): a task a row), all rows' parts (gemv_int_parts()), each row's
 * form (gemv_int_row_form(), a task a row); gemv_int_finish() then sets job->a16 and
 * the rest, or leaves job->a16 NULL where A holds NaN or Inf, and the double kernels
 * run. The buffers are the calling thread's scratch slot 4 (its tasks use 0 .. 2).
 */
static int gemv_int_alloc(struct gemv_job *job, size_t m, size_t k)
{
	struct gemv_prep *p = &job->prep;
	size_t nb = k / BLK, nr = m * nb;	/* blocks of a row, of all rows */
	void *buf = mxe_scratch(4, nr * (3 * BLK * sizeof(int16_t) + 3 * (2 * BLK + sizeof(int32_t)) +
				      sizeof(int64_t) + 2 * sizeof(double) + 2 * sizeof(int)) + nb);

	if (!buf)
		return 0;
	p->part[0] = buf;		/* first: every block's 64 bytes on a line */
	p->part[1] = p->part[0] + nr * BLK;
	p->part[2] = p->part[1] + nr * BLK;
	p->a8[0] = (int8_t *)(p->part[2] + nr * BLK);
	p->a8[1] = p->a8[0] + nr * 2 * BLK;
	p->a8[2] = p->a8[1] + nr * 2 * BLK;
	p->ebias = (int64_t *)(p->a8[2] + nr * 2 * BLK);
	p->asum = (double *)(p->ebias + nr);
	p->tr = p->asum + nr;
	p->lo = (int *)(p->tr + nr);
	p->hi = p->lo + nr;
	p->acorr[0] = p->hi + nr;
	p->acorr[1] = p->acorr[0] + nr;
	p->acorr[2] = p->acorr[1] + nr;
	p->ones = (uint8_t *)(p->acorr[2] + nr);
	memset(p->ones, 127, nb);
	return 1;
}

/*
 * Block rb of row @i (@fin: its values all finite; @lo, @hi: gemv_block_bits()): its
 * lowest and highest set bits, and the parts the row needs so far (need[i], from 1;
 * 0 once a value is NaN or Inf).
 */
static void gemv_int_block_bits(struct gemv_job *job, size_t i, size_t rb, int fin, int lo, int hi)
{
	struct gemv_prep *p = &job->prep;
	int need = p->need[i];

	if (!fin || !need) {
		p->need[i] = 0;
		return;
	}
	if (lo == INT_MAX)
		lo = hi = 0;	/* all zero */
	p->lo[rb] = lo;
	p->hi[rb] = hi;
	p->need[i] = hi - lo > 44 ? 4 : hi - lo > 29 && need < 3 ? 3 : hi - lo > 14 && need < 2 ? 2 : need;
}

/* All @m rows' parts, between the two row steps: 0 where a row holds NaN or Inf. */
static void gemv_int_parts(struct gemv_job *job, size_t m)
{
	struct gemv_prep *p = &job->prep;

	p->parts = 1;
	p->rounded = 0;
	for (size_t i = 0; i < m; i++) {
		if (!p->need[i]) {
			p->parts = 0;
			return;
		}
		p->parts = p->need[i] > p->parts ? (p->need[i] > 3 ? 3 : p->need[i]) : p->parts;
		p->rounded |= p->need[i] == 4;
	}
}

/* Row @i's form in gemv_int_parts()' parts, and its nonzero blocks' exponent span. */
static void gemv_int_row_form(struct gemv_job *job, size_t i)
{
	struct gemv_prep *p = &job->prep;
	size_t m = job->op->d.m, nb = job->op->d.k / BLK;
	int elo = INT_MAX, ehi = INT_MIN;

	p->out[i] = 0;
	for (size_t rb = i * nb; rb < (i + 1) * nb; rb++) {
		const double *v = p->av + i * job->lda + rb % nb * BLK;
		size_t b = rb % nb;
		int e = p->lo[rb];

		p->asum[rb] = p->ablk[b * job->groups * 8 + i];	/* gemv_prepare_row()'s sum */
		p->tr[rb] = 0;
		if (p->hi[rb] - p->lo[rb] > 44) {	/* round to the top 44 bits: |n| <= 2^44 */
			e = p->hi[rb] - 43;
			p->tr[rb] = 0x1p4 * ldexp(1.0, e);	/* 32 roundings of at most 2^(e - 1) */
			p->asum[rb] += p->tr[rb];
		}
		if (e < -890 || e > 890) {
			p->out[i] = 1;
			return;
		}
		for (int q = 0; q < BLK; q++) {	/* one row: the nibbles' order (mxe_gemv_int.h) */
			size_t at = m == 1 ? mxe_e2m1_int_at(nb, b, q, !job->avx512) : rb * BLK + q;
			double x = v[q] * mxe_pow2(-e);	/* exact scaling */
			/* an integer unless the block is rounded (libm's nearbyint() a call) */
			int64_t n = p->tr[rb] == 0 ? (int64_t)x : (int64_t)nearbyint(x), n2, n1;

			/* n0 holds n itself when it fits, else parts by floor shifts */
			n2 = p->parts == 3 && (n < INT16_MIN || n > INT16_MAX) ? n >> (2 * GEMV_PART_BITS) : 0;
			n -= n2 * ((int64_t)1 << (2 * GEMV_PART_BITS));
			n1 = p->parts >= 2 && (n < INT16_MIN || n > INT16_MAX) ? n >> GEMV_PART_BITS : 0;
			n -= n1 * ((int64_t)1 << GEMV_PART_BITS);
			p->part[0][at] = (int16_t)n;
			p->part[1][at] = (int16_t)n1;
			p->part[2][at] = (int16_t)n2;
		}
#ifdef GEMV_HAVE_AVX512
		for (int q = 0; m > 1 && job->vnni && q < p->parts; q++) {	/* gemv_int_cols_t()'s */
			int32_t corr[2];

			mxe_e2m1_a8_block(p->part[q] + rb * BLK, p->a8[q] + rb * 2 * BLK, corr);
			p->acorr[q][rb] = corr[0] + corr[1];
		}
#endif
		p->ebias[rb] = e - 1 - 127 + 1023;	/* 2^(e - 1) 2^(scale - 127) */
		if (p->ablk[b * job->groups * 8 + i] != 0) {	/* all zero: no product, no exponent */
			elo = p->lo[rb] < elo ? p->lo[rb] : elo;
			ehi = p->lo[rb] > ehi ? p->lo[rb] : ehi;
		}
	}
	p->span[i] = elo <= ehi ? ehi - elo : -1;
}

/* After the rows' forms: the job's views of them, or none (job->a16 NULL). */
static void gemv_int_finish(struct gemv_job *job, size_t m)
{
	struct gemv_prep *p = &job->prep;

	job->a16 = NULL;
	for (size_t i = 0; i < m; i++)
		if (p->out[i])
			return;
	job->erange = p->parts > 1 || p->rounded ? INT_MAX : 0;
	for (size_t i = 0; job->erange != INT_MAX && i < m; i++)	/* each row's span */
		job->erange = p->span[i] > job->erange ? p->span[i] : job->erange;
	job->a16 = p->part[0];
	memcpy(job->part, p->part, sizeof(p->part));
	memcpy(job->a8, p->a8, sizeof(p->a8));
	memcpy(job->acorr, p->acorr, sizeof(p->acorr));
	job->parts = (unsigned)p->parts;
	job->tr = p->rounded ? p->tr : NULL;
	job->ebias = p->ebias;
	job->asum = p->asum;
	job->ones = p->ones;
}

/* A block's 16 bytes of E2M1 codes as 2 w (MXE_E2M1_INT_LUT), in A's order: per 16 k
 * (8 bytes) the low nibbles (even k), then the high ones. */
#ifdef GEMV_HAVE_AVX512
__attribute__((target("avx2")))
static void int_block_w2(const uint8_t *codes, int8_t w2[BLK])
{
	const __m128i lut = _mm_setr_epi8(MXE_E2M1_INT_LUT), m4 = _mm_set1_epi8(15);
	const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)codes);
	const __m128i lo = _mm_shuffle_epi8(lut, _mm_and_si128(x, m4));
	const __m128i hi = _mm_shuffle_epi8(lut, _mm_and_si128(_mm_srli_epi16(x, 4), m4));

	_mm_storeu_si128((__m128i *)(void *)w2, _mm_unpacklo_epi64(lo, hi));
	_mm_storeu_si128((__m128i *)(void *)(w2 + 16), _mm_unpackhi_epi64(lo, hi));
}
#else	/* compiled where the GEMV never runs (gemv_applies()) */
static void int_block_w2(const uint8_t *codes, int8_t w2[BLK])
{
	static const int8_t lut[16] = { MXE_E2M1_INT_LUT };

	for (int q = 0; q < BLK; q++) {
		uint8_t c = codes[q / 16 * 8 + q % 8];

		w2[q] = lut[q % 16 < 8 ? c & 15 : c >> 4];
	}
}
#endif

#ifdef GEMV_HAVE_AVX512
/* gemv_int_redo()'s sum of a block's n 2 w: @a the block's values, @f 2^-lo. */
__attribute__((target("avx512f,avx512dq")))
static int64_t int_block_n_avx512(const double *a, double f, const int8_t w2[BLK])
{
	__m512i s = _mm512_setzero_si512();

	for (int q = 0; q < BLK; q += 8) {
		__m512i n = _mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_loadu_pd(a + q), _mm512_set1_pd(f)));

		s = _mm512_add_epi64(s, _mm512_mullo_epi64(n, _mm512_cvtepi8_epi64(
			_mm_loadl_epi64((const __m128i *)(const void *)(w2 + q)))));
	}
	return _mm512_reduce_add_epi64(s);
}
#endif

/*
 * Outputs (8 g + r, j) for the rows in @redo whose proofs failed, summed exactly from
 * the integer form (E2M1 weights): block b of row i is n 2^lo with |n| < 2^45, the
 * weights 2 w with |2 w| <= 12 (MXE_E2M1_INT_LUT), so the block's sum of n 2 w is
 * below 2^54 in an int64, and times 2^(lo - 1 + s - 127) (s the column's scale) it
 * goes into an exact accumulator, K / 32 terms where the general path decodes the
 * column and sums K products. A block the form rounds (span over 44 bits) adds its
 * 32 products, each exact in a double (A's float types hold at most 24 significant
 * bits, a weight 2). Returns the rows it leaves to the general path: a NaN scale, and
 * a sum of zero (whose sign the integers lose).
 */
static unsigned gemv_int_redo(const struct gemv_job *job, size_t j, unsigned g, unsigned redo)
{
	const struct mxe_op *op = job->op;
	const size_t nb = op->d.k / BLK;
	const uint8_t *row = mxe_op_b_row(op, j), *sc = op->scale_b ? mxe_op_b_scales(op, j) : NULL;
	struct mxe_xacc x[8];
	int prec, emin, emax;

	for (size_t b = 0; sc && b < nb; b++)
		if (sc[b] == 0xFF)
			return redo;
	for (unsigned r = 0; r < 8; r++)
		if ((redo >> r) & 1)
			mxe_xacc_init(&x[r]);
	for (size_t b = 0; b < nb; b++) {
		int8_t w2[BLK];	/* in A's order: per 16 k the even k, then the odd */

		int_block_w2(row + b * 16, w2);
		for (unsigned r = 0; r < 8; r++) {
			size_t i = 8 * (size_t)g + r, rb = i * op->d.k / BLK + b;
			const double *a = job->av + i * job->lda + b * BLK;
			double f;
			int64_t n = 0;

			if (!((redo >> r) & 1))
				continue;
			if (job->prep.hi[rb] - job->prep.lo[rb] > 44) {	/* rounded: each product */
				f = mxe_pow2((sc ? sc[b] - 127 : 0) - 1);
				for (int q = 0; q < BLK; q++)
					mxe_xacc_add(&x[r], a[q] * (w2[q] * f));
				continue;
			}
			f = mxe_pow2(-job->prep.lo[rb]);
#ifdef GEMV_HAVE_AVX512
			if (job->avx512)
				n = int_block_n_avx512(a, f, w2);
			else
#endif
				for (int q = 0; q < BLK; q++)
					n += (int64_t)(a[q] * f) * w2[q];
			mxe_xacc_add_int(&x[r], n, job->prep.lo[rb] - 1 + (sc ? sc[b] - 127 : 0));
		}
	}
	mxe_accum_format(op->d.type_d, &prec, &emin, &emax);
	for (unsigned r = 0; r < 8; r++) {
		double v;

		if (!((redo >> r) & 1))
			continue;
		v = mxe_xacc_round(&x[r], prec, emin, emax);
		if (v != 0) {
			mxe_op_store_d(op, 8 * (size_t)g + r, j, v);
			redo &= ~(1u << r);
			__atomic_add_fetch(&gemv_int_redone, 1, __ATOMIC_RELAXED);
		}
	}
	return redo;
}

/* The general path's value of outputs (8 g + r, j) for the rows in @redo. */
static int gemv_redo(const struct gemv_job *job, size_t j, unsigned g, unsigned redo)
{
	const struct mxe_op *op = job->op;
	double *bv;

	__atomic_add_fetch(&gemv_redone, __builtin_popcount(redo), __ATOMIC_RELAXED);
	if (job->a16)
		redo = gemv_int_redo(job, j, g, redo);
	if (!redo)
		return 0;
	bv = mxe_scratch(1, op->d.k * sizeof(double));
	if (!bv)
		return -1;
	mxe_op_row_values(op, 1, j, bv);
	if (op->d.type_b == MXA_DTYPE_E2M1)
		deinterleave(bv, op->d.k);	/* as the rows of A are */
	for (unsigned r = 0; r < 8; r++)
		if ((redo >> r) & 1)
			mxe_op_store_d(op, 8 * g + r, j,
				       mxe_exact_dot(op, job->av + (8 * g + r) * job->lda, bv));
	return 0;
}

/*
 * Blocks of k per span with several rows of A: a group's span of A (8 rows of 256
 * doubles, 16 KiB) stays in L1 while the task's columns run over it, where a whole
 * row of A per column would stream 8 x 8 K bytes from L2 for every column.
 */
#define GEMV_SPAN_BLOCKS 8

/*
 * Over a block of A's values @v (32 doubles): the exponent of the lowest set bit (*@lo)
 * and the highest exponent (*@hi) of its nonzero finite ones (INT_MAX, INT_MIN: none),
 * and whether all are finite. AVX-512: eight at a time, the lowest bit isolated
 * (m & -m) and converted to a double, whose exponent is its position (a host loop of
 * 8 rows' blocks of K = 4096: this and the form were a tenth of an 8-row GEMV).
 */
static int gemv_block_bits(const struct gemv_job *job, const double *v, int *lo, int *hi)
{
	int fin = 1;

#ifdef GEMV_HAVE_AVX512
	if (job->avx512)
		return gemv_block_bits_avx512(v, lo, hi);
#endif
	(void)job;
	*lo = INT_MAX;
	*hi = INT_MIN;
	for (int q = 0; q < BLK; q++) {
		uint64_t u;
		int h;

		if (!isfinite(v[q])) {
			fin = 0;
			continue;
		}
		if (v[q] == 0)
			continue;
		memcpy(&u, &v[q], 8);
		h = (int)((u >> 52) & 0x7FF) - 1023;
		*hi = h > *hi ? h : *hi;
		h = mxe_lsb_exponent(v[q]);
		*lo = h < *lo ? h : *lo;
	}
	return fin;
}

/*
 * Row @i of A (a task of the first phase): its values, the lowest set bit of any (ga)
 * and its blocks' sums of |a| (ablk); with E2M1 weights its blocks' bits.
 */
static void gemv_prepare_row(struct gemv_job *job, size_t i)
{
	struct gemv_prep *p = &job->prep;
	size_t k = job->op->d.k, nb = k / BLK;
	double *ar = p->av + i * job->lda;

	mxe_op_row_values(job->op, 0, i, ar);
	p->ga[i] = INT_MAX;
	p->need[i] = 1;
	for (size_t b = 0; b < nb; b++) {
		int lo, hi, fin = gemv_block_bits(job, ar + b * BLK, &lo, &hi);
		double s = 0;

		p->ga[i] = lo < p->ga[i] ? lo : p->ga[i];
		for (size_t kk = b * BLK; kk < (b + 1) * BLK; kk++)
			s += fabs(ar[kk]);
		p->ablk[b * job->groups * 8 + i] = s;
		if (p->part[0])
			gemv_int_block_bits(job, i, i * nb + b, fin, lo, hi);
	}
}

/* Columns a task of the columns' phase takes, once A is prepared: the several-row
 * integer kernels' (mxe_cols16_task_cols()), else GEMV_COLS. */
static size_t gemv_task_cols(const struct gemv_job *job)
{
	return job->a16 && job->op->d.m > 1 ? mxe_cols16_task_cols(job->vnni) : GEMV_COLS;
}

/*
 * The phases: A's rows (gemv_prepare_row()), with E2M1 weights their integer form
 * (gemv_int_row_form(), then the row in the double kernels' order), then the columns,
 * each a task a row or a group of columns. The steps between (all rows' parts, the
 * job's views of the form) run here, once, in the thread that ended a phase.
 */
static unsigned gemv_phase_tasks(void *arg, unsigned phase)
{
	struct gemv_job *job = arg;
	struct gemv_prep *p = &job->prep;
	size_t m = job->op->d.m, w;

	if (phase == 0)
		return (unsigned)m;
	if (phase == 1 && p->phase_cols == 2) {
		if (p->part[0])
			gemv_int_parts(job, m);
		return (unsigned)m;
	}
	if (phase != p->phase_cols)
		return 0;
	if (p->part[0] && p->parts)
		gemv_int_finish(job, m);
	if (job->a16)
		__atomic_add_fetch(&gemv_int, m * job->op->d.n, __ATOMIC_RELAXED);
	w = gemv_task_cols(job);
	return (unsigned)((job->op->d.n + w - 1) / w);
}

static void gemv_task(void *arg, unsigned phase, unsigned task)
{
	struct gemv_job *job = arg;
	const struct mxe_op *op = job->op;
	size_t j0, j1, cols, nb = op->d.k / BLK, span = op->d.m == 1 ? nb : GEMV_SPAN_BLOCKS;
	unsigned groups = job->groups;
	struct gemv_acc *st;

	if (phase == 0) {
		gemv_prepare_row(job, task);
		return;
	}
	if (phase < job->prep.phase_cols) {	/* E2M1 */
		if (job->prep.part[0] && job->prep.parts)
			gemv_int_row_form(job, task);
		deinterleave(job->prep.av + task * job->lda, op->d.k);
		return;
	}
	cols = gemv_task_cols(job);		/* the columns' phase: A prepared */
	j0 = (size_t)task * cols;
	j1 = j0 + cols < op->d.n ? j0 + cols : op->d.n;
#ifdef GEMV_HAVE_AVX512
	if (job->a16 && op->d.m == 1) {
		for (size_t j = j0; j < j1; j++) {
			unsigned redo = job->avx512 ? gemv_int_column_avx512(job, j) :
						      gemv_int_column_avx2(job, j);

			if (redo && gemv_redo(job, j, 0, redo))
				job->failed = 1;
		}
		return;
	}
	if (job->a16) {		/* several rows */
		uint32_t redo[GEMV_MAX_M], any = 0;

		if (job->vnni)
			gemv_int_cols_vnni(job, j0, redo);
		else if (job->avx512)
			gemv_int_cols_avx512(job, j0, redo);
		else
			gemv_int_cols_avx2(job, j0, redo);
		for (size_t r = 0; r < op->d.m; r++)
			any |= redo[r];
		for (size_t j = j0; j < j1 && any; j++)
			for (unsigned g = 0; g < groups; g++) {
				unsigned rm = 0;

				for (unsigned r = 0; r < 8 && 8 * g + r < op->d.m; r++)
					rm |= ((redo[8 * g + r] >> (j - j0)) & 1u) << r;
				if (rm && gemv_redo(job, j, g, rm))
					job->failed = 1;
			}
		return;
	}
	st = mxe_scratch(2, (j1 - j0) * groups * sizeof(*st));
	if (!st) {
		job->failed = 1;
		return;
	}
	for (size_t i = 0; i < (j1 - j0) * groups; i++) {
		st[i].j = j0 + i / groups;
		st[i].g = (unsigned)(i % groups);
		st[i].c = gemv_col(job, st[i].j, st[i].g);
		for (unsigned r = 0; r < st[i].c.rows; r++)	/* -0: adding it keeps every sign */
			for (unsigned l = 0; l < 8; l++)
				st[i].acc[r][l] = -0.0;
		memset(st[i].bnd, 0, sizeof(st[i].bnd));
		st[i].nan = 0;
	}
	for (size_t b0 = 0; b0 < nb; b0 += span) {
		size_t b1 = b0 + span < nb ? b0 + span : nb;

		for (unsigned g = 0; g < groups; g++)
			for (size_t j = j0; j < j1; j++) {
				struct gemv_acc *a = &st[(j - j0) * groups + g];

				if (job->avx512)
					gemv_span_avx512(job, a, b0, b1);
				else
					gemv_span_avx2(job, a, b0, b1);
			}
	}
	for (size_t i = 0; i < (j1 - j0) * groups; i++) {
		unsigned redo = job->avx512 ? gemv_finish_avx512(job, &st[i]) :
					      gemv_finish_avx2(job, &st[i]);

		if (redo && gemv_redo(job, st[i].j, st[i].g, redo))
			job->failed = 1;
	}
#else
	(void)st, (void)span, (void)groups, (void)j1;
	job->failed = 1;	/* never: gemv_applies() */
#endif
}

static const struct mxe_pool_job_ops gemv_ops = {
	.phase_tasks = gemv_phase_tasks,
	.task = gemv_task,
};

/* Whether the GEMV path runs @op (its weight format in *@w). */
static int gemv_applies(const struct mxe_op *op, struct wfmt *w)
{
	const struct mxe_gemm_desc *d = &op->d;

#ifndef GEMV_HAVE_AVX512
	return 0;
#endif
	return mxe_cpu_use_avx2() && d->accum == MXE_ACCUM_EXACT && !op->has_plan &&
	       op->cls == MXE_CLASS_FLOAT && d->m <= GEMV_MAX_M && op->k_chunk == d->k &&
	       d->k % BLK == 0 && d->type_d == MXA_DTYPE_F32 &&
	       !(d->flags & ~MXE_GEMM_NEGATE_A) && weight_fmt(d->type_b, w);
}

int mxe_gemv_takes(const struct mxe_gemm_desc *desc)
{
	struct mxe_op op;
	struct wfmt w;

	if (desc && (desc->type_a == MXA_DTYPE_NVFP4 || desc->type_b == MXA_DTYPE_NVFP4))
		return mxe_gemv_nvfp4_takes(desc);	/* its own GEMV (mxe_gemv_nvfp4.c) */
	if (!desc || (desc->flags & MXA_GEMM_F_A_KM) || mxe_op_prepare(desc, &op))
		return 0;
	if (op.d.accum == MXE_ACCUM_FAST) {
		/* FAST's kernel (either policy: the same bits, the same kernel), or the
		 * exact path where the scales send FAST there */
		if (!mxe_gemv_fast_applies(&op))
			return 0;
		op.d.accum = MXE_ACCUM_EXACT;
		return gemv_applies(&op, &w);
	}
	return op.d.sched != MXE_SCHED_INTERWAVE && gemv_applies(&op, &w);
}

int mxe_gemv_run(struct mxe_engine *eng, const struct mxe_op *op)
{
	const struct mxe_gemm_desc *d = &op->d;
	struct gemv_job job = { .op = op };
	size_t k = d->k, nb = k / BLK, m = d->m;
	double *av;

	if (!gemv_applies(op, &job.w))
		return 1;
	job.groups = (unsigned)((m + 7) / 8);
	job.avx512 = mxe_cpu_simd() >= MXE_SIMD_AVX512;
	job.vnni = mxe_cpu_simd() >= MXE_SIMD_AVX512VNNI;
	/*
	 * Rows of A 512 bytes apart modulo 4 KiB: a span of 8 rows then fills every set
	 * of L1 evenly, where rows a multiple of 4 KiB apart (K = 4096) would all fall
	 * in the same half of the sets and evict each other.
	 */
	job.lda = m == 1 ? k : k + (64 + 512 - k % 512) % 512;
	/* kept by the calling thread for the next GEMV (its tasks use slots 0 .. 2) */
	av = mxe_scratch(3, m * job.lda * sizeof(double) + nb * job.groups * 8 * sizeof(double) +
			 m * sizeof(int));
	if (!av)
		return MXE_ENGINE_ENOMEM;
	job.prep.av = av;
	job.prep.ablk = av + m * job.lda;
	job.prep.ga = (int *)(job.prep.ablk + nb * job.groups * 8);
	memset(job.prep.ablk, 0, nb * job.groups * 8 * sizeof(double));
	job.av = job.prep.av;
	job.ablk = job.prep.ablk;
	job.ga = job.prep.ga;
	/* E2M1: the integer blocks, and A in the order the double kernels decode the
	 * weights (a phase of its own) */
	job.prep.phase_cols = d->type_b == MXA_DTYPE_E2M1 ? 2 : 1;
	if (d->type_b == MXA_DTYPE_E2M1 && !gemv_int_alloc(&job, m, k))
		job.prep.part[0] = NULL;
	__atomic_add_fetch(&gemv_outputs, m * d->n, __ATOMIC_RELAXED);
	mxe_pool_run(eng, d->nthreads, &gemv_ops, &job);
	return job.failed ? MXE_ENGINE_ENOMEM : 0;
}
