/* SPDX-License-Identifier: MIT */
/*
 * fuzz_edge.h - edge-biased field values for the libFuzzer targets that fill a struct
 * from their input (fuzz-tmap, fuzz-args).
 */
#ifndef FUZZ_EDGE_H
#define FUZZ_EDGE_H

#include <stddef.h>
#include <stdint.h>

/*
 * A value for a field of @bits bits, as selector byte @sel says: @raw itself, one of
 * the @npick edges in @pick, a multiple of 2^@shift (@raw's low @low bits, shifted), or
 * near the field's top.
 */
static inline uint64_t fuzz_edge(uint8_t sel, uint64_t raw, unsigned int bits,
				 const uint64_t *pick, size_t npick, unsigned int low,
				 unsigned int shift)
{
	uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;

	switch (sel % 4) {
	case 0:
		return raw & mask;
	case 1:
		return pick[(sel >> 2) % npick] & mask;
	case 2:
		return (raw & ((1ull << low) - 1)) << shift & mask;
	default:
		return (mask - (sel >> 2)) & mask;
	}
}

#endif /* FUZZ_EDGE_H */
