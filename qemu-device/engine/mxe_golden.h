/* SPDX-License-Identifier: MIT */
/*
 * mxe_golden.h - the one reader of MXGV golden vectors (format in
 * tests/golden/h200/README.md) and the rules that check the engine on them.
 */
#ifndef MXE_GOLDEN_H
#define MXE_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

#include "mxe_engine.h"

/* MXGV header fields */
#define MXGV_KIND_MATMUL 1
#define MXGV_KIND_CONVERT 2

#define MXGV_F_ACCUM (1u << 0)
#define MXGV_F_FAST_ACCUM (1u << 1)
#define MXGV_F_SATFINITE (1u << 4)
#define MXGV_F_SCALE_IGNORED (1u << 5)

enum mxgv_oracle {
	MXGV_ORACLE_H200_CVT = 1,
	MXGV_ORACLE_H200_WMMA = 2,
	MXGV_ORACLE_H200_CUBLAS = 3,
	MXGV_ORACLE_F64_MATH = 4,
	MXGV_ORACLE_ML_DTYPES = 5,
	MXGV_ORACLE_H200_WGMMA = 6,
};

/** struct mxe_golden_case - one loaded case; pointers point into @buf. */
struct mxe_golden_case {
	char name[256];		/* file name without directory and .mxgv */
	uint32_t version, kind;
	uint32_t dtype_a, dtype_b, dtype_c, dtype_d;
	uint32_t m, n, k, scale_block, flags, oracle;
	const uint8_t *a, *b, *sa, *sb, *c, *d;
	size_t lda, ldb, ldc, ldd, ld_sa, ld_sb;	/* bytes per row */
	uint8_t *buf;
	size_t size;
};

/** mxe_golden_load() - read and validate @path; 0 or a negative errno. */
int mxe_golden_load(const char *path, struct mxe_golden_case *gc);
void mxe_golden_free(struct mxe_golden_case *gc);

/** struct mxe_golden_opts - how the engine runs the cases (zero = defaults). */
struct mxe_golden_opts {
	uint8_t accum;		/* enum mxe_accum for GEMM/TMATMULMX cases; HOPPER
				 * runs the wmma/wgmma cases on the tensor-core model
				 * and the cuBLAS cases as mxe_hopper_gemm() with
				 * mxe_hopper_cublas_plan() (others EXACT) */
	uint8_t sched;		/* enum mxe_sched */
	uint8_t tf32_input;	/* enum mxe_tf32_input */
	unsigned nthreads;	/* 0 = all of the engine's */
	uint8_t plan_elsewhere;	/* HOPPER cuBLAS cases: the plan from other shapes
				 * (mxe_hopper_cublas_plan_elsewhere()) */
};

struct mxe_golden_result {
	int pass;
	double maxerr;		/* max |D - S| / (|C| + sum|a*b|); conversions: rel. diff */
	double oracle_err;	/* same for the expected D; NaN when not meaningful */
	double bitexact;	/* fraction of D elements bit-identical to the oracle */
	char why[160];		/* reason of a failure */
};

/**
 * mxe_golden_run() - run one case on @eng and judge it:
 *  - conversions and integer/s4/b1 cases must be bit-exact;
 *  - f64_math (MX) cases must equal the expected bits, or be the exact sum
 *    rounded once (EXACT), or lie within the FAST bound;
 *  - hardware FP cases must have maxerr <= the hardware's own error.
 * A case the engine cannot run is a failure.
 */
int mxe_golden_run(struct mxe_engine *eng, const struct mxe_golden_case *gc,
		   const struct mxe_golden_opts *opts, struct mxe_golden_result *res);

/** Format the one-line report "<name> PASS|FAIL maxerr=... oracle_err=... bitexact=...". */
void mxe_golden_format(const struct mxe_golden_case *gc,
		       const struct mxe_golden_result *res, char *buf, size_t len);

#endif /* MXE_GOLDEN_H */
