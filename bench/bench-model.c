// SPDX-License-Identifier: MIT
/*
 * bench-model: the H200's 1-CTA pipelined GEMMs (bench/h200/pipeline.cu) as MXA
 * programs, for the cycle model's check against the H200 (Documentation/device.rst,
 * "Cycle model"). Run it on a device with timing=h200; bench/model.py joins its output
 * with bench/h200/pipeline.csv into model.csv.
 *
 * Each kernel is the CUDA one command for command: one TILE_M x TILE_N f32 tile of
 * A x B^T over K = 3072 bytes (E4M3 or BF16, K-major); a stage holds KW K steps of 32
 * bytes in TMA boxes of BOX-byte rows swizzled as wide, all on the stage's mbarrier
 * (MBAR_ARRIVE with the stage's bytes, then the boxes); S - 1 stage loads ahead; an
 * iteration waits for its stage (MBAR_WAIT), issues KW x TILE_M / 64 WGMMA_DESCs with
 * descriptors advanced 32 bytes within the box row, commits, waits until one group is
 * pending (S = 1: none) and refills the stage the previous group read.
 *
 * Output: CSV "kernel,modelled" in cycles: the job's modelled cycles less those of the
 * same job with only its MBAR_INITs (the H200's clock starts after them).
 *
 * Then bench/h200/wakeup.cu's wgmma_spin: one WGMMA m64nNk32 (E4M3), COMMIT_GROUP, D
 * NOPs (a cycle each), WAIT_GROUP 0, with TIMESTAMP.MODELs before the WGMMA, before the
 * wait and after it: "wait,N,wait_from,total" (cycles from the first), D = 0 .. 560, so
 * that bench/model.py finds the H200's every wait_from among them.
 * Usage: bench-model [KERNEL...] (default: every kernel of pipeline.cu, and the waits).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "mxa_isa.h"
#define BENCH_NAME "bench-model"
#include "bench_job.h"

#define KBYTES	3072u

struct kernel {
	uint32_t tm, n, box, stages;
	uint8_t type;	/* MXA_DTYPE_E4M3 or _BF16 */
};

static const char *type_name(uint8_t t)
{
	return t == MXA_DTYPE_E4M3 ? "e4m3" : "bf16";
}

static void kernel_name(const struct kernel *k, char *buf, size_t len)
{
	snprintf(buf, len, "pipe-%s-%ux%u-b%u-s%u", type_name(k->type), k->tm, k->n, k->box,
		 k->stages);
}

/* A tensor of @rows x KBYTES bytes at @va, boxes of @box-byte rows x @rows, swizzled. */
static void map2(struct mxa_tensor_map *m, uint64_t va, uint32_t eb, uint32_t rows,
		 uint32_t box)
{
	memset(m, 0, sizeof(*m));
	m->global_addr = va;
	m->rank = 2;
	m->elem_bytes = eb;
	m->swizzle = box == 128 ? MXA_TMA_SWIZZLE_128B : box == 64 ? MXA_TMA_SWIZZLE_64B :
							   MXA_TMA_SWIZZLE_32B;
	m->dims[0] = KBYTES / eb;
	m->dims[1] = rows;
	m->box[0] = box / eb;
	m->box[1] = rows;
	for (int d = 2; d < 5; d++)
		m->dims[d] = m->box[d] = 1;
	m->strides[0] = KBYTES;
}

struct layout {
	uint32_t kw, boxes, steps, stage, d, mbar;
	uint64_t map_a, map_b;
};

static int load(struct accel_prog *p, const struct kernel *k, const struct layout *l,
		uint32_t s, uint32_t step)
{
	uint32_t sa = s * l->stage, sb = sa + l->kw * k->tm * 32, eb = k->type == MXA_DTYPE_E4M3 ? 1 : 2;
	int ret = accel_prog_mbar_arrive(p, l->mbar + 16 * s, l->stage);

	for (uint32_t j = 0; !ret && j < l->boxes; j++) {
		int32_t c = (int32_t)((step * l->boxes + j) * (k->box / eb));
		struct accel_tma a = { .map = l->map_a, .sram = sa + j * k->tm * k->box,
				       .mbar = l->mbar + 16 * s, .coord = { c, 0 } };
		struct accel_tma b = { .map = l->map_b, .sram = sb + j * k->n * k->box,
				       .mbar = l->mbar + 16 * s, .coord = { c, 0 } };

		ret = accel_prog_tma(p, 0, &a);
		if (!ret)
			ret = accel_prog_tma(p, 0, &b);
	}
	return ret;
}

/* K step @j of the 64 rows @h of an operand of @rows rows at stage offset @st. */
static uint32_t k_addr(const struct kernel *k, uint32_t st, uint32_t rows, uint32_t j, uint32_t h)
{
	return st + (j * 32 / k->box) * rows * k->box + h * 64 * k->box + j * 32 % k->box;
}

static int build(struct accel_prog *p, const struct kernel *k, const struct layout *l,
		 int init_only)
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
		ret = load(p, k, l, s, s);
	for (uint32_t it = 0; !ret && it < l->steps; it++) {
		uint32_t s = it % S, sa = s * l->stage, sb = sa + l->kw * k->tm * 32;

		if (S == 1)
			ret = load(p, k, l, 0, it);
		if (!ret)
			ret = accel_prog_mbar_wait(p, l->mbar + 16 * s, (it / S) & 1, 0);
		for (uint32_t j = 0; !ret && j < l->kw; j++) {
			for (uint32_t h = 0; !ret && h < k->tm / 64; h++) {
				struct accel_wgmma_desc w = {
					.flags = it || j ? MXA_WGMMA_F_ACCUMULATE : 0,
					.type_a = k->type, .type_b = k->type,
					.type_d = MXA_DTYPE_F32, .n = k->n,
					.desc_a = MXA_SMEM_DESC(k_addr(k, sa, k->tm, j, h), 16,
								8 * k->box, 0, swz),
					.desc_b = MXA_SMEM_DESC(k_addr(k, sb, k->n, j, 0), 16,
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
			ret = load(p, k, l, (it + S - 1) % S, it + S - 1);
	}
	if (!ret)
		ret = accel_prog_wait_group(p, MXA_GROUP_MMA, 0);
	return ret;
}

static uint64_t run(struct accel_device *dev, struct accel_prog *p)
{
	struct accel_job_result r;
	struct accel_bo *bo;

	die(accel_bo_alloc(dev, accel_prog_size(p), &bo), "program buffer");
	die(accel_prog_upload(p, bo, 0), "upload");
	bench_job(dev, bo, accel_prog_size(p), &r);
	accel_bo_free(bo);
	return r.cycles;
}

static void model(struct accel_device *dev, struct accel_bo *data, const struct kernel *k)
{
	struct mxa_tensor_map *maps = accel_bo_map(data);
	uint64_t va = accel_bo_va(data), with, without;
	uint32_t eb = k->type == MXA_DTYPE_E4M3 ? 1 : 2;
	struct layout l = { .kw = k->box == 128 ? 4 : 2 };
	struct accel_prog *p;
	char name[64];

	l.boxes = l.kw * 32 / k->box;
	l.steps = KBYTES / (l.kw * 32);
	l.stage = l.kw * (k->tm + k->n) * 32;
	l.d = k->stages * l.stage;
	l.mbar = l.d + k->tm * k->n * 4;
	l.map_a = va;
	l.map_b = va + 128;
	map2(&maps[0], va + 4096, eb, k->tm, k->box);
	map2(&maps[1], va + 4096 + (uint64_t)k->tm * KBYTES, eb, k->n, k->box);
	die(accel_prog_new(&p), "program");
	die(build(p, k, &l, 0), "build");
	with = run(dev, p);
	accel_prog_reset(p);
	die(build(p, k, &l, 1), "build");
	without = run(dev, p);
	accel_prog_free(p);
	kernel_name(k, name, sizeof(name));
	printf("%s,%llu\n", name, (unsigned long long)(with - without));
	fflush(stdout);
}

/* The wait probes (wakeup.cu) for N = 64 and 256 and D = 0 .. 560 NOPs. */
static void waits(struct accel_device *dev, struct accel_bo *data)
{
	const uint64_t ts = accel_bo_va(data) + 1024;
	const struct mxa_timestamp_model *t =
		(const struct mxa_timestamp_model *)((uint8_t *)accel_bo_map(data) + 1024);

	for (uint32_t n = 64; n <= 256; n *= 4) {
		for (uint32_t d = 0; d <= 560; d++) {
			struct accel_wgmma_desc w = {
				.type_a = MXA_DTYPE_E4M3, .type_b = MXA_DTYPE_E4M3,
				.type_d = MXA_DTYPE_F32, .n = n,
				/* wakeup.cu's: K-major, no swizzle, B after 4 KiB */
				.desc_a = MXA_SMEM_DESC(0, 128, 256, 0, MXA_SMEM_DESC_SWIZZLE_NONE),
				.desc_b = MXA_SMEM_DESC(4096, 128, 256, 0, MXA_SMEM_DESC_SWIZZLE_NONE),
				.d = 4096 + 256 * 32,
			};
			struct accel_prog *p;
			int ret;

			die(accel_prog_new(&p), "program");
			ret = accel_prog_timestamp_model(p, ts);
			ret = ret ?: accel_prog_wgmma_desc(p, &w);
			ret = ret ?: accel_prog_commit_group(p, MXA_GROUP_MMA);
			for (uint32_t i = 0; !ret && i < d; i++)
				ret = accel_prog_nop(p);
			ret = ret ?: accel_prog_timestamp_model(p, ts + 32);
			ret = ret ?: accel_prog_wait_group(p, MXA_GROUP_MMA, 0);
			ret = ret ?: accel_prog_timestamp_model(p, ts + 64);
			die(ret, "build");
			run(dev, p);
			accel_prog_free(p);
			printf("wait,%u,%llu,%llu\n", n,
			       (unsigned long long)(t[1].cycles - t[0].cycles),
			       (unsigned long long)(t[2].cycles - t[0].cycles));
		}
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const uint32_t shapes[][3] = {	/* tile_m, tile_n, box: pipeline.cu's */
		{ 64, 64, 32 }, { 64, 128, 32 }, { 64, 256, 32 }, { 128, 64, 32 },
		{ 128, 128, 32 }, { 64, 128, 64 }, { 64, 256, 64 }, { 128, 128, 64 },
		{ 64, 128, 128 }, { 64, 256, 128 }, { 128, 128, 128 },
	};
	static const uint8_t types[] = { MXA_DTYPE_E4M3, MXA_DTYPE_BF16 };
	struct accel_device *dev;
	struct accel_bo *data;
	int ran = 0;

	die(accel_open(NULL, ACCEL_SUBMIT_URING, &dev), "open");
	die(accel_bo_alloc(dev, 4096 + 384 * KBYTES, &data), "data");
	memset(accel_bo_map(data), 0x38, 4096 + 384 * KBYTES);
	printf("kernel,modelled\n");
	for (unsigned t = 0; t < 2; t++) {
		for (unsigned i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
			for (uint32_t s = 1; s <= 4; s++) {
				struct kernel k = { shapes[i][0], shapes[i][1], shapes[i][2], s,
						    types[t] };
				char name[64];
				int want = argc < 2;

				kernel_name(&k, name, sizeof(name));
				for (int a = 1; a < argc; a++)
					want |= !strcmp(argv[a], name);
				if (want) {
					model(dev, data, &k);
					ran++;
				}
			}
		}
	}
	if (argc < 2)
		waits(dev, data);
	accel_bo_free(data);
	accel_close(dev);
	if (!ran) {
		fprintf(stderr, "bench-model: no such kernel\n");
		return 1;
	}
	return 0;
}
