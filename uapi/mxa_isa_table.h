/* SPDX-License-Identifier: MIT */
/*
 * The MXA ISA as one table: for every command of mxa_isa.h its mnemonic, opcode, length,
 * the header flags it defines and the suffix that names each, what it does to the
 * machine (MXA_ISA_A_*), and where each operand's bits live in its dwords.
 *
 * Everything that knows commands reads this table: the device's decoder (lengths,
 * flags, attributes), the device timeline (names), libaccel's assembler, disassembler
 * and error texts, and the fuzzers. A new command is one entry here, its execution in
 * qemu-device/mxa_exec.c, and its section in Documentation/isa.rst
 * (tests/host/test-isa-table.py checks that the documentation matches the table).
 *
 * The mnemonic of MXA_OP_<NAME> is "<NAME>": MXA_ISA_CMD() makes it from the enum's
 * name, so each mnemonic is written once.
 */
#ifndef MXA_ISA_TABLE_H
#define MXA_ISA_TABLE_H

#include "mxa_isa.h"

/* Operand kinds: how the text form writes an operand and where its bits are. */
enum mxa_isa_opnd_kind {
	MXA_OPND_NONE = 0,
	MXA_OPND_U64,		/* 64-bit value at dw, dw + 1 */
	MXA_OPND_U32,		/* 32-bit value at dw (masked by mask when set: the bits
				 * of dw that hold it, from bit shift up) */
	MXA_OPND_REG,		/* register rN: 8 bits at dw >> shift */
	MXA_OPND_RI64,		/* value + rN: 64-bit value at dw, register at rdw >> rshift */
	MXA_OPND_RI32,		/* value + rN: 32-bit value at dw (& mask), register at rdw >> rshift */
	MXA_OPND_RRI64,		/* rA + rB + value: registers at rdw >> rshift, >> rshift + 8 */
	MXA_OPND_CLASS,		/* header flags: group class "mma" or "copy" */
	MXA_OPND_DTYPE,		/* element type name: 8 bits at dw >> shift */
	MXA_OPND_TENSOR,	/* [map, {c0 + rN, ...}]: TMA map VA (dw 1-2), coords 5-9, regs 10 */
	MXA_OPND_GEMM,		/* key=value list of struct mxa_isa_gemm (dw 1 ...) */
	MXA_OPND_TILE,		/* tile register T#1[.reuse], ACC#2: 16 bits at dw >> shift */
	MXA_OPND_SHAPE,		/* MMA shape m16n8k16: MXA_MMA_SHAPE at dw */
	MXA_OPND_TMM,		/* TMATMULMX's <LB0:.., LB1:.., LB2:.., ta, tb> T, U, M, N, ACC, ->ACC<size> */
	MXA_OPND_CUBE,		/* BSTART.CUBE's MAMULBMX[.ACC][.INTERWAVE]: 8 bits at dw, header flags */
	MXA_OPND_LB,		/* ->LB0 .. ->LB2: 8 bits at dw >> shift */
	MXA_OPND_IOT,		/* B.IOT's tile[, tile][, last, ACC, ->ACC<size>] (dw 1-3) */
	MXA_OPND_SREG,		/* special register %ctaid.x ...: 8 bits at dw >> shift */
};

/* The text form's names of the special registers (enum mxa_sreg), written after a '%'. */
extern const char *const mxa_sreg_names[MXA_SREG_COUNT];

/* Operand flags (text form). */
#define MXA_OPND_F_HEX		(1u << 0)	/* print the value in hex */
#define MXA_OPND_F_SIGNED	(1u << 1)	/* the value is signed (print -16) */
#define MXA_OPND_F_OPTIONAL	(1u << 2)	/* trailing operand, omitted when zero */
#define MXA_OPND_F_TILEABLE	(1u << 3)	/* an RI32/RI64 that is a TILE when the
						 * command's tile_flag is set */
#define MXA_OPND_F_SPACE	(1u << 4)	/* followed by a space, not a comma */

struct mxa_isa_opnd {
	__u8 kind;		/* enum mxa_isa_opnd_kind */
	__u8 dw;		/* dword of the value */
	__u8 rdw, rshift;	/* dword and bit of the register */
	__u8 shift;		/* bit of REG / DTYPE / TILE in dw */
	__u8 flags;		/* MXA_OPND_F_* */
	__u32 mask;		/* RI32/U32: bits of dw that hold the value (0 = all) */
};

/* A header flag and the suffix that sets it in the text form (".ACC"). */
struct mxa_isa_suffix {
	const char *name;
	__u16 bit;
};

/* What a command does to the machine (struct mxa_isa_cmd.attrs). */
#define MXA_ISA_A_SRAM		(1u << 0)	/* reads or writes SRAM or tile registers */
#define MXA_ISA_A_QUICK		(1u << 1)	/* a few cycles on the command processor, no
						 * memory wait: a due interrupt may wait behind it */
#define MXA_ISA_A_BLOCKING	(1u << 2)	/* holds the command processor: waits for other
						 * work, or computes or copies synchronously */
#define MXA_ISA_A_CLASS		(1u << 3)	/* header flags are a group class (MXA_GROUP_*);
						 * an unknown one is MXA_ERR_BAD_CLASS */
#define MXA_ISA_A_BLOCK		(1u << 4)	/* a part of a split block (BSTART_CUBE, B_*):
						 * the only commands a block may hold */

#define MXA_ISA_MAX_OPNDS	8
#define MXA_ISA_MAX_SUFFIXES	8
#define MXA_ISA_OPCODES		256

/**
 * struct mxa_isa_cmd - one command.
 * @mnemonic: its name in the text form, NULL for an opcode that names no command.
 * @opcode: MXA_OP_*.
 * @dwords: its length, header included (every command has one length).
 * @flags: the header flags it defines; any other is MXA_ERR_BAD_FLAGS (unless
 *	MXA_ISA_A_CLASS).
 * @attrs: MXA_ISA_A_*.
 * @tile_flag: the header flag that makes its MXA_OPND_F_TILEABLE operands tile
 *	registers (0: none).
 * @text: its text-form name when that is not @mnemonic (the seed's "B.DIM"); such a
 *	name takes no suffixes: its operands spell its flags.
 * @suffix: the text form's names of header flags, in the order the disassembler
 *	prints them; flags without a suffix have no text form.
 * @opnd: the operands in text order.
 */
struct mxa_isa_cmd {
	const char *mnemonic;
	__u8 opcode;
	__u8 dwords;
	__u16 flags;
	__u16 attrs;
	__u16 tile_flag;
	const char *text;
	struct mxa_isa_suffix suffix[MXA_ISA_MAX_SUFFIXES];
	struct mxa_isa_opnd opnd[MXA_ISA_MAX_OPNDS];
};

#define MXA_ISA_CMD(name, len)	[MXA_OP_##name] = { .mnemonic = #name, .opcode = MXA_OP_##name, \
						    .dwords = (len)
#define MXA_O_U64(dw)		{ MXA_OPND_U64, dw, 0, 0, 0, 0, 0 }
#define MXA_O_U64H(dw)		{ MXA_OPND_U64, dw, 0, 0, 0, MXA_OPND_F_HEX, 0 }
#define MXA_O_U32(dw)		{ MXA_OPND_U32, dw, 0, 0, 0, 0, 0 }
#define MXA_O_U32H(dw)		{ MXA_OPND_U32, dw, 0, 0, 0, MXA_OPND_F_HEX, 0 }
#define MXA_O_U32OPT(dw)	{ MXA_OPND_U32, dw, 0, 0, 0, MXA_OPND_F_OPTIONAL, 0 }
#define MXA_O_REG(dw, sh)	{ MXA_OPND_REG, dw, 0, 0, sh, 0, 0 }
#define MXA_O_RI64H(dw, rdw, rsh) { MXA_OPND_RI64, dw, rdw, rsh, 0, MXA_OPND_F_HEX, 0 }
#define MXA_O_RI32(dw, rdw, rsh) { MXA_OPND_RI32, dw, rdw, rsh, 0, 0, 0 }
#define MXA_O_RI32H(dw, rdw, rsh) { MXA_OPND_RI32, dw, rdw, rsh, 0, MXA_OPND_F_HEX, 0 }
#define MXA_O_RI32F(dw, rdw, rsh, f) { MXA_OPND_RI32, dw, rdw, rsh, 0, MXA_OPND_F_HEX | (f), 0 }
#define MXA_O_DTYPE(dw, sh)	{ MXA_OPND_DTYPE, dw, 0, 0, sh, 0, 0 }
#define MXA_O_KIND(k)		{ .kind = (k) }
#define MXA_O_TILE(d)		{ .kind = MXA_OPND_TILE, .dw = (d) }

/*
 * Indexed by opcode. One source file of each program defines MXA_ISA_TABLE_DEFINE
 * before it includes this header and so holds the table (libaccel: asm.c, the device:
 * mxa_exec.c); the others see the declaration.
 */
extern const struct mxa_isa_cmd mxa_isa_cmds[MXA_ISA_OPCODES];

#ifdef MXA_ISA_TABLE_DEFINE
const char *const mxa_sreg_names[MXA_SREG_COUNT] = {
	[MXA_SREG_CTAID_X] = "ctaid.x", [MXA_SREG_CTAID_Y] = "ctaid.y",
	[MXA_SREG_NCTAID_X] = "nctaid.x", [MXA_SREG_NCTAID_Y] = "nctaid.y",
	[MXA_SREG_CLUSTERID_X] = "clusterid.x", [MXA_SREG_CLUSTERID_Y] = "clusterid.y",
	[MXA_SREG_NCLUSTERID_X] = "nclusterid.x", [MXA_SREG_NCLUSTERID_Y] = "nclusterid.y",
	[MXA_SREG_CLUSTER_CTAID_X] = "cluster_ctaid.x",
	[MXA_SREG_CLUSTER_CTAID_Y] = "cluster_ctaid.y",
	[MXA_SREG_CLUSTER_NCTAID_X] = "cluster_nctaid.x",
	[MXA_SREG_CLUSTER_NCTAID_Y] = "cluster_nctaid.y",
	[MXA_SREG_CLUSTER_CTARANK] = "cluster_ctarank",
	[MXA_SREG_CLUSTER_NCTARANK] = "cluster_nctarank",
	[MXA_SREG_CTA] = "cta",
};

const struct mxa_isa_cmd mxa_isa_cmds[MXA_ISA_OPCODES] = {
	MXA_ISA_CMD(NOP, MXA_NOP_DWORDS), .attrs = MXA_ISA_A_QUICK },
	MXA_ISA_CMD(FENCE_WRITE, MXA_FENCE_WRITE_DWORDS), .attrs = MXA_ISA_A_BLOCKING,
	  .opnd = { MXA_O_U64H(1), MXA_O_U64(3) } },
	MXA_ISA_CMD(TIMESTAMP, MXA_TIMESTAMP_DWORDS), .attrs = MXA_ISA_A_QUICK,
	  .flags = MXA_TIMESTAMP_F_MODEL | MXA_TIMESTAMP_F_REG,
	  .suffix = { { ".MODEL", MXA_TIMESTAMP_F_MODEL } },
	  .opnd = { MXA_O_RI64H(1, 0, MXA_TIMESTAMP_REG_SHIFT) } },
	MXA_ISA_CMD(REG_SET, MXA_REG_SET_DWORDS), .attrs = MXA_ISA_A_QUICK,
	  .opnd = { MXA_O_REG(1, 0), MXA_O_U64(2) } },
	MXA_ISA_CMD(REG_ADD, MXA_REG_ADD_DWORDS), .attrs = MXA_ISA_A_QUICK,
	  .opnd = { MXA_O_REG(1, 0), { MXA_OPND_RRI64, 2, 1, 8, 0, MXA_OPND_F_SIGNED, 0 } } },
	MXA_ISA_CMD(REG_LOAD, MXA_REG_LOAD_DWORDS),
	  .opnd = { MXA_O_REG(1, 0), MXA_O_U64H(2) } },
	MXA_ISA_CMD(REG_STORE, MXA_REG_STORE_DWORDS),
	  .opnd = { MXA_O_REG(1, 0), MXA_O_U64H(2) } },
	MXA_ISA_CMD(LOOP, MXA_LOOP_DWORDS), .attrs = MXA_ISA_A_QUICK,
	  .opnd = { MXA_O_RI32(1, 2, 0) } },
	MXA_ISA_CMD(ENDLOOP, MXA_ENDLOOP_DWORDS), .attrs = MXA_ISA_A_QUICK },
	MXA_ISA_CMD(SEM_WAIT, MXA_SEM_WAIT_DWORDS), .attrs = MXA_ISA_A_BLOCKING,
	  .opnd = { MXA_O_U64H(1), MXA_O_U64(3), MXA_O_U32OPT(5) } },
	MXA_ISA_CMD(SEM_SIGNAL, MXA_SEM_SIGNAL_DWORDS), .attrs = MXA_ISA_A_BLOCKING,
	  .flags = MXA_SEM_F_ADD, .suffix = { { ".ADD", MXA_SEM_F_ADD } },
	  .opnd = { MXA_O_U64H(1), MXA_O_U64(3) } },
	MXA_ISA_CMD(COMMIT_GROUP, MXA_COMMIT_GROUP_DWORDS), .attrs = MXA_ISA_A_QUICK | MXA_ISA_A_CLASS,
	  .opnd = { MXA_O_KIND(MXA_OPND_CLASS) } },
	MXA_ISA_CMD(WAIT_GROUP, MXA_WAIT_GROUP_DWORDS), .attrs = MXA_ISA_A_BLOCKING | MXA_ISA_A_CLASS,
	  .opnd = { MXA_O_KIND(MXA_OPND_CLASS), MXA_O_U32(1) } },
	MXA_ISA_CMD(FENCE, MXA_FENCE_DWORDS), .attrs = MXA_ISA_A_QUICK },
	/* REG_CTA rD, %sreg, multiplier */
	MXA_ISA_CMD(REG_CTA, MXA_REG_CTA_DWORDS), .attrs = MXA_ISA_A_QUICK,
	  .opnd = { MXA_O_REG(1, 0), { MXA_OPND_SREG, 1, 0, 0, 8, 0, 0 }, MXA_O_U32(2) } },
	MXA_ISA_CMD(CLUSTER_ARRIVE, MXA_CLUSTER_DWORDS), .attrs = MXA_ISA_A_QUICK },
	MXA_ISA_CMD(CLUSTER_WAIT, MXA_CLUSTER_DWORDS), .attrs = MXA_ISA_A_BLOCKING },
	/* COPY dst, src, bytes: memcpy order */
	MXA_ISA_CMD(COPY, MXA_COPY_DWORDS),
	  .opnd = { MXA_O_RI64H(3, 6, 8), MXA_O_RI64H(1, 6, 0), MXA_O_RI32(5, 6, 16) } },
	/* TMA_LOAD sram, [map, {coords}], mbar[, cta mask] (PTX operand order) */
	MXA_ISA_CMD(TMA_LOAD, MXA_TMA_DWORDS), .attrs = MXA_ISA_A_SRAM,
	  .opnd = { MXA_O_RI32H(3, 11, 0), MXA_O_KIND(MXA_OPND_TENSOR), MXA_O_RI32H(4, 11, 8),
		    { MXA_OPND_U32, 11, 0, 0, 16, MXA_OPND_F_OPTIONAL | MXA_OPND_F_HEX,
		      MXA_TMA_MCAST_MASK } } },
	MXA_ISA_CMD(TMA_STORE, MXA_TMA_DWORDS), .attrs = MXA_ISA_A_SRAM,
	  .opnd = { MXA_O_KIND(MXA_OPND_TENSOR), MXA_O_RI32H(3, 11, 0) } },
	MXA_ISA_CMD(MBAR_INIT, MXA_MBAR_DWORDS), .attrs = MXA_ISA_A_SRAM,
	  .opnd = { MXA_O_U32H(1), MXA_O_U32(2) } },
	MXA_ISA_CMD(MBAR_ARRIVE, MXA_MBAR_DWORDS), .attrs = MXA_ISA_A_SRAM,
	  .opnd = { MXA_O_U32H(1), MXA_O_U32(2) } },
	MXA_ISA_CMD(MBAR_EXPECT_TX, MXA_MBAR_DWORDS), .attrs = MXA_ISA_A_SRAM,
	  .opnd = { MXA_O_U32H(1), MXA_O_U32(2) } },
	MXA_ISA_CMD(MBAR_COMPLETE_TX, MXA_MBAR_DWORDS), .attrs = MXA_ISA_A_SRAM,
	  .opnd = { MXA_O_U32H(1), MXA_O_U32(2) } },
	/* MBAR_WAIT sram, parity + rN */
	MXA_ISA_CMD(MBAR_WAIT, MXA_MBAR_DWORDS), .attrs = MXA_ISA_A_SRAM | MXA_ISA_A_BLOCKING,
	  .opnd = { MXA_O_U32H(1), { MXA_OPND_RI32, 2, 2, 8, 0, 0, 0xff } } },
	/* TILE_LOAD[.GLOBAL] T#1, src, rows, row_bytes[, stride]; TILE_STORE dst, T#1, ... */
	MXA_ISA_CMD(TILE_LOAD, MXA_TILE_DWORDS), .attrs = MXA_ISA_A_SRAM | MXA_ISA_A_BLOCKING,
	  .flags = MXA_TILE_F_GLOBAL, .suffix = { { ".GLOBAL", MXA_TILE_F_GLOBAL } },
	  .opnd = { MXA_O_TILE(1), MXA_O_RI64H(4, 7, 0), MXA_O_U32(2), MXA_O_U32(3),
		    MXA_O_U32OPT(6) } },
	MXA_ISA_CMD(TILE_STORE, MXA_TILE_DWORDS), .attrs = MXA_ISA_A_SRAM | MXA_ISA_A_BLOCKING,
	  .flags = MXA_TILE_F_GLOBAL, .suffix = { { ".GLOBAL", MXA_TILE_F_GLOBAL } },
	  .opnd = { MXA_O_RI64H(4, 7, 0), MXA_O_TILE(1), MXA_O_U32(2), MXA_O_U32(3),
		    MXA_O_U32OPT(6) } },
	/* GEMM.ASYNC key=value, ...; MXA_CMD_F_GEMM_REGS (register operands) has no text form */
	MXA_ISA_CMD(GEMM, MXA_GEMM_DWORDS), .attrs = MXA_ISA_A_BLOCKING,
	  .flags = MXA_CMD_F_ASYNC | MXA_CMD_F_GEMM_REGS, .suffix = { { ".ASYNC", MXA_CMD_F_ASYNC } },
	  .opnd = { MXA_O_KIND(MXA_OPND_GEMM) } },
	/* WGMMA type_d, type_a, type_b, n, d, a, b */
	MXA_ISA_CMD(WGMMA, MXA_WGMMA_DWORDS), .attrs = MXA_ISA_A_SRAM, .flags = MXA_WGMMA_F_ALL,
	  .suffix = { { ".ACC", MXA_WGMMA_F_ACCUMULATE }, { ".NEG_A", MXA_WGMMA_F_NEGATE_A },
		      { ".NEG_B", MXA_WGMMA_F_NEGATE_B }, { ".INTERWAVE", MXA_WGMMA_F_INTERWAVE } },
	  .opnd = { MXA_O_DTYPE(1, 16), MXA_O_DTYPE(1, 0), MXA_O_DTYPE(1, 8), MXA_O_U32(2),
		    MXA_O_RI32H(5, 6, 16), MXA_O_RI32H(3, 6, 0), MXA_O_RI32H(4, 6, 8) } },
	/* the seed's form: TMATMULMX.ACC <LB0:100, LB1:r1, LB2:r2+10, e4m3, e5m2> T#1, U#1,
	 * M#1, N#1, ACC, ->ACC<64KB> */
	MXA_ISA_CMD(TMATMULMX, MXA_TMM_DWORDS), .attrs = MXA_ISA_A_SRAM | MXA_ISA_A_BLOCKING,
	  .flags = MXA_TMM_F_ALL,
	  .suffix = { { ".ACC", MXA_TMM_F_ACC }, { ".INTERWAVE", MXA_TMM_F_INTERWAVE } },
	  .opnd = { MXA_O_KIND(MXA_OPND_TMM) } },
	/* MMA[.ACC][.SATFINITE][.XOR][.TILES] m16n8k16 type_d, type_a, type_b, d, a, b */
	MXA_ISA_CMD(MMA, MXA_MMA_DWORDS), .attrs = MXA_ISA_A_SRAM | MXA_ISA_A_BLOCKING,
	  .flags = MXA_MMA_F_ALL, .tile_flag = MXA_MMA_F_TILES,
	  .suffix = { { ".ACC", MXA_MMA_F_ACCUMULATE }, { ".SATFINITE", MXA_MMA_F_SATFINITE },
		      { ".XOR", MXA_MMA_F_B1_XOR }, { ".TILES", MXA_MMA_F_TILES } },
	  .opnd = { { .kind = MXA_OPND_SHAPE, .dw = 2, .flags = MXA_OPND_F_SPACE },
		    MXA_O_DTYPE(1, 16), MXA_O_DTYPE(1, 0), MXA_O_DTYPE(1, 8),
		    MXA_O_RI32F(5, 6, 16, MXA_OPND_F_TILEABLE),
		    MXA_O_RI32F(3, 6, 0, MXA_OPND_F_TILEABLE),
		    MXA_O_RI32F(4, 6, 8, MXA_OPND_F_TILEABLE) } },
	/* CVT[.SATFINITE][.MX][.RCEIL] dst_type, src_type, n, dst, src[, scales] */
	MXA_ISA_CMD(CVT, MXA_CVT_DWORDS), .attrs = MXA_ISA_A_SRAM | MXA_ISA_A_BLOCKING,
	  .flags = MXA_CVT_F_ALL,
	  .suffix = { { ".SATFINITE", MXA_CVT_F_SATFINITE }, { ".MX", MXA_CVT_F_MX },
		      { ".RCEIL", MXA_CVT_F_RCEIL } },
	  .opnd = { MXA_O_DTYPE(1, 8), MXA_O_DTYPE(1, 0), MXA_O_U32(2), MXA_O_RI32H(4, 6, 8),
		    MXA_O_RI32H(3, 6, 0),
		    { MXA_OPND_RI32, 5, 6, 16, 0, MXA_OPND_F_HEX | MXA_OPND_F_OPTIONAL, 0 } } },
	/* WGMMA_DESC[.TILE_A] type_d, type_a, type_b, n, d, desc_a (or T#1), desc_b */
	MXA_ISA_CMD(WGMMA_DESC, MXA_WGMMA_DESC_DWORDS), .attrs = MXA_ISA_A_SRAM,
	  .flags = MXA_WGMMA_DESC_F_ALL, .tile_flag = MXA_WGMMA_F_TILE_A,
	  .suffix = { { ".ACC", MXA_WGMMA_F_ACCUMULATE }, { ".NEG_A", MXA_WGMMA_F_NEGATE_A },
		      { ".NEG_B", MXA_WGMMA_F_NEGATE_B }, { ".INTERWAVE", MXA_WGMMA_F_INTERWAVE },
		      { ".TRANS_A", MXA_WGMMA_F_TRANS_A }, { ".TRANS_B", MXA_WGMMA_F_TRANS_B },
		      { ".TILE_A", MXA_WGMMA_F_TILE_A } },
	  .opnd = { MXA_O_DTYPE(1, 16), MXA_O_DTYPE(1, 0), MXA_O_DTYPE(1, 8), MXA_O_U32(2),
		    MXA_O_RI32H(7, 8, 16),
		    { MXA_OPND_RI64, 3, 8, 0, 0, MXA_OPND_F_HEX | MXA_OPND_F_TILEABLE, 0 },
		    MXA_O_RI64H(5, 8, 8) } },
	/* the seed's split TMATMULMX: BSTART.CUBE MAMULBMX.ACC, e4m3; B.DATR e5m2;
	 * B.DIM r0, 100, ->LB0; B.IOT T#1, U#1; B.IOT M#1, N#1, last, ACC, ->ACC<64KB> */
	MXA_ISA_CMD(BSTART_CUBE, MXA_BSTART_DWORDS), .attrs = MXA_ISA_A_SRAM | MXA_ISA_A_BLOCK,
	  .flags = MXA_TMM_F_ALL, .text = "BSTART.CUBE",
	  .suffix = { { ".ACC", MXA_TMM_F_ACC }, { ".INTERWAVE", MXA_TMM_F_INTERWAVE } },
	  .opnd = { { MXA_OPND_CUBE, 1, 0, 0, 0, 0, 0xff }, MXA_O_DTYPE(1, 8) } },
	MXA_ISA_CMD(B_DATR, MXA_B_DATR_DWORDS), .attrs = MXA_ISA_A_SRAM | MXA_ISA_A_BLOCK,
	  .text = "B.DATR", .opnd = { MXA_O_DTYPE(1, 0) } },
	MXA_ISA_CMD(B_DIM, MXA_B_DIM_DWORDS), .attrs = MXA_ISA_A_SRAM | MXA_ISA_A_BLOCK,
	  .text = "B.DIM",
	  .opnd = { MXA_O_REG(2, 0), MXA_O_U32(1), { MXA_OPND_LB, 2, 0, 0, 8, 0, 0 } } },
	MXA_ISA_CMD(B_IOT, MXA_B_IOT_DWORDS), .attrs = MXA_ISA_A_SRAM | MXA_ISA_A_BLOCK,
	  .flags = MXA_BIOT_F_LAST, .text = "B.IOT", .opnd = { { .kind = MXA_OPND_IOT, .dw = 1 } } },
};

#endif /* MXA_ISA_TABLE_DEFINE */

#undef MXA_ISA_CMD
#undef MXA_O_U64
#undef MXA_O_U64H
#undef MXA_O_U32
#undef MXA_O_U32H
#undef MXA_O_U32OPT
#undef MXA_O_REG
#undef MXA_O_RI64H
#undef MXA_O_RI32
#undef MXA_O_RI32H
#undef MXA_O_RI32F
#undef MXA_O_DTYPE
#undef MXA_O_KIND
#undef MXA_O_TILE

/* The command of @opcode, or NULL when no command has it. */
static inline const struct mxa_isa_cmd *mxa_isa_lookup(__u32 opcode)
{
	return opcode < MXA_ISA_OPCODES && mxa_isa_cmds[opcode].mnemonic ?
	       &mxa_isa_cmds[opcode] : (const struct mxa_isa_cmd *)0;
}

/* A MXA_OPND_F_TILEABLE operand of @cmd names a tile register under header @hdr. */
static inline int mxa_isa_opnd_is_tile(const struct mxa_isa_cmd *cmd,
				       const struct mxa_isa_opnd *op, __u32 hdr)
{
	return (op->flags & MXA_OPND_F_TILEABLE) && (MXA_CMD_FLAGS(hdr) & cmd->tile_flag);
}

/* The name of @opcode in the text form, or "?" for an opcode that names no command. */
static inline const char *mxa_isa_mnemonic(__u32 opcode)
{
	const struct mxa_isa_cmd *cmd = mxa_isa_lookup(opcode);

	return !cmd ? "?" : cmd->text ? cmd->text : cmd->mnemonic;
}

#endif /* MXA_ISA_TABLE_H */
