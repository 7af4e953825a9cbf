// SPDX-License-Identifier: MIT
/*
 * bench_pipe.h - the H200's hand-written 1-CTA pipelined GEMM (bench/h200/pipeline.cu)
 * as MXA commands, command for command: one TILE_M x TILE_N f32 tile of A x B^T over
 * K bytes (E4M3 or BF16, K-major); a stage holds KW K steps of 32 bytes in TMA boxes of
 * BOX-byte rows swizzled as wide, all on the stage's mbarrier (MBAR_ARRIVE with the
 * stage's bytes, then the boxes); S - 1 stage loads ahead; an iteration waits for its
 * stage (MBAR_WAIT), issues KW x TILE_M / 64 WGMMA_DESCs with descriptors advanced 32
 * bytes within the box row, commits, waits until one group is pending (S = 1: none) and
 * refills the stage the previous group read. bench-model runs single tiles under the
 * cycle model; bench-gemm runs every tile of a GEMM with it (a hand-written pipeline).
 */
#ifndef BENCH_PIPE_H
#define BENCH_PIPE_H

#include <stdio.h>
#include <string.h>

#include "accel.h"
#include "mxa_isa.h"

struct pipe_kernel {
	uint32_t tm, n, box, stages;
	uint8_t type;	/* MXA_DTYPE_E4M3 or _BF16 */
};

static inline const char *pipe_type_name(uint8_t t)
{
	return t == MXA_DTYPE_E4M3 ? "e4m3" : "bf16";
}

static inline void pipe_kernel_name(const struct pipe_kernel *k, char *buf, size_t len)
{
	snprintf(buf, len, "pipe-%s-%ux%u-b%u-s%u", pipe_type_name(k->type), k->tm, k->n, k->box,
		 k->stages);
}

/*
 * A tensor of @rows x @kbytes bytes at @va, boxes of @box-byte rows x @box_rows,
 * swizzled as wide as the box's rows.
 */
static inline void pipe_map2(struct mxa_tensor_map *m, uint64_t va, uint32_t eb,
			     uint32_t kbytes, uint32_t rows, uint32_t box_rows, uint32_t box)
{
	memset(m, 0, sizeof(*m));
	m->global_addr = va;
	m->rank = 2;
	m->elem_bytes = eb;
	m->swizzle = box == 128 ? MXA_TMA_SWIZZLE_128B : box == 64 ? MXA_TMA_SWIZZLE_64B :
							   MXA_TMA_SWIZZLE_32B;
	m->dims[0] = kbytes / eb;
	m->dims[1] = rows;
	m->box[0] = box / eb;
	m->box[1] = box_rows;
	for (int d = 2; d < 5; d++)
		m->dims[d] = m->box[d] = 1;
	m->strides[0] = kbytes;
}

/*
 * SRAM: the stages from 0, the D tile at @d, the stages' mbarriers at @mbar. The tile's
 * rows start at row @row_a of A's map and @row_b of B's, plus scalar registers @reg_a
 * and @reg_b (0: r0, none; a grid's instance sets them from its place with REG_CTA).
 */
struct pipe_layout {
	uint32_t kw, boxes, steps, stage, d, mbar;
	uint64_t map_a, map_b;
	int32_t row_a, row_b;
	uint8_t reg_a, reg_b;
};

/* The layout of @k over @kbytes of K, maps at @map_a and @map_b (VAs). */
static inline struct pipe_layout pipe_layout(const struct pipe_kernel *k, uint32_t kbytes,
					     uint64_t map_a, uint64_t map_b)
{
	struct pipe_layout l = { .kw = k->box == 128 ? 4 : 2, .map_a = map_a, .map_b = map_b };

	l.boxes = l.kw * 32 / k->box;
	l.steps = kbytes / (l.kw * 32);
	l.stage = l.kw * (k->tm + k->n) * 32;
	l.d = k->stages * l.stage;
	l.mbar = l.d + k->tm * k->n * 4;
	return l;
}

static inline int pipe_load(struct accel_prog *p, const struct pipe_kernel *k,
			    const struct pipe_layout *l, uint32_t s, uint32_t step)
{
	uint32_t sa = s * l->stage, sb = sa + l->kw * k->tm * 32, eb = k->type == MXA_DTYPE_E4M3 ? 1 : 2;
	int ret = accel_prog_mbar_arrive(p, l->mbar + 16 * s, l->stage);

	for (uint32_t j = 0; !ret && j < l->boxes; j++) {
		int32_t c = (int32_t)((step * l->boxes + j) * (k->box / eb));
		struct accel_tma a = { .map = l->map_a, .sram = sa + j * k->tm * k->box,
				       .mbar = l->mbar + 16 * s, .coord = { c, l->row_a },
				       .coord_reg = { 0, l->reg_a } };
		struct accel_tma b = { .map = l->map_b, .sram = sb + j * k->n * k->box,
				       .mbar = l->mbar + 16 * s, .coord = { c, l->row_b },
				       .coord_reg = { 0, l->reg_b } };

		ret = accel_prog_tma(p, 0, &a);
		if (!ret)
			ret = accel_prog_tma(p, 0, &b);
	}
	return ret;
}

/* K step @j of the 64 rows @h of an operand of @rows rows at stage offset @st. */
static inline uint32_t pipe_k_addr(const struct pipe_kernel *k, uint32_t st, uint32_t rows,
				   uint32_t j, uint32_t h)
{
	return st + (j * 32 / k->box) * rows * k->box + h * 64 * k->box + j * 32 % k->box;
}

/* The kernel's commands (@init_only: its MBAR_INITs alone). */
static inline int pipe_build(struct accel_prog *p, const struct pipe_kernel *k,
			     const struct pipe_layout *l, int init_only)
{
	uint32_t S = k->stages, swz = k->box == 128 ? MXA_SMEM_DESC_SWIZZLE_128B :
				      k->box == 64 ? MXA_SMEM_DESC_SWIZZLE_64B :
						     MXA_SMEM_DESC_SWIZZLE_32B;
	int ret = 0;

	for (uint32_t s = 0; !ret && s < S; s++)
		ret = accel_prog_mbar_init(p, l->mbar + 16 * s, 1);
	if (init_only)
		return ret;
	for (uint32_t s = 0; !ret && s + 1 < S; s++)
		ret = pipe_load(p, k, l, s, s);
	for (uint32_t it = 0; !ret && it < l->steps; it++) {
		uint32_t s = it % S, sa = s * l->stage, sb = sa + l->kw * k->tm * 32;

		if (S == 1)
			ret = pipe_load(p, k, l, 0, it);
		if (!ret)
			ret = accel_prog_mbar_wait(p, l->mbar + 16 * s, (it / S) & 1, 0);
		for (uint32_t j = 0; !ret && j < l->kw; j++) {
			for (uint32_t h = 0; !ret && h < k->tm / 64; h++) {
				struct accel_wgmma_desc w = {
					.flags = it || j ? MXA_WGMMA_F_ACCUMULATE : 0,
					.type_a = k->type, .type_b = k->type,
					.type_d = MXA_DTYPE_F32, .n = k->n,
					.desc_a = MXA_SMEM_DESC(pipe_k_addr(k, sa, k->tm, j, h), 16,
								8 * k->box, 0, swz),
					.desc_b = MXA_SMEM_DESC(pipe_k_addr(k, sb, k->n, j, 0), 16,
								8 * k->box, 0, swz),
					.d = l->d + h * 64 * k->n * 4,
				};

				ret = accel_prog_wgmma_desc(p, &w);
			}
		}
		if (!ret)
			ret = accel_prog_commit_group(p, MXA_GROUP_MMA);
		if (!ret)
			ret = accel_prog_wait_group(p, MXA_GROUP_MMA, S == 1 ? 0 : 1);
		if (!ret && S > 1 && it + S - 1 < l->steps)
			ret = pipe_load(p, k, l, (it + S - 1) % S, it + S - 1);
	}
	if (!ret)
		ret = accel_prog_wait_group(p, MXA_GROUP_MMA, 0);
	return ret;
}

#endif
