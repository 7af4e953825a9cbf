/* SPDX-License-Identifier: MIT */
/*
 * mxe_cpu.h - run-time choice between the AVX512-BF16, AVX512-VNNI, AVX-512F,
 * AVX2/FMA/F16C and portable C kernels (which all give identical bits).
 */
#ifndef MXE_CPU_H
#define MXE_CPU_H

/* SIMD levels, each including the ones below it. */
enum mxe_simd {
	MXE_SIMD_PORTABLE,
	MXE_SIMD_AVX2,		/* AVX2 + FMA + F16C */
	MXE_SIMD_AVX512,	/* the above + AVX-512 F/BW/DQ/VL (CPU and OS state) */
	MXE_SIMD_AVX512VNNI,	/* the above + AVX512-VNNI (int8 dot products) */
	MXE_SIMD_AVX512BF16,	/* the above + AVX512-BF16 (bf16 pair dot products) */
};

/** The level that runs: what the CPU has, capped by mxe_engine_set_simd(). */
enum mxe_simd mxe_cpu_simd(void);

/** 1 when the AVX2 kernels may run (CPU has AVX2+FMA+F16C, not capped off). */
static inline int mxe_cpu_use_avx2(void)
{
	return mxe_cpu_simd() >= MXE_SIMD_AVX2;
}

#endif /* MXE_CPU_H */
