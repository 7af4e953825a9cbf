// SPDX-License-Identifier: MIT
/*
 * bench-model: the H200's 1-CTA pipelined GEMMs (bench/h200/pipeline.cu) as MXA
 * programs, for the cycle model's check against the H200 (Documentation/device.rst,
 * "Cycle model"). Run it on a device with timing=h200; bench/model.py joins its output
 * with bench/h200/pipeline.csv into model.csv.
 *
 * Each kernel is the CUDA one command for command (bench/bench_pipe.h): one tile over
 * K = 3072 bytes.
 *
 * Output: CSV "kernel,modelled" in cycles: the job's modelled cycles less those of the
 * same job with only its MBAR_INITs (the H200's clock starts after them).
 *
 * Then bench/h200/wakeup.cu's wgmma_spin: one WGMMA m64nNk32 (E4M3), COMMIT_GROUP, D
 * NOPs (a cycle each), WAIT_GROUP 0, with TIMESTAMP.MODELs before the WGMMA, before the
 * wait and after it: "wait,N,wait_from,total" (cycles from the first), D = 0, 1, ...
 * until wait_from passes 600, so that bench/model.py finds the H200's every wait_from
 * (at most 580) among them, whatever the preset's issue costs.
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
#include "bench_pipe.h"

#define KBYTES	3072u

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

static void model(struct accel_device *dev, struct accel_bo *data, const struct pipe_kernel *k)
{
	struct mxa_tensor_map *maps = accel_bo_map(data);
	uint64_t va = accel_bo_va(data), with, without;
	uint32_t eb = k->type == MXA_DTYPE_E4M3 ? 1 : 2;
	struct pipe_layout l = pipe_layout(k, KBYTES, va, va + 128);
	struct accel_prog *p;
	char name[64];

	pipe_map2(&maps[0], va + 4096, eb, KBYTES, k->tm, k->tm, k->box);
	pipe_map2(&maps[1], va + 4096 + (uint64_t)k->tm * KBYTES, eb, KBYTES, k->n, k->n, k->box);
	die(accel_prog_new(&p), "program");
	die(pipe_build(p, k, &l, 0), "build");
	with = run(dev, p);
	accel_prog_reset(p);
	die(pipe_build(p, k, &l, 1), "build");
	without = run(dev, p);
	accel_prog_free(p);
	pipe_kernel_name(k, name, sizeof(name));
	printf("%s,%llu\n", name, (unsigned long long)(with - without));
	fflush(stdout);
}

/*
 * The wait probes (wakeup.cu) for N = 64 and 256 and D = 0, 1, ... NOPs, until the wait
 * starts WAIT_FROM_MAX cycles after the issue (the H200's last probe waits from 580).
 */
#define WAIT_FROM_MAX	600
static void waits(struct accel_device *dev, struct accel_bo *data)
{
	const uint64_t ts = accel_bo_va(data) + 1024;
	const struct mxa_timestamp_model *t =
		(const struct mxa_timestamp_model *)((uint8_t *)accel_bo_map(data) + 1024);

	for (uint32_t n = 64; n <= 256; n *= 4) {
		uint64_t from = 0;

		for (uint32_t d = 0; from < WAIT_FROM_MAX && d < 4096; d++) {
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
			from = t[1].cycles - t[0].cycles;
			printf("wait,%u,%llu,%llu\n", n, (unsigned long long)from,
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
				struct pipe_kernel k = { shapes[i][0], shapes[i][1], shapes[i][2],
							 s, types[t] };
				char name[64];
				int want = argc < 2;

				pipe_kernel_name(&k, name, sizeof(name));
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
