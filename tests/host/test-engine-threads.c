// SPDX-License-Identifier: MIT
/*
 * test-engine-threads - determinism and thread safety: the same operation
 * gives the same bits with any thread count, either scheduling policy
 * (intrawave/interwave), either SIMD path, and while several threads share
 * one engine; a cancelled call runs none of its tasks, and the next call of
 * the thread, uncancelled, gives the reference bits.
 */
#include <pthread.h>
#include <stdio.h>

#include "tap.h"
#include "test-engine-util.h"

struct job {
	struct mxa_gemm_desc d;
	uint8_t *a, *b, *c, *s_a, *s_b, *want, *got;
	size_t dbytes;
};

static void job_init(struct job *j, enum mxa_dtype ta, enum mxa_dtype tb, enum mxa_dtype td,
		     unsigned m, unsigned n, unsigned k, int mx, int accum)
{
	memset(j, 0, sizeof(*j));
	j->a = malloc(mxa_dtype_row_bytes(ta, k) * m);
	j->b = malloc(mxa_dtype_row_bytes(tb, k) * n);
	j->dbytes = mxa_dtype_row_bytes(td, n) * m;
	j->c = malloc(j->dbytes);
	j->want = malloc(j->dbytes);
	j->got = malloc(j->dbytes);
	tu_fill(ta, j->a, m, k, mxa_dtype_row_bytes(ta, k));
	tu_fill(tb, j->b, n, k, mxa_dtype_row_bytes(tb, k));
	tu_fill(td, j->c, m, n, mxa_dtype_row_bytes(td, n));
	j->d = (struct mxa_gemm_desc){ .m = m, .n = n, .k = k, .type_a = ta, .type_b = tb,
				       .type_c = td, .type_d = td, .a = j->a, .b = j->b, .c = j->c,
				       .d = j->got, .flags = MXA_GEMM_ACCUMULATE, .accum = accum };
	if (mx) {
		j->s_a = malloc(m * k / 32);
		j->s_b = malloc(n * k / 32);
		tu_fill(MXA_DT_E8M0, j->s_a, m, k / 32, k / 32);
		tu_fill(MXA_DT_E8M0, j->s_b, n, k / 32, k / 32);
		j->d.scale_a = j->s_a;
		j->d.scale_b = j->s_b;
		j->d.scale_block = 32;
	}
}

static void job_free(struct job *j)
{
	free(j->a), free(j->b), free(j->c), free(j->s_a), free(j->s_b), free(j->want), free(j->got);
}

static struct mxa_engine *shared_eng;
static struct job jobs[4];
static int thread_bad[4];

static void *hammer(void *p)
{
	int id = (int)(intptr_t)p;
	struct job *j = &jobs[id];
	uint8_t *mine = malloc(j->dbytes);
	struct mxa_gemm_desc d = j->d;

	d.d = mine;
	d.nthreads = (unsigned)(id % 3);
	d.sched = id & 1;
	for (int r = 0; r < 8; r++) {
		memset(mine, 0, j->dbytes);
		if (mxa_gemm(shared_eng, &d) || memcmp(mine, j->want, j->dbytes))
			thread_bad[id]++;
	}
	free(mine);
	return NULL;
}

int main(void)
{
	static const struct {
		enum mxa_dtype a, b, d;
		int mx, accum;
		unsigned m, n, k;
	} cases[] = {
		{ MXA_DT_BF16, MXA_DT_BF16, MXA_DT_F32, 0, MXA_ACCUM_FAST, 150, 70, 600 },
		{ MXA_DT_E4M3, MXA_DT_E4M3, MXA_DT_F32, 1, MXA_ACCUM_FAST, 97, 131, 512 },
		{ MXA_DT_F16, MXA_DT_F16, MXA_DT_F32, 0, MXA_ACCUM_FAST, 64, 64, 1024 },
		{ MXA_DT_S8, MXA_DT_S8, MXA_DT_S32, 0, MXA_ACCUM_FAST, 130, 66, 700 },
		/* FAST kernel edges: K below one 32-k sub-block; two K blocks, the
		 * last one with a partial sub-block, over 2 x 2 tiles (the tile
		 * buffer of the running sums) with edge panels */
		{ MXA_DT_F32, MXA_DT_BF16, MXA_DT_F32, 0, MXA_ACCUM_FAST, 13, 40, 20 },
		{ MXA_DT_F16, MXA_DT_F16, MXA_DT_F32, 0, MXA_ACCUM_FAST, 157, 261, 300 },
		/* AVX-512 strips of two B panels: the last pair's second panel
		 * partial (120 = 7.5 x 16), a lone last panel (70, 131) */
		{ MXA_DT_E4M3, MXA_DT_E5M2, MXA_DT_F32, 1, MXA_ACCUM_FAST, 100, 120, 320 },
		{ MXA_DT_E5M2, MXA_DT_E2M1, MXA_DT_F32, 1, MXA_ACCUM_EXACT, 40, 33, 256 },
		{ MXA_DT_F16, MXA_DT_F16, MXA_DT_F16, 0, MXA_ACCUM_EXACT, 30, 20, 96 },
		{ MXA_DT_F64, MXA_DT_F64, MXA_DT_F64, 0, MXA_ACCUM_EXACT, 20, 20, 64 },
	};
	static const char *const simd[3] = { "portable", "avx2", "avx512" };
	struct mxa_engine *engs[3];
	unsigned nt[3] = { 1, 2, 4 };
	char paths[64] = "";

	tap_begin();
	for (int l = 0; l < 3; l++)
		if (!mxa_engine_set_simd(simd[l]))
			snprintf(paths + strlen(paths), sizeof(paths) - strlen(paths), "%s%s",
				 l ? "/" : "", simd[l]);
	mxa_engine_set_simd(NULL);
	tap_diag("SIMD paths on this CPU: %s (the best one runs by default: %s)", paths,
		 mxa_engine_simd());
	for (int e = 0; e < 3; e++)
		engs[e] = mxa_engine_create(nt[e]);
	tap_ok(mxa_engine_nthreads(engs[2]) == 4 && mxa_engine_nthreads(NULL) == 1,
	       "engine thread counts");

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct job j;
		int runs = 0, same = 0;

		job_init(&j, cases[c].a, cases[c].b, cases[c].d, cases[c].m, cases[c].n, cases[c].k,
			 cases[c].mx, cases[c].accum);
		j.d.d = j.want;
		mxa_gemm(NULL, &j.d);
		j.d.d = j.got;
		for (int e = 0; e < 3; e++) {
			for (unsigned t = 0; t <= nt[e]; t++) {
				for (int sched = 0; sched < 2; sched++) {
					for (int l = 0; l < 3; l++) {
						if (mxa_engine_set_simd(simd[l]))
							continue;	/* not on this CPU */
						j.d.nthreads = t;
						j.d.sched = sched;
						memset(j.got, 0xAA, j.dbytes);
						runs++;
						same += !mxa_gemm(engs[e], &j.d) &&
							!memcmp(j.got, j.want, j.dbytes);
					}
				}
			}
		}
		mxa_engine_set_simd(NULL);
		tap_ok(same == runs, "%s %s x %s -> %s %ux%ux%u: %d/%d runs bit-identical "
		       "(1..4 threads, intra/interwave, SIMD paths %s)",
		       cases[c].accum ? "fast" : "exact", mxa_dtype_name(cases[c].a),
		       mxa_dtype_name(cases[c].b), mxa_dtype_name(cases[c].d), cases[c].m, cases[c].n,
		       cases[c].k, same, runs, paths);
		job_free(&j);
	}

	/* several device threads sharing one engine */
	shared_eng = engs[1];
	for (int i = 0; i < 4; i++) {
		job_init(&jobs[i], i & 1 ? MXA_DT_E4M3 : MXA_DT_BF16, i & 1 ? MXA_DT_E4M3 : MXA_DT_BF16,
			 MXA_DT_F32, 64 + 16 * i, 96, 320, i & 1, i < 2 ? MXA_ACCUM_FAST : MXA_ACCUM_EXACT);
		jobs[i].d.k = i & 1 ? 320 : 320;
		jobs[i].d.d = jobs[i].want;
		mxa_gemm(NULL, &jobs[i].d);
	}
	{
		pthread_t th[4];
		int bad = 0;

		for (int i = 0; i < 4; i++)
			pthread_create(&th[i], NULL, hammer, (void *)(intptr_t)i);
		for (int i = 0; i < 4; i++) {
			pthread_join(th[i], NULL);
			bad += thread_bad[i];
		}
		tap_ok(!bad, "4 threads x 8 operations on one engine concurrently: all correct");
	}
	for (int i = 0; i < 4; i++)
		job_free(&jobs[i]);
	for (int e = 0; e < 3; e++)
		mxa_engine_destroy(engs[e]);
	mxa_engine_destroy(NULL);
	{
		/* cancellation (mxa_engine_cancel_on): a reset stops the device's long math */
		static const enum mxa_accum modes[] = { MXA_ACCUM_EXACT, MXA_ACCUM_FAST,
							MXA_ACCUM_HOPPER };
		struct mxa_engine *e2 = mxa_engine_create(2);
		int flag = 1;

		for (unsigned i = 0; i < 3; i++) {
			struct job j;
			int untouched = 1, same;

			job_init(&j, MXA_DT_E4M3, MXA_DT_E4M3, MXA_DT_F32, 256, 192, 512, 0, modes[i]);
			j.d.d = j.want;
			mxa_gemm(e2, &j.d);
			memset(j.got, 0xab, j.dbytes);
			j.d.d = j.got;
			mxa_engine_cancel_on(&flag);
			flag = 1;
			mxa_gemm(e2, &j.d);
			for (size_t b = 0; b < j.dbytes; b++)
				untouched &= j.got[b] == 0xab;
			tap_ok(untouched && mxa_engine_cancelled(),
			       "accum %u: a call whose cancel flag is set runs no task (D untouched)",
			       modes[i]);
			flag = 0;
			mxa_gemm(e2, &j.d);
			same = !memcmp(j.got, j.want, j.dbytes);
			tap_ok(same && !mxa_engine_cancelled(),
			       "accum %u: with the flag clear the next call gives the reference bits",
			       modes[i]);
			mxa_engine_cancel_on(NULL);
			job_free(&j);
		}
		mxa_engine_destroy(e2);
	}
	{
		struct mxa_engine *e0 = mxa_engine_create(0);

		tap_ok(e0 && mxa_engine_nthreads(e0) >= 1, "mxa_engine_create(0) uses the online CPUs (%u)",
		       mxa_engine_nthreads(e0));
		mxa_engine_destroy(e0);
	}
	return tap_end();
}
