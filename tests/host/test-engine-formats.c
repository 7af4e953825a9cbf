// SPDX-License-Identifier: MIT
/*
 * test-engine-formats - every number format: decoding of every code,
 * rounding against brute-force references (nearest representable value,
 * ties to even), overflow with and without satfinite, NaN/Inf rules, the
 * measured H200 FP8 table, E8M0 rounding modes, integers and packing.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_engine.h"
#include "host_check.h"

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd32(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

/* Independent description of the small float formats. */
struct mini {
	enum mxa_isa_dtype t;
	int ebits, mbits, bias;
	int ieee;	/* all-ones exponent = Inf/NaN */
	int fn;		/* only S.1..1.1..1 is NaN (E4M3) */
	int ncodes;
};

static const struct mini minis[] = {
	{ MXA_DTYPE_E4M3, 4, 3, 7, 0, 1, 256 },
	{ MXA_DTYPE_E5M2, 5, 2, 15, 1, 0, 256 },
	{ MXA_DTYPE_E3M2, 3, 2, 3, 0, 0, 64 },
	{ MXA_DTYPE_E2M3, 2, 3, 1, 0, 0, 64 },
	{ MXA_DTYPE_E2M1, 2, 1, 1, 0, 0, 16 },
};

/* Value of a code by the textbook formula (NaN for NaN codes). */
static double mini_value(const struct mini *f, unsigned c)
{
	unsigned emax = (1u << f->ebits) - 1, mmax = (1u << f->mbits) - 1;
	unsigned s = c >> (f->ebits + f->mbits), e = (c >> f->mbits) & emax, m = c & mmax;
	double v;

	if (f->ieee && e == emax)
		return m ? NAN : (s ? -INFINITY : INFINITY);
	if (f->fn && e == emax && m == mmax)
		return NAN;
	v = e ? (1.0 + m / (double)(mmax + 1)) * pow(2.0, (int)e - f->bias)
	      : (m / (double)(mmax + 1)) * pow(2.0, 1 - f->bias);
	return s ? -v : v;
}

static float decode_mini(enum mxa_isa_dtype t, unsigned c)
{
	switch (t) {
	case MXA_DTYPE_E4M3:
		return mxe_cvt_e4m3_to_f32(c);
	case MXA_DTYPE_E5M2:
		return mxe_cvt_e5m2_to_f32(c);
	case MXA_DTYPE_E3M2:
		return mxe_cvt_e3m2_to_f32(c);
	case MXA_DTYPE_E2M3:
		return mxe_cvt_e2m3_to_f32(c);
	default:
		return mxe_cvt_e2m1_to_f32(c);
	}
}

static unsigned encode_mini(enum mxa_isa_dtype t, float x, int sat)
{
	switch (t) {
	case MXA_DTYPE_E4M3:
		return mxe_cvt_f32_to_e4m3(x, sat);
	case MXA_DTYPE_E5M2:
		return mxe_cvt_f32_to_e5m2(x, sat);
	case MXA_DTYPE_E3M2:
		return mxe_cvt_f32_to_e3m2(x, sat);
	case MXA_DTYPE_E2M3:
		return mxe_cvt_f32_to_e2m3(x, sat);
	default:
		return mxe_cvt_f32_to_e2m1(x, sat);
	}
}

/* Brute force: nearest finite code, ties to the even code; overflow past the
 * rounding midpoint above max -> *overflow. */
static unsigned brute_mini(const struct mini *f, double x, int *overflow)
{
	unsigned best = 0, sbit = 1u << (f->ebits + f->mbits), maxc = 0;
	double bestd = INFINITY, maxv = 0, ax = fabs(x), below = 0;

	for (unsigned c = 0; c < sbit; c++) {
		double v = mini_value(f, c);

		if (!isfinite(v))
			continue;
		if (v > maxv) {
			maxv = v;
			maxc = c;
		}
	}
	/* the value just below max */
	for (unsigned c = 0; c < sbit; c++) {
		double v = mini_value(f, c);

		if (isfinite(v) && v < maxv && v > below)
			below = v;
	}
	*overflow = 0;
	{
		double thr = maxv + (maxv - below) / 2;

		if (ax > thr || (ax == thr && (maxc & 1)))
			*overflow = 1;
	}
	for (unsigned c = 0; c < sbit; c++) {
		double v = mini_value(f, c), d;

		if (!isfinite(v))
			continue;
		d = fabs(v - ax);
		if (d < bestd || (d == bestd && !(c & 1))) {
			bestd = d;
			best = c;
		}
	}
	if (signbit(x))
		best |= sbit;
	return best;
}

static void test_minis(void)
{
	for (size_t fi = 0; fi < sizeof(minis) / sizeof(minis[0]); fi++) {
		const struct mini *f = &minis[fi];
		const char *nm = mxe_dtype_name(f->t);
		unsigned sbit = 1u << (f->ebits + f->mbits);
		int bad = 0, badrt = 0, badr = 0, nr = 0;

		/* every code decodes to the textbook value */
		for (int c = 0; c < f->ncodes; c++) {
			double ref = mini_value(f, c);
			float got = decode_mini(f->t, c);

			if (isnan(ref) ? !isnan(got) : (f2u(got) != f2u((float)ref)))
				bad++;
			/* and encodes back (sat and not) */
			if (!isnan(ref) && !isinf(ref) &&
			    (encode_mini(f->t, got, 0) != (unsigned)c ||
			     encode_mini(f->t, got, 1) != (unsigned)c))
				badrt++;
		}
		host_check(!bad, "%s: all %d codes decode to their value", nm, f->ncodes);
		host_check(!badrt, "%s: every finite code round-trips", nm);

		/* midpoints, neighbours and random values vs brute force */
		for (unsigned c = 0; c + 1 < sbit; c++) {
			double v0 = mini_value(f, c), v1 = mini_value(f, c + 1);
			double pts[5];

			if (!isfinite(v0) || !isfinite(v1))
				continue;
			pts[0] = (v0 + v1) / 2;
			pts[1] = nextafterf((float)pts[0], INFINITY);
			pts[2] = nextafterf((float)pts[0], -INFINITY);
			pts[3] = v0;
			pts[4] = v1 * 1.25;
			for (int p = 0; p < 5; p++) {
				for (int sg = 0; sg < 2; sg++) {
					float x = (float)(sg ? -pts[p] : pts[p]);
					int ovf;
					unsigned want = brute_mini(f, x, &ovf);

					nr++;
					if (ovf)
						continue;
					if (encode_mini(f->t, x, 0) != want ||
					    encode_mini(f->t, x, 1) != want)
						badr++;
				}
			}
		}
		for (int r = 0; r < 20000; r++) {
			float x = u2f((rnd32() & 0x80FFFFFFu) | ((uint32_t)(112 + rnd32() % 40) << 23));
			int ovf;
			unsigned want = brute_mini(f, x, &ovf);

			nr++;
			if (!ovf && (encode_mini(f->t, x, 0) != want || encode_mini(f->t, x, 1) != want))
				badr++;
		}
		host_check(!badr, "%s: %d ties/neighbours/random values round to nearest even", nm, nr);
	}
}

static void test_fp8_special(void)
{
	/* H200 cvt.rn.satfinite and the non-saturating path (NUMERICS_ISA 2.1) */
	static const struct {
		float x;
		uint8_t sat, nosat;
	} t[] = {
		{ 448.f, 0x7E, 0x7E }, { 464.f, 0x7E, 0x7E }, { 464.01f, 0x7E, 0x7F },
		{ 480.f, 0x7E, 0x7F }, { 1e6f, 0x7E, 0x7F }, { INFINITY, 0x7E, 0x7F },
		{ -INFINITY, 0xFE, 0xFF }, { NAN, 0x7F, 0x7F }, { -0.f, 0x80, 0x80 },
		{ 0x1p-9f, 0x01, 0x01 }, { 0x1p-10f, 0x00, 0x00 }, { 1.01f * 0x1p-10f, 0x01, 0x01 },
		{ -500.f, 0xFE, 0xFF }, { 1.0625f, 0x38, 0x38 }, { 1.1875f, 0x3A, 0x3A },
		{ 0.f, 0x00, 0x00 },
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (mxe_cvt_f32_to_e4m3(t[i].x, 1) != t[i].sat ||
		    mxe_cvt_f32_to_e4m3(t[i].x, 0) != t[i].nosat)
			bad++;
	host_check(!bad, "e4m3: the measured H200 table (satfinite and non-saturating)");

	host_check(mxe_cvt_f32_to_e5m2(57344.f, 0) == 0x7B && mxe_cvt_f32_to_e5m2(61440.f, 0) == 0x7C &&
	       mxe_cvt_f32_to_e5m2(61439.f, 0) == 0x7B && mxe_cvt_f32_to_e5m2(61440.f, 1) == 0x7B &&
	       mxe_cvt_f32_to_e5m2(INFINITY, 0) == 0x7C && mxe_cvt_f32_to_e5m2(-INFINITY, 0) == 0xFC &&
	       mxe_cvt_f32_to_e5m2(INFINITY, 1) == 0x7B && mxe_cvt_f32_to_e5m2(-INFINITY, 1) == 0xFB &&
	       mxe_cvt_f32_to_e5m2(NAN, 0) == 0x7F && mxe_cvt_f32_to_e5m2(NAN, 1) == 0x7F,
	       "e5m2: overflow to Inf, satfinite to 57344, NaN to 0x7F");
	host_check(f2u(mxe_cvt_e4m3_to_f32(0x7F)) == 0x7FFFFFFFu &&
	       f2u(mxe_cvt_e4m3_to_f32(0xFF)) == 0x7FFFFFFFu &&
	       f2u(mxe_cvt_e5m2_to_f32(0x7D)) == 0x7FFFFFFFu &&
	       mxe_cvt_e5m2_to_f32(0x7C) == INFINITY && mxe_cvt_e5m2_to_f32(0xFC) == -INFINITY,
	       "fp8 decode: NaN codes give the H200's 0x7FFFFFFF, e5m2 Inf");
	/* FP6/FP4: saturate always; NaN -> -0 (ml_dtypes) or +max (satfinite) */
	host_check(mxe_cvt_f32_to_e2m1(7.f, 0) == 0x7 && mxe_cvt_f32_to_e2m1(100.f, 0) == 0x7 &&
	       mxe_cvt_f32_to_e2m1(-INFINITY, 0) == 0xF && mxe_cvt_f32_to_e2m1(NAN, 0) == 0x8 &&
	       mxe_cvt_f32_to_e2m1(NAN, 1) == 0x7 && mxe_cvt_f32_to_e3m2(1e9f, 0) == 0x1F &&
	       mxe_cvt_f32_to_e3m2(NAN, 0) == 0x20 && mxe_cvt_f32_to_e2m3(-8.f, 1) == 0x3F &&
	       mxe_cvt_f32_to_e2m3(NAN, 1) == 0x1F && mxe_cvt_f32_to_e2m1(0.25f, 0) == 0x0 &&
	       mxe_cvt_f32_to_e2m1(0.26f, 0) == 0x1 && mxe_cvt_f32_to_e2m1(-0.25f, 0) == 0x8,
	       "fp6/fp4: saturation, NaN rules, subnormal ties");
}

static void test_f16_bf16(void)
{
	int bad16 = 0, bad_bf = 0, n = 0;

#ifdef __FLT16_MAX__
	for (int r = 0; r < 2000000; r++) {
		uint32_t u = rnd32();
		float x = u2f(u);
		_Float16 h;
		uint16_t ref;

		if (r & 1)	/* bias towards the f16 range */
			x = u2f((u & 0x80FFFFFFu) | ((uint32_t)(95 + (u >> 8) % 40) << 23));
		if (isnan(x))
			continue;
		h = (_Float16)x;
		memcpy(&ref, &h, 2);
		n++;
		if (mxe_cvt_f32_to_f16(x, 0) != ref)
			bad16++;
	}
	host_check(!bad16, "f16: %d random f32 values match the compiler's _Float16 RNE", n);
#else
	host_check(1, "f16: no _Float16 in this compiler # SKIP");
#endif
	host_check(mxe_cvt_f32_to_f16(65504.f, 0) == 0x7BFF && mxe_cvt_f32_to_f16(65520.f, 0) == 0x7C00 &&
	       mxe_cvt_f32_to_f16(65520.f, 1) == 0x7BFF && mxe_cvt_f32_to_f16(-INFINITY, 1) == 0xFBFF &&
	       mxe_cvt_f32_to_f16(NAN, 0) == 0x7FFF && mxe_cvt_f32_to_f16(0x1p-24f, 0) == 0x0001 &&
	       mxe_cvt_f32_to_f16(0x1p-25f, 0) == 0x0000 && mxe_cvt_f32_to_f16(0x1.8p-25f, 0) == 0x0001 &&
	       mxe_cvt_f16_to_f32(0x0001) == 0x1p-24f && mxe_cvt_f16_to_f32(0xFC00) == -INFINITY,
	       "f16: overflow, satfinite, NaN, subnormals");

	for (int r = 0; r < 2000000; r++) {
		uint32_t u = rnd32();
		float x = u2f(u);

		if (isnan(x))
			continue;
		if (mxe_cvt_f32_to_bf16(x, 0) != (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1)) >> 16))
			bad_bf++;
	}
	host_check(!bad_bf, "bf16: random f32 values match the RNE bit recipe");
	host_check(mxe_cvt_f32_to_bf16(NAN, 0) == 0x7FFF && mxe_cvt_f32_to_bf16(0x1.FFFFFEp127f, 0) == 0x7F80 &&
	       mxe_cvt_f32_to_bf16(0x1.FFFFFEp127f, 1) == 0x7F7F &&
	       mxe_cvt_f32_to_bf16(u2f(0x3F808000u), 0) == 0x3F80 &&
	       mxe_cvt_f32_to_bf16(u2f(0x3F818000u), 0) == 0x3F82 &&
	       mxe_cvt_bf16_to_f32(0x3F80) == 1.0f,
	       "bf16: overflow, satfinite, NaN, ties to even");
}

static void test_tf32(void)
{
	int bad = 0;

	for (int r = 0; r < 1000000; r++) {
		uint32_t u = rnd32();

		if ((u & 0x7F800000u) == 0x7F800000u)
			continue;
		if (mxe_cvt_f32_to_tf32(u2f(u), MXE_TF32_RNA, 0) != ((u + 0x1000u) & ~0x1FFFu))
			bad++;
	}
	host_check(!bad, "tf32: RNA (cvt.rna) matches the add-half-and-truncate recipe");
	/* x = 1 + t*2^-12, t in {3, 2, 6, 1, 1.5} (NUMERICS_ISA 2.3) */
	host_check(mxe_cvt_f32_to_tf32(1.f + 2 * 0x1p-12f, MXE_TF32_RNA, 0) == f2u(1.f + 4 * 0x1p-12f) &&
	       mxe_cvt_f32_to_tf32(1.f + 2 * 0x1p-12f, MXE_TF32_RNE, 0) == f2u(1.f) &&
	       mxe_cvt_f32_to_tf32(1.f + 6 * 0x1p-12f, MXE_TF32_RNE, 0) == f2u(1.f + 8 * 0x1p-12f) &&
	       mxe_cvt_f32_to_tf32(1.f + 3 * 0x1p-12f, MXE_TF32_RZ, 0) == f2u(1.f) &&
	       mxe_cvt_f32_to_tf32(1.f + 1.5f * 0x1p-12f, MXE_TF32_RNA, 0) == f2u(1.f),
	       "tf32: RNA, RNE and RZ on ties and near-ties");
	host_check(mxe_cvt_f32_to_tf32(u2f(0x7F7FFFFFu), MXE_TF32_RNA, 0) == 0x7F800000u &&
	       mxe_cvt_f32_to_tf32(u2f(0x7F7FFFFFu), MXE_TF32_RNA, 1) == 0x7F7FE000u &&
	       mxe_cvt_f32_to_tf32(u2f(0xFF8C2E4Fu), MXE_TF32_RNA, 0) == 0xFF8C2000u &&
	       mxe_cvt_f32_to_tf32(u2f(0x7F800001u), MXE_TF32_RNA, 0) != 0x7F800000u &&
	       mxe_cvt_f32_to_tf32(INFINITY, MXE_TF32_RNA, 0) == 0x7F800000u,
	       "tf32: overflow to Inf, satfinite, NaN payload kept and never Inf");
}

static void test_e8m0(void)
{
	int bad = 0;

	for (int c = 0; c < 255; c++)
		if (mxe_cvt_e8m0_to_f32(c) != (float)ldexp(1.0, c - 127))
			bad++;
	host_check(!bad && f2u(mxe_cvt_e8m0_to_f32(0xFF)) == 0x7FC00000u &&
	       f2u(mxe_cvt_e8m0_to_f32(0x00)) == 0x00400000u,
	       "e8m0: 2^(c-127), 0x00 = 2^-127 (f32 subnormal), 0xFF NaN");
	host_check(mxe_cvt_f32_to_e8m0(1.5f, MXE_E8M0_RZ, 0) == 127 &&
	       mxe_cvt_f32_to_e8m0(1.5f, MXE_E8M0_RP, 0) == 128 &&
	       mxe_cvt_f32_to_e8m0(1.5f, MXE_E8M0_RN, 0) == 128 &&
	       mxe_cvt_f32_to_e8m0(3.f, MXE_E8M0_RN, 0) == 129 &&
	       mxe_cvt_f32_to_e8m0(1.4f, MXE_E8M0_RN, 0) == 127 &&
	       mxe_cvt_f32_to_e8m0(1.f, MXE_E8M0_RP, 0) == 127 &&
	       mxe_cvt_f32_to_e8m0(0x1p-130f, MXE_E8M0_RP, 0) == 0 &&
	       mxe_cvt_f32_to_e8m0(0x1.8p127f, MXE_E8M0_RP, 0) == 0xFF &&
	       mxe_cvt_f32_to_e8m0(0x1.8p127f, MXE_E8M0_RP, 1) == 0xFE &&
	       mxe_cvt_f32_to_e8m0(NAN, MXE_E8M0_RP, 1) == 0xFF &&
	       mxe_cvt_f32_to_e8m0(INFINITY, MXE_E8M0_RZ, 1) == 0xFE &&
	       mxe_cvt_f32_to_e8m0(0.f, MXE_E8M0_RZ, 0) == 0x00 &&
	       mxe_cvt_f32_to_e8m0(0.f, MXE_E8M0_RN, 0) == 0xFF &&
	       mxe_cvt_f32_to_e8m0(-1.f, MXE_E8M0_RN, 0) == 0xFF,
	       "e8m0: RZ, RP (cvt.rp), RN ties up (ml_dtypes), clamps, NaN, satfinite");
}

static void test_ints(void)
{
	host_check(mxe_cvt_f32_to_s8(2.5f) == 2 && mxe_cvt_f32_to_s8(3.5f) == 4 &&
	       mxe_cvt_f32_to_s8(-2.5f) == -2 && mxe_cvt_f32_to_s8(200.f) == 127 &&
	       mxe_cvt_f32_to_s8(-200.f) == -128 && mxe_cvt_f32_to_s8(NAN) == 0 &&
	       mxe_cvt_f32_to_s4(7.6f) == 7 && mxe_cvt_f32_to_s4(-9.f) == -8,
	       "s8/s4: round to nearest even, saturate, NaN -> 0");
	host_check(mxe_cvt_f32_to_mxint8(1.f) == 0x40 && mxe_cvt_f32_to_mxint8(2.f) == 0x7F &&
	       mxe_cvt_f32_to_mxint8(-2.f) == 0x81 && mxe_cvt_f32_to_mxint8(1.f / 128) == 0 &&
	       mxe_cvt_f32_to_mxint8(3.f / 128) == 2 && mxe_cvt_mxint8_to_f32(0x81) == -127.f / 64 &&
	       mxe_cvt_mxint8_to_f32(0x80) == -2.f,
	       "mxint8: x*64 rounded, clamped symmetric to +-127/64, 0x80 decodes to -2");
}

static void test_wide(void)
{
	double d[4] = { 1.0625 + 0x1p-40, 1.0 + 0x1p-24 + 0x1p-50, -0x1p-1074, 1e300 };
	float f[4];
	uint8_t e[4];
	int32_t s32[5];
	float fs[5] = { 2147483520.f, 3e9f, -3e9f, NAN, -2.5f };
	int32_t in32[2] = { (1 << 24) + 1, (1 << 24) + 3 };
	uint32_t out[2];

	mxe_convert(MXA_DTYPE_E4M3, e, MXA_DTYPE_F64, d, 1, 0);
	host_check(e[0] == 0x39, "f64 -> e4m3 rounds once (1.0625 + 2^-40 -> 1.125, not the f32 tie)");
	mxe_convert(MXA_DTYPE_F32, f, MXA_DTYPE_F64, d, 4, 0);
	host_check(f[1] == 1.0f + 0x1p-23f && f[2] == 0.0f && signbit(f[2]) && f[3] == INFINITY,
	       "f64 -> f32: nearest even with a sticky bit, underflow to -0, overflow to Inf");
	mxe_convert(MXA_DTYPE_F32, f, MXA_DTYPE_F64, d, 4, MXE_CVT_SATFINITE);
	host_check(f[3] == 0x1.fffffep127f, "f64 -> f32 satfinite");
	mxe_convert(MXA_DTYPE_S32, s32, MXA_DTYPE_F32, fs, 5, 0);
	host_check(s32[0] == 2147483520 && s32[1] == INT32_MAX && s32[2] == INT32_MIN && s32[3] == 0 &&
	       s32[4] == -2, "f32 -> s32: saturating, NaN -> 0, ties to even");
	mxe_convert(MXA_DTYPE_F32, out, MXA_DTYPE_S32, in32, 2, 0);
	host_check(out[0] == f2u(16777216.f) && out[1] == f2u(16777220.f),
	       "s32 -> f32 rounds to nearest even (2^24+1 -> 2^24, 2^24+3 -> 2^24+4)");
}

static void test_packing(void)
{
	float src[9] = { 1, -2, 3, -4, 5, 6, -7, 0.5f, 7 };
	uint8_t s4[5] = { 0 }, e2m1[5] = { 0 }, b1[2] = { 0 };
	float back[9];
	int8_t s8[9];

	mxe_convert(MXA_DTYPE_S4, s4, MXA_DTYPE_F32, src, 9, 0);
	host_check(s4[0] == 0xE1 && s4[1] == 0xC3 && s4[4] == 0x07,
	       "s4: two per byte, lower index in the low nibble (0x%02x 0x%02x)", s4[0], s4[1]);
	mxe_convert(MXA_DTYPE_F32, back, MXA_DTYPE_S4, s4, 9, 0);
	host_check(back[1] == -2 && back[6] == -7 && back[7] == 0 && back[8] == 7,
	       "s4: packed round trip (0.5 -> 0 by RNE)");
	mxe_convert(MXA_DTYPE_E2M1, e2m1, MXA_DTYPE_F32, src, 9, 0);
	mxe_convert(MXA_DTYPE_F32, back, MXA_DTYPE_E2M1, e2m1, 9, 0);
	host_check(e2m1[0] == 0xC2 && back[4] == 4 && back[5] == 6 && back[6] == -6 && back[7] == 0.5f,
	       "e2m1: packed two per byte, 5 -> 4 (tie to even), -7 saturates");
	mxe_convert(MXA_DTYPE_B1, b1, MXA_DTYPE_F32, src, 9, 0);
	host_check(b1[0] == 0xFF && b1[1] == 0x01, "b1: eight per byte, LSB first");
	mxe_convert(MXA_DTYPE_S8, s8, MXA_DTYPE_F32, src, 9, 0);
	host_check(s8[3] == -4 && s8[7] == 0, "f32 -> s8 through mxe_convert");
	host_check(mxe_dtype_row_bytes(MXA_DTYPE_E2M1, 7) == 4 && mxe_dtype_row_bytes(MXA_DTYPE_B1, 9) == 2 &&
	       mxe_dtype_row_bytes(MXA_DTYPE_E3M2, 5) == 5 && mxe_dtype_row_bytes(MXA_DTYPE_F64, 3) == 24,
	       "row sizes of packed types");
	host_check(mxe_dtype_from_name("e4m3") == MXA_DTYPE_E4M3 && mxe_dtype_from_name("mxint8") == 15 &&
	       mxe_dtype_from_name("nope") == -1 && MXA_DTYPE_E2M1 == 14 && MXA_DTYPE_S32 == 11,
	       "dtype codes equal the MXGV codes; names parse");
	host_check(mxe_convert(MXA_DTYPE_COUNT, back, MXA_DTYPE_F32, src, 1, 0) == MXE_ENGINE_EINVAL_DTYPE,
	       "mxe_convert rejects an unknown type");
}

int main(void)
{
	ksft_print_header();
	test_minis();
	test_fp8_special();
	test_f16_bf16();
	test_tf32();
	test_e8m0();
	test_ints();
	test_wide();
	test_packing();
	return host_check_end();
}
