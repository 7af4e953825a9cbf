/* SPDX-License-Identifier: MIT */
/*
 * mxe_xacc.h - an exact accumulator ("superaccumulator") for the EXACT
 * numerics: any number of doubles (and int64 * 2^e terms) summed without
 * error, then rounded once, to nearest even, to a float format.
 *
 * The value is a fixed-point number of MXE_XACC_LIMBS 32-bit digits held in
 * int64 limbs (carry-save: a limb may take 2^31 additions before carries
 * are propagated). Bit position MXE_XACC_POS0 has weight 2^0, so positions
 * cover 2^-1088 ... 2^1215: every double and every f64 product error term.
 * Non-finite terms are counted apart and follow IEEE rules: NaN, or +Inf
 * together with -Inf, give NaN; one infinity sign gives that infinity.
 */
#ifndef MXE_XACC_H
#define MXE_XACC_H

#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#define MXE_XACC_LIMBS 72
#define MXE_XACC_POS0 1088

struct mxe_xacc {
	int64_t limb[MXE_XACC_LIMBS];
	int lo, hi;		/* limbs touched since the last clear */
	uint32_t nadd;		/* additions since the last carry pass */
	uint8_t nan, pinf, ninf;
	uint8_t nonneg;		/* a term other than -0 was added */
	uint8_t any;		/* a term was added */
};

void mxe_xacc_init(struct mxe_xacc *x);
void mxe_xacc_clear(struct mxe_xacc *x);
void mxe_xacc_carry(struct mxe_xacc *x);

/** Add m * 2^e (|m| < 2^63, e >= -MXE_XACC_POS0). */
static inline void mxe_xacc_add_int(struct mxe_xacc *x, int64_t m, int e)
{
	uint64_t mag;
	int p, idx, sh;
	uint64_t lo64, hi;

	x->any = 1;
	if (m == 0) {
		x->nonneg = 1;
		return;
	}
	x->nonneg = 1;
	mag = m < 0 ? (uint64_t)0 - (uint64_t)m : (uint64_t)m;
	p = e + MXE_XACC_POS0;
	idx = p >> 5;
	sh = p & 31;
	lo64 = mag << sh;
	hi = sh ? mag >> (64 - sh) : 0;
	if (m < 0) {
		x->limb[idx] -= (int64_t)(lo64 & 0xFFFFFFFFu);
		x->limb[idx + 1] -= (int64_t)(lo64 >> 32);
		x->limb[idx + 2] -= (int64_t)hi;
	} else {
		x->limb[idx] += (int64_t)(lo64 & 0xFFFFFFFFu);
		x->limb[idx + 1] += (int64_t)(lo64 >> 32);
		x->limb[idx + 2] += (int64_t)hi;
	}
	if (idx < x->lo)
		x->lo = idx;
	if (idx + 2 > x->hi)
		x->hi = idx + 2;
	if (++x->nadd >= (1u << 30))
		mxe_xacc_carry(x);
}

/** Add one double exactly. */
static inline void mxe_xacc_add(struct mxe_xacc *x, double v)
{
	uint64_t u;
	int be;
	int64_t m;

	memcpy(&u, &v, 8);
	be = (int)((u >> 52) & 0x7FF);
	if (be == 0x7FF) {
		x->any = 1;
		x->nonneg = 1;
		if (u & 0xFFFFFFFFFFFFFull)
			x->nan = 1;
		else if (u >> 63)
			x->ninf = 1;
		else
			x->pinf = 1;
		return;
	}
	m = (int64_t)(u & 0xFFFFFFFFFFFFFull);
	if (be == 0) {
		if (m == 0) {
			x->any = 1;
			if (!(u >> 63))
				x->nonneg = 1;
			return;
		}
		be = 1;
	} else {
		m |= (int64_t)1 << 52;
	}
	mxe_xacc_add_int(x, (u >> 63) ? -m : m, be - 1075);
}

/** Add the exact product a*b; @twoprod when a*b may not be exact in double. */
static inline void mxe_xacc_add_prod(struct mxe_xacc *x, double a, double b,
				     int twoprod)
{
	double p = a * b;

	mxe_xacc_add(x, p);
	if (twoprod && isfinite(p) && p != 0.0)
		mxe_xacc_add(x, fma(a, b, -p));
}

/**
 * mxe_xacc_add_dot() - add sum(a[i] * b[i]) exactly. Products must be exact
 * doubles unless @twoprod. Runs four double partial sums whose rounding
 * errors (TwoSum, error-free) go into the accumulator only when nonzero,
 * so typical data costs a few flops per product; non-finite data falls back
 * to adding each product.
 */
void mxe_xacc_add_dot(struct mxe_xacc *x, const double *a, const double *b,
		      size_t n, int twoprod);

/**
 * mxe_dot_try_double() - @init + sum(a[i] * b[i]) when it is exactly a
 * double: computed with TwoSum, it succeeds (returns 1, sum in *@out) only
 * when every rounding error was zero and everything is finite, so *@out is
 * the exact sum (and its sign of zero follows IEEE addition). Returns 0
 * otherwise: use the accumulator. Products must be exact doubles.
 */
int mxe_dot_try_double(const double *a, const double *b, size_t n, double init, double *out);

/**
 * mxe_xacc_round() - the sum rounded once to nearest even into a format with
 * @prec significand bits (incl. the hidden one), minimum normal exponent
 * @emin and maximum exponent @emax; returned as a double (exact). Overflow
 * gives +-Inf. The accumulator is left carried but otherwise unchanged.
 */
double mxe_xacc_round(struct mxe_xacc *x, int prec, int emin, int emax);

/* Format parameters for mxe_xacc_round(). */
#define MXE_XACC_F32 24, -126, 127
#define MXE_XACC_F16 11, -14, 15
#define MXE_XACC_BF16 8, -126, 127
#define MXE_XACC_F64 53, -1022, 1023

#endif /* MXE_XACC_H */
