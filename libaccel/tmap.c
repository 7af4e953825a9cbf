// SPDX-License-Identifier: MIT
/*
 * libaccel: the tensor-map builder, in the spirit of cuTensorMapEncodeTiled(): it fills
 * a struct mxa_tensor_map (uapi/mxa_isa.h) from a description and checks every field
 * the way the device's TMA will, so a bad map is reported on the host, by field name,
 * instead of as MXA_ERR_BAD_TENSOR_MAP from a job.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "accel_internal.h"
#include "mxa_isa.h"


static int tmap_bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int accel_tensor_map_encode(void *map_out, const struct accel_tensor_map_desc *d,
			    char *why, size_t len)
{
	struct mxa_tensor_map m;
	uint64_t box_bytes, span, t;
	unsigned int i;

	if (why && len)
		why[0] = 0;
	if (!map_out || !d)
		return tmap_bad(why, len, "map or description is NULL");
	if (d->rank < 1 || d->rank > MXA_TMA_MAX_RANK)
		return tmap_bad(why, len, "rank %u: must be 1..%u", d->rank, MXA_TMA_MAX_RANK);
	if (d->elem_bytes != 1 && d->elem_bytes != 2 && d->elem_bytes != 4 && d->elem_bytes != 8)
		return tmap_bad(why, len, "elem_bytes %u: must be 1, 2, 4 or 8", d->elem_bytes);
	if (d->global_va % 16)
		return tmap_bad(why, len, "global_va 0x%llx: must be 16-byte aligned",
				(unsigned long long)d->global_va);
	if (d->oob_fill != MXA_TMA_OOB_ZERO && d->oob_fill != MXA_TMA_OOB_NAN)
		return tmap_bad(why, len, "oob_fill %u: must be MXA_TMA_OOB_ZERO or _NAN",
				d->oob_fill);
	if (d->swizzle > MXA_TMA_SWIZZLE_128B)
		return tmap_bad(why, len, "swizzle %u: must be NONE, 32B, 64B or 128B", d->swizzle);

	box_bytes = d->elem_bytes;
	span = d->elem_bytes;
	for (i = 0; i < d->rank; i++) {
		if (d->dims[i] < 1)
			return tmap_bad(why, len, "dims[%u] is 0", i);
		if (d->box[i] < 1 || d->box[i] > MXA_TMA_MAX_BOX)
			return tmap_bad(why, len, "box[%u] %u: must be 1..%u", i, d->box[i],
					MXA_TMA_MAX_BOX);
		box_bytes *= d->box[i];
		if (i == 0) {
			span = (uint64_t)d->dims[0] * d->elem_bytes;
			continue;
		}
		if (d->strides[i - 1] % 16)
			return tmap_bad(why, len, "strides[%u] %llu: must be a multiple of 16", i - 1,
					(unsigned long long)d->strides[i - 1]);
		if (d->strides[i - 1] >= MXA_TMA_MAX_STRIDE)
			return tmap_bad(why, len, "strides[%u] %llu: must be below 2^40", i - 1,
					(unsigned long long)d->strides[i - 1]);
		if (d->strides[i - 1] < span)
			return tmap_bad(why, len, "strides[%u] %llu: smaller than the %llu bytes "
					"of dimension %u (rows would overlap)", i - 1,
					(unsigned long long)d->strides[i - 1],
					(unsigned long long)span, i - 1);
		if (__builtin_mul_overflow((uint64_t)d->dims[i], d->strides[i - 1], &t))
			return tmap_bad(why, len, "dims[%u] x strides[%u] overflows", i, i - 1);
		span = t;
	}
	if (d->global_va + span < d->global_va)
		return tmap_bad(why, len, "the tensor runs past the end of the address space");
	if ((d->box[0] * d->elem_bytes) % 16)
		return tmap_bad(why, len, "box[0] x elem_bytes = %u: must be a multiple of 16",
				d->box[0] * d->elem_bytes);
	if (d->swizzle && d->box[0] * d->elem_bytes > (16u << d->swizzle))
		return tmap_bad(why, len, "box[0] x elem_bytes = %u: more than the %u-byte swizzle "
				"span", d->box[0] * d->elem_bytes, 16u << d->swizzle);
	if (box_bytes > MXA_SRAM_SIZE)
		return tmap_bad(why, len, "the box is %llu bytes: more than the %u bytes of SRAM",
				(unsigned long long)box_bytes, MXA_SRAM_SIZE);

	memset(&m, 0, sizeof(m));
	m.global_addr = d->global_va;
	m.rank = d->rank;
	m.elem_bytes = d->elem_bytes;
	m.oob_fill = d->oob_fill;
	m.swizzle = d->swizzle;
	for (i = 0; i < MXA_TMA_MAX_RANK; i++) {
		m.dims[i] = i < d->rank ? d->dims[i] : 1;
		m.box[i] = i < d->rank ? d->box[i] : 1;
		if (i > 0)
			m.strides[i - 1] = i < d->rank ? d->strides[i - 1] : 0;
	}
	memcpy(map_out, &m, sizeof(m));
	return 0;
}
