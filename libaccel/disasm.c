// SPDX-License-Identifier: MIT
/*
 * libaccel: the disassembler, and job explanations that show the failing command.
 *
 * Each command is printed from the table of asm.c, then assembled again and compared
 * with its dwords; whatever does not come back identical (unknown opcodes, reserved bits
 * set, a wrong length) is printed as ".dword", so accel_asm(accel_disasm(p)) == p for
 * every program.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel_internal.h"
#include "asm_internal.h"
#include "mxa_isa.h"

struct out {
	char *buf;
	size_t len, pos;	/* pos may pass len: the length of the full text */
};

static void __attribute__((format(printf, 2, 3))) out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->pos < o->len ? o->buf + o->pos : NULL,
		      o->pos < o->len ? o->len - o->pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += n;
}

static void out_num(struct out *o, uint64_t v, unsigned flags, int bits)
{
	int64_t s = bits == 32 ? (int64_t)(int32_t)v : (int64_t)v;

	if ((flags & MXA_OPND_F_SIGNED) && s < 0 && s > -(1ll << 32))
		out_printf(o, "-%" PRIu64, (uint64_t)-s);
	else if (v && ((flags & MXA_OPND_F_HEX) || v >= 0x10000))
		out_printf(o, "0x%" PRIx64, v);
	else
		out_printf(o, "%" PRIu64, v);
}

/* Register @r's name: rN for 0..31, aN for the seeds' global registers. */
static char reg_letter(unsigned int r)
{
	return r >= MXA_AREG_BASE ? 'a' : 'r';
}

static unsigned int reg_index(unsigned int r)
{
	return r >= MXA_AREG_BASE ? r - MXA_AREG_BASE : r;
}

/* rA + rB + value: registers 0 left out where that reads back the same. */
static void out_regs_imm(struct out *o, const uint8_t *reg, int nreg, uint64_t v,
			 unsigned flags, int bits)
{
	int64_t s = bits == 32 ? (int64_t)(int32_t)v : (int64_t)v;
	int printed = 0;

	for (int i = 0; i < nreg; i++) {
		int later = 0;

		for (int j = i + 1; j < nreg; j++)
			later |= reg[j];
		if (reg[i] || later) {
			out_printf(o, "%s%c%u", printed ? "+" : "", reg_letter(reg[i]),
				   reg_index(reg[i]));
			printed = 1;
		}
	}
	if (!printed) {
		out_num(o, v, flags, bits);
		return;
	}
	if (!v)
		return;
	if ((flags & MXA_OPND_F_SIGNED) && s < 0 && s > -(1ll << 32)) {
		out_printf(o, "-");
		out_num(o, (uint64_t)-s, flags & ~MXA_OPND_F_SIGNED, 64);
		return;
	}
	out_printf(o, "+");
	out_num(o, v, flags & ~MXA_OPND_F_SIGNED, bits);
}

static uint64_t dw64(const uint32_t *dw, int i)
{
	return dw[i] | (uint64_t)dw[i + 1] << 32;
}

static void out_gemm(struct out *o, const uint32_t *dw)
{
	uint8_t raw[sizeof(struct mxa_isa_gemm)];
	const struct accel_gemm_key *k;
	int first = 1;

	memcpy(raw, &dw[1], sizeof(raw));
	for (k = accel_gemm_keys; k->name; k++) {
		uint64_t v = 0;
		/* m, n, k, the types, a, b and d are always shown */
		int always = k->offset < offsetof(struct mxa_isa_gemm, flags) ||
			     !strcmp(k->name, "a") || !strcmp(k->name, "b") || !strcmp(k->name, "d");

		memcpy(&v, raw + k->offset, k->size);
		if (!v && !always)
			continue;
		out_printf(o, "%s%s=", first ? "" : ", ", k->name);
		first = 0;
		switch (k->kind) {
		case GK_DTYPE:
			out_printf(o, "%s", accel_dtype_name((enum mxa_isa_dtype)v));
			break;
		case GK_ACCUM:
		case GK_SCHED:
			if (v < 2)
				out_printf(o, "%s", (k->kind == GK_ACCUM ? accel_gemm_accum_names :
						     accel_gemm_sched_names)[v]);
			else
				out_num(o, v, 0, 64);
			break;
		case GK_FLAGS: {
			const char *sep = "";

			for (int b = 0; b < 3; b++) {
				if (v & (1u << b)) {
					out_printf(o, "%s%s", sep, accel_gemm_flag_names[b]);
					sep = "|";
				}
			}
			if (v & ~7ull)
				out_printf(o, "%s0x%" PRIx64, sep, (uint64_t)(v & ~(uint64_t)7));
			break;
		}
		default:
			out_num(o, v, k->kind == GK_HEX ? MXA_OPND_F_HEX : 0, 64);
		}
	}
}

static void out_tile(struct out *o, uint32_t t)
{
	unsigned cls = (t >> 8) & 0x7f;
	const char *name = cls < 8 ? accel_tile_class_names[cls] : NULL;

	if (!name)
		out_printf(o, "?%#x", t);	/* does not assemble back: .dword */
	else if (cls == 5 && !(t & 0xff))
		out_printf(o, "ACC");
	else
		out_printf(o, "%s#%u", name, t & 0xff);
	if (t & 0x8000)
		out_printf(o, ".reuse");
}

/* ", ->ACC<size>" after the ACC tile */
static void out_acc_dest(struct out *o, uint32_t acc, uint32_t size)
{
	out_printf(o, ", ->");
	out_tile(o, acc);
	if (size && !(size & 1023))
		out_printf(o, "<%uKB>", size >> 10);
	else
		out_printf(o, "<%u>", size);
}

/* B.IOT's tiles, and ", last, ACC, ->ACC<size>" for the last */
static void out_iot(struct out *o, const uint32_t *dw)
{
	out_tile(o, dw[1] & 0xffff);
	if (dw[1] >> 16) {
		out_printf(o, ", ");
		out_tile(o, dw[1] >> 16);
	}
	if (MXA_CMD_FLAGS(dw[0]) & MXA_BIOT_F_LAST) {
		out_printf(o, ", last, ");
		out_tile(o, dw[2]);
		out_acc_dest(o, dw[2], dw[3]);
	}
}

/* BSTART.CUBE's MAMULBMX and the flags as its suffixes */
static void out_cube(struct out *o, const struct mxa_isa_cmd *cmd, const uint32_t *dw,
		     const struct mxa_isa_opnd *op)
{
	if ((dw[op->dw] & 0xff) == MXA_CUBE_MAMULBMX)
		out_printf(o, "MAMULBMX");
	else
		out_printf(o, "%u", dw[op->dw] & 0xff);
	for (int i = 0; i < MXA_ISA_MAX_SUFFIXES && cmd->suffix[i].name; i++)
		if (MXA_CMD_FLAGS(dw[0]) & cmd->suffix[i].bit)
			out_printf(o, "%s", cmd->suffix[i].name);
}

static void out_tmm(struct out *o, const uint32_t *dw)
{
	static const char *const lb[3] = { "LB0", "LB1", "LB2" };
	uint32_t src[4] = { dw[6] & 0xffff, dw[6] >> 16, dw[7] & 0xffff, dw[7] >> 16 };
	uint8_t reg;

	out_printf(o, "<");
	for (int i = 0; i < 3; i++) {
		reg = (dw[5] >> (8 * i)) & 0xff;
		out_printf(o, "%s:", lb[i]);
		out_regs_imm(o, &reg, 1, dw[2 + i], 0, 32);
		out_printf(o, ", ");
	}
	out_printf(o, "%s", accel_dtype_name((enum mxa_isa_dtype)(dw[1] & 0xff)));
	if (((dw[1] >> 8) & 0xff) != (dw[1] & 0xff))
		out_printf(o, ", %s", accel_dtype_name((enum mxa_isa_dtype)((dw[1] >> 8) & 0xff)));
	out_printf(o, ">");
	for (int i = 0; i < 4; i++) {
		if (!src[i])
			continue;
		out_printf(o, i ? ", " : " ");
		out_tile(o, src[i]);
	}
	out_printf(o, ", ");
	out_tile(o, dw[8]);
	out_acc_dest(o, dw[8], dw[9]);
}

static int accel_isa_operand_set(const struct mxa_isa_opnd *op, const uint32_t *dw)
{
	uint32_t v = op->mask ? dw[op->dw] & op->mask : dw[op->dw];

	if (op->kind == MXA_OPND_RI32 && ((dw[op->rdw] >> op->rshift) & 0xff))
		return 1;
	return v != 0;
}

static void out_operand(struct out *o, const struct mxa_isa_cmd *cmd,
			const struct mxa_isa_opnd *op, const uint32_t *dw)
{
	uint8_t reg[2];
	uint32_t v32;

	if (mxa_isa_opnd_is_tile(cmd, op, dw[0])) {
		out_tile(o, dw[op->dw]);
		return;
	}
	switch (op->kind) {
	case MXA_OPND_U64:
		out_num(o, dw64(dw, op->dw), op->flags, 64);
		break;
	case MXA_OPND_U32:
		v32 = (op->mask ? dw[op->dw] & op->mask : dw[op->dw]) >> op->shift;
		out_num(o, v32, op->flags, 32);
		break;
	case MXA_OPND_REG:
		out_printf(o, "%c%u", reg_letter((dw[op->dw] >> op->shift) & 0xff),
			   reg_index((dw[op->dw] >> op->shift) & 0xff));
		break;
	case MXA_OPND_RI64:
		reg[0] = (dw[op->rdw] >> op->rshift) & 0xff;
		out_regs_imm(o, reg, 1, dw64(dw, op->dw), op->flags, 64);
		break;
	case MXA_OPND_RRI64:
		reg[0] = (dw[op->rdw] >> op->rshift) & 0xff;
		reg[1] = (dw[op->rdw] >> (op->rshift + 8)) & 0xff;
		out_regs_imm(o, reg, 2, dw64(dw, op->dw), op->flags, 64);
		break;
	case MXA_OPND_RI32:
		reg[0] = (dw[op->rdw] >> op->rshift) & 0xff;
		v32 = op->mask ? dw[op->dw] & op->mask : dw[op->dw];
		out_regs_imm(o, reg, 1, v32, op->flags, 32);
		break;
	case MXA_OPND_CLASS: {
		uint32_t cls = MXA_CMD_FLAGS(dw[0]);

		if (cls == MXA_GROUP_MMA || cls == MXA_GROUP_COPY)
			out_printf(o, "%s", cls == MXA_GROUP_MMA ? "mma" : "copy");
		else
			out_printf(o, "%u", cls);
		break;
	}
	case MXA_OPND_DTYPE:
		out_printf(o, "%s", accel_dtype_name((enum mxa_isa_dtype)((dw[op->dw] >> op->shift) &
									0xff)));
		break;
	case MXA_OPND_SREG: {
		uint32_t r = (dw[op->dw] >> op->shift) & 0xff;

		if (r < MXA_SREG_COUNT)
			out_printf(o, "%%%s", mxa_sreg_names[r]);
		else
			out_printf(o, "%%%u", r);
		break;
	}
	case MXA_OPND_TENSOR: {
		int last = 0;

		out_printf(o, "[0x%" PRIx64 ", {", dw64(dw, 1));
		for (int d = 0; d < MXA_TMA_MAX_RANK; d++)
			if (dw[5 + d] || ((dw[10] >> (5 * d)) & 31))
				last = d;
		for (int d = 0; d <= last; d++) {
			reg[0] = (dw[10] >> (5 * d)) & 31;
			if (d)
				out_printf(o, ", ");
			out_regs_imm(o, reg, 1, dw[5 + d], MXA_OPND_F_SIGNED, 32);
		}
		out_printf(o, "}]");
		break;
	}
	case MXA_OPND_GEMM:
		out_gemm(o, dw);
		break;
	case MXA_OPND_TILE:
		out_tile(o, dw[op->dw] >> op->shift);
		break;
	case MXA_OPND_SHAPE:
		out_printf(o, "m%un%uk%u", dw[op->dw] & 0xff, (dw[op->dw] >> 8) & 0xff,
			   dw[op->dw] >> 16);
		break;
	case MXA_OPND_TMM:
		out_tmm(o, dw);
		break;
	case MXA_OPND_CUBE:
		out_cube(o, cmd, dw, op);
		break;
	case MXA_OPND_LB:
		out_printf(o, "->LB%u", (dw[op->dw] >> op->shift) & 0xff);
		break;
	case MXA_OPND_IOT:
		out_iot(o, dw);
		break;
	}
}

static const struct accel_ptx_alias *ptx_alias(const struct mxa_isa_cmd *cmd, uint32_t h)
{
	for (const struct accel_ptx_alias *al = accel_ptx_aliases; al->ptx; al++)
		if (al->print && al->target == cmd->opcode &&
		    (al->cls < 0 || (uint32_t)al->cls == MXA_CMD_FLAGS(h)))
			return al;
	return NULL;
}

/* One command, as the table says; no check. */
static void out_command(struct out *o, const struct mxa_isa_cmd *cmd, const uint32_t *dw,
			unsigned flags)
{
	const struct accel_ptx_alias *al = (flags & ACCEL_DISASM_PTX) ? ptx_alias(cmd, dw[0]) :
					   NULL;
	int first = 1, space = 0;

	if (al) {
		out_printf(o, "%s", al->ptx);
	} else if (cmd->text) {		/* its operands spell the flags */
		out_printf(o, "%s", cmd->text);
	} else {
		out_printf(o, "%s", cmd->mnemonic);
		for (int i = 0; i < MXA_ISA_MAX_SUFFIXES && cmd->suffix[i].name; i++)
			if (MXA_CMD_FLAGS(dw[0]) & cmd->suffix[i].bit)
				out_printf(o, "%s", cmd->suffix[i].name);
	}
	for (int i = 0; i < MXA_ISA_MAX_OPNDS && cmd->opnd[i].kind; i++) {
		const struct mxa_isa_opnd *op = &cmd->opnd[i];

		if (al && al->cls >= 0 && op->kind == MXA_OPND_CLASS)
			continue;
		if ((op->flags & MXA_OPND_F_OPTIONAL) && !accel_isa_operand_set(op, dw))
			break;
		out_printf(o, first || space ? " " : ", ");
		first = 0;
		space = op->flags & MXA_OPND_F_SPACE;
		out_operand(o, cmd, op, dw);
	}
	if (al)
		out_printf(o, ";");
}

static void out_raw(struct out *o, const uint32_t *dw, size_t n)
{
	out_printf(o, ".dword ");
	for (size_t i = 0; i < n; i++)
		out_printf(o, "%s0x%08x", i ? ", " : "", dw[i]);
}

int accel_disasm_cmd(const uint32_t *dw, size_t count, unsigned int flags, char *buf,
		     size_t len, size_t *used)
{
	const struct mxa_isa_cmd *cmd;
	char text[2048];
	uint32_t back[256];
	struct out o = { buf, len, 0 };
	size_t n;

	if (!count) {
		if (used)
			*used = 0;
		if (len)
			buf[0] = 0;
		return 0;
	}
	n = MXA_CMD_DWORDS(dw[0]);
	cmd = mxa_isa_lookup(MXA_CMD_OPCODE(dw[0]));
	if (cmd && n == cmd->dwords && n <= count) {
		struct out t = { text, sizeof(text), 0 };

		out_command(&t, cmd, dw, flags);
		if (t.pos < sizeof(text) && accel_asm_line(text, back) == (int)n &&
		    !memcmp(back, dw, n * sizeof(*dw))) {
			out_printf(&o, "%s", text);
			goto done;
		}
	}
	/* no command the table can express: its dwords as they are */
	if (!n || n > count || n > 64)
		n = 1;
	out_raw(&o, dw, n);
done:
	if (used)
		*used = n;
	return (int)o.pos;
}

/*
 * LOOP/ENDLOOP the assembler would pair up, as the assembler sees them: an ENDLOOP
 * without LOOP, a LOOP never closed or nested too deep are printed as .dword.
 * @raw[i] is set for the commands at dword i to print raw. Return: 0 or -ENOMEM.
 */
static int loop_marks(const uint32_t *dw, size_t count, uint8_t *raw)
{
	size_t stack[MXA_LOOP_MAX_DEPTH], at = 0;
	int depth = 0;

	while (at < count) {
		size_t used, n = MXA_CMD_DWORDS(dw[at]);
		char line[2048];

		accel_disasm_cmd(dw + at, count - at, 0, line, sizeof(line), &used);
		if (line[0] != '.' && MXA_CMD_OPCODE(dw[at]) == MXA_OP_LOOP && used == n) {
			if (depth == MXA_LOOP_MAX_DEPTH)
				raw[at] = 1;
			else
				stack[depth++] = at;
		} else if (line[0] != '.' && MXA_CMD_OPCODE(dw[at]) == MXA_OP_ENDLOOP && used == n) {
			if (!depth)
				raw[at] = 1;
			else
				depth--;
		}
		at += used;
	}
	while (depth)
		raw[stack[--depth]] = 1;
	return 0;
}

int accel_disasm(const uint32_t *dw, size_t count, unsigned int flags, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	uint8_t *raw = calloc(count ? count : 1, 1);
	size_t at = 0;
	int depth = 0;

	if (len)
		buf[0] = 0;
	if (!raw)
		return -ENOMEM;
	loop_marks(dw, count, raw);
	while (at < count) {
		uint32_t op = MXA_CMD_OPCODE(dw[at]);
		size_t used;
		char line[2048];
		int is_loop = 0, is_end = 0;

		if (raw[at]) {
			struct out l = { line, sizeof(line), 0 };

			used = MXA_CMD_DWORDS(dw[at]);
			out_raw(&l, dw + at, used);
		} else {
			accel_disasm_cmd(dw + at, count - at, flags, line, sizeof(line), &used);
			is_loop = line[0] != '.' && op == MXA_OP_LOOP;
			is_end = line[0] != '.' && op == MXA_OP_ENDLOOP;
		}
		if (is_end && depth)
			depth--;
		out_printf(&o, "%*s%s", 4 * (depth + 1), "", line);
		if (flags & ACCEL_DISASM_OFFSETS)
			out_printf(&o, "\t; 0x%04zx", at * 4);
		out_printf(&o, "\n");
		if (is_loop)
			depth++;
		at += used;
	}
	free(raw);
	return (int)o.pos;
}

int accel_prog_disasm(const struct accel_prog *prog, unsigned int flags, char *buf, size_t len)
{
	return accel_disasm(accel_prog_dwords(prog), accel_prog_size(prog) / 4, flags, buf, len);
}

static const char *accel_error_hint(const struct accel_job_result *r)
{
	switch (r->error) {
	case MXA_ERR_ACC_HAZARD:
		return "wait for the WGMMA first: 'COMMIT_GROUP mma' then 'WAIT_GROUP mma, 0' "
		       "(wgmma.wait_group.sync.aligned 0) before this command";
	case MXA_ERR_TMA_HAZARD:
		return r->err_info ?
		       "wait for the load first: 'MBAR_WAIT mbar, parity' "
		       "(mbarrier.try_wait.parity) on the load's mbarrier before using its box" :
		       "more than 256 TMA loads issued without an MBAR_WAIT in between";
	case MXA_ERR_K_ALIGN:
		return "FP8 MX needs K % 64 == 0: pad K with zeros (and scales of 2^0)";
	case MXA_ERR_BLOCK:
		return "a split block is BSTART.CUBE, B.DATR (optional), B.DIM ->LB0, ->LB1, ->LB2, "
		       "B.IOT A, B.IOT B ending 'last, ACC, ->ACC<size>', and nothing else";
	case MXA_ERR_LOOP_BUDGET:
		return "the job ran more than 2^24 commands: check the LOOP counts and registers";
	case MXA_ERR_LOOP_NESTING:
		return "LOOP/ENDLOOP must pair up, at most 4 deep";
	case MXA_ERR_MBARRIER:
		return r->err_info == MXA_MBAR_ERR_DEADLOCK ?
		       "nothing can complete the phase waited for: check the tx bytes of "
		       "MBAR_ARRIVE against the TMA boxes, and the parity" :
		       "MBAR_INIT the barrier first; arrive at most its count per phase";
	case MXA_ERR_SEM_TIMEOUT:
		return "nothing signalled the semaphore in time: check the producer's SEM_SIGNAL "
		       "and that it runs on another queue";
	case MXA_ERR_MMU_FAULT:
		return "the address is not mapped (or read-only) in this context: check the "
		       "buffer's VA and size";
	case MXA_ERR_BAD_REGISTER:
		return "registers are r0..r31 and a0..a31";
	case MXA_ERR_SRAM_RANGE:
		return "SRAM offsets lie in 0..256 KiB; TMA boxes 128-byte aligned, mbarriers "
		       "8-byte aligned";
	case MXA_ERR_BAD_TENSOR_MAP:
		return "see Documentation/isa.rst for the tensor map field numbers";
	case MXA_ERR_MISALIGNED:
		return "64-bit values need 8-byte aligned addresses";
	default:
		return NULL;
	}
}

int accel_job_explain_prog(const struct accel_job_result *r, const uint32_t *dw, size_t count,
			   char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	size_t at = r->err_offset / 4;
	const char *hint;
	char line[2048];

	o.pos = accel_job_explain(r, buf, len);
	if (r->status == 0 || !r->has_detail || !r->error || !dw)
		return (int)o.pos;
	if (!(r->err_offset & 3) && at < count) {
		/* the loop nesting of the command, to say where it sits */
		int depth = 0;
		size_t i = 0;

		while (i < at) {
			size_t used;

			accel_disasm_cmd(dw + i, count - i, 0, line, sizeof(line), &used);
			if (line[0] != '.' && MXA_CMD_OPCODE(dw[i]) == MXA_OP_LOOP)
				depth++;
			else if (line[0] != '.' && MXA_CMD_OPCODE(dw[i]) == MXA_OP_ENDLOOP && depth)
				depth--;
			i += used;
		}
		accel_disasm_cmd(dw + at, count - at, 0, line, sizeof(line), NULL);
		out_printf(&o, "\n  command at 0x%04x: %s", r->err_offset, line);
		if (depth)
			out_printf(&o, " (inside %d loop%s)", depth, depth > 1 ? "s" : "");
		if (i != at)
			out_printf(&o, " (not at a command boundary)");
	}
	hint = accel_error_hint(r);
	if (hint)
		out_printf(&o, "\n  hint: %s", hint);
	return (int)o.pos;
}
