// SPDX-License-Identifier: MIT
/*
 * mxa_cpu.c - CPU feature dispatch. The AVX2 kernels are compiled with
 * __attribute__((target("avx2,fma,f16c"))) and chosen here at run time, so
 * one binary runs on any x86-64 (and the portable path on anything else).
 */
#include <stdatomic.h>

#include "mxa_cpu.h"
#include "mxa_engine.h"

static atomic_int force_portable;

static int cpu_has_avx2(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	static atomic_int cached = -1;
	int v = atomic_load(&cached);

	if (v < 0) {
		__builtin_cpu_init();
		v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
		    __builtin_cpu_supports("f16c");
		atomic_store(&cached, v);
	}
	return v;
#else
	return 0;
#endif
}

int mxa_cpu_use_avx2(void)
{
	return !atomic_load(&force_portable) && cpu_has_avx2();
}

const char *mxa_engine_simd(void)
{
	return mxa_cpu_use_avx2() ? "avx2" : "portable";
}

void mxa_engine_force_portable(int on)
{
	atomic_store(&force_portable, !!on);
}
