/* SPDX-License-Identifier: MIT */
/*
 * mxe_formats.h - engine-internal helpers for the number formats: element
 * codes inside packed rows, decode tables and the generic minifloat encoder.
 */
#ifndef MXE_FORMATS_H
#define MXE_FORMATS_H

#include <stdint.h>
#include <string.h>
#include "mxe_engine.h"

/* The canonical NaN the H200 writes for f32 results. */
#define MXE_F32_CANON_NAN 0x7FFFFFFFu

static inline uint32_t mxe_f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline float mxe_bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static inline uint64_t mxe_f64_bits(double f)
{
	uint64_t u;

	memcpy(&u, &f, 8);
	return u;
}

static inline double mxe_bits_f64(uint64_t u)
{
	double f;

	memcpy(&f, &u, 8);
	return f;
}

/* UE4M3, NVFP4's block scale (its sign bit is not read): 0x7F is NaN. */
#define MXE_UE4M3_NAN 0x7Fu

static inline int mxe_ue4m3_nan(uint8_t s)
{
	return (s & MXE_UE4M3_NAN) == MXE_UE4M3_NAN;
}

/* A finite UE4M3 scale @s as m 2^*@x, m an integer of at most 15 (0: a zero scale), x
 * from -9 to 5. No branches: the kernels' packing mispredicted them. */
static inline int mxe_ue4m3_int(uint8_t s, int *x)
{
	unsigned e = (s >> 3) & 0xF;

	*x = e ? (int)e - 10 : -9;
	return (int)((s & 7u) | (e ? 8u : 0u));
}

/** Raw code of element @i of a packed row (sign-extension is the caller's). */
static inline uint64_t mxe_row_code(enum mxa_isa_dtype t, const void *row, size_t i)
{
	const uint8_t *p = row;

	switch (t) {
	case MXA_DTYPE_E2M1:
	case MXA_DTYPE_NVFP4:
	case MXA_DTYPE_S4:
		return (p[i >> 1] >> ((i & 1) * 4)) & 0xF;
	case MXA_DTYPE_B1:
		return (p[i >> 3] >> (i & 7)) & 1;
	case MXA_DTYPE_E3M2:
	case MXA_DTYPE_E2M3:
		return p[i] & 0x3F;
	case MXA_DTYPE_E4M3:
	case MXA_DTYPE_E5M2:
	case MXA_DTYPE_E8M0:
	case MXA_DTYPE_S8:
	case MXA_DTYPE_MXINT8:
		return p[i];
	case MXA_DTYPE_F16:
	case MXA_DTYPE_BF16: {
		uint16_t v;

		memcpy(&v, p + 2 * i, 2);
		return v;
	}
	case MXA_DTYPE_F32:
	case MXA_DTYPE_TF32:
	case MXA_DTYPE_S32: {
		uint32_t v;

		memcpy(&v, p + 4 * i, 4);
		return v;
	}
	case MXA_DTYPE_F64: {
		uint64_t v;

		memcpy(&v, p + 8 * i, 8);
		return v;
	}
	default:
		return 0;
	}
}

/** Store the code of element @i of a packed row. */
void mxe_row_store_code(enum mxa_isa_dtype t, void *row, size_t i, uint64_t code);

/** Exact value of a code (NaN codes give NaN); integers are sign-extended. */
double mxe_decode_code(enum mxa_isa_dtype t, uint64_t code);

/**
 * mxe_encode_value() - round the exact value @x once into type @t.
 * @flags: MXE_CVT_* (SATFINITE, TF32 rounding, E8M0 rounding).
 */
uint64_t mxe_encode_value(enum mxa_isa_dtype t, double x, unsigned flags);

/**
 * mxe_dtype_float_bits() - the mantissa bits of float type @t (F16, BF16, TF32, FP8,
 * FP6, FP4), its exponent bias in *@bias; 0 for the other types.
 */
unsigned mxe_dtype_float_bits(enum mxa_isa_dtype t, int *bias);

/** 256-entry f32 decode tables of the 8-bit (or narrower) float types. */
const float *mxe_decode_lut(enum mxa_isa_dtype t);

/** Flags for E8M0 rounding inside mxe_encode_value() (default RP). */
#define MXE_CVT_E8M0_RZ (1u << 8)
#define MXE_CVT_E8M0_RN (1u << 9)

/** Largest finite magnitude of a float type, and its emax_elem (OCP 6.3). */
double mxe_dtype_max_finite(enum mxa_isa_dtype t);
int mxe_dtype_emax_elem(enum mxa_isa_dtype t);

#endif /* MXE_FORMATS_H */
