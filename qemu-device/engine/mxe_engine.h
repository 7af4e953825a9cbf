/* SPDX-License-Identifier: MIT */
/*
 * mxe_engine.h - the MXA matrix engine: number formats, MX quantisation and
 * matrix multiplication, as plain C11 with no QEMU or kernel headers.
 *
 * The QEMU device links libmxaengine.a and calls this header only; the host
 * tests link the same archive. Documentation/numerics.rst describes the
 * numerics this code implements (formats, rounding, accumulation order).
 *
 * Conventions
 *  - Matrices are row-major. A is M x K unless MXA_GEMM_F_A_KM says it is
 *    K x M (then transposed into a temporary M x K copy first). B is given
 *    as N x K (that is B^T, K contiguous, as in the MXGV golden vectors)
 *    unless MXA_GEMM_F_B_KN says it is K x N. The result is D = A * B^T (+ C when MXA_GEMM_F_ACCUMULATE).
 *  - Leading dimensions are in BYTES between consecutive rows; 0 means
 *    "dense" (a row is exactly the packed size of its elements).
 *  - Sub-byte packing (same as MXGV): FP6 one per byte in the low 6 bits;
 *    FP4 (e2m1) and s4 two per byte along K, the lower index in the low
 *    nibble; b1 eight per byte along K, the lower index in bit 0. Rows start
 *    on a byte boundary.
 *  - MX scales are E8M0 bytes, one per 32 consecutive K elements:
 *    scale_a is M x K/32, scale_b is N x K/32 (whatever the layout of B).
 *  - Every function returns 0 or a negative enum mxe_engine_err.
 *
 * How the device calls it (one engine per device, created at realize with
 * the "engine-threads" property, shared by every core's command processor thread):
 *
 *	struct mxe_engine *eng = mxe_engine_create(cores);
 *	...
 *	struct mxe_gemm_desc d = { 0 };          // exact numerics, all threads
 *	d.m = M; d.n = N; d.k = K;
 *	d.type_a = MXA_DTYPE_E4M3; d.type_b = MXA_DTYPE_E5M2;
 *	d.type_c = d.type_d = MXA_DTYPE_F32;
 *	d.a = tileA; d.b = tileB;                // B as N x K (B^T), or set
 *	d.scale_a = tileU; d.scale_b = tileN;    //   MXA_GEMM_F_B_KN for K x N
 *	d.scale_block = 32;
 *	d.c = acc; d.d = acc; d.flags = MXA_GEMM_F_ACCUMULATE;   // TMATMULMX.ACC
 *	d.sched = cmd_policy;                    // intrawave / interwave
 *	int rc = mxe_tmatmulmx(eng, &d);
 *	if (rc)
 *		complete_job_with_error(rc, mxe_engine_strerror(rc));
 *	...
 *	mxe_engine_destroy(eng);                 // at unrealize
 */
#ifndef MXE_ENGINE_H
#define MXE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "mxa_isa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types: enum mxa_isa_dtype (MXE_DTYPE_*) of uapi/mxa_isa.h, the ISA's codes. */

/** enum mxe_engine_err - negative return codes; mxe_engine_strerror() names them. */
enum mxe_engine_err {
	MXE_ENGINE_OK = 0,
	/* the ISA's reasons of MXA_ERR_BAD_OPERAND (uapi/mxa_isa.h), negated */
	MXE_ENGINE_EINVAL = -MXA_BADOP_INVALID,		/* NULL pointer or a bad field */
	MXE_ENGINE_EINVAL_DTYPE = -MXA_BADOP_DTYPE,
	MXE_ENGINE_EINVAL_SHAPE = -MXA_BADOP_SHAPE,	/* M/N/K zero, or no instruction shape */
	MXE_ENGINE_EINVAL_K_ALIGN = -MXA_BADOP_K_ALIGN,
	MXE_ENGINE_EINVAL_SCALE = -MXA_BADOP_SCALE,
	MXE_ENGINE_EINVAL_LAYOUT = -MXA_BADOP_LAYOUT,
	MXE_ENGINE_EOVERFLOW = -MXA_BADOP_OVERFLOW,
	MXE_ENGINE_ENOMEM = -8,
	MXE_ENGINE_EINVAL_OPTION = -MXA_BADOP_OPTION,
	MXE_ENGINE_EBUSY = -10,		/* engine destroyed while in use */
};

const char *mxe_engine_strerror(int err);

/* ------------------------------------------------------------------------ */
/* Formats and conversions (mxe_formats.c)                                   */

/** Bits of storage per element (1, 4, 6 stored in 8, 8, 16, 32, 64). */
unsigned mxe_dtype_bits(enum mxa_isa_dtype t);
/** Bytes of one row of @n elements of type @t (sub-byte types packed). */
size_t mxe_dtype_row_bytes(enum mxa_isa_dtype t, size_t n);
const char *mxe_dtype_name(enum mxa_isa_dtype t);
/** Parse "e4m3", "bf16", ... ; returns -1 when unknown. */
int mxe_dtype_from_name(const char *name);
/** True for the MX element types that take E8M0 block scales. */
int mxe_dtype_is_mx_elem(enum mxa_isa_dtype t);

/* Decoding: every value of these types is exact in f32. NaN codes decode to
 * the canonical NaN the H200 writes, 0x7FFFFFFF (E8M0: 0x7FC00000). */
float mxe_cvt_e4m3_to_f32(uint8_t v);
float mxe_cvt_e5m2_to_f32(uint8_t v);
float mxe_cvt_e8m0_to_f32(uint8_t v);
float mxe_cvt_e3m2_to_f32(uint8_t v);
float mxe_cvt_e2m3_to_f32(uint8_t v);
float mxe_cvt_e2m1_to_f32(uint8_t v);
float mxe_cvt_mxint8_to_f32(uint8_t v);
float mxe_cvt_f16_to_f32(uint16_t v);
float mxe_cvt_bf16_to_f32(uint16_t v);

/* Encoding from f32, round to nearest even unless said otherwise.
 * @satfinite: finite overflow and +-Inf go to +-max finite (PTX .satfinite);
 * without it E4M3 overflows to NaN, E5M2/F16/BF16 to Inf. */
uint8_t mxe_cvt_f32_to_e4m3(float x, int satfinite);
uint8_t mxe_cvt_f32_to_e5m2(float x, int satfinite);
uint16_t mxe_cvt_f32_to_f16(float x, int satfinite);
uint16_t mxe_cvt_f32_to_bf16(float x, int satfinite);
/* FP6/FP4 always saturate (they have no Inf/NaN). NaN gives -0 as ml_dtypes
 * does, or +max with @satfinite as PTX cvt.satfinite does. */
uint8_t mxe_cvt_f32_to_e3m2(float x, int satfinite);
uint8_t mxe_cvt_f32_to_e2m3(float x, int satfinite);
uint8_t mxe_cvt_f32_to_e2m1(float x, int satfinite);

/** enum mxe_tf32_round - how f32 becomes tf32 (10 mantissa bits). */
enum mxe_tf32_round {
	MXE_TF32_RNA = 0,	/* cvt.rna.tf32.f32: nearest, ties away from zero */
	MXE_TF32_RNE = 1,	/* cvt.rn.tf32.f32 */
	MXE_TF32_RZ = 2,	/* truncate the low 13 bits (what the tensor core does) */
};
/** Returns f32 bits with the low 13 bits clear. */
uint32_t mxe_cvt_f32_to_tf32(float x, enum mxe_tf32_round mode, int satfinite);

/** enum mxe_e8m0_round - rounding of f32 to an E8M0 power of two. */
enum mxe_e8m0_round {
	MXE_E8M0_RZ = 0,	/* cvt.rz.ue8m0: 2^floor(log2 x) */
	MXE_E8M0_RP = 1,	/* cvt.rp.ue8m0: 2^ceil(log2 x) */
	MXE_E8M0_RN = 2,	/* nearest, ties up (ml_dtypes float8_e8m0fnu) */
};
/* NaN, negatives and zero give 0xFF (NaN) except as the rounding of 0 below
 * 2^-127 (0x00); with @satfinite overflow gives 0xFE, else 0xFF. */
uint8_t mxe_cvt_f32_to_e8m0(float x, enum mxe_e8m0_round mode, int satfinite);
/* Integer conversions: round to nearest even, saturating, NaN -> 0. */
int8_t mxe_cvt_f32_to_s8(float x);
int8_t mxe_cvt_f32_to_s4(float x);	/* -8..7 */
uint8_t mxe_cvt_f32_to_mxint8(float x);	/* round(x*64) clamped to +-127 */

/** Flags for mxe_convert(). */
#define MXE_CVT_SATFINITE	(1u << 0)
#define MXE_CVT_TF32_RNE	(1u << 1)	/* f32->tf32 with RNE instead of RNA */
#define MXE_CVT_TF32_RZ		(1u << 2)	/* f32->tf32 by truncation */
#define MXE_CVT_UNPACKED	(1u << 3)	/* 4-bit/1-bit codes one per byte */

/**
 * mxe_convert() - convert @n elements between any two types.
 * Sub-byte types are packed as in the header comment. Every conversion goes
 * through the exact value (f64), so it rounds once, to nearest even
 * (tf32: ties away, as cvt.rna). f32 -> E8M0 rounds up (cvt.rp). Integers:
 * round to nearest even and saturate.
 */
int mxe_convert(enum mxa_isa_dtype dst_type, void *dst, enum mxa_isa_dtype src_type,
		const void *src, size_t n, unsigned flags);

/** Read element @i of a packed row as an exact double (MX scales not applied). */
double mxe_load_elem(enum mxa_isa_dtype t, const void *row, size_t i);

/* ------------------------------------------------------------------------ */
/* MX quantisation (mxe_mx.c)                                                */

/** enum mxe_mx_scale_policy - how a block's E8M0 scale is chosen. */
enum mxe_mx_scale_policy {
	/* OCP MX v1.0 6.3 / microxcaling / torchao FLOOR:
	 * X = 2^(floor(log2 amax) - emax_elem); elements saturate. */
	MXE_MX_SCALE_FLOOR = 0,
	/* NVIDIA / cuBLAS RCEIL (cvt.rp.ue8m0): X = 2^ceil(log2(amax/max_elem)),
	 * so that no element saturates. */
	MXE_MX_SCALE_RCEIL = 1,
};

/**
 * mxe_mx_quantize() - quantise @n f32 values into MX blocks of 32.
 * @elem: E4M3, E5M2, E3M2, E2M3, E2M1 or MXINT8.
 * @scales: receives ceil(n/32) E8M0 bytes. @elems: receives the packed
 * elements (E2M1 two per byte). The last block may be partial.
 * Edge cases: an all-zero block gets scale 0x00 (2^-127); a block holding a
 * NaN or Inf gets 0xFF (NaN) and elements set to the format's NaN or 0;
 * the scale exponent is clamped to [-127, 127].
 */
int mxe_mx_quantize(const float *src, size_t n, enum mxa_isa_dtype elem,
		    enum mxe_mx_scale_policy policy, uint8_t *scales, void *elems);
/** mxe_mx_dequantize() - the value rule of MX 1.0 6.1 (NaN scale poisons). */
int mxe_mx_dequantize(const uint8_t *scales, const void *elems, size_t n,
		      enum mxa_isa_dtype elem, float *dst);

/* ------------------------------------------------------------------------ */
/* NVFP4 (mxe_nvfp4.c): E2M1 elements, one UE4M3 scale per MXA_NVFP4_BLOCK   */

/** A UE4M3 block scale: E4M3 with the sign bit not read (0x7F, 0xFF: NaN). */
float mxe_cvt_ue4m3_to_f32(uint8_t v);
/** The largest finite |x| of @n values (0 when there is none): a tensor's amax. */
float mxe_nvfp4_amax(const float *src, size_t n);
/**
 * mxe_nvfp4_quantize() - quantise @n f32 values into NVFP4 blocks of 16 with the
 * tensor's @amax (>= 0, finite; the same for every part of one tensor): ceil(n/16)
 * UE4M3 @scales, the packed E2M1 @elems (two per byte) and, when non-NULL, the
 * per-tensor *@tensor_scale that multiplies them back. The recipe: mxe_nvfp4.c.
 */
int mxe_nvfp4_quantize(const float *src, size_t n, float amax, uint8_t *scales, void *elems,
		       float *tensor_scale);
/** mxe_nvfp4_dequantize() - element x block scale x @tensor_scale (a NaN scale: NaN). */
int mxe_nvfp4_dequantize(const uint8_t *scales, const void *elems, size_t n,
			 float tensor_scale, float *dst);

/* ------------------------------------------------------------------------ */
/* Matrix multiplication                                                     */

/*
 * Flags of struct mxe_gemm_desc: the ISA's MXA_GEMM_F_* of uapi/mxa_isa.h
 * (ACCUMULATE: D = C + A*B^T, C may alias D; SATFINITE: integers clamp to int32;
 * B_KN: B is K x N; A_KM: A is K x M, both for types of >= 8 bits, mxe_gemm and
 * mxe_hopper_gemm), and the engine's own from bit 8 on, which only the device's
 * WGMMA and MMA commands set.
 */
#define MXE_GEMM_NEGATE_A	(1u << 8)	/* wgmma imm-scale-a = -1 (float types) */
#define MXE_GEMM_NEGATE_B	(1u << 9)	/* wgmma imm-scale-b = -1 (float types) */
#define MXE_GEMM_B1_XOR		(1u << 10)	/* b1: popc(a XOR b); default popc(a AND b) */
_Static_assert(!((MXE_GEMM_NEGATE_A | MXE_GEMM_NEGATE_B | MXE_GEMM_B1_XOR) & MXA_GEMM_F_ALL),
	       "the engine's flags are not the ISA's");

/** enum mxe_accum - accumulation numerics (Documentation/numerics.rst). */
enum mxe_accum {
	/* Each K-chunk (k_chunk elements; 0 = all of K) is summed exactly
	 * together with the incoming accumulator and rounded once to the
	 * accumulator type (f32, f16, f64); integers are summed exactly and
	 * wrapped or clamped once per chunk. The default. */
	MXE_ACCUM_EXACT = 0,
	/* Fast tiled path: products (exact) are chained with FP32 FMA from +0
	 * over MXE_FAST_KSUB elements (one MX block); those chain sums are
	 * added in K order into a block sum per MXE_FAST_KBLOCK elements, and
	 * the block sums in K order into the accumulator (C, or the first
	 * block sum). Integers are exact as in EXACT with one chunk. */
	MXE_ACCUM_FAST = 1,
	/* The H200 tensor core, bit for bit as measured on the golden vectors
	 * (f16/bf16/tf32/e4m3/e5m2 inputs, no scales, f32 or f16 D): per K-chunk
	 * C and every product are aligned to the largest exponent (products:
	 * the sum of their operands' exponents) and truncated toward zero at
	 * 2^(emax - 25) (FP8: 2^(emax - 13)), summed exactly, and the sum is
	 * truncated toward zero to 23 (FP8: 13) fraction bits; an f16 D is then
	 * rounded to nearest even; f64 is a chain of FMAs in k order from C.
	 * Use k_chunk = the instruction's K and MXE_TF32_IN_TRUNCATE. Less
	 * accurate than EXACT, on purpose. A whole cuBLAS-style GEMM of such
	 * instructions (promotion, split-K): mxe_hopper_gemm(). */
	MXE_ACCUM_HOPPER = 2,
};
#define MXE_FAST_KSUB 32
#define MXE_FAST_KBLOCK 256

/**
 * enum mxe_tf32_input - what TF32 operands (f32 bits) do with their low 13
 * mantissa bits before the multiply.
 */
enum mxe_tf32_input {
	MXE_TF32_IN_RNE = 0,		/* round to nearest even first, as cuBLAS does:
					 * the default, more accurate than the H200's
					 * tensor core, whose raw inputs are truncated */
	MXE_TF32_IN_TRUNCATE = 1,	/* ignore them, as the tensor core does */
	MXE_TF32_IN_RNA = 2,		/* round as cvt.rna.tf32.f32 first */
	MXE_TF32_IN_FULL = 3,		/* keep them: TF32 as cuBLAS's permission, which
					 * runs FP32 where it likes (its GEMVs) */
};
/*
 * TF32 inputs of a library GEMM (the device's GEMM command; cuBLAS's golden cases) in the
 * EXACT and FAST numerics: their full f32 values, so that the default mode is never less
 * accurate than the H200, whichever algorithm cuBLAS picks (Documentation/numerics.rst).
 */
#define MXE_LIBRARY_TF32_INPUT MXE_TF32_IN_FULL

/** enum mxe_sched - how engine threads share one operation (same bits). */
enum mxe_sched {
	MXE_SCHED_INTRAWAVE = 0,	/* each thread owns output tiles, runs all of K */
	MXE_SCHED_INTERWAVE = 1,	/* threads step through K together, sharing each
					 * packed K chunk of B, barrier per chunk */
};

/**
 * struct mxe_gemm_desc - one D = (sA*A) * (sB*B)^T (+ C) operation.
 * Zero-initialise it and fill what you need: all-zero options mean exact
 * accumulation, TF32 inputs rounded (RNE), intrawave, all engine threads.
 *
 * Types: A/B float types (F32, TF32, F16, BF16, E4M3, E5M2, E3M2, E2M3,
 * E2M1, MXINT8, mixed freely) with D = F32 or F16 (F16 = f16 accumulator);
 * F64 x F64 -> F64; S8/S4 x S8/S4 -> S32; B1 x B1 -> S32 (AND/XOR + popc).
 * type_c must equal type_d when MXA_GEMM_F_ACCUMULATE is set. C may be D.
 * Scales (scale_block = 32) apply to MX element types and are ignored for
 * F16/BF16 operands (TMATMULMX); other types reject them. NVFP4 x NVFP4 takes
 * scale_block = 16 and UE4M3 scales on both sides (mxe_nvfp4.c).
 */
struct mxe_gemm_desc {
	uint32_t m, n, k;
	uint8_t type_a, type_b, type_c, type_d;	/* enum mxa_isa_dtype */
	uint32_t flags;				/* MXA_GEMM_F_*, MXE_GEMM_* */

	const void *a;
	size_t lda;		/* bytes per row of A (M x K, or K x M with A_KM; 0 = dense) */
	const void *b;
	size_t ldb;		/* bytes per row of B (N x K, or K x N with B_KN) */
	const void *c;
	size_t ldc;
	void *d;
	size_t ldd;

	const uint8_t *scale_a;	/* M x K/32 E8M0 (NVFP4: M x K/16 UE4M3), or NULL */
	size_t ld_scale_a;	/* bytes per row (0 = K/32) */
	const uint8_t *scale_b;	/* N x K/32 E8M0 (NVFP4: N x K/16 UE4M3), or NULL */
	size_t ld_scale_b;
	uint32_t scale_block;	/* 0 (no scales), 32 (MX) or 16 (NVFP4) */
	/*
	 * Optional, for weights that are not one array (the device reads them in place,
	 * page by page, from guest memory): row j of B (N x K) starts at b_rows[j], its
	 * scales at scale_b_rows[j] (when scale_b is given). Only the GEMV path takes
	 * them (mxe_gemv_takes()); b and scale_b must still be non-NULL, ldb and
	 * ld_scale_b are then unused.
	 */
	const uint8_t *const *b_rows;
	const uint8_t *const *scale_b_rows;

	uint8_t accum;		/* enum mxe_accum */
	uint8_t tf32_input;	/* enum mxe_tf32_input */
	uint8_t sched;		/* enum mxe_sched */
	uint8_t reserved0;
	uint32_t k_chunk;	/* EXACT, HOPPER: elements per chunk, 0 = all of K */
	uint32_t nthreads;	/* 0 = every thread of the engine; 1 = caller only */
};

struct mxe_engine;

/**
 * mxe_engine_cancel_on() - let the calling thread's engine calls be cancelled: once
 * *@flag (read atomically) is non-zero, a running mxe_gemm() & co. of this thread
 * skips its remaining tasks and returns within about one task's time, with partial
 * results that the caller must discard (check mxe_engine_cancelled()). NULL: never.
 * The device points it at its queue's abort flag, so a reset stops long math.
 */
void mxe_engine_cancel_on(const int *flag);

/** mxe_engine_cancelled() - whether the calling thread's cancel flag is set. */
int mxe_engine_cancelled(void);

/**
 * mxe_engine_create() - a context owning @nthreads - 1 worker threads (the
 * calling thread is always the first worker of its own operations).
 * @nthreads: 0 = number of online CPUs. Thread-safe: any number of threads
 * may call mxe_gemm() etc. on one engine at the same time.
 */
struct mxe_engine *mxe_engine_create(unsigned nthreads);
void mxe_engine_destroy(struct mxe_engine *eng);
unsigned mxe_engine_nthreads(const struct mxe_engine *eng);

/**
 * mxe_engine_park() - no work is coming soon: workers that spin for the next task
 * (mxe_engine_set_spin_ns() after their last one, so that the next phase or job of
 * a running operation starts without a thread wake-up) sleep now. The device calls it
 * when a queue has run its last job, whose submitter then needs the host's cores:
 * on a host with as many cores as workers, the spinning held back its interrupt and
 * its next submission (Documentation/performance.rst, "Submission").
 */
void mxe_engine_park(struct mxe_engine *eng);

/**
 * mxe_engine_set_spin_ns() - how long @eng's threads spin for the next task before
 * they sleep (50 us from mxe_engine_create(); 0: sleep at once).
 */
void mxe_engine_set_spin_ns(struct mxe_engine *eng, uint64_t ns);

/**
 * mxe_engine_idle_threads() - how many of @eng's threads wait for work now, spinning
 * (*@spinning) or asleep (*@sleeping).
 */
void mxe_engine_idle_threads(const struct mxe_engine *eng, unsigned *spinning,
			     unsigned *sleeping);

/**
 * mxe_gemm() - the general tiled GEMM the device uses for large operations.
 * @eng may be NULL: the calling thread does all the work.
 * Results are bit-identical for any thread count and scheduling policy.
 */
int mxe_gemm(struct mxe_engine *eng, const struct mxe_gemm_desc *desc);

/**
 * mxe_gemm_copy_bytes() - host memory mxe_gemm() takes for copies of @desc's operands
 * (an A stored K x M transposed; NVFP4 expanded to BF16, none where its GEMV takes it),
 * for a caller's memory budget.
 */
size_t mxe_gemm_copy_bytes(const struct mxe_gemm_desc *desc);

/** mxe_gemm_check() - validate @desc only (what mxe_gemm would return). */
int mxe_gemm_check(const struct mxe_gemm_desc *desc);

/**
 * mxe_gemv_takes() - whether mxe_gemm() runs @desc on its GEMV paths (M <= 32, narrow
 * weights; mxe_gemv.c, mxe_gemv_fast.c, NVFP4's mxe_gemv_nvfp4.c), the ones that take
 * desc.b_rows.
 */
int mxe_gemv_takes(const struct mxe_gemm_desc *desc);

/**
 * mxe_tmatmulmx() - TMATMULMX (seed 004): D = (SA*A)(SB*B)^T, and with
 * MXA_GEMM_F_ACCUMULATE TMATMULMX.ACC: ACC = (SA*A)(SB*B)^T + ACC.
 * MX element types need scales (block 32, K % 32 == 0); FP8 (E4M3/E5M2) on
 * either side needs K % 64 == 0 (MXE_ENGINE_EINVAL_K_ALIGN); FP16/BF16
 * operands ignore their scale, which may be NULL. NVFP4 x NVFP4 takes UE4M3
 * scales per 16 (scale_block is set for it). A NaN scale makes every
 * output that uses its block NaN. D must be F32. Numerics as desc->accum;
 * by default the whole K is summed exactly with ACC and rounded once.
 */
int mxe_tmatmulmx(struct mxe_engine *eng, const struct mxe_gemm_desc *desc);

/**
 * mxe_mma() - one synchronous Ampere mma.sync / wmma instruction (seed 001)
 * on row-major operands. (type_a, type_d, m, n, k) must be one of:
 *   TF32 f32: 16x8x4, 16x8x8, 16x16x8 (wmma)
 *   BF16 f32: 16x8x8, 16x8x16, 16x16x16, 32x8x16, 8x32x16 (wmma)
 *   F16 f16|f32: 8x8x4, 16x8x8, 16x8x16, 16x16x16, 32x8x16, 8x32x16
 *   E4M3/E5M2 f32|f16: 16x8x32, 16x8x16
 *   F64 f64: 8x8x4, 16x8x4, 16x8x8, 16x8x16
 *   S8 s32: 8x8x16, 16x8x16, 16x8x32, 16x16x16, 32x8x16, 8x32x16
 *   S4 s32: 8x8x32, 16x8x32, 16x8x64
 *   B1 s32: 8x8x128, 16x8x128, 16x8x256 (AND or XOR with MXE_GEMM_B1_XOR)
 * Integer MMAs take MXA_GEMM_F_SATFINITE. The instruction's K is one chunk.
 */
int mxe_mma(struct mxe_engine *eng, const struct mxe_gemm_desc *desc);

/**
 * mxe_wgmma() - one Hopper wgmma.mma_async (seed 003): M = 64,
 * N = 8..256 step 8 (S8/B1: 8, 16, 24, then multiples of 16), K = 32 bytes of
 * input (F16/BF16 16, TF32 8, E4M3/E5M2 and S8 32, B1 256). D = F32
 * (or F16 for F16/FP8 inputs), S32 for S8/B1 (B1: AND only).
 * MXA_GEMM_F_ACCUMULATE is scale-d; NEGATE_A/B are imm-scale-a/b = -1.
 */
int mxe_wgmma(struct mxe_engine *eng, const struct mxe_gemm_desc *desc);

/* ------------------------------------------------------------------------ */
/* wgmma operands in SRAM through matrix descriptors (mxe_smem_desc.c)       */

/**
 * mxe_smem_desc_span() - check the operand descriptor @desc (MXA_SMEM_DESC) names:
 * @rows rows (a multiple of 8, at most 256) of 32 bytes, K-major or, with @mn_major,
 * MN-major of 16-bit elements. Returns 0 with [*@lo, *@hi) the bytes from its lowest to
 * one past its highest (either may be NULL), or MXE_ENGINE_EINVAL_LAYOUT when reserved
 * bits are set, @rows is out of range or a byte lies at or beyond @sram_bytes.
 */
int mxe_smem_desc_span(uint64_t desc, int mn_major, unsigned rows, uint64_t sram_bytes,
		       uint64_t *lo, uint64_t *hi);
/**
 * mxe_smem_desc_gather() - copy that operand (checked by mxe_smem_desc_span()) from
 * @sram into @dense: @rows x 32 bytes, row-major, K contiguous, as mxe_wgmma() reads A
 * and B.
 */
void mxe_smem_desc_gather(const uint8_t *sram, uint64_t desc, int mn_major, unsigned rows,
			  uint8_t *dense);

#define MXE_HOPPER_SIMT_MAX_THREADS 1024
#define MXE_HOPPER_SIMT_MAX_LANES 64

/**
 * struct mxe_hopper_plan - how a library GEMM on the H200 (cuBLAS/cuBLASLt)
 * strings tensor-core instructions together; the choices are the library's,
 * the rounding of each instruction is the HOPPER model's. Zero = one chain of
 * instructions over all of K from zero, nothing else.
 */
struct mxe_hopper_plan {
	uint32_t inst_k;	/* K per instruction; 0 = the tensor core's:
				 * FP8 32, f16/bf16 16, tf32 8, f64 4 */
	uint32_t promote_k;	/* every promote_k elements (a multiple of inst_k)
				 * the chain is added, FP32 round to nearest, into a
				 * separate accumulator and restarts from zero
				 * (cuBLAS FP8 without fast accumulation: 128);
				 * 0 = never */
	uint32_t split_k;	/* 0, 1: none; else K is cut into tiles of split_tile
				 * elements, the tiles are dealt to split_k slices,
				 * each slice is its own chain from zero and the
				 * slice sums are added in slice order, rounded to
				 * nearest in the accumulator type */
	uint32_t split_tile;	/* multiple of inst_k; 0 = inst_k */
	uint32_t split_interleaved;	/* 0: slice s takes ceil(tiles / split_k)
					 * consecutive tiles (split-K); 1: tiles
					 * s, s + split_k, ... (sliced K) */
	uint32_t slice_k;	/* 0: split_k and split_tile decide; else K is cut
				 * into consecutive slices of slice_k elements (the
				 * last one shorter), each its own chain from zero,
				 * summed in slice order (cuBLASLt's split-K and
				 * splitKreduce); a multiple of 4 */
	uint32_t residue_k;	/* 0: a chain's instructions start at its first
				 * element; else a contiguous chain of L elements
				 * first runs its L % residue_k leading elements,
				 * then whole K tiles of residue_k (CUTLASS's main
				 * loop takes the K residue first); a multiple of
				 * inst_k */
	uint32_t epilogue_f32;	/* F16 D with C: 0: D = f16(f16(sum) + C) (nvjet);
				 * 1: D = f16(sum + C), the sum and C added in f32
				 * (CUTLASS's epilogue) */
	/*
	 * simt: cuBLAS's GEMV, dot and gemmSN kernels, no tensor core: each product
	 * is an FMA in the accumulator type (f32, f64) on the unrounded inputs (TF32:
	 * the full f32 values). Element e of K belongs to round e / (G T V), block
	 * (e / (T V)) % G and thread (e / V) % T; a thread's FMA chain starts from
	 * zero and takes its elements in order. A block adds its T threads' sums
	 * (simt_block_seq 0: as a butterfly, thread t with t + T/2 first, then T/4,
	 * ...; 1: in thread order); block b's sum goes to lane b % L, a lane adds its
	 * blocks in order, and the lanes are added in order. The other fields above
	 * must be 0, except epilogue_f32.
	 */
	uint32_t simt;		/* 0: tensor-core chains as above; 1: SIMT */
	uint32_t simt_threads;	/* T, a power of two; 0 = 1 */
	uint32_t simt_vec;	/* V elements a thread takes at a time; 0 = 1 */
	uint32_t simt_blocks;	/* G; 0 = 1 */
	uint32_t simt_lanes;	/* L, at most G; 0 = 1 */
	uint32_t simt_block_seq;
	uint32_t simt_mul_add;	/* 1: a thread rounds each product to the accumulator
				 * type and adds it (no FMA; cuBLAS's FP32 dot_kernel) */
};

/**
 * mxe_hopper_gemm() - D = A*B^T (+ C) as a library GEMM on the H200 runs it:
 * the chains, promotion and slices of @plan, each instruction with the
 * HOPPER numerics (desc->accum and desc->k_chunk are ignored); C, when
 * accumulating, is added last with one rounding (beta = 1). Float inputs
 * without scales and an F32 D (or an F16 D: the chains in f32, then
 * D = f16(f16(sum) + C)), or F64; TF32 inputs as desc->tf32_input
 * (cuBLAS rounds to nearest even, the default). Bad plans:
 * MXE_ENGINE_EINVAL_OPTION.
 */
int mxe_hopper_gemm(struct mxe_engine *eng, const struct mxe_gemm_desc *desc,
		    const struct mxe_hopper_plan *plan);

/**
 * mxe_hopper_cublas_plan() - the plan cuBLAS/cuBLASLt (CUDA 13, torch 2.11)
 * chose on an H200 for @desc's types and shape (B as N x K), as measured:
 * FP8 promotes every 128 unless @fast_accum; split-K and sliced K as seen
 * for the shapes of the full H200 golden set and of tests/host/gen-cublas-cases.py;
 * the other types' plans from the plan grid (mxe_cublas_plan.c, "the plan grid").
 * Returns 1 for a measured shape, 0 when the plan is a guess (a neighbour's, or
 * one chain).
 */
int mxe_hopper_cublas_plan(const struct mxe_gemm_desc *desc, int fast_accum,
			   struct mxe_hopper_plan *plan);
/**
 * mxe_hopper_cublas_plan_elsewhere() - mxe_hopper_cublas_plan() as if the grid had never
 * run @desc's M x N x K (with or without C): the plan comes from other shapes. What
 * judges the plan rule on shapes it has not seen (tests/host/test-engine-golden).
 */
int mxe_hopper_cublas_plan_elsewhere(const struct mxe_gemm_desc *desc, int fast_accum,
				     struct mxe_hopper_plan *plan);

/**
 * struct mxe_engine_stats - what the EXACT path's scheduling policies did, counted
 * since the process started (every engine together): operations run intrawave (each
 * thread its tiles over all of K) and interwave (all threads through K in chunks),
 * the K chunks those stepped through, the barriers between their phases, and outputs
 * whose interwave sum stopped being exact in a double and went to the general path.
 */
struct mxe_engine_stats {
	uint64_t intrawave_ops, interwave_ops, k_chunks, barriers, redone;
};
void mxe_engine_stats(struct mxe_engine_stats *st);

/** Which SIMD path runs: "avx512bf16", "avx512vnni", "avx512", "avx2" or "portable"
 * (same bits). */
const char *mxe_engine_simd(void);
/** The name of SIMD level @level (0 portable, 1 avx2, ... the best one known), NULL past
 * the last: the levels in increasing order, whether this CPU has them or not. */
const char *mxe_engine_simd_name(unsigned level);
/**
 * mxe_engine_set_simd() - cap the SIMD path at @name ("portable", "avx2",
 * "avx512", "avx512vnni", "avx512bf16"; NULL: the best the CPU has) for this
 * process, e.g. to compare paths. The environment variable MXA_ENGINE_SIMD sets the same cap at the
 * first GEMM. Returns 0, or -1 for an unknown name or a level this CPU
 * does not have (the cap is then unchanged).
 */
int mxe_engine_set_simd(const char *name);

#ifdef __cplusplus
}
#endif
#endif /* MXE_ENGINE_H */
