/* SPDX-License-Identifier: MIT */
/*
 * libaccel internals: the one table of the text form of the ISA, shared by the assembler
 * (asm.c) and the disassembler (disasm.c). A new command of uapi/mxa_isa.h is one entry
 * of accel_isa_cmds[] in asm.c: its mnemonic, opcode, length, header-flag suffixes and
 * operands, each operand saying where its bits live in the command's dwords.
 */
#ifndef ACCEL_ASM_INTERNAL_H
#define ACCEL_ASM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Internal: hidden in libaccel.so (see accel_internal.h). */
#pragma GCC visibility push(hidden)

enum accel_opk {
	OPK_NONE = 0,
	OPK_U64,	/* 64-bit value at dw, dw + 1 */
	OPK_U32,	/* 32-bit value at dw (masked by mask when set) */
	OPK_REG,	/* register rN: 8 bits at dw >> shift */
	OPK_RI64,	/* value + rN: 64-bit value at dw, register at rdw >> rshift */
	OPK_RI32,	/* value + rN: 32-bit value at dw (& mask), register at rdw >> rshift */
	OPK_RRI64,	/* rA + rB + value: registers at rdw >> rshift, >> rshift + 8 */
	OPK_CLASS,	/* header flags: group class "mma" or "copy" */
	OPK_DTYPE,	/* element type name: 8 bits at dw >> shift */
	OPK_TENSOR,	/* [map, {c0 + rN, ...}]: TMA map VA (dw 1-2), coords 5-9, regs 10 */
	OPK_GEMM,	/* key=value list of struct mxa_isa_gemm (dw 1 ...) */
	OPK_TILE,	/* tile register T#1[.reuse], ACC#2: 16 bits at dw >> shift */
	OPK_SHAPE,	/* MMA shape m16n8k16: MXA_MMA_SHAPE at dw */
	OPK_TMM,	/* TMATMULMX's <LB0:.., LB1:.., LB2:.., ta, tb> T, U, M, N, ACC, ->ACC<size> */
};

#define OPF_HEX		(1u << 0)	/* print the value in hex */
#define OPF_SIGNED	(1u << 1)	/* the value is signed (print -16) */
#define OPF_OPTIONAL	(1u << 2)	/* trailing operand, omitted when zero */
#define OPF_SPACE	(1u << 4)	/* followed by a space, not a comma */
#define OPF_TILEABLE	(1u << 3)	/* OPK_RI32 that is an OPK_TILE with MXA_MMA_F_TILES */

struct accel_isa_operand {
	uint8_t kind;
	uint8_t dw;		/* dword of the value */
	uint8_t rdw, rshift;	/* dword and bit of the register */
	uint8_t shift;		/* bit of OPK_REG / OPK_DTYPE in dw */
	uint8_t flags;		/* OPF_* */
	uint32_t mask;		/* OPK_RI32/U32: bits of dw that hold the value (0 = all) */
};

struct accel_isa_suffix {
	const char *name;	/* ".ACC" */
	uint16_t bit;		/* header flag */
};

#define ACCEL_ISA_MAX_OPS	8
#define ACCEL_ISA_MAX_SUFFIX	4

struct accel_isa_cmd {
	const char *name;
	uint8_t opcode;
	uint8_t dwords;
	struct accel_isa_suffix suffix[ACCEL_ISA_MAX_SUFFIX];
	struct accel_isa_operand op[ACCEL_ISA_MAX_OPS];
};

/* A PTX spelling of a table entry (accel_ptx_aliases[], ends with a NULL ptx). */
struct accel_ptx_alias {
	const char *ptx;	/* "wgmma.wait_group.sync.aligned" */
	const char *target;	/* table entry name: "WAIT_GROUP" */
	int cls;		/* group class the name fixes, or -1 */
	int prefix;		/* more '.' qualifiers may follow */
	int print;		/* the disassembler's PTX spelling of the entry */
};

/* GEMM's key=value operands (accel_gemm_keys[], ends with a NULL name). */
struct accel_gemm_key {
	const char *name;
	size_t offset, size;	/* in struct mxa_isa_gemm */
	int kind;		/* GK_* */
};
enum { GK_INT, GK_HEX, GK_DTYPE, GK_FLAGS, GK_ACCUM, GK_SCHED };

extern const struct accel_isa_cmd accel_isa_cmds[];
extern const struct accel_ptx_alias accel_ptx_aliases[];
extern const struct accel_gemm_key accel_gemm_keys[];
extern const char *const accel_gemm_flag_names[3];
extern const char *const accel_gemm_accum_names[2];
extern const char *const accel_gemm_sched_names[2];
extern const size_t accel_isa_ncmds;

const struct accel_isa_cmd *accel_isa_by_opcode(uint32_t opcode);

/*
 * Assemble one statement (one line, no label) into @dw (room for 256 dwords): the
 * disassembler re-assembles what it printed to prove it exact. Return: dwords, or -1.
 */
int accel_asm_line(const char *line, uint32_t *dw);

/* Tile register classes' names, indexed by class (1..5); NULL where none. */
extern const char *const accel_tile_class_names[8];

/* prog.c: drop what was appended after @len dwords and @commands commands. */
void accel_prog_rewind(struct accel_prog *prog, size_t len, size_t commands);

#pragma GCC visibility pop

#endif /* ACCEL_ASM_INTERNAL_H */
