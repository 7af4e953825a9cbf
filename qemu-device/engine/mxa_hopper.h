/* SPDX-License-Identifier: MIT */
/*
 * mxa_hopper.h - engine-internal interface of the HOPPER numerics
 * (mxa_hopper.c): the H200 tensor core's accumulator for one MMA
 * instruction, and a library GEMM on the H200 (struct mxa_hopper_plan) built
 * as chains of such instructions. The exact path (mxa_exact.c) calls them
 * per output element.
 */
#ifndef MXA_HOPPER_H
#define MXA_HOPPER_H

#include <stddef.h>

#include "mxa_gemm.h"
#include "mxa_xacc.h"

/* Per-operation constants of the tensor-core model, and scratch. */
struct mxa_hopper_ctx {
	unsigned td;		/* accumulator type: F32, F16 or F64 */
	int dmma;		/* f64: IEEE FMA chain */
	int emin_a, emin_b;	/* exponent the tensor core gives subnormal inputs */
	int align_bits, out_bits;	/* 25 and 23, or 13 and 13 with FP8 inputs */
	struct mxa_xacc x;	/* chunks with Inf, NaN or only zeros */
};

void mxa_hopper_init(struct mxa_hopper_ctx *hc, const struct mxa_op *op);

/**
 * mxa_hopper_mma() - one instruction's K-chunk of one output element:
 * @c (when @have_c) + a[0..n) . b[0..n), as the H200's tensor core rounds it.
 */
double mxa_hopper_mma(struct mxa_hopper_ctx *hc, const double *a, const double *b, size_t n,
		      double c, int have_c);

/**
 * mxa_hopper_plan_dot() - one output element of op->plan's GEMM over all of
 * K (@a, @b: its K values), C added last when the operation accumulates.
 */
double mxa_hopper_plan_dot(struct mxa_hopper_ctx *hc, const struct mxa_op *op, const double *a,
			   const double *b, double c);

#endif /* MXA_HOPPER_H */
