// SPDX-License-Identifier: MIT
/*
 * accel-bench: GEMM throughput and job submission rate of an MXA device
 * (accel-bench(1)). A quick look, not the benchmark suite: bench/ compares against
 * references measured in the same run.
 */
#include <getopt.h>
#include <inttypes.h>

#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: accel-bench [options] gemm|submit|all\n"
		"  gemm:   accel_gemm() on M x N x K (random data), device time and GFLOP/s\n"
		"  submit: one-NOP jobs in batches through io_uring and ioctl, jobs/s and\n"
		"          per-batch round trip\n"
		"  -s, --size M[xNxK]     GEMM size (default 256x256x256; FP8 MX: K %% 64 == 0)\n"
		"  -T, --type TYPE        A/B type: e4m3 (MX, default), e5m2, bf16, f16, f32, s8\n"
		"  -r, --reps N           GEMM repetitions (default 3; the best counts)\n"
		"  -j, --jobs N           jobs per submit measurement (default 2000)\n"
		"  -B, --batch N          jobs in flight per batch (default 32)\n"
		"  -d, --device PATH      device node\n"
		"  -h, --help             this text\n"
		"Output: one line per measurement, \"name value unit\".\n");
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

static float frand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (float)((rng >> 40) / (double)(1 << 24) * 2.0 - 1.0);
}

static int bench_gemm(struct accel_device *dev, uint32_t m, uint32_t n, uint32_t k,
		      enum mxa_isa_dtype type, int reps)
{
	int mx = type == MXA_DTYPE_E4M3 || type == MXA_DTYPE_E5M2;
	size_t ra = accel_dtype_row_bytes(type, k);
	struct accel_bo *a, *b, *sa = NULL, *sb = NULL, *d;
	float *row = malloc(k * sizeof(float));
	double best = 1e30;

	if (!row || !ra)
		tool_die("bad GEMM type");
	if (mx && k % 64)
		tool_die("MX FP8 needs K %% 64 == 0");
	tool_check(accel_bo_alloc(dev, (size_t)m * ra, &a), "alloc A");
	tool_check(accel_bo_alloc(dev, (size_t)n * ra, &b), "alloc B");
	tool_check(accel_bo_alloc(dev, (size_t)m * n * 4, &d), "alloc D");
	if (mx) {
		tool_check(accel_bo_alloc(dev, (size_t)m * (k / 32), &sa), "alloc scales");
		tool_check(accel_bo_alloc(dev, (size_t)n * (k / 32), &sb), "alloc scales");
		for (uint32_t r = 0; r < m + n; r++) {
			int isb = r >= m;
			uint32_t i = isb ? r - m : r;

			for (uint32_t j = 0; j < k; j++)
				row[j] = frand();
			accel_mx_quantize(row, k, type, ACCEL_MX_SCALE_RCEIL,
					  (uint8_t *)accel_bo_map(isb ? sb : sa) + (size_t)i * (k / 32),
					  (uint8_t *)accel_bo_map(isb ? b : a) + (size_t)i * ra);
		}
	} else {
		for (size_t i = 0; i < (size_t)m * ra; i++)
			((uint8_t *)accel_bo_map(a))[i] = (uint8_t)(frand() * 40) & 0x3b;
		for (size_t i = 0; i < (size_t)n * ra; i++)
			((uint8_t *)accel_bo_map(b))[i] = (uint8_t)(frand() * 40) & 0x3b;
	}
	struct accel_gemm g = {
		.m = m, .n = n, .k = k, .type_a = type, .type_b = type,
		.type_c = type == MXA_DTYPE_S8 ? MXA_DTYPE_S32 : MXA_DTYPE_F32,
		.type_d = type == MXA_DTYPE_S8 ? MXA_DTYPE_S32 : MXA_DTYPE_F32,
		.scale_block = mx ? 32 : 0, .a = accel_bo_va(a), .b = accel_bo_va(b),
		.d = accel_bo_va(d), .scale_a = sa ? accel_bo_va(sa) : 0,
		.scale_b = sb ? accel_bo_va(sb) : 0,
	};
	for (int i = 0; i < reps; i++) {
		struct accel_job_result r;
		int ret = accel_gemm(dev, 0, &g, &r);

		if (ret) {
			char why[512];

			accel_job_explain(&r, why, sizeof(why));
			fprintf(stderr, "accel-bench: gemm: %s\n", why);
			return 1;
		}
		if ((r.end_ns - r.start_ns) * 1e-9 < best)
			best = (r.end_ns - r.start_ns) * 1e-9;
	}
	printf("gemm_%s_%ux%ux%u_device_time %.3f ms\n", accel_dtype_name(type), m, n, k,
	       best * 1e3);
	printf("gemm_%s_%ux%ux%u_rate %.2f GFLOP/s\n", accel_dtype_name(type), m, n, k,
	       2.0 * m * n * k / best * 1e-9);
	accel_bo_free(a);
	accel_bo_free(b);
	accel_bo_free(d);
	accel_bo_free(sa);
	accel_bo_free(sb);
	free(row);
	return 0;
}

static int bench_submit(const char *path, enum accel_submit_mode mode, int jobs, int batch)
{
	struct accel_device *dev;
	struct accel_prog *prog;
	struct accel_bo *bo;
	struct accel_job **js = calloc(batch, sizeof(*js));
	double t0, worst = 0, sum = 0;
	int done = 0, rounds = 0;

	if (!js)
		return 1;
	if (accel_open(path, mode, &dev)) {
		printf("submit_%s unavailable\n", accel_submit_mode_name(mode));
		return 0;
	}
	tool_check(accel_prog_new(&prog), "program");
	tool_check(accel_prog_nop(prog), "program");
	tool_check(accel_bo_alloc(dev, 4096, &bo), "alloc");
	tool_check(accel_prog_upload(prog, bo, 0), "upload");
	t0 = tool_now();
	while (done < jobs) {
		double b0 = tool_now(), dt;

		for (int i = 0; i < batch; i++)
			tool_check(accel_submit(dev, i % accel_device_info(dev)->num_queues, bo, 0,
						accel_prog_size(prog), &js[i]), "submit");
		tool_check(accel_wait_all(dev, -1), "wait");
		for (int i = 0; i < batch; i++) {
			if (accel_job_result(js[i])->status)
				tool_check(accel_job_result(js[i])->status, "job");
			accel_job_free(js[i]);
		}
		dt = tool_now() - b0;
		sum += dt;
		worst = dt > worst ? dt : worst;
		rounds++;
		done += batch;
	}
	printf("submit_%s_batch%d_rate %.0f jobs/s\n", accel_submit_mode_name(mode), batch,
	       done / (tool_now() - t0));
	printf("submit_%s_batch%d_round_trip_mean %.1f us\n", accel_submit_mode_name(mode), batch,
	       sum / rounds * 1e6);
	printf("submit_%s_batch%d_round_trip_max %.1f us\n", accel_submit_mode_name(mode), batch,
	       worst * 1e6);
	accel_bo_free(bo);
	accel_prog_free(prog);
	accel_close(dev);
	free(js);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "type", required_argument, NULL, 'T' },
		{ "reps", required_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "batch", required_argument, NULL, 'B' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint32_t m = 256, n = 256, k = 256;
	enum mxa_isa_dtype type = MXA_DTYPE_E4M3;
	int reps = 3, jobs = 2000, batch = 32, c, ret = 0;
	const char *path = NULL, *what;

	tool_name = "accel-bench";
	while ((c = getopt_long(argc, argv, "s:T:r:j:B:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': {
			int got = sscanf(optarg, "%ux%ux%u", &m, &n, &k);

			if (got == 1)
				n = k = m;
			else if (got != 3 || !m || !n || !k)
				tool_die("--size M or MxNxK");
			break;
		}
		case 'T': {
			int i;

			for (i = 0; i < MXA_DTYPE_COUNT; i++)
				if (!strcmp(optarg, accel_dtype_name(i)))
					break;
			if (i == MXA_DTYPE_COUNT)
				tool_die("unknown type %s", optarg);
			type = i;
			break;
		}
		case 'r': reps = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
		case 'j': jobs = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
		case 'B': batch = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
		case 'd': path = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	what = argv[optind];
	if (strcmp(what, "gemm") && strcmp(what, "submit") && strcmp(what, "all")) {
		usage(stderr);
		return 2;
	}
	if (strcmp(what, "submit")) {
		struct accel_device *dev;

		tool_check(accel_open(path, ACCEL_SUBMIT_AUTO, &dev), "open");
		ret |= bench_gemm(dev, m, n, k, type, reps);
		accel_close(dev);
	}
	if (strcmp(what, "gemm")) {
		ret |= bench_submit(path, ACCEL_SUBMIT_URING, jobs, batch);
		ret |= bench_submit(path, ACCEL_SUBMIT_IOCTL, jobs, batch);
	}
	return ret;
}
