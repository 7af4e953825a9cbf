/* SPDX-License-Identifier: MIT */
/*
 * The example libaccel/examples/pipeline.s, embedded (the guest has no source tree),
 * and the host engine's answer for it: D = A x B^T with each K step of 16 rounded once,
 * as WGMMA does.
 */
#ifndef ASM_PIPELINE_H
#define ASM_PIPELINE_H

#include <string.h>

#include "../../qemu-device/engine/mxe_engine.h"

__asm__(".section .rodata\n"
	".global pipeline_s\n"
	"pipeline_s:\n"
	".incbin \"libaccel/examples/pipeline.s\"\n"
	".byte 0\n"
	".previous\n");
extern const char pipeline_s[];

#define PIPE_K	256

static const uint16_t pipe_f16[5] = { 0xc000, 0xbc00, 0x0000, 0x3c00, 0x3800 };

/* A, B: 64 x 256 f16 each; small values with halves so that rounding matters little */
static void pipeline_inputs(uint16_t *a, uint16_t *b)
{
	uint32_t x = 2463534242u;

	for (int i = 0; i < 64 * PIPE_K; i++) {
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		a[i] = pipe_f16[x % 5] ^ ((x >> 8) & 0x3f);
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		b[i] = pipe_f16[x % 5] ^ ((x >> 8) & 0x3f);
	}
}

static int pipeline_expect(const uint16_t *a, const uint16_t *b, float *d)
{
	static float zero[64 * 64];
	struct mxe_gemm_desc g;

	memset(&g, 0, sizeof(g));
	g.m = 64; g.n = 64; g.k = PIPE_K;
	g.type_a = MXA_DTYPE_F16; g.type_b = MXA_DTYPE_F16;
	g.type_c = MXA_DTYPE_F32; g.type_d = MXA_DTYPE_F32;
	g.flags = MXA_GEMM_F_ACCUMULATE;
	g.a = a; g.b = b; g.c = zero; g.d = d;
	g.k_chunk = 16;		/* one WGMMA: K = 32 bytes of f16 */
	return mxe_gemm(NULL, &g);
}

#endif /* ASM_PIPELINE_H */
