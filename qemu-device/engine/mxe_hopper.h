/* SPDX-License-Identifier: MIT */
/*
 * mxe_hopper.h - engine-internal interface of the HOPPER numerics
 * (mxe_hopper.c): the H200 tensor core's accumulator for one MMA
 * instruction, and a library GEMM on the H200 (struct mxe_hopper_plan) built
 * as chains of such instructions. The exact path (mxe_exact.c) calls them
 * per output element.
 */
#ifndef MXE_HOPPER_H
#define MXE_HOPPER_H

#include <stddef.h>

#include "mxe_gemm.h"
#include "mxe_xacc.h"

/* Per-operation constants of the tensor-core model, and scratch. */
struct mxe_hopper_ctx {
	unsigned td;		/* accumulator type: F32, F16 or F64 */
	int dmma;		/* f64: IEEE FMA chain */
	int emin_a, emin_b;	/* exponent the tensor core gives subnormal inputs */
	int align_bits, out_bits;	/* 25 and 23, or 13 and 13 with FP8 inputs */
	struct mxe_xacc x;	/* chunks with Inf, NaN or only zeros */
};

void mxe_hopper_init(struct mxe_hopper_ctx *hc, const struct mxe_op *op);
/* @r truncated toward zero to @bits fraction bits (also the experiment driver's). */
double mxe_trunc_to_bits(double r, int bits);

/**
 * mxe_hopper_mma() - one instruction's K-chunk of one output element:
 * @c (when @have_c) + a[0..n) . b[0..n), as the H200's tensor core rounds it.
 */
double mxe_hopper_mma(struct mxe_hopper_ctx *hc, const double *a, const double *b, size_t n,
		      double c, int have_c);

/**
 * mxe_hopper_plan_dot() - one output element of op->plan's GEMM over all of
 * K (@a, @b: its K values), C added last when the operation accumulates.
 */
double mxe_hopper_plan_dot(struct mxe_hopper_ctx *hc, const struct mxe_op *op, const double *a,
			   const double *b, double c);

#endif /* MXE_HOPPER_H */
