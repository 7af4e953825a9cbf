// SPDX-License-Identifier: MIT
/*
 * test-engine-gemv - the GEMV path (mxe_gemv.c) gives the general exact path's bits:
 * every weight type it takes (E2M1, E4M3, E5M2, E3M2, E2M3, MXINT8, with and without
 * scales) against BF16, F16, F32 and MX-E4M3 activations, M from 1 to 32, on random
 * data and on sums built to defeat its proof (ties, cancellation to zero, signed
 * zeros, NaN scales and codes, Inf), which it must hand to the general path.
 */
#define _DEFAULT_SOURCE	/* MAP_ANONYMOUS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mxe_gemm.h"
#include "mxe_cpu.h"
#include "mxe_pool.h"
#include "host_check.h"
#include "test-engine-util.h"

static uint8_t *abuf, *bbuf, *sabuf, *sbbuf;
static float *d1, *d2;

/* D through mxe_gemm() (the GEMV path where it applies) and through the general path. */
static int same_as_general(struct mxe_engine *eng, struct mxe_gemm_desc *g, size_t *nbad)
{
	struct mxe_op op;
	int rc;

	g->d = d1;
	rc = mxe_gemm(eng, g);
	if (rc)
		return rc;
	g->d = d2;
	rc = mxe_op_prepare(g, &op);
	if (!rc)
		rc = mxe_exact_run(eng, &op);
	*nbad = 0;
	for (size_t i = 0; i < (size_t)g->m * g->n; i++)
		*nbad += memcmp(&d1[i], &d2[i], 4) != 0;
	return rc;
}

static struct mxe_gemm_desc desc(unsigned m, unsigned n, unsigned k, unsigned ta, unsigned tb,
				 int scales)
{
	struct mxe_gemm_desc g = { 0 };

	g.m = m;
	g.n = n;
	g.k = k;
	g.type_a = ta;
	g.type_b = tb;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = abuf;
	g.b = bbuf;
	if (scales) {
		g.scale_block = 32;
		g.scale_b = sbbuf;
		g.scale_a = mxe_dtype_is_mx_elem(ta) ? sabuf : NULL;
	}
	return g;
}

static void random_cases(struct mxe_engine *eng)
{
	static const unsigned wtypes[] = { MXA_DTYPE_E2M1, MXA_DTYPE_E4M3, MXA_DTYPE_E5M2,
					   MXA_DTYPE_E3M2, MXA_DTYPE_E2M3, MXA_DTYPE_MXINT8 };
	static const unsigned atypes[] = { MXA_DTYPE_BF16, MXA_DTYPE_F16, MXA_DTYPE_F32,
					   MXA_DTYPE_E4M3 };
	/* K = 1088: spans of 8 blocks (mxe_gemv.c) and a last one of 2 */
	static const unsigned ms[] = { 1, 3, 6, 8, 9, 32 }, ks[] = { 64, 1088 };
	uint64_t out0, redo0, out1, redo1;
	size_t cases = 0, bad = 0, nbad;

	mxe_gemv_counts(&out0, &redo0);
	for (unsigned w = 0; w < sizeof(wtypes) / sizeof(wtypes[0]); w++) {
		for (unsigned a = 0; a < sizeof(atypes) / sizeof(atypes[0]); a++) {
			for (unsigned mi = 0; mi < 6; mi++) {
				for (unsigned ki = 0; ki < 2; ki++) {
					unsigned m = ms[mi], n = 37, k = ks[ki];
					int scales = wtypes[w] != MXA_DTYPE_E4M3 || ki;
					struct mxe_gemm_desc g = desc(m, n, k, atypes[a], wtypes[w],
								      scales);

					tu_fill(g.type_a, abuf, m, k, mxe_dtype_row_bytes(g.type_a, k));
					tu_fill(g.type_b, bbuf, n, k, mxe_dtype_row_bytes(g.type_b, k));
					tu_fill(MXA_DTYPE_E8M0, sabuf, m, k / 32, k / 32);
					tu_fill(MXA_DTYPE_E8M0, sbbuf, n, k / 32, k / 32);
					if (same_as_general(eng, &g, &nbad) || nbad) {
						bad++;
						host_diag("  %s x %s M=%u K=%u: %zu outputs differ",
							  mxe_dtype_name(g.type_a),
							  mxe_dtype_name(g.type_b), m, k, nbad);
					}
					cases++;
				}
			}
		}
	}
	mxe_gemv_counts(&out1, &redo1);
	host_check(bad == 0, "%s: %zu random GEMV cases: the general exact path's bits",
		   mxe_engine_simd(), cases);
	/* each weight type on the GEMV (mxe_gemv.c declines an FP8 or FP6 type whose
	 * decoders' layout is not its format's: the bits stay right, the speed would go) */
	for (unsigned w = 0, taken = 0; w < sizeof(wtypes) / sizeof(wtypes[0]); w++) {
		struct mxe_gemm_desc g = desc(1, 37, 64, MXA_DTYPE_BF16, wtypes[w], 1);

		g.d = d1;
		taken += !!mxe_gemv_takes(&g);
		if (w + 1 == sizeof(wtypes) / sizeof(wtypes[0]))
			host_check(taken == (mxe_cpu_use_avx2() ? w + 1 : 0),
				   "%s: the GEMV takes %u of the %u weight types (%s)", mxe_engine_simd(),
				   taken, w + 1, mxe_cpu_use_avx2() ? "all" : "none: it needs AVX2");
	}
	if (mxe_cpu_use_avx2())
		host_check(out1 - out0 > 50000 && (redo1 - redo0) * 100 < out1 - out0,
			   "%s: the GEMV path ran them (%llu outputs; %llu, under 1%%, redone)",
			   mxe_engine_simd(), (unsigned long long)(out1 - out0), (unsigned long long)(redo1 - redo0));
}

static const uint16_t bf16_one = 0x3f80;

static uint16_t bf16_pow2(int e)
{
	return (uint16_t)((127 + e) << 7);
}

/* One row of A (BF16) against E2M1 weights 1.0 (code 2) with scale 1: D = sum of A. */
static int sum_of(struct mxe_engine *eng, const uint16_t *a, unsigned k, float *out,
		  uint64_t *redone)
{
	struct mxe_gemm_desc g = desc(1, 4, k, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, 1);
	uint64_t o0, r0, o1, r1;
	size_t nbad;
	int rc;

	memcpy(abuf, a, k * 2);
	memset(bbuf, 0x22, 4 * k / 2);		/* 1.0, 1.0 */
	memset(sbbuf, 127, 4 * k / 32);
	mxe_gemv_counts(&o0, &r0);
	rc = same_as_general(eng, &g, &nbad);
	mxe_gemv_counts(&o1, &r1);
	*out = d1[0];
	*redone = r1 - r0;
	return rc || nbad;
}

static void proof_defeating_cases(struct mxe_engine *eng)
{
	uint16_t a[64] = { 0 };
	uint64_t redone, redone2;
	float f, f2;
	int rc;

	/* 1 + 2^-24: a tie between 1 and 1 + 2^-23, to even (the lowest-bit proof) */
	a[0] = bf16_one;
	a[1] = bf16_pow2(-24);
	rc = sum_of(eng, a, 64, &f, &redone);
	host_check(!rc && f == 1.0f && redone == 0,
		   "%s: a tie (1 + 2^-24) rounds to even, proven exact", mxe_engine_simd());
	/* 1 + 2^-24 + 2^-60: just above the tie, in a block of 61 bits (rounded to 44 in
	 * the form: its products summed one by one where the proof fails) */
	a[2] = bf16_pow2(-60);
	{
		uint64_t x0 = mxe_gemv_int_redone();

		rc = sum_of(eng, a, 64, &f, &redone);
		host_check(!rc && f == 1.0f + 0x1p-23f &&
			   mxe_gemv_int_redone() - x0 == (mxe_cpu_use_avx2() ? 4 : 0),
			   "%s: 1 + 2^-24 + 2^-60 rounds up (a rounded block, summed exactly)",
			   mxe_engine_simd());
	}
	/* 1 + 2^-24 -+ 2^-60 in three blocks (k = 0, 32, 64): each block one part, not
	 * rounded, but the double sum loses 2^-60 and its interval holds the tie; summed
	 * exactly from the integer form (gemv_int_redo()), not the general path */
	{
		uint16_t w[128] = { 0 };
		uint64_t x0 = mxe_gemv_int_redone(), n = mxe_cpu_use_avx2() ? 8 : 0;	/* 4 columns */

		w[0] = bf16_one;
		w[32] = bf16_pow2(-24);
		w[64] = bf16_pow2(-60);
		rc = sum_of(eng, w, 128, &f, &redone);
		w[64] |= 0x8000;
		rc |= sum_of(eng, w, 128, &f2, &redone2);
		host_check(!rc && f == 1.0f + 0x1p-23f && f2 == 1.0f && redone + redone2 == n &&
			   mxe_gemv_int_redone() - x0 == n,
			   "%s: 1 + 2^-24 + 2^-60 and 1 + 2^-24 - 2^-60 over three blocks: the "
			   "proofs fail, %llu outputs summed exactly from the integer blocks, up and "
			   "down from the tie", mxe_engine_simd(),
			   (unsigned long long)(mxe_gemv_int_redone() - x0));
	}
	/* 2^40 - 2^40 + 2^-30: cancellation leaves the small term */
	memset(a, 0, sizeof(a));
	a[0] = bf16_pow2(40);
	a[33] = bf16_pow2(40) | 0x8000;
	a[63] = bf16_pow2(-30);
	rc = sum_of(eng, a, 64, &f, &redone);
	host_check(!rc && f == 0x1p-30f,
		   "%s: 2^40 - 2^40 + 2^-30 = 2^-30 (%llu redone)", mxe_engine_simd(), (unsigned long long)redone);
	/* cancellation to zero: +0, and all products -0: -0 */
	a[63] = 0;
	rc = sum_of(eng, a, 64, &f, &redone);
	host_check(!rc && f == 0 && !signbit(f),
		   "%s: 2^40 - 2^40 = +0", mxe_engine_simd());
	for (int i = 0; i < 64; i++)
		a[i] = 0x8000;
	rc = sum_of(eng, a, 64, &f, &redone);
	host_check(!rc && f == 0 && signbit(f),
		   "%s: a sum of -0 products is -0", mxe_engine_simd());
	/* Inf in A */
	a[5] = 0x7f80;
	rc = sum_of(eng, a, 64, &f, &redone);
	host_check(!rc && isinf(f), "%s: Inf in A gives Inf", mxe_engine_simd());
	/* a NaN scale (0xFF) and an E4M3 NaN code in a later span of k, for two groups
	 * of rows: the general path's NaN */
	{
		struct mxe_gemm_desc g = desc(9, 8, 1088, MXA_DTYPE_BF16, MXA_DTYPE_E4M3, 1);
		size_t nbad;

		tu_fill(MXA_DTYPE_BF16, abuf, 9, 1088, 2 * 1088);
		tu_fill(MXA_DTYPE_E4M3, bbuf, 8, 1088, 1088);
		memset(sbbuf, 127, 8 * 34);
		sbbuf[34 + 1] = 0xFF;			/* row 1, block 1 */
		bbuf[5 * 1088 + 20 * 32 + 17] = 0x7f;	/* row 5, block 20: a NaN code */
		host_check(!same_as_general(eng, &g, &nbad) && !nbad && isnan(d1[1]) &&
			   isnan(d1[5]) && isnan(d1[8 * 8 + 5]) && !isnan(d1[0]) &&
			   !isnan(d1[8 * 8 + 4]),
			   "%s: NaN scales and NaN codes give the general path's NaN", mxe_engine_simd());
	}
	/* E5M2's Inf and NaN codes (S.11111.xx), for one row and for nine: the general
	 * path's Inf and NaN (the AVX-512 kernel's decode must see them: its doubles' bits
	 * would make them finite) */
	for (unsigned m = 1; m <= 9; m += 8) {
		struct mxe_gemm_desc g = desc(m, 8, 1088, MXA_DTYPE_BF16, MXA_DTYPE_E5M2, 1);
		size_t nbad;

		tu_fill(MXA_DTYPE_BF16, abuf, m, 1088, 2 * 1088);
		for (size_t i = 0; i < (size_t)m * 1088; i++)	/* A > 0: an Inf stays one */
			((uint16_t *)abuf)[i] &= 0x7fff;
		tu_fill(MXA_DTYPE_E5M2, bbuf, 8, 1088, 1088);
		for (size_t i = 0; i < 8 * 1088; i++)		/* no Inf or NaN but these */
			if ((bbuf[i] & 0x7c) == 0x7c)
				bbuf[i] ^= 0x04;
		memset(sbbuf, 127, 8 * 34);
		bbuf[2 * 1088 + 20 * 32 + 3] = 0x7c;	/* +Inf */
		bbuf[3 * 1088 + 9 * 32 + 30] = 0xfc;	/* -Inf */
		bbuf[6 * 1088 + 33 * 32 + 1] = 0x7e;	/* NaN */
		host_check(!same_as_general(eng, &g, &nbad) && !nbad && isinf(d1[2]) && d1[2] > 0 &&
			   isinf(d1[3]) && d1[3] < 0 && isnan(d1[6]) && isfinite(d1[5]) &&
			   isinf(d1[(m - 1) * 8 + 2]) && isnan(d1[(m - 1) * 8 + 6]),
			   "%s: E5M2 Inf and NaN codes, %u row%s of A: the general path's Inf and NaN",
			   mxe_engine_simd(), m, m > 1 ? "s" : "");
	}
}

/*
 * @n BF16 activations with exponents from 2^(2 - @binades) to 2^2: 8 binades (a block
 * spans at most 15 bits: one int16 part), 20 as after a norm (two parts), 33 (three),
 * 60 as a SiLU output next to large values (blocks rounded to 44 bits).
 */
static void llm_activations(uint16_t *a, size_t n, unsigned binades)
{
	for (size_t i = 0; i < n; i++)
		a[i] = (uint16_t)((tu_rand_code(MXA_DTYPE_BF16) & 0x807f) |
				  (130 - binades + tu_rand_code(MXA_DTYPE_BF16) % binades) << 7);
}

/*
 * E2M1 weights against one row of activations in 16-bit integer parts (one, two or
 * three, or blocks rounded to 44 bits with the rounding in the proof's bound), and
 * against 3 and 9 rows (AVX-512): the integer block kernels, with
 * and without scales, K / 32 a multiple of 8 or not (608: 16 blocks summed as one
 * vector, a pair and a lone block), a
 * NaN scale; and the same weights as a table of row pointers (desc.b_rows, the
 * device's in-place weights) in another order in memory.
 */
static void int_block_cases(struct mxe_engine *eng)
{
	static const unsigned ks[] = { 1024, 608, 32 };
	static const uint8_t *rows[64], *srows[64];
	static uint8_t wcopy[64 * 512], scopy[64 * 32];
	size_t cases = 0, bad = 0, nbad;
	uint64_t i0 = mxe_gemv_int_outputs(), out0, redo0, out1, redo1;

	mxe_gemv_counts(&out0, &redo0);
	static const unsigned binades[] = { 8, 20, 33, 60 };

	for (unsigned ki = 0; ki < 12; ki++) {
		for (int scales = 0; scales < 2; scales++) {
			unsigned k = ks[ki % 3], n = 64;
			struct mxe_gemm_desc g = desc(1, n, k, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, scales);

			llm_activations((uint16_t *)abuf, k, binades[ki / 3]);
			tu_fill(MXA_DTYPE_E2M1, bbuf, n, k, k / 2);
			for (size_t i = 0; i < n * k / 32; i++)
				sbbuf[i] = (uint8_t)(120 + tu_rand_code(MXA_DTYPE_E8M0) % 12);
			if (same_as_general(eng, &g, &nbad) || nbad) {
				bad++;
				host_diag("  K=%u scales=%d binades=%u: %zu outputs differ", k, scales,
					  binades[ki / 3], nbad);
			}
			cases++;
		}
	}
	mxe_gemv_counts(&out1, &redo1);
	host_check(bad == 0 && mxe_gemv_int_outputs() - i0 == cases * 64 &&
		   (redo1 - redo0) * 20 < out1 - out0,
		   "%s: %zu integer-block GEMVs (E2M1, M = 1): the general path's bits, %llu of %llu outputs redone",
		   mxe_engine_simd(), cases, (unsigned long long)(redo1 - redo0),
		   (unsigned long long)(out1 - out0));

	/* several rows (AVX-512: 16 columns' codes looked up once for all rows), each of
	 * its own width, so that the rows' parts and rounding differ; M not a multiple of
	 * 8; a NaN scale in one column */
	cases = bad = 0;
	i0 = mxe_gemv_int_outputs();
	mxe_gemv_counts(&out0, &redo0);
	for (unsigned ki = 0; ki < 12; ki++) {
		unsigned k = ks[ki % 3], n = 64, m = ki % 2 ? 9 : 3;
		struct mxe_gemm_desc g = desc(m, n, k, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, ki % 4 != 1);

		for (unsigned i = 0; i < m; i++)
			llm_activations((uint16_t *)abuf + (size_t)i * k, k,
					binades[(ki / 3 + (i % 3 == 2 ? i : 0)) % 4]);
		tu_fill(MXA_DTYPE_E2M1, bbuf, n, k, k / 2);
		for (size_t i = 0; i < n * k / 32; i++)
			sbbuf[i] = (uint8_t)(120 + tu_rand_code(MXA_DTYPE_E8M0) % 12);
		if (ki % 4 == 2)
			sbbuf[7 * (k / 32) + k / 64] = 0xFF;
		if (same_as_general(eng, &g, &nbad) || nbad) {
			bad++;
			host_diag("  M=%u K=%u: %zu outputs differ", m, k, nbad);
		}
		cases += m * n;
	}
	mxe_gemv_counts(&out1, &redo1);
	host_check(bad == 0 && mxe_gemv_int_outputs() - i0 ==
		   (mxe_cpu_use_avx2() ? cases : 0) && (redo1 - redo0) * 20 < out1 - out0,
		   "%s: integer-block GEMVs with 3 and 9 rows of A: the general path's bits (%llu "
		   "outputs on the integer blocks, %llu redone)", mxe_engine_simd(),
		   (unsigned long long)(mxe_gemv_int_outputs() - i0), (unsigned long long)(redo1 - redo0));

	/* an Inf in one row of 9: no integer form for any (its rows share their parts),
	 * the double kernels' bits, Inf and NaN (Inf times a zero weight) in that row */
	{
		struct mxe_gemm_desc g = desc(9, 64, 608, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, 1);
		uint64_t n0 = mxe_gemv_int_outputs();

		llm_activations((uint16_t *)abuf, 9 * 608, 8);
		((uint16_t *)abuf)[4 * 608 + 300] = 0x7f80;
		tu_fill(MXA_DTYPE_E2M1, bbuf, 64, 608, 304);
		host_check(!same_as_general(eng, &g, &nbad) && !nbad &&
			   mxe_gemv_int_outputs() == n0 && isinf(d1[4 * 64]) + isnan(d1[4 * 64]) &&
			   !isinf(d1[3 * 64]) && !isnan(d1[3 * 64]),
			   "%s: an Inf in one row of A: every row on the double kernels, the general "
			   "path's bits", mxe_engine_simd());
	}

	/* several rows, weights 1 at k = 0, 32, 64 of every column: row 0 sums
	 * 1 + 2^-24 + 2^-60 (just above a tie: 1 + 2^-23), row 1 1 + 2^-24 (the tie: 1),
	 * where the double sum loses 2^-60 and only the proof's interval tells */
	{
		struct mxe_gemm_desc g = desc(3, 16, 128, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, 1);
		uint16_t *a = (uint16_t *)abuf;
		uint64_t x0 = mxe_gemv_int_redone();

		memset(a, 0, 3 * 128 * sizeof(*a));
		memset(bbuf, 0, 16 * 64);
		memset(sbbuf, 127, 16 * 4);
		for (unsigned j = 0; j < 16; j++)
			for (unsigned b = 0; b < 3; b++)
				bbuf[j * 64 + b * 16] = 0x2;	/* E2M1 1.0 at k = 32 b */
		for (unsigned i = 0; i < 3; i++) {
			a[i * 128] = bf16_one;
			a[i * 128 + 32] = i < 2 ? bf16_pow2(-24) : bf16_pow2(-20);
			a[i * 128 + 64] = i == 0 ? bf16_pow2(-60) : 0;
		}
		host_check(!same_as_general(eng, &g, &nbad) && !nbad && d1[0] == 1.0f + 0x1p-23f &&
			   d1[15] == 1.0f + 0x1p-23f && d1[16] == 1.0f && d1[2 * 16] == 1.0f + 0x1p-20f &&
			   mxe_gemv_int_redone() - x0 == (mxe_cpu_use_avx2() ? 16 : 0),
			   "%s: several rows at and just above an f32 tie: the proof's interval fails, "
			   "row 0's 16 outputs summed exactly from the integer blocks", mxe_engine_simd());
	}

	/*
	 * several rows whose sums need no bound (mxe_gemv.c, gemv_sums_exact(); K = 1024:
	 * exponents may span 29 - log2(32) = 24 bits): narrow activations and scales
	 * 2^-7 .. 2^4, every output; a column whose scales span 2^-126 .. 2^123, none of its
	 * task's 16; activations 1 with one block of the last row 2^-24, every output, and
	 * 2^-25, none; scales 1 with one column's block 2^24, every output, and 2^25, none
	 * of its task's
	 */
	bad = 0;
	for (unsigned c = 0; c < 6; c++) {
		static const unsigned want[] = { 5 * 64, 5 * 48, 5 * 64, 0, 5 * 64, 5 * 48 };
		struct mxe_gemm_desc g = desc(5, 64, 1024, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, 1);
		uint16_t *a = (uint16_t *)abuf;
		uint64_t e0 = mxe_gemv_exact_sums();

		llm_activations(a, 5 * 1024, 4);
		tu_fill(MXA_DTYPE_E2M1, bbuf, 64, 1024, 512);
		for (size_t i = 0; i < 64 * 32; i++)
			sbbuf[i] = (uint8_t)(c < 2 ? 120 + tu_rand_code(MXA_DTYPE_E8M0) % 12 : 127);
		for (int i = 0; c >= 2 && i < 5 * 1024; i++)
			a[i] = bf16_one;
		if (c == 1)
			sbbuf[3 * 32] = 1, sbbuf[3 * 32 + 1] = 250;
		for (int i = 0; (c == 2 || c == 3) && i < 32; i++)	/* row 4, block 7 */
			a[4 * 1024 + 7 * 32 + i] = bf16_pow2(c == 2 ? -24 : -25);
		if (c >= 4)
			sbbuf[5 * 32 + 9] = (uint8_t)(127 + (c == 4 ? 24 : 25));
		if (same_as_general(eng, &g, &nbad) || nbad ||
		    mxe_gemv_exact_sums() - e0 != (mxe_cpu_use_avx2() ? want[c] : 0)) {
			bad++;
			host_diag("  exact sums, case %u: %zu outputs differ, %llu summed without a "
				  "bound (want %u)", c, nbad,
				  (unsigned long long)(mxe_gemv_exact_sums() - e0), want[c]);
		}
	}
	host_check(bad == 0, "%s: several rows summed without a bound where every addition is "
		   "exact: the general path's bits", mxe_engine_simd());

	/* the rows as pointers, stored in reverse order elsewhere */
	{
		struct mxe_gemm_desc g = desc(1, 64, 1024, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, 1);
		int rc;

		g.d = d1;
		mxe_gemm(eng, &g);
		memcpy(d2 + 64, d1, 64 * 4);
		for (unsigned j = 0; j < 64; j++) {
			memcpy(wcopy + (63 - j) * 512, bbuf + j * 512, 512);
			memcpy(scopy + (63 - j) * 32, sbbuf + j * 32, 32);
			rows[j] = wcopy + (63 - j) * 512;
			srows[j] = scopy + (63 - j) * 32;
		}
		g.b_rows = rows;
		g.scale_b_rows = srows;
		memset(d1, 0, 64 * 4);
		rc = mxe_gemm(eng, &g);
		host_check(mxe_gemv_takes(&g) && !rc && !memcmp(d1, d2 + 64, 64 * 4),
			   "%s: weights as row pointers give the same bits", mxe_engine_simd());
		/* a NaN scale in row 5: the general path, reading the rows by pointer too */
		scopy[(63 - 5) * 32 + 7] = 0xFF;
		rc = mxe_gemm(eng, &g);
		host_check(!rc && isnan(d1[5]) && !memcmp(d1, d2 + 64, 5 * 4) &&
			   !memcmp(d1 + 6, d2 + 64 + 6, 58 * 4),
			   "%s: a NaN scale among row pointers: that output NaN, the others kept",
			   mxe_engine_simd());
		/* no other path reads rows by pointer (interwave is a strategy of its own) */
		g.sched = MXE_SCHED_INTERWAVE;
		host_check(!mxe_gemv_takes(&g) && mxe_gemm(eng, &g) == MXE_ENGINE_EINVAL_LAYOUT,
			   "%s: row pointers outside the GEMV path are refused", mxe_engine_simd());
	}
}

/*
 * FAST numerics for GEMV shapes (mxe_gemv_fast.c) against the tiled path they must
 * equal bit for bit: E4M3, E5M2 and E2M1 weights with and without scales, BF16, F16,
 * F32 and MX-E4M3 activations, M from 1 to 32 (7: rows four at a time and one at a
 * time, mxe_gemv_fast.c rows_chains()), K with one and several 256-blocks and
 * a partial last one, a partial last group of columns, negation, NaN codes and scales,
 * and as row pointers.
 */
static void fast_cases(struct mxe_engine *eng)
{
	static const unsigned wtypes[] = { MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_E2M1 };
	static const unsigned atypes[] = { MXA_DTYPE_BF16, MXA_DTYPE_F16, MXA_DTYPE_F32,
					   MXA_DTYPE_E4M3 };
	static const unsigned ms[] = { 1, 3, 7, 32 }, ks[] = { 64, 320, 1024 };
	static const uint8_t *rows[64], *srows[64];
	size_t cases = 0, bad = 0, nbad;
	uint64_t f0 = mxe_gemv_fast_outputs();

	for (unsigned w = 0; w < 3; w++)
		for (unsigned a = 0; a < 4; a++)
			for (unsigned mi = 0; mi < 4; mi++)
				for (unsigned ki = 0; ki < 3; ki++) {
					unsigned m = ms[mi], n = 37, k = ks[ki];
					struct mxe_gemm_desc g = desc(m, n, k, atypes[a], wtypes[w],
								      (ki + mi) % 2 || atypes[a] == MXA_DTYPE_E4M3);
					struct mxe_op op;

					if (k % 64 && (g.scale_block && (wtypes[w] != MXA_DTYPE_E2M1 ||
									 atypes[a] == MXA_DTYPE_E4M3)))
						k = g.k = 384;	/* FP8 MX: K % 64 */
					g.accum = MXE_ACCUM_FAST;
					g.flags = (mi & 1 ? MXE_GEMM_NEGATE_B : 0) | (ki & 1 ? MXE_GEMM_NEGATE_A : 0);
					tu_fill(g.type_a, abuf, m, k, mxe_dtype_row_bytes(g.type_a, k));
					tu_fill(g.type_b, bbuf, n, k, mxe_dtype_row_bytes(g.type_b, k));
					for (size_t i = 0; i < 32 * 32; i++)	/* near 1: exact in f32 */
						sabuf[i] = (uint8_t)(118 + tu_rand_code(MXA_DTYPE_E8M0) % 20);
					for (size_t i = 0; i < 64 * 32; i++)
						sbbuf[i] = (uint8_t)(118 + tu_rand_code(MXA_DTYPE_E8M0) % 20);
					if (cases % 7 == 3 && g.scale_b)
						sbbuf[5 * (k / 32) + 1] = 0xFF;		/* a NaN scale */
					if (wtypes[w] == MXA_DTYPE_E4M3 && cases % 3 == 1)	/* NaN codes */
						bbuf[3 * k + 7] = 0x7F, bbuf[30 * k + k - 2] = 0xFF;
					if (ki == 2 && !(g.flags & MXE_GEMM_NEGATE_B)) {	/* rows by pointer */
						for (unsigned j = 0; j < n; j++) {
							rows[j] = bbuf + j * mxe_dtype_row_bytes(g.type_b, k);
							srows[j] = sbbuf + j * (k / 32);
						}
						g.b_rows = rows;
						g.scale_b_rows = g.scale_b ? srows : NULL;
					}
					g.d = d1;
					nbad = (size_t)mxe_gemm(eng, &g);
					g.b_rows = NULL;
					g.scale_b_rows = NULL;
					g.d = d2;
					if (!nbad && !mxe_op_prepare(&g, &op) && mxe_tiled_run(eng, &op) == 0) {
						for (size_t i = 0; i < (size_t)m * n; i++)
							nbad += memcmp(&d1[i], &d2[i], 4) != 0;
					} else {
						nbad = 1;
					}
					if (nbad) {
						bad++;
						host_diag("  FAST %s x %s M=%u K=%u: %zu outputs differ",
							  mxe_dtype_name(g.type_a), mxe_dtype_name(g.type_b),
							  m, k, nbad);
					}
					cases++;
				}
	/*
	 * scales FAST cannot take (2^123 x 448 overflows f32): the exact path's bits, the
	 * rows by pointer; K 256 and 1024. Rows that follow each other in memory are
	 * scanned as one (mxe_tiled.c, mx_scales_safe()): the code in row 4, in the last
	 * row's last code (the scan's tail past its vector steps), and in row 4 of rows
	 * given in reverse order (each scanned alone).
	 */
	for (unsigned c = 0; c < 6; c++) {
		unsigned k = c % 2 ? 1024 : 256, nb = k / 32, rev = c / 2 == 2;
		struct mxe_gemm_desc g = desc(1, 37, k, MXA_DTYPE_BF16, MXA_DTYPE_E4M3, 1);

		tu_fill(g.type_a, abuf, 1, k, 2 * k);
		tu_fill(g.type_b, bbuf, 37, k, k);
		memset(sbbuf, 127, 37 * nb);
		sbbuf[c / 2 == 1 ? 37 * nb - 1 : nb * 4 + nb - 6] = 250;
		for (unsigned j = 0; j < 37; j++) {
			rows[j] = bbuf + (rev ? 36 - j : j) * k;
			srows[j] = sbbuf + (rev ? 36 - j : j) * nb;
		}
		g.b_rows = rows;
		g.scale_b_rows = srows;
		g.d = d2;
		nbad = (size_t)mxe_gemm(eng, &g);	/* EXACT */
		g.accum = MXE_ACCUM_FAST;
		g.d = d1;
		nbad += (size_t)mxe_gemm(eng, &g);
		for (size_t i = 0; i < 37; i++)
			nbad += memcmp(&d1[i], &d2[i], 4) != 0;
		if (nbad) {
			bad++;
			host_diag("  FAST with a scale of 2^123, K %u, rows by pointer, case %u: %zu "
				  "differ", k, c / 2, nbad);
		}
		cases++;
	}
	host_check(bad == 0 && mxe_gemv_fast_outputs() - f0 > 0,
		   "%s: %zu FAST GEMVs: the tiled path's bits (%llu outputs on the GEMV kernel)",
		   mxe_engine_simd(), cases, (unsigned long long)(mxe_gemv_fast_outputs() - f0));
}

/*
 * Several rows of A on BF16 pairs (AVX512-BF16; mxe_gemv_fast.c, fast_pairs_prepare()):
 * the bits of the same GEMV capped at avx512vnni (the f32 chains), and the pairs taken
 * only where they may be. Taken: BF16 activations against E4M3, MX-E4M3 against E5M2
 * (32 rows), SiLU-like BF16 against E2M1 (blocks without int16 forms), 3 and 9 rows,
 * plain and negated, weights by row pointer; an E4M3 scale of 2^-102 against
 * activations from 2^-8 (products on 2^-15 x 2^-9 x 2^-102 = 2^-126). Not: 2^-103
 * (2^-127), an F16 row (11 bits), a subnormal BF16 element (against weights whose
 * grid would take them).
 */
static void fast_pair_cases(struct mxe_engine *eng)
{
	static const struct {
		unsigned ta, tb, m, k, want;
		int what;	/* 0 plain, 1 -A, B by pointer, 2 scale 25, 3 scale 24,
				 * 4 subnormal */
	} cs[] = {
		{ MXA_DTYPE_BF16, MXA_DTYPE_E4M3, 8, 1024, 1, 0 },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, 32, 320, 1, 0 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_E2M1, 9, 1024, 1, 1 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_E4M3, 3, 320, 1, 1 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_E4M3, 8, 320, 1, 2 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_E4M3, 8, 320, 0, 3 },
		{ MXA_DTYPE_F16, MXA_DTYPE_E4M3, 8, 320, 0, 0 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_E4M3, 8, 320, 0, 4 },
	};
	static const uint8_t *rows[64], *srows[64];
	size_t bad = 0;

	if (strcmp(mxe_engine_simd(), "avx512bf16"))
		return;		/* the level that has them */
	for (size_t c = 0; c < sizeof(cs) / sizeof(cs[0]); c++) {
		unsigned m = cs[c].m, n = 64, k = cs[c].k, nb = k / 32;
		struct mxe_gemm_desc g = desc(m, n, k, cs[c].ta, cs[c].tb, 1);
		uint16_t *a = (uint16_t *)(void *)abuf;
		uint64_t p0 = mxe_gemv_fast_pair_ops();
		size_t nbad = 0;
		int rc, ran;

		g.accum = MXE_ACCUM_FAST;
		tu_fill(g.type_a, abuf, m, k, mxe_dtype_row_bytes(g.type_a, k));
		tu_fill(g.type_b, bbuf, n, k, mxe_dtype_row_bytes(g.type_b, k));
		for (size_t i = 0; g.type_b == MXA_DTYPE_E4M3 && i < (size_t)n * k; i++)
			bbuf[i] ^= (bbuf[i] & 0x7F) == 0x7F;	/* no NaN codes */
		for (size_t i = 0; g.type_b == MXA_DTYPE_E5M2 && i < (size_t)n * k; i++)
			bbuf[i] ^= (bbuf[i] & 0x7C) == 0x7C ? 4 : 0;	/* no Inf, NaN */
		if (cs[c].ta == MXA_DTYPE_BF16)	/* 2^-8 .. 2^2; SiLU-like: 2^-29 .. 2^2 */
			llm_activations(a, (size_t)m * k, cs[c].tb == MXA_DTYPE_E2M1 ? 32 : 11);
		if (cs[c].ta == MXA_DTYPE_E4M3)
			for (size_t i = 0; i < (size_t)m * k; i++)
				abuf[i] ^= (abuf[i] & 0x7F) == 0x7F;
		for (size_t i = 0; i < (size_t)m * nb; i++)
			sabuf[i] = (uint8_t)(118 + tu_rand() % 20);
		for (size_t i = 0; i < (size_t)n * nb; i++)	/* an F16 row, a subnormal: weights
								 * from 2^14, whose grid would do */
			sbbuf[i] = (uint8_t)(cs[c].what == 4 || cs[c].ta == MXA_DTYPE_F16 ?
					     150 + tu_rand() % 8 : 118 + tu_rand() % 20);
		if (cs[c].what == 2 || cs[c].what == 3)	/* E4M3's 2^-9 at 2^-102 / 2^-103 */
			sbbuf[7 * nb + 3] = cs[c].what == 2 ? 25 : 24;
		if (cs[c].what == 4)
			a[5 * k + 100] = 0x0001;
		if (cs[c].what == 1) {	/* (rows by pointer are not negated: the device's) */
			g.flags = MXE_GEMM_NEGATE_A;
			for (unsigned j = 0; j < n; j++) {
				rows[j] = bbuf + (size_t)(n - 1 - j) * mxe_dtype_row_bytes(g.type_b, k);
				srows[j] = sbbuf + (size_t)(n - 1 - j) * nb;
			}
			g.b_rows = rows;
			g.scale_b_rows = srows;
		}
		g.d = d1;
		rc = mxe_gemm(eng, &g);
		ran = mxe_gemv_fast_pair_ops() - p0 == 1;
		mxe_engine_set_simd("avx512vnni");
		g.d = d2;
		rc |= mxe_gemm(eng, &g);
		mxe_engine_set_simd("avx512bf16");
		for (size_t i = 0; i < (size_t)m * n; i++)
			nbad += memcmp(&d1[i], &d2[i], 4) != 0;
		if (rc || nbad || ran != (int)cs[c].want) {
			bad++;
			host_diag("  pairs %s x %s M=%u K=%u case %zu: rc %d, %zu differ, on pairs: %d",
				  mxe_dtype_name(g.type_a), mxe_dtype_name(g.type_b), m, k, c, rc,
				  nbad, ran);
		}
	}
	host_check(!bad, "avx512bf16: %zu several-row FAST GEMVs: on BF16 pairs where they may "
		   "be, the f32 chains' bits", sizeof(cs) / sizeof(cs[0]));
}

/* D of FAST @g through mxe_gemm() and through the tiled path; outputs that differ. */
static size_t fast_vs_tiled(struct mxe_engine *eng, struct mxe_gemm_desc *g)
{
	struct mxe_op op;
	size_t nbad = 0;

	g->d = d1;
	if (mxe_gemm(eng, g))
		return 1;
	g->d = d2;
	if (mxe_op_prepare(g, &op) || mxe_tiled_run(eng, &op))
		return 1;
	for (size_t i = 0; i < (size_t)g->m * g->n; i++)
		nbad += memcmp(&d1[i], &d2[i], 4) != 0;
	return nbad;
}

/*
 * FAST with the weights by row pointer, the last column's row ending where an
 * unmapped page begins, and rows whose length is not a multiple of the 64 bytes
 * the kernel copies at a time (mxe_gemv_fast.c, stage_rows()): a read past the row
 * would fault. E4M3 and E2M1 rows of 352 codes (352 and 176 bytes), 1 and 8 rows of A,
 * against the tiled path on the same rows.
 */
static void fast_row_end_cases(struct mxe_engine *eng)
{
	static const uint8_t *rows[64];
	static const unsigned wtypes[] = { MXA_DTYPE_E4M3, MXA_DTYPE_E2M1 };
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t bad = 0, cases = 0;
	uint64_t f0 = mxe_gemv_fast_outputs();

	if (map == MAP_FAILED || mprotect(map + pg, pg, PROT_NONE)) {
		host_check(0, "FAST GEMV rows ending at an unmapped page: mmap failed");
		return;
	}
	for (unsigned w = 0; w < 2; w++)
		for (unsigned m = 1; m <= 8; m += 7) {
			const unsigned n = 37, k = 352;
			size_t rb = mxe_dtype_row_bytes(wtypes[w], k);
			struct mxe_gemm_desc g = desc(m, n, k, MXA_DTYPE_BF16, wtypes[w], 0);
			size_t nbad;

			tu_fill(g.type_a, abuf, m, k, mxe_dtype_row_bytes(g.type_a, k));
			tu_fill(g.type_b, bbuf, n, k, rb);
			memcpy(map + pg - rb, bbuf + (n - 1) * rb, rb);
			for (unsigned j = 0; j < n; j++)
				rows[j] = j < n - 1 ? bbuf + j * rb : map + pg - rb;
			g.b_rows = rows;
			g.accum = MXE_ACCUM_FAST;
			nbad = fast_vs_tiled(eng, &g);
			if (nbad) {
				bad++;
				host_diag("  FAST %s M=%u K=%u, last row at an unmapped page: %zu differ",
					  mxe_dtype_name(g.type_b), m, k, nbad);
			}
			cases++;
		}
	munmap(map, 2 * pg);
	host_check(bad == 0 && mxe_gemv_fast_outputs() - f0 == (1 + 8) * 37 * 2,
		   "%s: %zu FAST GEMVs whose last row ends at an unmapped page, rows of 352 codes: "
		   "the tiled path's bits, on the GEMV kernel", mxe_engine_simd(), cases);
}

/* Negated A and B whose sums are exactly 0: column 0 of B every weight +0, column 1's
 * first block 1, -1, ... (E2M1 0xA2) against row 0's first 32 values of 1. */
static void zero_sums(struct mxe_gemm_desc *g, uint16_t *a, unsigned k)
{
	g->flags = MXE_GEMM_NEGATE_B | MXE_GEMM_NEGATE_A;
	memset(bbuf, 0, k / 2);
	for (int i = 0; i < 16; i++)
		bbuf[k / 2 + i] = 0xA2;
	for (int i = 0; i < 32; i++)
		a[i] = bf16_one;
}

/* Block @b of BF16 row @r (rows @k long) spans more than 15 bits: no int16 form. */
static void wide_block(uint16_t *a, size_t k, unsigned r, int b)
{
	a[r * k + (size_t)b * 32 + 1] = bf16_pow2(-40);
}

/*
 * FAST, E2M1 weights, one row of A whose blocks span at most 15 bits: the sub-block
 * sums come from integer products (mxe_gemv_fast.c, int_span()), 16 blocks a chunk,
 * and must be the chains' bits. The count of sums taken that way tells which chunks
 * the integers took: all full chunks of fitting blocks (K = 1088: two, the last two
 * blocks by the chain), none of a block too wide, the rest of a chunk with ten such
 * blocks but none of one with 11 (the integers would not pay for the chains), a NaN
 * scale or
 * a grid below the normal f32 range or above 2^104; negation with sums of exactly 0
 * (an all-zero column must stay +0: K = 1024, all of it in chunks), and K = 8704, whose
 * seventeenth chunk is a second span.
 */
static void fast_int_cases(struct mxe_engine *eng)
{
	enum { K = 1088, N = 37, NB = K / 32 };	/* k = K but in cases 5 and 6 */
	static const char *const what[] = { "all fit", "a wide block", "a NaN scale",
					     "a grid below 2^-126", "a grid above 2^104",
					     "negated, sums of 0", "a second span of chunks",
					     "11 wide blocks in a chunk", "10 wide blocks in a chunk" };
	size_t bad = 0;

	for (unsigned c = 0; c < 9; c++) {
		/* the last case without the chain's last two blocks, whose +0 would hide a -0 */
		unsigned k = c == 5 ? 1024 : c == 6 ? 8704 : K;
		struct mxe_gemm_desc g = desc(1, N, k, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, 1);
		uint16_t *a = (uint16_t *)abuf;
		/* sub-block sums expected from integers: chunks 0 and 1, 16 blocks each */
		size_t want = (k / 512) * 16 * N, nbad;
		uint64_t i0 = mxe_gemv_fast_int_sums();

		g.accum = MXE_ACCUM_FAST;
		llm_activations(a, k, 8);
		tu_fill(MXA_DTYPE_E2M1, bbuf, N, k, k / 2);
		for (size_t i = 0; i < N * (k / 32); i++)
			sbbuf[i] = (uint8_t)(120 + tu_rand_code(MXA_DTYPE_E8M0) % 12);
		memset(a + 3 * 32, 0, 64);			/* an all-zero block fits */
		switch (c) {
		case 1:
			a[5 * 32 + 9] = bf16_pow2(-30);		/* block 5: 2^1 .. 2^-36 */
			want -= N;
			break;
		case 2:	/* chunk 1 near 2^-60: the NaN's grid exponent is in range */
			for (int i = 16 * 32; i < 32 * 32; i++)
				a[i] = (uint16_t)(a[i] - (60 << 7));
			sbbuf[20 * NB + 17] = 0xFF;		/* column 20, chunk 1 */
			/* the chunk's chains for the columns of column 20's task: 32 on
			 * AVX-512 (mxe_gemv_fast.c, COLS), 64 on AVX2 (COLS8) */
			want -= 16 * (strncmp(mxe_engine_simd(), "avx512", 6) ? N : 32);
			break;
		case 3:
			for (int i = 16 * 32; i < 32 * 32; i++)	/* chunk 1 near 2^-112 */
				a[i] = (uint16_t)(a[i] - (120 << 7));
			want -= 16 * N;
			break;
		case 4:
			for (int i = 0; i < 16 * 32; i++)	/* chunk 0 near 2^100 */
				a[i] = a[i] ? (uint16_t)(a[i] + (100 << 7)) : 0;
			for (int j = 0; j < N; j++)
				sbbuf[j * NB + 2] = 127 + 20;
			want -= 16 * N;
			break;
		case 6:	/* 17 chunks: spans of 16 (mxe_gemv_fast.c, INT_SPAN) and one */
			a[266 * 32 + 3] = bf16_pow2(-30);	/* in the second span */
			want -= N;
			break;
		case 7:	/* more than INT_MISS_MAX (10): the chains run the whole chunk */
			for (int b = 17; b < 28; b++)
				wide_block(a, k, 0, b);
			want -= 16 * N;
			break;
		case 8:	/* INT_MISS_MAX: the chains run those blocks, the integers the rest */
			for (int b = 17; b < 27; b++)
				wide_block(a, k, 0, b);
			want -= 10 * N;
			break;
		case 5:
			zero_sums(&g, a, k);
			break;
		}
		nbad = fast_vs_tiled(eng, &g);
		if (nbad || mxe_gemv_fast_int_sums() - i0 != want) {
			bad++;
			host_diag("  FAST E2M1 integer sums, %s: %zu outputs differ, %llu sums from "
				  "integers (want %zu)", what[c], nbad,
				  (unsigned long long)(mxe_gemv_fast_int_sums() - i0), want);
		}
	}
	host_check(bad == 0, "%s: FAST E2M1 GEMV sub-block sums from integers where no chain "
		   "rounds: the tiled path's bits", mxe_engine_simd());
}

/*
 * FAST, E2M1 weights, several rows of A (mxe_gemv_fast.c, int_cols_t()): where a row's
 * block spans at most 15 bits and every column's grid in the task's 16 is a normal f32
 * with room for 2^24 units, the sub-block sum comes from integer products, else from
 * the chain; either way the tiled path's bits. The count of sums taken from integers
 * (one per row, block and column) tells which: all (2, 5 and 32 rows; K = 1088 ends in
 * a partial 256-block, N = 37 in a partial group of columns), a wide block in one row,
 * a NaN scale (its column NaN from the integers too), a column whose grid falls below
 * 2^-126 or rises past 2^104 (its group's 16 columns, every row, by the chain), negated
 * A and B with sums of exactly 0 (+0), rows of B by pointer, a row of 32 whose every
 * block is wide, and a row whose one nonzero block holds f32 subnormals beside
 * 2^-126 (fast_block_form()'s significands without the hidden bit). Where more than
 * one block in 16 is wide the float kernels take the job, no sum from integers: one
 * row of 16 wide takes the integers still, that and one block more does not, nor two
 * rows of five. On AVX2 the integers take at most 3 rows: the cases of five rows run
 * three there, and those of 16 and 32 the float kernels.
 */
static void fast_int_rows_cases(struct mxe_engine *eng)
{
	enum { K = 1088, N = 37, NB = K / 32 };
	static const char *const what[] = { "all fit, 5 rows (AVX2: 3)", "all fit, 2 rows", "all fit, 32 rows",
					    "a wide block", "a NaN scale", "a grid below 2^-126",
					    "a grid above 2^104", "negated, sums of 0",
					    "rows of B by pointer", "a row of 32 wide",
					    "a block of f32 subnormals", "a row of 16 wide",
					    "a row of 16 and a block wide", "two rows of five wide" };
	static const uint8_t *rows[N], *srows[N];
	static uint8_t rb[N * K / 2], rsc[N * NB];
	static float dr[5 * N];
	size_t bad = 0;

	const int avx2 = !strcmp(mxe_engine_simd(), "avx2");

	for (unsigned c = 0; c < 14; c++) {
		unsigned m = c == 1 ? 2 : c == 2 || c == 9 ? 32 : c == 11 || c == 12 ? 16 :
			     avx2 && c != 13 ? 3 : 5;
		struct mxe_gemm_desc g = desc(m, N, K, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, 1);
		uint16_t *a = (uint16_t *)abuf;
		size_t want = (size_t)m * NB * N, nbad = 0;
		uint64_t i0 = mxe_gemv_fast_int_sums();

		g.accum = MXE_ACCUM_FAST;
		llm_activations(a, (size_t)m * K, 8);
		tu_fill(MXA_DTYPE_E2M1, bbuf, N, K, K / 2);
		for (size_t i = 0; i < N * NB; i++)
			sbbuf[i] = (uint8_t)(120 + tu_rand_code(MXA_DTYPE_E8M0) % 12);
		memset(a + K + 3 * 32, 0, 64);			/* an all-zero block fits */
		switch (c) {
		case 3:
			a[2 * K + 5 * 32 + 9] = bf16_pow2(-30);	/* row 2, block 5 */
			want -= N;
			break;
		case 4:
			sbbuf[20 * NB + 17] = 0xFF;		/* column 20, block 17 */
			break;
		case 5:	/* column 3, block 9: 2^-127 under values near 2^-7 .. 2^2 */
			sbbuf[3 * NB + 9] = 0;
			want -= (size_t)m * 16;
			break;
		case 6:	/* column 33 (the last group), block 2: 2^123 */
			sbbuf[33 * NB + 2] = 250;
			want -= (size_t)m * (N - 32);
			break;
		case 7:
			zero_sums(&g, a, K);
			break;
		case 8:	/* a copy of B stored last row first, read through row pointers */
			for (unsigned j = 0; j < N; j++) {
				memcpy(rb + (N - 1 - j) * (K / 2), bbuf + j * (K / 2), K / 2);
				memcpy(rsc + (N - 1 - j) * NB, sbbuf + j * NB, NB);
				rows[j] = rb + (N - 1 - j) * (K / 2);
				srows[j] = rsc + (N - 1 - j) * NB;
			}
			g.b_rows = rows;
			g.scale_b_rows = srows;
			g.d = d1;
			nbad = (size_t)mxe_gemm(eng, &g);
			memcpy(dr, d1, sizeof(dr));
			g.b_rows = NULL;
			g.scale_b_rows = NULL;
			want *= 2;	/* the reference's run below takes them too */
			break;
		case 9:		/* row 4: NB of 32 NB blocks */
		case 11:	/* NB of 16 NB: one in 16, the most the integers take */
			for (int b = 0; b < NB; b++)
				wide_block(a, K, 4, b);
			want -= (size_t)NB * N;
			break;
		case 12:	/* that and one block more (row 3, block 7): the float kernels */
			for (int b = 0; b < NB; b++)
				wide_block(a, K, 4, b);
			wide_block(a, K, 3, 7);
			want = 0;
			break;
		case 13:	/* rows 1 and 3 of five */
			for (int b = 0; b < NB; b++) {
				wide_block(a, K, 1, b);
				wide_block(a, K, 3, b);
			}
			want = 0;
			break;
		case 10:	/* row 1, block 6 (the rest of the row 0): subnormals (n 2^-133)
				 * beside 2^-126 (1 + n / 128), under scales of 2^13 .. 2^16 so that
				 * the grids are normal */
			memset(a + K, 0, K * sizeof(*a));
			for (int q = 0; q < 32; q++)
				a[K + 6 * 32 + q] = (uint16_t)((q % 3 ? 0x8000 : 0) |
							       (q % 2 ? 0x0080 | (q * 5 % 128) : q + 1));
			for (unsigned j = 0; j < N; j++)
				sbbuf[j * NB + 6] = (uint8_t)(140 + j % 4);
			break;
		}
		if (avx2 && m > 3)
			want = 0;
		nbad += fast_vs_tiled(eng, &g);
		for (size_t i = 0; c == 8 && i < (size_t)m * N; i++)
			nbad += memcmp(&dr[i], &d1[i], 4) != 0;
		if (nbad || mxe_gemv_fast_int_sums() - i0 != want) {
			bad++;
			host_diag("  FAST E2M1 integer sums, several rows, %s: %zu outputs differ, %llu "
				  "sums from integers (want %zu)", what[c], nbad,
				  (unsigned long long)(mxe_gemv_fast_int_sums() - i0), want);
		}
	}
	host_check(bad == 0, "%s: FAST E2M1 GEMV of several rows, sub-block sums from integers "
		   "where no chain rounds: the tiled path's bits", mxe_engine_simd());
}

/*
 * The second proof's grid (gemv_store(), numerics.rst "GEMV"): products 1, 2^-24 and
 * 2^-61, the last under a block scale of 2^-40. The double sum loses 2^-61 and lands on
 * the f32 tie 1 + 2^-24 (to even: 1), where the exact sum rounds up to 1 + 2^-23; the
 * first proof cannot tell, and the second must take the column's smallest scale, not
 * 127, for its grid, and hand the output on to be redone. One row and three.
 */
static void proof_grid_cases(struct mxe_engine *eng)
{
	enum { N = 16, K = 64 };
	size_t bad = 0;

	for (unsigned m = 1; m <= 3; m += 2) {
		struct mxe_gemm_desc g = desc(m, N, K, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, 1);
		uint16_t *a = (uint16_t *)abuf;
		size_t nbad = 0;
		uint32_t want = 0x3F800001, got[3];

		memset(abuf, 0, (size_t)m * K * 2);
		memset(bbuf, 0, N * K / 2);
		memset(sbbuf, 127, N * K / 32);
		for (unsigned r = 0; r < m; r++) {
			a[r * K] = 0x3F80;		/* 1 */
			a[r * K + 1] = bf16_pow2(-24);
			a[r * K + 32] = bf16_pow2(-21);
		}
		bbuf[0] = 0x22;			/* column 0: 1 at k = 0, 1 and 32 */
		bbuf[16] = 0x02;
		sbbuf[1] = 127 - 40;
		if (same_as_general(eng, &g, &nbad))
			nbad++;
		for (unsigned r = 0; r < m; r++) {
			memcpy(&got[r], &d1[r * N], 4);
			nbad += got[r] != want;
		}
		if (nbad) {
			bad++;
			host_diag("  M=%u: %zu outputs differ, D[0][0] = 0x%08x (want 0x%08x)", m, nbad,
				  got[0], want);
		}
	}
	host_check(bad == 0, "%s: the second proof's grid from a column's smallest scale: a sum "
		   "the double chain rounds to an f32 tie is redone (1 + 2^-23)",
		   mxe_engine_simd());
}

/*
 * A's integer forms at the edges of the bytes the VNNI kernels split them into (n =
 * 256 hi + lo + 128, mxe_e2m1_a8_block()): F32 rows whose blocks hold n = +-32767,
 * 32640, 32639, -32768, +-255, +-256, -129, 127, ... times one power of two, with one,
 * two and three int16 parts in EXACT (every row takes the widest row's), against E2M1
 * weights of 48 bytes a row (a line that ends early) and 37 columns (a task's last
 * lanes past N): EXACT against the general path, FAST against the tiled one, and both
 * on the integer kernels. Then one row holding all three rows' edges (the one-row
 * kernels: gemv_int_column_avx512(), FAST's int_span()).
 */
static void int_byte_cases(struct mxe_engine *eng)
{
	enum { N = 37, K = 96 };
	static const int32_t edge[32] = {
		32767, -32767, 32640, -32640, 32639, 255, -255, 256, -256, 128, -128, 127, -129, 1,
		-1, 0, 16384, -16385, 257, -257, 383, -383, 511, -512, 32512, -32513, 12345, -12345,
		100, -100, 2, 3,
	};
	static const char *const what[] = { "one part", "two parts", "three parts" };
	size_t bad = 0;

	for (unsigned c = 0; c < 6; c++) {
		const unsigned M = c < 3 ? 3 : 1;
		struct mxe_gemm_desc g = desc(M, N, K, MXA_DTYPE_F32, MXA_DTYPE_E2M1, 1);
		float *a = (float *)abuf;
		uint64_t i0 = mxe_gemv_int_outputs(), f0 = mxe_gemv_fast_int_sums();
		size_t nbad = 0, fbad;

		for (unsigned r = 0; r < M; r++)
			for (unsigned q = 0; q < K; q++) {
				int32_t n = edge[(q + 7 * (q / 32) * r) % 32] * (r == 1 ? -1 : 1);

				if (c % 3 == 1 && (M == 1 || r == 2) && q == 40)
					n = -32768;	/* 16 bits: two parts (n0 = -32768) */
				if (c % 3 == 1 && (M == 1 || r == 1) && q == 70)
					n = 65535;	/* two parts: n0 = 32767, n1 = 1 */
				if (c % 3 == 2 && r == 0 && q == 3)
					n = 1 << 30;	/* 31 bits: three parts */
				a[r * K + q] = ldexpf((float)n, (int)(q / 32) - 12);
			}
		tu_fill(MXA_DTYPE_E2M1, bbuf, N, K, K / 2);
		for (size_t i = 0; i < N * K / 32; i++)
			sbbuf[i] = (uint8_t)(120 + tu_rand_code(MXA_DTYPE_E8M0) % 12);
		if (same_as_general(eng, &g, &nbad))
			nbad++;
		g.accum = MXE_ACCUM_FAST;
		fbad = fast_vs_tiled(eng, &g);
		if (nbad || fbad || mxe_gemv_int_outputs() - i0 != (size_t)M * N ||
		    (c == 0 && mxe_gemv_fast_int_sums() == f0)) {
			bad++;
			host_diag("  M = %u, %s: EXACT %zu, FAST %zu outputs differ; %llu on the integer "
				  "blocks, %llu FAST sums from integers", M, what[c % 3], nbad, fbad,
				  (unsigned long long)(mxe_gemv_int_outputs() - i0),
				  (unsigned long long)(mxe_gemv_fast_int_sums() - f0));
		}
	}
	host_check(bad == 0, "%s: A's integer forms at the byte split's edges (+-32767, -32768, "
		   "+-256, ...; one to three parts; 3 rows and 1): the general and tiled paths' bits, "
		   "on the integer kernels", mxe_engine_simd());
}

/*
 * The GEMV kernels' buffers of A (its values, its int16 form) come from mxe_scratch(),
 * whose buffers below 2 MiB come from mxe_alloc64():
 * on a cache line, zeroed when asked, at sizes malloc() serves from the heap and from
 * mmap() (where it starts 16 bytes in).
 */
static void alloc64_cases(void)
{
	static const size_t sizes[] = { 1, 300, 40 << 10, 300 << 10, 4 << 20 };
	int bad = 0;

	for (unsigned i = 0; i < 5; i++) {
		unsigned char *p = mxe_alloc64(sizes[i], 1);

		bad += !p || (uintptr_t)p % 64;
		for (size_t b = 0; p && b < sizes[i]; b++)
			bad += p[b] != 0;
		free(p);
	}
	host_check(!bad, "mxe_alloc64(): 64-byte aligned and zeroed, 1 byte to 4 MiB");
}

int main(void)
{
	struct mxe_engine *eng = mxe_engine_create(2);
	unsigned best = 0;

	ksft_print_header();
	alloc64_cases();
	abuf = malloc(32 * 1088 * 4);	/* M <= 32, N <= 64, K <= 1088; M = 1, N = 37, K = 8704 */
	bbuf = malloc(37 * 8704 / 2);
	sabuf = malloc(32 * 34);
	sbbuf = malloc(37 * 8704 / 32);
	d1 = malloc(32 * 64 * 4);
	d2 = malloc(32 * 64 * 4);
	/* every SIMD level this CPU has, the best first: the GEMV path needs AVX2
	 * (portable: both sides are the general path) */
	while (mxe_engine_simd_name(best + 1))
		best++;
	for (unsigned l = best + 1; l-- > 0;) {
		if (mxe_engine_set_simd(mxe_engine_simd_name(l)))
			continue;
		random_cases(eng);
		proof_defeating_cases(eng);
		if (mxe_cpu_use_avx2())
			int_block_cases(eng);
		if (mxe_cpu_use_avx2())
			fast_cases(eng);
		if (mxe_cpu_use_avx2())
			fast_row_end_cases(eng);
		if (mxe_cpu_use_avx2())
			fast_int_cases(eng);
		if (mxe_cpu_use_avx2())
			fast_int_rows_cases(eng);
		fast_pair_cases(eng);
		if (mxe_cpu_use_avx2())
			int_byte_cases(eng);
		if (mxe_cpu_use_avx2())
			proof_grid_cases(eng);
	}
	mxe_engine_set_simd(NULL);
	mxe_engine_destroy(eng);
	return host_check_end();
}
