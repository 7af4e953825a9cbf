// SPDX-License-Identifier: MIT
/*
 * libaccel: matrix multiplication. accel_prog_gemm() emits the device's GEMM command
 * (uapi/mxa_isa.h); accel_gemm() runs one GEMM as a job and waits for it.
 *
 * GEMM descriptors (struct accel_gemm_desc): accel_gemm_plan() picks a multistage
 * TMA + WGMMA program where the device's WGMMA can do the types and layout, else the
 * GEMM command; accel_prog_gemm_desc() emits it; accel_gemm_run() runs it, with a CPU
 * post-pass for alpha/beta/per-tensor scales the device has no command for.
 * accel_gemm(3) documents the heuristics.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "accel_internal.h"
#include "asm_internal.h"
#include "../qemu-device/engine/mxe_engine.h"
#include "mxa_isa.h"


int accel_prog_gemm(struct accel_prog *prog, const struct accel_gemm *g)
{
	uint32_t cmd[MXA_GEMM_DWORDS];
	struct mxa_isa_gemm isa = { 0 };

	if (!g || g->m == 0 || g->n == 0 || g->k == 0 || g->type_a >= MXA_DTYPE_COUNT ||
	    g->type_b >= MXA_DTYPE_COUNT || g->type_c >= MXA_DTYPE_COUNT ||
	    g->type_d >= MXA_DTYPE_COUNT || (g->flags & ~(uint32_t)MXA_GEMM_F_ALL) ||
	    (g->scale_block != 0 && g->scale_block != MXA_MX_BLOCK &&
	     g->scale_block != MXA_NVFP4_BLOCK) || g->accum > MXA_GEMM_ACCUM_FAST ||
	    g->sched > MXA_GEMM_SCHED_INTERWAVE)
		return -EINVAL;
	isa.m = g->m;
	isa.n = g->n;
	isa.k = g->k;
	isa.type_a = g->type_a;
	isa.type_b = g->type_b;
	isa.type_c = g->type_c;
	isa.type_d = g->type_d;
	isa.flags = g->flags;
	isa.scale_block = g->scale_block;
	isa.a = g->a;
	isa.b = g->b;
	isa.c = g->c;
	isa.d = g->d;
	isa.scale_a = g->scale_a;
	isa.scale_b = g->scale_b;
	isa.lda = g->lda;
	isa.ldb = g->ldb;
	isa.ldc = g->ldc;
	isa.ldd = g->ldd;
	isa.ld_scale_a = g->ld_scale_a;
	isa.ld_scale_b = g->ld_scale_b;
	isa.accum = g->accum;
	isa.sched = g->sched;
	cmd[0] = MXA_CMD_HEADER(MXA_OP_GEMM, MXA_GEMM_DWORDS, 0);
	memcpy(&cmd[1], &isa, sizeof(isa));
	return accel_prog_emit_command(prog, cmd, MXA_GEMM_DWORDS);
}

/*
 * The buffers accel_gemm() and accel_gemm_run() use for every call (the program, a
 * pipeline's tensor maps, a post-pass's copies of D and C) are kept in the device
 * handle for the next one: a buffer made and freed for every call (create, mmap, map
 * into the device's VM, unmap with a TLB invalidation) cost more than the job's round
 * trip in a TCG guest. A buffer goes back only once its job has ended, so that nothing
 * the device may still read is rewritten.
 */

/* The buffer kept in @slot if it holds @size bytes, else a new one. */
static int accel_keep_take(struct accel_device *dev, struct accel_bo **slot, size_t size,
			   struct accel_bo **bo)
{
	*bo = *slot;
	*slot = NULL;
	if (*bo && accel_bo_size(*bo) >= size)
		return 0;
	accel_bo_free(*bo);
	*bo = NULL;
	return accel_bo_alloc(dev, size, bo);
}

/* @bo back into @slot (emptied by accel_keep_take()), or freed while a job may still
 * read it (@busy). */
static void accel_keep_put(struct accel_bo **slot, struct accel_bo *bo, int busy)
{
	if (busy)
		accel_bo_free(bo);
	else
		*slot = bo;
}

/*
 * Run @prog as one job on @queue (a grid when @grid is not NULL) from the kept program
 * buffer, wait for it and give its result; *@busy (may be NULL): 1 when the job was
 * submitted and did not end (waiting failed), so that its other buffers stay untouched.
 */
static int accel_run_prog(struct accel_device *dev, unsigned int queue, struct accel_prog *prog,
			  const struct accel_grid *grid, struct accel_job_result *result,
			  int *busy)
{
	size_t size = accel_prog_size(prog);
	struct accel_bo *bo = NULL;
	struct accel_job *job = NULL;
	int ret, ended = 0, pending;

	ret = accel_keep_take(dev, &dev->prog_bo, size, &bo);
	if (!ret)
		ret = accel_prog_upload(prog, bo, 0);
	if (!ret)
		ret = accel_submit_grid(dev, queue, bo, 0, size, grid, &job);
	if (!ret)
		ret = accel_wait(job, -1);
	if (!ret) {
		ended = 1;
		if (result)
			*result = *accel_job_result(job);
		ret = accel_job_result(job)->status;
	}
	pending = job && !ended;	/* the device may still read its buffers */
	accel_job_free(job);
	if (busy)
		*busy = pending;
	accel_keep_put(&dev->prog_bo, bo, pending);
	return ret;
}

int accel_gemm(struct accel_device *dev, unsigned int queue, const struct accel_gemm *g,
	       struct accel_job_result *result)
{
	struct accel_prog *prog = NULL;
	int ret;

	ret = accel_prog_new(&prog);
	if (ret)
		return ret;
	ret = accel_prog_gemm(prog, g);
	if (!ret)
		ret = accel_run_prog(dev, queue, prog, NULL, result, NULL);
	accel_prog_free(prog);
	return ret;
}

/* ---- GEMM descriptors ------------------------------------------------------------ */

void accel_gemm_desc_init(struct accel_gemm_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->alpha = 1.0f;
	d->scale_a = 1.0f;
	d->scale_b = 1.0f;
}

/* K elements of one WGMMA (32 bytes of input) for the types the pipeline takes, else 0. */
static uint32_t wgmma_k_step(uint8_t ta, uint8_t tb)
{
	int fp8a = ta == MXA_DTYPE_E4M3 || ta == MXA_DTYPE_E5M2;
	int fp8b = tb == MXA_DTYPE_E4M3 || tb == MXA_DTYPE_E5M2;

	if (fp8a && fp8b)
		return 32;
	if (ta != tb)
		return 0;
	switch (ta) {
	case MXA_DTYPE_F16:
	case MXA_DTYPE_BF16:
		return 16;
	case MXA_DTYPE_TF32:
		return 8;
	default:
		return 0;
	}
}

static uint32_t elem_bytes(uint8_t t)
{
	return (uint32_t)accel_dtype_row_bytes(t, 1);
}

/* Stored rows and their packed bytes of each operand. */
static uint64_t dense_ld(uint8_t type, uint64_t cols)
{
	return accel_dtype_row_bytes(type, cols);
}

static int tma_ok(uint64_t va, uint64_t ld)
{
	return !(va & 15) && !(ld & 15) && ld < (1ull << 40);
}

/* The scalar the post-pass multiplies with, as f32 products left to right. */
static float gemm_post_scale(const struct accel_gemm_desc *d)
{
	float s = d->alpha * d->scale_a;

	return s * d->scale_b;
}

static const char *pipeline_blocker(const struct accel_gemm_desc *d, int device_c)
{
	uint32_t ks = wgmma_k_step(d->type_a, d->type_b);
	uint64_t lda = d->lda ? d->lda : dense_ld(d->type_a, d->k);
	uint64_t ldb = d->ldb ? d->ldb : dense_ld(d->type_b, d->k);
	uint64_t ldc = d->ldc ? d->ldc : dense_ld(d->type_c, d->n);
	uint64_t ldd = d->ldd ? d->ldd : dense_ld(d->type_d, d->n);

	if (d->numerics != ACCEL_GEMM_NUM_AUTO)
		return "EXACT/FAST numerics round over all of K: the GEMM command";
	if (d->mx_scale_a || d->mx_scale_b)
		return "MX block scales: the WGMMA has none";
	if (!ks)
		return "types the WGMMA cannot do (MX FP6/FP4/INT8, F32, F64, integers, mixed)";
	if (d->type_d != MXA_DTYPE_F32 || (device_c && d->type_c != MXA_DTYPE_F32))
		return "C/D not F32";
	if (d->trans_b != ACCEL_OP_T)
		return "B stored K x N: the WGMMA reads B as N x K";
	if (d->trans_a != ACCEL_OP_N)
		return "A stored K x M: the WGMMA reads A as M x K";
	if (d->m > INT32_MAX || d->n > INT32_MAX || d->k > INT32_MAX)
		return "sizes beyond TMA coordinates";
	if (!tma_ok(d->a, lda) || !tma_ok(d->b, ldb) || !tma_ok(d->d, ldd) ||
	    (device_c && !tma_ok(d->c, ldc)))
		return "an address or row pitch not a multiple of 16 bytes (TMA)";
	return NULL;
}

/*
 * The side's block scales in a block-scaled GEMM (either side has scales): needed for MX
 * element types and NVFP4, ignored for FP16/BF16, refused for the rest. Without any, FP8
 * is plain FP8 (NVFP4 always needs them).
 */
static const char *gemm_scales_bad(uint8_t type, uint64_t scales, int mx, int a_side)
{
	if (type == MXA_DTYPE_NVFP4 && !scales)
		return a_side ? "mx_scale_a: type_a is NVFP4 and needs its UE4M3 scales" :
				"mx_scale_b: type_b is NVFP4 and needs its UE4M3 scales";
	if (!mx)
		return NULL;
	if (mxe_dtype_is_mx_elem(type) && !scales)
		return a_side ? "mx_scale_a: type_a is an MX type and needs its E8M0 scales" :
				"mx_scale_b: type_b is an MX type and needs its E8M0 scales";
	if (!mxa_dtype_scale_block(type) && scales && type != MXA_DTYPE_F16 &&
	    type != MXA_DTYPE_BF16)
		return a_side ? "mx_scale_a: type_a takes no block scales (0)" :
				"mx_scale_b: type_b takes no block scales (0)";
	return NULL;
}

/* The first field of @d that no plan can take, as a sentence naming it; NULL if none. */
static const char *gemm_desc_bad_field(const struct accel_gemm_desc *d)
{
	int mx = d->mx_scale_a || d->mx_scale_b;
	const char *why;

	if (!d->m || !d->n || !d->k)
		return !d->m ? "m is 0" : !d->n ? "n is 0" : "k is 0";
	if (d->type_a >= MXA_DTYPE_COUNT || d->type_b >= MXA_DTYPE_COUNT ||
	    d->type_c >= MXA_DTYPE_COUNT || d->type_d >= MXA_DTYPE_COUNT)
		return d->type_a >= MXA_DTYPE_COUNT ? "type_a: no such type" :
		       d->type_b >= MXA_DTYPE_COUNT ? "type_b: no such type" :
		       d->type_c >= MXA_DTYPE_COUNT ? "type_c: no such type" : "type_d: no such type";
	if (d->trans_a > ACCEL_OP_T || d->trans_b > ACCEL_OP_T)
		return d->trans_a > ACCEL_OP_T ? "trans_a: not ACCEL_OP_N or _T" :
						 "trans_b: not ACCEL_OP_N or _T";
	if (d->numerics > ACCEL_GEMM_NUM_FAST)
		return "numerics: not an ACCEL_GEMM_NUM_*";
	if (d->algo > ACCEL_GEMM_ALGO_PIPELINE)
		return "algo: not an ACCEL_GEMM_ALGO_*";
	if (d->sched > ACCEL_GEMM_SCHED_INTERWAVE)
		return "sched: not an ACCEL_GEMM_SCHED_*";
	if (d->flags & ~MXA_GEMM_F_SATFINITE)
		return "flags: only MXA_GEMM_F_SATFINITE";
	if (d->cluster_m > 4 || d->cluster_m == 3)
		return "cluster_m: 0, 1, 2 or 4";
	if (d->tile_m && d->tile_m != 64 && d->tile_m != 128)
		return "tile_m: 0, 64 or 128";
	if ((d->tile_n & 7) || d->tile_n > 256)
		return "tile_n: 0 or a multiple of 8 up to 256";
	if (mxa_dtype_nvfp4_unpaired(d->type_a, d->type_b))
		return d->type_a == MXA_DTYPE_NVFP4 ? "type_b: NVFP4 (type_a) pairs only with NVFP4" :
						      "type_a: NVFP4 (type_b) pairs only with NVFP4";
	if ((why = gemm_scales_bad(d->type_a, d->mx_scale_a, mx, 1)) ||
	    (why = gemm_scales_bad(d->type_b, d->mx_scale_b, mx, 0)))
		return why;
	if (!d->a || !d->b || !d->d)
		return !d->a ? "a is 0" : !d->b ? "b is 0" : "d is 0";
	if (d->beta != 0.0f && !d->c)
		return "c is 0 while beta is not";
	return NULL;
}

static uint32_t gemm_cluster_m(const struct accel_gemm_desc *d);

/* Stages of @kw K steps (32 bytes each) that fit in SRAM beside the f32 D tile: a
 * stage's boxes, its "full" and (in a cluster) "empty" mbarriers; C's mbarrier. */
static uint32_t pipe_stages_fit(uint32_t tile_m, uint32_t tile_n, uint32_t kw)
{
	return (MXA_SRAM_SIZE - tile_m * tile_n * 4 - 16) / ((tile_m + tile_n) * 32 * kw + 32);
}

int accel_gemm_plan(const struct accel_gemm_desc *d, struct accel_gemm_plan *plan)
{
	struct accel_gemm_plan p = { 0 };
	const char *why;
	float s;

	if (!d || !plan)
		return -EINVAL;
	why = gemm_desc_bad_field(d);
	if (why) {
		plan->why = why;
		return -EINVAL;
	}
	/* A stored K x M: the GEMM command transposes whole-byte types (MXA_GEMM_F_A_KM). */
	if (d->trans_a != ACCEL_OP_N && accel_dtype_row_bytes(d->type_a, 8) < 8)
		return -EOPNOTSUPP;
	s = gemm_post_scale(d);
	p.post_pass = !(s == 1.0f && (d->beta == 0.0f || d->beta == 1.0f));
	p.device_c = !p.post_pass && d->beta == 1.0f;
	if (p.post_pass && ((d->type_d != MXA_DTYPE_F32 && d->type_d != MXA_DTYPE_F16) ||
			    (d->beta != 0.0f && d->type_c != MXA_DTYPE_F32 &&
			     d->type_c != MXA_DTYPE_F16)))
		return -EOPNOTSUPP;
	why = d->algo == ACCEL_GEMM_ALGO_COMMAND ? "asked for" : pipeline_blocker(d, p.device_c);
	if (why && d->algo == ACCEL_GEMM_ALGO_PIPELINE)
		return -EOPNOTSUPP;
	if (why) {
		uint64_t tiles = (uint64_t)((d->m + 63) / 64) * ((d->n + 63) / 64);

		p.algo = ACCEL_GEMM_ALGO_COMMAND;
		p.why = why;
		p.accum = d->numerics == ACCEL_GEMM_NUM_FAST ? 1 : 0;
		/*
		 * FAST: interwave when there are few 64 x 64 output tiles to share (memory
		 * bound). EXACT: intrawave, which proves most sums with SIMD where interwave
		 * combines exact partial sums with TwoSum (numerics.rst: it is slower here).
		 */
		p.sched = d->sched ? d->sched :
			  p.accum && tiles < 8 ? ACCEL_GEMM_SCHED_INTERWAVE : ACCEL_GEMM_SCHED_INTRAWAVE;
	} else {
		uint32_t ks = wgmma_k_step(d->type_a, d->type_b);
		uint32_t slices = (d->k + ks - 1) / ks, kw = 0;
		uint32_t t, stage_bytes, fit, st, want = d->stages ? d->stages : 4;
		uint32_t kw_min = gemm_cluster_m(d) == 4 ? 2 : 1;	/* see below */

		p.algo = ACCEL_GEMM_ALGO_PIPELINE;
		p.why = "";
		p.k_step = ks;
		p.k_chunk = ks;
		p.tile_m = d->tile_m ? d->tile_m : d->m > 64 ? 128 : 64;
		p.tile_n = d->tile_n ? d->tile_n : d->n >= 256 ? 256 : (d->n + 7) & ~7u;
		/*
		 * K steps a stage: 4 (boxes of 128-byte rows) where K and the SRAM still
		 * give the stages asked for (auto: two, a stage loading while one
		 * computes), else 2, else 1; where none does, 2 if K has them. Each stage
		 * is one TMA per operand and a wait: a 64 x 64 x 65536 FP8 GEMM ran in
		 * half the time with 4 as with 2, and 512 x 512 x 2048 on 128 x 256 tiles
		 * (room for 2 such stages) faster in 2 than in 4 stages of 2 (performance.rst).
		 * In clusters of 4 a rank's share of a B tile (tile_n / 4 rows, an even
		 * number) lands a multiple of 128 bytes into the stage, as TMA needs, only
		 * with rows of 64 bytes or more: 2 K steps at least (zero-filled past K).
		 */
		for (uint32_t w = 4; w >= kw_min && !kw; w /= 2) {
			uint32_t tw = (slices + w - 1) / w, fw = pipe_stages_fit(p.tile_m, p.tile_n, w);
			uint32_t need = d->stages ? d->stages : 2;

			if (w <= slices && tw >= need && fw >= need)
				kw = w;
		}
		if (!kw)
			kw = slices >= 2 ? 2 : kw_min;
		p.k_stage = kw * ks;
		stage_bytes = (p.tile_m + p.tile_n) * 32 * kw;
		t = (slices + kw - 1) / kw;
		fit = pipe_stages_fit(p.tile_m, p.tile_n, kw);
		st = want;
		if (st > t)
			st = t;
		if (st > fit)
			st = fit;
		if (st < 1)
			return -EINVAL;
		p.stages = st;
		p.k_iters = (t + st - 1) / st * st;
		p.sram_bytes = st * stage_bytes + p.tile_m * p.tile_n * 4 + 16 * (st + 1);
		if (d->cluster_m > 1)
			p.sram_bytes += 16 * st;
		/* a WGMMA's K is one chunk: both policies run it the same way */
		p.sched = d->sched ? d->sched : ACCEL_GEMM_SCHED_INTRAWAVE;
	}
	p.grid_x = p.grid_y = p.cluster_x = 1;
	*plan = p;
	return 0;
}

/* The largest divisor of @n that is at most @max and a multiple of @mult (0 if none). */
static uint32_t divisor_upto(uint32_t n, uint32_t max, uint32_t mult)
{
	for (uint32_t d = max < n ? max : n; d >= mult; d--)
		if (n % d == 0 && d % mult == 0)
			return d;
	return 0;
}

/*
 * Instances of a cluster along M that share B tiles by multicast (1: no clusters). Auto:
 * 2 where the grid allows (CUTLASS's default cluster on Hopper): B is read half as often,
 * the modelled cycles drop 7-12% (each copy engine's path carries half of B), and in
 * host time bench-gemm's pipeline rows ran level or up to 5% faster than the same grid
 * without (Documentation/performance.rst).
 */
static uint32_t gemm_cluster_m(const struct accel_gemm_desc *d)
{
	return d->cluster_m ? d->cluster_m : 2;
}

/*
 * The grid of most instances, each with the same number of tiles (no division on the
 * device), its side along M a multiple of @mult (a cluster): into @plan; the instances,
 * 1 when there is no such grid of two or more.
 */
static uint32_t spread_grid(struct accel_gemm_plan *plan, uint32_t tiles_m, uint32_t tiles_n,
			    uint32_t cores, uint32_t mult)
{
	uint32_t best = 1;

	for (uint32_t gy = 1; gy <= cores; gy++) {
		uint32_t gx = tiles_n % gy ? 0 : divisor_upto(tiles_m, cores / gy, mult);

		if (gx * gy > best) {
			best = gx * gy;
			plan->grid_x = gx;
			plan->grid_y = gy;
			plan->cluster_x = mult;
		}
	}
	return best;
}

uint32_t accel_gemm_plan_spread(struct accel_gemm_plan *plan, const struct accel_gemm_desc *d,
				uint32_t cores)
{
	uint32_t tiles_m, tiles_n, best = 1, c = gemm_cluster_m(d);

	plan->grid_x = plan->grid_y = plan->cluster_x = 1;
	if (plan->algo != ACCEL_GEMM_ALGO_PIPELINE || plan->post_pass || cores < 2)
		return 1;
	tiles_m = (d->m + plan->tile_m - 1) / plan->tile_m;
	tiles_n = (d->n + plan->tile_n - 1) / plan->tile_n;
	/* in clusters where the tiles allow, else without */
	if (c > 1)
		best = spread_grid(plan, tiles_m, tiles_n, cores, c);
	if (best == 1)
		best = spread_grid(plan, tiles_m, tiles_n, cores, 1);
	return best;
}

/* The GEMM command for @d (C only when the device does beta = 1). */
static int gemm_desc_command(struct accel_prog *prog, const struct accel_gemm_desc *d,
			     const struct accel_gemm_plan *p)
{
	struct accel_gemm g = {
		.m = d->m, .n = d->n, .k = d->k,
		.type_a = d->type_a, .type_b = d->type_b, .type_c = d->type_c,
		.type_d = d->type_d,
		.a = d->a, .b = d->b, .c = p->device_c ? d->c : 0, .d = d->d,
		.lda = d->lda, .ldb = d->ldb, .ldc = p->device_c ? d->ldc : 0, .ldd = d->ldd,
		.scale_a = d->mx_scale_a, .scale_b = d->mx_scale_b,
		.ld_scale_a = d->ld_mx_scale_a, .ld_scale_b = d->ld_mx_scale_b,
		.accum = p->accum,
		.sched = p->sched == ACCEL_GEMM_SCHED_INTERWAVE ? MXA_GEMM_SCHED_INTERWAVE :
								 MXA_GEMM_SCHED_INTRAWAVE,
	};

	g.flags = (d->flags & MXA_GEMM_F_SATFINITE) | (p->device_c ? MXA_GEMM_F_ACCUMULATE : 0) |
		  (d->trans_b == ACCEL_OP_N ? MXA_GEMM_F_B_KN : 0) |
		  (d->trans_a == ACCEL_OP_T ? MXA_GEMM_F_A_KM : 0);
	if (!p->device_c)
		g.type_c = g.type_d;
	if (d->mx_scale_a || d->mx_scale_b)
		g.scale_block = mxa_dtype_pair_scale_block(d->type_a, d->type_b);
	return accel_prog_gemm(prog, &g);
}

static void map2(struct mxa_tensor_map *m, uint64_t va, uint32_t eb, uint32_t cols,
		 uint32_t rows, uint64_t ld, uint32_t box0, uint32_t box1, uint8_t swizzle)
{
	memset(m, 0, sizeof(*m));
	m->global_addr = va;
	m->rank = 2;
	m->elem_bytes = eb;
	m->swizzle = swizzle;
	m->oob_fill = MXA_TMA_OOB_ZERO;
	m->dims[0] = cols;
	m->dims[1] = rows;
	m->dims[2] = m->dims[3] = m->dims[4] = 1;
	m->box[0] = box0;
	m->box[1] = box1;
	m->box[2] = m->box[3] = m->box[4] = 1;
	m->strides[0] = ld;
}

/*
 * Registers of the pipeline program. In a cluster: R_NB, the first B row this instance
 * reads (R_N + its rank's share), R_SB the SRAM offset of that share, R_NOFF the share's
 * first row in the tile.
 */
enum { R_M = 1, R_N = 2, R_K = 3, R_PAR = 4, R_CPAR = 5, R_NB = 8, R_SB = 9, R_NOFF = 10 };

/*
 * One instance's pipeline. Stage s has a "full" mbarrier (mbar0 + 16 s: its loads'
 * bytes) and, in a cluster of @cl instances, an "empty" one (ebar0 + 16 s) on which
 * every instance of the cluster arrives once it has read the stage: each instance
 * multicasts its share of B into every peer's stage, so it waits until all of them are
 * done with it (CUTLASS's producer/consumer pipeline across a cluster).
 */
struct pipe {
	struct accel_prog *prog;
	const struct accel_gemm_plan *p;
	uint64_t maps_va;
	uint8_t ta, tb;
	uint32_t kw, box, stage_bytes, d_sram, mbar0, cbar, ebar0, cl, wflags;
	uint32_t desc_swizzle;	/* the boxes' swizzle as the descriptors name it */
	int err;
};

/*
 * Refill stage @st. In a cluster, first wait until every instance has read it: the
 * empty barrier's phase of parity (@parity + R_PAR) (the first fill of a stage waits for
 * the phase "before" the barrier's first, which has completed).
 */
static void pipe_load(struct pipe *q, uint32_t st, uint32_t parity)
{
	const struct accel_gemm_plan *p = q->p;
	uint32_t base = st * q->stage_bytes, mbar = q->mbar0 + 16 * st;
	/* one box of each operand: the stage's K steps side by side in each row */
	struct accel_tma a = {
		.map = q->maps_va, .sram = base, .mbar = mbar, .coord_reg = { R_K, R_M },
	};
	struct accel_tma b = {
		.map = q->maps_va + 128, .sram = base + p->tile_m * q->box, .mbar = mbar,
		.coord_reg = { R_K, R_N },
	};

	if (q->cl > 1 && !q->err)
		q->err = accel_prog_mbar_wait(q->prog, q->ebar0 + 16 * st, parity, R_PAR);
	if (q->cl > 1) {
		/* this rank's rows of the B tile, into every instance of the cluster */
		b.map = q->maps_va + 512;
		b.sram_reg = R_SB;
		b.coord_reg[1] = R_NB;
		b.cta_mask = (uint8_t)((1u << q->cl) - 1);
	}
	if (!q->err)
		q->err = accel_prog_mbar_arrive(q->prog, mbar, q->stage_bytes);
	if (!q->err)
		q->err = accel_prog_tma(q->prog, 0, &a);
	if (!q->err)
		q->err = accel_prog_tma(q->prog, 0, &b);
	if (!q->err)
		q->err = accel_prog_reg_add(q->prog, R_K, R_K, 0, p->k_stage);
}

/* This instance has read stage @st: arrive on its empty barrier in every instance. */
static void pipe_release(struct pipe *q, uint32_t st)
{
	for (uint32_t r = 0; q->cl > 1 && r < q->cl && !q->err; r++)
		q->err = accel_prog_mbar_arrive(q->prog, MXA_DSMEM(r, q->ebar0 + 16 * st), 0);
}

static void pipe_compute(struct pipe *q, uint32_t st, int first)
{
	const struct accel_gemm_plan *p = q->p;
	uint32_t base = st * q->stage_bytes, swz = q->desc_swizzle;

	if (!q->err)
		q->err = accel_prog_mbar_wait(q->prog, q->mbar0 + 16 * st, 0, R_PAR);
	/* K step j: 32 bytes j x 32 into each box row; groups of 8 rows 8 rows apart */
	for (uint32_t j = 0; j < q->kw; j++) {
		for (uint32_t h = 0; h < p->tile_m / 64; h++) {
			struct accel_wgmma_desc w = {
				.flags = q->wflags, .type_a = q->ta, .type_b = q->tb,
				.type_d = MXA_DTYPE_F32, .n = p->tile_n,
				.desc_a = MXA_SMEM_DESC(base + h * 64 * q->box + j * 32, 16,
							8 * q->box, 0, swz),
				.desc_b = MXA_SMEM_DESC(base + p->tile_m * q->box + j * 32, 16,
							8 * q->box, 0, swz),
				.d = q->d_sram + h * 64 * p->tile_n * 4,
			};

			if (!(first && j == 0) || p->device_c)
				w.flags |= MXA_WGMMA_F_ACCUMULATE;
			if (!q->err)
				q->err = accel_prog_wgmma_desc(q->prog, &w);
		}
	}
	if (!q->err)
		q->err = accel_prog_commit_group(q->prog, MXA_GROUP_MMA);
}

/* One pass over the stages: iteration @first of the tile, @last of it. */
static void pipe_iteration(struct pipe *q, int first, int last)
{
	uint32_t S = q->p->stages;

	for (uint32_t s = 0; s < S; s++) {
		if (S == 1) {
			pipe_load(q, 0, 1);
			pipe_compute(q, 0, first);
			if (!q->err)
				q->err = accel_prog_wait_group(q->prog, MXA_GROUP_MMA, 0);
			pipe_release(q, 0);
			break;
		}
		pipe_compute(q, s, first && s == 0);
		/* the previous stage's WGMMAs are done: refill it S - 1 steps ahead */
		if (!q->err)
			q->err = accel_prog_wait_group(q->prog, MXA_GROUP_MMA, 1);
		/* (the tile's first step: the last tile's stage S - 1 was released at its end) */
		if (!(first && s == 0))
			pipe_release(q, (s + S - 1) % S);
		/* stage S - 1 feeds this iteration (R_PAR), the others the next */
		if (!last || s == 0)
			pipe_load(q, (s + S - 1) % S, s == 0);
	}
	if (!q->err)
		q->err = accel_prog_reg_add(q->prog, R_PAR, R_PAR, 0, 1);
}

static int gemm_desc_pipeline(struct accel_prog *prog, const struct accel_gemm_desc *d,
			      const struct accel_gemm_plan *p, void *maps, uint64_t maps_va)
{
	struct mxa_tensor_map *m = maps;
	uint32_t S = p->stages, iters = p->k_iters / S;
	uint32_t tiles_m = (d->m + p->tile_m - 1) / p->tile_m;
	uint32_t tiles_n = (d->n + p->tile_n - 1) / p->tile_n;
	uint32_t dbytes = p->tile_m * p->tile_n * 4;
	struct pipe q = {
		.prog = prog, .p = p, .maps_va = maps_va, .ta = d->type_a, .tb = d->type_b,
		.kw = p->k_stage / p->k_step,
		.wflags = p->sched == ACCEL_GEMM_SCHED_INTERWAVE ? MXA_WGMMA_F_INTERWAVE : 0,
	};
	struct accel_tma st = { .map = maps_va + 256, .coord_reg = { R_N, R_M } };
	struct accel_tma ldc = { .map = maps_va + 384, .coord_reg = { R_N, R_M } };
	size_t undo = accel_prog_size(prog) / 4, undo_cmds = accel_prog_commands(prog);
	uint32_t gx = p->grid_x ? p->grid_x : 1, gy = p->grid_y ? p->grid_y : 1;
	uint8_t swz;

	q.cl = p->cluster_x ? p->cluster_x : 1;
	if (!maps || (maps_va & 63) || tiles_m % gx || tiles_n % gy || gx % q.cl ||
	    p->tile_n % q.cl || q.cl > MXA_CLUSTER_MAX)
		return -EINVAL;
	q.box = 32 * q.kw;
	q.stage_bytes = (p->tile_m + p->tile_n) * q.box;
	q.d_sram = S * q.stage_bytes;
	q.mbar0 = q.d_sram + dbytes;
	q.cbar = q.mbar0 + 16 * S;
	q.ebar0 = q.cbar + 16;
	st.sram = ldc.sram = q.d_sram;
	ldc.mbar = q.cbar;
	/* A and B in boxes of a stage's K (rows of q.box bytes, swizzled as wide) */
	swz = q.box == 128 ? MXA_TMA_SWIZZLE_128B : q.box == 64 ? MXA_TMA_SWIZZLE_64B :
							      MXA_TMA_SWIZZLE_32B;
	q.desc_swizzle = q.box == 128 ? MXA_SMEM_DESC_SWIZZLE_128B :
			 q.box == 64 ? MXA_SMEM_DESC_SWIZZLE_64B : MXA_SMEM_DESC_SWIZZLE_32B;
	map2(&m[0], d->a, elem_bytes(d->type_a), d->k, d->m,
	     d->lda ? d->lda : dense_ld(d->type_a, d->k), p->k_stage, p->tile_m, swz);
	map2(&m[1], d->b, elem_bytes(d->type_b), d->k, d->n,
	     d->ldb ? d->ldb : dense_ld(d->type_b, d->k), p->k_stage, p->tile_n, swz);
	map2(&m[2], d->d, 4, d->n, d->m, d->ldd ? d->ldd : (uint64_t)d->n * 4, p->tile_n,
	     p->tile_m, MXA_TMA_SWIZZLE_NONE);
	map2(&m[3], d->c, 4, d->n, d->m, d->ldc ? d->ldc : (uint64_t)d->n * 4, p->tile_n,
	     p->tile_m, MXA_TMA_SWIZZLE_NONE);
	/* a rank's share of a B tile */
	map2(&m[4], d->b, elem_bytes(d->type_b), d->k, d->n,
	     d->ldb ? d->ldb : dense_ld(d->type_b, d->k), p->k_stage, p->tile_n / q.cl, swz);

	for (uint32_t s = 0; s < S && !q.err; s++)
		q.err = accel_prog_mbar_init(prog, q.mbar0 + 16 * s, 1);
	if (!q.err && p->device_c)
		q.err = accel_prog_mbar_init(prog, q.cbar, 1);
	if (q.cl > 1) {
		for (uint32_t s = 0; s < S && !q.err; s++)
			q.err = accel_prog_mbar_init(prog, q.ebar0 + 16 * s, q.cl);
		if (!q.err)
			q.err = accel_prog_reg_cta(prog, R_NOFF, MXA_SREG_CLUSTER_CTARANK,
						   p->tile_n / q.cl);
		if (!q.err)
			q.err = accel_prog_reg_cta(prog, R_SB, MXA_SREG_CLUSTER_CTARANK,
						   p->tile_n / q.cl * q.box);
		/* no peer multicasts into this instance before its barriers exist */
		if (!q.err)
			q.err = accel_prog_cluster_arrive(prog);
		if (!q.err)
			q.err = accel_prog_cluster_wait(prog);
	}
	/* the instance's tiles: from (ctaid.x, ctaid.y), a grid's size apart */
	if (!q.err)
		q.err = accel_prog_reg_cta(prog, R_N, MXA_SREG_CTAID_Y, p->tile_n);
	if (!q.err)
		q.err = accel_prog_loop(prog, tiles_n / gy, 0);
	if (!q.err)
		q.err = accel_prog_reg_cta(prog, R_M, MXA_SREG_CTAID_X, p->tile_m);
	if (!q.err)
		q.err = accel_prog_loop(prog, tiles_m / gx, 0);
	if (!q.err)
		q.err = accel_prog_reg_set(prog, R_K, 0);
	if (q.cl > 1 && !q.err)
		q.err = accel_prog_reg_add(prog, R_NB, R_N, R_NOFF, 0);
	/* prologue: S - 1 stages in flight before the first WGMMA (this iteration's) */
	for (uint32_t s = 0; S > 1 && s < S - 1; s++)
		pipe_load(&q, s, 1);
	/* the previous tile's D store must be done before D is written again */
	if (!q.err)
		q.err = accel_prog_wait_group(prog, MXA_GROUP_COPY, 0);
	if (p->device_c) {
		if (!q.err)
			q.err = accel_prog_mbar_arrive(prog, q.cbar, dbytes);
		if (!q.err)
			q.err = accel_prog_tma(prog, 0, &ldc);
		if (!q.err)
			q.err = accel_prog_mbar_wait(prog, q.cbar, 0, R_CPAR);
		if (!q.err)
			q.err = accel_prog_reg_add(prog, R_CPAR, R_CPAR, 0, 1);
	}
	if (!q.err)
		q.err = accel_prog_fence(prog);
	if (iters == 1) {
		pipe_iteration(&q, 1, 1);
	} else {
		pipe_iteration(&q, 1, 0);
		if (iters > 2) {
			if (!q.err)
				q.err = accel_prog_loop(prog, iters - 2, 0);
			pipe_iteration(&q, 0, 0);
			if (!q.err)
				q.err = accel_prog_endloop(prog);
		}
		pipe_iteration(&q, 0, 1);
	}
	if (!q.err)
		q.err = accel_prog_wait_group(prog, MXA_GROUP_MMA, 0);
	if (S > 1)
		pipe_release(&q, S - 1);
	if (!q.err)
		q.err = accel_prog_tma(prog, 1, &st);
	if (!q.err)
		q.err = accel_prog_commit_group(prog, MXA_GROUP_COPY);
	if (!q.err)
		q.err = accel_prog_reg_add(prog, R_M, R_M, 0, (uint64_t)p->tile_m * gx);
	if (!q.err)
		q.err = accel_prog_endloop(prog);
	if (!q.err)
		q.err = accel_prog_reg_add(prog, R_N, R_N, 0, (uint64_t)p->tile_n * gy);
	if (!q.err)
		q.err = accel_prog_endloop(prog);
	if (!q.err)
		q.err = accel_prog_wait_group(prog, MXA_GROUP_COPY, 0);
	/* no instance ends while a peer may still arrive on its empty barriers */
	if (q.cl > 1 && !q.err)
		q.err = accel_prog_cluster_arrive(prog);
	if (q.cl > 1 && !q.err)
		q.err = accel_prog_cluster_wait(prog);
	if (q.err)
		accel_prog_rewind(prog, undo, undo_cmds);
	return q.err;
}

int accel_prog_gemm_desc(struct accel_prog *prog, const struct accel_gemm_desc *d,
			 const struct accel_gemm_plan *plan, void *maps, uint64_t maps_va)
{
	if (!prog || !d || !plan || plan->post_pass)
		return -EINVAL;
	if (plan->algo == ACCEL_GEMM_ALGO_PIPELINE)
		return gemm_desc_pipeline(prog, d, plan, maps, maps_va);
	return gemm_desc_command(prog, d, plan);
}

/* COPY @rows rows of @row_bytes from @src (pitch @sld) to @dst (pitch @dld). */
static int copy_rows(struct accel_prog *prog, uint64_t dst, uint64_t dld, uint64_t src,
		     uint64_t sld, uint32_t rows, uint32_t row_bytes)
{
	int ret = 0;

	if (dld == row_bytes && sld == row_bytes &&
	    (uint64_t)rows * row_bytes <= MXA_COPY_MAX_BYTES)
		ret = accel_prog_copy(prog, dst, 0, src, 0, rows * row_bytes, 0);
	else {
		ret = accel_prog_reg_set(prog, 6, 0);
		if (!ret)
			ret = accel_prog_reg_set(prog, 7, 0);
		if (!ret)
			ret = accel_prog_loop(prog, rows, 0);
		if (!ret)
			ret = accel_prog_copy(prog, dst, 6, src, 7, row_bytes, 0);
		if (!ret)
			ret = accel_prog_reg_add(prog, 6, 6, 0, dld);
		if (!ret)
			ret = accel_prog_reg_add(prog, 7, 7, 0, sld);
		if (!ret)
			ret = accel_prog_endloop(prog);
	}
	if (!ret)
		ret = accel_prog_commit_group(prog, MXA_GROUP_COPY);
	if (!ret)
		ret = accel_prog_wait_group(prog, MXA_GROUP_COPY, 0);
	return ret;
}

static float load_f(uint8_t type, const uint8_t *p)
{
	if (type == MXA_DTYPE_F16) {
		uint16_t h;

		memcpy(&h, p, 2);
		return mxe_cvt_f16_to_f32(h);
	}
	float f;

	memcpy(&f, p, 4);
	return f;
}

/* D = s x D' + beta x C on the CPU, f32 arithmetic, rounded once more to F16 D. */
static void post_pass(const struct accel_gemm_desc *d, uint8_t *dbuf, const uint8_t *cbuf)
{
	uint32_t de = elem_bytes(d->type_d), ce = elem_bytes(d->type_c);
	float s = gemm_post_scale(d);

	for (size_t i = 0; i < (size_t)d->m * d->n; i++) {
		float v = s * load_f(d->type_d, dbuf + i * de);

		if (cbuf)
			v = v + d->beta * load_f(d->type_c, cbuf + i * ce);
		if (d->type_d == MXA_DTYPE_F16) {
			uint16_t h = mxe_cvt_f32_to_f16(v, 0);

			memcpy(dbuf + i * de, &h, 2);
		} else {
			memcpy(dbuf + i * de, &v, 4);
		}
	}
}

int accel_gemm_run(struct accel_device *dev, unsigned int queue,
		   const struct accel_gemm_desc *d, struct accel_gemm_plan *plan,
		   struct accel_job_result *result)
{
	struct accel_gemm_plan p;
	struct accel_grid grid = { 0 };
	struct accel_job_result r = { 0 };
	struct accel_prog *prog = NULL;
	struct accel_bo *maps = NULL, *dscr = NULL, *cscr = NULL;
	uint32_t drow, crow;
	int ret, busy = 0, busy2 = 0;

	ret = accel_gemm_plan(d, &p);
	if (ret)
		return ret;
	accel_gemm_plan_spread(&p, d, accel_device_info(dev)->num_cores);
	grid.x = p.grid_x;
	grid.y = p.grid_y;
	grid.cluster_x = p.cluster_x;
	if (d->cluster_m > 1 && p.cluster_x != d->cluster_m) {
		p.why = p.algo != ACCEL_GEMM_ALGO_PIPELINE ?
			"cluster_m: only a pipeline runs in clusters" : p.post_pass ?
			"cluster_m: a GEMM with a CPU post-pass runs on one instance" :
			"cluster_m: the tiles of M and the device's cores make no grid of such clusters";
		if (plan)
			*plan = p;
		return -EOPNOTSUPP;
	}
	if (plan)
		*plan = p;
	drow = (uint32_t)accel_dtype_row_bytes(d->type_d, d->n);
	crow = (uint32_t)accel_dtype_row_bytes(d->type_c, d->n);
	ret = accel_prog_new(&prog);
	if (!ret && p.algo == ACCEL_GEMM_ALGO_PIPELINE)
		ret = accel_keep_take(dev, &dev->maps_bo, ACCEL_GEMM_MAPS_BYTES, &maps);
	if (!ret && p.post_pass)
		ret = accel_keep_take(dev, &dev->post_d_bo, (size_t)drow * d->m, &dscr);
	if (!ret && p.post_pass && d->beta != 0.0f)
		ret = accel_keep_take(dev, &dev->post_c_bo, (size_t)crow * d->m, &cscr);
	/* C first: it may be D, which the GEMM overwrites */
	if (!ret && cscr)
		ret = copy_rows(prog, accel_bo_va(cscr), crow, d->c, d->ldc ? d->ldc : crow,
				d->m, crow);
	if (!ret) {
		struct accel_gemm_plan dev_plan = p;

		dev_plan.post_pass = 0;
		ret = accel_prog_gemm_desc(prog, d, &dev_plan, maps ? accel_bo_map(maps) : NULL,
					   maps ? accel_bo_va(maps) : 0);
	}
	if (!ret && dscr)
		ret = copy_rows(prog, accel_bo_va(dscr), drow, d->d, d->ldd ? d->ldd : drow,
				d->m, drow);
	if (!ret)
		ret = accel_run_prog(dev, queue, prog, &grid, &r, &busy);
	if (!ret && dscr) {
		struct accel_job_result r2;

		post_pass(d, accel_bo_map(dscr), cscr ? accel_bo_map(cscr) : NULL);
		accel_prog_reset(prog);
		ret = copy_rows(prog, d->d, d->ldd ? d->ldd : drow, accel_bo_va(dscr), drow,
				d->m, drow);
		if (!ret)
			ret = accel_run_prog(dev, queue, prog, NULL, &r2, &busy2);
		if (!ret)
			r.end_ns = r2.end_ns;
		else
			r = r2;
	}
	if (result)
		*result = r;
	if (cscr)
		accel_keep_put(&dev->post_c_bo, cscr, busy);
	if (dscr)
		accel_keep_put(&dev->post_d_bo, dscr, busy || busy2);
	if (maps)
		accel_keep_put(&dev->maps_bo, maps, busy);
	accel_prog_free(prog);
	return ret;
}
