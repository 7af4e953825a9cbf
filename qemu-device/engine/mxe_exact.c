// SPDX-License-Identifier: MIT
/*
 * mxe_exact.c - the EXACT numerics path.
 *
 * DOC: exact chunk sums, one rounding per chunk
 *
 * For every output element, K is cut into chunks of op->k_chunk elements
 * (the instruction's K, or all of K). Each chunk's products are exact
 * doubles (every MXA input type times its E8M0 scale fits; f64 products are
 * split into p + err by FMA) and go into an exact accumulator together with
 * the incoming accumulator value (C for the first chunk when accumulating,
 * the previous chunk's rounded result afterwards); the sum is rounded once
 * to the accumulator type (f32, f16 or f64). Integer chunks are summed in
 * int64 and wrapped or clamped to int32 once per chunk.
 *
 * The HOPPER numerics run here too, per element: each chunk as the tensor
 * core rounds it, or a whole library GEMM (op->has_plan), from mxe_hopper.c.
 *
 * Work is split into output tiles; each element's arithmetic does not depend
 * on the tile it falls in, so any thread count gives the same bits.
 */
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_cpu.h"
#include "mxe_formats.h"
#include "mxe_gemm.h"
#include "mxe_hopper.h"
#include "mxe_pool.h"
#include "mxe_xacc.h"

#define EXACT_TILE_MAX 64
#define EXACT_TILE_MIN 8
#define EXACT_MIN_TILES 8
#define EXACT_DECODE_BYTES (16u << 20)
#define EXACT_BAND_BYTES (8u << 20)	/* a thread's band of A rows, as doubles */

struct exact_job {
	const struct mxe_op *op;
	uint64_t id;		/* this run's, for the rows a thread keeps decoded */
	unsigned tm, tn;	/* tile size */
	unsigned tiles_m, tiles_n;
	int failed;
};

static unsigned exact_phase_tasks(void *arg, unsigned phase)
{
	struct exact_job *job = arg;

	return phase == 0 ? job->tiles_m * job->tiles_n : 0;
}

struct chunk_ctx {
	struct mxe_xacc x;
	int twoprod;
	unsigned td;
	int prec, emin, emax;
	int hopper;		/* MXE_ACCUM_HOPPER: the tensor core's rounding */
	struct mxe_hopper_ctx hc;
};

/*
 * run + a . b rounded to @td when a plain double sum proves it (products exact, !twoprod):
 * four chains of n + 1 terms sum to s within e = (n + 2) 2^-52 (sum |a b| + |run|) of
 * the exact sum (each addition rounds by at most 2^-53 of a partial sum that the
 * absolute sum bounds; the factor 2 also covers the rounding of e and of s -+ e).
 * Rounding is monotonic, so where s - e and s + e round to the same bits, so does the
 * exact sum: a tie or a sum near one fails, as does a NaN or an infinity. Zeros keep
 * IEEE's signs: the chains start from -0 (or run), so only -0 terms give -0.
 */
static int chunk_proof(unsigned td, const double *a, const double *b, size_t n, double run,
		       int have_run, double *out)
{
	double s[4] = { have_run ? run : -0.0, -0.0, -0.0, -0.0 }, m[4] = { fabs(run) * have_run };
	double sum, abs, e, lo, hi;
	size_t i = 0;

	for (; i + 4 <= n; i += 4)
		for (int l = 0; l < 4; l++) {
			s[l] += a[i + l] * b[i + l];
			m[l] += fabs(a[i + l] * b[i + l]);
		}
	for (; i < n; i++) {
		s[0] += a[i] * b[i];
		m[0] += fabs(a[i] * b[i]);
	}
	sum = (s[0] + s[1]) + (s[2] + s[3]);
	abs = (m[0] + m[1]) + (m[2] + m[3]);
	e = (double)(n + 2) * 0x1p-52 * abs;
	if (!isfinite(sum) || !isfinite(e))
		return 0;
	lo = mxe_round_to_accum(sum - e, td);
	hi = mxe_round_to_accum(sum + e, td);
	if (memcmp(&lo, &hi, sizeof(lo)))
		return 0;
	*out = e == 0 ? mxe_round_to_accum(sum, td) : lo;
	return 1;
}

/* One chunk of one element: run (the incoming value, or none) + a . b. */
static double chunk_scalar(struct chunk_ctx *cc, const double *a, const double *b, size_t n,
			   double run, int have_run)
{
	double s;

	/* Most chunk sums round to one value over their error bound; most of the rest
	 * are exact in a double: round that once. */
	if (!cc->twoprod && isfinite(run) && chunk_proof(cc->td, a, b, n, run, have_run, &s))
		return s;
	if (!cc->twoprod && isfinite(run) &&
	    mxe_dot_try_double(a, b, n, have_run ? run : -0.0, &s))
		return mxe_round_to_accum(s, cc->td);
	mxe_xacc_clear(&cc->x);
	if (have_run)
		mxe_xacc_add(&cc->x, run);
	mxe_xacc_add_dot(&cc->x, a, b, n, cc->twoprod);
	return mxe_xacc_round(&cc->x, cc->prec, cc->emin, cc->emax);
}

/*
 * A cheaper proof of exactness, checked per output element and chunk before
 * any sum is formed. Every product a*b of the chunk is exact in a double and
 * a multiple of 2^(ga + gb), where ga (gb) is the lowest set bit's exponent
 * over the row's (column's) nonzero values in the chunk; every partial sum,
 * in any order, is bounded by S = |run| + min(sum|a| max|b|, max|a| sum|b|).
 * If also run is a multiple of 2^g and S < 2^(g + 52) (g the least of
 * those exponents; the factor 2 covers the rounding of S itself), every
 * partial sum is representable: a plain double sum, in any order, is the
 * exact sum. Such lanes skip TwoSum.
 */
struct exact_stat {
	int g;		/* lowest set bit exponent; INT_MAX: all zero */
	int bad;	/* a NaN or Inf among the values */
	double sum;	/* sum |v| (rounded: the factor 2 above covers it) */
	double max;	/* max |v| */
};

static void chunk_stats(const double *v, size_t k, size_t kc, struct exact_stat *st)
{
	for (size_t k0 = 0, c = 0; k0 < k; k0 += kc, c++) {
		size_t k1 = k0 + kc < k ? k0 + kc : k;
		struct exact_stat x = { .g = INT_MAX };

		for (size_t kk = k0; kk < k1; kk++) {
			double a = fabs(v[kk]);

			if (!isfinite(a)) {
				x.bad = 1;
			} else if (a != 0) {
				int g = mxe_lsb_exponent(a);

				x.g = g < x.g ? g : x.g;
				x.sum += a;
				x.max = a > x.max ? a : x.max;
			}
		}
		st[c] = x;
	}
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/*
 * chunk_stats() eight values at a time: the exponent of the lowest set bit
 * is getexp(v) - 52 + getexp(low bit of the 53-bit significand), exact for
 * the normal doubles that decoded inputs are (a subnormal double, zero, NaN
 * or Inf goes through the scalar loop's rules: zeros skipped, the others
 * mark the chunk).
 */
__attribute__((target("avx512f,avx512dq")))
static void chunk_stats_avx512(const double *v, size_t k, size_t kc, struct exact_stat *st)
{
	const __m512i man = _mm512_set1_epi64((INT64_C(1) << 52) - 1);
	const __m512i one = _mm512_set1_epi64(INT64_C(1) << 52);
	const __m512d big = _mm512_set1_pd(1e300);

	for (size_t k0 = 0, c = 0; k0 < k; k0 += kc, c++) {
		size_t k1 = k0 + kc < k ? k0 + kc : k, kk = k0;
		__m512d sum = _mm512_setzero_pd(), mx = sum, g = big;
		struct exact_stat x = { .g = INT_MAX };
		int odd = 0;

		for (; kk + 8 <= k1; kk += 8) {
			__m512d a = _mm512_abs_pd(_mm512_loadu_pd(v + kk));
			__m512i u = _mm512_castpd_si512(a);
			__mmask8 nz = _mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_NEQ_UQ);
			/* normal: 2^-1022 <= a < Inf */
			__mmask8 norm = _mm512_cmp_pd_mask(a, _mm512_set1_pd(0x1p-1022), _CMP_GE_OQ) &
					_mm512_cmp_pd_mask(a, _mm512_set1_pd(INFINITY), _CMP_LT_OQ);
			__m512i m = _mm512_or_si512(_mm512_and_si512(u, man), one);
			__m512i low = _mm512_and_si512(m, _mm512_sub_epi64(_mm512_setzero_si512(), m));
			__m512d lsb = _mm512_add_pd(_mm512_getexp_pd(a),
						    _mm512_sub_pd(_mm512_getexp_pd(_mm512_cvtepi64_pd(low)),
								  _mm512_set1_pd(52)));

			odd |= nz & ~norm;
			sum = _mm512_mask_add_pd(sum, norm, sum, a);
			mx = _mm512_mask_max_pd(mx, norm, mx, a);
			g = _mm512_mask_min_pd(g, norm, g, lsb);
		}
		if (odd) {	/* rare: the scalar rules for the whole chunk */
			chunk_stats(v + k0, k1 - k0, k1 - k0, &st[c]);
			continue;
		}
		x.sum = _mm512_reduce_add_pd(sum);
		x.max = _mm512_reduce_max_pd(mx);
		if (_mm512_reduce_min_pd(g) < 1e300)
			x.g = (int)_mm512_reduce_min_pd(g);
		if (kk < k1) {
			struct exact_stat t;

			chunk_stats(v + kk, k1 - kk, k1 - kk, &t);
			x.bad = t.bad;
			x.sum += t.sum;
			x.max = t.max > x.max ? t.max : x.max;
			x.g = t.g < x.g ? t.g : x.g;
		}
		st[c] = x;
	}
}
#endif

/*
 * MX blocks: inside 32 consecutive k from a multiple of 32 every element of
 * a side has one scale, so the products of such a block span at most
 * R(a) + R(b) bits (R: log2 of the largest value over the smallest step of
 * the type) and their sum 5 more. Where that stays within 52 bits (E4M3,
 * FP6, FP4, MXINT8 pairs; not E5M2 with E4M3 or E5M2) every 32-k block sum
 * formed in any order in a double is exact, so only the block sums need
 * TwoSum.
 */
static int block_bits(unsigned t)
{
	switch (t) {
	case MXA_DTYPE_E4M3:
		return 18;	/* 2^-9 ... 448 */
	case MXA_DTYPE_E5M2:
		return 32;	/* 2^-16 ... 57344 */
	case MXA_DTYPE_E3M2:
		return 9;	/* 2^-4 ... 28 */
	case MXA_DTYPE_E2M3:
		return 6;	/* 2^-3 ... 7.5 */
	case MXA_DTYPE_E2M1:
		return 4;	/* 2^-1 ... 6 */
	case MXA_DTYPE_MXINT8:
		return 7;	/* 2^-6 ... 127 * 2^-6 */
	default:
		return 99;	/* BF16, F16, TF32, F32: no such bound */
	}
}

static int mx_block_sums_exact(const struct mxe_op *op)
{
	/* scales, where present, are per MXA_MX_BLOCK k (validated) */
	return block_bits(op->d.type_a) + block_bits(op->d.type_b) + 5 <= 52;
}

static int plain_sum_is_exact(const struct exact_stat *a, const struct exact_stat *b,
			      double run, int have_run)
{
	double bound;
	int g;

	if (a->bad || b->bad || (have_run && !isfinite(run)))
		return 0;
	if (a->g == INT_MAX || b->g == INT_MAX)
		return 1;	/* every product is zero */
	g = a->g + b->g;
	if (have_run && run != 0) {
		int gr = mxe_lsb_exponent(run);

		g = gr < g ? gr : g;
	}
	bound = fmin(a->sum * b->max, a->max * b->sum) + (have_run ? fabs(run) : 0);
	if (g + 52 > 1023)
		return 1;	/* any finite bound */
	if (g + 52 < -1022)
		return bound < ldexp(1.0, g + 52);
	return bound < mxe_pow2(g + 52);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define EXACT_HAVE_AVX2 1

/* Columns whose plain sums are certified exact: four chains, any order. */
__attribute__((target("avx2,fma")))
static void dot4_avx2(const double *a, const double *bt, size_t n, const double *init,
		      double *out)
{
	__m256d s0 = _mm256_loadu_pd(init), s1 = _mm256_set1_pd(-0.0), s2 = s1, s3 = s1;
	size_t kk = 0;

	for (; kk + 4 <= n; kk += 4) {
		s0 = _mm256_fmadd_pd(_mm256_set1_pd(a[kk]), _mm256_loadu_pd(bt + kk * 4), s0);
		s1 = _mm256_fmadd_pd(_mm256_set1_pd(a[kk + 1]), _mm256_loadu_pd(bt + kk * 4 + 4), s1);
		s2 = _mm256_fmadd_pd(_mm256_set1_pd(a[kk + 2]), _mm256_loadu_pd(bt + kk * 4 + 8), s2);
		s3 = _mm256_fmadd_pd(_mm256_set1_pd(a[kk + 3]), _mm256_loadu_pd(bt + kk * 4 + 12), s3);
	}
	for (; kk < n; kk++)
		s0 = _mm256_fmadd_pd(_mm256_set1_pd(a[kk]), _mm256_loadu_pd(bt + kk * 4), s0);
	_mm256_storeu_pd(out, _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3)));
}

__attribute__((target("avx512f")))
static void dot8_avx512(const double *a, const double *bt, size_t n, const double *init,
			double *out)
{
	__m512d s0 = _mm512_loadu_pd(init), s1 = _mm512_set1_pd(-0.0), s2 = s1, s3 = s1;
	size_t kk = 0;

	for (; kk + 4 <= n; kk += 4) {
		s0 = _mm512_fmadd_pd(_mm512_set1_pd(a[kk]), _mm512_loadu_pd(bt + kk * 8), s0);
		s1 = _mm512_fmadd_pd(_mm512_set1_pd(a[kk + 1]), _mm512_loadu_pd(bt + kk * 8 + 8), s1);
		s2 = _mm512_fmadd_pd(_mm512_set1_pd(a[kk + 2]), _mm512_loadu_pd(bt + kk * 8 + 16), s2);
		s3 = _mm512_fmadd_pd(_mm512_set1_pd(a[kk + 3]), _mm512_loadu_pd(bt + kk * 8 + 24), s3);
	}
	for (; kk < n; kk++)
		s0 = _mm512_fmadd_pd(_mm512_set1_pd(a[kk]), _mm512_loadu_pd(bt + kk * 8), s0);
	_mm512_storeu_pd(out, _mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3)));
}

/*
 * Four output columns at once: @bt holds their B values interleaved
 * (bt[k * 4 + lane]). TwoSum in double per lane; a lane whose errors were
 * all zero and whose sum is finite holds the exact sum. Returns the mask of
 * such lanes; the caller redoes the others one by one. Exact results do not
 * depend on how they were found, so this needs no portable twin.
 */
__attribute__((target("avx2,fma")))
static int chunk4_avx2(const double *a, const double *bt, size_t n, const double *init,
		       double *out)
{
	__m256d s0 = _mm256_loadu_pd(init), s1 = _mm256_set1_pd(-0.0);
	__m256d bad = _mm256_setzero_pd(), zero = _mm256_setzero_pd(), t, bb, e;
	size_t kk = 0;

#define TWO_SUM(s, p)								\
	do {									\
		t = _mm256_add_pd(s, p);					\
		bb = _mm256_sub_pd(t, s);					\
		e = _mm256_add_pd(_mm256_sub_pd(s, _mm256_sub_pd(t, bb)),	\
				  _mm256_sub_pd(p, bb));			\
		bad = _mm256_or_pd(bad, _mm256_cmp_pd(e, zero, _CMP_NEQ_UQ));	\
		s = t;								\
	} while (0)

	for (; kk + 2 <= n; kk += 2) {
		__m256d p0 = _mm256_mul_pd(_mm256_set1_pd(a[kk]), _mm256_loadu_pd(bt + kk * 4));
		__m256d p1 = _mm256_mul_pd(_mm256_set1_pd(a[kk + 1]),
					   _mm256_loadu_pd(bt + kk * 4 + 4));

		TWO_SUM(s0, p0);
		TWO_SUM(s1, p1);
	}
	if (kk < n) {
		__m256d p0 = _mm256_mul_pd(_mm256_set1_pd(a[kk]), _mm256_loadu_pd(bt + kk * 4));

		TWO_SUM(s0, p0);
	}
	TWO_SUM(s0, s1);
#undef TWO_SUM
	/* finite: |s| < Inf (false for NaN too) */
	bad = _mm256_or_pd(bad, _mm256_cmp_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), s0),
					      _mm256_set1_pd(INFINITY), _CMP_NLT_UQ));
	_mm256_storeu_pd(out, s0);
	return ~_mm256_movemask_pd(bad) & 0xF;
}

/*
 * The same for eight columns (bt[k * 8 + lane]) with AVX-512F. The error
 * terms are ORed together bit by bit (any nonzero error, or a -0 one, marks
 * the lane: at worst a spurious redo), which saves the compare per step.
 */
__attribute__((target("avx512f,avx512dq")))
static int chunk8_avx512(const double *a, const double *bt, size_t n, const double *init,
			 double *out)
{
	__m512d s0 = _mm512_loadu_pd(init), s1 = _mm512_set1_pd(-0.0), t, bb, e;
	__m512i bad = _mm512_setzero_si512();
	__mmask8 fin;
	size_t kk = 0;

#define TWO_SUM(s, p)								\
	do {									\
		t = _mm512_add_pd(s, p);					\
		bb = _mm512_sub_pd(t, s);					\
		e = _mm512_add_pd(_mm512_sub_pd(s, _mm512_sub_pd(t, bb)),	\
				  _mm512_sub_pd(p, bb));			\
		bad = _mm512_or_si512(bad, _mm512_castpd_si512(e));		\
		s = t;								\
	} while (0)

	for (; kk + 2 <= n; kk += 2) {
		__m512d p0 = _mm512_mul_pd(_mm512_set1_pd(a[kk]), _mm512_loadu_pd(bt + kk * 8));
		__m512d p1 = _mm512_mul_pd(_mm512_set1_pd(a[kk + 1]),
					   _mm512_loadu_pd(bt + kk * 8 + 8));

		TWO_SUM(s0, p0);
		TWO_SUM(s1, p1);
	}
	if (kk < n) {
		__m512d p0 = _mm512_mul_pd(_mm512_set1_pd(a[kk]), _mm512_loadu_pd(bt + kk * 8));

		TWO_SUM(s0, p0);
	}
	TWO_SUM(s0, s1);
#undef TWO_SUM
	/* finite: |s| < Inf (false for NaN too) */
	fin = _mm512_cmp_pd_mask(_mm512_abs_pd(s0), _mm512_set1_pd(INFINITY), _CMP_LT_OQ);
	_mm512_storeu_pd(out, s0);
	return fin & ~_mm512_test_epi64_mask(bad, bad) & 0xFF;
}

/*
 * chunk8_avx512() for MX blocks whose sums are exact (mx_block_sums_exact(),
 * @n from a multiple of 32): each 32-k block summed plainly (two FMA
 * chains), then TwoSum only for adding the block sums.
 */
__attribute__((target("avx512f,avx512dq")))
static int chunk8_blocks_avx512(const double *a, const double *bt, size_t n, const double *init,
				double *out)
{
	__m512d s0 = _mm512_loadu_pd(init), t, bb, e;
	__m512i bad = _mm512_setzero_si512();
	__mmask8 fin;

	for (size_t k0 = 0; k0 < n; k0 += MXA_MX_BLOCK) {
		size_t k1 = k0 + MXA_MX_BLOCK < n ? k0 + MXA_MX_BLOCK : n, kk = k0;
		__m512d p0 = _mm512_set1_pd(-0.0), p1 = p0;

		for (; kk + 2 <= k1; kk += 2) {
			p0 = _mm512_fmadd_pd(_mm512_set1_pd(a[kk]), _mm512_loadu_pd(bt + kk * 8), p0);
			p1 = _mm512_fmadd_pd(_mm512_set1_pd(a[kk + 1]),
					     _mm512_loadu_pd(bt + kk * 8 + 8), p1);
		}
		if (kk < k1)
			p0 = _mm512_fmadd_pd(_mm512_set1_pd(a[kk]), _mm512_loadu_pd(bt + kk * 8), p0);
		p0 = _mm512_add_pd(p0, p1);
		/* TwoSum(s0, p0) */
		t = _mm512_add_pd(s0, p0);
		bb = _mm512_sub_pd(t, s0);
		e = _mm512_add_pd(_mm512_sub_pd(s0, _mm512_sub_pd(t, bb)), _mm512_sub_pd(p0, bb));
		bad = _mm512_or_si512(bad, _mm512_castpd_si512(e));
		s0 = t;
	}
	fin = _mm512_cmp_pd_mask(_mm512_abs_pd(s0), _mm512_set1_pd(INFINITY), _CMP_LT_OQ);
	_mm512_storeu_pd(out, s0);
	return fin & ~_mm512_test_epi64_mask(bad, bad) & 0xFF;
}

/*
 * Four rows times eight columns over k in [k0, k1): even k into s0 ... s3, odd k into
 * t0 ... t3 (two chains a row; every sum these kernels form plainly is exact in any
 * order). A macro, not a function: the sixteen accumulators must stay in registers.
 */
#define FMA8X4(a, bt, k0, k1, s0, s1, s2, s3, t0, t1, t2, t3)				\
	do {										\
		size_t kk_ = (k0);							\
											\
		for (; kk_ + 2 <= (k1); kk_ += 2) {					\
			__m512d b0_ = _mm512_loadu_pd((bt) + kk_ * 8);			\
			__m512d b1_ = _mm512_loadu_pd((bt) + kk_ * 8 + 8);		\
											\
			s0 = _mm512_fmadd_pd(_mm512_set1_pd((a)[0][kk_]), b0_, s0);	\
			s1 = _mm512_fmadd_pd(_mm512_set1_pd((a)[1][kk_]), b0_, s1);	\
			s2 = _mm512_fmadd_pd(_mm512_set1_pd((a)[2][kk_]), b0_, s2);	\
			s3 = _mm512_fmadd_pd(_mm512_set1_pd((a)[3][kk_]), b0_, s3);	\
			t0 = _mm512_fmadd_pd(_mm512_set1_pd((a)[0][kk_ + 1]), b1_, t0);	\
			t1 = _mm512_fmadd_pd(_mm512_set1_pd((a)[1][kk_ + 1]), b1_, t1);	\
			t2 = _mm512_fmadd_pd(_mm512_set1_pd((a)[2][kk_ + 1]), b1_, t2);	\
			t3 = _mm512_fmadd_pd(_mm512_set1_pd((a)[3][kk_ + 1]), b1_, t3);	\
		}									\
		if (kk_ < (k1)) {							\
			__m512d b0_ = _mm512_loadu_pd((bt) + kk_ * 8);			\
											\
			s0 = _mm512_fmadd_pd(_mm512_set1_pd((a)[0][kk_]), b0_, s0);	\
			s1 = _mm512_fmadd_pd(_mm512_set1_pd((a)[1][kk_]), b0_, s1);	\
			s2 = _mm512_fmadd_pd(_mm512_set1_pd((a)[2][kk_]), b0_, s2);	\
			s3 = _mm512_fmadd_pd(_mm512_set1_pd((a)[3][kk_]), b0_, s3);	\
		}									\
	} while (0)

/*
 * dot8_avx512() for four rows at once (@a[r], the same @n k): each B vector loaded
 * once serves four rows, so the kernel is bound by FMAs, not by loads from L2.
 */
__attribute__((target("avx512f")))
static void dot8x4_avx512(const double *const a[4], const double *bt, size_t n,
			  const double *init, double *out)
{
	__m512d s0 = _mm512_loadu_pd(init), s1 = _mm512_loadu_pd(init + 8);
	__m512d s2 = _mm512_loadu_pd(init + 16), s3 = _mm512_loadu_pd(init + 24);
	__m512d t0 = _mm512_set1_pd(-0.0), t1 = t0, t2 = t0, t3 = t0;
	FMA8X4(a, bt, 0, n, s0, s1, s2, s3, t0, t1, t2, t3);
	_mm512_storeu_pd(out, _mm512_add_pd(s0, t0));
	_mm512_storeu_pd(out + 8, _mm512_add_pd(s1, t1));
	_mm512_storeu_pd(out + 16, _mm512_add_pd(s2, t2));
	_mm512_storeu_pd(out + 24, _mm512_add_pd(s3, t3));
}

/*
 * chunk8_blocks_avx512() for four rows at once: each 32-k block summed plainly per
 * row, then TwoSum of the block sums into each row's run; @ok[r] the lanes of row r
 * whose errors were all zero and whose sum is finite.
 */
__attribute__((target("avx512f,avx512dq")))
static void chunk8x4_blocks_avx512(const double *const a[4], const double *bt, size_t n,
				   const double *init, double *out, int *ok)
{
	__m512d s[4], t, bb, e;
	__m512i bad[4];

	for (int r = 0; r < 4; r++) {
		s[r] = _mm512_loadu_pd(init + 8 * r);
		bad[r] = _mm512_setzero_si512();
	}
	for (size_t k0 = 0; k0 < n; k0 += MXA_MX_BLOCK) {
		size_t k1 = k0 + MXA_MX_BLOCK < n ? k0 + MXA_MX_BLOCK : n;
		__m512d p0 = _mm512_set1_pd(-0.0), p1 = p0, p2 = p0, p3 = p0;
		__m512d q0 = p0, q1 = p0, q2 = p0, q3 = p0;

		FMA8X4(a, bt, k0, k1, p0, p1, p2, p3, q0, q1, q2, q3);
		p0 = _mm512_add_pd(p0, q0);
		p1 = _mm512_add_pd(p1, q1);
		p2 = _mm512_add_pd(p2, q2);
		p3 = _mm512_add_pd(p3, q3);
#define TWO_SUM(r, p)								\
		do {								\
			t = _mm512_add_pd(s[r], p);				\
			bb = _mm512_sub_pd(t, s[r]);				\
			e = _mm512_add_pd(_mm512_sub_pd(s[r], _mm512_sub_pd(t, bb)), \
					  _mm512_sub_pd(p, bb));		\
			bad[r] = _mm512_or_si512(bad[r], _mm512_castpd_si512(e)); \
			s[r] = t;						\
		} while (0)
		TWO_SUM(0, p0);
		TWO_SUM(1, p1);
		TWO_SUM(2, p2);
		TWO_SUM(3, p3);
#undef TWO_SUM
	}
	for (int r = 0; r < 4; r++) {
		__mmask8 fin = _mm512_cmp_pd_mask(_mm512_abs_pd(s[r]), _mm512_set1_pd(INFINITY),
						  _CMP_LT_OQ);

		_mm512_storeu_pd(out + 8 * r, s[r]);
		ok[r] = fin & ~_mm512_test_epi64_mask(bad[r], bad[r]) & 0xFF;
	}
}
#endif

#ifdef EXACT_HAVE_AVX2
/*
 * One chunk of @nr rows (1, or 4 on AVX-512) x @vec columns with the SIMD kernels:
 * @s[r * vec + l] the sums, @ok[r] the lanes of row r they proved exact. @plain: every
 * lane's plain sum is certified; @blocks: MX block sums are exact and the chunk starts
 * a block. Four rows share each B vector loaded.
 */
static void simd_chunk(unsigned vec, unsigned nr, const double *const ak[4],
		       const double *b, size_t n, const double *init, int plain, int blocks,
		       double *s, int *ok)
{
	if (plain) {
		if (nr == 4)
			dot8x4_avx512(ak, b, n, init, s);
		else if (vec == 8)
			dot8_avx512(ak[0], b, n, init, s);
		else
			dot4_avx2(ak[0], b, n, init, s);
		for (unsigned r = 0; r < nr; r++)
			ok[r] = (1 << vec) - 1;
	} else if (vec == 8 && blocks) {
		if (nr == 4)
			chunk8x4_blocks_avx512(ak, b, n, init, s, ok);
		else
			ok[0] = chunk8_blocks_avx512(ak[0], b, n, init, s);
	} else {
		for (unsigned r = 0; r < nr; r++)
			ok[r] = vec == 8 ? chunk8_avx512(ak[r], b, n, init + 8 * r, s + 8 * r)
					 : chunk4_avx2(ak[r], b, n, init + 4 * r, s + 4 * r);
	}
}

/*
 * Rows @i ... @i + @nr - 1 of the tile, @vec columns a step, B interleaved in @bt: per
 * chunk, the lanes the SIMD kernels prove exact are rounded from their sums, the others
 * redone by chunk_scalar(). Exact results do not depend on the kernel that found them.
 * @sta/@stb: the rows' and columns' statistics (NULL: no certificate).
 */
static void exact_rows_simd(const struct mxe_op *op, struct chunk_ctx *cc, size_t i,
			    unsigned nr, unsigned vec, size_t i0, size_t j0, size_t j1,
			    const double *av, const double *bv, const double *bt,
			    const struct exact_stat *sta, const struct exact_stat *stb, int blocks)
{
	size_t k = op->d.k, kc = op->k_chunk, nch = (k + kc - 1) / kc;
	int acc = !!(op->d.flags & MXA_GEMM_F_ACCUMULATE);

	for (size_t j = j0; j < j1; j += vec) {
		size_t nl = j1 - j < vec ? j1 - j : vec;
		double run[32], init[32], s[32];
		int have_run = acc;

		for (unsigned r = 0; r < nr; r++)
			for (size_t l = 0; l < nl; l++)
				run[vec * r + l] = mxe_op_load_c(op, i + r, j + l);
		for (size_t k0 = 0; k0 < k; k0 += kc) {
			size_t k1 = k0 + kc < k ? k0 + kc : k, c = k0 / kc;
			const double *b = bt + ((j - j0) / vec * k + k0) * vec;
			const double *ak[4];
			int ok[4], plain = sta != NULL;

			for (unsigned r = 0; r < nr; r++) {
				ak[r] = av + (i - i0 + r) * k + k0;
				for (size_t l = 0; l < vec; l++)
					init[vec * r + l] = have_run && l < nl ? run[vec * r + l] : -0.0;
				for (size_t l = 0; l < nl && plain; l++)
					plain = plain_sum_is_exact(sta + (i - i0 + r) * nch + c,
								   stb + (j + l - j0) * nch + c,
								   run[vec * r + l], have_run);
			}
			simd_chunk(vec, nr, ak, b, k1 - k0, init, plain,
				   blocks && k0 % MXA_MX_BLOCK == 0, s, ok);
			for (unsigned r = 0; r < nr; r++) {
				for (size_t l = 0; l < nl; l++) {
					double *v = &run[vec * r + l];

					if ((ok[r] >> l) & 1 && isfinite(init[vec * r + l]))
						*v = mxe_round_to_accum(s[vec * r + l], cc->td);
					else
						*v = chunk_scalar(cc, ak[r],
								  bv + (j + l - j0) * k + k0,
								  k1 - k0, *v, have_run);
				}
			}
			have_run = 1;
		}
		for (unsigned r = 0; r < nr; r++)
			for (size_t l = 0; l < nl; l++)
				mxe_op_store_d(op, i + r, j + l, run[vec * r + l]);
	}
}
#endif

/*
 * The A rows a thread decoded last, with their statistics: the tiles of one band of
 * rows (consecutive tasks) reuse them, so each row is decoded about once per thread
 * rather than once per tile. Keyed by the run (struct exact_job.id) and the band, and
 * kept only while no one else has used scratch slots 0 and 5 since (band_uses): a
 * worker shared by several device threads runs other jobs' tasks in between, whose
 * packing and per-output redo write those slots (test-engine-threads saw a tile
 * summed with another job's rows about once in 70 runs).
 */
static atomic_uint_fast64_t exact_runs;
static __thread uint64_t band_run;
static __thread size_t band_i0;
static __thread unsigned band_uses[2];	/* mxe_scratch_uses() of slots 0, 5 after the tile */

/*
 * One output tile. @a_ready: av (and, with @sta, the statistics at its start) already
 * hold rows i0 ... i1 - 1; @sta: MXE_ACCUM scratch for the A rows' statistics (tm
 * rows) followed by B's, NULL when it could not be had.
 */
static void exact_float_tile(const struct mxe_op *op, size_t i0, size_t i1,
			     size_t j0, size_t j1, double *av, double *bv, double *bt,
			     struct exact_stat *sta, unsigned tm, int a_ready)
{
	size_t k = op->d.k, kc = op->k_chunk, tn = j1 - j0;
	int acc = !!(op->d.flags & MXA_GEMM_F_ACCUMULATE);
	struct chunk_ctx cc;
	unsigned vec = 0;	/* SIMD lanes (columns) per chunk call, or 0 */
	size_t nch = (k + kc - 1) / kc;
	struct exact_stat *stb = sta ? sta + (size_t)tm * nch : NULL;
	int blocks = mx_block_sums_exact(op);

	cc.twoprod = op->cls == MXE_CLASS_F64;
	cc.td = op->d.type_d;
	mxe_accum_format(cc.td, &cc.prec, &cc.emin, &cc.emax);
	cc.hopper = op->d.accum == MXE_ACCUM_HOPPER;
	if (cc.hopper)
		mxe_hopper_init(&cc.hc, op);
	mxe_xacc_init(&cc.x);
	for (size_t i = i0; i < i1 && !a_ready; i++)
		mxe_op_row_values(op, 0, i, av + (i - i0) * k);
	for (size_t j = j0; j < j1; j++)
		mxe_op_row_values(op, 1, j, bv + (j - j0) * k);

#ifdef EXACT_HAVE_AVX2
	if (!cc.twoprod && !cc.hopper && bt && mxe_cpu_use_avx2()) {
		/* B of four (eight) columns interleaved per k, zero-padded */
		vec = mxe_cpu_simd() >= MXE_SIMD_AVX512 ? 8 : 4;
		for (size_t g = 0; g < (tn + vec - 1) / vec; g++)
			for (size_t kk = 0; kk < k; kk++)
				for (size_t l = 0; l < vec; l++)
					bt[(g * k + kk) * vec + l] =
						vec * g + l < tn ? bv[(vec * g + l) * k + kk] : 0.0;
		if (sta) {
			void (*stats)(const double *, size_t, size_t, struct exact_stat *) =
				vec == 8 ? chunk_stats_avx512 : chunk_stats;

			for (size_t i = i0; i < i1 && !a_ready; i++)
				stats(av + (i - i0) * k, k, kc, sta + (i - i0) * nch);
			for (size_t j = 0; j < tn; j++)
				stats(bv + j * k, k, kc, stb + j * nch);
		}
	} else {
		sta = stb = NULL;
	}
#else
	(void)bt;
	sta = stb = NULL;
#endif

	for (size_t i = i0; i < i1; i++) {
		const double *a = av + (i - i0) * k;

#ifdef EXACT_HAVE_AVX2
		if (vec) {
			/* four rows a pass where there are four left (AVX-512) */
			unsigned nr = vec == 8 && sta && i + 4 <= i1 ? 4 : 1;

			exact_rows_simd(op, &cc, i, nr, vec, i0, j0, j1, av, bv, bt, sta, stb,
					blocks);
			i += nr - 1;
			continue;
		}
#endif
		for (size_t j = j0; j < j1; j++) {
			double run = mxe_op_load_c(op, i, j);
			int have_run = acc;

			if (op->has_plan) {
				/* a library GEMM: its own chains over all of K */
				run = mxe_hopper_plan_dot(&cc.hc, op, a, bv + (j - j0) * k, run);
				mxe_op_store_d(op, i, j, run);
				continue;
			}
			for (size_t k0 = 0; k0 < k; k0 += kc) {
				size_t k1 = k0 + kc < k ? k0 + kc : k;
				const double *b = bv + (j - j0) * k + k0;

				if (cc.hopper)
					run = mxe_hopper_mma(&cc.hc, a + k0, b, k1 - k0, run, have_run);
				else
					run = chunk_scalar(&cc, a + k0, b, k1 - k0, run, have_run);
				have_run = 1;
			}
			mxe_op_store_d(op, i, j, run);
		}
	}
}

static void exact_int_tile(const struct mxe_op *op, size_t i0, size_t i1,
			   size_t j0, size_t j1, int64_t *av, int64_t *bv)
{
	size_t k = op->d.k, kc = op->k_chunk;
	int sat = !!(op->d.flags & MXA_GEMM_F_SATFINITE);
	int xor = op->cls == MXE_CLASS_B1 && (op->d.flags & MXE_GEMM_B1_XOR);

	for (size_t i = i0; i < i1; i++)
		for (size_t kk = 0; kk < k; kk++)
			av[(i - i0) * k + kk] = (int64_t)mxe_op_elem_a(op, i, kk);
	for (size_t j = j0; j < j1; j++)
		for (size_t kk = 0; kk < k; kk++)
			bv[(j - j0) * k + kk] = (int64_t)mxe_op_elem_b(op, j, kk);

	for (size_t i = i0; i < i1; i++) {
		const int64_t *a = av + (i - i0) * k;

		for (size_t j = j0; j < j1; j++) {
			const int64_t *b = bv + (j - j0) * k;
			int64_t run = mxe_op_load_c_int(op, i, j);

			for (size_t k0 = 0; k0 < k; k0 += kc) {
				size_t k1 = k0 + kc < k ? k0 + kc : k;
				int64_t s = 0;

				if (xor)
					for (size_t kk = k0; kk < k1; kk++)
						s += a[kk] ^ b[kk];
				else
					for (size_t kk = k0; kk < k1; kk++)
						s += a[kk] * b[kk];
				run = mxe_int32_finish(run + s, sat);
			}
			mxe_op_store_d_int(op, i, j, run);
		}
	}
}

static void exact_task(void *arg, unsigned phase, unsigned task)
{
	struct exact_job *job = arg;
	const struct mxe_op *op = job->op;
	size_t i0 = (size_t)(task / job->tiles_n) * job->tm;
	size_t j0 = (size_t)(task % job->tiles_n) * job->tn;
	size_t i1 = i0 + job->tm < op->d.m ? i0 + job->tm : op->d.m;
	size_t j1 = j0 + job->tn < op->d.n ? j0 + job->tn : op->d.n;
	size_t k = op->d.k, nch = (k + op->k_chunk - 1) / op->k_chunk;
	int kept = band_run == job->id && band_i0 == i0 && band_uses[0] == mxe_scratch_uses(0) &&
		   band_uses[1] == mxe_scratch_uses(5);
	void *av = mxe_scratch(0, (size_t)job->tm * k * 8);
	void *bv = mxe_scratch(1, (size_t)job->tn * k * 8);
	void *bt = op->cls == MXE_CLASS_FLOAT ? mxe_scratch(4, ((size_t)job->tn + 7) / 8 * 8 * k * 8)
					      : NULL;
	/* the same size for every tile of the run: a kept band's statistics stay put */
	struct exact_stat *sta = op->cls == MXE_CLASS_FLOAT ?
		mxe_scratch(5, ((size_t)job->tm + job->tn) * nch * sizeof(*sta)) : NULL;
	int a_ready;

	(void)phase;
	if (!av || !bv) {
		job->failed = 1;
		band_run = 0;
		return;
	}
	if (op->cls == MXE_CLASS_INT || op->cls == MXE_CLASS_B1) {
		exact_int_tile(op, i0, i1, j0, j1, av, bv);
		return;
	}
	/* the statistics are part of what is kept: without them, nothing is */
	a_ready = sta && kept;
	exact_float_tile(op, i0, i1, j0, j1, av, bv, bt, sta, job->tm, a_ready);
	band_run = sta ? job->id : 0;
	band_i0 = i0;
	band_uses[0] = mxe_scratch_uses(0);
	band_uses[1] = mxe_scratch_uses(5);
}

int mxe_exact_output(const struct mxe_op *op, size_t i, size_t j)
{
	size_t k = op->d.k;
	double *a = mxe_scratch(0, 2 * k * sizeof(double));

	if (!a)
		return -1;
	mxe_op_row_values(op, 0, i, a);
	mxe_op_row_values(op, 1, j, a + k);
	mxe_exact_output_rows(op, i, j, a, a + k);
	return 0;
}

void mxe_exact_output_rows(const struct mxe_op *op, size_t i, size_t j, const double *a,
			   const double *b)
{
	struct chunk_ctx cc = { .td = op->d.type_d };
	size_t k = op->d.k, kc = op->k_chunk;
	int acc = !!(op->d.flags & MXA_GEMM_F_ACCUMULATE);
	double run;

	mxe_accum_format(cc.td, &cc.prec, &cc.emin, &cc.emax);
	mxe_xacc_init(&cc.x);
	run = mxe_op_load_c(op, i, j);
	for (size_t k0 = 0; k0 < k; k0 += kc) {
		run = chunk_scalar(&cc, a + k0, b + k0, (k0 + kc < k ? kc : k - k0), run, acc);
		acc = 1;
	}
	mxe_op_store_d(op, i, j, run);
}

double mxe_exact_dot(const struct mxe_op *op, const double *a, const double *b)
{
	struct chunk_ctx cc = { .td = op->d.type_d };

	mxe_accum_format(cc.td, &cc.prec, &cc.emin, &cc.emax);
	mxe_xacc_init(&cc.x);
	return chunk_scalar(&cc, a, b, op->d.k, 0, 0);
}

static const struct mxe_pool_job_ops exact_ops = {
	.phase_tasks = exact_phase_tasks,
	.task = exact_task,
};

int mxe_exact_run(struct mxe_engine *eng, const struct mxe_op *op)
{
	mxe_stats_count_intrawave();
	struct exact_job job = { .op = op, .id = atomic_fetch_add(&exact_runs, 1) + 1 };
	size_t t = EXACT_DECODE_BYTES / (16 * (size_t)op->d.k);

	if (t > EXACT_TILE_MAX)
		t = EXACT_TILE_MAX;
	/* big tiles decode each row fewer times (64: 2.6x the speed of 16 at
	 * 512^3), but small operations still get a few tiles per thread */
	while (t > EXACT_TILE_MIN &&
	       ((op->d.m + t - 1) / t) * ((op->d.n + t - 1) / t) < EXACT_MIN_TILES)
		t /= 2;
	if (t < 1)
		t = 1;
	job.tm = job.tn = (unsigned)t;
	/*
	 * Taller tiles where there are rows enough: a thread keeps its band of A decoded
	 * across the band's tiles, so B, decoded once per tile, is decoded M / tm times
	 * (4 x 64 rows: MX 2048^3 2.1-2.6x the speed of 64 x 64 with the band kept; 8 x
	 * gained a few per cent more for twice the memory). The band's doubles stay
	 * within EXACT_BAND_BYTES.
	 */
	for (unsigned f = 4; f > 1; f /= 2) {
		if ((size_t)f * t * op->d.k * 8 <= EXACT_BAND_BYTES &&
		    ((op->d.m + f * t - 1) / (f * t)) * ((op->d.n + t - 1) / t) >= EXACT_MIN_TILES) {
			job.tm = (unsigned)(f * t);
			break;
		}
	}
	job.tiles_m = (op->d.m + job.tm - 1) / job.tm;
	job.tiles_n = (op->d.n + job.tn - 1) / job.tn;
	mxe_pool_run(eng, op->d.nthreads, &exact_ops, &job);
	return job.failed ? MXE_ENGINE_ENOMEM : 0;
}
