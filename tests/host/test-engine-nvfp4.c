// SPDX-License-Identifier: MIT
/*
 * test-engine-nvfp4 - NVFP4 (E2M1 elements, UE4M3 scales per 16, a per-tensor FP32 scale):
 * quantisation bit for bit against tests/golden/nvfp4/quant.bin, GEMMs against the
 * exact-rational cases there (EXACT bit for bit, FAST within its bound, through
 * mxe_tmatmulmx and mxe_gemm, every thread count and policy), strided operands, the
 * scale's unread sign bit, and the errors of the type rules. The data come from gen.py,
 * which shares no code with the engine.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_cpu.h"
#include "mxe_engine.h"
#include "mxe_gemm.h"
#include "mxe_golden.h"
#include "host_check.h"

static const char *const gemm_cases[] = {
	"gemm_nvfp4_16x8x64", "gemm_nvfp4_33x17x96_acc", "gemm_nvfp4_8x24x40_partial",
	"gemm_nvfp4_12x12x256_subnormal", "gemm_nvfp4_9x7x48_nan",
};

static uint32_t bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* quant.bin: "NVQ1", u32 cases; per case u32 n, f32 amax, f32 tensor scale, n f32,
 * ceil(n/16) scales, ceil(n/2) packed elements. */
static void check_quantize(void)
{
	size_t len = 0, off = 8;
	uint8_t *buf = read_file(MXA_NVFP4_GOLDEN_DIR "/quant.bin", &len);
	uint32_t ncases;

	if (!host_check(buf && len > 8 && !memcmp(buf, "NVQ1", 4), "quant.bin is readable")) {
		free(buf);
		return;
	}
	memcpy(&ncases, buf + 4, 4);
	for (uint32_t c = 0; c < ncases; c++) {
		uint32_t n;
		float amax, ts, got_ts = 0, *src, *back;
		size_t nb, ne;
		uint8_t *sc, *el;
		int rc, same_sc, same_el, back_ok = 1;

		memcpy(&n, buf + off, 4);
		memcpy(&amax, buf + off + 4, 4);
		memcpy(&ts, buf + off + 8, 4);
		nb = (n + 15) / 16;
		ne = (n + 1) / 2;
		if (!host_check(off + 12 + 4ull * n + nb + ne <= len, "case %u fits the file", c))
			break;
		src = malloc(4ull * n);
		back = malloc(4ull * n);
		sc = malloc(nb);
		el = calloc(ne, 1);
		memcpy(src, buf + off + 12, 4ull * n);
		rc = mxe_nvfp4_quantize(src, n, amax, sc, el, &got_ts);
		same_sc = !memcmp(sc, buf + off + 12 + 4ull * n, nb);
		same_el = !memcmp(el, buf + off + 12 + 4ull * n + nb, ne);
		host_check(rc == 0 && same_sc && same_el && bits(got_ts) == bits(ts),
			   "quantise case %u (n %u, amax %g): scales %s, elements %s, tensor scale "
			   "%a (want %a)", c, n, amax, same_sc ? "same" : "differ",
			   same_el ? "same" : "differ", got_ts, ts);
		/* dequantised: element x block scale x tensor scale, rounded once */
		mxe_nvfp4_dequantize(sc, el, n, got_ts, back);
		for (uint32_t i = 0; i < n; i++) {
			float e = mxe_cvt_e2m1_to_f32((el[i / 2] >> (4 * (i & 1))) & 0xF);
			float want = (sc[i / 16] & 0x7F) == 0x7F ? NAN :
				     e * mxe_cvt_e4m3_to_f32(sc[i / 16]) * got_ts;

			if (isnan(want) ? !isnan(back[i]) : bits(back[i]) != bits(want))
				back_ok = 0;
		}
		host_check(back_ok, "dequantise case %u", c);
		off += 12 + 4ull * n + nb + ne;
		free(src);
		free(back);
		free(sc);
		free(el);
	}
	host_check(off == len, "quant.bin: every case read (%zu of %zu bytes)", off, len);
	free(buf);
}

static int load(const char *name, struct mxe_golden_case *gc)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.mxgv", MXA_NVFP4_GOLDEN_DIR, name);
	return mxe_golden_load(path, gc);
}

static void check_golden(struct mxe_engine *eng)
{
	static const struct { uint8_t accum, sched; unsigned threads; } runs[] = {
		{ MXE_ACCUM_EXACT, MXE_SCHED_INTRAWAVE, 1 }, { MXE_ACCUM_EXACT, MXE_SCHED_INTRAWAVE, 0 },
		{ MXE_ACCUM_EXACT, MXE_SCHED_INTERWAVE, 0 }, { MXE_ACCUM_FAST, MXE_SCHED_INTRAWAVE, 1 },
		{ MXE_ACCUM_FAST, MXE_SCHED_INTERWAVE, 0 },
	};

	for (size_t c = 0; c < sizeof(gemm_cases) / sizeof(gemm_cases[0]); c++) {
		struct mxe_golden_case gc;

		if (!host_check(load(gemm_cases[c], &gc) == 0, "%s loads", gemm_cases[c]))
			continue;
		for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
			struct mxe_golden_opts o = { .accum = runs[r].accum, .sched = runs[r].sched,
						     .nthreads = runs[r].threads };
			struct mxe_golden_result res = { 0 };
			int exact = runs[r].accum == MXE_ACCUM_EXACT;

			mxe_golden_run(eng, &gc, &o, &res);
			host_check(res.pass && (!exact || res.bitexact == 1.0),
				   "%s %s %s %s thread(s): bitexact %.4f maxerr %.3g %s",
				   gemm_cases[c], exact ? "EXACT" : "FAST",
				   runs[r].sched ? "interwave" : "intrawave",
				   runs[r].threads == 1 ? "1" : "all", res.bitexact, res.maxerr,
				   res.why);
		}
		mxe_golden_free(&gc);
	}
}

/* A descriptor of case @gc for mxe_gemm(), D at @d. */
static struct mxe_gemm_desc desc_of(const struct mxe_golden_case *gc, void *d)
{
	struct mxe_gemm_desc g = { 0 };

	g.m = gc->m;
	g.n = gc->n;
	g.k = gc->k;
	g.type_a = g.type_b = MXA_DTYPE_NVFP4;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = gc->a;
	g.b = gc->b;
	g.scale_a = gc->sa;
	g.scale_b = gc->sb;
	g.scale_block = MXA_NVFP4_BLOCK;
	g.d = d;
	if (gc->flags & MXGV_F_ACCUM) {
		g.flags = MXA_GEMM_F_ACCUMULATE;
		g.c = gc->c;
	}
	return g;
}

/* The same bits as the file's D through mxe_gemm(), with padded rows and with every
 * scale's sign bit set (UE4M3 does not read it). */
static void check_gemm_command(struct mxe_engine *eng)
{
	struct mxe_golden_case gc;
	size_t lda, lds, dbytes;
	uint8_t *a2, *sa2, *b2, *sb2;
	float *d;
	struct mxe_gemm_desc g;
	int rc;

	if (load("gemm_nvfp4_33x17x96_acc", &gc))
		return;
	dbytes = (size_t)gc.m * gc.n * 4;
	d = malloc(dbytes);
	g = desc_of(&gc, d);
	rc = mxe_gemm(eng, &g);
	host_check(rc == 0 && !memcmp(d, gc.d, dbytes), "mxe_gemm on NVFP4 gives the file's D");

	lda = gc.lda + 5;
	lds = gc.ld_sa + 3;
	a2 = calloc(gc.m, lda);
	sa2 = calloc(gc.m, lds);
	b2 = calloc(gc.n, lda);
	sb2 = calloc(gc.n, lds);
	for (size_t i = 0; i < gc.m; i++) {
		memcpy(a2 + i * lda, gc.a + i * gc.lda, gc.lda);
		for (size_t b = 0; b < gc.ld_sa; b++)
			sa2[i * lds + b] = gc.sa[i * gc.ld_sa + b] | 0x80;
	}
	for (size_t j = 0; j < gc.n; j++) {
		memcpy(b2 + j * lda, gc.b + j * gc.ldb, gc.ldb);
		for (size_t b = 0; b < gc.ld_sb; b++)
			sb2[j * lds + b] = gc.sb[j * gc.ld_sb + b] | 0x80;
	}
	g.a = a2;
	g.b = b2;
	g.lda = g.ldb = lda;
	g.scale_a = sa2;
	g.scale_b = sb2;
	g.ld_scale_a = g.ld_scale_b = lds;
	memset(d, 0, dbytes);
	rc = mxe_gemm(eng, &g);
	host_check(rc == 0 && !memcmp(d, gc.d, dbytes),
		   "padded rows and scales with the sign bit set: the same D");
	free(a2);
	free(sa2);
	free(b2);
	free(sb2);
	free(d);
	mxe_golden_free(&gc);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* An NVFP4 x NVFP4 operation D = A B^T into @d, EXACT or FAST, negations (@neg: bit 0
 * A, bit 1 B), no C. */
static void nv_desc(struct mxe_gemm_desc *g, unsigned m, unsigned n, unsigned k,
		    const uint8_t *a, const uint8_t *b, const uint8_t *sa, const uint8_t *sb,
		    float *d, int exact, unsigned neg)
{
	memset(g, 0, sizeof(*g));
	g->m = m;
	g->n = n;
	g->k = k;
	g->type_a = g->type_b = MXA_DTYPE_NVFP4;
	g->type_c = g->type_d = MXA_DTYPE_F32;
	g->a = a;
	g->b = b;
	g->scale_a = sa;
	g->scale_b = sb;
	g->scale_block = MXA_NVFP4_BLOCK;
	g->d = d;
	g->accum = exact ? MXE_ACCUM_EXACT : MXE_ACCUM_FAST;
	g->flags = (neg & 1 ? MXE_GEMM_NEGATE_A : 0) | (neg & 2 ? MXE_GEMM_NEGATE_B : 0);
}

/* FAST on 1024 x 1024 x 32 (ones, scales 1): the pairs where AVX2 is the level, the
 * BF16 kernels above it; the same D either way (32 at every output). */
static void check_wide_fast(struct mxe_engine *eng, int top)
{
	enum { W = 1024, K = 32 };
	uint8_t *a = malloc(W * K / 2), *s = malloc(W * K / 16);
	float *d = malloc((size_t)W * W * 4);
	struct mxe_gemm_desc g = { 0 };
	uint64_t ops0 = mxe_tiled_s8_ops();
	size_t bad = 0;
	int rc, ran;

	memset(a, 0x22, W * K / 2);	/* 1.0 in both nibbles */
	memset(s, 0x38, W * K / 16);	/* UE4M3 1.0 */
	g.m = g.n = W;
	g.k = K;
	g.type_a = g.type_b = MXA_DTYPE_NVFP4;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = g.b = a;
	g.scale_a = g.scale_b = s;
	g.scale_block = MXA_NVFP4_BLOCK;
	g.d = d;
	g.accum = MXE_ACCUM_FAST;
	rc = mxe_gemm(eng, &g);
	ran = mxe_tiled_s8_ops() > ops0;
	for (size_t i = 0; i < (size_t)W * W; i++)
		bad += d[i] != 32.0f;
	host_check(!rc && !bad && ran == (top == MXE_SIMD_AVX2),
		   "NVFP4 FAST %d x %d x %d: D = 32 everywhere (%zu differ), on int16 pairs: %s "
		   "(want %s: the BF16 kernels above AVX2)", W, W, K, bad, ran ? "yes" : "no",
		   top == MXE_SIMD_AVX2 ? "yes" : "no");
	free(a);
	free(s);
	free(d);
}

/*
 * NVFP4 on int16 pairs (mxe_tiled_nvfp4_run(): EXACT on any AVX2 host, FAST too but on
 * an AVX-512 host only where M or N is below 1024) where its blocks' shifts allow, else
 * on the BF16 copies; either way the
 * bits are those of the BF16 operation on the copies (at the default SIMD level), at the
 * default level and capped at AVX2. 40 x 45 x 608: a partial B panel, K over several
 * 256-k blocks and not a multiple of 256. Shifts of A's and B's blocks adding up to 4
 * take the pairs (the "largest" case holds every element at 6.0 with the largest
 * scales, A's halves 2^4 apart), 5 do not, nor does a NaN scale or K not a multiple of
 * 32 (K = 48). The first case has a row of A whose sums are exact zeros with C = +-0
 * (-0 elements against a column without signs and C = -0: -0 unless a side is negated)
 * and an infinite C, which EXACT hands to the general path from the codes.
 */
static void check_int_pairs(struct mxe_engine *eng)
{
	enum { M = 40, N = 45, KMAX = 608 };
	static const char *const what[] = {
		"scales 0.5 .. 15 with zeros", "largest, A's shifts 4", "shifts 3 + 2",
		"a NaN scale", "K = 48",
	};
	static uint8_t a[M * KMAX / 2], b[N * KMAX / 2], sa[M * KMAX / 16], sb[N * KMAX / 16];
	static float c[M * N], d[M * N], ref[M * N];
	int avx2 = !mxe_engine_set_simd("avx2"), top;

	mxe_engine_set_simd(NULL);
	top = mxe_cpu_simd();
	for (unsigned cs = 0; cs < sizeof(what) / sizeof(what[0]); cs++) {
		for (unsigned v = 0; v < 16; v++) {	/* negations, numerics, level */
			unsigned neg = v & 3, exact = v >> 2 & 1, capped = v >> 3;
			unsigned k = cs == 4 ? 48 : KMAX, kb = k / 16;
			struct mxe_gemm_desc g = { 0 }, bf;
			void *tmp = NULL;
			uint64_t ops0, out0, redo0, out1, redo1;
			int rc, ran, same, level = capped ? MXE_SIMD_AVX2 : top;
			int want = cs < 2 && level >= MXE_SIMD_AVX2;	/* 40 x 45: narrow */

			if (capped && !avx2)
				continue;
			for (size_t i = 0; i < sizeof(a); i++)	/* row 5: -0 */
				a[i] = cs == 1 ? 0x77 : cs == 0 && i / (KMAX / 2) == 5 ? 0x88 :
				       (uint8_t)rnd();
			for (size_t i = 0; i < sizeof(b); i++)	/* column 4: no sign */
				b[i] = cs == 1 ? 0x77 : (uint8_t)(rnd() & (i / (KMAX / 2) == 4 ? 0x77 : 0xFF));
			for (size_t i = 0; i < M * kb; i++)	/* 0x30 .. 0x47: 0.5 .. 15 */
				sa[i] = cs == 1 ? (i % 2 ? 0x5F : 0x7E) :
					cs == 0 && rnd() % 8 == 0 ? 0x80 : (uint8_t)(0x30 + rnd() % 0x18);
			for (size_t i = 0; i < N * kb; i++)
				sb[i] = cs == 1 ? 0x7E : (uint8_t)(0x30 + rnd() % 0x18 + (rnd() % 2) * 0x80);
			if (cs == 2) {	/* A: 2^3 between one block's halves, B: 2^2 */
				sa[3 * kb + 4] = 0x38, sa[3 * kb + 5] = 0x50;
				sb[7 * kb + 10] = 0x48, sb[7 * kb + 11] = 0x38;
			}
			if (cs == 3)
				sb[11 * kb + 6] = 0xFF;
			for (size_t i = 0; i < M * N; i++)
				c[i] = cs == 0 && i / N == 5 ? (i % 2 || i % N == 4 ? -0.0f : 0.0f) :
				       (float)((int)(rnd() % 2001) - 1000) / 64.0f;
			if (cs == 0)
				c[7 * N + 3] = INFINITY;
			nv_desc(&g, M, N, k, a, b, sa, sb, ref, exact, neg);
			g.c = c;
			g.flags |= MXA_GEMM_F_ACCUMULATE;
			rc = mxe_nvfp4_expand(&g, &bf, &tmp);
			rc |= mxe_gemm(eng, &bf);
			free(tmp);
			g.d = d;
			memset(d, 0xA5, sizeof(d));
			ops0 = mxe_tiled_s8_ops();
			mxe_tiled_exact_counts(&out0, &redo0);
			if (capped)
				mxe_engine_set_simd("avx2");
			rc |= mxe_gemm(eng, &g);
			mxe_engine_set_simd(NULL);
			ran = mxe_tiled_s8_ops() > ops0;
			mxe_tiled_exact_counts(&out1, &redo1);
			same = !rc && !memcmp(d, ref, (size_t)M * N * 4);
			host_check(same && ran == want && (!exact || !ran || cs || redo1 - redo0 >= N),
				   "NVFP4 %s%s, %s%s%s: the BF16 copies' bits: %s, on int16 pairs: "
				   "%s (want %s), outputs from the general path: %llu",
				   exact ? "EXACT" : "FAST", capped ? " capped at AVX2" : "", what[cs],
				   neg & 1 ? ", -A" : "", neg & 2 ? ", -B" : "", same ? "yes" : "NO",
				   ran ? "yes" : "no", want ? "yes" : "no",
				   (unsigned long long)(redo1 - redo0));
		}
	}
	check_wide_fast(eng, top);
}

/*
 * NVFP4 GEMVs (mxe_gemv_nvfp4_run(): M <= 32, FAST on AVX2 24, K a multiple of 64, an
 * f32 D without C):
 * the bits of the BF16 operation on the copies (default SIMD level) at the default
 * level, capped at AVX-512 without VNNI and at AVX2, EXACT and FAST, every negation. K = 576 and 1088 run whole
 * vector steps (512 k, AVX2 256) and a tail, 64 the tail alone; N = 37 ends in a
 * partial task; K = 576 hands B row by row, as the device does (its weights read in
 * place), the last row first. Cases: random codes and scales (a zero scale, with and
 * without the unread sign bit, among them); a row of A all -0 against a column without
 * signs (EXACT's zero sums go to the general path: -0 where every product is -0); a
 * sub-block whose halves' products are 2^8 apart, where the chain loses a bit that the
 * exact sum keeps (81 units of the grid, then eight products of 5832 and eight of -5832
 * in units of 2^9: the partial sum passes 2^24 units and rounds to 80), which FAST runs
 * as a chain at every output; the largest scale and elements (448 x 6); a NaN scale in
 * two columns of B (in a tail, in a vector step) and in a row of A.
 */
static void check_gemv(struct mxe_engine *eng)
{
	enum { MMAX = 32, N = 37, KMAX = 1088 };
	static const char *const what[] = {
		"random scales with zeros", "a row of -0", "a chain that rounds", "largest",
		"a NaN scale in B", "a NaN scale in A",
	};
	static const unsigned ks[] = { 64, 576, 1088 }, ms[] = { 1, 3, 7, 24 };
	static uint8_t a[MMAX * KMAX / 2], b[N * KMAX / 2], sa[MMAX * KMAX / 16], sb[N * KMAX / 16];
	static uint8_t b2[N * KMAX / 2], sb2[N * KMAX / 16];	/* B's rows apart, last first */
	static float d[MMAX * N], ref[MMAX * N];
	/* the default level, AVX-512 without VNNI (vpmaddwd for vpdpwssd), AVX2 */
	static const char *const level[] = { NULL, "avx512", "avx2" };
	const uint8_t *rows[N], *srows[N];
	int has[3] = { 1, 0, 0 }, rc, top = mxe_cpu_simd();
	struct mxe_gemm_desc g = { 0 };

	for (int l = 1; l < 3; l++) {
		has[l] = !mxe_engine_set_simd(level[l]);
		mxe_engine_set_simd(NULL);
	}
	for (unsigned cs = 0; cs < sizeof(what) / sizeof(what[0]); cs++) {
		for (unsigned v = 0; v < 8 * 3 * 3; v++) {	/* negations, numerics, level, shape */
			unsigned neg = v & 3, exact = v >> 2 & 1, lv = (v >> 3) % 3;
			unsigned shape = v / 24, k = ks[shape], m = ms[(shape + cs) % 4], kb = k / 16;
			struct mxe_gemm_desc bf;
			void *tmp = NULL;
			uint64_t out0, redo0, ch0, out1, redo1, ch1;
			/* FAST on AVX2 takes at most 24 rows: the tiled path's bits past them */
			int want = (lv == 0 ? top >= MXE_SIMD_AVX512 : lv == 1) || exact || m <= 24;
			int same, ran, special, in_place = shape == 1 && want;

			if (!has[lv])
				continue;
			for (size_t i = 0; i < m * k / 2; i++)
				a[i] = cs == 3 ? 0x77 : cs == 1 && i / (k / 2) == 0 ? 0x88 : (uint8_t)rnd();
			for (size_t i = 0; i < N * k / 2; i++)	/* column 4: no sign */
				b[i] = cs == 3 ? 0x77 : (uint8_t)(rnd() & (i / (k / 2) == 4 ? 0x77 : 0xFF));
			for (size_t i = 0; i < m * kb; i++)	/* 0x30 .. 0x47: 0.5 .. 15 */
				sa[i] = cs == 3 ? 0x7E : rnd() % 8 == 0 ? (uint8_t)(rnd() % 2 * 0x80) :
					(uint8_t)(0x30 + rnd() % 0x18);
			for (size_t i = 0; i < N * kb; i++)
				sb[i] = cs == 3 ? 0x7E : rnd() % 16 == 0 ? 0 :
					(uint8_t)(0x30 + rnd() % 0x18 + (rnd() % 2) * 0x80);
			if (cs == 2) {	/* sub-block 1: a chain that rounds at every output */
				for (size_t i = 0; i < m; i++) {
					memset(a + i * k / 2 + 16, 0, 8);	/* k 32: 0.5, 33 .. 47: 0 */
					a[i * k / 2 + 16] = 0x01;
					memset(a + i * k / 2 + 24, 0x77, 4);	/* k 48 .. 55: 6 */
					memset(a + i * k / 2 + 28, 0xFF, 4);	/* k 56 .. 63: -6 */
					sa[i * kb + 2] = 0x31, sa[i * kb + 3] = 0x69;	/* 9 x 2^-4, 9 x 2^3 */
				}
				for (size_t j = 0; j < N; j++) {
					memset(b + j * k / 2 + 16, 0x11, 8);	/* 0.5 */
					memset(b + j * k / 2 + 24, 0x77, 8);
					sb[j * kb + 2] = 0x39, sb[j * kb + 3] = 0x41;	/* 9 x 2^-3, 2^-2 */
				}
			}
			if (cs == 4)	/* the last block (a tail's), one in the middle */
				sb[11 * kb + kb - 1] = 0xFF, sb[20 * kb + kb / 2 - 1] = 0x7F;
			if (cs == 5)
				sa[(m - 1) * kb] = 0x7F;
			nv_desc(&g, m, N, k, a, b, sa, sb, ref, exact, neg);
			rc = mxe_nvfp4_expand(&g, &bf, &tmp);
			rc |= mxe_gemm(eng, &bf);
			free(tmp);
			g.d = d;
			if (in_place) {	/* as the device hands its weights: row by row */
				for (size_t j = 0; j < N; j++) {
					rows[j] = b2 + (N - 1 - j) * k / 2;
					srows[j] = sb2 + (N - 1 - j) * kb;
					memcpy(b2 + (N - 1 - j) * k / 2, b + j * k / 2, k / 2);
					memcpy(sb2 + (N - 1 - j) * kb, sb + j * kb, kb);
				}
				g.b_rows = rows;
				g.scale_b_rows = srows;
				rc |= !mxe_gemv_takes(&g);
			}
			memset(d, 0xA5, sizeof(d));
			mxe_gemv_nvfp4_counts(&out0, &redo0, &ch0);
			if (level[lv])
				mxe_engine_set_simd(level[lv]);
			rc |= mxe_gemm(eng, &g);
			mxe_engine_set_simd(NULL);
			mxe_gemv_nvfp4_counts(&out1, &redo1, &ch1);
			same = !rc && !memcmp(d, ref, (size_t)m * N * 4);
			ran = out1 - out0 == (uint64_t)m * N;
			/* what the special cases must send to the general path or the chains */
			special = !want ? 1 : cs == 1 ? !exact || redo1 - redo0 >= N :
				  cs == 2 ? exact || ch1 - ch0 >= (uint64_t)m * N :
				  cs == 4 ? (exact ? redo1 - redo0 >= 2 * m : ch1 - ch0 >= (uint64_t)m * k / 16) :
				  cs == 5 ? (exact ? redo1 - redo0 >= N : ch1 - ch0 >= (uint64_t)N * k / 32) :
				  1;
			host_check(same && ran == want && special,
				   "NVFP4 GEMV %s%s%s %u x %d x %u%s, %s%s%s: the BF16 copies' bits: %s, "
				   "on the GEMV: %s (want %s), general path %llu, chains %llu",
				   exact ? "EXACT" : "FAST", level[lv] ? " capped at " : "",
				   level[lv] ? level[lv] : "", m, N, k,
				   in_place ? " (B row by row)" : "",
				   what[cs], neg & 1 ? ", -A" : "", neg & 2 ? ", -B" : "",
				   same ? "yes" : "NO", ran ? "yes" : "no", want ? "yes" : "no",
				   (unsigned long long)(redo1 - redo0), (unsigned long long)(ch1 - ch0));
		}
	}
	/* the copies a device budgets for: none on the GEMV, the BF16 expansion past it */
	g.m = 16;
	g.k = 576;
	g.b_rows = NULL;
	g.scale_b_rows = NULL;
	host_check(mxe_gemm_copy_bytes(&g) == 0 &&
		   mxe_gemm_copy_bytes(&(struct mxe_gemm_desc){ .m = 33, .n = g.n, .k = g.k,
				.type_a = g.type_a, .type_b = g.type_b, .type_c = g.type_c,
				.type_d = g.type_d, .a = g.a, .b = g.b, .d = g.d, .scale_a = g.scale_a,
				.scale_b = g.scale_b, .scale_block = g.scale_block, .accum = g.accum }) ==
		   (size_t)(33 + N) * 576 * 2,
		   "NVFP4 copy bytes: 16 rows %zu (the GEMV: 0), 33 rows the BF16 copies'",
		   mxe_gemm_copy_bytes(&g));
	/* 33 rows: not the GEMV, and no other path reads B row by row */
	g.m = 33;
	g.b_rows = rows;
	g.scale_b_rows = srows;
	rc = mxe_gemm(eng, &g);
	host_check(rc == MXE_ENGINE_EINVAL_LAYOUT && !mxe_gemv_takes(&g),
		   "NVFP4 with B row by row and 33 rows: refused (rc %d, want %d)", rc,
		   MXE_ENGINE_EINVAL_LAYOUT);
}

/*
 * The longest K the NVFP4 GEMV takes, 2^20: EXACT's int64 sum of 2^16 block terms, each
 * below 2^47 units of 2^-20, stays below 2^63. Mostly large scales (2^5 .. 448, a
 * quarter over the whole range down to 2^-9) and mostly positive elements take the sum
 * past 2^55 units, beyond a double's integers and an int32's by far; FAST runs the
 * copies' chains. The BF16 copies' bits either way.
 */
static void check_gemv_long(struct mxe_engine *eng)
{
	enum { M = 1, N = 4, K = 1 << 20 };
	uint8_t *a = malloc(K / 2 + K / 16), *b = malloc((size_t)N * (K / 2 + K / 16));
	uint8_t *sa = a + K / 2, *sb = b + (size_t)N * K / 2;
	float d[M * N], ref[M * N];
	uint64_t out0, redo0, ch0, out1, redo1, ch1;

	for (size_t i = 0; i < K / 2; i++)	/* 1 in 8 elements negative */
		a[i] = (uint8_t)(rnd() & (rnd() % 4 ? 0x77 : 0xFF));
	for (size_t i = 0; i < (size_t)N * K / 2; i++)
		b[i] = (uint8_t)(rnd() & (rnd() % 4 ? 0x77 : 0xFF));
	for (size_t i = 0; i < K / 16; i++)	/* 2^5 .. 448 mostly, else 2^-9 .. 448 */
		sa[i] = (uint8_t)(rnd() % 4 ? 0x60 + rnd() % 0x1F : 1 + rnd() % 0x7E);
	for (size_t i = 0; i < (size_t)N * K / 16; i++)
		sb[i] = (uint8_t)(rnd() % 4 ? 0x60 + rnd() % 0x1F : 1 + rnd() % 0x7E);
	for (int v = 0; v < 4; v++) {	/* EXACT, FAST; the default level, AVX2 */
		struct mxe_gemm_desc g, bf;
		void *tmp = NULL;
		int rc, ran, exact = v & 1, avx2 = v >> 1;

		if (avx2 && mxe_engine_set_simd("avx2"))
			break;
		mxe_engine_set_simd(NULL);
		nv_desc(&g, M, N, K, a, b, sa, sb, ref, exact, 0);
		rc = mxe_nvfp4_expand(&g, &bf, &tmp);
		rc |= mxe_gemm(eng, &bf);
		free(tmp);
		g.d = d;
		memset(d, 0xA5, sizeof(d));
		mxe_gemv_nvfp4_counts(&out0, &redo0, &ch0);
		if (avx2)
			mxe_engine_set_simd("avx2");
		rc |= mxe_gemm(eng, &g);
		mxe_engine_set_simd(NULL);
		mxe_gemv_nvfp4_counts(&out1, &redo1, &ch1);
		ran = out1 - out0 == M * N;
		host_check(!rc && ran && !memcmp(d, ref, sizeof(d)),
			   "NVFP4 GEMV %s%s 1 x %d x 2^20, scales over their range: the BF16 copies' "
			   "bits: %s (D[0] %a, want %a), on the GEMV: %s", exact ? "EXACT" : "FAST",
			   avx2 ? " capped at AVX2" : "", N,
			   !memcmp(d, ref, sizeof(d)) ? "yes" : "NO", d[0], ref[0], ran ? "yes" : "NO");
	}
	free(a);
	free(b);
}

static void check_errors(void)
{
	static uint8_t buf[4096];
	struct mxe_gemm_desc g = { 0 }, t;

	g.m = g.n = 4;
	g.k = 32;
	g.type_a = g.type_b = MXA_DTYPE_NVFP4;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = g.b = g.scale_a = g.scale_b = buf;
	g.d = buf + 2048;
	g.scale_block = MXA_NVFP4_BLOCK;
	host_check(mxe_gemm_check(&g) == 0, "NVFP4 x NVFP4, block 16: valid");
	host_check(mxe_gemm(NULL, &g) == 0, "and it runs");
	t = g;
	t.type_b = MXA_DTYPE_E2M1;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_DTYPE && mxe_gemm(NULL, &t) == MXE_ENGINE_EINVAL_DTYPE,
		   "NVFP4 x E2M1: EINVAL_DTYPE (NVFP4 pairs with NVFP4)");
	t = g;
	t.type_a = MXA_DTYPE_BF16;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_DTYPE, "BF16 x NVFP4: EINVAL_DTYPE");
	t = g;
	t.scale_block = MXA_MX_BLOCK;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_SCALE, "NVFP4 with block 32: EINVAL_SCALE");
	t = g;
	t.scale_b = NULL;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_SCALE, "NVFP4 without B's scales: EINVAL_SCALE");
	t = g;
	t.type_a = t.type_b = MXA_DTYPE_E2M1;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_SCALE, "MX E2M1 with block 16: EINVAL_SCALE");
	t = g;
	t.accum = MXE_ACCUM_HOPPER;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_OPTION,
		   "NVFP4 in the H200 model: EINVAL_OPTION (no H200 instruction takes it)");
	t = g;
	t.flags = MXA_GEMM_F_B_KN;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_LAYOUT, "NVFP4 B as K x N: EINVAL_LAYOUT");
	t = g;
	t.lda = 15;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_LAYOUT, "lda below a row: EINVAL_LAYOUT");
	t = g;
	t.ld_scale_b = 1;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_LAYOUT,
		   "scale rows below ceil(K / 16): EINVAL_LAYOUT");
	t = g;
	t.k = 0;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_SHAPE, "K = 0: EINVAL_SHAPE");
	host_check(!mxe_gemv_takes(&g), "the GEMV path does not take NVFP4 (its weights expand)");
	t = g;
	t.type_a = t.type_b = MXA_DTYPE_BF16;
	host_check(mxe_gemm_check(&t) == MXE_ENGINE_EINVAL_SCALE, "block 16 on BF16: EINVAL_SCALE");
	host_check(mxa_dtype_scale_block(MXA_DTYPE_NVFP4) == 16 &&
		   mxa_dtype_scale_block(MXA_DTYPE_E2M1) == 32 &&
		   mxa_dtype_scale_block(MXA_DTYPE_BF16) == 0 &&
		   !strcmp(mxe_dtype_name(MXA_DTYPE_NVFP4), "nvfp4") &&
		   mxe_dtype_from_name("nvfp4") == MXA_DTYPE_NVFP4 &&
		   mxe_dtype_bits(MXA_DTYPE_NVFP4) == 4,
		   "the type's block, name and size");
	host_check(mxe_nvfp4_quantize(NULL, 0, -1.0f, NULL, NULL, NULL) == MXE_ENGINE_EINVAL &&
		   mxe_nvfp4_quantize(NULL, 0, INFINITY, NULL, NULL, NULL) == MXE_ENGINE_EINVAL &&
		   mxe_nvfp4_quantize(NULL, 0, NAN, NULL, NULL, NULL) == MXE_ENGINE_EINVAL,
		   "quantise: a negative, infinite or NaN amax is EINVAL");
}

int main(void)
{
	struct mxe_engine *eng = mxe_engine_create(2);

	ksft_print_header();
	check_quantize();
	check_golden(eng);
	check_gemm_command(eng);
	check_int_pairs(eng);
	check_gemv(eng);
	check_gemv_long(eng);
	check_errors();
	mxe_engine_destroy(eng);
	return host_check_end();
}
