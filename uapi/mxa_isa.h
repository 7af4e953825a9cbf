/* SPDX-License-Identifier: MIT */
/*
 * MXA command ISA: the program format shared by libaccel (which builds programs) and the
 * device (which runs them). Documented in Documentation/isa.rst.
 *
 * A program is a sequence of commands of 32-bit little-endian dwords. Each command starts
 * with a header dword:
 *
 *   bits  7:0  opcode (MXA_OP_*)
 *   bits 15:8  length of the command in dwords, header included (>= 1)
 *   bits 31:16 opcode-specific flags; must be zero where not defined
 *
 * Opcode ranges: 0x00-0x1f control, 0x20-0x3f memory, 0x40-0x7f math.
 */
#ifndef MXA_ISA_H
#define MXA_ISA_H

#include "mxa_regs.h"

#define MXA_CMD_OPCODE(h)	((h) & 0xffu)
#define MXA_CMD_DWORDS(h)	(((h) >> 8) & 0xffu)
#define MXA_CMD_FLAGS(h)	((h) >> 16)
#define MXA_CMD_HEADER(op, dwords, flags) \
	((__u32)(op) | ((__u32)(dwords) << 8) | ((__u32)(flags) << 16))

enum mxa_opcode {
	/* NOP: 1 dword. Does nothing; counts as one command. */
	MXA_OP_NOP = 0x00,
	/*
	 * FENCE_WRITE: 5 dwords: header, va_lo, va_hi, value_lo, value_hi.
	 * Waits until every earlier command of the job is complete, then writes the 64-bit
	 * value at the 8-byte aligned device VA.
	 */
	MXA_OP_FENCE_WRITE = 0x01,
	/*
	 * TIMESTAMP: 3 dwords: header, va_lo, va_hi. Writes the device's nanosecond
	 * clock (host CLOCK_MONOTONIC) as a 64-bit value at the 8-byte aligned VA.
	 */
	MXA_OP_TIMESTAMP = 0x02,
	/*
	 * GEMM: 1 + MXA_GEMM_ARGS_DWORDS dwords: header, then struct mxa_isa_gemm.
	 * D = (scale_a * A) x (scale_b * B)^T (+ C), all operands in device memory,
	 * tiled across the device's engine cores. Synchronous: the next command starts
	 * when D is written. Numerics: Documentation/numerics.rst.
	 */
	MXA_OP_GEMM = 0x40,
};

/*
 * Element types of math commands. The codes are those of the golden-vector (MXGV)
 * files and of the engine's enum mxa_dtype.
 */
enum mxa_isa_dtype {
	MXA_DTYPE_F32 = 0,
	MXA_DTYPE_F16 = 1,
	MXA_DTYPE_BF16 = 2,
	MXA_DTYPE_TF32 = 3,
	MXA_DTYPE_F64 = 4,
	MXA_DTYPE_E4M3 = 5,
	MXA_DTYPE_E5M2 = 6,
	MXA_DTYPE_E8M0 = 7,
	MXA_DTYPE_S8 = 8,
	MXA_DTYPE_S4 = 9,
	MXA_DTYPE_B1 = 10,
	MXA_DTYPE_S32 = 11,
	MXA_DTYPE_E3M2 = 12,
	MXA_DTYPE_E2M3 = 13,
	MXA_DTYPE_E2M1 = 14,
	MXA_DTYPE_MXINT8 = 15,
	MXA_DTYPE_COUNT
};

/**
 * struct mxa_isa_gemm - operands of MXA_OP_GEMM (128 bytes, inline in the command).
 * @m, @n, @k: problem size (each >= 1).
 * @type_a, @type_b, @type_c, @type_d: enum mxa_isa_dtype.
 * @flags: MXA_GEMM_F_*.
 * @scale_block: 0 (no block scales) or 32 (MX: one E8M0 per 32 elements along K).
 * @a: VA of A, M rows x K (row-major, K contiguous), @lda bytes between rows.
 * @b: VA of B given as N rows x K (i.e. B^T), or K x N with MXA_GEMM_F_B_KN.
 * @c: VA of C (M x N, type_c) when MXA_GEMM_F_ACCUMULATE; may equal @d.
 * @d: VA of D (M x N, type_d).
 * @scale_a, @scale_b: VAs of the E8M0 scales: M x K/32 and N x K/32 bytes.
 * @lda, @ldb, @ldc, @ldd, @ld_scale_a, @ld_scale_b: bytes between rows, 0 = dense.
 * @accum: MXA_GEMM_ACCUM_* (numerics of the sum).
 * @sched: MXA_GEMM_SCHED_* (how engine cores share the work; same bits either way).
 * @reserved: zero.
 */
struct mxa_isa_gemm {
	__u32 m, n, k;
	__u8 type_a, type_b, type_c, type_d;
	__u32 flags;
	__u32 scale_block;
	__u64 a, b, c, d;
	__u64 scale_a, scale_b;
	__u32 lda, ldb, ldc, ldd;
	__u32 ld_scale_a, ld_scale_b;
	__u8 accum, sched, reserved0[2];
	__u32 reserved[7];
};

#define MXA_GEMM_ARGS_DWORDS	(sizeof(struct mxa_isa_gemm) / 4)
#define MXA_GEMM_DWORDS		(1 + MXA_GEMM_ARGS_DWORDS)

#define MXA_GEMM_F_ACCUMULATE	(1u << 0)	/* D = C + A x B^T */
#define MXA_GEMM_F_SATFINITE	(1u << 1)	/* integer results clamp instead of wrapping */
#define MXA_GEMM_F_B_KN		(1u << 2)	/* B is K x N */
#define MXA_GEMM_F_ALL		(MXA_GEMM_F_ACCUMULATE | MXA_GEMM_F_SATFINITE | MXA_GEMM_F_B_KN)

#define MXA_GEMM_ACCUM_EXACT	0	/* exact sums, rounded once per K chunk (default) */
#define MXA_GEMM_ACCUM_FAST	1	/* FP32 FMA chains in fixed K blocks */
#define MXA_GEMM_SCHED_INTRAWAVE 0
#define MXA_GEMM_SCHED_INTERWAVE 1

/* Device limit on one operand of a math command. */
#define MXA_GEMM_MAX_OPERAND_BYTES	(1ull << 30)

#define MXA_NOP_DWORDS		1
#define MXA_FENCE_WRITE_DWORDS	5
#define MXA_TIMESTAMP_DWORDS	3

/* Job errors (struct mxa_completion.error). Documented in Documentation/isa.rst. */
enum mxa_job_error {
	MXA_ERR_NONE = 0,
	MXA_ERR_UNKNOWN_OPCODE = 1,	/* header names no command */
	MXA_ERR_BAD_LENGTH = 2,		/* length field wrong for the opcode, or 0 */
	MXA_ERR_TRUNCATED = 3,		/* command runs past the end of the program */
	MXA_ERR_BAD_FLAGS = 4,		/* reserved header flags set */
	MXA_ERR_MISALIGNED = 5,		/* address not aligned as the command requires */
	MXA_ERR_MMU_FAULT = 6,		/* translation failed; err_addr, err_info say where/how */
	MXA_ERR_BAD_CONTEXT = 7,	/* descriptor names an invalid context */
	MXA_ERR_BAD_PROGRAM = 8,	/* program size 0, not a multiple of 4 or too large */
	MXA_ERR_ABORTED = 9,		/* queue or device reset */
	MXA_ERR_BAD_OPERAND = 10,	/* math operands invalid; err_info: engine error */
	MXA_ERR_K_ALIGN = 11,		/* FP8 MX with K % 64 != 0 */
	MXA_ERR_TOO_LARGE = 12,		/* operand larger than the device limit */
	MXA_ERR_NO_MEMORY = 13,		/* the device could not allocate working memory */
	MXA_ERR_COUNT
};

#endif /* MXA_ISA_H */
