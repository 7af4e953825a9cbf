// SPDX-License-Identifier: MIT
/*
 * bench-gemm: guest-side GEMM and TMA measurements of Documentation/performance.rst.
 * Prints raw CSV lines "kind,name,param,ns" (best of --reps); bench/ratios.py joins
 * them with the host's reference numbers (bench-host) measured in the same run.
 *
 *   bench-gemm e2e [M N K]   accel_gemm() MX-FP8 through io_uring: wall time around the
 *                            call (submit to completion) and the device's own
 *                            end_ns - start_ns, default 2048^3
 *   bench-gemm pipeline      accel_gemm_desc TMA + WGMMA programs: serial (1 stage)
 *                            against the planned stages, intrawave and interwave, on a
 *                            memory-bound and a compute-bound FP8 shape, and the planned
 *                            stages spread over the device's cores as a persistent grid
 *                            (accel_gemm_plan_spread), and the reference: the engine's
 *                            FAST GEMM command on the same operands (device time)
 *   bench-gemm tma           TMA load and store bandwidth: 64 KiB boxes through SRAM
 *                            over a 32 MiB tensor (device time); loads through a ring
 *                            of --stages buffers (default 3)
 *   bench-gemm gemv          LLM-style GEMV through accel_gemm(): MXFP4 weights (E2M1,
 *                            E8M0 scales) against BF16 activations, MX-FP8 weights
 *                            against MX-E4M3 ones, NVFP4 against NVFP4, MXFP4 against
 *                            an MLP's SiLU outputs in BF16 (bench_gemv.h),
 *                            M = 1, 8, 32, N = K = 4096, 8192,
 *                            default (EXACT) and FAST numerics (device time;
 *                            "gemv,TYPE-MxNxK,device[-fast],ns")
 * Options after the mode: --reps N (default 3); gemv also --m M, --nk NK, --weights W
 * (only that M, only N = K = NK, a multiple of 64, only weights W: mxfp4, mxfp8, nvfp4 or
 * mxfp4silu); pipeline also --shape memory|compute (only that one)
 * and --program NAME (only the programs whose third field begins with NAME, such as
 * "intrawave-pipelined" or "command-fast"), to profile them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accel.h"
#include "mxa_isa.h"
#include "bench_gemv.h"
#include "bench_runs.h"
#define BENCH_NAME "bench-gemm"
#include "bench_job.h"
#include "bench_pipe.h"

static int reps = 3;
static unsigned only_m;	/* gemv --m: only this M */
static unsigned only_nk;	/* gemv --nk: only N = K = this */
static int only_fmt = -1;	/* gemv --weights: only this format (gemv_fmt_of()) */
static const char *only_shape;	/* pipeline --shape: only this one */
static const char *only_program;	/* pipeline --program: only those named so */

/* pipeline --program: does the program printed as @name run? */
static bool program_runs(const char *name)
{
	return !only_program || !strncmp(name, only_program, strlen(only_program));
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Submit @prog @reps times or more (bench_more_runs()); best device time (ns). */
static double run_best(struct accel_device *dev, struct accel_prog *prog,
		       const struct accel_grid *grid)
{
	struct accel_bo *bo;
	double best = 1e30, spent = 0;

	die(accel_bo_alloc(dev, accel_prog_size(prog), &bo), "program buffer");
	die(accel_prog_upload(prog, bo, 0), "upload");
	for (int i = 0; bench_more_runs(i, reps, spent); i++) {
		struct accel_job_result r;

		bench_job_grid(dev, bo, accel_prog_size(prog), grid, &r);
		spent += r.end_ns - r.start_ns;
		if (r.end_ns - r.start_ns < best)
			best = r.end_ns - r.start_ns;
	}
	accel_bo_free(bo);
	return best;
}

static void e2e(struct accel_device *dev, uint32_t m, uint32_t n, uint32_t k)
{
	size_t sa = (size_t)m * k, sb = (size_t)n * k;
	struct accel_bo *bo;
	struct accel_gemm g = { 0 };
	double wall = 1e30, devt = 1e30;
	uint8_t *p;
	uint64_t va;

	die(accel_bo_alloc(dev, sa + sb + sa / 32 + sb / 32 + (size_t)m * n * 4, &bo), "bo");
	p = accel_bo_map(bo);
	va = accel_bo_va(bo);
	/* E4M3 codes of moderate size, scales around 1 */
	for (size_t i = 0; i < sa + sb; i++)
		p[i] = (uint8_t)(0x30 + (i * 2654435761u >> 13) % 0x18) | (i & 0x80);
	memset(p + sa + sb, 127, sa / 32 + sb / 32);
	g.m = m; g.n = n; g.k = k;
	g.type_a = g.type_b = MXA_DTYPE_E4M3;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.scale_block = 32;
	g.a = va; g.b = va + sa;
	g.scale_a = va + sa + sb; g.scale_b = va + sa + sb + sa / 32;
	g.d = va + sa + sb + sa / 32 + sb / 32;
	for (int i = 0; i < reps; i++) {
		struct accel_job_result r;
		double t0 = now_ns(), t;

		die(accel_gemm(dev, 0, &g, &r), "accel_gemm");
		t = now_ns() - t0;
		if (t < wall)
			wall = t;
		if (r.end_ns - r.start_ns < devt)
			devt = r.end_ns - r.start_ns;
	}
	printf("e2e,mxfp8-%ux%ux%u,wall,%.0f\n", m, n, k, wall);
	printf("e2e,mxfp8-%ux%ux%u,device,%.0f\n", m, n, k, devt);
	accel_bo_free(bo);
}

/* The FP8 GEMM of both pipeline shapes: A (m x k) at @va, B^T (n x k) after it, D after B. */
static void fp8_desc(struct accel_gemm_desc *d, uint32_t m, uint32_t n, uint32_t k, uint64_t va)
{
	accel_gemm_desc_init(d);
	d->m = m; d->n = n; d->k = k;
	d->type_a = d->type_b = MXA_DTYPE_E4M3;
	d->type_c = d->type_d = MXA_DTYPE_F32;
	d->trans_b = ACCEL_OP_T;
	d->a = va; d->b = va + (uint64_t)m * k; d->d = va + (uint64_t)(m + n) * k;
}

/*
 * The hand-written pipeline (bench_pipe.h, the H200's kernel) over every output tile of
 * @m x @n x @k E4M3 (A at @va, B after it, D after B): tiles of up to 128 x 128, boxes
 * of 128-byte rows, 4 stages; each tile's D leaves by TMA_STORE, waited for before the
 * next tile's first WGMMA writes the tile again. @grid_form: as a CUDA kernel is
 * launched, one instance per tile (its rows from %ctaid by REG_CTA) over the device's
 * cores; else one instance runs the tiles in turn. Returns the best device time (ns).
 */
static double handwritten(struct accel_device *dev, struct accel_bo *maps, uint64_t va,
			  uint32_t m, uint32_t n, uint32_t k, int grid_form)
{
	struct pipe_kernel pk = { m < 128 ? m : 128, n < 128 ? n : 128, 128, 4, MXA_DTYPE_E4M3 };
	struct mxa_tensor_map *mp = accel_bo_map(maps);
	uint64_t mva = accel_bo_va(maps);
	struct pipe_layout l = pipe_layout(&pk, k, mva, mva + 128);
	struct accel_grid grid = { .x = 1, .y = 1, .cluster_x = 1, .cluster_y = 1 };
	struct accel_prog *prog;
	double t;

	pipe_map2(&mp[0], va, 1, k, m, pk.tm, pk.box);
	pipe_map2(&mp[1], va + (uint64_t)m * k, 1, k, n, pk.n, pk.box);
	memset(&mp[2], 0, sizeof(mp[2]));	/* D: f32, n x m, a tile a box */
	mp[2].global_addr = va + (uint64_t)(m + n) * k;
	mp[2].rank = 2;
	mp[2].elem_bytes = 4;
	mp[2].dims[0] = n;
	mp[2].dims[1] = m;
	mp[2].box[0] = pk.n;
	mp[2].box[1] = pk.tm;
	for (int d = 2; d < 5; d++)
		mp[2].dims[d] = mp[2].box[d] = 1;
	mp[2].strides[0] = (uint64_t)n * 4;
	die(accel_prog_new(&prog), "prog");
	if (grid_form) {	/* r1 = ctaid.x x the tile's rows, r2 = ctaid.y x its columns */
		struct accel_tma st = { .map = mva + 256, .sram = l.d, .coord_reg = { 2, 1 } };

		grid.x = m / pk.tm;
		grid.y = n / pk.n;
		l.reg_a = 1;
		l.reg_b = 2;
		die(accel_prog_reg_cta(prog, 1, MXA_SREG_CTAID_X, pk.tm), "the tile's rows");
		die(accel_prog_reg_cta(prog, 2, MXA_SREG_CTAID_Y, pk.n), "the tile's columns");
		die(pipe_build(prog, &pk, &l, 0), "hand-written pipeline");
		die(accel_prog_tma(prog, 1, &st), "the D tile's store");
		die(accel_prog_commit_group(prog, MXA_GROUP_COPY), "commit");
		die(accel_prog_wait_group(prog, MXA_GROUP_COPY, 0), "wait");
	}
	for (uint32_t ti = 0; !grid_form && ti < m / pk.tm; ti++) {
		for (uint32_t tj = 0; tj < n / pk.n; tj++) {
			struct accel_tma st = { .map = mva + 256, .sram = l.d,
						.coord = { (int32_t)(tj * pk.n), (int32_t)(ti * pk.tm) } };

			l.row_a = (int32_t)(ti * pk.tm);
			l.row_b = (int32_t)(tj * pk.n);
			die(pipe_build(prog, &pk, &l, 0), "hand-written pipeline");
			die(accel_prog_tma(prog, 1, &st), "the D tile's store");
			die(accel_prog_commit_group(prog, MXA_GROUP_COPY), "commit");
			die(accel_prog_wait_group(prog, MXA_GROUP_COPY, 0), "wait");
		}
	}
	t = run_best(dev, prog, &grid);
	accel_prog_free(prog);
	return t;
}

static void pipeline(struct accel_device *dev)
{
	static const struct { const char *name; uint32_t m, n, k; } shapes[] = {
		{ "memory", 64, 64, 65536 },
		{ "compute", 512, 512, 2048 },
	};
	static const uint8_t scheds[] = { ACCEL_GEMM_SCHED_INTRAWAVE, ACCEL_GEMM_SCHED_INTERWAVE };

	for (unsigned s = 0; s < 2; s++) {
		uint32_t m = shapes[s].m, n = shapes[s].n, k = shapes[s].k;
		size_t sa = (size_t)m * k, sb = (size_t)n * k;
		struct accel_bo *bo, *maps;
		uint8_t *p;
		uint64_t va;
		bool planner_ran = false;

		if (only_shape && strcmp(only_shape, shapes[s].name))
			continue;
		die(accel_bo_alloc(dev, sa + sb + (size_t)m * n * 4, &bo), "bo");
		die(accel_bo_alloc(dev, ACCEL_GEMM_MAPS_BYTES, &maps), "maps");
		p = accel_bo_map(bo);
		va = accel_bo_va(bo);
		for (size_t i = 0; i < sa + sb; i++)
			p[i] = (uint8_t)(0x30 + (i * 2654435761u >> 13) % 0x18) | (i & 0x80);
		for (unsigned w = 0; w < 2; w++) {
			/* -1: on the cores; -2: on the cores in 2x1 clusters multicasting B */
			for (int serial = 1; serial >= -2; serial--) {
				struct accel_gemm_desc d;
				struct accel_gemm_plan pl;
				struct accel_grid grid = { .cluster_x = 1, .cluster_y = 1 };
				struct accel_prog *prog;
				char kind[16], name[64];

				fp8_desc(&d, m, n, k, va);
				d.algo = ACCEL_GEMM_ALGO_PIPELINE;
				d.sched = scheds[w];
				d.stages = serial == 1 ? 1 : 0;
				d.cluster_m = serial == -2 ? 2 : 1;
				die(accel_gemm_plan(&d, &pl), "plan");
				if (serial < 0)
					accel_gemm_plan_spread(&pl, &d,
							       accel_device_info(dev)->num_cores);
				if (serial == -2 && pl.cluster_x != 2)
					continue;	/* the tiles of M make no 2x1 clusters */
				snprintf(kind, sizeof(kind), "grid%uc%u", pl.grid_x * pl.grid_y,
					 pl.cluster_x);
				snprintf(name, sizeof(name), "%s-%s-%ustage",
					 w ? "interwave" : "intrawave",
					 serial > 0 ? "serial" : serial == 0 ? "pipelined" : kind,
					 pl.stages);
				if (!program_runs(name))
					continue;
				grid.x = pl.grid_x;
				grid.y = pl.grid_y;
				grid.cluster_x = pl.cluster_x;
				die(accel_prog_new(&prog), "prog");
				die(accel_prog_gemm_desc(prog, &d, &pl, accel_bo_map(maps),
							 accel_bo_va(maps)), "build");
				printf("pipeline,%s-%ux%ux%u,%s,%.0f\n", shapes[s].name, m, n, k, name,
				       run_best(dev, prog, &grid));
				fflush(stdout);
				accel_prog_free(prog);
				planner_ran = true;
			}
		}
		/* the hand-written pipeline, one instance and (more than one tile) a grid of
		 * one per tile: the same bits as the planner's (when a planned one ran) */
		for (int gf = 0; gf < 2 && (!gf || m * n > 128 * 128); gf++) {
			size_t dbytes = (size_t)m * n * 4;
			uint8_t *planned;
			char name[64];
			double t;

			snprintf(name, sizeof(name), "intrawave-handwritten%s-4stage",
				 gf ? "grid" : "");
			if (!program_runs(name))
				continue;
			planned = malloc(dbytes);
			if (!planned)
				die(-ENOMEM, "malloc");
			memcpy(planned, p + sa + sb, dbytes);
			memset(p + sa + sb, 0, dbytes);
			t = handwritten(dev, maps, va, m, n, k, gf);
			if (planner_ran && memcmp(planned, p + sa + sb, dbytes))
				die(-EIO, "the hand-written pipeline's D differs from the planner's");
			free(planned);
			printf("pipeline,%s-%ux%ux%u,%s,%.0f\n", shapes[s].name, m, n, k, name, t);
			fflush(stdout);
		}
		/* the reference: the engine's FAST GEMM command on the same operands */
		if (program_runs("command-fast")) {
			struct accel_gemm_desc d;
			struct accel_gemm_plan pl;
			struct accel_prog *prog;
			struct accel_grid grid = { .x = 1, .y = 1, .cluster_x = 1, .cluster_y = 1 };

			fp8_desc(&d, m, n, k, va);
			d.algo = ACCEL_GEMM_ALGO_COMMAND;
			d.numerics = ACCEL_GEMM_NUM_FAST;
			die(accel_gemm_plan(&d, &pl), "plan");
			die(accel_prog_new(&prog), "prog");
			die(accel_prog_gemm_desc(prog, &d, &pl, accel_bo_map(maps),
						 accel_bo_va(maps)), "build");
			printf("pipeline-ref,%s-%ux%ux%u,command-fast,%.0f\n", shapes[s].name, m, n, k,
			       run_best(dev, prog, &grid));
			fflush(stdout);
			accel_prog_free(prog);
		}
		accel_bo_free(maps);
		accel_bo_free(bo);
	}
}

#define TMA_ROWS	(32u << 10)	/* 32 MiB tensor of 32 Ki rows x 1 KiB */
#define TMA_BOX_ROWS	64u		/* 64 KiB boxes */

/* the ring's buffer @b: its mbarrier, after the @stages buffers of 64 KiB */
#define TMA_MBAR(b)	(stages * (64u << 10) + 16u * (b))

static unsigned stages = 3;	/* tma --stages: 1 to 3 (3 x 64 KiB fill 192 KiB of SRAM) */

/* (wait for buffer @b's last box, then) load the box at row R1 + b boxes into it */
static void tma_ring_load(struct accel_prog *prog, struct accel_tma *t, unsigned b,
			  uint32_t parity, bool wait)
{
	t->sram = b * (64u << 10);
	t->mbar = TMA_MBAR(b);
	t->coord[1] = b * TMA_BOX_ROWS;
	if (wait)
		accel_prog_mbar_wait(prog, t->mbar, parity, 2);
	accel_prog_mbar_arrive(prog, t->mbar, 64u << 10);
	accel_prog_tma(prog, 0, t);
}

static void tma(struct accel_device *dev)
{
	struct accel_bo *bo;
	struct mxa_tensor_map *map;
	uint64_t va, map_va;
	uint32_t boxes = TMA_ROWS / TMA_BOX_ROWS;

	die(accel_bo_alloc(dev, ((size_t)TMA_ROWS << 10) + 4096, &bo), "bo");
	va = accel_bo_va(bo);
	map = accel_bo_map(bo);
	map_va = va;
	memset(map, 0, sizeof(*map));
	map->global_addr = va + 4096;
	map->rank = 2;
	map->elem_bytes = 4;
	map->dims[0] = 256;
	map->dims[1] = TMA_ROWS;
	map->dims[2] = map->dims[3] = map->dims[4] = 1;
	map->box[0] = 256;
	map->box[1] = TMA_BOX_ROWS;
	map->box[2] = map->box[3] = map->box[4] = 1;
	map->strides[0] = 1024;
	memset((char *)accel_bo_map(bo) + 4096, 0x3c, (size_t)TMA_ROWS << 10);
	for (int store = 0; store < 2; store++) {
		struct accel_prog *prog;
		struct accel_tma t = { .map = map_va, .coord_reg = { 0, 1 } };

		die(accel_prog_new(&prog), "prog");
		if (!store) {
			/*
			 * A ring of @stages buffers, as a pipelined kernel loads: each
			 * wait for one buffer's box is followed at once by the load that
			 * refills it, so the copy engine always has the other buffers'
			 * boxes to move (R1: row offset, R2: the phase parity of the
			 * mbarriers, which sit after the buffers). A last, partial round
			 * refills the first boxes % stages buffers.
			 */
			uint32_t rounds = boxes / stages, rem = boxes % stages;

			for (unsigned b = 0; b < stages; b++)
				accel_prog_mbar_init(prog, TMA_MBAR(b), 1);
			for (unsigned b = 0; b < stages; b++)
				tma_ring_load(prog, &t, b, 0, false);
			accel_prog_reg_add(prog, 1, 1, 0, stages * TMA_BOX_ROWS);
			if (rounds > 1) {
				accel_prog_loop(prog, rounds - 1, 0);
				for (unsigned b = 0; b < stages; b++)
					tma_ring_load(prog, &t, b, 0, true);
				accel_prog_reg_add(prog, 2, 2, 0, 1);
				accel_prog_reg_add(prog, 1, 1, 0, stages * TMA_BOX_ROWS);
				accel_prog_endloop(prog);
			}
			for (unsigned b = 0; b < rem; b++)
				tma_ring_load(prog, &t, b, 0, true);
			for (unsigned b = 0; b < stages; b++)
				accel_prog_mbar_wait(prog, TMA_MBAR(b), b < rem, 2);
		} else {
			accel_prog_loop(prog, boxes, 0);
			t.sram = 0;
			accel_prog_tma(prog, 1, &t);
			accel_prog_commit_group(prog, MXA_GROUP_COPY);
			accel_prog_wait_group(prog, MXA_GROUP_COPY, 8);
			accel_prog_reg_add(prog, 1, 1, 0, TMA_BOX_ROWS);
			accel_prog_endloop(prog);
			accel_prog_wait_group(prog, MXA_GROUP_COPY, 0);
		}
		printf("tma,%s,%u,%.0f\n", store ? "store" : "load", TMA_ROWS << 10,
		       run_best(dev, prog, NULL));
		fflush(stdout);
		accel_prog_free(prog);
	}
	accel_bo_free(bo);
}

static void gemv(struct accel_device *dev)
{
	static const uint32_t ms[] = { 1, 8, 32 }, nks[] = { 4096, 8192 };

	for (int fmt = 0; fmt < GEMV_FMTS; fmt++) {
		if (only_fmt >= 0 && fmt != only_fmt)
			continue;
		for (unsigned s = 0; s < 2; s++) {
			uint32_t nk = only_nk ? only_nk : nks[s];
			struct gemv_layout l = gemv_layout(nk, fmt);
			struct accel_bo *bo;
			uint64_t va;

			die(accel_bo_alloc(dev, l.bytes, &bo), "bo");
			gemv_fill(accel_bo_map(bo), nk, fmt);
			va = accel_bo_va(bo);
			for (unsigned mi = 0; mi < 6; mi++) {	/* EXACT, then FAST */
				struct accel_gemm g = { 0 };
				double devt = 1e30, spent = 0;

				if (only_m && ms[mi % 3] != only_m)
					continue;
				GEMV_DESC(g, ms[mi % 3], nk, fmt, va, l, 0);
				g.accum = mi < 3 ? MXA_GEMM_ACCUM_EXACT : MXA_GEMM_ACCUM_FAST;
				for (int i = 0; bench_more_runs(i, reps, spent); i++) {
					struct accel_job_result r;

					die(accel_gemm(dev, 0, &g, &r), "accel_gemm");
					spent += r.end_ns - r.start_ns;
					if (r.end_ns - r.start_ns < devt)
						devt = r.end_ns - r.start_ns;
				}
				printf("gemv,%s-%ux%ux%u,device%s,%.0f\n", gemv_fmt_name[fmt], g.m,
				       nk, nk, mi < 3 ? "" : "-fast", devt);
				fflush(stdout);
			}
			accel_bo_free(bo);
			if (only_nk)
				break;
		}
	}
}

int main(int argc, char **argv)
{
	struct accel_device *dev;
	const char *mode = argc > 1 ? argv[1] : "e2e";
	uint32_t sz[3] = { 2048, 2048, 2048 };
	int nsz = 0;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--m") && i + 1 < argc)
			only_m = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--nk") && i + 1 < argc)
			only_nk = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--weights") && i + 1 < argc) {
			only_fmt = gemv_fmt_of(argv[++i]);
			if (only_fmt < 0)
				die(-22, "gemv --weights: mxfp4, mxfp8, nvfp4 or mxfp4silu");
		}
		else if (!strcmp(argv[i], "--shape") && i + 1 < argc)
			only_shape = argv[++i];
		else if (!strcmp(argv[i], "--program") && i + 1 < argc)
			only_program = argv[++i];
		else if (!strcmp(argv[i], "--stages") && i + 1 < argc)
			stages = (unsigned)atoi(argv[++i]);
		else if (nsz < 3)
			sz[nsz++] = (uint32_t)atoi(argv[i]);
	}
	if (only_shape && strcmp(only_shape, "memory") && strcmp(only_shape, "compute"))
		die(-22, "pipeline --shape: memory or compute");
	die(accel_open(NULL, ACCEL_SUBMIT_URING, &dev), "open");
	if (!strcmp(mode, "e2e"))
		e2e(dev, sz[0], sz[1], sz[2]);
	else if (!strcmp(mode, "pipeline"))
		pipeline(dev);
	else if (!strcmp(mode, "tma") && (stages < 1 || stages > 3))
		die(-22, "tma --stages: 1 to 3 (64 KiB buffers in 256 KiB of SRAM)");
	else if (!strcmp(mode, "tma"))
		tma(dev);
	else if (!strcmp(mode, "gemv"))
		gemv(dev);
	else
		die(-22, mode);
	accel_close(dev);
	return 0;
}
