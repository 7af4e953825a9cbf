// SPDX-License-Identifier: MIT
/*
 * mxe_xacc.c - carry propagation and the one rounding of the exact
 * accumulator (see mxe_xacc.h).
 */
#include "mxe_cpu.h"
#include "mxe_xacc.h"

void mxe_xacc_init(struct mxe_xacc *x)
{
	memset(x, 0, sizeof(*x));
	x->lo = MXE_XACC_LIMBS;
	x->hi = -1;
}

void mxe_xacc_clear(struct mxe_xacc *x)
{
	if (x->hi >= 0) {
		int top = x->hi + 1 < MXE_XACC_LIMBS ? x->hi + 1 : x->hi;

		memset(&x->limb[x->lo], 0, (size_t)(top - x->lo + 1) * sizeof(int64_t));
	}
	x->lo = MXE_XACC_LIMBS;
	x->hi = -1;
	x->nadd = 0;
	x->nan = x->pinf = x->ninf = x->nonneg = x->any = 0;
}

/* Propagate carries so that limbs lo..hi are digits in [0, 2^32) and limb
 * hi+1 holds the signed rest. */
void mxe_xacc_carry(struct mxe_xacc *x)
{
	int i;

	if (x->hi < 0)
		return;
	for (i = x->lo; i <= x->hi; i++) {
		int64_t c = x->limb[i] >> 32;	/* floor division by 2^32 */

		x->limb[i] -= c * ((int64_t)1 << 32);
		x->limb[i + 1] += c;
	}
	if (x->limb[x->hi + 1] != 0)
		x->hi++;
	x->nadd = 0;
}

static int limb_msb(uint64_t v)
{
	int b = 0;

	while (v >>= 1)
		b++;
	return b;
}

/* @n (<= 60) bits of the digits starting at bit position @pos (may be < 0). */
static uint64_t get_bits(const struct mxe_xacc *x, int pos, int n)
{
	uint64_t v = 0;
	int idx, sh;

	if (n <= 0)
		return 0;
	if (pos < 0) {
		/* the accumulator has no digits below position 0 */
		if (pos + n <= 0)
			return 0;
		return get_bits(x, 0, pos + n) << -pos;
	}
	idx = pos >> 5;
	sh = pos & 31;
	for (int j = 0; j < 3; j++) {
		int s = 32 * j - sh;
		uint64_t d;

		if (idx + j < x->lo || idx + j > x->hi)
			continue;
		d = (uint32_t)x->limb[idx + j];
		if (s < 0)
			v |= d >> -s;
		else if (s < 64)
			v |= d << s;
	}
	return n >= 64 ? v : v & ((((uint64_t)1) << n) - 1);
}

/* Any nonzero digit strictly below bit position @pos? */
static int any_below(const struct mxe_xacc *x, int pos)
{
	int idx, i;

	if (pos <= 0)
		return 0;
	idx = pos >> 5;
	for (i = x->lo; i < idx && i <= x->hi; i++)
		if (x->limb[i])
			return 1;
	if (idx >= x->lo && idx <= x->hi &&
	    ((uint64_t)x->limb[idx] & ((((uint64_t)1) << (pos & 31)) - 1)))
		return 1;
	return 0;
}

double mxe_xacc_round(struct mxe_xacc *x, int prec, int emin, int emax)
{
	int neg = 0, top, msbpos, e, q;
	uint64_t n;
	int rbit, sticky;
	double r, maxfin;

	if (x->nan || (x->pinf && x->ninf))
		return NAN;
	if (x->pinf)
		return INFINITY;
	if (x->ninf)
		return -INFINITY;

	mxe_xacc_carry(x);
	if (x->hi >= 0 && x->limb[x->hi] < 0) {
		/* Negative: negate the digits and carry again. */
		for (int i = x->lo; i <= x->hi; i++)
			x->limb[i] = -x->limb[i];
		neg = 1;
		mxe_xacc_carry(x);
	}
	top = -1;
	for (int i = x->hi; i >= x->lo; i--) {
		if (x->limb[i]) {
			top = i;
			break;
		}
	}
	if (top < 0)
		return (x->any && !x->nonneg) ? -0.0 : 0.0;

	msbpos = top * 32 + limb_msb((uint64_t)x->limb[top]);
	e = msbpos - MXE_XACC_POS0;		/* value in [2^e, 2^(e+1)) */
	q = (e > emin ? e : emin) - (prec - 1);	/* exponent of the last kept bit */
	if (q + MXE_XACC_POS0 > msbpos + 1) {
		n = 0;
		rbit = 0;
		sticky = 1;	/* below half an ulp, nonzero */
	} else {
		int qpos = q + MXE_XACC_POS0;

		n = get_bits(x, qpos, msbpos - qpos + 1);
		rbit = (int)get_bits(x, qpos - 1, 1);
		sticky = any_below(x, qpos - 1);
	}
	if (rbit && (sticky || (n & 1)))
		n++;
	r = ldexp((double)n, q);
	maxfin = ldexp(ldexp(1.0, prec) - 1.0, emax - prec + 1);
	if (r > maxfin)
		r = INFINITY;
	return neg ? -r : r;
}

/* Error-free transformation: s + e == a + b exactly (no overflow). */
static inline double two_sum(double a, double b, double *e)
{
	double s = a + b;
	double bb = s - a;

	*e = (a - (s - bb)) + (b - bb);
	return s;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/*
 * The same algorithm on 2 x 4 lanes of doubles. The result is the exact sum
 * whatever the partition into lanes, so it needs no bit-for-bit twin.
 * Returns 0 when a partial sum is not finite (the caller then takes the
 * special-value path).
 */
__attribute__((target("avx2,fma")))
static int add_dot_avx2(struct mxe_xacc *x, const double *a, const double *b, size_t n)
{
	__m256d s0 = _mm256_set1_pd(-0.0), s1 = s0;
	const __m256d zero = _mm256_setzero_pd();
	double lanes[8];
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m256d p0 = _mm256_mul_pd(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i));
		__m256d p1 = _mm256_mul_pd(_mm256_loadu_pd(a + i + 4), _mm256_loadu_pd(b + i + 4));
		__m256d t0 = _mm256_add_pd(s0, p0), t1 = _mm256_add_pd(s1, p1);
		__m256d bb0 = _mm256_sub_pd(t0, s0), bb1 = _mm256_sub_pd(t1, s1);
		__m256d e0 = _mm256_add_pd(_mm256_sub_pd(s0, _mm256_sub_pd(t0, bb0)),
					   _mm256_sub_pd(p0, bb0));
		__m256d e1 = _mm256_add_pd(_mm256_sub_pd(s1, _mm256_sub_pd(t1, bb1)),
					   _mm256_sub_pd(p1, bb1));
		int nz = _mm256_movemask_pd(_mm256_cmp_pd(e0, zero, _CMP_NEQ_UQ)) |
			 _mm256_movemask_pd(_mm256_cmp_pd(e1, zero, _CMP_NEQ_UQ)) << 4;

		s0 = t0;
		s1 = t1;
		if (nz) {
			_mm256_storeu_pd(lanes, e0);
			_mm256_storeu_pd(lanes + 4, e1);
			for (int l = 0; l < 8; l++)
				if ((nz >> l) & 1 && lanes[l] == lanes[l])
					mxe_xacc_add(x, lanes[l]);
		}
	}
	_mm256_storeu_pd(lanes, s0);
	_mm256_storeu_pd(lanes + 4, s1);
	for (int l = 0; l < 8; l++)
		if (!isfinite(lanes[l]))
			return 0;
	for (; i < n; i++) {
		double p = a[i] * b[i], e;

		lanes[i % 8] = two_sum(lanes[i % 8], p, &e);
		if (e != 0.0 && e == e)
			mxe_xacc_add(x, e);
		if (!isfinite(lanes[i % 8]))
			return 0;
	}
	for (int l = 0; l < 8; l++)
		mxe_xacc_add(x, lanes[l]);
	return 1;
}
#endif

static void add_specials(struct mxe_xacc *x, const double *a, const double *b, size_t n)
{
	/*
	 * Exact products of non-f64 inputs are below 2^300, so a partial sum
	 * can only become Inf/NaN through a non-finite product. The result is
	 * then decided by the special values alone (the rounding checks them
	 * first): record them and stop.
	 */
	for (size_t i = 0; i < n; i++) {
		double p = a[i] * b[i];

		if (!isfinite(p))
			mxe_xacc_add(x, p);
	}
}

void mxe_xacc_add_dot(struct mxe_xacc *x, const double *a, const double *b,
		      size_t n, int twoprod)
{
	/* -0 is the identity that keeps an all-(-0) sum negative. */
	double s[4] = { -0.0, -0.0, -0.0, -0.0 };
	size_t i = 0;

	if (twoprod) {
		for (; i < n; i++)
			mxe_xacc_add_prod(x, a[i], b[i], 1);
		return;
	}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (n >= 16 && mxe_cpu_use_avx2()) {
		if (!add_dot_avx2(x, a, b, n))
			add_specials(x, a, b, n);
		return;
	}
#endif
	for (; i + 4 <= n; i += 4) {
		for (int l = 0; l < 4; l++) {
			double e;

			s[l] = two_sum(s[l], a[i + l] * b[i + l], &e);
			if (e != 0.0 && e == e)
				mxe_xacc_add(x, e);
		}
	}
	for (; i < n; i++) {
		double e;

		s[0] = two_sum(s[0], a[i] * b[i], &e);
		if (e != 0.0 && e == e)
			mxe_xacc_add(x, e);
	}
	if (!isfinite(s[0]) || !isfinite(s[1]) || !isfinite(s[2]) || !isfinite(s[3])) {
		add_specials(x, a, b, n);
		return;
	}
	for (int l = 0; l < 4; l++)
		mxe_xacc_add(x, s[l]);
}

int mxe_dot_try_double(const double *a, const double *b, size_t n, double init, double *out)
{
	double s0 = init, s1 = -0.0, e, t;
	int ok = 1;
	size_t i = 0;

	/* Two chains hide the add latency; errors only need to be zero. */
	for (; i + 2 <= n; i += 2) {
		s0 = two_sum(s0, a[i] * b[i], &e);
		ok &= e == 0.0;
		s1 = two_sum(s1, a[i + 1] * b[i + 1], &e);
		ok &= e == 0.0;
	}
	if (i < n) {
		s0 = two_sum(s0, a[i] * b[i], &e);
		ok &= e == 0.0;
	}
	t = two_sum(s0, s1, &e);
	ok &= e == 0.0;
	if (!ok || !isfinite(t))
		return 0;	/* NaN errors (specials) also end here */
	*out = t;
	return 1;
}
