// SPDX-License-Identifier: MIT
/*
 * bench-host: the host-side references of bench-gemm, measured in the same make bench
 * run (Documentation/performance.rst). Prints "host,name,param,ns" (best of --reps):
 *   host,engine-mxfp8-MxNxK,threads,ns   mxe_gemm() alone on the shape and numerics
 *                                        accel_gemm() asks the device for (MX-FP8 E4M3,
 *                                        E8M0 scales, EXACT, intrawave) with the device's
 *                                        engine thread count (--threads, QEMU "engine-threads" 2)
 *   host,memcpy-load,bytes,ns            memcpy of the TMA benchmark's bytes: 64 KiB
 *   host,memcpy-store,bytes,ns           boxes of a 32 MiB buffer into one 64 KiB
 *                                        buffer (load) and back (store)
 *   host,memcpy-load-pages,bytes,ns      the same in 4 KiB pages scattered over the
 *   host,memcpy-store-pages,bytes,ns     32 MiB (a BO's shmem pages): the copy engine's
 *                                        bound
 *   host,memcpy-weights,bytes,ns         memcpy of bench-gemm gemv's weights and
 *                                        scales (MXFP4, MX-FP8, NVFP4, N = K = 4096, 8192)
 *   host,engine-gemv-TYPE[-fast]-MxNxK,threads,ns  mxe_gemm() alone on bench-gemm gemv's
 *                                        data, EXACT and FAST
 *   host,fma-f64,products,ns             one thread's double multiply-adds, the bound of
 *                                        an EXACT GEMV's arithmetic (fma_f64_ns())
 *   host,dot-i16,products,ns             one thread's int16 products in dot products (the
 *                                        E2M1 GEMV kernels' arithmetic, bench_fma.h)
 *   host,engine-wgmma-e4m3-64xNx32,1,ns  one EXACT WGMMA on the calling thread, C = D as
 *                                        in a pipeline's K loop, bench-gemm pipeline's
 *                                        data (mxe_wgmma(); best of 100 x --reps): the
 *                                        fixed cost of a pipeline step
 *   bench-host [M N K] [--threads T] [--reps N] [--short-reps S]
 * The memcpy references and the engine's GEMVs (0.2-10 ms each) take the best of S runs
 * (default: N), as bench-gemm's TMA and GEMV rows do in make bench (BENCH_SHORT_REPS),
 * and more until they took a quarter second (bench_runs.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../qemu-device/engine/mxe_engine.h"
#include "bench_fma.h"
#include "bench_gemv.h"
#include "bench_runs.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * One thread's double FMA peak at the engine's vector width (bench_fma.h): the ns of
 * 2 x 10^7 steps of 12 chains, the best of 3, and *@products, the multiply-adds they
 * made; -1 on the engine's portable path.
 */
static double fma_f64_ns(double *products)
{
	long steps = 20000000;
	double gflops = bench_fma_gflops(1, 1, steps);

	if (gflops <= 0)
		return -1;
	*products = (!strncmp(mxe_engine_simd(), "avx512", 6) ? 8.0 : 4.0) * 12 * steps;
	return 2 * *products / gflops;
}

/*
 * One 64 x @n x 32 E4M3 WGMMA with C = D (a pipeline's K loop) on bench-gemm pipeline's
 * data, 100 x @reps times: the best time (ns), or -1 when it fails.
 */
static double best_wgmma(struct mxe_engine *eng, uint32_t n, int reps)
{
	static uint8_t ab[(64 + 256) * 32];
	static float acc[64 * 256];
	struct mxe_gemm_desc g;
	double best = 1e30;

	for (size_t i = 0; i < sizeof(ab); i++)
		ab[i] = (uint8_t)(0x30 + (i * 2654435761u >> 13) % 0x18) | (i & 0x80);
	memset(acc, 0, sizeof(acc));
	memset(&g, 0, sizeof(g));
	g.m = 64, g.n = n, g.k = 32;
	g.type_a = g.type_b = MXA_DTYPE_E4M3;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = ab, g.b = ab + 64 * 32, g.c = g.d = acc;
	g.flags = MXA_GEMM_F_ACCUMULATE;
	for (int i = 0; i < 100 * reps; i++) {
		double t0 = now_ns(), t;

		if (mxe_wgmma(eng, &g))
			return -1;
		t = now_ns() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

/*
 * @bytes on whole pages, as the device's operands are (a BO's pages, its staging
 * buffers): malloc() hands large blocks out 16 bytes off a cache line, where the
 * engine's vector loads straddle lines and memcpy() into them runs at half the speed.
 */
static void *page_alloc(size_t bytes)
{
	return aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
}

/* mxe_gemm() @reps times (@gemv: or more, bench_more_runs()): the best time (ns), or -1
 * when it fails. */
static double best_gemm(struct mxe_engine *eng, const struct mxe_gemm_desc *g, int reps, int gemv)
{
	double best = 1e30, spent = 0;

	for (int i = 0; gemv ? bench_more_runs(i, reps, spent) : i < reps; i++) {
		double t0 = now_ns(), t;

		if (mxe_gemm(eng, g))
			return -1;
		t = now_ns() - t0;
		spent += t;
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	uint32_t sz[3] = { 2048, 2048, 2048 };
	int nsz = 0, reps = 3, threads = 2, short_reps = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--short-reps") && i + 1 < argc)
			short_reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (nsz < 3)
			sz[nsz++] = (uint32_t)atoi(argv[i]);
	}
	if (short_reps <= 0)
		short_reps = reps;
	uint32_t m = sz[0], n = sz[1], k = sz[2];
	size_t sa = (size_t)m * k, sb = (size_t)n * k;
	uint8_t *p = page_alloc(sa + sb + sa / 32 + sb / 32);
	float *d = page_alloc((size_t)m * n * 4);
	struct mxe_engine *eng = mxe_engine_create(threads);
	struct mxe_gemm_desc g;
	double best = 1e30, spent;

	if (!p || !d || !eng)
		return 1;
	/* the same data as bench-gemm e2e */
	for (size_t i = 0; i < sa + sb; i++)
		p[i] = (uint8_t)(0x30 + (i * 2654435761u >> 13) % 0x18) | (i & 0x80);
	memset(p + sa + sb, 127, sa / 32 + sb / 32);
	memset(&g, 0, sizeof(g));
	g.m = m; g.n = n; g.k = k;
	g.type_a = g.type_b = MXA_DTYPE_E4M3;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = p; g.b = p + sa;
	g.scale_a = p + sa + sb; g.scale_b = p + sa + sb + sa / 32;
	g.scale_block = 32;
	g.d = d;
	best = best_gemm(eng, &g, reps, 0);
	if (best < 0)
		return 1;
	printf("host,engine-mxfp8-%ux%ux%u,%d,%.0f\n", m, n, k, threads, best);
	mxe_engine_destroy(eng);

	size_t big = 32u << 20, box = 64u << 10;
	char *src = page_alloc(big), *sram = page_alloc(box);

	if (!src || !sram)
		return 1;
	memset(src, 0x3c, big);
	memset(sram, 0x3c, box);
	/*
	 * The same in the guest's 4 KiB pages, scattered as a BO's shmem pages are (a fixed
	 * shuffle of the 32 MiB's pages): what the copy engine's memmove does at best.
	 */
	size_t npages = big / 4096;
	uint32_t *perm = malloc(npages * sizeof(*perm));

	if (!perm)
		return 1;
	for (size_t i = 0; i < npages; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = npages - 1, x = 0x9E3779B9u; i > 0; i--) {
		size_t j;
		uint32_t t;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		j = (x >> 33) % (i + 1);
		t = perm[i], perm[i] = perm[j], perm[j] = t;
	}
	for (int pages = 0; pages < 2; pages++) {
		for (int store = 0; store < 2; store++) {
			best = 1e30;
			spent = 0;
			for (int r = 0; bench_more_runs(r, short_reps, spent); r++) {
				double t0 = now_ns(), t;

				for (size_t off = 0; off < big; off += box) {
					for (size_t p = 0; p < box; p += pages ? 4096 : box) {
						char *mem = src + (pages ? (size_t)perm[(off + p) / 4096] * 4096
									 : off);
						size_t len = pages ? 4096 : box;

						if (store)
							memcpy(mem, sram + p, len);
						else
							memcpy(sram + p, mem, len);
					}
					__asm__ volatile("" ::: "memory");
				}
				t = now_ns() - t0;
				spent += t;
				if (t < best)
					best = t;
			}
			printf("host,memcpy-%s%s,%zu,%.0f\n", store ? "store" : "load",
			       pages ? "-pages" : "", big, best);
		}
	}
	free(perm);
	free(src);
	{
		double products, ns = fma_f64_ns(&products);

		if (ns > 0)
			printf("host,fma-f64,%.0f,%.0f\n", products, ns);
		double gops = bench_dot16_gops(1, 20000000);

		if (gops > 0)	/* per 10^9 products */
			printf("host,dot-i16,1000000000,%.0f\n", 1e9 / gops);
	}
	eng = mxe_engine_create(1);
	for (uint32_t wn = 64; wn <= 256; wn *= 4) {
		best = eng ? best_wgmma(eng, wn, reps) : -1;
		if (best < 0)
			return 1;
		printf("host,engine-wgmma-e4m3-64x%ux32,1,%.0f\n", wn, best);
	}
	mxe_engine_destroy(eng);
	for (int fmt = 0; fmt < GEMV_FMTS; fmt++) {
		for (uint32_t nk = 4096; nk <= 8192; nk *= 2) {
			struct gemv_layout l = gemv_layout(nk, fmt);
			uint8_t *a = page_alloc(l.bytes), *b = page_alloc(l.weight_bytes);

			if (!a || !b)
				return 1;
			gemv_fill(a, nk, fmt);
			memset(b, 0x3c, l.weight_bytes);
			best = 1e30;
			spent = 0;
			for (int r = 0; bench_more_runs(r, short_reps, spent); r++) {
				double t0 = now_ns(), t;

				memcpy(b, a, l.weight_bytes);
				__asm__ volatile("" ::: "memory");
				t = now_ns() - t0;
				spent += t;
				if (t < best)
					best = t;
			}
			printf("host,memcpy-weights,%zu,%.0f\n", l.weight_bytes, best);
			eng = mxe_engine_create(threads);
			for (uint32_t m = 1; m <= 32; m *= m == 1 ? 8 : 4) {
				for (int fast = 0; fast < 2; fast++) {
					memset(&g, 0, sizeof(g));
					GEMV_DESC(g, m, nk, fmt, a, l, NULL);
					g.accum = fast ? MXE_ACCUM_FAST : MXE_ACCUM_EXACT;
					best = best_gemm(eng, &g, short_reps, 1);
					if (best < 0)
						return 1;
					printf("host,engine-gemv-%s%s-%ux%ux%u,%d,%.0f\n",
					       gemv_fmt_name[fmt], fast ? "-fast" : "", m, nk, nk,
					       threads, best);
				}
			}
			mxe_engine_destroy(eng);
			free(a);
			free(b);
		}
	}
	return 0;
}
