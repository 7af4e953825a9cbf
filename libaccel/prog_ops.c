// SPDX-License-Identifier: MIT
/*
 * libaccel: emitters of the device's control and asynchronous commands (registers,
 * loops, semaphores, commit/wait groups, asynchronous copies and GEMMs). Encodings come
 * from uapi/mxa_isa.h; semantics are in Documentation/isa.rst.
 */
#include <errno.h>
#include <string.h>

#include "accel_internal.h"
#include "mxa_isa.h"

_Static_assert(ACCEL_NUM_REGS == MXA_NUM_REGS, "register count");
_Static_assert(ACCEL_GROUP_MMA == MXA_GROUP_MMA && ACCEL_GROUP_COPY == MXA_GROUP_COPY,
	       "group classes");

static int accel_bad_reg(unsigned int r)
{
	return r >= MXA_NUM_REGS;
}

int accel_prog_reg_set(struct accel_prog *prog, unsigned int reg, uint64_t value)
{
	const uint32_t dw[MXA_REG_SET_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_REG_SET, MXA_REG_SET_DWORDS, 0),
		reg, (uint32_t)value, (uint32_t)(value >> 32),
	};

	if (accel_bad_reg(reg))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_REG_SET_DWORDS);
}

int accel_prog_reg_add(struct accel_prog *prog, unsigned int dst, unsigned int ra,
		       unsigned int rb, uint64_t imm)
{
	const uint32_t dw[MXA_REG_ADD_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_REG_ADD, MXA_REG_ADD_DWORDS, 0),
		MXA_REGS3(dst, ra, rb), (uint32_t)imm, (uint32_t)(imm >> 32),
	};

	if (accel_bad_reg(dst) || accel_bad_reg(ra) || accel_bad_reg(rb))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_REG_ADD_DWORDS);
}

static int accel_prog_reg_mem(struct accel_prog *prog, uint32_t op, unsigned int reg,
			      uint64_t va)
{
	const uint32_t dw[4] = {
		MXA_CMD_HEADER(op, 4, 0), reg, (uint32_t)va, (uint32_t)(va >> 32),
	};

	if (accel_bad_reg(reg) || (va & 7))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, 4);
}

int accel_prog_reg_load(struct accel_prog *prog, unsigned int reg, uint64_t va)
{
	return accel_prog_reg_mem(prog, MXA_OP_REG_LOAD, reg, va);
}

int accel_prog_reg_store(struct accel_prog *prog, unsigned int reg, uint64_t va)
{
	return accel_prog_reg_mem(prog, MXA_OP_REG_STORE, reg, va);
}

int accel_prog_loop(struct accel_prog *prog, uint32_t count, unsigned int reg)
{
	const uint32_t dw[MXA_LOOP_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_LOOP, MXA_LOOP_DWORDS, 0), count, reg,
	};

	if (accel_bad_reg(reg))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_LOOP_DWORDS);
}

int accel_prog_endloop(struct accel_prog *prog)
{
	const uint32_t dw[1] = { MXA_CMD_HEADER(MXA_OP_ENDLOOP, MXA_ENDLOOP_DWORDS, 0) };

	return accel_prog_emit_command(prog, dw, 1);
}

int accel_prog_sem_wait(struct accel_prog *prog, uint64_t va, uint64_t value,
			uint32_t timeout_us)
{
	const uint32_t dw[MXA_SEM_WAIT_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_SEM_WAIT, MXA_SEM_WAIT_DWORDS, 0),
		(uint32_t)va, (uint32_t)(va >> 32), (uint32_t)value, (uint32_t)(value >> 32),
		timeout_us,
	};

	if ((va & 7) || timeout_us > MXA_SEM_MAX_TIMEOUT_US)
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_SEM_WAIT_DWORDS);
}

int accel_prog_sem_signal(struct accel_prog *prog, uint64_t va, uint64_t value, int add)
{
	const uint32_t dw[MXA_SEM_SIGNAL_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_SEM_SIGNAL, MXA_SEM_SIGNAL_DWORDS, add ? MXA_SEM_F_ADD : 0),
		(uint32_t)va, (uint32_t)(va >> 32), (uint32_t)value, (uint32_t)(value >> 32),
	};

	if (va & 7)
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_SEM_SIGNAL_DWORDS);
}

int accel_prog_commit_group(struct accel_prog *prog, unsigned int cls)
{
	const uint32_t dw[1] = { MXA_CMD_HEADER(MXA_OP_COMMIT_GROUP, 1, cls) };

	if (cls >= MXA_GROUP_CLASSES)
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, 1);
}

int accel_prog_wait_group(struct accel_prog *prog, unsigned int cls, uint32_t n)
{
	const uint32_t dw[MXA_WAIT_GROUP_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_WAIT_GROUP, MXA_WAIT_GROUP_DWORDS, cls), n,
	};

	if (cls >= MXA_GROUP_CLASSES)
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_WAIT_GROUP_DWORDS);
}

int accel_prog_copy(struct accel_prog *prog, uint64_t dst, unsigned int dst_reg, uint64_t src,
		    unsigned int src_reg, uint32_t bytes, unsigned int bytes_reg)
{
	const uint32_t dw[MXA_COPY_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_COPY, MXA_COPY_DWORDS, 0),
		(uint32_t)src, (uint32_t)(src >> 32), (uint32_t)dst, (uint32_t)(dst >> 32),
		bytes, MXA_REGS3(src_reg, dst_reg, bytes_reg),
	};

	if (accel_bad_reg(dst_reg) || accel_bad_reg(src_reg) || accel_bad_reg(bytes_reg) ||
	    (!bytes_reg && bytes > MXA_COPY_MAX_BYTES))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_COPY_DWORDS);
}

int accel_prog_gemm_async(struct accel_prog *prog, const struct accel_gemm *g)
{
	int ret = accel_prog_gemm(prog, g);
	uint32_t *cmd;

	if (ret)
		return ret;
	/* the command just emitted: set its ASYNC flag */
	cmd = (uint32_t *)accel_prog_dwords(prog) + accel_prog_size(prog) / 4 - MXA_GEMM_DWORDS;
	cmd[0] |= MXA_CMD_HEADER(0, 0, MXA_CMD_F_ASYNC);
	return 0;
}

int accel_prog_tma(struct accel_prog *prog, int store, const struct accel_tma *t)
{
	uint32_t dw[MXA_TMA_DWORDS] = {
		MXA_CMD_HEADER(store ? MXA_OP_TMA_STORE : MXA_OP_TMA_LOAD, MXA_TMA_DWORDS, 0),
		(uint32_t)t->map, (uint32_t)(t->map >> 32), t->sram, store ? 0 : t->mbar,
	};
	int d;

	if ((t->map & 63) || accel_bad_reg(t->sram_reg) || accel_bad_reg(t->mbar_reg) ||
	    (store && (t->mbar || t->mbar_reg)))
		return -EINVAL;
	for (d = 0; d < 5; d++) {
		if (accel_bad_reg(t->coord_reg[d]))
			return -EINVAL;
		dw[5 + d] = (uint32_t)t->coord[d];
	}
	dw[10] = MXA_TMA_CREGS(t->coord_reg[0], t->coord_reg[1], t->coord_reg[2],
			       t->coord_reg[3], t->coord_reg[4]);
	dw[11] = MXA_REGS3(t->sram_reg, t->mbar_reg, 0);
	return accel_prog_emit_command(prog, dw, MXA_TMA_DWORDS);
}

static int accel_prog_mbar(struct accel_prog *prog, uint32_t op, uint32_t sram, uint32_t arg)
{
	const uint32_t dw[MXA_MBAR_DWORDS] = { MXA_CMD_HEADER(op, MXA_MBAR_DWORDS, 0), sram, arg };

	if (sram & 7)
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_MBAR_DWORDS);
}

int accel_prog_mbar_init(struct accel_prog *prog, uint32_t sram, uint32_t count)
{
	return accel_prog_mbar(prog, MXA_OP_MBAR_INIT, sram, count);
}

int accel_prog_mbar_arrive(struct accel_prog *prog, uint32_t sram, uint32_t tx_bytes)
{
	return accel_prog_mbar(prog, MXA_OP_MBAR_ARRIVE, sram, tx_bytes);
}

int accel_prog_mbar_expect_tx(struct accel_prog *prog, uint32_t sram, uint32_t tx_bytes)
{
	return accel_prog_mbar(prog, MXA_OP_MBAR_EXPECT_TX, sram, tx_bytes);
}

int accel_prog_mbar_wait(struct accel_prog *prog, uint32_t sram, uint32_t parity,
			 unsigned int parity_reg)
{
	if (parity > 1 || accel_bad_reg(parity_reg))
		return -EINVAL;
	return accel_prog_mbar(prog, MXA_OP_MBAR_WAIT, sram, parity | parity_reg << 8);
}

int accel_prog_wgmma(struct accel_prog *prog, const struct accel_wgmma *w)
{
	const uint32_t dw[MXA_WGMMA_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_WGMMA, MXA_WGMMA_DWORDS, w->flags),
		MXA_REGS3(w->type_a, w->type_b, w->type_d), w->n, w->a, w->b, w->d,
		MXA_REGS3(w->a_reg, w->b_reg, w->d_reg),
	};

	if ((w->flags & ~MXA_WGMMA_F_ALL) || w->n < 8 || w->n > 256 || (w->n & 7) ||
	    w->type_a >= ACCEL_DT_COUNT || w->type_b >= ACCEL_DT_COUNT ||
	    w->type_d >= ACCEL_DT_COUNT || accel_bad_reg(w->a_reg) ||
	    accel_bad_reg(w->b_reg) || accel_bad_reg(w->d_reg) || ((w->a | w->b | w->d) & 15))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_WGMMA_DWORDS);
}
