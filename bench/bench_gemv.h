/* SPDX-License-Identifier: MIT */
/*
 * bench_gemv.h - the data of the GEMV benchmark, the same in the guest (bench-gemm gemv)
 * and on the host (bench-host's engine-alone reference): one buffer holding
 * W (N x K weights) and its scales, 32 rows of activations and their scales, at the
 * offsets gemv_layout() gives, for four formats: MXFP4 weights (E2M1, E8M0 scales per
 * 32) against BF16 activations, MX-FP8 (E4M3, E8M0) against MX-E4M3, NVFP4 (E2M1,
 * UE4M3 scales per 16) on both sides, and MXFP4 weights against BF16 activations as an
 * LLM's MLP gives its down projection: SiLU outputs, whose blocks span 30-45 bits where
 * the first format's span 15 (the EXACT E2M1 kernels sum them in two or three int16
 * parts instead of one, mxe_gemv.c).
 */
#ifndef BENCH_GEMV_H
#define BENCH_GEMV_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../qemu-device/engine/mxe_engine.h"	/* in libaccel too: mxe_cvt_f32_to_bf16() */

#define GEMV_MAX_ROWS 32

enum gemv_fmt { GEMV_MXFP4, GEMV_MXFP8, GEMV_NVFP4, GEMV_MXFP4_SILU, GEMV_FMTS };

static const char *const gemv_fmt_name[GEMV_FMTS] = { "mxfp4", "mxfp8", "nvfp4", "mxfp4silu" };

/* The format named @name (gemv_fmt_name[]), or -1. */
static inline int gemv_fmt_of(const char *name)
{
	for (int fmt = 0; fmt < GEMV_FMTS; fmt++)
		if (!strcmp(name, gemv_fmt_name[fmt]))
			return fmt;
	return -1;
}

/* Elements per scale of the format (both sides). */
static inline uint32_t gemv_block(int fmt)
{
	return fmt == GEMV_NVFP4 ? 16 : 32;
}

struct gemv_layout {
	size_t w, scales, act, act_scales, d, bytes;	/* offsets; total bytes */
	size_t weight_bytes;				/* elements + scales of W */
};

static inline struct gemv_layout gemv_layout(uint32_t nk, int fmt)
{
	struct gemv_layout l;
	size_t wb = fmt == GEMV_MXFP8 ? (size_t)nk * nk : (size_t)nk * nk / 2;
	size_t sb = (size_t)nk * nk / gemv_block(fmt);

	l.w = 0;
	l.scales = wb;
	l.act = wb + sb;
	l.act_scales = l.act + GEMV_MAX_ROWS * (size_t)nk * 2;
	l.d = l.act_scales + GEMV_MAX_ROWS * (size_t)nk / gemv_block(fmt);
	l.bytes = l.d + GEMV_MAX_ROWS * (size_t)nk * 4;
	l.weight_bytes = wb + sb;
	return l;
}

/*
 * The GEMM of M rows of activations against the weights, for struct accel_gemm (@base
 * a device VA, @none 0) or struct mxe_gemm_desc (@base a pointer, @none NULL).
 */
#define GEMV_DESC(g, M, NK, FMT, BASE, L, NONE) do {					\
	(g).m = (M);									\
	(g).n = (g).k = (NK);								\
	(g).type_a = (FMT) == GEMV_MXFP8 ? MXA_DTYPE_E4M3 :				\
		     (FMT) == GEMV_NVFP4 ? MXA_DTYPE_NVFP4 : MXA_DTYPE_BF16;		\
	(g).type_b = (FMT) == GEMV_MXFP8 ? MXA_DTYPE_E4M3 :				\
		     (FMT) == GEMV_NVFP4 ? MXA_DTYPE_NVFP4 : MXA_DTYPE_E2M1;		\
	(g).type_c = (g).type_d = MXA_DTYPE_F32;					\
	(g).scale_block = gemv_block(FMT);						\
	(g).b = (BASE) + (L).w;								\
	(g).scale_b = (BASE) + (L).scales;						\
	(g).a = (BASE) + (L).act;							\
	(g).scale_a = (FMT) == GEMV_MXFP8 || (FMT) == GEMV_NVFP4 ?			\
		      (BASE) + (L).act_scales : (NONE);					\
	(g).d = (BASE) + (L).d;								\
} while (0)

static uint64_t gemv_rs;

static inline uint32_t gemv_rand(void)
{
	gemv_rs ^= gemv_rs << 13;
	gemv_rs ^= gemv_rs >> 7;
	gemv_rs ^= gemv_rs << 17;
	return (uint32_t)(gemv_rs >> 16);
}

/* SiLU of a normal variable of deviation 6 (an MLP's up projection's outputs in
 * accel-llm), from four uniforms, rounded to BF16 (nearest even). */
static inline uint16_t gemv_silu_bf16(void)
{
	double g = 0;

	for (int i = 0; i < 4; i++)
		g += (gemv_rand() & 0xFFFF) / 65536.0;
	g = (g - 2) * 1.7320508075688772 * 6;	/* mean 0, deviation 6 */
	return mxe_cvt_f32_to_bf16((float)(g / (1 + exp(-g))), 0);
}

/*
 * Weights of every finite code; MX scales 2^-4 .. 2^3, BF16 (or E4M3 pairs) around 1
 * (mxfp4silu: gemv_silu_bf16()).
 * NVFP4: random codes on both sides, UE4M3 scales 0.5 .. 15 (the block scales of one
 * tensor span a few binades, as a tensor scale of 2688 / amax leaves them).
 */
static inline void gemv_fill(uint8_t *p, uint32_t nk, int fmt)
{
	struct gemv_layout l = gemv_layout(nk, fmt);
	int fp8 = fmt == GEMV_MXFP8, nv = fmt == GEMV_NVFP4;

	gemv_rs = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < l.scales; i++) {
		uint8_t c = (uint8_t)gemv_rand();

		p[i] = fp8 && (c & 0x7f) == 0x7f ? c ^ 1 : c;
	}
	for (size_t i = l.scales; i < l.act; i++)
		p[i] = (uint8_t)(nv ? 0x30 + gemv_rand() % 0x18 : 123 + gemv_rand() % 8);
	for (size_t i = l.act; i < l.act_scales; i += 2) {
		uint16_t v = (uint16_t)((gemv_rand() & 0x807f) | (122 + gemv_rand() % 8) << 7);

		if (nv)
			v = (uint16_t)gemv_rand();
		if (fmt == GEMV_MXFP4_SILU)
			v = gemv_silu_bf16();
		memcpy(p + i, &v, 2);
		for (int h = 0; fp8 && h < 2; h++)
			if ((p[i + h] & 0x7f) == 0x7f)
				p[i + h] ^= 1;
	}
	for (size_t i = l.act_scales; i < l.d; i++)
		p[i] = (uint8_t)(nv ? 0x30 + gemv_rand() % 0x18 : 127);
}

#endif /* BENCH_GEMV_H */
