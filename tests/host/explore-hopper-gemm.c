// SPDX-License-Identifier: MIT
/*
 * explore-hopper-gemm - experiment driver, not a test: tries candidate
 * models of what cuBLAS/cuBLASLt on the H200 does for the golden gemm_*
 * cases (WGMMA chains with the HOPPER per-instruction accumulator, FP32
 * promotion every P elements of K, split-K, TF32 input rounding, DMMA FMA
 * orders) and prints the fraction of outputs each reproduces bit for bit.
 *
 * Built by engine-all as build/tests/host/explore-hopper-gemm.
 * Run:   explore-hopper-gemm [options] case.mxgv...  (options apply to the
 *        cases after them)
 *   --kinst N    elements per MMA instruction (default: 32 FP8, 16 f16/bf16, 8 tf32, 4 f64)
 *   --promote P  add the partial into an FP32 accumulator every P elements (0 = never)
 *   --splitk S   S K-slices, each its own chain, reduced in FP32 in slice order
 *   --interleave T  slice s takes the K tiles of T elements with tile % S == s
 *                (default: contiguous slices of K/S)
 *   --unit U     contiguous slices of ceil(K/U/S) tiles of U elements
 *   --tf32 rz|rne|rna|f32  TF32 input rounding of A and B (default rz;
 *                f32: no rounding and a SIMT sgemm FFMA chain instead)
 *   --tf32b MODE the same for B alone
 *   --find2 G    which two-slice split points (multiples of G) fit each output
 *   --f64 chain|kstep  DMMA: one FMA chain over K, or per-K-step chains added
 *   --hist       histogram of (got - want) in units of the last place
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_formats.h"
#include "mxe_golden.h"
#include "mxe_hopper.h"

struct model {
	int kinst, promote, splitk, interleave, find2, unit, tf32, tf32b, f64kstep, hist;
	int align_bits, out_bits, emin_a, emin_b;
};

static int hopper_emin(unsigned t)
{
	switch (t) {
	case MXA_DTYPE_E4M3:
		return -6;
	case MXA_DTYPE_E5M2:
	case MXA_DTYPE_F16:
		return -14;
	default:
		return -126;
	}
}

/* One instruction: C + a.b with the HOPPER accumulator (finite data only). */
static double mma_chunk(const struct model *md, const double *a, const double *b, size_t n,
			double c)
{
	int emax = -100000, any = 0;
	double q, sum;

	if (c != 0.0) {
		emax = ilogb(c);
		any = 1;
	}
	for (size_t i = 0; i < n; i++) {
		int ea, eb;

		if (a[i] * b[i] == 0.0)
			continue;
		ea = ilogb(a[i]);
		eb = ilogb(b[i]);
		ea = ea < md->emin_a ? md->emin_a : ea;
		eb = eb < md->emin_b ? md->emin_b : eb;
		if (ea + eb > emax)
			emax = ea + eb;
		any = 1;
	}
	if (!any)
		return c;
	q = ldexp(1.0, emax - md->align_bits);
	sum = trunc(c / q);
	for (size_t i = 0; i < n; i++)
		sum += trunc(a[i] * b[i] / q);
	return (double)(float)mxe_trunc_to_bits(sum * q, md->out_bits);
}

/* One K-slice: WGMMA chain, promoted into an FP32 sum every md->promote. */
static double slice(const struct model *md, const double *a, const double *b, size_t k)
{
	if (md->tf32 == 3) {	/* SIMT sgemm: one FFMA chain */
		float acc = 0.0f;

		for (size_t i = 0; i < k; i++)
			acc = fmaf((float)a[i], (float)b[i], acc);
		return acc;
	}
	double main_acc = 0.0, part = 0.0;
	size_t since = 0;

	for (size_t k0 = 0; k0 < k; k0 += md->kinst) {
		size_t n = k0 + md->kinst <= k ? (size_t)md->kinst : k - k0;

		part = mma_chunk(md, a + k0, b + k0, n, part);
		since += n;
		if (md->promote && since >= (size_t)md->promote) {
			main_acc = (double)((float)main_acc + (float)part);
			part = 0.0;
			since = 0;
		}
	}
	if (!md->promote)
		return part;
	if (since)
		main_acc = (double)((float)main_acc + (float)part);
	return main_acc;
}

static double f64_slice(const struct model *md, const double *a, const double *b, size_t k)
{
	double acc = 0.0;

	if (!md->f64kstep) {
		for (size_t i = 0; i < k; i++)
			acc = fma(a[i], b[i], acc);
		return acc;
	}
	/* chains of kinst FMAs from 0, added in order */
	for (size_t k0 = 0; k0 < k; k0 += md->kinst) {
		double p = 0.0;

		for (size_t i = k0; i < k0 + md->kinst && i < k; i++)
			p = fma(a[i], b[i], p);
		acc += p;
	}
	return acc;
}

static double tf32_round(double v, int mode)
{
	uint32_t u = mxe_f32_bits((float)v);

	if (mode == 3)
		return v;
	if (mode == 1)		/* RNE */
		u += 0xFFF + ((u >> 13) & 1);
	else if (mode == 2)	/* RNA */
		u += 0x1000;
	return (double)mxe_bits_f32(u & ~0x1FFFu);
}

static void run_case(const char *path, struct model md)
{
	struct mxe_golden_case gc;
	size_t m, n, k, same = 0;
	double *av, *bv, *sa, *sb;
	long hist[9] = { 0 };

	if (mxe_golden_load(path, &gc)) {
		fprintf(stderr, "%s: cannot load\n", path);
		return;
	}
	m = gc.m, n = gc.n, k = gc.k;
	if (!md.kinst)
		md.kinst = gc.dtype_a == MXA_DTYPE_E4M3 || gc.dtype_a == MXA_DTYPE_E5M2 ? 32 :
			   gc.dtype_a == MXA_DTYPE_TF32 ? 8 : gc.dtype_a == MXA_DTYPE_F64 ? 4 : 16;
	if (gc.dtype_a == MXA_DTYPE_E4M3 || gc.dtype_a == MXA_DTYPE_E5M2)
		md.align_bits = 13, md.out_bits = 13;
	else
		md.align_bits = 25, md.out_bits = 23;
	md.emin_a = hopper_emin(gc.dtype_a);
	md.emin_b = hopper_emin(gc.dtype_b);
	sa = malloc(k * sizeof(double));
	sb = malloc(k * sizeof(double));
	av = malloc(m * k * sizeof(double));
	bv = malloc(n * k * sizeof(double));
	for (size_t i = 0; i < m; i++)
		for (size_t kk = 0; kk < k; kk++) {
			double v = mxe_load_elem(gc.dtype_a, gc.a + i * gc.lda, kk);

			av[i * k + kk] = gc.dtype_a == MXA_DTYPE_TF32 ? tf32_round(v, md.tf32) : v;
		}
	for (size_t j = 0; j < n; j++)
		for (size_t kk = 0; kk < k; kk++) {
			double v = mxe_load_elem(gc.dtype_b, gc.b + j * gc.ldb, kk);

			bv[j * k + kk] = gc.dtype_b == MXA_DTYPE_TF32 ? tf32_round(v, md.tf32b) : v;
		}
	if (md.find2) {
		/* which two-slice split points s (multiples of find2) explain each output */
		long *cnt = calloc(k / md.find2 + 1, sizeof(long));
		size_t none = 0, tried = 0;

		for (size_t e = 0; e < 256; e++) {
			size_t i = e * 37 % m, j = e * 101 % n, nm = 0;
			const double *a = av + i * k, *b = bv + j * k;
			uint64_t want = mxe_row_code(gc.dtype_d, gc.d + i * gc.ldd, j);

			for (size_t s = md.find2; s < k; s += md.find2) {
				double d;

				if (gc.dtype_a == MXA_DTYPE_F64)
					d = f64_slice(&md, a, b, s) + f64_slice(&md, a + s, b + s, k - s);
				else
					d = (float)slice(&md, a, b, s) + (float)slice(&md, a + s, b + s, k - s);
				if ((gc.dtype_d == MXA_DTYPE_F64 ? mxe_f64_bits(d) : mxe_f32_bits((float)d)) == want) {
					cnt[s / md.find2]++;
					nm++;
				}
			}
			none += !nm;
			tried++;
		}
		printf("%s: %zu of %zu outputs fit no 2-way split; best points:", gc.name, none, tried);
		for (int r = 0; r < 8; r++) {
			size_t best = 0;

			for (size_t s = 1; s < k / md.find2; s++)
				if (cnt[s] > cnt[best])
					best = s;
			if (!cnt[best])
				break;
			printf(" %zu(%ld)", best * md.find2, cnt[best]);
			cnt[best] = 0;
		}
		printf("\n");
		free(cnt);
		goto out;
	}
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			const double *a = av + i * k, *b = bv + j * k;
			size_t nsl = md.splitk ? (size_t)md.splitk : 1;
			double d = 0.0, want;
			uint64_t g, e;

			for (size_t s = 0; s < nsl; s++) {
				double p;
				size_t ns = 0;

				/* slice s: contiguous K/S, or every S-th tile of md.interleave */
				for (size_t kk = 0; kk < k; kk++) {
					size_t tiles = md.unit ? (k + md.unit - 1) / md.unit : 0;
					size_t per = md.unit ? (tiles + nsl - 1) / nsl : 0;
					size_t owner = md.interleave ? kk / md.interleave % nsl :
						       md.unit ? kk / md.unit / per : kk * nsl / k;

					if (owner == s) {
						sa[ns] = a[kk];
						sb[ns++] = b[kk];
					}
				}
				p = gc.dtype_a == MXA_DTYPE_F64 ? f64_slice(&md, sa, sb, ns)
							     : slice(&md, sa, sb, ns);
				if (gc.dtype_a == MXA_DTYPE_F64)
					d = s ? d + p : p;
				else
					d = s ? (double)((float)d + (float)p) : p;
			}
			if (gc.dtype_d == MXA_DTYPE_F64) {
				g = mxe_f64_bits(d);
			} else {
				g = mxe_f32_bits((float)d);
			}
			e = mxe_row_code(gc.dtype_d, gc.d + i * gc.ldd, j);
			same += g == e;
			want = mxe_decode_code(gc.dtype_d, e);
			if (md.hist) {
				double ulp = gc.dtype_d == MXA_DTYPE_F64 ? ldexp(1.0, ilogb(want) - 52)
								      : ldexp(1.0, ilogb(want) - 23);
				double u = want != 0.0 ? (d - want) / ulp : 0.0;
				int h = (int)lrint(u);

				h = h < -4 ? -4 : h > 4 ? 4 : h;
				hist[h + 4]++;
			}
		}
	printf("%-40s bitexact=%.4f", gc.name, (double)same / (double)(m * n));
	if (md.hist) {
		printf("  ulps[-4..4]:");
		for (int h = 0; h < 9; h++)
			printf(" %ld", hist[h]);
	}
	printf("\n");
out:
	free(av);
	free(bv);
	free(sa);
	free(sb);
	mxe_golden_free(&gc);
}

int main(int argc, char **argv)
{
	struct model md = { 0 };

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--kinst") && i + 1 < argc)
			md.kinst = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--promote") && i + 1 < argc)
			md.promote = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--interleave") && i + 1 < argc)
			md.interleave = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--unit") && i + 1 < argc)
			md.unit = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--find2") && i + 1 < argc)
			md.find2 = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--splitk") && i + 1 < argc)
			md.splitk = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tf32") && i + 1 < argc) {
			i++;
			md.tf32 = !strcmp(argv[i], "rne") ? 1 : !strcmp(argv[i], "rna") ? 2 :
				  !strcmp(argv[i], "f32") ? 3 : 0;
			md.tf32b = md.tf32;
		} else if (!strcmp(argv[i], "--tf32b") && i + 1 < argc) {
			i++;
			md.tf32b = !strcmp(argv[i], "rne") ? 1 : !strcmp(argv[i], "rna") ? 2 :
				  !strcmp(argv[i], "f32") ? 3 : 0;
		} else if (!strcmp(argv[i], "--f64") && i + 1 < argc)
			md.f64kstep = !strcmp(argv[++i], "kstep");
		else if (!strcmp(argv[i], "--hist"))
			md.hist = 1;
		else
			run_case(argv[i], md);
	}
	return 0;
}
