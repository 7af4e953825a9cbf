/* SPDX-License-Identifier: MIT */
/*
 * libaccel internals shared by the assembler (asm.c) and the disassembler (disasm.c).
 * The commands themselves, with their mnemonics, suffixes and operand fields, are the
 * one table of uapi/mxa_isa_table.h; this file adds the text form's extras: PTX
 * spellings, GEMM's key names and tile class names.
 */
#ifndef ACCEL_ASM_INTERNAL_H
#define ACCEL_ASM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Internal: hidden in libaccel.so (see accel_internal.h). */
#pragma GCC visibility push(hidden)

#include "mxa_isa_table.h"

/* A PTX spelling of a table entry (accel_ptx_aliases[], ends with a NULL ptx). */
struct accel_ptx_alias {
	const char *ptx;	/* "wgmma.wait_group.sync.aligned" */
	__u8 target;		/* the command: MXA_OP_WAIT_GROUP */
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

extern const struct accel_ptx_alias accel_ptx_aliases[];
extern const struct accel_gemm_key accel_gemm_keys[];
extern const char *const accel_gemm_flag_names[3];
extern const char *const accel_gemm_accum_names[2];
extern const char *const accel_gemm_sched_names[2];

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
