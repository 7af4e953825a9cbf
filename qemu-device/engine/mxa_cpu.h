/* SPDX-License-Identifier: MIT */
/*
 * mxa_cpu.h - run-time choice between the AVX2/FMA/F16C kernels and the
 * portable C kernels (which give identical bits).
 */
#ifndef MXA_CPU_H
#define MXA_CPU_H

/** 1 when the AVX2 kernels may run (CPU has AVX2+FMA+F16C, not forced off). */
int mxa_cpu_use_avx2(void);

#endif /* MXA_CPU_H */
