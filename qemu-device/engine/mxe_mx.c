// SPDX-License-Identifier: MIT
/*
 * mxe_mx.c - MX quantisation of f32 blocks (E8M0 scale + 32 elements) and
 * its inverse.
 *
 * DOC: scale policies
 *
 * FLOOR (OCP MX 1.0 section 6.3, microxcaling, torchao FLOOR):
 *	X = 2^(floor(log2 amax) - emax_elem); amax/X lands in [2^emax, 2^(emax+1))
 *	which exceeds the largest element for E4M3 and E2M1, so elements
 *	saturate (the spec's "saturating clamp").
 * RCEIL (NVIDIA cuBLAS, cvt.rp.satfinite.ue8m0x2.f32 of amax/max_elem):
 *	X = 2^e with e the smallest integer such that max_elem * 2^e >= amax;
 *	computed with exact comparisons, so no element ever saturates.
 * Both: exponent clamped to [-127, 127]; all-zero block -> 0x00 (2^-127);
 * any NaN or Inf in the block -> 0xFF (NaN) with elements set to the
 * element type's NaN (FP8) or 0 (types without NaN); elements round to
 * nearest even.
 */
#include <math.h>

#include "mxe_formats.h"

static uint64_t elem_nan_code(enum mxa_isa_dtype t)
{
	return (t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2) ? 0x7F : 0;
}

static int block_exponent(double amax, enum mxa_isa_dtype elem,
			  enum mxe_mx_scale_policy policy)
{
	int e;

	if (policy == MXE_MX_SCALE_FLOOR) {
		frexp(amax, &e);
		return e - 1 - mxe_dtype_emax_elem(elem);
	}
	/* RCEIL: smallest e with max * 2^e >= amax (both exact in double). */
	double maxfin = mxe_dtype_max_finite(elem);
	int ea, em;

	frexp(amax, &ea);
	frexp(maxfin, &em);
	e = ea - em;
	while (ldexp(maxfin, e) < amax)
		e++;
	while (ldexp(maxfin, e - 1) >= amax)
		e--;
	return e;
}

int mxe_mx_quantize(const float *src, size_t n, enum mxa_isa_dtype elem,
		    enum mxe_mx_scale_policy policy, uint8_t *scales, void *elems)
{
	size_t b, nb = (n + MXA_MX_BLOCK - 1) / MXA_MX_BLOCK;

	if (!mxe_dtype_is_mx_elem(elem))
		return MXE_ENGINE_EINVAL_DTYPE;
	if (policy != MXE_MX_SCALE_FLOOR && policy != MXE_MX_SCALE_RCEIL)
		return MXE_ENGINE_EINVAL_OPTION;
	if ((!src || !scales || !elems) && n)
		return MXE_ENGINE_EINVAL;

	for (b = 0; b < nb; b++) {
		size_t i0 = b * MXA_MX_BLOCK;
		size_t i1 = i0 + MXA_MX_BLOCK < n ? i0 + MXA_MX_BLOCK : n;
		double amax = 0.0;
		int special = 0, e;

		for (size_t i = i0; i < i1; i++) {
			if (!isfinite(src[i]))
				special = 1;
			else if (fabs(src[i]) > amax)
				amax = fabs(src[i]);
		}
		if (special) {
			scales[b] = 0xFF;
			for (size_t i = i0; i < i1; i++)
				mxe_row_store_code(elem, elems, i, elem_nan_code(elem));
			continue;
		}
		if (amax == 0.0) {
			e = -127;
		} else {
			e = block_exponent(amax, elem, policy);
			if (e > 127) {
				/* microxcaling clamp_shared_exp: too large -> NaN */
				scales[b] = 0xFF;
				for (size_t i = i0; i < i1; i++)
					mxe_row_store_code(elem, elems, i, elem_nan_code(elem));
				continue;
			}
			if (e < -127)
				e = -127;
		}
		scales[b] = (uint8_t)(e + 127);
		for (size_t i = i0; i < i1; i++)
			mxe_row_store_code(elem, elems, i,
					   mxe_encode_value(elem, ldexp((double)src[i], -e),
							    MXE_CVT_SATFINITE));
	}
	return 0;
}

int mxe_mx_dequantize(const uint8_t *scales, const void *elems, size_t n,
		      enum mxa_isa_dtype elem, float *dst)
{
	if (!mxe_dtype_is_mx_elem(elem))
		return MXE_ENGINE_EINVAL_DTYPE;
	if ((!scales || !elems || !dst) && n)
		return MXE_ENGINE_EINVAL;
	for (size_t i = 0; i < n; i++) {
		uint8_t s = scales[i / MXA_MX_BLOCK];
		double v = mxe_load_elem(elem, elems, i);

		if (s == 0xFF)
			dst[i] = mxe_bits_f32(MXE_F32_CANON_NAN);
		else if (isnan(v))
			dst[i] = mxe_bits_f32(MXE_F32_CANON_NAN);
		else
			dst[i] = (float)ldexp(v, (int)s - 127);
	}
	return 0;
}
