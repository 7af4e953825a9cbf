// SPDX-License-Identifier: MIT
/*
 * libaccel: host-side number formats. These call the device's own engine code
 * (qemu-device/engine/, linked into libaccel), so the host gets the same bits as the
 * device by construction.
 */
#include <errno.h>

#include "accel_internal.h"
#include "../qemu-device/engine/mxe_engine.h"

_Static_assert((int)ACCEL_MX_SCALE_FLOOR == (int)MXE_MX_SCALE_FLOOR &&
	       (int)ACCEL_MX_SCALE_RCEIL == (int)MXE_MX_SCALE_RCEIL, "scale policies are the engine's");

static int accel_engine_errno(int err)
{
	switch (err) {
	case MXE_ENGINE_OK:
		return 0;
	case MXE_ENGINE_ENOMEM:
		return -ENOMEM;
	case MXE_ENGINE_EOVERFLOW:
		return -EOVERFLOW;
	default:
		return -EINVAL;
	}
}

int accel_mx_quantize(const float *src, size_t n, enum mxa_isa_dtype elem,
		      enum accel_mx_scale_policy policy, uint8_t *scales, void *elems)
{
	return accel_engine_errno(mxe_mx_quantize(src, n, (enum mxa_isa_dtype)elem,
						  (enum mxe_mx_scale_policy)policy, scales, elems));
}

int accel_mx_dequantize(const uint8_t *scales, const void *elems, size_t n,
			enum mxa_isa_dtype elem, float *dst)
{
	return accel_engine_errno(mxe_mx_dequantize(scales, elems, n, (enum mxa_isa_dtype)elem, dst));
}

int accel_nvfp4_quantize(const float *src, size_t n, float amax, uint8_t *scales,
			 void *elems, float *tensor_scale)
{
	return accel_engine_errno(mxe_nvfp4_quantize(src, n, amax, scales, elems, tensor_scale));
}

int accel_nvfp4_dequantize(const uint8_t *scales, const void *elems, size_t n,
			   float tensor_scale, float *dst)
{
	return accel_engine_errno(mxe_nvfp4_dequantize(scales, elems, n, tensor_scale, dst));
}

float accel_nvfp4_amax(const float *src, size_t n)
{
	return src ? mxe_nvfp4_amax(src, n) : 0.0f;
}

size_t accel_dtype_row_bytes(enum mxa_isa_dtype type, size_t n)
{
	return type < MXA_DTYPE_COUNT ? mxe_dtype_row_bytes((enum mxa_isa_dtype)type, n) : 0;
}

const char *accel_dtype_name(enum mxa_isa_dtype type)
{
	return type < MXA_DTYPE_COUNT ? mxe_dtype_name((enum mxa_isa_dtype)type) : "?";
}

double accel_load_elem(enum mxa_isa_dtype type, const void *row, size_t i)
{
	return mxe_load_elem((enum mxa_isa_dtype)type, row, i);
}
