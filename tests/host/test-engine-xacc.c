// SPDX-License-Identifier: MIT
/*
 * test-engine-xacc - the exact accumulator behind the EXACT numerics:
 * cancellation, one rounding (ties to even) into f32/f16/bf16/f64,
 * subnormals, overflow, signed zeros, Inf/NaN rules, and the fast dot
 * product agreeing with term-by-term accumulation.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "mxe_xacc.h"
#include "host_check.h"

static uint64_t rs = 0x1234567ull;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static double sum_round(const double *v, int n, int prec, int emin, int emax)
{
	struct mxe_xacc x;

	mxe_xacc_init(&x);
	for (int i = 0; i < n; i++)
		mxe_xacc_add(&x, v[i]);
	return mxe_xacc_round(&x, prec, emin, emax);
}

#define S(...) sum_round((double[]){ __VA_ARGS__ }, \
			 sizeof((double[]){ __VA_ARGS__ }) / sizeof(double), MXE_XACC_F32)

int main(void)
{
	struct mxe_xacc x;
	int bad;

	ksft_print_header();
	host_check(S(1e300, 1.0, -1e300) == 1.0 && S(0x1p-1074, 1e308, -1e308) == 0.0 &&
	       sum_round((double[]){ 0x1p-1074, 1e308, -1e308 }, 3, MXE_XACC_F64) == 0x1p-1074,
	       "exact cancellation across the whole double range");
	host_check(S(1.0, 0x1p-24) == 1.0 && S(1.0, 0x1p-24, 0x1p-80) == 1.0 + 0x1p-23 &&
	       S(1.0 + 0x1p-23, 0x1p-24) == 1.0 + 0x1p-22 && S(-1.0, -0x1p-24, -0x1p-90) == -1.0 - 0x1p-23,
	       "f32: one rounding to nearest, ties to even, sticky bits far below");
	host_check(S(0x1p-150) == 0.0 && S(0x1p-150, 0x1p-200) == 0x1p-149 && S(0x1.8p-149) == 0x1p-148 &&
	       S(0x1p-126, -0x1p-149) == 0x1p-126 - 0x1p-149,
	       "f32: subnormal results round at 2^-149");
	host_check(S(FLT_MAX, 0x1p103) == INFINITY && S(FLT_MAX, 0x1p102) == FLT_MAX &&
	       S(-FLT_MAX, -0x1p104) == -INFINITY && S(1e300, 1e300) == INFINITY,
	       "f32: overflow to Inf exactly at the rounding midpoint");
	host_check(signbit(S(-0.0, -0.0)) && !signbit(S(-0.0, 0.0)) && !signbit(S(1.0, -1.0)) &&
	       !signbit(sum_round(NULL, 0, MXE_XACC_F32)) && signbit(S(-0.0)),
	       "signed zeros: -0 only when every term is -0");
	host_check(isnan(S(NAN, 1.0)) && isnan(S(INFINITY, -INFINITY)) && S(INFINITY, 1.0, -1e300) == INFINITY &&
	       S(-INFINITY, 5.0) == -INFINITY,
	       "Inf/NaN: NaN wins, opposite infinities give NaN");
	host_check(sum_round((double[]){ 1.0, 0x1p-11 }, 2, MXE_XACC_F16) == 1.0 &&
	       sum_round((double[]){ 1.0, 0x1p-11, 0x1p-40 }, 3, MXE_XACC_F16) == 1.0 + 0x1p-10 &&
	       sum_round((double[]){ 65504.0, 16.0 }, 2, MXE_XACC_F16) == INFINITY &&
	       sum_round((double[]){ 65504.0, 15.9 }, 2, MXE_XACC_F16) == 65504.0 &&
	       sum_round((double[]){ 0x1p-25 }, 1, MXE_XACC_F16) == 0.0 &&
	       sum_round((double[]){ 1.0, 0x1p-8 }, 2, MXE_XACC_BF16) == 1.0,
	       "f16/bf16 rounding: ties, overflow at 65520, subnormals");

	/* integers: the exact sum is known */
	bad = 0;
	mxe_xacc_init(&x);
	for (int r = 0; r < 200; r++) {
		int64_t ref = 0;

		mxe_xacc_clear(&x);
		for (int i = 0; i < 1000; i++) {
			int64_t v = (int64_t)(rnd() >> 24) - ((int64_t)1 << 39);

			ref += v;
			mxe_xacc_add(&x, (double)v);
		}
		if (mxe_xacc_round(&x, MXE_XACC_F64) != (double)ref)
			bad++;
	}
	host_check(!bad, "200 sums of 1000 random 40-bit integers are exact");

	/* f64 products through TwoProd */
	{
		double a[2] = { 1.0 + 0x1p-30, -1.0 }, b[2] = { 1.0 - 0x1p-30, 1.0 };

		mxe_xacc_clear(&x);
		mxe_xacc_add_dot(&x, a, b, 2, 1);
		host_check(mxe_xacc_round(&x, MXE_XACC_F64) == -0x1p-60,
		       "f64 dot: (1+2^-30)(1-2^-30) - 1 = -2^-60 exactly");
	}

	/* the TwoSum dot product equals adding every product */
	bad = 0;
	for (int r = 0; r < 2000; r++) {
		double a[67], b[67];
		struct mxe_xacc y;
		int n = 1 + (int)(rnd() % 67);

		for (int i = 0; i < n; i++) {
			a[i] = ldexp((double)(int)(rnd() % 511) - 255, (int)(rnd() % 60) - 30);
			b[i] = ldexp((double)(int)(rnd() % 511) - 255, (int)(rnd() % 60) - 30);
		}
		if (r % 7 == 0)
			a[rnd() % n] = r % 14 ? INFINITY : NAN;
		mxe_xacc_clear(&x);
		mxe_xacc_add(&x, 0.375);
		mxe_xacc_add_dot(&x, a, b, n, 0);
		mxe_xacc_init(&y);
		mxe_xacc_add(&y, 0.375);
		for (int i = 0; i < n; i++)
			mxe_xacc_add_prod(&y, a[i], b[i], 0);
		double p = mxe_xacc_round(&x, MXE_XACC_F32), q = mxe_xacc_round(&y, MXE_XACC_F32);

		if (!(p == q || (isnan(p) && isnan(q))) || signbit(p) != signbit(q))
			bad++;
	}
	host_check(!bad, "TwoSum dot product == term-by-term exact sum (2000 cases, with Inf/NaN)");
	return host_check_end();
}
