// SPDX-License-Identifier: MIT
/*
 * mxe_cpu.c - CPU feature dispatch. The SIMD kernels are compiled with
 * __attribute__((target(...))) and chosen here at run time, so one binary
 * runs on any x86-64 (and the portable path on anything else). The level
 * can be capped for tests and comparisons: mxe_engine_set_simd(), or the
 * environment variable MXA_ENGINE_SIMD=portable|avx2|avx512|avx512vnni|avx512bf16
 * read once.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_cpu.h"
#include "mxe_engine.h"
#include "mxe_kernels.h"

static const char *const simd_names[] = { "portable", "avx2", "avx512", "avx512vnni",
					  "avx512bf16" };
#define SIMD_BEST MXE_SIMD_AVX512BF16

static atomic_int simd_cap = -1;	/* -1: not read from the environment yet */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

/* CPUID.1:ECX.F16C (clang 14's __builtin_cpu_supports() does not know "f16c"). */
static int cpu_has_f16c(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}

/* CPUID.(7,0):ECX.AVX512_VNNI[bit 11] */
static int cpu_has_avx512vnni(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 11));
}

/* CPUID.(7,1):EAX.AVX512_BF16[bit 5], and vdpbf16ps gives the FMA chain's bits on
 * normal numbers (mxe_bf16_self_check()): the level is then safe to pick. */
static int cpu_has_avx512bf16(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5)) &&
	       mxe_bf16_self_check();
}
#endif

static enum mxe_simd cpu_detect(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	static atomic_int cached = -1;
	int v = atomic_load(&cached);

	if (v < 0) {
		__builtin_cpu_init();
		v = MXE_SIMD_PORTABLE;
		if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
		    cpu_has_f16c()) {
			v = MXE_SIMD_AVX2;
			/* the Skylake-X set; libgcc also checks that the OS
			 * saves the zmm state */
			if (__builtin_cpu_supports("avx512f") &&
			    __builtin_cpu_supports("avx512bw") &&
			    __builtin_cpu_supports("avx512dq") &&
			    __builtin_cpu_supports("avx512vl"))
				v = !cpu_has_avx512vnni() ? MXE_SIMD_AVX512 :
				    cpu_has_avx512bf16() ? MXE_SIMD_AVX512BF16 :
				    MXE_SIMD_AVX512VNNI;
		}
		atomic_store(&cached, v);
	}
	return (enum mxe_simd)v;
#else
	return MXE_SIMD_PORTABLE;
#endif
}

static int simd_by_name(const char *name)
{
	for (int i = 0; i < (int)(sizeof(simd_names) / sizeof(simd_names[0])); i++)
		if (!strcmp(name, simd_names[i]))
			return i;
	return -1;
}

enum mxe_simd mxe_cpu_simd(void)
{
	int cap = atomic_load(&simd_cap);
	enum mxe_simd have = cpu_detect();

	if (cap < 0) {
		const char *env = getenv("MXA_ENGINE_SIMD");
		int want = env && *env ? simd_by_name(env) : -1;

		if (env && *env && want < 0)
			fprintf(stderr, "mxa engine: MXA_ENGINE_SIMD=%s is not one of "
				"portable, avx2, avx512, avx512vnni, avx512bf16; ignored\n", env);
		if (env && want > (int)have)
			fprintf(stderr, "mxa engine: MXA_ENGINE_SIMD=%s: this CPU has only %s\n",
				env, simd_names[have]);
		cap = want >= 0 ? want : SIMD_BEST;
		/* a concurrent mxe_engine_set_simd() wins */
		atomic_compare_exchange_strong(&simd_cap, &(int){ -1 }, cap);
		cap = atomic_load(&simd_cap);
	}
	return (int)have < cap ? have : (enum mxe_simd)cap;
}

const char *mxe_engine_simd(void)
{
	return simd_names[mxe_cpu_simd()];
}

const char *mxe_engine_simd_name(unsigned level)
{
	return level < sizeof(simd_names) / sizeof(simd_names[0]) ? simd_names[level] : NULL;
}

int mxe_engine_set_simd(const char *name)
{
	int want = name ? simd_by_name(name) : SIMD_BEST;

	/* NULL lifts the cap on any CPU: mxe_cpu_simd() gives the lower of the two */
	if (want < 0 || (name && want > (int)cpu_detect()))
		return -1;
	atomic_store(&simd_cap, want);
	return 0;
}
