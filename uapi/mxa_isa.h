/* SPDX-License-Identifier: MIT */
/*
 * MXA command ISA: the program format shared by libaccel (which builds programs) and the
 * device (which runs them). Documented in Documentation/isa.rst. The encodings are here;
 * the one table of commands (mnemonic, length, flags, operand fields) that every part
 * reads is mxa_isa_table.h.
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
	 * clock (host CLOCK_MONOTONIC) as a 64-bit value at the 8-byte aligned VA;
	 * with MXA_TIMESTAMP_F_MODEL, struct mxa_timestamp_model (32 bytes) instead.
	 * The VA is va + R[header bits 31:24] (MXA_TIMESTAMP_REG): with REG_CTA, each
	 * instance of a grid writes its own record.
	 */
	MXA_OP_TIMESTAMP = 0x02,
	/*
	 * REG_SET: 4 dwords: header, reg, imm_lo, imm_hi. R[reg] = imm.
	 * Scalar registers: MXA_NUM_REGS 64-bit registers per job (r0..r31, a0..a31),
	 * zero at job start; R0 always reads as zero and writes to it are ignored.
	 */
	MXA_OP_REG_SET = 0x03,
	/*
	 * REG_ADD: 4 dwords: header, MXA_REGS3(dst, ra, rb), imm_lo, imm_hi.
	 * R[dst] = R[ra] + R[rb] + imm (modulo 2^64). With R0 this is add-immediate,
	 * add-register or move.
	 */
	MXA_OP_REG_ADD = 0x04,
	/* REG_LOAD: 4 dwords: header, reg, va_lo, va_hi. R[reg] = 64-bit value at va (8-aligned). */
	MXA_OP_REG_LOAD = 0x05,
	/* REG_STORE: 4 dwords: header, reg, va_lo, va_hi. Writes R[reg] at va (8-aligned). */
	MXA_OP_REG_STORE = 0x06,
	/*
	 * LOOP: 3 dwords: header, count, reg. Runs the commands up to the matching ENDLOOP
	 * count + R[reg] times (computed once, when LOOP runs; 0 skips the body). Loops
	 * nest up to MXA_LOOP_MAX_DEPTH deep. Every command a job executes counts against
	 * MXA_JOB_CMD_BUDGET (MXA_ERR_LOOP_BUDGET when exceeded).
	 */
	MXA_OP_LOOP = 0x07,
	/* ENDLOOP: 1 dword: closes the innermost LOOP. */
	MXA_OP_ENDLOOP = 0x08,
	/*
	 * SEM_WAIT: 6 dwords: header, va_lo, va_hi, value_lo, value_hi, timeout_us.
	 * Blocks the queue's command processor until the 64-bit semaphore at va (8-aligned)
	 * is >= value (unsigned). timeout_us 0 means MXA_SEM_DEFAULT_TIMEOUT_US; at most
	 * MXA_SEM_MAX_TIMEOUT_US. MXA_ERR_SEM_TIMEOUT when it expires; a reset aborts it.
	 */
	MXA_OP_SEM_WAIT = 0x09,
	/*
	 * SEM_SIGNAL: 5 dwords: header, va_lo, va_hi, value_lo, value_hi. After every
	 * earlier command of the job is complete, writes value at va, or with
	 * MXA_SEM_F_ADD adds it (atomic with respect to every queue of the device).
	 */
	MXA_OP_SEM_SIGNAL = 0x0a,
	/*
	 * COMMIT_GROUP: 1 dword; flags = group class (MXA_GROUP_*). Closes every
	 * asynchronous command of that class issued since the last commit into a new
	 * group (an empty group if there is none), as PTX commit_group.
	 */
	MXA_OP_COMMIT_GROUP = 0x0b,
	/*
	 * WAIT_GROUP: 2 dwords: header (flags = class), n. Blocks until at most n of the
	 * newest committed groups of the class are pending (PTX wait_group n); uncommitted
	 * commands are not waited for. Reports the first error of a completed command.
	 */
	MXA_OP_WAIT_GROUP = 0x0c,
	/*
	 * FENCE: 1 dword (wgmma.fence). Orders every earlier access of the command
	 * processor to SRAM and tile registers before the operand reads of later WGMMAs.
	 * Commands issue in order on MXA, so it only costs a cycle; portable programs
	 * place it where PTX requires wgmma.fence.
	 */
	MXA_OP_FENCE = 0x0d,
	/*
	 * REG_CTA: 3 dwords: header, dst | sreg << 8, multiplier. R[dst] = the instance's
	 * special register sreg (MXA_SREG_*: its place in the grid and its cluster) times
	 * the multiplier (64-bit): the offset of the instance's part of a tensor in one
	 * command. An unknown sreg is MXA_ERR_BAD_OPERAND (info: the sreg).
	 */
	MXA_OP_REG_CTA = 0x0e,
	/*
	 * CLUSTER_ARRIVE: 1 dword (barrier.cluster.arrive). The instance arrives at its
	 * cluster's barrier; what it wrote before (its own SRAM and its peers') is visible
	 * to every instance once the phase completes (release: commands are in order on
	 * MXA, so there is no relaxed form). Arriving again before CLUSTER_WAIT is
	 * MXA_ERR_CLUSTER (MXA_CLUSTER_ERR_ARRIVE).
	 */
	MXA_OP_CLUSTER_ARRIVE = 0x0f,
	/*
	 * CLUSTER_WAIT: 1 dword (barrier.cluster.wait, acquire). Blocks until every
	 * instance of the cluster has arrived at the phase this instance arrived at. Without
	 * an arrival first: MXA_ERR_CLUSTER (MXA_CLUSTER_ERR_WAIT); a peer that ends without
	 * arriving: MXA_CLUSTER_ERR_PEER_ENDED; longer than the device's mbar-timeout-us:
	 * MXA_CLUSTER_ERR_TIMEOUT.
	 */
	MXA_OP_CLUSTER_WAIT = 0x10,
	/*
	 * COPY: 7 dwords: header, src_lo, src_hi, dst_lo, dst_hi, bytes, MXA_REGS3(rs, rd, rn).
	 * Asynchronous linear copy (cp.async): copies bytes + R[rn] bytes from
	 * src + R[rs] to dst + R[rd] on the device's copy engine, in class
	 * MXA_GROUP_COPY; at most MXA_COPY_MAX_BYTES. The copy happens later: use
	 * COMMIT_GROUP/WAIT_GROUP before touching the destination.
	 */
	MXA_OP_COPY = 0x20,
	/*
	 * TMA_LOAD: 12 dwords: header, map_lo, map_hi, sram, mbar, c0, c1, c2, c3, c4,
	 * MXA_TMA_CREGS(r0..r4), MXA_REGS3(rsram, rmbar, 0). Asynchronous tensor load on the
	 * copy engine: the box of the tensor map (struct mxa_tensor_map at map, read when
	 * the command is issued) whose first element has coordinates c[d] + R[r_d]
	 * (signed 32-bit; out-of-bounds elements are filled) is written densely, dim 0
	 * innermost, at SRAM offset sram + R[rsram] (128-byte aligned), with the map's
	 * swizzle; then the box's bytes complete_tx on the mbarrier at mbar + R[rmbar].
	 * Multicast (.multicast::cluster): a non-zero CTA mask in bits 23:16 of dword 11
	 * (MXA_TMA_MCAST_MASK, bit r = rank r of the cluster) reads the box from memory once
	 * and writes it at the same SRAM offset of every instance in the mask, completing
	 * each one's mbarrier at the same offset; the issuing instance need not be in it.
	 */
	MXA_OP_TMA_LOAD = 0x21,
	/*
	 * TMA_STORE: 12 dwords as TMA_LOAD, mbar ignored (0). Asynchronous store of a box
	 * from SRAM to the tensor, class MXA_GROUP_COPY (bulk group); out-of-bounds
	 * elements are not written.
	 */
	MXA_OP_TMA_STORE = 0x22,
	/* MBAR_INIT: 3 dwords: header, sram, count (1..MXA_MBAR_MAX_COUNT): phase 0. */
	MXA_OP_MBAR_INIT = 0x23,
	/*
	 * MBAR_ARRIVE: 3 dwords: header, sram, tx_bytes. mbarrier.arrive.expect_tx: adds
	 * tx_bytes to the transaction count, then arrives once. The phase completes when
	 * every expected arrival has happened and the transaction count is back to 0.
	 */
	MXA_OP_MBAR_ARRIVE = 0x24,
	/* MBAR_EXPECT_TX: 3 dwords: header, sram, tx_bytes (mbarrier.expect_tx). */
	MXA_OP_MBAR_EXPECT_TX = 0x25,
	/*
	 * MBAR_WAIT: 3 dwords: header, sram, parity | reg << 8. Blocks until the phase of
	 * parity (parity + R[reg]) & 1 has completed (mbarrier.try_wait.parity).
	 */
	MXA_OP_MBAR_WAIT = 0x26,
	/*
	 * TILE_LOAD: 8 dwords: header (MXA_TILE_F_GLOBAL), tile, rows, row_bytes,
	 * addr_lo, addr_hi, stride, MXA_REGS3(raddr, 0, 0). Fills the tile register
	 * (MXA_TILE()) with rows x row_bytes bytes read from SRAM offset addr + R[raddr]
	 * (or the device VA with MXA_TILE_F_GLOBAL), stride bytes between rows (0: dense).
	 * The tile's shape becomes rows x row_bytes. Synchronous.
	 */
	MXA_OP_TILE_LOAD = 0x27,
	/* TILE_STORE: 8 dwords as TILE_LOAD: writes the tile (shape must match) out. */
	MXA_OP_TILE_STORE = 0x28,
	/*
	 * MBAR_COMPLETE_TX: 3 dwords: header, sram, tx_bytes. mbarrier.complete_tx:
	 * subtracts tx_bytes from the transaction count (a transfer the program did
	 * itself); may complete the phase. sram may be a cluster address (MXA_DSMEM):
	 * another instance's barrier.
	 */
	MXA_OP_MBAR_COMPLETE_TX = 0x29,
	/*
	 * GEMM: 1 + MXA_GEMM_ARGS_DWORDS dwords: header, then struct mxa_isa_gemm.
	 * D = (scale_a * A) x (scale_b * B)^T (+ C), all operands in device memory,
	 * tiled across the device's engine cores. Synchronous: the next command starts
	 * when D is written. Numerics: Documentation/numerics.rst.
	 */
	MXA_OP_GEMM = 0x40,
	/*
	 * WGMMA: 7 dwords: header (MXA_WGMMA_F_*), MXA_REGS3(type_a, type_b, type_d), n,
	 * a, b, d, MXA_REGS3(ra, rb, rd). Asynchronous warpgroup MMA on the math engine,
	 * class MXA_GROUP_MMA: D = A x B^T (+ D with MXA_WGMMA_F_ACCUMULATE), M = 64,
	 * N = n (8..256 step 8), K = 32 bytes of the input type. The matrix descriptors
	 * are SRAM offsets (a + R[ra], ...), 16-byte aligned, of dense row-major
	 * matrices: A 64 x K, B N x K (K contiguous), D 64 x N of type_d. Until a
	 * WAIT_GROUP covers it, D belongs to the math engine (MXA_ERR_ACC_HAZARD).
	 */
	MXA_OP_WGMMA = 0x41,
	/*
	 * TMATMULMX: 10 dwords: header (MXA_TMM_F_*), MXA_REGS3(type_a, type_b, 0), m, n,
	 * k, MXA_REGS3(rm, rn, rk), src0 | src1 << 16, src2 | src3 << 16, acc, acc_size.
	 * Seed 004: ACC = (ScaleA x A) . (ScaleB x B) (+ ACC with MXA_TMM_F_ACC), with
	 * M = m + R[rm], N = n + R[rn], K = k + R[rk]. src0 = A (a T tile, M x K of
	 * type_a), src1 = its E8M0 scales (a U tile, M x K/32), src2 = B (an M tile,
	 * given as N x K of type_b), src3 = its scales (an N tile, N x K/32), acc an ACC
	 * tile (M x N f32) of acc_size bytes (>= M * N * 4). NVFP4 x NVFP4: UE4M3 scales,
	 * M x K/16 and N x K/16 (mxa_dtype_scale_block()). Synchronous.
	 */
	MXA_OP_TMATMULMX = 0x42,
	/*
	 * MMA: 7 dwords: header (MXA_MMA_F_*), MXA_REGS3(type_a, type_b, type_d),
	 * m | n << 8 | k << 16, a, b, d, MXA_REGS3(ra, rb, rd). One synchronous Ampere
	 * mma.sync shape: D = A x B^T (+ D with MXA_MMA_F_ACCUMULATE), A m x k, B n x k,
	 * D m x n, dense row-major at 16-byte aligned SRAM offsets a + R[ra] ... or, with
	 * MXA_MMA_F_TILES, in tile registers (a: T, b: M, d: ACC; registers 0).
	 */
	MXA_OP_MMA = 0x43,
	/*
	 * CVT: 7 dwords: header (MXA_CVT_F_*), MXA_REGS3(src_type, dst_type, 0), n, src,
	 * dst, scales, MXA_REGS3(rsrc, rdst, rscales). Converts n elements at SRAM offset
	 * src + R[rsrc] to dst_type at dst + R[rdst] (packed), or with MXA_CVT_F_MX
	 * quantises n F32 values into MX blocks of 32: elements at dst, ceil(n / 32) E8M0
	 * scales at scales + R[rscales]. Synchronous.
	 */
	MXA_OP_CVT = 0x44,
	/*
	 * WGMMA_DESC: 9 dwords: header (MXA_WGMMA_F_*), MXA_REGS3(type_a, type_b, type_d),
	 * n, desc_a_lo, desc_a_hi, desc_b_lo, desc_b_hi, d, MXA_REGS3(ra, rb, rd). WGMMA
	 * with its operands as on Hopper: A and B through 64-bit shared-memory matrix
	 * descriptors (MXA_SMEM_DESC(), desc + R[ra] as a 64-bit sum), laid out as PTX's
	 * canonical layouts with the descriptor's swizzle; K-major, or MN-major with
	 * MXA_WGMMA_F_TRANS_A/_B (16-bit types only). With MXA_WGMMA_F_TILE_A, desc_a is
	 * a T tile register (MXA_TILE(), .reuse as for MMA) of 64 rows x 32 bytes: PTX's
	 * register-A form. D is a dense row-major SRAM matrix at d + R[rd], as for WGMMA.
	 */
	MXA_OP_WGMMA_DESC = 0x45,
	/*
	 * The seed's split encoding of TMATMULMX[.ACC] (seed 004, 本指令将拆分成以下进行编码):
	 * a block of BSTART_CUBE, an optional B_DATR, three B_DIM and two B_IOT, nothing
	 * between them; the block runs as the one-line TMATMULMX when its second B_IOT
	 * (MXA_BIOT_F_LAST) is reached, reading the B_DIM registers then. A malformed block
	 * is MXA_ERR_BLOCK (MXA_BLOCK_ERR_*).
	 *
	 * BSTART_CUBE: 2 dwords: header (MXA_TMM_F_ACC, MXA_TMM_F_INTERWAVE), MXA_CUBE_* |
	 * type_a << 8 (text "BSTART.CUBE MAMULBMX.ACC, e4m3").
	 */
	MXA_OP_BSTART_CUBE = 0x46,
	/* B_DATR: 2 dwords: header, type_b ("B.DATR e5m2"; without it type_b = type_a). */
	MXA_OP_B_DATR = 0x47,
	/* B_DIM: 3 dwords: header, imm, reg | lb << 8: LB<lb> (0 M, 1 N, 2 K) = imm + R[reg]. */
	MXA_OP_B_DIM = 0x48,
	/*
	 * B_IOT: 4 dwords: header (MXA_BIOT_F_LAST), tile | tile << 16, acc, acc_size. The
	 * first gives A and its scales ("B.IOT T#1, U#1"), the second (last) B and its
	 * scales and the ACC ("B.IOT M#1, N#1, last, ACC, ->ACC<64KB>"); a scale tile that
	 * the type does not need may be left out.
	 */
	MXA_OP_B_IOT = 0x49,
};

/* Tile registers: MXA_TILES_PER_CLASS per class, per queue; empty when a job starts. */
#define MXA_TILE_T		1	/* A data, MXA_TILE_DATA_BYTES */
#define MXA_TILE_U		2	/* A scales, MXA_TILE_SCALE_BYTES */
#define MXA_TILE_M		3	/* B data, MXA_TILE_DATA_BYTES */
#define MXA_TILE_N		4	/* B scales, MXA_TILE_SCALE_BYTES */
#define MXA_TILE_ACC		5	/* accumulators, MXA_TILE_ACC_BYTES */
#define MXA_TILE_CLASSES	6	/* class 0: no tile */
#define MXA_TILES_PER_CLASS	8
#define MXA_TILE_DATA_BYTES	(64u << 10)
#define MXA_TILE_SCALE_BYTES	(8u << 10)
/*
 * Seed 004's minimum fragment of a scale tile: a U or N tile holds each row of its
 * E8M0 scales (ceil(K / 32) of them) in whole fragments of 32 bytes, so it takes
 * rows * roundup(row_bytes, 32) of its MXA_TILE_SCALE_BYTES (256 rows for K <= 1024).
 */
#define MXA_TILE_SCALE_FRAGMENT	32u
#define MXA_TILE_ACC_BYTES	(256u << 10)
/* A 16-bit tile operand: class, index, and .reuse (keep the source tile valid). */
#define MXA_TILE(cls, idx)	((__u32)(cls) << 8 | (__u32)(idx))
#define MXA_TILE_REUSE		0x8000u
#define MXA_TILE_CLASS(t)	(((t) >> 8) & 0x7fu)
#define MXA_TILE_INDEX(t)	((t) & 0xffu)
#define MXA_TILE_NONE		0
/* Whether operand @t (.reuse aside) names a register: class 1 .. MXA_TILE_CLASSES - 1,
 * index below MXA_TILES_PER_CLASS. */
static inline int mxa_tile_valid(__u32 t)
{
	return t <= 0xffff && MXA_TILE_CLASS(t) != 0 && MXA_TILE_CLASS(t) < MXA_TILE_CLASSES &&
	       MXA_TILE_INDEX(t) < MXA_TILES_PER_CLASS;
}
#define MXA_TILE_F_GLOBAL	(1u << 0)	/* TILE_LOAD/STORE address is a device VA */
#define MXA_TILE_DWORDS		8

#define MXA_TMM_F_ACC		(1u << 0)	/* TMATMULMX.ACC */
#define MXA_TMM_F_INTERWAVE	(1u << 1)	/* scheduling policy; same bits */
#define MXA_TMM_F_ALL		0x3u
#define MXA_TMM_DWORDS		10
#define MXA_CUBE_MAMULBMX	1	/* BSTART_CUBE's instruction: TMATMULMX */
#define MXA_BSTART_DWORDS	2
#define MXA_B_DATR_DWORDS	2
#define MXA_B_DIM_DWORDS	3
#define MXA_B_IOT_DWORDS	4
#define MXA_BIOT_F_LAST		(1u << 0)

/* err_info of MXA_ERR_BLOCK; err_addr: the block's BSTART_CUBE offset, or the part. */
#define MXA_BLOCK_ERR_OUTSIDE	1	/* a B_ part with no block open */
#define MXA_BLOCK_ERR_NESTED	2	/* BSTART_CUBE inside a block */
#define MXA_BLOCK_ERR_INSIDE	3	/* another command inside the block */
#define MXA_BLOCK_ERR_REPEATED	4	/* a part given twice (addr: MXA_BLOCK_PART_*) */
#define MXA_BLOCK_ERR_MISSING	5	/* a part missing at B_IOT (addr: the part) */
#define MXA_BLOCK_ERR_ORDER	6	/* B_DATR after a B_DIM, B_DIM after a B_IOT */
#define MXA_BLOCK_ERR_OPEN	7	/* the program ends with the block open */
#define MXA_BLOCK_ERR_OPERAND	8	/* an unknown instruction or LB (addr: the field) */
#define MXA_BLOCK_PART_DATR	1
#define MXA_BLOCK_PART_LB0	2	/* + lb */
#define MXA_BLOCK_PART_IOT_A	5
#define MXA_BLOCK_PART_IOT_B	6
#define MXA_TMM_MAX_DIM		(1u << 16)	/* M, N, K each at most this */

#define MXA_MMA_F_ACCUMULATE	(1u << 0)	/* D = A x B^T + D */
#define MXA_MMA_F_SATFINITE	(1u << 1)	/* integer shapes: clamp */
#define MXA_MMA_F_B1_XOR	(1u << 2)	/* b1: popc(a XOR b), default AND */
#define MXA_MMA_F_TILES		(1u << 3)	/* a, b, d are tile operands */
#define MXA_MMA_F_ALL		0xfu
#define MXA_MMA_SHAPE(m, n, k)	((__u32)(m) | (__u32)(n) << 8 | (__u32)(k) << 16)
#define MXA_MMA_DWORDS		7

#define MXA_CVT_F_SATFINITE	(1u << 0)
#define MXA_CVT_F_MX		(1u << 1)	/* MX quantisation with E8M0 scales */
#define MXA_CVT_F_RCEIL		(1u << 2)	/* MX scale policy RCEIL (default FLOOR) */
#define MXA_CVT_F_ALL		0x7u
#define MXA_CVT_DWORDS		7
#define MXA_FENCE_DWORDS	1

/* err_info of MXA_ERR_TILE: tile operand | reason << 16 */
#define MXA_TILE_ERR_NUMBER	1	/* no such tile, or the wrong class for the operand */
#define MXA_TILE_ERR_EMPTY	2	/* the tile holds no data */
#define MXA_TILE_ERR_SHAPE	3	/* its shape is not what the command needs */
#define MXA_TILE_ERR_SIZE	4	/* larger than the register, or ACC<size> too small */
#define MXA_TILE_ERR_MISSING	5	/* a scale tile the data type needs is omitted */

#define MXA_WGMMA_F_ACCUMULATE	(1u << 0)	/* scale-d = 1 */
#define MXA_WGMMA_F_NEGATE_A	(1u << 1)
#define MXA_WGMMA_F_NEGATE_B	(1u << 2)
#define MXA_WGMMA_F_INTERWAVE	(1u << 3)	/* scheduling policy; same bits */
#define MXA_WGMMA_F_ALL		0xfu
#define MXA_WGMMA_DWORDS	7
/* WGMMA_DESC also takes: */
#define MXA_WGMMA_F_TRANS_A	(1u << 4)	/* A MN-major (imm-trans-a = 1) */
#define MXA_WGMMA_F_TRANS_B	(1u << 5)	/* B MN-major (imm-trans-b = 1) */
#define MXA_WGMMA_F_TILE_A	(1u << 6)	/* A from a T tile register */
#define MXA_WGMMA_DESC_F_ALL	0x7fu
#define MXA_WGMMA_DESC_DWORDS	9

/*
 * Shared-memory matrix descriptor of WGMMA_DESC (the bits of Hopper's, PTX 9.7.15.5.1.2;
 * Documentation/isa.rst gives the address of each element, checked against an H200):
 * bits 13:0 start address >> 4, 29:16 leading-dimension byte offset >> 4, 45:32
 * stride-dimension byte offset >> 4, 51:49 base offset, 63:62 swizzle; other bits 0.
 */
#define MXA_SMEM_DESC_SWIZZLE_NONE	0
#define MXA_SMEM_DESC_SWIZZLE_128B	1
#define MXA_SMEM_DESC_SWIZZLE_64B	2
#define MXA_SMEM_DESC_SWIZZLE_32B	3
#define MXA_SMEM_DESC(start, lbo, sbo, base, swizzle) \
	((((__u64)(start) >> 4) & 0x3fff) | ((((__u64)(lbo) >> 4) & 0x3fff) << 16) | \
	 ((((__u64)(sbo) >> 4) & 0x3fff) << 32) | (((__u64)(base) & 7) << 49) | \
	 (((__u64)(swizzle) & 3) << 62))
#define MXA_SMEM_DESC_START(d)		(((d) & 0x3fff) << 4)
#define MXA_SMEM_DESC_LBO(d)		((((d) >> 16) & 0x3fff) << 4)
#define MXA_SMEM_DESC_SBO(d)		((((d) >> 32) & 0x3fff) << 4)
#define MXA_SMEM_DESC_BASE(d)		(((d) >> 49) & 7)
#define MXA_SMEM_DESC_SWIZZLE(d)	((d) >> 62)
#define MXA_SMEM_DESC_RESERVED		0x3ff1c000c000c000ull
/* The swizzle span in bytes of a descriptor's swizzle field (16: none). */
#define MXA_SMEM_DESC_SPAN(sw)		((sw) ? 256u >> (sw) : 16u)

/*
 * The 16-byte swizzle of SRAM byte offsets that TMA boxes and matrix descriptors share
 * (CUTLASS Swizzle<log2(span / 16), 4, 3>): the 16-byte unit bits 6:4 are XORed with
 * bits 9:7 less the descriptor's base offset (TMA: 0), masked by @mask = span / 16 - 1
 * (32B: 1, 64B: 3, 128B: 7; 0: no swizzle). The base offset subtracts: an H200 reads so.
 */
static inline __u64 mxa_swizzle(__u64 addr, __u32 mask, __u32 base)
{
	return addr ^ ((((addr >> 7) - base) & mask) << 4);
}
#define MXA_MAX_PENDING_ACC	64	/* WGMMAs not yet covered by a WAIT_GROUP */

/* Header flag of GEMM: run asynchronously on the math engine, in class MXA_GROUP_MMA. */
#define MXA_CMD_F_ASYNC		(1u << 0)
/*
 * Header flag of GEMM: operand addresses are register + immediate: reserved[0] =
 * MXA_REGS3(ra, rb, rc), reserved[1] = MXA_REGS3(rd, rscale_a, rscale_b); a + R[ra] ...
 * (registers read when the command is issued).
 */
#define MXA_CMD_F_GEMM_REGS	(1u << 1)

/*
 * Scalar registers and loops. Registers 0..31 are r0..r31 (r0 reads as zero); 32..63
 * are the seeds' global registers a0..a31 (MXA_AREG(n)), ordinary registers. TMA
 * coordinate registers (MXA_TMA_CREGS, 5 bits each) can only be r0..r31.
 */
#define MXA_NUM_GPRS		32
#define MXA_AREG_BASE		32
#define MXA_AREG(n)		(MXA_AREG_BASE + (n))
#define MXA_NUM_REGS		64
#define MXA_REGS3(a, b, c)	((__u32)(a) | ((__u32)(b) << 8) | ((__u32)(c) << 16))
#define MXA_REG_A(w)		((w) & 0xffu)
#define MXA_REG_B(w)		(((w) >> 8) & 0xffu)
#define MXA_REG_C(w)		(((w) >> 16) & 0xffu)
#define MXA_LOOP_MAX_DEPTH	4
#define MXA_JOB_CMD_BUDGET	(1u << 24)	/* commands one job may execute */

/*
 * REG_CTA's special registers: where the instance is (PTX %ctaid, %nctaid,
 * %clusterid, %nclusterid, %cluster_ctaid, %cluster_nctaid, %cluster_ctarank,
 * %cluster_nctarank; the text form spells them so: REG_CTA r1, %ctaid.x, 4096).
 */
enum mxa_sreg {
	MXA_SREG_CTAID_X = 0,		/* the instance's place in the grid */
	MXA_SREG_CTAID_Y = 1,
	MXA_SREG_NCTAID_X = 2,		/* the grid's size */
	MXA_SREG_NCTAID_Y = 3,
	MXA_SREG_CLUSTERID_X = 4,	/* its cluster's place among the clusters */
	MXA_SREG_CLUSTERID_Y = 5,
	MXA_SREG_NCLUSTERID_X = 6,	/* clusters in each dimension */
	MXA_SREG_NCLUSTERID_Y = 7,
	MXA_SREG_CLUSTER_CTAID_X = 8,	/* its place in the cluster */
	MXA_SREG_CLUSTER_CTAID_Y = 9,
	MXA_SREG_CLUSTER_NCTAID_X = 10,	/* the cluster shape */
	MXA_SREG_CLUSTER_NCTAID_Y = 11,
	MXA_SREG_CLUSTER_CTARANK = 12,	/* cluster_ctaid.x + cluster_ctaid.y * cluster_nctaid.x */
	MXA_SREG_CLUSTER_NCTARANK = 13,	/* instances in the cluster */
	MXA_SREG_CTA = 14,		/* ctaid.x + ctaid.y * nctaid.x: the instance's index */
	MXA_SREG_COUNT
};

/* Semaphores. */
#define MXA_SEM_F_ADD		(1u << 0)	/* SEM_SIGNAL flag: add instead of write */

#define MXA_SEM_DEFAULT_TIMEOUT_US	1000000u
#define MXA_SEM_MAX_TIMEOUT_US		10000000u

/* Asynchronous command classes: each has its own commit/wait groups. */
#define MXA_GROUP_MMA		0	/* asynchronous math (GEMM async, WGMMA) */
#define MXA_GROUP_COPY		1	/* COPY (cp.async), TMA stores (bulk groups) */
#define MXA_GROUP_CLASSES	2

/*
 * Header flag of TIMESTAMP (.MODEL): write the cycle model's view of the job so far,
 * struct mxa_timestamp_model, at no modelled cost (observing the model does not move it).
 */
#define MXA_TIMESTAMP_F_MODEL	(1u << 0)
/*
 * TIMESTAMP's register operand: header bits 31:24 (header flag bits 15:8) hold the
 * register whose value is added to the VA (0: r0, which reads 0).
 */
#define MXA_TIMESTAMP_REG_SHIFT	24
#define MXA_TIMESTAMP_F_REG	(0xffu << (MXA_TIMESTAMP_REG_SHIFT - 16))
#define MXA_TIMESTAMP_REG(r)	((__u32)(r) << (MXA_TIMESTAMP_REG_SHIFT - 16))	/* as flags */

/**
 * struct mxa_timestamp_model - what TIMESTAMP.MODEL writes (32 bytes, 8-aligned VA).
 * @ns: the device clock, as TIMESTAMP writes it.
 * @cycles: the command processor's modelled clock (the job's cycles so far).
 * @busy: per engine (index MXA_GROUP_MMA: math, MXA_GROUP_COPY: copy and TMA), the
 *	modelled cycles of work given to it so far (each op's busy time, whether it has
 *	run yet or not): at the end of a job, busy / cycles is its utilisation.
 */
struct mxa_timestamp_model {
	__u64 ns;
	__u64 cycles;
	__u64 busy[MXA_GROUP_CLASSES];
};

#define MXA_MAX_PENDING_GROUPS	64	/* COMMIT_GROUP waits when this many are pending */
#define MXA_COPY_MAX_BYTES	(64u << 20)

/* Per-core on-chip memory (SRAM), addressed by byte offset; zeroed when an instance starts. */
#define MXA_SRAM_SIZE		(256u << 10)

/*
 * Distributed shared memory: offset off of the SRAM of the instance of rank r in the
 * cluster (%cluster_ctarank) has the cluster address MXA_DSMEM(r, off) (PTX mapa: plain
 * arithmetic). TILE_LOAD/TILE_STORE (SRAM form) and MBAR_ARRIVE take cluster addresses
 * (ld/st.shared::cluster, mbarrier.arrive.shared::cluster); a rank outside the cluster
 * is MXA_ERR_CLUSTER (MXA_CLUSTER_ERR_OUTSIDE), an instance that has ended
 * MXA_CLUSTER_ERR_PEER_ENDED. Other SRAM operands are the instance's own SRAM only.
 */
#define MXA_TMA_MCAST_MASK	0x00ff0000u	/* TMA_LOAD dword 11: multicast CTA mask */
#define MXA_TMA_MCAST_SHIFT	16
#define MXA_DSMEM_BASE		(1u << 24)
#define MXA_DSMEM_STRIDE	(1u << 20)
#define MXA_DSMEM(rank, off)	(MXA_DSMEM_BASE + (__u32)(rank) * MXA_DSMEM_STRIDE + (__u32)(off))

/**
 * struct mxa_tensor_map - a tensor in device memory for TMA (128 bytes, 64-byte aligned
 * in device memory).
 * @global_addr: VA of element (0, ..., 0); 16-byte aligned.
 * @rank: 1..5. @elem_bytes: 1, 2, 4 or 8.
 * @oob_fill: MXA_TMA_OOB_ZERO or MXA_TMA_OOB_NAN (all-ones bytes: NaN in every float
 *	format).
 * @swizzle: MXA_TMA_SWIZZLE_*; with a swizzle, box[0] * elem_bytes <= the span.
 * @dims: elements per dimension (dim 0 innermost, contiguous), >= 1; unused dims 1.
 * @box: box size per dimension, 1..256; box[0] * elem_bytes a multiple of 16;
 *	unused dims 1. The box's bytes are at most MXA_SRAM_SIZE.
 * @strides: bytes between consecutive indices of dims 1..rank-1: multiples of 16,
 *	< 2^40; unused 0.
 */
struct mxa_tensor_map {
	__u64 global_addr;
	__u8 rank, elem_bytes, oob_fill, swizzle;
	__u32 reserved0;
	__u32 dims[5];
	__u32 box[5];
	__u64 strides[4];
	__u32 reserved[10];
};

#define MXA_TMA_MAX_RANK	5
#define MXA_TMA_MAX_BOX		256
#define MXA_TMA_MAX_STRIDE	(1ull << 40)	/* strides must be below this */
#define MXA_TMA_OOB_ZERO	0
#define MXA_TMA_OOB_NAN		1
#define MXA_TMA_SWIZZLE_NONE	0
#define MXA_TMA_SWIZZLE_32B	1
#define MXA_TMA_SWIZZLE_64B	2
#define MXA_TMA_SWIZZLE_128B	3
/*
 * err_info of MXA_ERR_BAD_TENSOR_MAP: the first field of the map that breaks the rules
 * (mxa_tensor_map_check()); MXA_TMAP_STRIDES also when the farthest byte overflows.
 */
enum mxa_tmap_field {
	MXA_TMAP_OK = 0, MXA_TMAP_RANK = 1, MXA_TMAP_ELEM_BYTES = 2, MXA_TMAP_OOB_FILL = 3,
	MXA_TMAP_SWIZZLE = 4, MXA_TMAP_GLOBAL_ADDR = 5, MXA_TMAP_BOX = 6, MXA_TMAP_DIMS = 7,
	MXA_TMAP_STRIDES = 8, MXA_TMAP_RESERVED = 9,
};

/*
 * The rules the device checks a tensor map (host byte order) by when a TMA command
 * issues: MXA_TMAP_OK with *@box_bytes the box's size, or the first bad field.
 */
static inline __u32 mxa_tensor_map_check(const struct mxa_tensor_map *m, __u64 *box_bytes)
{
	__u64 bytes = m->elem_bytes, span = m->global_addr, t;
	unsigned int d;

	if (m->rank < 1 || m->rank > MXA_TMA_MAX_RANK)
		return MXA_TMAP_RANK;
	if (m->elem_bytes != 1 && m->elem_bytes != 2 && m->elem_bytes != 4 && m->elem_bytes != 8)
		return MXA_TMAP_ELEM_BYTES;
	if (m->oob_fill > MXA_TMA_OOB_NAN)
		return MXA_TMAP_OOB_FILL;
	if (m->swizzle > MXA_TMA_SWIZZLE_128B ||
	    (m->swizzle && m->box[0] * m->elem_bytes > (16u << m->swizzle)))
		return MXA_TMAP_SWIZZLE;
	if (m->global_addr % 16)
		return MXA_TMAP_GLOBAL_ADDR;
	if (m->reserved0)
		return MXA_TMAP_RESERVED;
	for (d = 0; d < sizeof(m->reserved) / sizeof(m->reserved[0]); d++)
		if (m->reserved[d])
			return MXA_TMAP_RESERVED;
	/* dims, boxes, strides; the farthest byte must not overflow */
	for (d = 0; d < MXA_TMA_MAX_RANK; d++) {
		int used = d < m->rank;

		if (m->box[d] < 1 || m->box[d] > MXA_TMA_MAX_BOX || (!used && m->box[d] != 1))
			return MXA_TMAP_BOX;
		if (m->dims[d] < 1 || (!used && m->dims[d] != 1))
			return MXA_TMAP_DIMS;
		if (d > 0 && ((used && (m->strides[d - 1] % 16 ||
					m->strides[d - 1] >= MXA_TMA_MAX_STRIDE)) ||
			      (!used && m->strides[d - 1])))
			return MXA_TMAP_STRIDES;
		bytes *= m->box[d];
		if (__builtin_mul_overflow((__u64)(m->dims[d] - (d ? 1 : 0)),
					   d ? m->strides[d - 1] : (__u64)m->elem_bytes, &t) ||
		    __builtin_add_overflow(span, t, &span))
			return MXA_TMAP_STRIDES;
	}
	if ((m->box[0] * m->elem_bytes) % 16 || bytes > MXA_SRAM_SIZE)
		return MXA_TMAP_BOX;
	*box_bytes = bytes;
	return MXA_TMAP_OK;
}

/* A TMA swizzle of span S (32, 64, 128) moves the box's bytes by mxa_swizzle(a, S / 16 - 1, 0). */
#define MXA_TMA_CREGS(r0, r1, r2, r3, r4) \
	((__u32)(r0) | ((__u32)(r1) << 5) | ((__u32)(r2) << 10) | ((__u32)(r3) << 15) | \
	 ((__u32)(r4) << 20))
#define MXA_TMA_DWORDS		12
#define MXA_MBAR_DWORDS		3
#define MXA_MBAR_MAX_COUNT	(1u << 20)
#define MXA_MBAR_MAX_TX		(1 << 30)	/* |transaction count| at most this */
#define MXA_MBAR_BYTES		16	/* an mbarrier occupies 16 bytes, 8-byte aligned */
/* TMA loads a job may have issued and not yet observed with an MBAR_WAIT */
#define MXA_MAX_PENDING_TMA	256

/* err_info of MXA_ERR_MBARRIER */
#define MXA_MBAR_ERR_UNINIT	1	/* not initialised by MBAR_INIT */
#define MXA_MBAR_ERR_ARRIVALS	2	/* more arrivals than the count */
#define MXA_MBAR_ERR_DEADLOCK	3	/* waiting on a phase nothing can complete (in a
					 * cluster: once every peer has ended; while
					 * one runs it may, and the timeout decides) */
#define MXA_MBAR_ERR_TX		4	/* transaction count out of range */
#define MXA_MBAR_ERR_TIMEOUT	5	/* not completed within the mbar-timeout-us property
					 * (MXA_REG_MBAR_TIMEOUT_US, default MXA_SEM_MAX_TIMEOUT_US) */

#define MXA_REG_SET_DWORDS	4
#define MXA_REG_ADD_DWORDS	4
#define MXA_REG_LOAD_DWORDS	4
#define MXA_REG_STORE_DWORDS	4
#define MXA_LOOP_DWORDS		3
#define MXA_ENDLOOP_DWORDS	1
#define MXA_SEM_WAIT_DWORDS	6
#define MXA_SEM_SIGNAL_DWORDS	5
#define MXA_COMMIT_GROUP_DWORDS	1
#define MXA_WAIT_GROUP_DWORDS	2
#define MXA_COPY_DWORDS		7

/*
 * Element types of math commands: the one set of type codes, used by the ISA, the
 * engine, libaccel and the golden-vector (MXGV) files (codes 0..14 are MXGV's, and
 * NVFP4's 16 in tests/golden/nvfp4).
 * Bit layouts and rounding: Documentation/numerics.rst.
 */
enum mxa_isa_dtype {
	MXA_DTYPE_F32 = 0,
	MXA_DTYPE_F16 = 1,
	MXA_DTYPE_BF16 = 2,
	MXA_DTYPE_TF32 = 3,	/* held in a 32-bit f32 container */
	MXA_DTYPE_F64 = 4,
	MXA_DTYPE_E4M3 = 5,	/* OCP FP8 E4M3 ("fn": no Inf, NaN = S.1111.111) */
	MXA_DTYPE_E5M2 = 6,	/* OCP FP8 E5M2 (IEEE-like) */
	MXA_DTYPE_E8M0 = 7,	/* MX scale: 2^(code-127), 0xFF = NaN */
	MXA_DTYPE_S8 = 8,
	MXA_DTYPE_S4 = 9,
	MXA_DTYPE_B1 = 10,
	MXA_DTYPE_S32 = 11,
	MXA_DTYPE_E3M2 = 12,	/* MX FP6 */
	MXA_DTYPE_E2M3 = 13,	/* MX FP6 */
	MXA_DTYPE_E2M1 = 14,	/* MX FP4 */
	MXA_DTYPE_MXINT8 = 15,	/* MX INT8: two's complement int8 times 2^-6 */
	MXA_DTYPE_NVFP4 = 16,	/* NVFP4: E2M1 codes as MXA_DTYPE_E2M1, UE4M3 block scales */
	MXA_DTYPE_COUNT
};

/*
 * Block scales along K (Documentation/numerics.rst "Block-scaled types"): the MX types
 * (E4M3, E5M2, E3M2, E2M3, E2M1, MXINT8) take one E8M0 per MXA_MX_BLOCK elements, NVFP4
 * one UE4M3 (an E4M3 whose sign bit is not read) per MXA_NVFP4_BLOCK, as Blackwell's
 * mxf4nvf4 MMAs do; its per-tensor FP32 scale is the epilogue's (accel_gemm's alpha).
 * NVFP4 pairs only with NVFP4.
 */
#define MXA_MX_BLOCK		32
#define MXA_NVFP4_BLOCK		16
static inline unsigned mxa_dtype_scale_block(unsigned t)
{
	switch (t) {
	case MXA_DTYPE_E4M3:
	case MXA_DTYPE_E5M2:
	case MXA_DTYPE_E3M2:
	case MXA_DTYPE_E2M3:
	case MXA_DTYPE_E2M1:
	case MXA_DTYPE_MXINT8:
		return MXA_MX_BLOCK;
	case MXA_DTYPE_NVFP4:
		return MXA_NVFP4_BLOCK;
	default:
		return 0;
	}
}
/* The scale_block of a product of @ta x @tb (FP16/BF16 sides take none): A's, else B's. */
static inline unsigned mxa_dtype_pair_scale_block(unsigned ta, unsigned tb)
{
	return mxa_dtype_scale_block(ta) ? mxa_dtype_scale_block(ta) : mxa_dtype_scale_block(tb);
}
/* Whether A and B of one product are NVFP4 on one side only (refused: MXA_BADOP_DTYPE). */
static inline int mxa_dtype_nvfp4_unpaired(unsigned ta, unsigned tb)
{
	return (ta == MXA_DTYPE_NVFP4) != (tb == MXA_DTYPE_NVFP4);
}

/**
 * struct mxa_isa_gemm - operands of MXA_OP_GEMM (128 bytes, inline in the command).
 * @m, @n, @k: problem size (each >= 1).
 * @type_a, @type_b, @type_c, @type_d: enum mxa_isa_dtype.
 * @flags: MXA_GEMM_F_*.
 * @scale_block: 0 (no block scales), 32 (MX: one E8M0 per 32 elements along K) or 16
 *     (NVFP4 on both sides: one UE4M3 per 16); mxa_dtype_scale_block().
 * @a: VA of A, M rows x K (row-major, K contiguous), or K x M with MXA_GEMM_F_A_KM
 *     (whole-byte types), @lda bytes between rows.
 * @b: VA of B given as N rows x K (i.e. B^T), or K x N with MXA_GEMM_F_B_KN.
 * @c: VA of C (M x N, type_c) when MXA_GEMM_F_ACCUMULATE; may equal @d.
 * @d: VA of D (M x N, type_d).
 * @scale_a, @scale_b: VAs of the block scales: M x ceil(K/block) and N x ceil(K/block)
 *     bytes.
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
#define MXA_GEMM_F_A_KM		(1u << 3)	/* A is K x M */
#define MXA_GEMM_F_ALL		(MXA_GEMM_F_ACCUMULATE | MXA_GEMM_F_SATFINITE | MXA_GEMM_F_B_KN | \
				 MXA_GEMM_F_A_KM)

#define MXA_GEMM_ACCUM_EXACT	0	/* exact sums, rounded once per K chunk (default) */
#define MXA_GEMM_ACCUM_FAST	1	/* FP32 FMA chains in fixed K blocks */
#define MXA_GEMM_SCHED_INTRAWAVE 0
#define MXA_GEMM_SCHED_INTERWAVE 1

/*
 * err_info of MXA_ERR_BAD_OPERAND: MXA_BADOP(reason, operand), bits 7:0 the reason
 * (enum mxa_badop_reason), bits 15:8 the operand (enum mxa_badop_operand, 0 where the
 * command does not name one); err_addr is then the operand's value (M, N and K with
 * their registers added). The engine's error codes are the reasons, negated.
 */
#define MXA_BADOP(reason, operand)	((__u32)(reason) | (__u32)(operand) << 8)
#define MXA_BADOP_REASON(info)		((info) & 0xffu)
#define MXA_BADOP_OPERAND(info)		(((info) >> 8) & 0xffu)

enum mxa_badop_reason {
	MXA_BADOP_INVALID = 1,	/* a field out of range, or reserved bits set */
	MXA_BADOP_DTYPE = 2,	/* unsupported type or type combination */
	MXA_BADOP_SHAPE = 3,	/* a dimension 0 or above the command's limit, or no
				 * instruction shape */
	MXA_BADOP_K_ALIGN = 4,	/* FP8 MX with K % 64 != 0 */
	MXA_BADOP_SCALE = 5,	/* scales missing or unexpected, a block that is not
				 * the types' (mxa_dtype_scale_block()) */
	MXA_BADOP_LAYOUT = 6,	/* leading dimension too small, layout unsupported */
	MXA_BADOP_OVERFLOW = 7,	/* a size computation overflows */
	MXA_BADOP_OPTION = 9,	/* unknown accumulation, scheduling or rounding option */
};

enum mxa_badop_operand {
	MXA_OPERAND_NONE = 0,
	MXA_OPERAND_M = 1,
	MXA_OPERAND_N = 2,
	MXA_OPERAND_K = 3,
	MXA_OPERAND_TYPE_A = 4,
	MXA_OPERAND_TYPE_B = 5,
	MXA_OPERAND_TYPE_C = 6,
	MXA_OPERAND_TYPE_D = 7,
	MXA_OPERAND_SCALES = 8,	/* the scale tiles or scale_block */
	MXA_OPERAND_A = 9,	/* the A matrix: its descriptor, tile register or address */
	MXA_OPERAND_B = 10,
	MXA_OPERAND_COUNT
};

/* err_info of MXA_ERR_BAD_GRID */
#define MXA_GRID_ERR_TOO_MANY	1	/* more than MXA_GRID_MAX_INSTANCES instances */
#define MXA_GRID_ERR_CLUSTER	2	/* cluster larger than MXA_CLUSTER_MAX or the cores */
#define MXA_GRID_ERR_DIVIDE	3	/* the cluster shape does not divide the grid */

/* err_info of MXA_ERR_CLUSTER */
#define MXA_CLUSTER_ERR_ARRIVE		1	/* CLUSTER_ARRIVE twice without CLUSTER_WAIT */
#define MXA_CLUSTER_ERR_WAIT		2	/* CLUSTER_WAIT without CLUSTER_ARRIVE */
#define MXA_CLUSTER_ERR_PEER_ENDED	3	/* a peer ended before arriving, or its SRAM was
						 * used after it ended; addr: its rank */
#define MXA_CLUSTER_ERR_OUTSIDE		4	/* a cluster address of no instance of the
						 * cluster; addr: the address */
#define MXA_CLUSTER_ERR_TIMEOUT		5	/* CLUSTER_WAIT longer than mbar-timeout-us */

/* err_info of MXA_ERR_NO_MEMORY */
#define MXA_NOMEM_HOST		0	/* the host had no memory for the staging buffer */
#define MXA_NOMEM_BUDGET	1	/* beyond the device's budget (max-host-mem-mb) */

/* Device limit on one operand of a math command. */
#define MXA_GEMM_MAX_OPERAND_BYTES	(1ull << 30)

#define MXA_NOP_DWORDS		1
#define MXA_FENCE_WRITE_DWORDS	5
#define MXA_TIMESTAMP_DWORDS	3
#define MXA_REG_CTA_DWORDS	3
#define MXA_CLUSTER_DWORDS	1

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
	MXA_ERR_NO_MEMORY = 13,		/* the device could not allocate working memory;
					 * err_info MXA_NOMEM_*, err_addr the operand's VA */
	MXA_ERR_LOOP_BUDGET = 14,	/* loop budget exceeded (MXA_JOB_CMD_BUDGET commands) */
	MXA_ERR_LOOP_NESTING = 15,	/* LOOP deeper than MXA_LOOP_MAX_DEPTH or unbalanced */
	MXA_ERR_BAD_REGISTER = 16,	/* register number >= MXA_NUM_REGS; info: the number */
	MXA_ERR_SEM_TIMEOUT = 17,	/* SEM_WAIT timed out; addr: semaphore, info: timeout_us */
	MXA_ERR_BAD_CLASS = 18,		/* COMMIT/WAIT_GROUP on an unknown class */
	MXA_ERR_BAD_TENSOR_MAP = 19,	/* tensor map invalid; addr: map, info: field */
	MXA_ERR_SRAM_RANGE = 20,	/* SRAM range outside MXA_SRAM_SIZE or misaligned */
	MXA_ERR_MBARRIER = 21,		/* mbarrier misuse; info: MXA_MBAR_ERR_* */
	MXA_ERR_ACC_HAZARD = 22,	/* SRAM of a pending WGMMA's D used before WAIT_GROUP */
	MXA_ERR_TILE_RELEASED = 23,	/* tile used after release (no .reuse); info: tile */
	MXA_ERR_TILE = 24,		/* bad tile operand; info: tile | MXA_TILE_ERR_* << 16 */
	MXA_ERR_OPERAND_HAZARD = 25,	/* SRAM A/B of a pending WGMMA written before WAIT_GROUP */
	MXA_ERR_TMA_HAZARD = 26,	/* SRAM of a TMA load read or written before the
					 * MBAR_WAIT that observes it; addr: the box, info:
					 * its bytes (0: more than MXA_MAX_PENDING_TMA) */
	MXA_ERR_BLOCK = 27,		/* a malformed split block (MXA_BLOCK_ERR_*) */
	MXA_ERR_BAD_GRID = 28,		/* the descriptor's grid or cluster shape is invalid
					 * (MXA_GRID_ERR_*) */
	MXA_ERR_CLUSTER = 29,		/* cluster barrier or distributed SRAM misuse
					 * (MXA_CLUSTER_ERR_*) */
	MXA_ERR_COUNT
};

#endif /* MXA_ISA_H */
