// SPDX-License-Identifier: MIT
/*
 * bench-cluster: a BF16 GEMM D (M x N, f32) = A (M x K) x B (N x K)^T as a grid of
 * 64 x 64 tiles, one instance each (TMA boxes of 128-byte rows, WGMMA_DESC, K = 3072
 * bytes), run three ways:
 *   grid       M/64 x N/64 instances, each loading its A rows and B rows;
 *   cluster    the same grid in 2x1 clusters: the two instances of a cluster share
 *              their B tile, so each loads half of its rows and multicasts them to
 *              both (TMA_LOAD with a CTA mask), meeting at the cluster barrier before
 *              each refill of the stage;
 *   serial     the grid's instances as one-instance jobs one after another.
 * Each result is checked against the host (exact: small BF16 values); the device counts
 * the bytes TMA loads read (tma_load_bytes). Output (CSV, for build/bench/cluster.csv):
 *   variant,instances,cluster,tma_load_bytes,b_bytes,ratio,ms,speedup,cores,engine_threads,
 *   max_err
 * ratio: the B bytes TMA read over the grid's; speedup: the serial jobs' time over this
 * variant's.
 * Usage: bench-cluster [--reps N]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "mxa_isa.h"
#define BENCH_NAME "bench-cluster"
#include "bench_job.h"

#define M	256u
#define N	128u
#define KB	3072u			/* K in bytes */
#define KE	(KB / 2)		/* K in BF16 elements */
#define TILE	64u
#define BOX	128u			/* bytes of a box row (128-byte swizzle) */
#define KW	4u			/* K steps of 32 bytes per stage */
#define STEPS	(KB / (KW * 32))
#define STAGE	(KW * 2 * TILE * 32)	/* A and B boxes of one stage */
#define SRAM_D	STAGE
#define SRAM_MBAR (SRAM_D + TILE * TILE * 4)
#define T0	MXA_TILE(MXA_TILE_T, 0)

/* device buffer: maps, then A, B, D */
#define OFF_MAPS 0u
#define OFF_A	4096u
#define OFF_B	(OFF_A + M * KB)
#define OFF_D	(OFF_B + N * KB)
#define BYTES	(OFF_D + M * N * 4)

static void map2(void *dst, uint64_t va, uint32_t rows, uint32_t box_rows)
{
	struct accel_tensor_map_desc d = {
		.global_va = va, .rank = 2, .elem_bytes = 2, .dims = { KE, rows },
		.strides = { KB }, .box = { BOX / 2, box_rows }, .swizzle = MXA_TMA_SWIZZLE_128B,
	};
	char why[160];

	if (accel_tensor_map_encode(dst, &d, why, sizeof(why))) {
		fprintf(stderr, BENCH_NAME ": tensor map: %s\n", why);
		exit(1);
	}
}

/* Append a command; a failure names the emitter call. */
#define EMIT(call) die((call), #call)

/* K step @j of a @rows-row operand at stage offset @st (bench-model.c's layout). */
static uint32_t k_addr(uint32_t st, uint32_t rows, uint32_t j)
{
	return st + (j * 32 / BOX) * rows * BOX + j * 32 % BOX;
}

/* The tile program; @cluster: B multicast in 2x1 clusters. */
static void build(struct accel_prog *p, uint64_t va, int cluster)
{
	const uint32_t sa = 0, sb = KW * TILE * 32;

	EMIT(accel_prog_reg_cta(p, 10, MXA_SREG_CTAID_X, TILE));	/* A rows */
	EMIT(accel_prog_reg_cta(p, 11, MXA_SREG_CTAID_Y, TILE));	/* B rows */
	EMIT(accel_prog_reg_cta(p, 12, MXA_SREG_CLUSTER_CTARANK, TILE / 2));
	EMIT(accel_prog_reg_cta(p, 13, MXA_SREG_CLUSTER_CTARANK, TILE / 2 * BOX));
	EMIT(accel_prog_reg_add(p, 15, 11, 12, 0));	/* this rank's half of B */
	EMIT(accel_prog_mbar_init(p, SRAM_MBAR, 1));
	if (cluster) {
		EMIT(accel_prog_cluster_arrive(p));	/* the peer's barrier exists */
		EMIT(accel_prog_cluster_wait(p));
	}
	for (uint32_t it = 0; it < STEPS; it++) {
		if (cluster && it) {
			/* both have read the stage before either refills it */
			EMIT(accel_prog_cluster_arrive(p));
			EMIT(accel_prog_cluster_wait(p));
		}
		EMIT(accel_prog_mbar_arrive(p, SRAM_MBAR, STAGE));
		for (uint32_t j = 0; j < KW * 32 / BOX; j++) {
			int32_t c = (int32_t)((it * KW * 32 / BOX + j) * (BOX / 2));
			struct accel_tma a = { .map = va + OFF_MAPS, .sram = sa + j * TILE * BOX,
					       .mbar = SRAM_MBAR, .coord = { c, 0 },
					       .coord_reg = { 0, 10 } };
			struct accel_tma b = { .map = va + OFF_MAPS + 128,
					       .sram = sb + j * TILE * BOX, .mbar = SRAM_MBAR,
					       .coord = { c, 0 }, .coord_reg = { 0, 11 } };

			if (cluster) {
				b.map = va + OFF_MAPS + 256;	/* half-height boxes */
				b.sram_reg = 13;
				b.coord_reg[1] = 15;
				b.cta_mask = 3;
			}
			EMIT(accel_prog_tma(p, 0, &a));
			EMIT(accel_prog_tma(p, 0, &b));
		}
		EMIT(accel_prog_mbar_wait(p, SRAM_MBAR, it & 1, 0));
		for (uint32_t j = 0; j < KW; j++) {
			struct accel_wgmma_desc w = {
				.flags = it || j ? MXA_WGMMA_F_ACCUMULATE : 0,
				.type_a = MXA_DTYPE_BF16, .type_b = MXA_DTYPE_BF16,
				.type_d = MXA_DTYPE_F32, .n = TILE,
				.desc_a = MXA_SMEM_DESC(k_addr(sa, TILE, j), 16, 8 * BOX, 0,
							MXA_SMEM_DESC_SWIZZLE_128B),
				.desc_b = MXA_SMEM_DESC(k_addr(sb, TILE, j), 16, 8 * BOX, 0,
							MXA_SMEM_DESC_SWIZZLE_128B),
				.d = SRAM_D,
			};

			EMIT(accel_prog_wgmma_desc(p, &w));
		}
		EMIT(accel_prog_commit_group(p, MXA_GROUP_MMA));
		EMIT(accel_prog_wait_group(p, MXA_GROUP_MMA, 0));
	}
	/* D's tile: rows ctaid.x * 64, columns ctaid.y * 64 of the M x N f32 result */
	EMIT(accel_prog_reg_cta(p, 16, MXA_SREG_CTAID_X, TILE * N * 4));
	EMIT(accel_prog_reg_cta(p, 17, MXA_SREG_CTAID_Y, TILE * 4));
	EMIT(accel_prog_reg_add(p, 18, 16, 17, 0));
	EMIT(accel_prog_tile_load(p, T0, 0, SRAM_D, 0, TILE, TILE * 4, 0));
	EMIT(accel_prog_tile_store(p, T0, 1, va + OFF_D, 18, TILE, TILE * 4, N * 4));
}

static float bf16(uint16_t v)
{
	uint32_t u = (uint32_t)v << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * Run the program (@grid; NULL: @count one-instance jobs in a row): the best time of
 * @reps in ms; *@bytes: the TMA bytes the jobs of the last run read.
 */
static double run(struct accel_device *dev, struct accel_bo *bo, size_t size,
		  const struct accel_grid *grid, unsigned count, unsigned reps,
		  uint64_t *bytes)
{
	double best = 1e30;

	for (unsigned rep = 0; rep < reps; rep++) {
		uint64_t t0 = 0, t1 = 0;

		*bytes = 0;
		for (unsigned i = 0; i < (grid ? 1 : count); i++) {
			struct accel_job_result r;
			struct accel_job *job;

			die(accel_submit_grid(dev, 0, bo, 0, size, grid, &job), "submit");
			die(accel_wait(job, -1), "wait");
			r = *accel_job_result(job);
			accel_job_free(job);
			if (r.status) {
				char why[256];

				accel_job_explain(&r, why, sizeof(why));
				fprintf(stderr, BENCH_NAME ": %s (instance %u)\n", why,
					r.err_instance);
				exit(1);
			}
			t0 = i ? t0 : r.start_ns;
			t1 = r.end_ns;
			*bytes += r.tma_load_bytes;
		}
		best = (t1 - t0) / 1e6 < best ? (t1 - t0) / 1e6 : best;
	}
	return best;
}

/* Largest |D - host| over rows [0, @rows) and columns [0, @cols) (0 when exact). */
static double check(const uint16_t *a, const uint16_t *b, const float *d, uint32_t rows,
		    uint32_t cols)
{
	double worst = 0;

	for (uint32_t i = 0; i < rows; i++) {
		for (uint32_t j = 0; j < cols; j++) {
			double s = 0;

			for (uint32_t k = 0; k < KE; k++)
				s += (double)bf16(a[i * KE + k]) * bf16(b[j * KE + k]);
			if (fabs((float)s - d[i * N + j]) > worst)
				worst = fabs((float)s - d[i * N + j]);
		}
	}
	return worst;
}

int main(int argc, char **argv)
{
	static const uint16_t vals[] = { 0x0000, 0x3f80, 0xbf80, 0x3f00, 0xbf00, 0x4000, 0x3fc0 };
	const struct accel_grid grid = { .x = M / TILE, .y = N / TILE };
	const struct accel_grid clustered = { .x = M / TILE, .y = N / TILE, .cluster_x = 2 };
	const unsigned count = (M / TILE) * (N / TILE);
	const uint64_t a_bytes = (uint64_t)count * TILE * KB;	/* each instance its A rows */
	unsigned reps = argc > 2 && !strcmp(argv[1], "--reps") ? (unsigned)atoi(argv[2]) : 3;
	const struct accel_device_info *info;
	struct accel_bo *data, *prog_bo[2];
	struct accel_device *dev;
	struct accel_prog *p[2];
	uint16_t *a, *b;
	uint8_t *base;
	uint64_t va, bytes[3];
	double serial_ms, ms[3], err[3];
	uint32_t seed = 1;

	die(accel_open(NULL, ACCEL_SUBMIT_URING, &dev), "open");
	info = accel_device_info(dev);
	die(accel_bo_alloc(dev, BYTES, &data), "data");
	base = accel_bo_map(data);
	va = accel_bo_va(data);
	a = (uint16_t *)(base + OFF_A);
	b = (uint16_t *)(base + OFF_B);
	for (uint32_t i = 0; i < M * KE + N * KE; i++) {
		seed = seed * 1103515245u + 12345u;
		a[i] = vals[(seed >> 16) % 7];	/* b follows a in the buffer */
	}
	map2(base + OFF_MAPS, va + OFF_A, M, TILE);
	map2(base + OFF_MAPS + 128, va + OFF_B, N, TILE);
	map2(base + OFF_MAPS + 256, va + OFF_B, N, TILE / 2);
	for (int c = 0; c < 2; c++) {
		die(accel_prog_new(&p[c]), "program");
		build(p[c], va, c);
		die(accel_bo_alloc(dev, accel_prog_size(p[c]), &prog_bo[c]), "program buffer");
		die(accel_prog_upload(p[c], prog_bo[c], 0), "upload");
	}

	printf("variant,instances,cluster,tma_load_bytes,b_bytes,ratio,ms,speedup,cores,"
	       "engine_threads,max_err\n");
	/* serial first: the others' speed-up is over it; its jobs all compute tile (0, 0) */
	memset(base + OFF_D, 0, M * N * 4);
	serial_ms = run(dev, prog_bo[0], accel_prog_size(p[0]), NULL, count, reps, &bytes[2]);
	err[2] = check(a, b, (const float *)(base + OFF_D), TILE, TILE);
	for (int c = 0; c < 2; c++) {
		memset(base + OFF_D, 0, M * N * 4);
		ms[c] = run(dev, prog_bo[c], accel_prog_size(p[c]), c ? &clustered : &grid, count,
			    reps, &bytes[c]);
		err[c] = check(a, b, (const float *)(base + OFF_D), M, N);
	}
	ms[2] = serial_ms;
	for (int v = 0; v < 3; v++) {
		uint64_t b_bytes = bytes[v] - a_bytes;

		printf("%s,%u,%s,%llu,%llu,%.3f,%.2f,%.2f,%u,%u,%g\n",
		       v == 0 ? "grid" : v == 1 ? "cluster" : "serial", count,
		       v == 1 ? "2x1" : "1x1", (unsigned long long)bytes[v],
		       (unsigned long long)b_bytes,
		       (double)b_bytes / (bytes[0] - a_bytes), ms[v], serial_ms / ms[v],
		       info->num_cores, info->num_engine_threads, err[v]);
	}
	for (int v = 0; v < 3; v++) {
		if (err[v] != 0) {
			fprintf(stderr, BENCH_NAME ": the %s result differs from the host by %g\n",
				v == 0 ? "grid" : v == 1 ? "cluster" : "serial", err[v]);
			return 1;
		}
	}
	for (int c = 0; c < 2; c++) {
		accel_bo_free(prog_bo[c]);
		accel_prog_free(p[c]);
	}
	accel_bo_free(data);
	accel_close(dev);
	return 0;
}
