// SPDX-License-Identifier: MIT
/*
 * bench-engine - throughput of the engine's tiled GEMM against OpenBLAS
 * sgemm on the same shape, measured in the same run.
 *
 * For 512^3, 1024^3, 2048^3 and 1 and 2 threads: OpenBLAS sgemm (A row-major,
 * B^T row-major, the engine's layout), then the engine on MX FP8 (e4m3 with
 * E8M0 scales), BF16, FP16 (f32 accumulation), INT8 (s32) and the MX types whose
 * 32-element block products are exact integers: MX FP6 (e2m3), MX FP4 (e2m1) and MX
 * INT8, each with E8M0 scales and f32 results. Each number is the best of several
 * runs, the reference and the engine interleaved so that both see the same machine.
 * Prints a table, the 2-thread / 1-thread speed-ups, and writes a CSV with the
 * columns type,numerics,m,n,k,threads,gflops,sgemm_gflops,ratio,fma_peak_gflops (the
 * host's f32 FMA peak on as many threads: bench_fma.h). With --accum
 * exact,fast both numerics run on the same data, and --exact-csv FILE writes EXACT
 * against FAST: type,m,threads,exact_gflops,fast_gflops,ratio.
 *
 * The header names the SIMD path of the engine (MXA_ENGINE_SIMD caps it)
 * and the kernels OpenBLAS chose for this CPU (OPENBLAS_CORETYPE sets them).
 *
 * Options: --csv FILE  --accum fast|exact|exact,fast  --exact-csv FILE
 *          --sched intra|inter  --sizes 512,1024,2048  --reps N
 *          --types mxfp8,bf16,f16,s8,mxfp6,mxfp4,mxint8,nvfp4  --threads 1,2
 *          (and, only when named, the mixed pairs mxfp6xfp4, mxfp4xint8: A x B)
 * (make bench-engine BENCH_ENGINE_FLAGS="--sizes 2048 --types bf16 --threads 2"
 * for one short A/B run.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

#include "mxe_engine.h"
#include "bench_fma.h"

/* OpenBLAS extensions (declared in its cblas.h; repeated for other cblas.h) */
void openblas_set_num_threads(int num_threads);
char *openblas_get_corename(void);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rs = 0x853C49E6748FEA9Bull;

static uint32_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)(rs >> 20);
}

struct btype {
	const char *name;
	enum mxa_isa_dtype in, out;
	int mx;		/* block-scaled: mxa_dtype_scale_block(in) elements a scale */
	enum mxa_isa_dtype in_b;	/* B's type where it differs (0: @in) */
	int extra;			/* only with --types: not in the default set */
};

static const struct btype btypes[] = {
	{ "mxfp8", .in = MXA_DTYPE_E4M3, .out = MXA_DTYPE_F32, .mx = 1 },
	{ "bf16", .in = MXA_DTYPE_BF16, .out = MXA_DTYPE_F32, .mx = 0 },
	{ "f16", .in = MXA_DTYPE_F16, .out = MXA_DTYPE_F32, .mx = 0 },
	{ "s8", .in = MXA_DTYPE_S8, .out = MXA_DTYPE_S32, .mx = 0 },
	{ "mxfp6", .in = MXA_DTYPE_E2M3, .out = MXA_DTYPE_F32, .mx = 1 },
	{ "mxfp4", .in = MXA_DTYPE_E2M1, .out = MXA_DTYPE_F32, .mx = 1 },
	{ "mxint8", .in = MXA_DTYPE_MXINT8, .out = MXA_DTYPE_F32, .mx = 1 },
	{ "nvfp4", .in = MXA_DTYPE_NVFP4, .out = MXA_DTYPE_F32, .mx = 1 },
	/* mixed MX pairs, A x B: FP6 activations on FP4 weights, FP4 on MXINT8 */
	{ "mxfp6xfp4", .in = MXA_DTYPE_E2M3, .out = MXA_DTYPE_F32, .mx = 1,
	  .in_b = MXA_DTYPE_E2M1, .extra = 1 },
	{ "mxfp4xint8", .in = MXA_DTYPE_E2M1, .out = MXA_DTYPE_F32, .mx = 1,
	  .in_b = MXA_DTYPE_MXINT8, .extra = 1 },
};
#define NTYPES	((int)(sizeof(btypes) / sizeof(btypes[0])))

static void fill_codes(enum mxa_isa_dtype t, void *buf, size_t n)
{
	uint8_t *b = buf;
	uint16_t *h = buf;

	for (size_t i = 0; i < n; i++) {
		float x = (float)(rnd() % 2001) / 1000.0f - 1.0f;

		switch (t) {
		case MXA_DTYPE_BF16:
			h[i] = mxe_cvt_f32_to_bf16(x, 0);
			break;
		case MXA_DTYPE_F16:
			h[i] = mxe_cvt_f32_to_f16(x, 0);
			break;
		case MXA_DTYPE_E4M3:
			b[i] = mxe_cvt_f32_to_e4m3(x * 448.0f, 1);
			break;
		default:
			b[i] = (uint8_t)(rnd() & 0xFF);
			break;
		}
	}
}

static const char *accum_name(int accum)
{
	return accum == MXE_ACCUM_EXACT ? "exact" : "fast";
}

int main(int argc, char **argv)
{
	const char *csv = NULL, *exact_csv = NULL;
	int accums[2] = { MXE_ACCUM_FAST }, naccum = 1, sched = MXE_SCHED_INTRAWAVE, reps = 7;
	int sizes[8] = { 512, 1024, 2048 }, nsizes = 3;
	int want[NTYPES];
	int want_th[3] = { 0, 1, 1 };
	double peak[3] = { 0 };	/* f32 FMA GFLOP/s on 1 and 2 threads */
	FILE *fc = NULL, *fe = NULL;
	struct mxe_engine *eng;
	static double gflops[NTYPES][8][2][2];	/* type, size, threads - 1, numerics */

	for (int t = 0; t < NTYPES; t++)
		want[t] = !btypes[t].extra;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
			csv = argv[++i];
		} else if (!strcmp(argv[i], "--exact-csv") && i + 1 < argc) {
			exact_csv = argv[++i];
		} else if (!strcmp(argv[i], "--accum") && i + 1 < argc) {
			char *s = argv[++i], *tok;

			naccum = 0;
			for (tok = strtok(s, ","); tok && naccum < 2; tok = strtok(NULL, ","))
				accums[naccum++] = !strcmp(tok, "exact") ? MXE_ACCUM_EXACT :
								       MXE_ACCUM_FAST;
		} else if (!strcmp(argv[i], "--sched") && i + 1 < argc) {
			sched = !strcmp(argv[++i], "inter") ? MXE_SCHED_INTERWAVE : MXE_SCHED_INTRAWAVE;
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			char *s = argv[++i], *tok;

			nsizes = 0;
			for (tok = strtok(s, ","); tok && nsizes < 8; tok = strtok(NULL, ","))
				sizes[nsizes++] = atoi(tok);
		} else if (!strcmp(argv[i], "--types") && i + 1 < argc) {
			char *s = argv[++i], *tok;

			memset(want, 0, sizeof(want));
			for (tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
				int found = 0;

				for (int t = 0; t < NTYPES; t++)
					if (!strcmp(tok, btypes[t].name))
						want[t] = found = 1;
				if (!found) {
					fprintf(stderr, "%s: --types: no type %s\n", argv[0], tok);
					return 2;
				}
			}
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			char *s = argv[++i], *tok;

			want_th[1] = want_th[2] = 0;
			for (tok = strtok(s, ","); tok; tok = strtok(NULL, ","))
				if (atoi(tok) >= 1 && atoi(tok) <= 2)
					want_th[atoi(tok)] = 1;
		} else {
			fprintf(stderr, "usage: %s [--csv FILE] [--accum fast|exact|exact,fast] "
				"[--exact-csv FILE] [--sched intra|inter] [--sizes 512,1024] [--reps N] "
				"[--types mxfp8,bf16,f16,s8,mxfp6,mxfp4,mxint8,nvfp4,mxfp6xfp4,"
				"mxfp4xint8] [--threads 1,2]\n",
				argv[0]);
			return 2;
		}
	}
	if (exact_csv && (naccum != 2 || accums[0] == accums[1])) {
		fprintf(stderr, "%s: --exact-csv needs --accum exact,fast\n", argv[0]);
		return 2;
	}
	if (csv) {
		fc = fopen(csv, "w");
		if (!fc) {
			perror(csv);
			return 1;
		}
		fprintf(fc, "type,numerics,m,n,k,threads,gflops,sgemm_gflops,ratio,fma_peak_gflops\n");
	}
	eng = mxe_engine_create(2);
	printf("engine: %s kernels, %s accumulation, %s; best of %d runs\n", mxe_engine_simd(),
	       naccum == 2 ? "EXACT and FAST" : accums[0] == MXE_ACCUM_EXACT ? "EXACT" : "FAST",
	       sched == MXE_SCHED_INTRAWAVE ? "intrawave" : "interwave", reps);
	/* OpenBLAS picks its kernels by CPU model (OPENBLAS_CORETYPE overrides) */
	printf("reference: OpenBLAS sgemm, %s kernels\n", openblas_get_corename());
	/* the float types' kernels and sgemm multiply with these FMAs: peak / sgemm bounds
	 * their ratio */
	for (int th = 1; th <= 2; th++)
		if (want_th[th] && (peak[th] = bench_fma_gflops(0, th, 1L << 24)) > 0)
			printf("f32 FMA peak, %d thread%s: %.1f GFLOP/s (%s vectors, all threads "
			       "at once; bounds the float types and sgemm)\n", th, th > 1 ? "s" : "",
			       peak[th], strncmp(mxe_engine_simd(), "avx512", 6) ? "256-bit" : "512-bit");
	printf("%-6s %-8s %5s %5s %5s %7s %10s %13s %7s %7s\n", "type", "numerics", "m", "n", "k",
	       "threads", "GFLOP/s", "sgemm GFLOP/s", "ratio", "/ peak");

	for (int si = 0; si < nsizes; si++) {
		int n = sizes[si];
		size_t nn = (size_t)n * n;
		float *fa = malloc(nn * 4), *fb = malloc(nn * 4), *fcm = malloc(nn * 4);
		void *d = malloc(nn * 4);
		/* E8M0 scales 2^-7 .. 2^0; NVFP4's UE4M3 0.5 .. 15 (16 elements a scale) */
		uint8_t *sa = malloc(nn / 32), *sb = malloc(nn / 32);
		uint8_t *sa16 = malloc(nn / 16), *sb16 = malloc(nn / 16);

		for (size_t i = 0; i < nn; i++) {
			fa[i] = (float)(rnd() % 2001) / 1000.0f - 1.0f;
			fb[i] = (float)(rnd() % 2001) / 1000.0f - 1.0f;
		}
		for (size_t i = 0; i < nn / 32; i++) {
			sa[i] = (uint8_t)(120 + rnd() % 8);
			sb[i] = (uint8_t)(120 + rnd() % 8);
		}
		for (size_t i = 0; i < nn / 16; i++) {
			sa16[i] = (uint8_t)(0x30 + rnd() % 0x18);
			sb16[i] = (uint8_t)(0x30 + rnd() % 0x18);
		}
		for (int th = 1; th <= 2; th++) {
			struct mxe_gemm_desc desc[NTYPES];
			void *ta[NTYPES], *tb[NTYPES];
			double best_sg = 1e30, best[NTYPES][2], sg;

			if (!want_th[th])
				continue;
			openblas_set_num_threads(th);
			for (int ti = 0; ti < NTYPES; ti++) {
				const struct btype *bt = &btypes[ti];

				best[ti][0] = best[ti][1] = 1e30;
				ta[ti] = tb[ti] = NULL;
				if (!want[ti])
					continue;
				ta[ti] = malloc(nn * 2);
				tb[ti] = malloc(nn * 2);
				fill_codes(bt->in, ta[ti], nn);
				fill_codes(bt->in_b ? bt->in_b : bt->in, tb[ti], nn);
				memset(&desc[ti], 0, sizeof(desc[ti]));
				desc[ti].m = desc[ti].n = desc[ti].k = (uint32_t)n;
				desc[ti].type_a = (uint8_t)bt->in;
				desc[ti].type_b = (uint8_t)(bt->in_b ? bt->in_b : bt->in);
				desc[ti].type_c = desc[ti].type_d = (uint8_t)bt->out;
				desc[ti].a = ta[ti];
				desc[ti].b = tb[ti];
				desc[ti].d = d;
				if (bt->mx) {
					int nv = bt->in == MXA_DTYPE_NVFP4;

					desc[ti].scale_block = mxa_dtype_scale_block(bt->in);
					desc[ti].scale_a = nv ? sa16 : sa;
					desc[ti].scale_b = nv ? sb16 : sb;
				}
				desc[ti].sched = (uint8_t)sched;
				desc[ti].nthreads = (uint32_t)th;
			}
			/*
			 * The reference back to back (its best case: OpenBLAS's threads spin
			 * between calls), then, once they have gone to sleep, the engine: a
			 * spinning OpenBLAS thread (2^28 cycles after each call, Debian's
			 * build) took the engine's second thread's core, so that 2 threads ran
			 * a 512^3 GEMM slower than 1. Run 0 warms up; best of the rest.
			 */
			for (int r = 0; r <= reps; r++) {
				double t = now();

				cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0f, fa, n,
					    fb, n, 0.0f, fcm, n);
				t = now() - t;
				if (r && t < best_sg)
					best_sg = t;
			}
			nanosleep(&(struct timespec){ .tv_nsec = 300000000 }, NULL);
			for (int r = 0; r <= reps; r++) {
				double t;

				for (int ti = 0; ti < NTYPES; ti++) {
					for (int ai = 0; want[ti] && ai < naccum; ai++) {
						int rc;

						desc[ti].accum = (uint8_t)accums[ai];
						t = now();
						rc = mxe_gemm(eng, &desc[ti]);
						t = now() - t;
						if (rc) {
							fprintf(stderr, "mxe_gemm %s: %s\n", btypes[ti].name,
								mxe_engine_strerror(rc));
							return 1;
						}
						if ((r || reps == 0) && t < best[ti][ai])
							best[ti][ai] = t;
					}
				}
			}
			sg = 2.0 * n * n * (double)n / best_sg / 1e9;
			for (int ti = 0; ti < NTYPES; ti++) {
				for (int ai = 0; want[ti] && ai < naccum; ai++) {
					double gf = 2.0 * n * n * (double)n / best[ti][ai] / 1e9;

					gflops[ti][si][th - 1][ai] = gf;
					printf("%-6s %-8s %5d %5d %5d %7d %10.1f %13.1f %7.3f %7.3f\n",
					       btypes[ti].name, accum_name(accums[ai]), n, n, n, th, gf, sg,
					       gf / sg, peak[th] > 0 ? gf / peak[th] : 0.0);
					fflush(stdout);
					if (fc)
						fprintf(fc, "%s,%s,%d,%d,%d,%d,%.2f,%.2f,%.3f,%.1f\n",
							btypes[ti].name, accum_name(accums[ai]), n, n, n, th,
							gf, sg, gf / sg, peak[th]);
				}
				free(ta[ti]);
				free(tb[ti]);
			}
		}
		free(fa), free(fb), free(fcm), free(d), free(sa), free(sb), free(sa16), free(sb16);
	}
	for (int si = 0; si < nsizes; si++)
		for (int ti = 0; ti < NTYPES; ti++)
			for (int ai = 0; want[ti] && ai < naccum; ai++)
				if (gflops[ti][si][0][ai] > 0 && gflops[ti][si][1][ai] > 0)
					printf("%s %s %d^3: 2 threads / 1 thread = %.2f\n",
					       btypes[ti].name, accum_name(accums[ai]), sizes[si],
					       gflops[ti][si][1][ai] / gflops[ti][si][0][ai]);
	if (exact_csv) {
		int ex = accums[0] == MXE_ACCUM_EXACT ? 0 : 1;

		fe = fopen(exact_csv, "w");
		if (!fe) {
			perror(exact_csv);
			return 1;
		}
		fprintf(fe, "type,m,threads,exact_gflops,fast_gflops,ratio\n");
		for (int si = 0; si < nsizes; si++)
			for (int ti = 0; ti < NTYPES; ti++)
				for (int th = 0; want[ti] && th < 2; th++)
					if (gflops[ti][si][th][ex] > 0 && gflops[ti][si][th][!ex] > 0)
						fprintf(fe, "%s,%d,%d,%.2f,%.2f,%.3f\n", btypes[ti].name,
							sizes[si], th + 1, gflops[ti][si][th][ex],
							gflops[ti][si][th][!ex],
							gflops[ti][si][th][ex] / gflops[ti][si][th][!ex]);
		fclose(fe);
	}
	if (fc)
		fclose(fc);
	mxe_engine_destroy(eng);
	return 0;
}
