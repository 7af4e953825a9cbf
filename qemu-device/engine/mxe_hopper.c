// SPDX-License-Identifier: MIT
/*
 * mxe_hopper.c - the HOPPER numerics: the H200 tensor core, and library
 * GEMMs built from it.
 *
 * DOC: one instruction (measured on the wmma/wgmma golden vectors)
 *
 * C and every product are aligned to the largest exponent (products: the sum
 * of their operands' exponents), truncated toward zero at 2^(emax - 25)
 * (FP8: 2^(emax - 13)), summed exactly, and the sum is truncated toward zero
 * to 23 (FP8: 13) fraction bits; an f16 accumulator is then rounded to
 * nearest even. f64 (DMMA) is a chain of IEEE FMAs in k order from C.
 *
 * DOC: a library GEMM (measured on the cuBLAS golden vectors)
 *
 * struct mxe_hopper_plan: chains of instructions over K from zero, FP32
 * promotion every promote_k elements (cuBLAS FP8 without fast
 * accumulation), K slices summed in order (split-K, sliced K), the K residue
 * first (CUTLASS), the f16 epilogues; or SIMT code (cuBLAS's GEMV and dot
 * kernels): threads of FMA chains, blocks and lanes (simt_sum()).
 */
#include <limits.h>
#include <stdlib.h>
#include <math.h>

#include "mxe_formats.h"
#include "mxe_gemm.h"
#include "mxe_hopper.h"

/* The exponent the tensor core gives a subnormal input: its format's emin. */
static int subnormal_exponent(unsigned t)
{
	switch (t) {
	case MXA_DTYPE_E4M3:
		return -6;
	case MXA_DTYPE_E5M2:
	case MXA_DTYPE_F16:
		return -14;
	default:	/* bf16, tf32 */
		return -126;
	}
}

static int is_fp8(unsigned t)
{
	return t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2;
}

void mxe_hopper_init(struct mxe_hopper_ctx *hc, const struct mxe_op *op)
{
	/* a library GEMM with an f16 D accumulates in f32 (CUBLAS_COMPUTE_32F) */
	hc->td = op->has_plan && op->d.type_d == MXA_DTYPE_F16 ? MXA_DTYPE_F32 : op->d.type_d;
	hc->dmma = op->cls == MXE_CLASS_F64;
	hc->emin_a = subnormal_exponent(op->d.type_a);
	hc->emin_b = subnormal_exponent(op->d.type_b);
	if (is_fp8(op->d.type_a) || is_fp8(op->d.type_b))
		hc->align_bits = 13, hc->out_bits = 13;
	else
		hc->align_bits = 25, hc->out_bits = 23;
	mxe_xacc_init(&hc->x);
}

/* Special values and all-zero chunks: IEEE rules on the exact sum. */
static double ieee_chunk(struct mxe_hopper_ctx *hc, const double *a, const double *b, size_t n,
			 double c, int have_c)
{
	int prec, emin, emax;

	mxe_accum_format(hc->td, &prec, &emin, &emax);
	mxe_xacc_clear(&hc->x);
	if (have_c)
		mxe_xacc_add(&hc->x, c);
	mxe_xacc_add_dot(&hc->x, a, b, n, 0);
	return mxe_xacc_round(&hc->x, prec, emin, emax);
}

/* @r truncated toward zero to @bits fraction bits (the tensor core's alignment). */
double mxe_trunc_to_bits(double r, int bits)
{
	double q;

	if (r == 0.0)
		return r;
	q = ldexp(1.0, ilogb(r) - bits);
	return trunc(r / q) * q;
}

/*
 * Products are exact doubles, x / q and trunc() are exact, and the integer
 * sum stays far below 2^53, so the arithmetic here is exact.
 */
double mxe_hopper_mma(struct mxe_hopper_ctx *hc, const double *a, const double *b, size_t n,
		      double c, int have_c)
{
	int emax = INT_MIN, any = 0;
	double q, sum;

	if (!have_c)
		c = 0.0;
	if (hc->dmma) {
		for (size_t i = 0; i < n; i++)
			c = fma(a[i], b[i], c);
		return c;
	}
	if (!isfinite(c))
		return ieee_chunk(hc, a, b, n, c, have_c);
	if (c != 0.0) {
		emax = ilogb(c);
		any = 1;
	}
	for (size_t i = 0; i < n; i++) {
		double p = a[i] * b[i];
		int ea, eb;

		if (!isfinite(p))
			return ieee_chunk(hc, a, b, n, c, have_c);
		if (p == 0.0)
			continue;
		ea = ilogb(a[i]);
		eb = ilogb(b[i]);
		ea = ea < hc->emin_a ? hc->emin_a : ea;
		eb = eb < hc->emin_b ? hc->emin_b : eb;
		if (ea + eb > emax)
			emax = ea + eb;
		any = 1;
	}
	if (!any)	/* only zeros: IEEE addition decides the sign */
		return ieee_chunk(hc, a, b, n, c, have_c);
	q = ldexp(1.0, emax - hc->align_bits);
	sum = trunc(c / q);
	for (size_t i = 0; i < n; i++)
		sum += trunc(a[i] * b[i] / q);
	return mxe_round_to_accum(mxe_trunc_to_bits(sum * q, hc->out_bits), hc->td);
}

/* x + y rounded to nearest in the accumulator type (F32 or F64). */
static double acc_add(unsigned td, double x, double y)
{
	if (td == MXA_DTYPE_F64)
		return x + y;
	return (float)x + (float)y;	/* float arithmetic: one rounding */
}

/* A chain of instructions with FP32 promotion, fed one K range at a time. */
struct chain {
	double part, main;
	int have_part, have_main;
	size_t since;	/* elements since the last promotion */
};

static void chain_feed(struct mxe_hopper_ctx *hc, const struct mxe_hopper_plan *p,
		       struct chain *ch, const double *a, const double *b, size_t k0, size_t k1)
{
	for (size_t i = k0; i < k1; i += p->inst_k) {
		size_t n = k1 - i < p->inst_k ? k1 - i : p->inst_k;

		ch->part = mxe_hopper_mma(hc, a + i, b + i, n, ch->part, ch->have_part);
		ch->have_part = 1;
		ch->since += n;
		if (p->promote_k && ch->since >= p->promote_k) {
			/* the partial restarts from zero (scale-d = 0) */
			ch->main = ch->have_main ? acc_add(hc->td, ch->main, ch->part) : ch->part;
			ch->have_main = 1;
			ch->have_part = 0;
			ch->since = 0;
		}
	}
}

static double chain_result(unsigned td, const struct chain *ch)
{
	if (!ch->have_main)
		return ch->part;
	return ch->have_part ? acc_add(td, ch->main, ch->part) : ch->main;
}

/* One contiguous chain over [k0, k1): its K residue first when the plan says so. */
static void chain_range(struct mxe_hopper_ctx *hc, const struct mxe_hopper_plan *p,
			struct chain *ch, const double *a, const double *b, size_t k0, size_t k1)
{
	size_t r = p->residue_k ? (k1 - k0) % p->residue_k : 0;

	if (r)
		chain_feed(hc, p, ch, a, b, k0, k0 + r);
	chain_feed(hc, p, ch, a, b, k0 + r, k1);
}

/* The sum over all of K of one output: the plan's slices, each a chain, in order. */
static double plan_sum(struct mxe_hopper_ctx *hc, const struct mxe_hopper_plan *p, size_t k,
		       const double *a, const double *b)
{
	size_t tile = p->slice_k ? p->slice_k : p->split_tile;
	size_t tiles = (k + tile - 1) / tile;
	size_t slices = p->slice_k ? tiles : p->split_k ? p->split_k : 1;
	size_t per = p->slice_k ? 1 : (tiles + slices - 1) / slices;
	double total = 0.0;
	int have_total = 0;

	for (size_t s = 0; s < slices; s++) {
		struct chain ch = { 0 };
		size_t t = p->split_interleaved ? s : s * per;
		size_t step = p->split_interleaved ? slices : 1;
		size_t end = p->split_interleaved ? tiles : (s + 1) * per;

		if (end > tiles)
			end = tiles;
		if (t >= end)
			continue;	/* more slices than tiles */
		if (step == 1)		/* contiguous: one range */
			chain_range(hc, p, &ch, a, b, t * tile, end * tile < k ? end * tile : k);
		else
			for (; t < end; t += step)
				chain_feed(hc, p, &ch, a, b, t * tile,
					   (t + 1) * tile < k ? (t + 1) * tile : k);
		total = have_total ? acc_add(hc->td, total, chain_result(hc->td, &ch))
				   : chain_result(hc->td, &ch);
		have_total = 1;
	}
	return total;
}

/* One step of a SIMT thread: an FMA (f64, or f32 on exactly converted f32 inputs), or
 * the product rounded, then added. */
static double simt_step(unsigned td, int mul_add, double x, double y, double acc)
{
	if (mul_add)
		return acc_add(td, acc, mxe_round_to_accum(x * y, td));
	if (td == MXA_DTYPE_F64)
		return fma(x, y, acc);
	return fmaf((float)x, (float)y, (float)acc);
}

/* A block's thread sums @v[0..@n) added as a butterfly: v[t] += v[t + n/2], then n/4, ... */
static double butterfly(unsigned td, double *v, size_t n)
{
	for (size_t h = n / 2; h >= 1; h /= 2)
		for (size_t t = 0; t < h; t++)
			v[t] = acc_add(td, v[t], v[t + h]);
	return v[0];
}

/* The sum of a SIMT kernel (struct mxe_hopper_plan, simt): threads, blocks, lanes. */
static double simt_sum(unsigned td, const struct mxe_hopper_plan *p, size_t k, const double *a,
		       const double *b)
{
	size_t nt = p->simt_threads ? p->simt_threads : 1, nv = p->simt_vec ? p->simt_vec : 1;
	size_t nb = p->simt_blocks ? p->simt_blocks : 1, nl = p->simt_lanes ? p->simt_lanes : 1;
	size_t round = nb * nt * nv;
	double lane[MXE_HOPPER_SIMT_MAX_LANES], thread[MXE_HOPPER_SIMT_MAX_THREADS], total;
	int lane_used[MXE_HOPPER_SIMT_MAX_LANES] = { 0 };

	for (size_t blk = 0; blk < nb; blk++) {
		double sum;

		for (size_t t = 0; t < nt; t++) {
			double acc = 0.0;

			for (size_t r = blk * nt * nv + t * nv; r < k; r += round)
				for (size_t j = r; j < r + nv && j < k; j++)
					acc = simt_step(td, p->simt_mul_add, a[j], b[j], acc);
			thread[t] = acc;
		}
		if (p->simt_block_seq) {
			sum = thread[0];
			for (size_t t = 1; t < nt; t++)
				sum = acc_add(td, sum, thread[t]);
		} else {
			sum = butterfly(td, thread, nt);
		}
		lane[blk % nl] = lane_used[blk % nl] ? acc_add(td, lane[blk % nl], sum) : sum;
		lane_used[blk % nl] = 1;
	}
	total = lane[0];
	for (size_t l = 1; l < nl && lane_used[l]; l++)
		total = acc_add(td, total, lane[l]);
	return total;
}

double mxe_hopper_plan_dot(struct mxe_hopper_ctx *hc, const struct mxe_op *op, const double *a,
			   const double *b, double c)
{
	const struct mxe_hopper_plan *p = &op->plan;
	double total = p->simt ? simt_sum(hc->td, p, op->d.k, a, b) : plan_sum(hc, p, op->d.k, a, b);

	if (op->d.type_d == MXA_DTYPE_F16) {
		int with_c = op->d.flags & MXA_GEMM_F_ACCUMULATE;

		if (with_c && p->epilogue_f32)	/* CUTLASS: D = f16(f32(sum + C)) */
			return mxe_round_to_accum((float)total + (float)c, MXA_DTYPE_F16);
		/* nvjet: D = f16(f16(sum) + C), each rounded to nearest (fitted on
		 * the F16-output cases of tests/golden/h200/cublas-fresh) */
		total = mxe_round_to_accum(total, MXA_DTYPE_F16);
		if (with_c)
			total = mxe_round_to_accum(total + c, MXA_DTYPE_F16);	/* exact sum */
		return total;
	}
	if (op->d.flags & MXA_GEMM_F_ACCUMULATE)
		total = acc_add(hc->td, total, c);
	return total;
}

/* The tensor core's K per instruction for these inputs. */
static uint32_t instruction_k(unsigned ta)
{
	switch (ta) {
	case MXA_DTYPE_E4M3:
	case MXA_DTYPE_E5M2:
		return 32;
	case MXA_DTYPE_TF32:
		return 8;
	case MXA_DTYPE_F64:
		return 4;
	default:
		return 16;
	}
}

int mxe_hopper_gemm(struct mxe_engine *eng, const struct mxe_gemm_desc *desc,
		    const struct mxe_hopper_plan *plan)
{
	struct mxe_gemm_desc d;
	struct mxe_op op;
	struct mxe_hopper_plan *p;
	int rc;

	if (!desc || !plan)
		return MXE_ENGINE_EINVAL;
	if (desc->flags & MXA_GEMM_F_A_KM) {
		void *tmp;

		rc = mxe_gemm_a_km(desc, &d, &tmp);
		if (!rc)
			rc = mxe_hopper_gemm(eng, &d, plan);
		free(tmp);
		return rc;
	}
	d = *desc;
	d.accum = MXE_ACCUM_HOPPER;
	d.k_chunk = 0;
	rc = mxe_op_prepare(&d, &op);
	if (rc)
		return rc;
	if ((op.cls == MXE_CLASS_FLOAT && d.type_d != MXA_DTYPE_F32 && d.type_d != MXA_DTYPE_F16) ||
	    (op.cls != MXE_CLASS_FLOAT && op.cls != MXE_CLASS_F64))
		return MXE_ENGINE_EINVAL_DTYPE;
	op.plan = *plan;
	p = &op.plan;
	if (!p->inst_k)
		p->inst_k = instruction_k(d.type_a);
	if (!p->split_tile)
		p->split_tile = p->inst_k;
	if (p->split_tile % p->inst_k || p->promote_k % p->inst_k || p->split_interleaved > 1 ||
	    p->slice_k % 4 || p->residue_k % p->inst_k || p->epilogue_f32 > 1 || p->simt > 1 ||
	    p->simt_block_seq > 1 || p->simt_mul_add > 1 ||
	    p->simt_threads > MXE_HOPPER_SIMT_MAX_THREADS ||
	    (p->simt_threads & (p->simt_threads - 1)) || p->simt_lanes > MXE_HOPPER_SIMT_MAX_LANES ||
	    p->simt_lanes > (p->simt_blocks ? p->simt_blocks : 1))
		return MXE_ENGINE_EINVAL_OPTION;
	if (p->simt) {
		/* FP32/FP64 SIMT code: FMAs on the inputs as they are */
		if (p->promote_k || p->split_k > 1 || p->slice_k || p->residue_k || p->split_interleaved)
			return MXE_ENGINE_EINVAL_OPTION;
		if (d.type_a == MXA_DTYPE_TF32 || d.type_b == MXA_DTYPE_TF32)
			op.d.tf32_input = MXE_TF32_IN_FULL;
	}
	op.has_plan = 1;
	return mxe_exact_run(eng, &op);
}
