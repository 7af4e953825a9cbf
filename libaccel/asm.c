// SPDX-License-Identifier: MIT
/*
 * libaccel: the text assembler (the commands are the table of uapi/mxa_isa_table.h).
 *
 * DOC: syntax (Documentation/libaccel.rst, "Assembler")
 *
 * One statement per line; ';' or '//' start a comment (so PTX's trailing ';' is fine).
 *
 *   label:                      the byte offset of the next command
 *   MNEMONIC[.SUFFIX...] operand, operand, ...
 *   .dword v, v, ...            raw dwords (anything the table cannot express)
 *   .equ NAME, value            a constant (also .set)
 *   .buffer NAME, size          a buffer, allocated by the caller (accel-run)
 *   .tmap NAME, addr=V, elem=N, dims={..}, box={..}[, strides={..}][, swizzle=N][, oob=nan]
 *                               a TMA tensor map, written to device memory by the caller
 *
 * Values are sums of numbers (decimal, 0x.., 0b.., with an optional K/M suffix), symbols
 * and, where the command has a register operand, one register r0..r31 (a0..a31 is the
 * seed's spelling of the same registers): "r3+0x800", "r1-16". Mnemonics come from the
 * table of uapi/mxa_isa_table.h (mxa_isa_cmds[]), or are the PTX forms of the seeds, mapped to MXA
 * commands: wgmma.commit_group.sync.aligned, wgmma.wait_group.sync.aligned N,
 * cp.async[.bulk].commit_group, cp.async[.bulk].wait_group N, mbarrier.init,
 * mbarrier.arrive.expect_tx, mbarrier.expect_tx, mbarrier.try_wait.parity,
 * cp.async.bulk.tensor (load or store), wgmma.fence.sync.aligned (FENCE). The seed's
 * TMATMULMX[.ACC] <LB0:.., LB1:.., LB2:.., ta, tb> form is a command of the table.
 */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel_internal.h"
#define MXA_ISA_TABLE_DEFINE
#include "asm_internal.h"
#include "asm_lex.h"
#include "mxa_isa.h"

const char *const accel_tile_class_names[8] = { NULL, "T", "U", "M", "N", "ACC" };

static const struct mxa_isa_cmd *accel_isa_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < MXA_ISA_OPCODES; i++)
		if (mxa_isa_cmds[i].mnemonic && strlen(mxa_isa_cmds[i].mnemonic) == len &&
		    !strncasecmp(mxa_isa_cmds[i].mnemonic, name, len))
			return &mxa_isa_cmds[i];
	return NULL;
}

/*
 * The seeds' PTX forms. @target names the table entry (a name the table lacks means
 * the device ISA has no such command); @cls fixes the group class (-1: none);
 * @prefix: the PTX name may go on with more '.' qualifiers (".shared::cta.b64").
 */
const struct accel_ptx_alias accel_ptx_aliases[] = {
	{ "wgmma.fence.sync.aligned", MXA_OP_FENCE, -1, 0, 1 },
	{ "wgmma.commit_group.sync.aligned", MXA_OP_COMMIT_GROUP, MXA_GROUP_MMA, 0, 1 },
	{ "wgmma.wait_group.sync.aligned", MXA_OP_WAIT_GROUP, MXA_GROUP_MMA, 0, 1 },
	{ "cp.async.bulk.commit_group", MXA_OP_COMMIT_GROUP, MXA_GROUP_COPY, 0, 1 },
	{ "cp.async.bulk.wait_group", MXA_OP_WAIT_GROUP, MXA_GROUP_COPY, 0, 1 },
	{ "cp.async.commit_group", MXA_OP_COMMIT_GROUP, MXA_GROUP_COPY, 0, 0 },
	{ "cp.async.wait_group", MXA_OP_WAIT_GROUP, MXA_GROUP_COPY, 0, 0 },
	{ "mbarrier.init", MXA_OP_MBAR_INIT, -1, 1, 1 },
	{ "mbarrier.arrive.expect_tx", MXA_OP_MBAR_ARRIVE, -1, 1, 1 },
	{ "mbarrier.expect_tx", MXA_OP_MBAR_EXPECT_TX, -1, 1, 1 },
	{ "mbarrier.complete_tx", MXA_OP_MBAR_COMPLETE_TX, -1, 1, 1 },
	{ "mbarrier.try_wait.parity", MXA_OP_MBAR_WAIT, -1, 1, 1 },
	{ "barrier.cluster.arrive", MXA_OP_CLUSTER_ARRIVE, -1, 0, 1 },
	{ "barrier.cluster.arrive.release", MXA_OP_CLUSTER_ARRIVE, -1, 0, 0 },
	{ "barrier.cluster.wait", MXA_OP_CLUSTER_WAIT, -1, 0, 1 },
	{ "barrier.cluster.wait.acquire", MXA_OP_CLUSTER_WAIT, -1, 0, 0 },
	{ NULL },
};

static int parse_dtype(struct asm_ctx *c)
{
	const char *t = c->p;
	size_t n = asm_ident_len(c);

	t = c->p;
	for (int i = 0; n && i < MXA_DTYPE_COUNT; i++) {
		const char *name = accel_dtype_name(i);

		if (strlen(name) == n && !strncasecmp(name, t, n)) {
			c->p += n;
			return i;
		}
	}
	asm_fail(c, t, "expected an element type (f32, f16, bf16, e4m3, ...), found %s",
		 asm_tok_text(t));
}

static void parse_tensor(struct asm_ctx *c)
{
	struct asm_expr e;
	int d = 0;

	asm_expect(c, '[');
	asm_parse_expr(c, 0, &e);
	if (e.imm & 63)
		asm_fail(c, e.at, "tensor map address must be 64-byte aligned");
	c->dw[1] = (uint32_t)e.imm;
	c->dw[2] = (uint32_t)(e.imm >> 32);
	asm_expect(c, ',');
	asm_expect(c, '{');
	do {
		if (d == MXA_TMA_MAX_RANK)
			asm_fail(c, c->p, "at most %d coordinates", MXA_TMA_MAX_RANK);
		asm_parse_expr(c, 1, &e);
		asm_check_u32(c, &e, 1);
		c->dw[5 + d] = (uint32_t)e.imm;
		if (e.nreg && e.reg[0] >= MXA_NUM_GPRS)
			asm_fail(c, e.at, "a TMA coordinate register is r0..r%d", MXA_NUM_GPRS - 1);
		if (e.nreg)
			c->dw[10] |= (uint32_t)e.reg[0] << (5 * d);
		d++;
	} while (asm_tok_accept(c, ','));
	asm_expect(c, '}');
	asm_expect(c, ']');
}

/* GEMM's operands: key=value, the fields of struct mxa_isa_gemm. */
#define GF(name, field, kind) \
	{ #name, offsetof(struct mxa_isa_gemm, field), sizeof(((struct mxa_isa_gemm *)0)->field), kind }
const struct accel_gemm_key accel_gemm_keys[] = {
	GF(m, m, GK_INT), GF(n, n, GK_INT), GF(k, k, GK_INT),
	GF(type_a, type_a, GK_DTYPE), GF(type_b, type_b, GK_DTYPE),
	GF(type_c, type_c, GK_DTYPE), GF(type_d, type_d, GK_DTYPE),
	GF(a, a, GK_HEX), GF(b, b, GK_HEX), GF(c, c, GK_HEX), GF(d, d, GK_HEX),
	GF(scale_a, scale_a, GK_HEX), GF(scale_b, scale_b, GK_HEX),
	GF(scale_block, scale_block, GK_INT), GF(flags, flags, GK_FLAGS),
	GF(lda, lda, GK_INT), GF(ldb, ldb, GK_INT), GF(ldc, ldc, GK_INT), GF(ldd, ldd, GK_INT),
	GF(ld_scale_a, ld_scale_a, GK_INT), GF(ld_scale_b, ld_scale_b, GK_INT),
	GF(accum, accum, GK_ACCUM), GF(sched, sched, GK_SCHED),
	{ NULL },
};
const char *const accel_gemm_flag_names[3] = { "acc", "satfinite", "b_kn" };
const char *const accel_gemm_accum_names[2] = { "exact", "fast" };
const char *const accel_gemm_sched_names[2] = { "intrawave", "interwave" };

static int parse_name(struct asm_ctx *c, const char *const *names, int count, const char *what)
{
	const char *t;
	size_t n = asm_ident_len(c);

	t = c->p;
	for (int i = 0; n && i < count; i++) {
		if (strlen(names[i]) == n && !strncasecmp(names[i], t, n)) {
			c->p += n;
			return i;
		}
	}
	if (isdigit((unsigned char)*t))
		return (int)asm_parse_number(c);
	asm_fail(c, t, "expected %s, found %s", what, asm_tok_text(t));
}

static void parse_gemm(struct asm_ctx *c)
{
	uint8_t raw[sizeof(struct mxa_isa_gemm)] = { 0 };
	uint32_t seen = 0;

	while (!asm_at_end(c)) {
		const char *t = c->p;
		size_t n = asm_ident_len(c);
		const struct accel_gemm_key *k;
		uint64_t v = 0;

		for (k = accel_gemm_keys; k->name; k++)
			if (n && strlen(k->name) == n && !strncmp(k->name, t, n))
				break;
		if (!k->name)
			asm_fail(c, t, "expected a GEMM field (m=, n=, k=, type_a=, a=, ...), found %s",
				 asm_tok_text(t));
		if (seen & (1u << (k - accel_gemm_keys)))
			asm_fail(c, t, "%s given twice", k->name);
		seen |= 1u << (k - accel_gemm_keys);
		c->p += n;
		asm_expect(c, '=');
		asm_skip_ws(c);
		switch (k->kind) {
		case GK_DTYPE:
			v = parse_dtype(c);
			break;
		case GK_ACCUM:
			v = parse_name(c, accel_gemm_accum_names, 2, "exact or fast");
			break;
		case GK_SCHED:
			v = parse_name(c, accel_gemm_sched_names, 2, "intrawave or interwave");
			break;
		case GK_FLAGS:
			do {
				asm_skip_ws(c);
				if (isdigit((unsigned char)*c->p))
					v |= asm_parse_number(c);
				else
					v |= 1u << parse_name(c, accel_gemm_flag_names, 3,
							      "acc, satfinite or b_kn");
			} while (asm_tok_accept(c, '|'));
			break;
		default: {
			struct asm_expr e;

			asm_parse_expr(c, 0, &e);
			if (k->size == 4)
				asm_check_u32(c, &e, 0);
			v = e.imm;
		}
		}
		memcpy(raw + k->offset, &v, k->size);	/* little-endian host */
		if (!asm_tok_accept(c, ','))
			break;
	}
	memcpy(&c->dw[1], raw, sizeof(raw));
}

/* T#1[.reuse], ACC#2, ACC (= ACC#0): the 16-bit tile operand; @cls_out its class. */
static uint32_t parse_tile(struct asm_ctx *c)
{
	const char *t;
	size_t n;
	int cls;

	asm_skip_ws(c);
	t = c->p;
	for (n = 0; isalpha((unsigned char)t[n]); n++)
		;
	for (cls = 1; cls < 8 && accel_tile_class_names[cls]; cls++)
		if (strlen(accel_tile_class_names[cls]) == n &&
		    !strncasecmp(accel_tile_class_names[cls], t, n))
			break;
	if (!n || cls == 8 || !accel_tile_class_names[cls])
		asm_fail(c, t, "expected a tile register (T#n, U#n, M#n, N#n, ACC#n), found %s",
			 asm_tok_text(t));
	c->p += n;
	uint32_t tile = (uint32_t)cls << 8;

	if (*c->p == '#') {
		c->p++;
		if (!isdigit((unsigned char)*c->p))
			asm_fail(c, c->p, "expected a tile register number");
		uint64_t idx = asm_parse_number(c);

		if (idx > 0xff)
			asm_fail(c, t, "tile register number too large");
		tile |= (uint32_t)idx;
	} else if (strcmp(accel_tile_class_names[cls], "ACC")) {
		asm_fail(c, c->p, "expected '#' and the tile register number");
	}
	if (!strncasecmp(c->p, ".reuse", 6) && !asm_ident_char(c->p[6])) {
		c->p += 6;
		tile |= 0x8000u;
	}
	return tile;
}

/* m16n8k16 */
static uint32_t parse_shape(struct asm_ctx *c)
{
	unsigned m, n, k;
	int len = 0;

	asm_skip_ws(c);
	if (sscanf(c->p, "m%un%uk%u%n", &m, &n, &k, &len) != 3 || !len || asm_ident_char(c->p[len]) ||
	    m > 255 || n > 255 || k > 0xffff)
		asm_fail(c, c->p, "expected a shape mMnNkK (m16n8k16), found %s", asm_tok_text(c->p));
	c->p += len;
	return m | n << 8 | k << 16;
}

/* "->ACC<size>" after the ACC tile @acc: the size. */
static uint32_t parse_acc_dest(struct asm_ctx *c, uint32_t acc)
{
	struct asm_expr e;

	asm_skip_ws(c);
	if (strncmp(c->p, "->", 2))
		asm_fail(c, c->p, "expected ->ACC<size>");
	c->p += 2;
	if (parse_tile(c) != acc)
		asm_fail(c, c->p, "the destination must be the ACC tile named before it");
	asm_expect(c, '<');
	asm_skip_ws(c);
	e.at = c->p;
	e.imm = asm_parse_number(c);
	asm_check_u32(c, &e, 0);
	asm_expect(c, '>');
	return (uint32_t)e.imm;
}

/* <LB0:m, LB1:n, LB2:k, ta[, tb]> T#a, [U#b,] M#c, [N#d,] ACC#e, ->ACC#e<size> */
static void parse_tmm(struct asm_ctx *c)
{
	uint32_t tiles[4] = { 0 }, acc;
	struct asm_expr e;
	int i, last = -1, ta;

	asm_expect(c, '<');
	for (i = 0; i < 3; i++) {
		asm_skip_ws(c);
		if (strncasecmp(c->p, "LB", 2) || c->p[2] != '0' + i)
			asm_fail(c, c->p, "expected LB%d:", i);
		c->p += 3;
		asm_expect(c, ':');
		asm_parse_expr(c, 1, &e);
		asm_check_u32(c, &e, 0);
		c->dw[2 + i] = (uint32_t)e.imm;
		if (e.nreg)
			c->dw[5] |= (uint32_t)e.reg[0] << (8 * i);
		asm_expect(c, ',');
	}
	asm_skip_ws(c);
	ta = parse_dtype(c);
	c->dw[1] = ta | ta << 8;
	if (asm_tok_accept(c, ',')) {
		asm_skip_ws(c);
		c->dw[1] = ta | parse_dtype(c) << 8;
	}
	asm_expect(c, '>');
	asm_tok_accept(c, ',');
	for (;;) {
		const char *t;
		uint32_t tile;
		int cls;

		asm_skip_ws(c);
		t = c->p;
		tile = parse_tile(c);
		cls = (tile >> 8) & 0x7f;
		asm_expect(c, ',');
		if (cls == 5) {		/* ACC: the sources are done */
			acc = tile;
			break;
		}
		if (cls - 1 <= last)
			asm_fail(c, t, "source tiles go in the order T, U, M, N");
		last = cls - 1;
		tiles[cls - 1] = tile;
	}
	if (!tiles[0] || !tiles[2])
		asm_fail(c, c->p, "TMATMULMX needs a T tile (A) and an M tile (B)");
	c->dw[6] = tiles[0] | tiles[1] << 16;
	c->dw[7] = tiles[2] | tiles[3] << 16;
	c->dw[8] = acc;
	c->dw[9] = parse_acc_dest(c, acc);
}

/* B.IOT's tile[, tile][, last, ACC, ->ACC<size>] into dw 1-3 and the LAST flag. */
static void parse_iot(struct asm_ctx *c)
{
	uint32_t tiles[2] = { parse_tile(c), 0 };

	if (asm_tok_accept(c, ',')) {
		asm_skip_ws(c);
		if (strncasecmp(c->p, "last", 4) || asm_ident_char(c->p[4])) {
			tiles[1] = parse_tile(c);
			if (!asm_tok_accept(c, ','))
				goto done;
			asm_skip_ws(c);
		}
		if (strncasecmp(c->p, "last", 4) || asm_ident_char(c->p[4]))
			asm_fail(c, c->p, "expected 'last, ACC, ->ACC<size>', found %s",
				 asm_tok_text(c->p));
		c->p += 4;
		c->dw[0] |= MXA_CMD_HEADER(0, 0, MXA_BIOT_F_LAST);
		asm_expect(c, ',');
		c->dw[2] = parse_tile(c);
		asm_expect(c, ',');
		c->dw[3] = parse_acc_dest(c, c->dw[2]);
	}
done:
	c->dw[1] = tiles[0] | tiles[1] << 16;
}

/* BSTART.CUBE's instruction: MAMULBMX and the command's suffixes. */
static void parse_cube(struct asm_ctx *c, const struct mxa_isa_cmd *cmd, unsigned dw)
{
	const char *t = c->p, *end, *dot;
	size_t n = asm_ident_len(c);

	t = c->p;
	end = t + n;
	if (n < 8 || strncasecmp(t, "MAMULBMX", 8) || (n > 8 && t[8] != '.'))
		asm_fail(c, t, "expected the instruction MAMULBMX, found %s", asm_tok_text(t));
	c->dw[dw] |= MXA_CUBE_MAMULBMX;
	for (dot = t + 8; dot < end;) {
		const char *next = memchr(dot + 1, '.', end - dot - 1);
		size_t sl = (next ? next : end) - dot;
		int i;

		for (i = 0; i < MXA_ISA_MAX_SUFFIXES && cmd->suffix[i].name; i++)
			if (strlen(cmd->suffix[i].name) == sl && !strncasecmp(cmd->suffix[i].name, dot, sl))
				break;
		if (i == MXA_ISA_MAX_SUFFIXES || !cmd->suffix[i].name)
			asm_fail(c, dot, "MAMULBMX has no suffix %.*s", (int)sl, dot);
		c->dw[0] |= MXA_CMD_HEADER(0, 0, cmd->suffix[i].bit);
		dot = next ? next : end;
	}
	c->p = end;
}

static void parse_operand(struct asm_ctx *c, const struct mxa_isa_cmd *cmd,
			  const struct mxa_isa_opnd *op)
{
	struct asm_expr e;

	asm_skip_ws(c);
	if (mxa_isa_opnd_is_tile(cmd, op, c->dw[0])) {
		c->dw[op->dw] = parse_tile(c);
		return;
	}
	switch (op->kind) {
	case MXA_OPND_U64:
		asm_parse_expr(c, 0, &e);
		c->dw[op->dw] = (uint32_t)e.imm;
		c->dw[op->dw + 1] = (uint32_t)(e.imm >> 32);
		break;
	case MXA_OPND_U32:
		asm_parse_expr(c, 0, &e);
		asm_check_u32(c, &e, op->flags & MXA_OPND_F_SIGNED);
		if (op->mask && (((uint64_t)(uint32_t)e.imm << op->shift) & ~(uint64_t)op->mask))
			asm_fail(c, e.at, "value out of range (at most %u)", op->mask >> op->shift);
		c->dw[op->dw] |= (uint32_t)e.imm << op->shift;
		break;
	case MXA_OPND_REG: {
		const char *t = c->p;
		size_t n = asm_ident_len(c);
		int r = asm_reg_number(t, n);

		if (r < 0)
			asm_fail(c, t, "expected a register r0..r%d or a0..a%d, found %s",
				 MXA_NUM_GPRS - 1, MXA_NUM_GPRS - 1, asm_tok_text(t));
		if (r >= MXA_NUM_REGS)
			asm_fail(c, t, "no register %.*s (r0..r%d, a0..a%d)", (int)n, t,
				 MXA_NUM_GPRS - 1, MXA_NUM_GPRS - 1);
		c->p += n;
		asm_put_reg(c, op->dw, op->shift, r);
		break;
	}
	case MXA_OPND_RI64:
	case MXA_OPND_RRI64:
		asm_parse_expr(c, op->kind == MXA_OPND_RRI64 ? 2 : 1, &e);
		c->dw[op->dw] = (uint32_t)e.imm;
		c->dw[op->dw + 1] = (uint32_t)(e.imm >> 32);
		for (int i = 0; i < e.nreg; i++)
			asm_put_reg(c, op->rdw, op->rshift + 8 * i, e.reg[i]);
		break;
	case MXA_OPND_TILE:
		c->dw[op->dw] |= parse_tile(c) << op->shift;
		break;
	case MXA_OPND_SHAPE:
		c->dw[op->dw] = parse_shape(c);
		break;
	case MXA_OPND_TMM:
		parse_tmm(c);
		break;
	case MXA_OPND_CUBE:
		parse_cube(c, cmd, op->dw);
		break;
	case MXA_OPND_IOT:
		parse_iot(c);
		break;
	case MXA_OPND_LB:
		asm_skip_ws(c);
		if (strncmp(c->p, "->", 2) || strncasecmp(c->p + 2, "LB", 2) || c->p[4] < '0' ||
		    c->p[4] > '2' || asm_ident_char(c->p[5]))
			asm_fail(c, c->p, "expected ->LB0, ->LB1 or ->LB2, found %s", asm_tok_text(c->p));
		c->dw[op->dw] |= (uint32_t)(c->p[4] - '0') << op->shift;
		c->p += 5;
		break;
	case MXA_OPND_RI32:
		asm_parse_expr(c, 1, &e);
		asm_check_u32(c, &e, op->flags & MXA_OPND_F_SIGNED);
		if (op->mask && ((uint32_t)e.imm & ~op->mask))
			asm_fail(c, e.at, "value out of range (at most %u)", op->mask);
		c->dw[op->dw] |= (uint32_t)e.imm;
		if (e.nreg)
			asm_put_reg(c, op->rdw, op->rshift, e.reg[0]);
		break;
	case MXA_OPND_CLASS: {
		static const char *const classes[] = { "mma", "copy" };

		c->dw[0] |= MXA_CMD_HEADER(0, 0, parse_name(c, classes, 2, "a class (mma or copy)"));
		break;
	}
	case MXA_OPND_DTYPE:
		asm_put_reg(c, op->dw, op->shift, parse_dtype(c));
		break;
	case MXA_OPND_SREG:
		asm_skip_ws(c);
		if (*c->p != '%')
			asm_fail(c, c->p, "expected a special register (%%ctaid.x, %%cluster_ctarank, "
				 "...), found %s", asm_tok_text(c->p));
		c->p++;
		asm_put_reg(c, op->dw, op->shift,
			    parse_name(c, mxa_sreg_names, MXA_SREG_COUNT,
				       "a special register (%ctaid.x, %cluster_ctarank, ...)"));
		break;
	case MXA_OPND_TENSOR:
		parse_tensor(c);
		break;
	case MXA_OPND_GEMM:
		parse_gemm(c);
		break;
	}
}

/* The operands of @cmd; @skip_class: the class comes from a PTX name. */
static void parse_operands(struct asm_ctx *c, const struct mxa_isa_cmd *cmd, int skip_class)
{
	int first = 1, space = 0;

	for (int i = 0; i < MXA_ISA_MAX_OPNDS && cmd->opnd[i].kind; i++) {
		const struct mxa_isa_opnd *op = &cmd->opnd[i];

		if (op->kind == MXA_OPND_CLASS && skip_class)
			continue;
		if ((op->flags & MXA_OPND_F_OPTIONAL) && asm_at_end(c))
			break;
		if (!first && !space)
			asm_expect(c, ',');
		first = 0;
		space = op->flags & MXA_OPND_F_SPACE;
		if (asm_at_end(c))
			asm_fail(c, c->p, "%s: missing operand", cmd->mnemonic);
		parse_operand(c, cmd, op);
	}
}

static void emit_header(struct asm_ctx *c, const struct mxa_isa_cmd *cmd, uint32_t flags)
{
	memset(c->dw, 0, cmd->dwords * sizeof(uint32_t));
	c->dw[0] = MXA_CMD_HEADER(cmd->opcode, cmd->dwords, flags);
	c->ndw = cmd->dwords;
	c->is_command = 1;
}

static void loop_bookkeeping(struct asm_ctx *c, const struct mxa_isa_cmd *cmd, const char *mn)
{
	if (cmd->opcode == MXA_OP_LOOP) {
		if (c->depth == MXA_LOOP_MAX_DEPTH)
			asm_fail(c, mn, "LOOP nested deeper than %d", MXA_LOOP_MAX_DEPTH);
		c->loops[c->depth].line = c->line;
		c->loops[c->depth].col = (int)(mn - c->line_start) + 1;
		snprintf(c->loops[c->depth].label, sizeof(c->loops[0].label), "%s", c->label);
		c->depth++;
	} else if (cmd->opcode == MXA_OP_ENDLOOP) {
		size_t n;

		if (!c->depth)
			asm_fail(c, mn, "ENDLOOP without LOOP");
		c->depth--;
		if ((n = asm_ident_len(c))) {	/* ENDLOOP label: must close that LOOP */
			const char *l = c->loops[c->depth].label;

			if (strlen(l) != n || strncmp(l, c->p, n))
				asm_fail(c, c->p, "ENDLOOP %.*s closes the LOOP %s%s%s of line %d", (int)n,
					 c->p, *l ? "'" : "(unlabelled)", l, *l ? "'" : "",
					 c->loops[c->depth].line);
			c->p += n;
		}
	}
}

static int mnemonic_is(const char *mn, size_t n, const char *name, int prefix)
{
	size_t len = strlen(name);

	if (n < len || strncasecmp(mn, name, len))
		return 0;
	return n == len || (prefix && mn[len] == '.');
}

static void parse_ptx_tensor(struct asm_ctx *c, const char *mn, size_t n)
{
	char buf[160];
	int store;

	snprintf(buf, sizeof(buf), "%.*s", (int)n, mn);
	store = strstr(buf, ".global.shared") != NULL;
	if (!store && !strstr(buf, ".shared::cluster.global") && !strstr(buf, ".shared::cta.global") &&
	    !strstr(buf, ".shared.global"))
		asm_fail(c, mn, "cp.async.bulk.tensor: expected .shared::cluster.global (load) or "
			 ".global.shared::cta (store)");
	if (!store && !strstr(buf, "mbarrier::complete_tx::bytes"))
		asm_fail(c, mn, "cp.async.bulk.tensor load: only .mbarrier::complete_tx::bytes");
	{
		const struct mxa_isa_cmd *cmd = mxa_isa_lookup(store ? MXA_OP_TMA_STORE :
								      MXA_OP_TMA_LOAD);

		emit_header(c, cmd, 0);
		parse_operands(c, cmd, 0);
	}
}

static void parse_directive(struct asm_ctx *c);

static void parse_statement(struct asm_ctx *c)
{
	const struct mxa_isa_cmd *cmd = NULL;
	const struct accel_ptx_alias *al;
	const char *mn, *dot;
	size_t n, base;
	uint32_t flags = 0;

	c->ndw = 0;
	c->is_command = 0;
	c->label[0] = 0;
	if (asm_at_end(c))
		return;
	/* label: */
	n = asm_ident_len(c);
	if (n) {
		const char *q = c->p + n;

		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == ':' && q[1] != ':') {
			if (n >= sizeof(c->label))
				asm_fail(c, c->p, "label too long");
			if (c->pass == 1)
				asm_sym_define(c, c->p, c->p, n, c->offset, 1);
			snprintf(c->label, sizeof(c->label), "%.*s", (int)n, c->p);
			c->p = q + 1;
			if (asm_at_end(c))
				return;
		}
	}
	asm_skip_ws(c);
	if (*c->p == '.') {
		parse_directive(c);
		goto done;
	}
	mn = c->p;
	n = 0;
	while (asm_ident_char(mn[n]) || (mn[n] == ':' && mn[n + 1] == ':') ||
	       (mn[n] == ':' && n && mn[n - 1] == ':'))
		n++;
	if (!n)
		asm_fail(c, mn, "expected a command, found %s", asm_tok_text(mn));
	c->p += n;

	for (al = accel_ptx_aliases; al->ptx; al++) {
		if (!mnemonic_is(mn, n, al->ptx, al->prefix))
			continue;
		cmd = mxa_isa_lookup(al->target);
		emit_header(c, cmd, al->cls >= 0 ? (uint32_t)al->cls : 0);
		parse_operands(c, cmd, al->cls >= 0);
		goto done;
	}
	if (mnemonic_is(mn, n, "cp.async.bulk.tensor", 1)) {
		parse_ptx_tensor(c, mn, n);
		goto done;
	}
	for (size_t i = 0; i < MXA_ISA_OPCODES; i++) {
		const struct mxa_isa_cmd *sp = &mxa_isa_cmds[i];

		if (sp->text && mnemonic_is(mn, n, sp->text, 0)) {	/* the seed's B.DIM */
			emit_header(c, sp, 0);
			parse_operands(c, sp, 0);
			goto done;
		}
	}
	dot = memchr(mn, '.', n);
	base = dot ? (size_t)(dot - mn) : n;
	cmd = accel_isa_by_name(mn, base);
	if (!cmd)
		asm_fail(c, mn, "unknown command '%.*s'", (int)n, mn);
	while (dot && dot < mn + n) {
		const char *end = memchr(dot + 1, '.', mn + n - dot - 1);
		size_t sl = (end ? end : mn + n) - dot;
		int i;

		for (i = 0; i < MXA_ISA_MAX_SUFFIXES && cmd->suffix[i].name; i++)
			if (strlen(cmd->suffix[i].name) == sl &&
			    !strncasecmp(cmd->suffix[i].name, dot, sl))
				break;
		if (i == MXA_ISA_MAX_SUFFIXES || !cmd->suffix[i].name)
			asm_fail(c, dot, "%s has no suffix %.*s", cmd->mnemonic, (int)sl, dot);
		flags |= cmd->suffix[i].bit;
		dot = end;
	}
	emit_header(c, cmd, flags);
	parse_operands(c, cmd, 0);
	loop_bookkeeping(c, cmd, mn);
done:
	if (!asm_at_end(c))
		asm_fail(c, c->p, "unexpected %s", asm_tok_text(c->p));
}

/* { v, v, ... } */
static int parse_list(struct asm_ctx *c, uint64_t *v, int max)
{
	struct asm_expr e;
	int n = 0;

	asm_expect(c, '{');
	do {
		if (n == max)
			asm_fail(c, c->p, "at most %d values", max);
		asm_parse_expr(c, 0, &e);
		v[n++] = e.imm;
	} while (asm_tok_accept(c, ','));
	asm_expect(c, '}');
	return n;
}

static void parse_tmap(struct asm_ctx *c, const char *name, size_t nlen)
{
	struct mxa_tensor_map m = { 0 };
	uint64_t dims[5], box[5], strides[4], v;
	int ndims = 0, nbox = 0, nstrides = -1;
	char sym[128];

	while (asm_tok_accept(c, ',')) {
		const char *t;
		size_t n = asm_ident_len(c);
		struct asm_expr e;

		t = c->p;
		c->p += n;
		asm_expect(c, '=');
		asm_skip_ws(c);
		if (n == 4 && !strncmp(t, "dims", 4)) {
			ndims = parse_list(c, dims, 5);
		} else if (n == 3 && !strncmp(t, "box", 3)) {
			nbox = parse_list(c, box, 5);
		} else if (n == 7 && !strncmp(t, "strides", 7)) {
			nstrides = parse_list(c, strides, 4);
		} else if (n == 3 && !strncmp(t, "oob", 3)) {
			static const char *const oob[] = { "zero", "nan" };

			m.oob_fill = parse_name(c, oob, 2, "zero or nan");
		} else if ((n == 4 && !strncmp(t, "addr", 4)) || (n == 4 && !strncmp(t, "elem", 4)) ||
			   (n == 7 && !strncmp(t, "swizzle", 7))) {
			asm_parse_expr(c, 0, &e);
			v = e.imm;
			if (t[0] == 'a')
				m.global_addr = v;
			else if (t[0] == 'e')
				m.elem_bytes = (uint8_t)v;
			else if (v == 0 || v == 32 || v == 64 || v == 128)
				m.swizzle = v == 0 ? 0 : v == 32 ? 1 : v == 64 ? 2 : 3;
			else
				asm_fail(c, e.at, "swizzle is 0, 32, 64 or 128 (bytes)");
		} else {
			asm_fail(c, t, "expected addr=, elem=, dims=, box=, strides=, swizzle= or oob=");
		}
	}
	if (!ndims || ndims != nbox || !m.elem_bytes)
		asm_fail(c, c->p, ".tmap needs elem=, and dims= and box= of the same rank");
	if (nstrides >= 0 && nstrides != ndims - 1)
		asm_fail(c, c->p, ".tmap: strides= has rank - 1 values");
	m.rank = ndims;
	v = m.elem_bytes;
	for (int d = 0; d < 5; d++) {
		m.dims[d] = d < ndims ? (uint32_t)dims[d] : 1;
		m.box[d] = d < ndims ? (uint32_t)box[d] : 1;
		if (d && d < ndims)
			m.strides[d - 1] = nstrides >= 0 ? strides[d - 1] : v;
		v *= m.dims[d];
	}
	if (c->pass == 1) {
		uint64_t va = 0;
		int ret;

		if (!c->opts || !c->opts->tensor_map)
			asm_fail(c, name, ".tmap: no tensor maps here (accel-run provides them)");
		snprintf(sym, sizeof(sym), "%.*s", (int)nlen, name);
		ret = c->opts->tensor_map(c->opts->arg, sym, &m, &va);
		if (ret)
			asm_fail(c, name, ".tmap %s: %s", sym, accel_strerror(ret));
		asm_sym_define(c, name, name, nlen, va, 0);
	}
}

static void parse_directive(struct asm_ctx *c)
{
	const char *d = c->p;
	size_t n = 1;
	struct asm_expr e;

	while (asm_ident_char(d[n]))
		n++;
	c->p += n;
	if (n == 6 && !strncmp(d, ".dword", 6)) {
		do {
			if (c->ndw == sizeof(c->dw) / sizeof(c->dw[0]))
				asm_fail(c, c->p, "too many dwords on one line");
			asm_parse_expr(c, 0, &e);
			asm_check_u32(c, &e, 1);
			c->dw[c->ndw++] = (uint32_t)e.imm;
		} while (asm_tok_accept(c, ','));
		return;
	}
	if ((n == 4 && !strncmp(d, ".equ", 4)) || (n == 4 && !strncmp(d, ".set", 4)) ||
	    (n == 7 && !strncmp(d, ".buffer", 7)) || (n == 5 && !strncmp(d, ".tmap", 5))) {
		const char *name;
		size_t nl = asm_ident_len(c);

		name = c->p;
		if (!nl)
			asm_fail(c, c->p, "%.*s: expected a name", (int)n, d);
		c->p += nl;
		if (d[1] == 't') {
			parse_tmap(c, name, nl);
			return;
		}
		asm_expect(c, ',');
		asm_parse_expr(c, 0, &e);
		if (d[1] == 'b') {
			char sym[128];
			uint64_t va = 0;
			int ret;

			if (c->pass != 1)
				return;
			if (!c->opts || !c->opts->buffer)
				asm_fail(c, d, ".buffer: no buffers here (accel-run provides them)");
			snprintf(sym, sizeof(sym), "%.*s", (int)nl, name);
			ret = c->opts->buffer(c->opts->arg, sym, e.imm, &va);
			if (ret)
				asm_fail(c, d, ".buffer %s: %s", sym, accel_strerror(ret));
			asm_sym_define(c, name, name, nl, va, 0);
			return;
		}
		asm_sym_define(c, name, name, nl, e.imm, 0);
		return;
	}
	asm_fail(c, d, "unknown directive '%.*s'", (int)n, d);
}

static int emit(struct asm_ctx *c)
{
	int ret = 0;

	if (c->pass == 2 && c->prog && c->ndw)
		ret = c->is_command ? accel_prog_emit_command(c->prog, c->dw, c->ndw) :
				      accel_prog_raw(c->prog, c->dw, c->ndw);
	if (!ret)
		c->offset += c->ndw * 4;
	return ret;
}

static int run_pass(struct asm_ctx *c, const char *text)
{
	c->p = text;
	c->line = 0;
	c->offset = 0;
	c->depth = 0;
	while (*c->p) {
		int ret;

		c->line++;
		c->line_start = c->p;
		parse_statement(c);
		ret = emit(c);
		if (ret) {
			snprintf(c->err, c->err_len, "%d:1: %s", c->line, accel_strerror(ret));
			return ret;
		}
		while (*c->p && *c->p != '\n')
			c->p++;
		if (*c->p)
			c->p++;
	}
	if (c->depth) {
		c->line = c->loops[c->depth - 1].line;
		c->line_start = NULL;
		snprintf(c->err, c->err_len, "%s%s%d:%d: LOOP without ENDLOOP",
			 c->opts && c->opts->filename ? c->opts->filename : "",
			 c->opts && c->opts->filename ? ":" : "", c->line,
			 c->loops[c->depth - 1].col);
		return -EINVAL;
	}
	return 0;
}

int accel_asm_ex(const char *text, const struct accel_asm_opts *opts, struct accel_prog *prog,
		 char *err, size_t err_len)
{
	struct asm_ctx *c = calloc(1, sizeof(*c));
	size_t len0, cmds0;
	char dummy[1];
	int ret;

	if (!c)
		return -ENOMEM;
	if (!err || !err_len) {
		err = dummy;
		err_len = sizeof(dummy);
	}
	err[0] = 0;
	c->opts = opts;
	c->err = err;
	c->err_len = err_len;
	len0 = accel_prog_size(prog) / 4;
	cmds0 = accel_prog_commands(prog);
	if (setjmp(c->fail)) {
		ret = -EINVAL;
		goto out;
	}
	c->pass = 1;
	ret = run_pass(c, text);
	if (!ret) {
		c->pass = 2;
		c->prog = prog;
		ret = run_pass(c, text);
	}
out:
	if (ret)
		accel_prog_rewind(prog, len0, cmds0);
	for (size_t i = 0; i < c->nsyms; i++)
		free(c->syms[i].name);
	free(c->syms);
	free(c);
	return ret;
}

int accel_asm(const char *text, struct accel_prog *prog, char *err, size_t err_len)
{
	return accel_asm_ex(text, NULL, prog, err, err_len);
}

int accel_asm_line(const char *line, uint32_t *dw)
{
	struct asm_ctx *c = calloc(1, sizeof(*c));
	char err[8];
	int ret = -1;

	if (!c)
		return -1;
	c->err = err;
	c->err_len = sizeof(err);
	c->pass = 2;
	c->depth = MXA_LOOP_MAX_DEPTH / 2;	/* LOOP and ENDLOOP alone are fine */
	c->p = c->line_start = line;
	c->line = 1;
	if (!setjmp(c->fail)) {
		parse_statement(c);
		memcpy(dw, c->dw, c->ndw * sizeof(uint32_t));
		ret = (int)c->ndw;
	}
	for (size_t i = 0; i < c->nsyms; i++)
		free(c->syms[i].name);
	free(c->syms);
	free(c);
	return ret;
}
