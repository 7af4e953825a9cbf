// SPDX-License-Identifier: MIT
/*
 * mxe_formats.c - number formats and conversions.
 *
 * DOC: one encoder for every float format
 *
 * Every conversion decodes its source to the exact value in a double (all
 * MXA types but f64 are exact in f32, so in f64 too), then rounds once into
 * the destination by mxe_encode_value(). The encoder is generic over
 * "minifloats" described by (exponent bits, mantissa bits, bias, what the
 * all-ones exponent means): f16, bf16, tf32, E4M3, E5M2, E3M2, E2M3, E2M1.
 * Rounding works on the exact value: find its binade, divide by the quantum
 * of the binade (a power of two, exact), round the integer quotient, and
 * treat overflow per format. Only tf32 (ties away) and E8M0 (directed) round
 * differently, and both are simple enough to do on the bits.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_formats.h"

enum fmt_special {
	FMT_IEEE,	/* all-ones exponent: Inf (mantissa 0) or NaN */
	FMT_FN,		/* E4M3: no Inf; only S.1111.111 is NaN */
	FMT_NONE,	/* FP6/FP4: every code is finite; saturate */
};

struct fmt {
	uint8_t ebits, mbits;
	int bias;
	enum fmt_special special;
	double maxfin;
	uint32_t nan_code;	/* the NaN we write (positive) */
};

static const struct fmt fmt_f16 = { 5, 10, 15, FMT_IEEE, 65504.0, 0x7FFF };
static const struct fmt fmt_bf16 = { 8, 7, 127, FMT_IEEE, 0x1.FEp127, 0x7FFF };
static const struct fmt fmt_tf32 = { 8, 10, 127, FMT_IEEE, 0x1.FFCp127, 0x3FF };
static const struct fmt fmt_e4m3 = { 4, 3, 7, FMT_FN, 448.0, 0x7F };
static const struct fmt fmt_e5m2 = { 5, 2, 15, FMT_IEEE, 57344.0, 0x7F };
static const struct fmt fmt_e3m2 = { 3, 2, 3, FMT_NONE, 28.0, 0 };
static const struct fmt fmt_e2m3 = { 2, 3, 1, FMT_NONE, 7.5, 0 };
static const struct fmt fmt_e2m1 = { 2, 1, 1, FMT_NONE, 6.0, 0 };

static const struct fmt *fmt_of(enum mxa_isa_dtype t)
{
	switch (t) {
	case MXA_DTYPE_F16:
		return &fmt_f16;
	case MXA_DTYPE_BF16:
		return &fmt_bf16;
	case MXA_DTYPE_TF32:
		return &fmt_tf32;
	case MXA_DTYPE_E4M3:
		return &fmt_e4m3;
	case MXA_DTYPE_E5M2:
		return &fmt_e5m2;
	case MXA_DTYPE_E3M2:
		return &fmt_e3m2;
	case MXA_DTYPE_E2M3:
		return &fmt_e2m3;
	case MXA_DTYPE_E2M1:
	case MXA_DTYPE_NVFP4:	/* its elements; the block scales are the caller's */
		return &fmt_e2m1;
	default:
		return NULL;
	}
}

unsigned mxe_dtype_float_bits(enum mxa_isa_dtype t, int *bias)
{
	const struct fmt *f = fmt_of(t);

	if (!f)
		return 0;
	*bias = f->bias;
	return f->mbits;
}

static double fmt_decode(const struct fmt *f, uint32_t code)
{
	uint32_t mmask = (1u << f->mbits) - 1;
	uint32_t emask = (1u << f->ebits) - 1;
	int sign = (code >> (f->ebits + f->mbits)) & 1;
	uint32_t e = (code >> f->mbits) & emask;
	uint32_t m = code & mmask;
	double v;

	if (f->special == FMT_IEEE && e == emask) {
		if (m)
			return NAN;
		return sign ? -INFINITY : INFINITY;
	}
	if (f->special == FMT_FN && e == emask && m == mmask)
		return NAN;
	if (e == 0)
		v = ldexp((double)m, 1 - f->bias - f->mbits);
	else
		v = ldexp((double)(m | (mmask + 1)), (int)e - f->bias - f->mbits);
	return sign ? -v : v;
}

/* Round-to-nearest-even of a non-negative double holding an integer plus a
 * fraction (exact arithmetic: r has few bits). */
static double rne(double r)
{
	double fl = floor(r);
	double diff = r - fl;

	if (diff > 0.5 || (diff == 0.5 && fmod(fl, 2.0) != 0.0))
		fl += 1.0;
	return fl;
}

static uint32_t fmt_max_code(const struct fmt *f)
{
	uint32_t emask = (1u << f->ebits) - 1;
	uint32_t mmask = (1u << f->mbits) - 1;

	switch (f->special) {
	case FMT_IEEE:
		return ((emask - 1) << f->mbits) | mmask;
	case FMT_FN:
		return (emask << f->mbits) | (mmask - 1);
	default:
		return (emask << f->mbits) | mmask;
	}
}

/*
 * fmt_encode() - round @x (exact) to nearest even in format @f.
 * Overflow: with @sat, or for formats without Inf/NaN, to +-max finite;
 * otherwise IEEE formats give +-Inf and E4M3 gives NaN (sign kept).
 */
static uint32_t fmt_encode(const struct fmt *f, double x, int sat)
{
	int nbits = f->ebits + f->mbits;
	uint32_t sign = signbit(x) ? 1u << nbits : 0;
	uint32_t emask = (1u << f->ebits) - 1;
	uint32_t maxc = fmt_max_code(f);
	int emin = 1 - f->bias;
	double a = fabs(x), r, n;
	int e, qe;

	if (isnan(x)) {
		if (f->special == FMT_NONE)
			return sat ? maxc : (1u << nbits);	/* +max | -0 */
		return f->nan_code;
	}
	if (isinf(x)) {
		if (sat || f->special == FMT_NONE)
			return sign | maxc;
		if (f->special == FMT_IEEE)
			return sign | (emask << f->mbits);
		return sign | f->nan_code;
	}
	if (a == 0.0)
		return sign;

	frexp(a, &e);
	e -= 1;			/* a in [2^e, 2^(e+1)) */
	if (e < emin)
		e = emin;
	qe = e - f->mbits;
	r = ldexp(a, -qe);
	n = rne(r);
	if (ldexp(n, qe) > f->maxfin) {
		if (sat || f->special == FMT_NONE)
			return sign | maxc;
		if (f->special == FMT_IEEE)
			return sign | (emask << f->mbits);
		return sign | f->nan_code;
	}
	if (n >= ldexp(1.0, f->mbits + 1)) {
		n = ldexp(1.0, f->mbits);
		e += 1;
	}
	if (n < ldexp(1.0, f->mbits))	/* subnormal (or zero) */
		return sign | (uint32_t)n;
	return sign | ((uint32_t)(e + f->bias) << f->mbits) |
	       ((uint32_t)n - (1u << f->mbits));
}

/* ---- decode tables ---------------------------------------------------- */

static float lut_e4m3[256], lut_e5m2[256], lut_e8m0[256], lut_e3m2[256];
static float lut_e2m3[256], lut_e2m1[256], lut_mxint8[256], lut_s8[256];
static float lut_s4[256];
static pthread_once_t lut_once = PTHREAD_ONCE_INIT;

static float nan_f32(void)
{
	return mxe_bits_f32(MXE_F32_CANON_NAN);
}

static void lut_init(void)
{
	for (int i = 0; i < 256; i++) {
		double v;

		v = fmt_decode(&fmt_e4m3, i);
		lut_e4m3[i] = isnan(v) ? nan_f32() : (float)v;
		v = fmt_decode(&fmt_e5m2, i);
		lut_e5m2[i] = isnan(v) ? nan_f32() : (float)v;
		/* 2^-127 is an f32 subnormal: ldexp, no FTZ. */
		lut_e8m0[i] = i == 0xFF ? mxe_bits_f32(0x7FC00000u) :
					  (float)ldexp(1.0, i - 127);
		lut_e3m2[i] = (float)fmt_decode(&fmt_e3m2, i & 0x3F);
		lut_e2m3[i] = (float)fmt_decode(&fmt_e2m3, i & 0x3F);
		lut_e2m1[i] = (float)fmt_decode(&fmt_e2m1, i & 0xF);
		lut_mxint8[i] = (float)ldexp((double)(int8_t)i, -6);
		lut_s8[i] = (float)(int8_t)i;
		lut_s4[i] = (float)(((i & 0xF) ^ 8) - 8);
	}
}

const float *mxe_decode_lut(enum mxa_isa_dtype t)
{
	pthread_once(&lut_once, lut_init);
	switch (t) {
	case MXA_DTYPE_E4M3:
		return lut_e4m3;
	case MXA_DTYPE_E5M2:
		return lut_e5m2;
	case MXA_DTYPE_E8M0:
		return lut_e8m0;
	case MXA_DTYPE_E3M2:
		return lut_e3m2;
	case MXA_DTYPE_E2M3:
		return lut_e2m3;
	case MXA_DTYPE_E2M1:
	case MXA_DTYPE_NVFP4:
		return lut_e2m1;
	case MXA_DTYPE_MXINT8:
		return lut_mxint8;
	case MXA_DTYPE_S8:
		return lut_s8;
	case MXA_DTYPE_S4:
		return lut_s4;
	default:
		return NULL;
	}
}

/* ---- type properties --------------------------------------------------- */

static const struct {
	const char *name;
	uint8_t bits;
} dtype_tab[MXA_DTYPE_COUNT] = {
	[MXA_DTYPE_F32] = { "f32", 32 },	[MXA_DTYPE_F16] = { "f16", 16 },
	[MXA_DTYPE_BF16] = { "bf16", 16 },	[MXA_DTYPE_TF32] = { "tf32", 32 },
	[MXA_DTYPE_F64] = { "f64", 64 },	[MXA_DTYPE_E4M3] = { "e4m3", 8 },
	[MXA_DTYPE_E5M2] = { "e5m2", 8 },	[MXA_DTYPE_E8M0] = { "e8m0", 8 },
	[MXA_DTYPE_S8] = { "s8", 8 },	[MXA_DTYPE_S4] = { "s4", 4 },
	[MXA_DTYPE_B1] = { "b1", 1 },	[MXA_DTYPE_S32] = { "s32", 32 },
	[MXA_DTYPE_E3M2] = { "e3m2", 8 },	[MXA_DTYPE_E2M3] = { "e2m3", 8 },
	[MXA_DTYPE_E2M1] = { "e2m1", 4 },	[MXA_DTYPE_MXINT8] = { "mxint8", 8 },
	[MXA_DTYPE_NVFP4] = { "nvfp4", 4 },
};

unsigned mxe_dtype_bits(enum mxa_isa_dtype t)
{
	return (unsigned)t < MXA_DTYPE_COUNT ? dtype_tab[t].bits : 0;
}

size_t mxe_dtype_row_bytes(enum mxa_isa_dtype t, size_t n)
{
	unsigned bits = mxe_dtype_bits(t);

	if (bits >= 8)
		return n * (bits / 8);
	return (n * bits + 7) / 8;
}

const char *mxe_dtype_name(enum mxa_isa_dtype t)
{
	return (unsigned)t < MXA_DTYPE_COUNT ? dtype_tab[t].name : "?";
}

int mxe_dtype_from_name(const char *name)
{
	for (int i = 0; i < MXA_DTYPE_COUNT; i++)
		if (name && !strcmp(name, dtype_tab[i].name))
			return i;
	return -1;
}

int mxe_dtype_is_mx_elem(enum mxa_isa_dtype t)
{
	return mxa_dtype_scale_block(t) == MXA_MX_BLOCK;
}

double mxe_dtype_max_finite(enum mxa_isa_dtype t)
{
	const struct fmt *f = fmt_of(t);

	if (f)
		return f->maxfin;
	switch (t) {
	case MXA_DTYPE_MXINT8:
		return 127.0 / 64.0;
	case MXA_DTYPE_F32:
		return FLT_MAX;
	default:
		return 0.0;
	}
}

int mxe_dtype_emax_elem(enum mxa_isa_dtype t)
{
	switch (t) {
	case MXA_DTYPE_E4M3:
		return 8;
	case MXA_DTYPE_E5M2:
		return 15;
	case MXA_DTYPE_E3M2:
		return 4;
	case MXA_DTYPE_E2M3:
	case MXA_DTYPE_E2M1:
	case MXA_DTYPE_NVFP4:
		return 2;
	default:
		return 0;	/* MXINT8 */
	}
}

/* ---- codes <-> values ---------------------------------------------------- */

double mxe_decode_code(enum mxa_isa_dtype t, uint64_t code)
{
	const struct fmt *f;

	switch (t) {
	case MXA_DTYPE_F32:
	case MXA_DTYPE_TF32:
		return mxe_bits_f32((uint32_t)code);
	case MXA_DTYPE_F64:
		return mxe_bits_f64(code);
	case MXA_DTYPE_S8:
		return (int8_t)code;
	case MXA_DTYPE_S4:
		return (int)((code & 0xF) ^ 8) - 8;
	case MXA_DTYPE_B1:
		return code & 1;
	case MXA_DTYPE_S32:
		return (int32_t)code;
	case MXA_DTYPE_MXINT8:
		return ldexp((double)(int8_t)code, -6);
	case MXA_DTYPE_E8M0:
		return (code & 0xFF) == 0xFF ? NAN : ldexp(1.0, (int)(code & 0xFF) - 127);
	default:
		f = fmt_of(t);
		return f ? fmt_decode(f, (uint32_t)code) : NAN;
	}
}

static uint32_t tf32_bits(float x, enum mxe_tf32_round mode, int sat)
{
	/* x is only looked at through its bits: no FP operation may quiet
	 * a signalling NaN on the way. */
	uint32_t u = mxe_f32_bits(x);
	uint32_t sign = u & 0x80000000u;

	if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu)) {
		/* The H200 keeps sign and payload and clears the low 13 bits. */
		u &= ~0x1FFFu;
		if ((u & 0x7FFFFFFFu) == 0x7F800000u)
			u |= 0x00400000u;
		return u;
	}
	if ((u & 0x7FFFFFFFu) == 0x7F800000u)
		return sat ? sign | 0x7F7FE000u : u;
	switch (mode) {
	case MXE_TF32_RNA:
		u += 0x1000u;
		break;
	case MXE_TF32_RNE:
		u += 0xFFFu + ((u >> 13) & 1);
		break;
	default:
		break;
	}
	u &= ~0x1FFFu;
	if (sat && (u & 0x7FFFFFFFu) == 0x7F800000u)
		u = sign | 0x7F7FE000u;
	return u;
}

static uint8_t e8m0_encode(double x, unsigned flags)
{
	int sat = flags & MXE_CVT_SATFINITE;
	int e;
	double f;

	if (isnan(x) || x < 0.0)
		return 0xFF;
	if (x == 0.0)
		return (flags & MXE_CVT_E8M0_RN) ? 0xFF : 0x00;
	if (isinf(x))
		return sat ? 0xFE : 0xFF;
	f = frexp(x, &e);	/* x = f * 2^e, f in [0.5, 1) */
	e -= 1;			/* x = 2f * 2^e, 2f in [1, 2) */
	if (flags & MXE_CVT_E8M0_RZ) {
		/* floor */
	} else if (flags & MXE_CVT_E8M0_RN) {
		if (2.0 * f >= 1.5)
			e += 1;
	} else if (2.0 * f > 1.0) {	/* RP: ceil */
		e += 1;
	}
	if (e < -127)
		return 0x00;
	if (e > 127)
		return sat ? 0xFE : 0xFF;
	return (uint8_t)(e + 127);
}

static int64_t int_sat_rne(double x, int64_t lo, int64_t hi)
{
	double r;

	if (isnan(x))
		return 0;
	if (x <= (double)lo)
		return lo;
	if (x >= (double)hi)
		return hi;
	r = x < 0 ? -rne(-x) : rne(x);
	return (int64_t)r;
}

uint64_t mxe_encode_value(enum mxa_isa_dtype t, double x, unsigned flags)
{
	int sat = flags & MXE_CVT_SATFINITE;
	const struct fmt *f;

	switch (t) {
	case MXA_DTYPE_F32: {
		float v;

		if (isnan(x))
			return MXE_F32_CANON_NAN;
		v = (float)x;
		if (sat && isinf(v))
			v = copysignf(FLT_MAX, v);
		return mxe_f32_bits(v);
	}
	case MXA_DTYPE_F64:
		return isnan(x) ? 0x7FFFFFFFFFFFFFFFull : mxe_f64_bits(x);
	case MXA_DTYPE_TF32: {
		enum mxe_tf32_round mode = MXE_TF32_RNA;
		float v = (float)x;

		if (flags & MXE_CVT_TF32_RNE)
			mode = MXE_TF32_RNE;
		if (flags & MXE_CVT_TF32_RZ)
			mode = MXE_TF32_RZ;
		/* Inputs wider than f32 are first rounded to f32 exactly, which
		 * is only lossless for f32 sources (the only tf32 source). */
		return tf32_bits(v, mode, sat);
	}
	case MXA_DTYPE_E8M0:
		return e8m0_encode(x, flags);
	case MXA_DTYPE_S8:
		return (uint8_t)int_sat_rne(x, -128, 127);
	case MXA_DTYPE_S4:
		return (uint8_t)int_sat_rne(x, -8, 7) & 0xF;
	case MXA_DTYPE_S32:
		return (uint32_t)int_sat_rne(x, INT32_MIN, INT32_MAX);
	case MXA_DTYPE_MXINT8:
		return (uint8_t)int_sat_rne(isnan(x) ? x : ldexp(x, 6), -127, 127);
	case MXA_DTYPE_B1:
		return x != 0.0;
	default:
		f = fmt_of(t);
		return f ? fmt_encode(f, x, sat) : 0;
	}
}

void mxe_row_store_code(enum mxa_isa_dtype t, void *row, size_t i, uint64_t code)
{
	uint8_t *p = row;

	switch (t) {
	case MXA_DTYPE_E2M1:
	case MXA_DTYPE_NVFP4:
	case MXA_DTYPE_S4: {
		unsigned sh = (i & 1) * 4;

		p[i >> 1] = (uint8_t)((p[i >> 1] & ~(0xF << sh)) | ((code & 0xF) << sh));
		break;
	}
	case MXA_DTYPE_B1: {
		unsigned sh = i & 7;

		p[i >> 3] = (uint8_t)((p[i >> 3] & ~(1u << sh)) | ((code & 1) << sh));
		break;
	}
	case MXA_DTYPE_E3M2:
	case MXA_DTYPE_E2M3:
		p[i] = code & 0x3F;
		break;
	case MXA_DTYPE_F16:
	case MXA_DTYPE_BF16: {
		uint16_t v = (uint16_t)code;

		memcpy(p + 2 * i, &v, 2);
		break;
	}
	case MXA_DTYPE_F32:
	case MXA_DTYPE_TF32:
	case MXA_DTYPE_S32: {
		uint32_t v = (uint32_t)code;

		memcpy(p + 4 * i, &v, 4);
		break;
	}
	case MXA_DTYPE_F64:
		memcpy(p + 8 * i, &code, 8);
		break;
	default:
		p[i] = (uint8_t)code;
		break;
	}
}

double mxe_load_elem(enum mxa_isa_dtype t, const void *row, size_t i)
{
	return mxe_decode_code(t, mxe_row_code(t, row, i));
}

/* Codes of sub-byte types one per byte (MXE_CVT_UNPACKED) or packed. */
static uint64_t cvt_load(enum mxa_isa_dtype t, const void *p, size_t i, unsigned flags)
{
	if ((flags & MXE_CVT_UNPACKED) && mxe_dtype_bits(t) < 8)
		return ((const uint8_t *)p)[i] & ((1u << mxe_dtype_bits(t)) - 1);
	return mxe_row_code(t, p, i);
}

static void cvt_store(enum mxa_isa_dtype t, void *p, size_t i, uint64_t code, unsigned flags)
{
	if ((flags & MXE_CVT_UNPACKED) && mxe_dtype_bits(t) < 8)
		((uint8_t *)p)[i] = (uint8_t)(code & ((1u << mxe_dtype_bits(t)) - 1));
	else
		mxe_row_store_code(t, p, i, code);
}

int mxe_convert(enum mxa_isa_dtype dst_type, void *dst, enum mxa_isa_dtype src_type,
		const void *src, size_t n, unsigned flags)
{
	if ((unsigned)dst_type >= MXA_DTYPE_COUNT || (unsigned)src_type >= MXA_DTYPE_COUNT)
		return MXE_ENGINE_EINVAL_DTYPE;
	if (!dst || (!src && n))
		return MXE_ENGINE_EINVAL;
	for (size_t i = 0; i < n; i++) {
		double v = mxe_decode_code(src_type, cvt_load(src_type, src, i, flags));
		uint64_t code;

		/* f32 -> tf32 works on the bits: NaN payloads (even signalling
		 * ones) survive, as on the H200. */
		if ((src_type == MXA_DTYPE_F32 || src_type == MXA_DTYPE_TF32) &&
		    dst_type == MXA_DTYPE_TF32) {
			enum mxe_tf32_round mode = MXE_TF32_RNA;

			if (flags & MXE_CVT_TF32_RNE)
				mode = MXE_TF32_RNE;
			if (flags & MXE_CVT_TF32_RZ)
				mode = MXE_TF32_RZ;
			code = tf32_bits(mxe_bits_f32((uint32_t)mxe_row_code(src_type, src, i)),
					 mode, flags & MXE_CVT_SATFINITE);
		} else if (isnan(v) && dst_type == MXA_DTYPE_F32)	/* canonical NaN */
			code = src_type == MXA_DTYPE_E8M0 ? 0x7FC00000u : MXE_F32_CANON_NAN;
		else
			code = mxe_encode_value(dst_type, v, flags);
		cvt_store(dst_type, dst, i, code, flags);
	}
	return 0;
}

/* ---- the named conversions ------------------------------------------------ */

float mxe_cvt_e4m3_to_f32(uint8_t v)
{
	return mxe_decode_lut(MXA_DTYPE_E4M3)[v];
}

float mxe_cvt_e5m2_to_f32(uint8_t v)
{
	return mxe_decode_lut(MXA_DTYPE_E5M2)[v];
}

float mxe_cvt_e8m0_to_f32(uint8_t v)
{
	return mxe_decode_lut(MXA_DTYPE_E8M0)[v];
}

float mxe_cvt_e3m2_to_f32(uint8_t v)
{
	return mxe_decode_lut(MXA_DTYPE_E3M2)[v];
}

float mxe_cvt_e2m3_to_f32(uint8_t v)
{
	return mxe_decode_lut(MXA_DTYPE_E2M3)[v];
}

float mxe_cvt_e2m1_to_f32(uint8_t v)
{
	return mxe_decode_lut(MXA_DTYPE_E2M1)[v];
}

float mxe_cvt_mxint8_to_f32(uint8_t v)
{
	return mxe_decode_lut(MXA_DTYPE_MXINT8)[v];
}

float mxe_cvt_f16_to_f32(uint16_t v)
{
	uint32_t sign = (uint32_t)(v & 0x8000) << 16, e = (v >> 10) & 0x1F, m = v & 0x3FF;
	float f;

	if (e == 0x1F)
		return m ? nan_f32() : mxe_bits_f32(sign | 0x7F800000u);
	if (e == 0) {
		f = (float)m * 0x1p-24f;	/* exact: at most 10 bits */
		return sign ? -f : f;
	}
	return mxe_bits_f32(sign | ((e + 112) << 23) | (m << 13));
}

float mxe_cvt_bf16_to_f32(uint16_t v)
{
	return mxe_bits_f32((uint32_t)v << 16);
}

uint8_t mxe_cvt_f32_to_e4m3(float x, int satfinite)
{
	return (uint8_t)fmt_encode(&fmt_e4m3, x, satfinite);
}

uint8_t mxe_cvt_f32_to_e5m2(float x, int satfinite)
{
	return (uint8_t)fmt_encode(&fmt_e5m2, x, satfinite);
}

uint16_t mxe_cvt_f32_to_f16(float x, int satfinite)
{
	return (uint16_t)fmt_encode(&fmt_f16, x, satfinite);
}

uint16_t mxe_cvt_f32_to_bf16(float x, int satfinite)
{
	return (uint16_t)fmt_encode(&fmt_bf16, x, satfinite);
}

uint8_t mxe_cvt_f32_to_e3m2(float x, int satfinite)
{
	return (uint8_t)fmt_encode(&fmt_e3m2, x, satfinite);
}

uint8_t mxe_cvt_f32_to_e2m3(float x, int satfinite)
{
	return (uint8_t)fmt_encode(&fmt_e2m3, x, satfinite);
}

uint8_t mxe_cvt_f32_to_e2m1(float x, int satfinite)
{
	return (uint8_t)fmt_encode(&fmt_e2m1, x, satfinite);
}

uint32_t mxe_cvt_f32_to_tf32(float x, enum mxe_tf32_round mode, int satfinite)
{
	return tf32_bits(x, mode, satfinite);
}

uint8_t mxe_cvt_f32_to_e8m0(float x, enum mxe_e8m0_round mode, int satfinite)
{
	unsigned flags = satfinite ? MXE_CVT_SATFINITE : 0;

	if (mode == MXE_E8M0_RZ)
		flags |= MXE_CVT_E8M0_RZ;
	else if (mode == MXE_E8M0_RN)
		flags |= MXE_CVT_E8M0_RN;
	return e8m0_encode(x, flags);
}

int8_t mxe_cvt_f32_to_s8(float x)
{
	return (int8_t)int_sat_rne(x, -128, 127);
}

int8_t mxe_cvt_f32_to_s4(float x)
{
	return (int8_t)int_sat_rne(x, -8, 7);
}

uint8_t mxe_cvt_f32_to_mxint8(float x)
{
	return (uint8_t)mxe_encode_value(MXA_DTYPE_MXINT8, x, 0);
}
