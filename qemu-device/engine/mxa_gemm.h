/* SPDX-License-Identifier: MIT */
/*
 * mxa_gemm.h - engine-internal interface between the GEMM front end
 * (mxa_gemm.c: validation, dispatch), the exact path (mxa_exact.c) and the
 * fast tiled path (mxa_tiled.c).
 */
#ifndef MXA_GEMM_H
#define MXA_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "mxa_engine.h"

/* What kind of arithmetic an operation does. */
enum mxa_class {
	MXA_CLASS_FLOAT,	/* real-valued inputs, f32 or f16 accumulator */
	MXA_CLASS_F64,
	MXA_CLASS_INT,		/* s8/s4 inputs, s32 accumulator */
	MXA_CLASS_B1,		/* 1-bit AND/XOR + popc, s32 accumulator */
};

/* A validated descriptor with the derived quantities filled in. */
struct mxa_op {
	struct mxa_gemm_desc d;
	enum mxa_class cls;
	size_t lda, ldb, ldc, ldd, ld_sa, ld_sb;	/* effective, in bytes */
	int scale_a, scale_b;	/* scales applied on this side */
	uint32_t k_chunk;	/* effective: 1..k */
	int has_plan;		/* mxa_hopper_gemm(): @plan, checked, defaults filled */
	struct mxa_hopper_plan plan;
};

/** mxa_gemm_a_km() - an M x K copy of a K x M A (see mxa_gemm.c). */
int mxa_gemm_a_km(const struct mxa_gemm_desc *in, struct mxa_gemm_desc *out, void **tmp);

/** mxa_op_prepare() - validate @desc and derive @op (0 or -errno). */
int mxa_op_prepare(const struct mxa_gemm_desc *desc, struct mxa_op *op);

/** The exact path: any validated operation. */
int mxa_exact_run(struct mxa_engine *eng, const struct mxa_op *op);

/**
 * mxa_tiled_run() - the fast tiled path. Returns 1 when it cannot run @op
 * (type combination or extreme scales), so the caller falls back to the
 * exact path.
 */
int mxa_tiled_run(struct mxa_engine *eng, const struct mxa_op *op);

/** Exact value of A/B element (i, kk) with scale, TF32 and negation applied. */
double mxa_op_elem_a(const struct mxa_op *op, size_t i, size_t kk);
double mxa_op_elem_b(const struct mxa_op *op, size_t j, size_t kk);

/** All K values of row @r of A (@side 0) or of B^T (@side 1), as above. */
void mxa_op_row_values(const struct mxa_op *op, int side, size_t r, double *out);

/** Value of C(i, j) as a double (0 when not accumulating). */
double mxa_op_load_c(const struct mxa_op *op, size_t i, size_t j);
int64_t mxa_op_load_c_int(const struct mxa_op *op, size_t i, size_t j);
/** Store D(i, j) from an already rounded value. */
void mxa_op_store_d(const struct mxa_op *op, size_t i, size_t j, double v);
void mxa_op_store_d_int(const struct mxa_op *op, size_t i, size_t j, int64_t v);

/** Integer accumulator update: C + sum, then wrap or clamp to int32. */
/* Double @s rounded once (to nearest even) to accumulator type @td, as a double. */
double mxa_round_to_accum(double s, unsigned td);

/* Precision and exponent range of accumulator type @td for mxa_xacc_round(). */
static inline void mxa_accum_format(unsigned td, int *prec, int *emin, int *emax)
{
	switch (td) {
	case MXA_DT_F16:
		*prec = 11, *emin = -14, *emax = 15;
		break;
	case MXA_DT_F64:
		*prec = 53, *emin = -1022, *emax = 1023;
		break;
	default:
		*prec = 24, *emin = -126, *emax = 127;
		break;
	}
}

static inline int64_t mxa_int32_finish(int64_t v, int satfinite)
{
	if (satfinite) {
		if (v > INT32_MAX)
			return INT32_MAX;
		if (v < INT32_MIN)
			return INT32_MIN;
		return v;
	}
	return (int32_t)(uint32_t)(uint64_t)v;
}

#endif /* MXA_GEMM_H */
