// SPDX-License-Identifier: MIT
/* mxa_kernels_avx2.c - AVX2 micro kernels (placeholder). */
#include "mxa_gemm.h"
