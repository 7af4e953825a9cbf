/* SPDX-License-Identifier: MIT */
/*
 * mxa_cpu.h - run-time choice between the AVX-512F, AVX2/FMA/F16C and
 * portable C kernels (which all give identical bits).
 */
#ifndef MXA_CPU_H
#define MXA_CPU_H

/* SIMD levels, each including the ones below it. */
enum mxa_simd {
	MXA_SIMD_PORTABLE,
	MXA_SIMD_AVX2,		/* AVX2 + FMA + F16C */
	MXA_SIMD_AVX512,	/* the above + AVX-512 F/BW/DQ/VL (CPU and OS state) */
};

/** The level that runs: what the CPU has, capped by mxa_engine_set_simd(). */
enum mxa_simd mxa_cpu_simd(void);

/** 1 when the AVX2 kernels may run (CPU has AVX2+FMA+F16C, not capped off). */
static inline int mxa_cpu_use_avx2(void)
{
	return mxa_cpu_simd() >= MXA_SIMD_AVX2;
}

#endif /* MXA_CPU_H */
