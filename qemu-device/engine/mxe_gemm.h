/* SPDX-License-Identifier: MIT */
/*
 * mxe_gemm.h - engine-internal interface between the GEMM front end
 * (mxe_gemm.c: validation, dispatch), the exact path (mxe_exact.c) and the
 * fast tiled path (mxe_tiled.c).
 */
#ifndef MXE_GEMM_H
#define MXE_GEMM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mxe_engine.h"

/* What kind of arithmetic an operation does. */
enum mxe_class {
	MXE_CLASS_FLOAT,	/* real-valued inputs, f32 or f16 accumulator */
	MXE_CLASS_F64,
	MXE_CLASS_INT,		/* s8/s4 inputs, s32 accumulator */
	MXE_CLASS_B1,		/* 1-bit AND/XOR + popc, s32 accumulator */
};

/* A validated descriptor with the derived quantities filled in. */
struct mxe_op {
	struct mxe_gemm_desc d;
	enum mxe_class cls;
	size_t lda, ldb, ldc, ldd, ld_sa, ld_sb;	/* effective, in bytes */
	int scale_a, scale_b;	/* scales applied on this side */
	uint32_t k_chunk;	/* effective: 1..k */
	int has_plan;		/* mxe_hopper_gemm(): @plan, checked, defaults filled */
	struct mxe_hopper_plan plan;
};

/** mxe_gemm_a_km() - an M x K copy of a K x M A (see mxe_gemm.c). */
int mxe_gemm_a_km(const struct mxe_gemm_desc *in, struct mxe_gemm_desc *out, void **tmp);

/**
 * mxe_nvfp4_expand() - an NVFP4 x NVFP4 operation as the BF16 one with the same products
 * (see mxe_nvfp4.c): @out is @in on dense BF16 copies at *@tmp (malloc()ed, the caller
 * frees it), or with @tmp NULL only checked. Other types: @out = @in.
 */
int mxe_nvfp4_expand(const struct mxe_gemm_desc *in, struct mxe_gemm_desc *out, void **tmp);

/** mxe_nvfp4_layout() - the row strides of an NVFP4 operation's codes (@ld) and scales
 * (@ld_s), A's then B's, in bytes, defaults filled; MXE_ENGINE_EINVAL_LAYOUT below a row. */
int mxe_nvfp4_layout(const struct mxe_gemm_desc *in, size_t ld[2], size_t ld_s[2]);

/** mxe_nvfp4_row_values() - @k values of an NVFP4 row (element x scale, NaN under a NaN
 * scale, negated when @neg), as the BF16 copies hold them. */
void mxe_nvfp4_row_values(const uint8_t *codes, const uint8_t *scales, size_t k, int neg,
			  double *out);

/**
 * mxe_gemv_nvfp4_run() - NVFP4 x NVFP4 with few rows of A (mxe_gemv_nvfp4.c): each
 * column's codes read once per row, 16-k block sums in integers; EXACT and FAST with the
 * BF16 path's bits. Returns 1 when it does not apply.
 */
int mxe_gemv_nvfp4_run(struct mxe_engine *eng, const struct mxe_gemm_desc *desc);
/** Whether mxe_gemv_nvfp4_run() takes @desc (then also with desc.b_rows). */
int mxe_gemv_nvfp4_takes(const struct mxe_gemm_desc *desc);
/** Outputs it computed, those it handed to the general exact path, and the FAST
 * sub-blocks it ran as chains, since the process started. */
void mxe_gemv_nvfp4_counts(uint64_t *outputs, uint64_t *redone, uint64_t *chains);

/**
 * mxe_tiled_nvfp4_run() - NVFP4 x NVFP4 without its BF16 copies: each 32-k block's
 * elements times their scales as int16 pairs on the int8 panels' AVX2 kernel
 * (mxe_tiled.c), where its block sums are exact in f32: EXACT (intrawave) and FAST on
 * any host with AVX2 (FAST above AVX2 only where M or N is below 1024); the BF16
 * path's bits. Returns 1 when it does not apply (the caller expands).
 */
int mxe_tiled_nvfp4_run(struct mxe_engine *eng, const struct mxe_gemm_desc *desc);

/**
 * mxe_gemm_copies() - the operand copies @in needs before any kernel: NVFP4's expansion or
 * the M x K copy of a K x M A (*@tmp malloc()ed; @tmp NULL: only checked); else @out = @in.
 */
int mxe_gemm_copies(const struct mxe_gemm_desc *in, struct mxe_gemm_desc *out, void **tmp);

/** mxe_op_prepare() - validate @desc and derive @op (0 or -errno). */
int mxe_op_prepare(const struct mxe_gemm_desc *desc, struct mxe_op *op);

/** The exact path: any validated operation. */
int mxe_exact_run(struct mxe_engine *eng, const struct mxe_op *op);

/**
 * mxe_gemv_run() - the exact path for few rows of A and narrow weights (mxe_gemv.c):
 * the same bits as mxe_exact_run(). Returns 1 when it does not apply.
 */
int mxe_gemv_run(struct mxe_engine *eng, const struct mxe_op *op);
/** Outputs mxe_gemv_run() computed, those it handed to the general path, and those
 * its integer block kernel computed (E2M1 weights, M = 1). */
void mxe_gemv_counts(uint64_t *outputs, uint64_t *redone);
uint64_t mxe_gemv_int_outputs(void);
/** Of the outputs handed on, those summed exactly from the integer form instead
 * (mxe_gemv.c, gemv_int_redo()). */
uint64_t mxe_gemv_int_redone(void);
/** Outputs of its several-row integer kernels summed without the proof's bound, their
 * double sums exact (mxe_gemv.c, gemv_sums_exact()). */
uint64_t mxe_gemv_exact_sums(void);

/* Row @j of B (N x K) and its scales, in one array or row by row (desc.b_rows). */
static inline const uint8_t *mxe_op_b_row(const struct mxe_op *op, size_t j)
{
	return op->d.b_rows ? op->d.b_rows[j] : (const uint8_t *)op->d.b + j * op->ldb;
}

static inline const uint8_t *mxe_op_b_scales(const struct mxe_op *op, size_t j)
{
	return op->d.scale_b_rows ? op->d.scale_b_rows[j] : op->d.scale_b + j * op->ld_sb;
}

/**
 * mxe_gemv_fast_run() - FAST numerics for few rows of A against FP8/FP4 weights
 * (mxe_gemv_fast.c): the tiled path's bits. Returns 1 when it does not apply.
 */
int mxe_gemv_fast_run(struct mxe_engine *eng, const struct mxe_op *op);
int mxe_gemv_fast_applies(const struct mxe_op *op);
/** Outputs mxe_gemv_fast_run() computed since the process started. */
uint64_t mxe_gemv_fast_outputs(void);
/** Sub-block sums it took from integer products (E2M1, M = 1) since the process started. */
uint64_t mxe_gemv_fast_int_sums(void);
/** Several-row GEMVs it ran on BF16 pairs (AVX512-BF16) since the process started. */
uint64_t mxe_gemv_fast_pair_ops(void);
/** Whether FAST can take @op's MX scales: every scaled element exact in f32. */
int mxe_fast_scales_safe(const struct mxe_op *op);
/**
 * mxe_fast_pairs_b() - B's part of the BF16 pairs' certificate (numerics.rst
 * "Determinism"), for an MX or FP8 B against A's lowest bit 2^@la: B's least element
 * (its type's least magnitude at its least scale; NaN scales aside) at least 2^-126,
 * and products on a grid of at least 2^-126.
 */
int mxe_fast_pairs_b(const struct mxe_op *op, int la);

/*
 * FAST's adds (MXE_ACCUM_FAST), for kernels that take its sub-block sums q in K order:
 * p = q where sub-block @s opens a block sum, else p + q; where it closes one (of @nsub),
 * the accumulator = p in the first block, else accumulator + p.
 */
#define MXE_FAST_SUBS_PER_BLOCK (MXE_FAST_KBLOCK / MXE_FAST_KSUB)
static inline int mxe_fast_opens_block(size_t s)
{
	return s % MXE_FAST_SUBS_PER_BLOCK == 0;
}

static inline int mxe_fast_closes_block(size_t s, size_t nsub)
{
	return s % MXE_FAST_SUBS_PER_BLOCK == MXE_FAST_SUBS_PER_BLOCK - 1 || s == nsub - 1;
}

static inline int mxe_fast_first_block(size_t s)
{
	return s < MXE_FAST_SUBS_PER_BLOCK;
}

/** One output of the exact path: a . b over all of K, no C, rounded to type_d. */
double mxe_exact_dot(const struct mxe_op *op, const double *a, const double *b);

/**
 * mxe_tiled_run() - the fast tiled path. Returns 1 when it cannot run @op
 * (type combination or extreme scales), so the caller falls back to the
 * exact path.
 */
int mxe_tiled_run(struct mxe_engine *eng, const struct mxe_op *op);
/**
 * mxe_tiled_exact_run() - EXACT on the tiled path's float kernels, for MX types whose
 * 32-k block sums are exact in f32 (mxe_tiled.c): the same bits as mxe_exact_run().
 * Returns 1 when it does not apply (other types, scales too far apart, k_chunk < K,
 * an operation the interwave policy takes).
 */
int mxe_tiled_exact_run(struct mxe_engine *eng, const struct mxe_op *op);
/** Operations the tiled path ran on its int8 panels (AVX512-VNNI), since the start. */
uint64_t mxe_tiled_s8_ops(void);
/** FAST operations it ran on BF16 pair panels (AVX512-BF16), since the start. */
uint64_t mxe_tiled_bf16_ops(void);
/** EXACT operations the tiled path ran on int16 windows (AVX512-VNNI), since the start. */
uint64_t mxe_tiled_w16_ops(void);
/** Elements it computed, and those it handed to the general path, since the start. */
void mxe_tiled_exact_counts(uint64_t *outputs, uint64_t *redone);
/** Of those outputs, the ones rounded eight at a time (AVX-512), since the start. */
uint64_t mxe_tiled_exact_vector_outputs(void);

/**
 * mxe_wgmma_exact() - an EXACT FP8, F16 or BF16 WGMMA (F32 C and D) in exact double sums
 * on AVX-512 (mxe_wgmma_exact.c): the same bits as mxe_gemm(). Returns 1 when it does not
 * apply (other types, or data whose sums a double may not hold).
 */
int mxe_wgmma_exact(const struct mxe_gemm_desc *desc);
/** WGMMAs it ran, since the start. */
uint64_t mxe_wgmma_exact_ops(void);
/** Of their outputs, those handed to the general path, since the start. */
uint64_t mxe_wgmma_exact_redone(void);
/** Of the EXACT WGMMAs, those summed on int16 windows (E4M3, AVX512-VNNI), since the start. */
uint64_t mxe_wgmma_exact_w16(void);

/** Exact value of A/B element (i, kk) with scale, TF32 and negation applied. */
double mxe_op_elem_a(const struct mxe_op *op, size_t i, size_t kk);
double mxe_op_elem_b(const struct mxe_op *op, size_t j, size_t kk);

/** All K values of row @r of A (@side 0) or of B^T (@side 1), as above. */
void mxe_op_row_values(const struct mxe_op *op, int side, size_t r, double *out);
/** Values @k0 .. @k0 + @k - 1 of that row (@k0 0 or a multiple of 256). */
void mxe_op_row_range(const struct mxe_op *op, int side, size_t r, size_t k0, size_t k,
		      double *out);

/**
 * mxe_interwave_run() - the EXACT path under the INTERWAVE policy (mxe_interwave.c):
 * the same bits as mxe_exact_run(). Returns 1 when it does not apply.
 */
int mxe_interwave_run(struct mxe_engine *eng, const struct mxe_op *op);
/**
 * mxe_interwave_applies() - whether @op is one the interwave policy runs as a strategy
 * of its own: EXACT, float, rounded once, more than one chunk of K. With one chunk (a
 * WGMMA's K) the policies are the same computation and the intrawave paths take it.
 */
int mxe_interwave_applies(const struct mxe_op *op);
/** Output (i, j) on the general exact path, C included, stored to D; -1: no memory. */
int mxe_exact_output(const struct mxe_op *op, size_t i, size_t j);
/** The same from the values of row @i of A (@a) and row @j of B (@b), K of each, as
 * mxe_op_row_values() gives them (where @op's own rows are not what it multiplies). */
void mxe_exact_output_rows(const struct mxe_op *op, size_t i, size_t j, const double *a,
			   const double *b);
void mxe_stats_count_intrawave(void);

/** Value of C(i, j) as a double (0 when not accumulating). */
double mxe_op_load_c(const struct mxe_op *op, size_t i, size_t j);
int64_t mxe_op_load_c_int(const struct mxe_op *op, size_t i, size_t j);
/** Store D(i, j) from an already rounded value. */
void mxe_op_store_d(const struct mxe_op *op, size_t i, size_t j, double v);
/** Store D(i, j0 .. j0 + @n - 1) from @n rounded f32 values (a GEMV's outputs). */
void mxe_op_store_row_f32(const struct mxe_op *op, size_t i, size_t j0, const float *v, size_t n);
void mxe_op_store_d_int(const struct mxe_op *op, size_t i, size_t j, int64_t v);

/** Integer accumulator update: C + sum, then wrap or clamp to int32. */
/* Double @s rounded once (to nearest even) to accumulator type @td, as a double. */
double mxe_round_to_accum(double s, unsigned td);

/* 2^e for a normal exponent e (-1022 .. 1023). */
static inline double mxe_pow2(int e)
{
	uint64_t u = (uint64_t)(e + 1023) << 52;
	double d;

	memcpy(&d, &u, 8);
	return d;
}

/* The exponent of the lowest set bit of a nonzero finite @v. */
static inline int mxe_lsb_exponent(double v)
{
	uint64_t u;
	int e;

	memcpy(&u, &v, 8);
	e = (int)((u >> 52) & 0x7FF);
	u &= (UINT64_C(1) << 52) - 1;
	if (e)
		u |= UINT64_C(1) << 52;
	return (e ? e - 1075 : -1074) + __builtin_ctzll(u);
}

/* Precision and exponent range of accumulator type @td for mxe_xacc_round(). */
static inline void mxe_accum_format(unsigned td, int *prec, int *emin, int *emax)
{
	switch (td) {
	case MXA_DTYPE_F16:
		*prec = 11, *emin = -14, *emax = 15;
		break;
	case MXA_DTYPE_F64:
		*prec = 53, *emin = -1022, *emax = 1023;
		break;
	default:
		*prec = 24, *emin = -126, *emax = 127;
		break;
	}
}

static inline int64_t mxe_int32_finish(int64_t v, int satfinite)
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

#endif /* MXE_GEMM_H */
