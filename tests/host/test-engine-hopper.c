// SPDX-License-Identifier: MIT
/*
 * test-engine-hopper - mxe_hopper_gemm(), a library GEMM on the H200 as
 * chains of tensor-core instructions: FP32 promotion of FP8 chains, split-K
 * and sliced-K reduction orders, K slices and residues, C added last, the f16
 * epilogues, SIMT plans (cuBLAS's GEMV and dot kernels), thread invariance, plan
 * checks, and the cuBLAS plans measured for the golden shapes and the grid. The golden
 * cases themselves are in test-engine-golden.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host_check.h"
#include "test-engine-util.h"

#define E4M3_16 0x58		/* 2^4 */
#define E4M3_EIGHTH 0x20	/* 2^-3 */
#define BF16_4096 0x4580	/* 2^12 */
#define BF16_3 0x4040
#define BF16_1 0x3F80

static struct mxe_gemm_desc desc_1x1(unsigned t, unsigned td, unsigned k, const void *a,
				      const void *b, void *d)
{
	struct mxe_gemm_desc g;

	memset(&g, 0, sizeof(g));
	g.m = g.n = 1;
	g.k = k;
	g.type_a = g.type_b = (uint8_t)t;
	g.type_c = g.type_d = (uint8_t)td;
	g.a = a;
	g.b = b;
	g.d = d;
	return g;
}

/* Run @g with @p; the one output as a double (NaN when the call failed). */
static double run1(struct mxe_engine *eng, const struct mxe_gemm_desc *g,
		   const struct mxe_hopper_plan *p)
{
	if (mxe_hopper_gemm(eng, g, p))
		return NAN;
	return g->type_d == MXA_DTYPE_F64 ? *(const double *)g->d : *(const float *)g->d;
}

/*
 * 16*16 at k = 0, then 128 products of 2^-6 at k = 128..255. One chain: the
 * FP22 accumulator at 256 truncates every 2^-6 away (ulp 2^-5). Promoted
 * every 128: the second chain starts from zero and keeps all of them.
 */
static void test_fp8_promotion(struct mxe_engine *eng)
{
	static uint8_t a[256];
	struct mxe_hopper_plan p = { 0 };
	struct mxe_gemm_desc g;
	float d = 0;
	double r;

	a[0] = E4M3_16;
	memset(a + 128, E4M3_EIGHTH, 128);
	g = desc_1x1(MXA_DTYPE_E4M3, MXA_DTYPE_F32, 256, a, a, &d);
	r = run1(eng, &g, &p);
	host_check(r == 256.0f,
	       "fp8, one chain (fast accumulation): 256 + 128 * 2^-6 = %g (all truncated)", r);
	p.promote_k = 128;
	r = run1(eng, &g, &p);
	host_check(r == 258.0f,
	       "fp8, promoted every 128: 256 + 128 * 2^-6 = %g", r);
	p.promote_k = 256;
	r = run1(eng, &g, &p);
	host_check(r == 256.0f,
	       "fp8, promoted every 256 (= one chain here): %g", r);
}

/*
 * bf16, K = 64: 2^24 at k = 0, 3 at k = 32. One chain truncates 2^24 + 3 to
 * 2^24 + 2; two slices of 32 add 2^24 and 3 in FP32, to nearest: 2^24 + 4.
 */
static void test_split_k(struct mxe_engine *eng)
{
	static uint16_t a[64], b[64];
	struct mxe_hopper_plan p = { 0 };
	struct mxe_gemm_desc g;
	float d = 0;
	double r;

	a[0] = b[0] = BF16_4096;
	a[32] = BF16_3;
	b[32] = BF16_1;
	g = desc_1x1(MXA_DTYPE_BF16, MXA_DTYPE_F32, 64, a, b, &d);
	r = run1(eng, &g, &p);
	host_check(r == 16777218.0f,
	       "bf16, one chain: 2^24 + 3 truncated to %.1f", r);
	p.split_k = 2;
	r = run1(eng, &g, &p);
	host_check(r == 16777220.0f,
	       "bf16, split-K 2: 2^24 + 3 rounded to nearest %.1f", r);
	p.split_tile = 16;
	p.split_k = 3;	/* 4 tiles: ceil(4/3) = 2 per slice, the third is empty */
	r = run1(eng, &g, &p);
	host_check(r == 16777220.0f,
	       "bf16, split-K 3 of 4 tiles (an empty slice): %.1f", r);
}

/*
 * f64, K = 8, tiles of 2: products 2^53, 0, 1, 0, -2^53, 0, 1, 0. One FMA
 * chain loses the first 1 (2^53 + 1 ties to even): 1. Two interleaved slices
 * (tiles 0, 2 and 1, 3): (2^53 - 2^53) + (1 + 1) = 2.
 */
static void test_sliced_k(struct mxe_engine *eng)
{
	double a[8] = { 0x1p53, 0, 1, 0, -0x1p53, 0, 1, 0 }, b[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	struct mxe_hopper_plan p = { 0 };
	struct mxe_gemm_desc g;
	double d = 0, c = 0.5, r;

	g = desc_1x1(MXA_DTYPE_F64, MXA_DTYPE_F64, 8, a, b, &d);
	r = run1(eng, &g, &p);
	host_check(r == 1.0, "f64, one FMA chain: %g", r);
	p.inst_k = 2;	/* an FMA chain: the instruction's K changes no bit */
	p.split_k = 2;
	p.split_tile = 2;
	p.split_interleaved = 1;
	r = run1(eng, &g, &p);
	host_check(r == 2.0, "f64, two interleaved K slices: %g", r);
	g.flags |= MXA_GEMM_F_ACCUMULATE;
	g.c = &c;
	r = run1(eng, &g, &p);
	host_check(r == 2.5, "f64, C added last: %g", r);
}

/* Random FP8 data: the same bits on one thread, two threads and no engine. */
static void test_threads(struct mxe_engine *eng)
{
	enum { M = 37, N = 45, K = 320 };
	static uint8_t a[M * K], b[N * K];
	static float d1[M * N], d2[M * N], c[M * N];
	struct mxe_hopper_plan p = { .promote_k = 128, .split_k = 3, .split_tile = 64 };
	struct mxe_gemm_desc g;
	int rc1, rc2;

	tu_fill(MXA_DTYPE_E4M3, a, M, K, K);
	tu_fill(MXA_DTYPE_E4M3, b, N, K, K);
	for (size_t i = 0; i < M * N; i++)
		c[i] = (float)((int)(tu_rand() % 2001) - 1000) / 64.0f;
	memset(&g, 0, sizeof(g));
	g.m = M, g.n = N, g.k = K;
	g.type_a = g.type_b = MXA_DTYPE_E4M3;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = a, g.b = b, g.c = c, g.flags = MXA_GEMM_F_ACCUMULATE;
	g.d = d1;
	g.nthreads = 1;
	rc1 = mxe_hopper_gemm(eng, &g, &p);
	g.d = d2;
	g.nthreads = 0;
	rc2 = mxe_hopper_gemm(eng, &g, &p);
	host_check(!rc1 && !rc2 && !memcmp(d1, d2, sizeof(d1)), "same bits on 1 and on all threads");
	rc2 = mxe_hopper_gemm(NULL, &g, &p);
	host_check(!rc2 && !memcmp(d1, d2, sizeof(d1)), "same bits without an engine");
}

/*
 * An f16 D (cuBLAS half GEMMs, measured on tests/golden/h200/cublas-fresh): the chain in
 * f32, then D = f16(f16(sum) + C). Products 2048 and 1: the f32 sum 2049 rounds to 2048
 * (a tie, to even); C = 1 then gives f16(2048 + 1) = 2048, where adding C before the
 * rounding would give f16(2050) = 2050.
 */
static void test_f16_d(struct mxe_engine *eng)
{
	static uint16_t a[16], b[16], c[1], d[1];
	struct mxe_hopper_plan p = { 0 };
	struct mxe_gemm_desc g = desc_1x1(MXA_DTYPE_F16, MXA_DTYPE_F16, 16, a, b, d);
	int rc;

	a[0] = mxe_cvt_f32_to_f16(2048.0f, 0);
	a[1] = b[0] = b[1] = mxe_cvt_f32_to_f16(1.0f, 0);
	c[0] = mxe_cvt_f32_to_f16(1.0f, 0);
	rc = mxe_hopper_gemm(eng, &g, &p);
	host_check(!rc && mxe_cvt_f16_to_f32(d[0]) == 2048.0f, "f16 D: f32 sum 2049 -> %g",
		   mxe_cvt_f16_to_f32(d[0]));
	g.flags = MXA_GEMM_F_ACCUMULATE;
	g.c = c;
	rc = mxe_hopper_gemm(eng, &g, &p);
	host_check(!rc && mxe_cvt_f16_to_f32(d[0]) == 2048.0f,
		   "f16 D with C: f16(f16(2049) + 1) = %g (the rounding before C)",
		   mxe_cvt_f16_to_f32(d[0]));
}

/*
 * TF32, K = 24: 2^24 at k = 0, 3 at k = 4. One chain (instructions of 8) truncates
 * 2^24 + 3 to 2^24 + 2; slices of 4 elements (cuBLASLt's split-K of the s1688 kernels at
 * small K) add 2^24 and 3 in FP32, to nearest: 2^24 + 4.
 */
static void test_slices(struct mxe_engine *eng)
{
	float a[24] = { 4096.0f, 0, 0, 0, 3.0f }, b[24] = { 4096.0f, 0, 0, 0, 1.0f }, d = 0;
	struct mxe_hopper_plan p = { 0 };
	struct mxe_gemm_desc g = desc_1x1(MXA_DTYPE_TF32, MXA_DTYPE_F32, 24, a, b, &d);
	double r;

	r = run1(eng, &g, &p);
	host_check(r == 16777218.0f, "tf32, one chain: 2^24 + 3 truncated to %.1f", r);
	p.slice_k = 4;
	r = run1(eng, &g, &p);
	host_check(r == 16777220.0f, "tf32, slices of 4: 2^24 + 3 rounded to nearest %.1f", r);
}

/*
 * TF32, K = 20: products 2^24 (k = 0), 1 (k = 1), -2^24 (k = 4). Instructions from k = 0
 * sum all three in one instruction, exactly: 1. The K residue first (residue_k 16: 4
 * elements, then a tile of 16) truncates 2^24 + 1 to 2^24 in the first instruction, and
 * the second cancels it: 0.
 */
static void test_residue(struct mxe_engine *eng)
{
	float a[20] = { 4096.0f, 1.0f, 0, 0, -4096.0f }, b[20] = { 4096.0f, 1.0f, 0, 0, 4096.0f };
	struct mxe_hopper_plan p = { 0 };
	struct mxe_gemm_desc g;
	float d = 0;
	double r;

	g = desc_1x1(MXA_DTYPE_TF32, MXA_DTYPE_F32, 20, a, b, &d);
	r = run1(eng, &g, &p);
	host_check(r == 1.0, "tf32, instructions from k = 0: %g", r);
	p.residue_k = 16;
	r = run1(eng, &g, &p);
	host_check(r == 0.0, "tf32, the K residue of 4 first: %g", r);
}

/*
 * SIMT plans (cuBLAS's GEMV and dot kernels). FP32, K = 2: products -(1 + 2^-11), then
 * (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24. An FMA keeps the 2^-24; the product rounded first
 * (a tie, to even) loses it. K = 4 on four threads, products 2^24, 1, -2^24, 1: the
 * butterfly adds (p0 + p2) + (p1 + p3) = 2; in thread order 2^24 + 1 rounds to 2^24: 1.
 */
static void test_simt(struct mxe_engine *eng)
{
	float a2[2] = { -1.0f, 1.0f + 0x1p-12f }, b2[2] = { 1.0f + 0x1p-11f, 1.0f + 0x1p-12f };
	float a4[4] = { 4096.0f, 1.0f, -4096.0f, 1.0f }, b4[4] = { 4096.0f, 1.0f, 4096.0f, 1.0f };
	struct mxe_hopper_plan p = { .simt = 1 };
	struct mxe_gemm_desc g;
	float d = 0;
	double r;

	/* TF32 operands: SIMT code takes their full f32 values */
	g = desc_1x1(MXA_DTYPE_TF32, MXA_DTYPE_F32, 2, a2, b2, &d);
	r = run1(eng, &g, &p);
	host_check(r == 0x1p-24, "simt, an FMA chain: %g (2^-24)", r);
	p.simt_mul_add = 1;
	r = run1(eng, &g, &p);
	host_check(r == 0.0, "simt, products rounded, then added: %g", r);
	p.simt_mul_add = 0;
	g = desc_1x1(MXA_DTYPE_TF32, MXA_DTYPE_F32, 4, a4, b4, &d);
	p.simt_threads = 4;
	r = run1(eng, &g, &p);
	host_check(r == 2.0, "simt, 4 threads as a butterfly: %g", r);
	p.simt_block_seq = 1;
	r = run1(eng, &g, &p);
	host_check(r == 1.0, "simt, 4 threads in order: %g", r);
	p.simt_threads = 2, p.simt_block_seq = 0;
	p.simt_blocks = 2;	/* blocks {p0, p1} and {p2, p3}, in order */
	r = run1(eng, &g, &p);
	host_check(r == 1.0, "simt, 2 blocks of 2 threads: %g", r);
	p.simt_lanes = 2;
	r = run1(eng, &g, &p);
	host_check(r == 1.0, "simt, 2 blocks in 2 lanes: %g", r);
	p.simt_threads = 1, p.simt_blocks = 4, p.simt_lanes = 2;	/* lanes {p0, p2}, {p1, p3} */
	r = run1(eng, &g, &p);
	host_check(r == 2.0, "simt, 4 blocks in 2 lanes: %g", r);
}

/* A CUTLASS epilogue for an f16 D: D = f16(f32(sum + C)): the f32 sum 2049 and C = 1: 2050. */
static void test_epilogue_f32(struct mxe_engine *eng)
{
	static uint16_t a[16], b[16], c[1], d[1];
	struct mxe_hopper_plan p = { .epilogue_f32 = 1 };
	struct mxe_gemm_desc g = desc_1x1(MXA_DTYPE_F16, MXA_DTYPE_F16, 16, a, b, d);
	int rc;

	a[0] = mxe_cvt_f32_to_f16(2048.0f, 0);
	a[1] = b[0] = b[1] = mxe_cvt_f32_to_f16(1.0f, 0);
	c[0] = mxe_cvt_f32_to_f16(1.0f, 0);
	g.flags = MXA_GEMM_F_ACCUMULATE;
	g.c = c;
	rc = mxe_hopper_gemm(eng, &g, &p);
	host_check(!rc && mxe_cvt_f16_to_f32(d[0]) == 2050.0f,
		   "f16 D, CUTLASS's epilogue: f16(2049 + 1) = %g", mxe_cvt_f16_to_f32(d[0]));
}

static void bad_plan(struct mxe_engine *eng, const struct mxe_gemm_desc *g,
		     const struct mxe_hopper_plan *p, const char *what)
{
	host_check(mxe_hopper_gemm(eng, g, p) == MXE_ENGINE_EINVAL_OPTION, "%s -> EINVAL_OPTION",
		   what);
}

static void test_errors(struct mxe_engine *eng)
{
	static uint8_t a[64], s[64];
	static float d[4];
	struct mxe_hopper_plan p = { 0 };
	struct mxe_gemm_desc g = desc_1x1(MXA_DTYPE_E4M3, MXA_DTYPE_F32, 64, a, a, d), e;

	host_check(mxe_hopper_gemm(eng, &g, NULL) == MXE_ENGINE_EINVAL &&
	       mxe_hopper_gemm(eng, NULL, &p) == MXE_ENGINE_EINVAL, "NULL plan or desc -> EINVAL");
	p.promote_k = 48;
	bad_plan(eng, &g, &p, "promote_k not a multiple of the instruction's K");
	p.promote_k = 0;
	p.split_k = 2;
	p.split_tile = 16;
	bad_plan(eng, &g, &p, "split_tile not a multiple of the instruction's K");
	p.split_tile = 32;
	p.split_interleaved = 2;
	bad_plan(eng, &g, &p, "split_interleaved other than 0/1");
	memset(&p, 0, sizeof(p));
	p.slice_k = 6;
	bad_plan(eng, &g, &p, "slice_k not a multiple of 4");
	p.slice_k = 0;
	p.residue_k = 16;
	bad_plan(eng, &g, &p, "residue_k not a multiple of the instruction's K");
	p.residue_k = 0;
	p.simt = 1;
	p.simt_threads = 3;
	bad_plan(eng, &g, &p, "simt_threads not a power of two");
	p.simt_threads = 4;
	p.simt_lanes = 2;
	bad_plan(eng, &g, &p, "more simt lanes than blocks");
	p.simt_lanes = 0;
	p.promote_k = 128;
	bad_plan(eng, &g, &p, "simt with FP8 promotion");
	memset(&p, 0, sizeof(p));
	e = g;
	e.type_a = e.type_b = MXA_DTYPE_S8;
	e.type_c = e.type_d = MXA_DTYPE_S32;
	host_check(mxe_hopper_gemm(eng, &e, &p) == MXE_ENGINE_EINVAL_OPTION,
	       "integers (exact anyway) -> EINVAL_OPTION");
	e = g;
	e.scale_a = e.scale_b = s;
	e.scale_block = 32;
	host_check(mxe_hopper_gemm(eng, &e, &p) == MXE_ENGINE_EINVAL_OPTION,
	       "MX scales (no such tensor core) -> EINVAL_OPTION");
}

static void test_cublas_plans(void)
{
	struct mxe_gemm_desc g;
	struct mxe_hopper_plan p;
	int known;

	memset(&g, 0, sizeof(g));
	g.type_a = MXA_DTYPE_E5M2, g.type_b = MXA_DTYPE_E4M3;
	g.m = 256, g.n = 128, g.k = 2048;
	known = mxe_hopper_cublas_plan(&g, 0, &p);
	host_check(known && p.promote_k == 128 && p.split_k == 1, "cuBLAS e5m2 x e4m3: promotion every 128");
	known = mxe_hopper_cublas_plan(&g, 1, &p);
	host_check(known && p.promote_k == 0, "cuBLASLt FP8 fast accumulation: one chain");
	g.type_a = g.type_b = MXA_DTYPE_TF32;
	known = mxe_hopper_cublas_plan(&g, 0, &p);
	host_check(known && p.split_k == 16 && p.split_tile == 16 && !p.split_interleaved,
	       "cuBLAS tf32 256x128x2048: split-K 16");
	g.type_a = g.type_b = MXA_DTYPE_F64;
	known = mxe_hopper_cublas_plan(&g, 0, &p);
	host_check(known && p.split_k == 4 && p.split_tile == 32 && p.split_interleaved,
	       "cuBLAS f64 256x128x2048: four interleaved K partitions of 32");
	g.k = 1000;
	known = mxe_hopper_cublas_plan(&g, 0, &p);
	host_check(!known && !p.split_k && !p.promote_k, "an unmeasured shape: one chain, reported as a guess");
	/* the plan grid (mxe_cublas_plans.tsv): cutlass_80_tensorop_s1688gemm_64x64_16x6
	 * with split-K in slices of 4 at K = 24 */
	g.type_a = g.type_b = MXA_DTYPE_TF32;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.m = 96, g.n = 48, g.k = 24;
	known = mxe_hopper_cublas_plan(&g, 0, &p);
	host_check(known && p.slice_k == 4 && !p.simt, "cuBLAS tf32 96x48x24 (the grid): slices of 4");
	known = mxe_hopper_cublas_plan_elsewhere(&g, 0, &p);
	host_check(!known && p.slice_k == 4, "the same from other shapes: slices of 4, a guess");
	/* a GEMV: FP32 SIMT code, 32 threads of contiguous chunks (gemvx) */
	g.m = 1, g.n = 100, g.k = 160;
	known = mxe_hopper_cublas_plan(&g, 0, &p);
	host_check(known && p.simt && p.simt_threads == 32 && p.simt_vec == 5,
		   "cuBLAS tf32 GEMV 1x100x160: 32 threads of 5 elements");
	g.k = 200;	/* outside the grid: the chunks grow with K */
	known = mxe_hopper_cublas_plan(&g, 0, &p);
	host_check(!known && p.simt && p.simt_threads == 32 && p.simt_vec == 7,
		   "tf32 GEMV 1x100x200 (not in the grid): 32 threads of 7 elements, a guess");
}

int main(void)
{
	struct mxe_engine *eng = mxe_engine_create(2);

	ksft_print_header();
	test_fp8_promotion(eng);
	test_split_k(eng);
	test_sliced_k(eng);
	test_threads(eng);
	test_errors(eng);
	test_f16_d(eng);
	test_slices(eng);
	test_residue(eng);
	test_simt(eng);
	test_epilogue_f32(eng);
	test_cublas_plans();
	mxe_engine_destroy(eng);
	return host_check_end();
}
