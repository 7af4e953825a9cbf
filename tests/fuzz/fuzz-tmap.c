// SPDX-License-Identifier: MIT
/*
 * fuzz-tmap: a libFuzzer target for libaccel's tensor-map encoder (Documentation/
 * hardening.rst), built as fuzz-asm is. The input is a struct accel_tensor_map_desc,
 * its fields biased to edge values by the first bytes. The oracles: the encoder
 * accepts it, and then the map it wrote passes the device's own rules
 * (mxa_tensor_map_check(), uapi) and holds the description's fields; or it rejects it
 * with a sentence and leaves the map untouched. Never a crash or undefined behaviour.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "fuzz_edge.h"
#include "mxa_isa.h"

/* An edge value for a field of @bits bits, or the raw one, as @sel says (multiples of 16). */
static uint64_t edge(uint8_t sel, uint64_t raw, unsigned int bits)
{
	static const uint64_t pick[] = { 0, 1, 2, 15, 16, 17, 32, 64, 128, 255, 256, 257 };

	return fuzz_edge(sel, raw, bits, pick, sizeof(pick) / sizeof(pick[0]), 8, 4);
}

static void fail(const char *what, const struct accel_tensor_map_desc *d)
{
	fprintf(stderr, "fuzz-tmap: %s: rank %u elem %u swizzle %u oob %u va 0x%llx\n", what,
		d->rank, d->elem_bytes, d->swizzle, d->oob_fill, (unsigned long long)d->global_va);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct accel_tensor_map_desc d;
	uint8_t sel[24] = { 0 };
	uint8_t raw[sizeof(d)] = { 0 };
	struct mxa_tensor_map m, before;
	__u64 box_bytes = 0;	/* the uAPI type the check takes */
	char why[256] = "";
	unsigned int i, k = 0;

	memcpy(sel, data, size < sizeof(sel) ? size : sizeof(sel));
	if (size > sizeof(sel))
		memcpy(raw, data + sizeof(sel), size - sizeof(sel) < sizeof(raw) ?
						size - sizeof(sel) : sizeof(raw));
	memcpy(&d, raw, sizeof(d));
	d.global_va = edge(sel[k++], d.global_va, 64);
	d.rank = (uint32_t)edge(sel[k++], d.rank, 3);
	d.elem_bytes = (uint32_t)edge(sel[k++], d.elem_bytes, 4);
	d.oob_fill = (uint32_t)edge(sel[k++], d.oob_fill, 2);
	d.swizzle = (uint32_t)edge(sel[k++], d.swizzle, 2);
	for (i = 0; i < 5; i++) {
		d.dims[i] = (uint32_t)edge(sel[k++], d.dims[i], 32);
		d.box[i] = (uint32_t)edge(sel[k++], d.box[i], 9);
	}
	for (i = 0; i < 4; i++)
		d.strides[i] = edge(sel[k++], d.strides[i], 48);

	memset(&m, 0xa5, sizeof(m));
	before = m;
	if (accel_tensor_map_encode(&m, &d, why, sizeof(why))) {
		if (!why[0])
			fail("a rejection without a reason", &d);
		if (memcmp(&m, &before, sizeof(m)))
			fail("a rejected map was written", &d);
		return 0;
	}
	if (mxa_tensor_map_check(&m, &box_bytes) != MXA_TMAP_OK)
		fail("the encoder wrote a map the device rejects", &d);
	if (m.global_addr != d.global_va || m.rank != d.rank || m.elem_bytes != d.elem_bytes ||
	    m.oob_fill != d.oob_fill || m.swizzle != d.swizzle)
		fail("the map does not hold the description", &d);
	for (i = 0; i < d.rank; i++)
		if (m.dims[i] != d.dims[i] || m.box[i] != d.box[i] ||
		    (i && m.strides[i - 1] != d.strides[i - 1]))
			fail("the map's dims, box or strides differ", &d);
	return 0;
}
