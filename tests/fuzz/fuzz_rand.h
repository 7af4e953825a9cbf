/* SPDX-License-Identifier: MIT */
/*
 * fuzz_rand.h - the fuzzers' random numbers (xorshift64, seeded by setting rng_state
 * to an odd value, so a seed replays a run; or, with FUZZ_RAND_BYTES, a libFuzzer
 * input), biased to edge values, and random commands of the ISA table.
 */
#ifndef FUZZ_RAND_H
#define FUZZ_RAND_H

#include <stdint.h>

#include "mxa_isa_table.h"

#ifdef FUZZ_RAND_BYTES
/*
 * Coverage-guided fuzzers: rnd() reads the fuzzer's input, 8 bytes a call
 * (little-endian), and 0 once the input is used up; fuzz_rand_bytes() sets the input.
 * A seeded xorshift run is the input made of its outputs (fuzz-device --write-seeds).
 */
#include <string.h>

static const uint8_t *rng_bytes;
static size_t rng_left;

static inline void fuzz_rand_bytes(const uint8_t *data, size_t size)
{
	rng_bytes = data;
	rng_left = size;
}

static inline uint64_t rnd(void)
{
	uint64_t x = 0;
	size_t n = rng_left < 8 ? rng_left : 8;

	memcpy(&x, rng_bytes, n);
	rng_bytes += n;
	rng_left -= n;
	return x;
}
#else
static uint64_t rng_state;
#ifdef FUZZ_RAND_RECORD
static void fuzz_rand_record(uint64_t x);	/* the includer's: sees every output */
#endif

static inline uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
#ifdef FUZZ_RAND_RECORD
	fuzz_rand_record(x);
#endif
	return rng_state = x;
}
#endif

static inline uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static inline int one_in(uint64_t n)
{
	return rnd_below(n) == 0;
}

static inline uint64_t edge64(void)
{
	static const uint64_t edges[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 63, 64, 127, 128, 255, 256, 4095, 4096, 4097,
		65536, 1ull << 20, (1ull << 24) + 4, 0x7fffffffull, 0x80000000ull,
		0xfffffffcull, 0xffffffffull, 1ull << 32, 1ull << 40, 1ull << 47, 1ull << 48,
		0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull - 3, ~0ull,
		0xffff888000000000ull, 0xffffffff81000000ull,
	};

	switch (rnd_below(4)) {
	case 0:
		return rnd();
	case 1:
		return rnd() & 0xfff;
	default:
		return edges[rnd_below(sizeof(edges) / sizeof(edges[0]))];
	}
}

static inline uint32_t edge32(void)
{
	return (uint32_t)edge64();
}

/* A command of the ISA table, each equally likely. */
static inline const struct mxa_isa_cmd *random_command(void)
{
	static uint8_t ops[MXA_ISA_OPCODES];
	static uint32_t nops;

	if (!nops)
		for (uint32_t op = 0; op < MXA_ISA_OPCODES; op++)
			if (mxa_isa_lookup(op))
				ops[nops++] = (uint8_t)op;
	return mxa_isa_lookup(ops[rnd_below(nops)]);
}

#endif /* FUZZ_RAND_H */
