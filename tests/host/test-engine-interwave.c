// SPDX-License-Identifier: MIT
/*
 * test-engine-interwave - the two scheduling policies of the EXACT path are different
 * strategies with the same bits: intrawave (each thread its tiles over all of K) and
 * interwave (all threads through K in 256-element chunks, sharing each decoded chunk,
 * combining exact partial sums). For every float class, with C and negation, MX scales
 * (a partial last block too), K up to 4 chunks and sums built to cross
 * chunks (1 + 2^-24 + 2^-80, cancellations, NaN, Inf): D is bit for bit the same, and
 * the engine's statistics show which strategy ran (chunks, barriers, outputs redone).
 */
#include <stdio.h>

#include "mxe_gemm.h"
#include "host_check.h"
#include "test-engine-util.h"

static uint8_t a[96 * 1024 * 4], b[80 * 1024 * 4], c[96 * 80 * 4], sa[96 * 32], sb[80 * 32];
static uint8_t d_intra[96 * 80 * 4], d_inter[96 * 80 * 4];

/* Both policies on @g; 0 when their D agree bit for bit and the statistics add up. */
static int both(struct mxe_engine *eng, struct mxe_gemm_desc g, const char *what, int *redone)
{
	struct mxe_engine_stats s0, s1, s2;
	size_t bytes = mxe_dtype_row_bytes(g.type_d, g.n) * g.m;
	unsigned chunks = (g.k + 255) / 256;
	int bad = 0;

	mxe_engine_stats(&s0);
	g.sched = MXE_SCHED_INTRAWAVE;
	g.d = d_intra;
	bad |= mxe_gemm(eng, &g) != 0;
	mxe_engine_stats(&s1);
	g.sched = MXE_SCHED_INTERWAVE;
	g.d = d_inter;
	bad |= mxe_gemm(eng, &g) != 0;
	mxe_engine_stats(&s2);
	bad |= memcmp(d_intra, d_inter, bytes) != 0;
	/* intrawave: one exact run, no chunks; interwave: its chunks and two barriers each */
	bad |= s1.intrawave_ops != s0.intrawave_ops + 1 || s1.interwave_ops != s0.interwave_ops;
	bad |= s2.interwave_ops != s1.interwave_ops + 1 || s2.k_chunks - s1.k_chunks != chunks ||
	       s2.barriers - s1.barriers != 2 * chunks;
	if (redone)
		*redone = (int)(s2.redone - s1.redone);
	if (bad)
		host_diag("  %s: policies or statistics differ", what);
	return bad;
}

static struct mxe_gemm_desc desc(unsigned ta, unsigned tb, unsigned td, unsigned m, unsigned n,
				 unsigned k, int mx)
{
	struct mxe_gemm_desc g = { .m = m, .n = n, .k = k, .type_a = ta, .type_b = tb,
				   .type_c = td, .type_d = td, .a = a, .b = b };

	tu_fill(ta, a, m, k, mxe_dtype_row_bytes(ta, k));
	tu_fill(tb, b, n, k, mxe_dtype_row_bytes(tb, k));
	if (mx) {
		tu_fill(MXA_DTYPE_E8M0, sa, m, (k + 31) / 32, (k + 31) / 32);
		tu_fill(MXA_DTYPE_E8M0, sb, n, (k + 31) / 32, (k + 31) / 32);
		g.scale_block = 32;
		g.scale_a = mxe_dtype_is_mx_elem(ta) ? sa : NULL;
		g.scale_b = mxe_dtype_is_mx_elem(tb) ? sb : NULL;
	}
	return g;
}

int main(void)
{
	static const struct { unsigned ta, tb, td; int mx; } types[] = {
		{ MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F16, 0 },
		{ MXA_DTYPE_F32, MXA_DTYPE_F32, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_TF32, MXA_DTYPE_TF32, MXA_DTYPE_F32, 0 },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_BF16, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1 },
		{ MXA_DTYPE_MXINT8, MXA_DTYPE_E3M2, MXA_DTYPE_F32, 1 },
	};
	static const unsigned ks[] = { 257, 512, 1000, 1024 };
	struct mxe_engine *eng = mxe_engine_create(2);
	int bad = 0, cases = 0, redone = 0;

	ksft_print_header();
	for (unsigned t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		for (unsigned ki = 0; ki < 4; ki++) {
			unsigned k = ks[ki];
			struct mxe_gemm_desc g;

			if ((types[t].ta == MXA_DTYPE_E4M3 || types[t].tb == MXA_DTYPE_E4M3) && k % 64)
				continue;	/* FP8 MX needs K % 64 */
			g = desc(types[t].ta, types[t].tb, types[t].td, 37, 21, k, types[t].mx);
			bad += both(eng, g, mxe_dtype_name(types[t].ta), NULL);
			/* with C and negation */
			tu_fill(types[t].td, c, 37, 21, mxe_dtype_row_bytes(types[t].td, 21));
			g.c = c;
			g.flags = MXA_GEMM_F_ACCUMULATE | MXE_GEMM_NEGATE_A;
			bad += both(eng, g, "with C, -A", NULL);
			cases += 2;
		}
	}
	host_check(!bad, "%d operations: interwave D = intrawave D bit for bit, with the "
		   "statistics of each strategy", cases);

	/* sums across chunks: 1 (k = 0) + 2^-24 (k = 300) + 2^-80 (k = 700): the tie broken
	 * only by the last chunk; 2^40 (k = 10) - 2^40 (k = 600) + 2^-30; NaN and Inf */
	{
		struct mxe_gemm_desc g = desc(MXA_DTYPE_F32, MXA_DTYPE_F32, MXA_DTYPE_F32, 4, 3, 768, 0);
		float *fa = (float *)a, *fb = (float *)b;
		int r;

		memset(a, 0, 4 * 768 * 4);
		for (int i = 0; i < 3 * 768; i++)
			fb[i] = 1.0f;
		fa[0] = 1.0f, fa[300] = 0x1p-24f, fa[700] = 0x1p-80f;
		fa[768 + 10] = 0x1p40f, fa[768 + 600] = -0x1p40f, fa[768 + 767] = 0x1p-30f;
		fa[2 * 768 + 5] = NAN;
		fa[3 * 768 + 400] = INFINITY;
		bad = both(eng, g, "sums across chunks", &r);
		redone = r;
		host_check(!bad && ((float *)d_inter)[0] == 1.0f + 0x1p-23f &&
			   ((float *)d_inter)[3] == 0x1p-30f && isnan(((float *)d_inter)[6]) &&
			   isinf(((float *)d_inter)[9]) && redone >= 6,
			   "sums across chunks: 1 + 2^-24 + 2^-80 rounds up, 2^40 - 2^40 + 2^-30, "
			   "NaN, Inf, the same both ways (%d outputs redone on the general path)",
			   redone);
	}
	mxe_engine_destroy(eng);
	return host_check_end();
}
