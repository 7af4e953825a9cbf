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

int accel_prog_reg_cta(struct accel_prog *prog, unsigned int dst, unsigned int sreg,
		       uint32_t mult)
{
	const uint32_t dw[MXA_REG_CTA_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_REG_CTA, MXA_REG_CTA_DWORDS, 0), dst | sreg << 8, mult,
	};

	if (accel_bad_reg(dst) || sreg >= MXA_SREG_COUNT)
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_REG_CTA_DWORDS);
}

static int accel_prog_cluster(struct accel_prog *prog, uint32_t op)
{
	const uint32_t dw[MXA_CLUSTER_DWORDS] = { MXA_CMD_HEADER(op, MXA_CLUSTER_DWORDS, 0) };

	return accel_prog_emit_command(prog, dw, MXA_CLUSTER_DWORDS);
}

int accel_prog_cluster_arrive(struct accel_prog *prog)
{
	return accel_prog_cluster(prog, MXA_OP_CLUSTER_ARRIVE);
}

int accel_prog_cluster_wait(struct accel_prog *prog)
{
	return accel_prog_cluster(prog, MXA_OP_CLUSTER_WAIT);
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

int accel_prog_gemm_regs(struct accel_prog *prog, const struct accel_gemm *g, int async,
			 const uint8_t regs[6])
{
	struct mxa_isa_gemm isa;
	uint32_t *cmd;
	int i, ret;

	for (i = 0; i < 6; i++)
		if (accel_bad_reg(regs[i]))
			return -EINVAL;
	ret = async ? accel_prog_gemm_async(prog, g) : accel_prog_gemm(prog, g);
	if (ret)
		return ret;
	/* the command just emitted: name its registers */
	cmd = (uint32_t *)accel_prog_dwords(prog) + accel_prog_size(prog) / 4 - MXA_GEMM_DWORDS;
	memcpy(&isa, &cmd[1], sizeof(isa));
	isa.reserved[0] = MXA_REGS3(regs[0], regs[1], regs[2]);
	isa.reserved[1] = MXA_REGS3(regs[3], regs[4], regs[5]);
	memcpy(&cmd[1], &isa, sizeof(isa));
	cmd[0] |= MXA_CMD_HEADER(0, 0, MXA_CMD_F_GEMM_REGS);
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
	    (store && (t->mbar || t->mbar_reg || t->cta_mask)))
		return -EINVAL;
	for (d = 0; d < 5; d++) {
		if (accel_bad_reg(t->coord_reg[d]))
			return -EINVAL;
		dw[5 + d] = (uint32_t)t->coord[d];
	}
	dw[10] = MXA_TMA_CREGS(t->coord_reg[0], t->coord_reg[1], t->coord_reg[2],
			       t->coord_reg[3], t->coord_reg[4]);
	dw[11] = MXA_REGS3(t->sram_reg, t->mbar_reg, t->cta_mask);
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

int accel_prog_mbar_complete_tx(struct accel_prog *prog, uint32_t sram, uint32_t tx_bytes)
{
	return accel_prog_mbar(prog, MXA_OP_MBAR_COMPLETE_TX, sram, tx_bytes);
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
	    w->type_a >= MXA_DTYPE_COUNT || w->type_b >= MXA_DTYPE_COUNT ||
	    w->type_d >= MXA_DTYPE_COUNT || accel_bad_reg(w->a_reg) ||
	    accel_bad_reg(w->b_reg) || accel_bad_reg(w->d_reg) || ((w->a | w->b | w->d) & 15))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_WGMMA_DWORDS);
}

int accel_prog_wgmma_desc(struct accel_prog *prog, const struct accel_wgmma_desc *w)
{
	const uint32_t dw[MXA_WGMMA_DESC_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_WGMMA_DESC, MXA_WGMMA_DESC_DWORDS, w->flags),
		MXA_REGS3(w->type_a, w->type_b, w->type_d), w->n,
		(uint32_t)w->desc_a, (uint32_t)(w->desc_a >> 32),
		(uint32_t)w->desc_b, (uint32_t)(w->desc_b >> 32), w->d,
		MXA_REGS3(w->a_reg, w->b_reg, w->d_reg),
	};

	if ((w->flags & ~MXA_WGMMA_DESC_F_ALL) || w->n < 8 || w->n > 256 || (w->n & 7) ||
	    w->type_a >= MXA_DTYPE_COUNT || w->type_b >= MXA_DTYPE_COUNT ||
	    w->type_d >= MXA_DTYPE_COUNT || accel_bad_reg(w->a_reg) ||
	    accel_bad_reg(w->b_reg) || accel_bad_reg(w->d_reg) || (w->d & 15) ||
	    ((w->flags & MXA_WGMMA_F_TILE_A) && (w->a_reg || w->desc_a > 0xffff)))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_WGMMA_DESC_DWORDS);
}

int accel_prog_fence(struct accel_prog *prog)
{
	const uint32_t dw[MXA_FENCE_DWORDS] = { MXA_CMD_HEADER(MXA_OP_FENCE, MXA_FENCE_DWORDS, 0) };

	return accel_prog_emit_command(prog, dw, MXA_FENCE_DWORDS);
}

static int accel_bad_tile(uint32_t t)
{
	return !mxa_tile_valid(t & ~MXA_TILE_REUSE);
}

static int accel_prog_tile(struct accel_prog *prog, uint32_t op, uint16_t tile, int global,
			   uint64_t addr, unsigned int addr_reg, uint32_t rows,
			   uint32_t row_bytes, uint32_t stride)
{
	const uint32_t dw[MXA_TILE_DWORDS] = {
		MXA_CMD_HEADER(op, MXA_TILE_DWORDS, global ? MXA_TILE_F_GLOBAL : 0),
		tile, rows, row_bytes, (uint32_t)addr, (uint32_t)(addr >> 32), stride,
		MXA_REGS3(addr_reg, 0, 0),
	};

	if (accel_bad_tile(tile) || (tile & MXA_TILE_REUSE) || accel_bad_reg(addr_reg) ||
	    !rows || !row_bytes || (stride && stride < row_bytes))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_TILE_DWORDS);
}

int accel_prog_tile_load(struct accel_prog *prog, uint16_t tile, int global, uint64_t addr,
			 unsigned int addr_reg, uint32_t rows, uint32_t row_bytes,
			 uint32_t stride)
{
	return accel_prog_tile(prog, MXA_OP_TILE_LOAD, tile, global, addr, addr_reg, rows,
			       row_bytes, stride);
}

int accel_prog_tile_store(struct accel_prog *prog, uint16_t tile, int global, uint64_t addr,
			  unsigned int addr_reg, uint32_t rows, uint32_t row_bytes,
			  uint32_t stride)
{
	return accel_prog_tile(prog, MXA_OP_TILE_STORE, tile, global, addr, addr_reg, rows,
			       row_bytes, stride);
}

int accel_prog_tmatmulmx(struct accel_prog *prog, const struct accel_tmatmulmx *t)
{
	const uint32_t dw[MXA_TMM_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_TMATMULMX, MXA_TMM_DWORDS, t->flags),
		MXA_REGS3(t->type_a, t->type_b, 0), t->m, t->n, t->k,
		MXA_REGS3(t->m_reg, t->n_reg, t->k_reg),
		(uint32_t)t->a | (uint32_t)t->scale_a << 16,
		(uint32_t)t->b | (uint32_t)t->scale_b << 16,
		t->acc, t->acc_size,
	};

	if ((t->flags & ~MXA_TMM_F_ALL) || t->type_a >= MXA_DTYPE_COUNT ||
	    t->type_b >= MXA_DTYPE_COUNT || accel_bad_reg(t->m_reg) || accel_bad_reg(t->n_reg) ||
	    accel_bad_reg(t->k_reg) || accel_bad_tile(t->a) || accel_bad_tile(t->b) ||
	    accel_bad_tile(t->acc) || (t->acc & MXA_TILE_REUSE) ||
	    (t->scale_a && accel_bad_tile(t->scale_a)) ||
	    (t->scale_b && accel_bad_tile(t->scale_b)))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_TMM_DWORDS);
}

int accel_prog_mma(struct accel_prog *prog, const struct accel_mma *mma)
{
	const uint32_t dw[MXA_MMA_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_MMA, MXA_MMA_DWORDS, mma->flags),
		MXA_REGS3(mma->type_a, mma->type_b, mma->type_d),
		MXA_MMA_SHAPE(mma->m, mma->n, mma->k), mma->a, mma->b, mma->d,
		MXA_REGS3(mma->a_reg, mma->b_reg, mma->d_reg),
	};

	if ((mma->flags & ~MXA_MMA_F_ALL) || mma->type_a >= MXA_DTYPE_COUNT ||
	    mma->type_b >= MXA_DTYPE_COUNT || mma->type_d >= MXA_DTYPE_COUNT ||
	    !mma->m || mma->m > 255 || !mma->n || mma->n > 255 || !mma->k || mma->k > 256 ||
	    accel_bad_reg(mma->a_reg) || accel_bad_reg(mma->b_reg) || accel_bad_reg(mma->d_reg))
		return -EINVAL;
	if (mma->flags & MXA_MMA_F_TILES) {
		if (mma->a_reg || mma->b_reg || mma->d_reg || accel_bad_tile(mma->a) ||
		    accel_bad_tile(mma->b) || accel_bad_tile(mma->d))
			return -EINVAL;
	} else if ((mma->a | mma->b | mma->d) & 15) {
		return -EINVAL;
	}
	return accel_prog_emit_command(prog, dw, MXA_MMA_DWORDS);
}

int accel_prog_cvt(struct accel_prog *prog, const struct accel_cvt *c)
{
	const uint32_t dw[MXA_CVT_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_CVT, MXA_CVT_DWORDS, c->flags),
		MXA_REGS3(c->src_type, c->dst_type, 0), c->n, c->src, c->dst, c->scales,
		MXA_REGS3(c->src_reg, c->dst_reg, c->scales_reg),
	};

	if ((c->flags & ~MXA_CVT_F_ALL) || c->src_type >= MXA_DTYPE_COUNT ||
	    c->dst_type >= MXA_DTYPE_COUNT || !c->n || accel_bad_reg(c->src_reg) ||
	    accel_bad_reg(c->dst_reg) || accel_bad_reg(c->scales_reg) ||
	    (!(c->flags & MXA_CVT_F_MX) && (c->scales || c->scales_reg)))
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_CVT_DWORDS);
}
