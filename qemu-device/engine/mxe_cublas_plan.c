// SPDX-License-Identifier: MIT
/*
 * mxe_cublas_plan.c - which struct mxe_hopper_plan cuBLAS/cuBLASLt (CUDA 13,
 * torch 2.11) used on an H200, as measured.
 *
 * DOC: where the numbers come from
 *
 * Every plan here reproduces its H200 GEMM bit for bit (the gemm_* cases of
 * the full H200 golden set, whose small ones tests/golden/h200 keeps, and the
 * extra cases of tests/host/gen-cublas-cases.py, run through
 * tests/host/explore-hopper-gemm.c); the kernel names are what
 * torch.profiler showed. FP8 promotes every 128 elements without fast
 * accumulation and never with it, on every shape tried; its promotion sums
 * were exact in FP32, so cuBLAS's FP8 split-K (128x128x8192) changed no bit.
 * Split-K is the library's heuristic: only the shapes below are known; any
 * other shape gets one chain over K.
 */
#include <string.h>

#include "mxe_engine.h"

struct measured_plan {
	uint8_t type;		/* enum mxa_isa_dtype of A and B; E4M3: any FP8 pair */
	uint32_t m, n, k;
	uint32_t split_k, split_tile, interleaved;
};

static const struct measured_plan measured[] = {
	/* one chain (split_k 1), or a split that cannot change the bits */
	{ MXA_DTYPE_E4M3, 64, 64, 64, 1, 0, 0 },
	{ MXA_DTYPE_E4M3, 128, 256, 512, 1, 0, 0 },
	{ MXA_DTYPE_E4M3, 256, 128, 2048, 1, 0, 0 },
	{ MXA_DTYPE_E4M3, 64, 64, 160, 1, 0, 0 },
	{ MXA_DTYPE_E4M3, 64, 64, 384, 1, 0, 0 },
	{ MXA_DTYPE_E4M3, 64, 64, 4096, 1, 0, 0 },
	{ MXA_DTYPE_E4M3, 128, 128, 8192, 1, 0, 0 },	/* split-K, exact sums */
	{ MXA_DTYPE_E4M3, 512, 512, 2048, 1, 0, 0 },
	{ MXA_DTYPE_BF16, 64, 64, 64, 1, 0, 0 },
	{ MXA_DTYPE_BF16, 128, 256, 512, 1, 0, 0 },
	{ MXA_DTYPE_BF16, 256, 128, 2048, 1, 0, 0 },
	{ MXA_DTYPE_BF16, 256, 256, 256, 1, 0, 0 },
	{ MXA_DTYPE_BF16, 512, 512, 2048, 1, 0, 0 },
	{ MXA_DTYPE_F16, 64, 64, 64, 1, 0, 0 },
	{ MXA_DTYPE_F16, 128, 256, 512, 1, 0, 0 },
	{ MXA_DTYPE_F16, 256, 128, 2048, 1, 0, 0 },
	{ MXA_DTYPE_F64, 64, 64, 64, 1, 0, 0 },
	{ MXA_DTYPE_F64, 64, 64, 256, 1, 0, 0 },
	{ MXA_DTYPE_F64, 128, 256, 512, 1, 0, 0 },
	{ MXA_DTYPE_F64, 256, 256, 512, 1, 0, 0 },
	/* cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4 + splitKreduce */
	{ MXA_DTYPE_TF32, 64, 64, 32, 1, 16, 0 },
	{ MXA_DTYPE_TF32, 64, 64, 64, 2, 16, 0 },
	{ MXA_DTYPE_TF32, 64, 64, 128, 4, 16, 0 },
	{ MXA_DTYPE_TF32, 64, 64, 256, 8, 16, 0 },
	{ MXA_DTYPE_TF32, 64, 64, 512, 8, 16, 0 },
	{ MXA_DTYPE_TF32, 64, 64, 1024, 16, 16, 0 },
	{ MXA_DTYPE_TF32, 128, 256, 128, 1, 16, 0 },
	{ MXA_DTYPE_TF32, 128, 256, 256, 4, 16, 0 },
	{ MXA_DTYPE_TF32, 128, 256, 512, 8, 16, 0 },
	{ MXA_DTYPE_TF32, 128, 256, 1024, 16, 16, 0 },
	{ MXA_DTYPE_TF32, 256, 128, 512, 8, 16, 0 },
	{ MXA_DTYPE_TF32, 256, 128, 1024, 16, 16, 0 },
	{ MXA_DTYPE_TF32, 256, 128, 2048, 16, 16, 0 },
	/* tf32 256x256x256 (cutlass 64x64_32x6) and 512^3 (sm90 wgmma): no split */
	{ MXA_DTYPE_TF32, 256, 256, 256, 1, 16, 0 },
	{ MXA_DTYPE_TF32, 512, 512, 512, 1, 16, 0 },
	/* nvjet_sm90_tss_64x32_64x16_*_splitK + splitKreduce (K tiles of 64) */
	{ MXA_DTYPE_BF16, 64, 64, 4096, 3, 64, 0 },
	{ MXA_DTYPE_BF16, 128, 128, 8192, 6, 64, 0 },
	/* cutlass_80_tensorop_d884gemm_32x32_16x5_tn_align1 + splitKreduce */
	{ MXA_DTYPE_F64, 64, 64, 1024, 16, 16, 0 },
	{ MXA_DTYPE_F64, 64, 64, 2048, 16, 16, 0 },
	/* sm90_xmma_gemm_f64..._tilesize32x32x32_..._execute_split_k_kernel:
	 * four K partitions taking the 32-wide K tiles in turn */
	{ MXA_DTYPE_F64, 128, 256, 1024, 4, 32, 1 },
	{ MXA_DTYPE_F64, 256, 128, 1024, 4, 32, 1 },
	{ MXA_DTYPE_F64, 256, 128, 2048, 4, 32, 1 },
};

static int is_fp8(unsigned t)
{
	return t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2;
}

int mxe_hopper_cublas_plan(const struct mxe_gemm_desc *desc, int fast_accum,
			   struct mxe_hopper_plan *plan)
{
	int fp8 = is_fp8(desc->type_a) || is_fp8(desc->type_b);

	memset(plan, 0, sizeof(*plan));
	if (fp8)
		plan->promote_k = fast_accum ? 0 : 128;
	for (size_t i = 0; i < sizeof(measured) / sizeof(measured[0]); i++) {
		const struct measured_plan *mp = &measured[i];
		int same_type = fp8 ? mp->type == MXA_DTYPE_E4M3 && is_fp8(desc->type_a) &&
					      is_fp8(desc->type_b)
				    : mp->type == desc->type_a && mp->type == desc->type_b;

		if (same_type && mp->m == desc->m && mp->n == desc->n && mp->k == desc->k) {
			plan->split_k = mp->split_k;
			plan->split_tile = mp->split_tile;
			plan->split_interleaved = mp->interleaved;
			return 1;
		}
	}
	return 0;	/* a guess: one chain */
}
