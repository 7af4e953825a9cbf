/* SPDX-License-Identifier: MIT */
/*
 * bench_fma.h - the host's FMA peak at the engine's vector width, the bound of every
 * figure whose arithmetic is FMAs (bench-engine's float types, bench-host's EXACT
 * GEMV and WGMMA bounds): each thread runs 12 independent FMA chains in registers
 * (more than latency x throughput) for @steps steps, all threads at once.
 * bench_fma_gflops() returns the FLOP/s (2 a lane) of the best of 3 runs, in G; 0 where
 * the engine has no FMA vectors (its portable path) or @threads is above 8.
 * bench_dot16_gops() does the same for the int16 dot products of the E2M1 GEMV kernels
 * (mxe_gemv.c; the bound of those rows): G products a second.
 * The caller includes mxe_engine.h (mxe_engine_simd()).
 */
#ifndef BENCH_FMA_H
#define BENCH_FMA_H

#include <pthread.h>
#include <string.h>
#include <time.h>

struct bench_fma {
	int f64, wide;	/* doubles or floats; 512-bit vectors or 256-bit */
	int dot, vnni;	/* int16 dot products instead (bench_dot16_gops()) */
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

/*
 * Pairs of int16 products added into int32 lanes: vpdpwssd with AVX512-VNNI, else
 * vpmaddwd into a register of its own and vpaddd (AVX2: 6 chains, 16 registers).
 */
#define BENCH_DOT_MADD(reg, i, t)							\
	"vpmaddwd %%" reg "14, %%" reg "15, %%" reg t "\n\t"				\
	"vpaddd %%" reg t ", %%" reg i ", %%" reg i "\n\t"
#define BENCH_DOT_LOOP(zero, reg, body, n, ...)						\
	__asm__ volatile(zero " %%" reg "14, %%" reg "14, %%" reg "14\n\t"		\
			 zero " %%" reg "15, %%" reg "15, %%" reg "15\n\t"		\
			 "1:\n\t" body "dec %0\n\t" "jnz 1b\n\t"			\
			 : "+r"(n) : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",	\
			   "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm14",	\
			   "xmm15", __VA_ARGS__)
__attribute__((target("avx512f,avx512bw"))) static inline void bench_dot_avx512(int vnni, long n)
{
	if (vnni)
		BENCH_FMA_LOOP("vpdpwssd", "zmm", "vpxorq", n);
	else
		BENCH_DOT_LOOP("vpxorq", "zmm",
			       BENCH_DOT_MADD("zmm", "0", "16") BENCH_DOT_MADD("zmm", "1", "17")
			       BENCH_DOT_MADD("zmm", "2", "18") BENCH_DOT_MADD("zmm", "3", "19")
			       BENCH_DOT_MADD("zmm", "4", "20") BENCH_DOT_MADD("zmm", "5", "21")
			       BENCH_DOT_MADD("zmm", "6", "22") BENCH_DOT_MADD("zmm", "7", "23")
			       BENCH_DOT_MADD("zmm", "8", "24") BENCH_DOT_MADD("zmm", "9", "25")
			       BENCH_DOT_MADD("zmm", "10", "26") BENCH_DOT_MADD("zmm", "11", "27"),
			       n, "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22",
			       "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "cc");
}

__attribute__((target("avx2"))) static inline void bench_dot_avx2(long n)
{
	BENCH_DOT_LOOP("vpxor", "ymm",
		       BENCH_DOT_MADD("ymm", "0", "6") BENCH_DOT_MADD("ymm", "1", "7")
		       BENCH_DOT_MADD("ymm", "2", "8") BENCH_DOT_MADD("ymm", "3", "9")
		       BENCH_DOT_MADD("ymm", "4", "10") BENCH_DOT_MADD("ymm", "5", "11"),
		       n, "cc");
}

static void *bench_fma_thread(void *arg)
{
	const struct bench_fma *f = arg;

	if (f->dot)
		f->wide ? bench_dot_avx512(f->vnni, f->steps) : bench_dot_avx2(f->steps);
	else if (f->wide)
		bench_fma_avx512(f->f64, f->steps);
	else
		bench_fma_avx2(f->f64, f->steps);
	return NULL;
}

/* The best of 3 runs of @f on @threads threads, in seconds; 0 where none can run. */
static inline double bench_fma_best(const struct bench_fma *f, int threads)
{
	double best = 1e30;
	pthread_t t[8];

	if (strncmp(mxe_engine_simd(), "avx", 3) || threads < 1 || threads > 8)
		return 0;
	for (int r = 0; r < 3; r++) {
		struct timespec t0, t1;
		double dt;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, bench_fma_thread, (void *)f);
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		dt = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
		best = dt < best ? dt : best;
	}
	return best;
}

static inline double bench_fma_gflops(int f64, int threads, long steps)
{
	struct bench_fma f = { .f64 = f64, .wide = !strncmp(mxe_engine_simd(), "avx512", 6),
			       .steps = steps };
	double best = bench_fma_best(&f, threads);

	return best > 0 ? 2.0 * (f.wide ? 64 : 32) / (f64 ? 8 : 4) * 12 * steps * threads / best / 1e9 : 0;
}

static inline double bench_dot16_gops(int threads, long steps)
{
	struct bench_fma f = { .dot = 1, .wide = !strncmp(mxe_engine_simd(), "avx512", 6),
			       .vnni = !strncmp(mxe_engine_simd(), "avx512vnni", 10) ||
				       !strcmp(mxe_engine_simd(), "avx512bf16"), .steps = steps };
	double best = bench_fma_best(&f, threads);

	/* 2 products a 32-bit lane; AVX2 runs 6 chains */
	return best > 0 ? (f.wide ? 32.0 * 12 : 16.0 * 6) * steps * threads / best / 1e9 : 0;
}
#else
static inline double bench_fma_gflops(int f64, int threads, long steps)
{
	(void)f64, (void)threads, (void)steps;
	return 0;
}

static inline double bench_dot16_gops(int threads, long steps)
{
	(void)threads, (void)steps;
	return 0;
}
#endif

#endif /* BENCH_FMA_H */
