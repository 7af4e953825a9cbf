/* SPDX-License-Identifier: MIT */
/*
 * libaccel internals: the assembler's state, tokens, symbols and value expressions
 * (asm_lex.c), shared by the statement and operand parsers of asm.c.
 */
#ifndef ACCEL_ASM_LEX_H
#define ACCEL_ASM_LEX_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "accel.h"

#pragma GCC visibility push(hidden)

struct asm_sym {
	char *name;
	uint64_t value;
};

struct asm_loop {
	int line, col;
	char label[64];
};

struct asm_ctx {
	const struct accel_asm_opts *opts;
	int pass;			/* 1: sizes and symbols; 2: encode */
	struct accel_prog *prog;	/* pass 2 output, or NULL (accel_asm_line) */
	uint32_t offset;		/* bytes emitted so far */

	struct asm_sym *syms;
	size_t nsyms, cap;
	struct asm_loop loops[MXA_LOOP_MAX_DEPTH + 1];
	int depth;

	const char *p, *line_start;
	int line;
	char label[64];			/* label of the current line, "" if none */

	uint32_t dw[256];		/* the current statement */
	size_t ndw;
	int is_command;			/* counts as a command (vs .dword) */

	char *err;
	size_t err_len;
	jmp_buf fail;
};

struct asm_expr {
	uint64_t imm;
	int nreg;
	uint8_t reg[2];
	const char *at;
};

/* Fail the statement: "FILE:LINE:COL: message" in the caller's buffer, then longjmp. */
void __attribute__((noreturn, format(printf, 3, 4)))
asm_fail(struct asm_ctx *c, const char *at, const char *fmt, ...);
int asm_at_comment(const char *p);
void asm_skip_ws(struct asm_ctx *c);
int asm_at_end(struct asm_ctx *c);
int asm_tok_accept(struct asm_ctx *c, char ch);
const char *asm_tok_text(const char *p);
void asm_expect(struct asm_ctx *c, char ch);
int asm_ident_start(char ch);
int asm_ident_char(char ch);
size_t asm_ident_len(struct asm_ctx *c);
int asm_reg_number(const char *s, size_t n);
struct asm_sym *asm_sym_find(struct asm_ctx *c, const char *name, size_t n);
void asm_sym_define(struct asm_ctx *c, const char *at, const char *name, size_t n,
		    uint64_t value, int is_label);
uint64_t asm_parse_number(struct asm_ctx *c);
void asm_parse_expr(struct asm_ctx *c, int max_regs, struct asm_expr *e);
void asm_check_u32(struct asm_ctx *c, const struct asm_expr *e, int is_signed);
void asm_put_reg(struct asm_ctx *c, uint8_t dw, uint8_t shift, uint8_t reg);

#pragma GCC visibility pop

#endif /* ACCEL_ASM_LEX_H */
