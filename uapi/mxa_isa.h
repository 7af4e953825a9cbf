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
};

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
	MXA_ERR_COUNT
};

#endif /* MXA_ISA_H */
