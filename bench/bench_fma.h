/* SPDX-License-Identifier: MIT */
/*
 * bench_fma.h - the host's FMA peak at the engine's vector width, the bound of every
 * figure whose arithmetic is FMAs (bench-engine's float types, bench-host's EXACT
 * GEMV and WGMMA bounds): each thread runs 12 independent FMA chains in registers
 * (more than latency x throughput) for @steps steps, all threads at once.
 * bench_fma_gflops() returns the FLOP/s (2 a lane) of the best of 3 runs, in G; 0 where
 * the engine has no FMA vectors (its portable path) or @threads is above 8.
 * The caller includes mxe_engine.h (mxe_engine_simd()).
 */
#ifndef BENCH_FMA_H
#define BENCH_FMA_H

#include <pthread.h>
#include <string.h>
#include <time.h>

struct bench_fma {
	int f64, wide;	/* doubles or floats; 512-bit vectors or 256-bit */
	long steps;
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BENCH_FMA12(op, reg)							\
	op " %%" reg "14, %%" reg "15, %%" reg "0\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "1\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "2\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "3\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "4\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "5\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "6\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "7\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "8\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "9\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "10\n\t"				\
	op " %%" reg "14, %%" reg "15, %%" reg "11\n\t"
/* the multiplicands are zeros: no value ever leaves the normal range */
#define BENCH_FMA_LOOP(op, reg, zero, n)						\
	__asm__ volatile(zero " %%" reg "14, %%" reg "14, %%" reg "14\n\t"		\
			 zero " %%" reg "15, %%" reg "15, %%" reg "15\n\t"		\
			 "1:\n\t" BENCH_FMA12(op, reg) "dec %0\n\t" "jnz 1b\n\t"	\
			 : "+r"(n) : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",	\
			   "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm14",	\
			   "xmm15", "cc")

__attribute__((target("avx2,fma"))) static inline void bench_fma_avx2(int f64, long n)
{
	if (f64)
		BENCH_FMA_LOOP("vfmadd231pd", "ymm", "vxorpd", n);
	else
		BENCH_FMA_LOOP("vfmadd231ps", "ymm", "vxorps", n);
}

__attribute__((target("avx512f"))) static inline void bench_fma_avx512(int f64, long n)
{
	if (f64)
		BENCH_FMA_LOOP("vfmadd231pd", "zmm", "vpxorq", n);
	else
		BENCH_FMA_LOOP("vfmadd231ps", "zmm", "vpxorq", n);
}

static void *bench_fma_thread(void *arg)
{
	const struct bench_fma *f = arg;

	if (f->wide)
		bench_fma_avx512(f->f64, f->steps);
	else
		bench_fma_avx2(f->f64, f->steps);
	return NULL;
}

static inline double bench_fma_gflops(int f64, int threads, long steps)
{
	struct bench_fma f = { .f64 = f64, .wide = !strncmp(mxe_engine_simd(), "avx512", 6),
			       .steps = steps };
	double best = 1e30;
	pthread_t t[8];

	if (strncmp(mxe_engine_simd(), "avx", 3) || threads < 1 || threads > 8)
		return 0;
	for (int r = 0; r < 3; r++) {
		struct timespec t0, t1;
		double dt;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, bench_fma_thread, &f);
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		dt = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
		best = dt < best ? dt : best;
	}
	return 2.0 * (f.wide ? 64 : 32) / (f64 ? 8 : 4) * 12 * steps * threads / best / 1e9;
}
#else
static inline double bench_fma_gflops(int f64, int threads, long steps)
{
	(void)f64, (void)threads, (void)steps;
	return 0;
}
#endif

#endif /* BENCH_FMA_H */
