/* SPDX-License-Identifier: MIT */
/*
 * mxa_formats.h - engine-internal helpers for the number formats: element
 * codes inside packed rows, decode tables and the generic minifloat encoder.
 */
#ifndef MXA_FORMATS_H
#define MXA_FORMATS_H

#include <stdint.h>
#include <string.h>
#include "mxa_engine.h"

/* The canonical NaN the H200 writes for f32 results. */
#define MXA_F32_CANON_NAN 0x7FFFFFFFu

static inline uint32_t mxa_f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline float mxa_bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static inline uint64_t mxa_f64_bits(double f)
{
	uint64_t u;

	memcpy(&u, &f, 8);
	return u;
}

static inline double mxa_bits_f64(uint64_t u)
{
	double f;

	memcpy(&f, &u, 8);
	return f;
}

/** Raw code of element @i of a packed row (sign-extension is the caller's). */
static inline uint64_t mxa_row_code(enum mxa_dtype t, const void *row, size_t i)
{
	const uint8_t *p = row;

	switch (t) {
	case MXA_DT_E2M1:
	case MXA_DT_S4:
		return (p[i >> 1] >> ((i & 1) * 4)) & 0xF;
	case MXA_DT_B1:
		return (p[i >> 3] >> (i & 7)) & 1;
	case MXA_DT_E3M2:
	case MXA_DT_E2M3:
		return p[i] & 0x3F;
	case MXA_DT_E4M3:
	case MXA_DT_E5M2:
	case MXA_DT_E8M0:
	case MXA_DT_S8:
	case MXA_DT_MXINT8:
		return p[i];
	case MXA_DT_F16:
	case MXA_DT_BF16: {
		uint16_t v;

		memcpy(&v, p + 2 * i, 2);
		return v;
	}
	case MXA_DT_F32:
	case MXA_DT_TF32:
	case MXA_DT_S32: {
		uint32_t v;

		memcpy(&v, p + 4 * i, 4);
		return v;
	}
	case MXA_DT_F64: {
		uint64_t v;

		memcpy(&v, p + 8 * i, 8);
		return v;
	}
	default:
		return 0;
	}
}

/** Store the code of element @i of a packed row. */
void mxa_row_store_code(enum mxa_dtype t, void *row, size_t i, uint64_t code);

/** Exact value of a code (NaN codes give NaN); integers are sign-extended. */
double mxa_decode_code(enum mxa_dtype t, uint64_t code);

/**
 * mxa_encode_value() - round the exact value @x once into type @t.
 * @flags: MXA_CVT_* (SATFINITE, TF32 rounding, E8M0 rounding).
 */
uint64_t mxa_encode_value(enum mxa_dtype t, double x, unsigned flags);

/** 256-entry f32 decode tables of the 8-bit (or narrower) float types. */
const float *mxa_decode_lut(enum mxa_dtype t);

/** Flags for E8M0 rounding inside mxa_encode_value() (default RP). */
#define MXA_CVT_E8M0_RZ (1u << 8)
#define MXA_CVT_E8M0_RN (1u << 9)

/** Largest finite magnitude of a float type, and its emax_elem (OCP 6.3). */
double mxa_dtype_max_finite(enum mxa_dtype t);
int mxa_dtype_emax_elem(enum mxa_dtype t);

#endif /* MXA_FORMATS_H */
