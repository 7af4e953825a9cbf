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
 * Split-K is the library's heuristic.
 *
 * DOC: the plan grid
 *
 * mxe_cublas_plans.tsv holds the plan of every shape of the domain of
 * tests/golden/h200/cublas-fresh/gen.py (M, N 1..192, K 16..8192; TF32, F64,
 * BF16 and F16 in, F32, F64 or F16 out; with and without C) that the H200 ran
 * in tests/golden/h200/cublas-grid/, except the held-out set's shapes, which
 * the grid never ran: build/tests/host/fit-cublas-plans found, for each shape,
 * the plan that gives every kept output's bits (slices, the K residue first,
 * the epilogue; for cuBLAS's GEMV, dot and gemmSN kernels a SIMT plan whose
 * summation tree is the one gemv_probe.py read off the H200). A shape outside
 * the table, or one no plan fitted, takes the plan of its nearest fitted
 * neighbour of the same types (neighbour()), scaled to its K (scale_to_k()).
 */
#include <math.h>
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

struct grid_plan {
	uint8_t type, type_d;	/* enum mxa_isa_dtype of A and B, and of D */
	uint16_t m, n, k;
	uint8_t with_c, fitted;	/* fitted 0: no plan reproduces the shape */
	struct mxe_hopper_plan plan;	/* the TSV's columns name its fields */
};

static const struct grid_plan grid[] = {
#include "mxe_cublas_plans.inc"
};

static int is_fp8(unsigned t)
{
	return t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2;
}

static double log2_ratio(double x, double y)
{
	return fabs(log2(x / y));
}

/* How far apart two sizes are in the alignments kernels are chosen by. */
static double alignment(uint32_t x, uint32_t y)
{
	return 10.0 * ((x % 2 == 0) != (y % 2 == 0)) + 10.0 * ((x % 4 == 0) != (y % 4 == 0)) +
	       5.0 * ((x % 8 == 0) != (y % 8 == 0));
}

/*
 * How far grid shape @g is from M x N x K, for choosing the plan of a shape the
 * grid lacks: cuBLAS picks its kernels by K first, then by which of M and N are
 * 1 (GEMV kernels) or multiples of 2, 4 and 8 (the kernels' alignment), then by
 * size; C changes the epilogue, rarely the kernel (nvjet's _bz and _badd twins).
 */
static double distance(const struct grid_plan *g, uint32_t m, uint32_t n, uint32_t k, int with_c)
{
	return 100.0 * log2_ratio(g->k, k) +
	       200.0 * (((g->m == 1) != (m == 1)) + ((g->n == 1) != (n == 1))) +
	       alignment(g->m, m) + alignment(g->n, n) + 3.0 * (g->with_c != with_c) +
	       log2_ratio(g->m, m) + log2_ratio(g->n, n);
}

/* The grid's fitted shape nearest to @desc's, of the same types; NULL if none. With
 * @elsewhere, not @desc's M x N x K itself. */
static const struct grid_plan *neighbour(const struct mxe_gemm_desc *desc, int elsewhere)
{
	const struct grid_plan *best = NULL;
	int with_c = !!(desc->flags & MXA_GEMM_F_ACCUMULATE);
	double best_d = INFINITY;

	for (size_t i = 0; i < sizeof(grid) / sizeof(grid[0]); i++) {
		const struct grid_plan *g = &grid[i];
		double d;

		if (g->type != desc->type_a || g->type != desc->type_b ||
		    g->type_d != desc->type_d || !g->fitted ||
		    (elsewhere && g->m == desc->m && g->n == desc->n && g->k == desc->k))
			continue;
		d = distance(g, desc->m, desc->n, desc->k, with_c);
		if (d < best_d)
			best = g, best_d = d;
	}
	return best;
}

/*
 * A neighbour's plan for another K, as the probed kernels scale (gemv_probe.py): as many
 * K slices as it had; a GEMV thread's contiguous chunk grows with K; dot_kernel's blocks
 * keep their size and grow in number; the split-K GEMV's slices keep their number and
 * grow in size.
 */
static void scale_to_k(struct mxe_hopper_plan *p, uint32_t from_k, uint32_t to_k)
{
	uint32_t t = p->simt_threads ? p->simt_threads : 1, v = p->simt_vec ? p->simt_vec : 1;
	uint32_t blocks = p->simt_blocks ? p->simt_blocks : 1;

	if (p->slice_k) {
		uint32_t slices = (from_k + p->slice_k - 1) / p->slice_k;

		p->slice_k = ((to_k + slices - 1) / slices + 3) / 4 * 4;
	}
	if (!p->simt)
		return;
	if (blocks == 1 && p->simt_block_seq && v == 1 && t >= from_k) {
		/* one product a thread, added in order: a plain sum of rounded products */
		while (t < to_k && t < MXE_HOPPER_SIMT_MAX_THREADS)
			t *= 2;
		p->simt_threads = t;
	} else if (blocks == 1 && t < 128) {
		if (t * v >= from_k)	/* one round: a contiguous chunk per thread */
			p->simt_vec = (to_k + t - 1) / t;
	} else if (t >= 32) {	/* dot_kernel: blocks of t * v elements, 4 lanes */
		blocks = (to_k + t * v - 1) / (t * v);
		p->simt_blocks = blocks > 4096 ? 4096 : blocks;
		p->simt_lanes = p->simt_blocks < 4 ? p->simt_blocks : 4;
	} else {		/* a fixed number of slices */
		uint32_t per = (to_k + blocks - 1) / blocks, pow2 = 1;

		while (pow2 < per && pow2 < MXE_HOPPER_SIMT_MAX_THREADS)
			pow2 *= 2;
		p->simt_threads = pow2;
	}
}

static int cublas_plan(const struct mxe_gemm_desc *desc, int fast_accum, int elsewhere,
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

		if (same_type && !elsewhere && mp->m == desc->m && mp->n == desc->n &&
		    mp->k == desc->k) {
			plan->split_k = mp->split_k;
			plan->split_tile = mp->split_tile;
			plan->split_interleaved = mp->interleaved;
			return 1;
		}
	}
	if (!fp8) {
		const struct grid_plan *g = neighbour(desc, elsewhere);

		if (g) {
			*plan = g->plan;
			if (g->k != desc->k)
				scale_to_k(plan, g->k, desc->k);
			return g->m == desc->m && g->n == desc->n && g->k == desc->k;
		}
	}
	return 0;	/* a guess: one chain */
}

int mxe_hopper_cublas_plan(const struct mxe_gemm_desc *desc, int fast_accum,
			   struct mxe_hopper_plan *plan)
{
	return cublas_plan(desc, fast_accum, 0, plan);
}

int mxe_hopper_cublas_plan_elsewhere(const struct mxe_gemm_desc *desc, int fast_accum,
				     struct mxe_hopper_plan *plan)
{
	return cublas_plan(desc, fast_accum, 1, plan);
}
