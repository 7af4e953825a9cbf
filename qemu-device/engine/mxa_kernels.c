// SPDX-License-Identifier: MIT
/* mxa_kernels.c - portable micro kernels (placeholder). */
#include "mxa_gemm.h"
