// SPDX-License-Identifier: MIT
/*
 * test-engine-threads - determinism and thread safety: the same operation
 * gives the same bits with any thread count, either scheduling policy
 * (intrawave/interwave), either SIMD path, and while several threads share
 * one engine; a cancelled call runs none of its tasks, and the next call of
 * the thread, uncancelled, gives the reference bits; the pool runs every task of
 * a phase once, and a phase only after the one before (tasks taken in runs).
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "host_check.h"
#include "mxe_pool.h"
#include "test-engine-util.h"

struct job {
	struct mxe_gemm_desc d;
	uint8_t *a, *b, *c, *s_a, *s_b, *want, *got;
	size_t dbytes;
};

static void job_init(struct job *j, enum mxa_isa_dtype ta, enum mxa_isa_dtype tb, enum mxa_isa_dtype td,
		     unsigned m, unsigned n, unsigned k, int mx, int accum)
{
	memset(j, 0, sizeof(*j));
	j->a = malloc(mxe_dtype_row_bytes(ta, k) * m);
	j->b = malloc(mxe_dtype_row_bytes(tb, k) * n);
	j->dbytes = mxe_dtype_row_bytes(td, n) * m;
	j->c = malloc(j->dbytes);
	j->want = malloc(j->dbytes);
	j->got = malloc(j->dbytes);
	tu_fill(ta, j->a, m, k, mxe_dtype_row_bytes(ta, k));
	tu_fill(tb, j->b, n, k, mxe_dtype_row_bytes(tb, k));
	tu_fill(td, j->c, m, n, mxe_dtype_row_bytes(td, n));
	j->d = (struct mxe_gemm_desc){ .m = m, .n = n, .k = k, .type_a = ta, .type_b = tb,
				       .type_c = td, .type_d = td, .a = j->a, .b = j->b, .c = j->c,
				       .d = j->got, .flags = MXA_GEMM_F_ACCUMULATE, .accum = accum };
	if (mx) {
		j->s_a = malloc(m * k / 32);
		j->s_b = malloc(n * k / 32);
		tu_fill(MXA_DTYPE_E8M0, j->s_a, m, k / 32, k / 32);
		tu_fill(MXA_DTYPE_E8M0, j->s_b, n, k / 32, k / 32);
		j->d.scale_a = j->s_a;
		j->d.scale_b = j->s_b;
		j->d.scale_block = 32;
	}
}

/* A pool job of three phases (1000, 37 and 1 tasks) that counts each task's runs. */
#define POOL_PHASES 3
static const unsigned pool_tasks[POOL_PHASES] = { 1000, 37, 1 };

struct pool_count {
	unsigned runs[POOL_PHASES][1000];
	unsigned early;		/* tasks that ran before the phase before had ended */
	unsigned job;		/* jobs run before this one */
};

static unsigned pool_count_tasks(void *arg, unsigned phase)
{
	(void)arg;
	return phase < POOL_PHASES ? pool_tasks[phase] : 0;
}

static void pool_count_task(void *arg, unsigned phase, unsigned task)
{
	struct pool_count *c = arg;

	for (unsigned t = 0; phase && t < pool_tasks[phase - 1]; t++)
		if (__atomic_load_n(&c->runs[phase - 1][t], __ATOMIC_ACQUIRE) != c->job + 1)
			__atomic_add_fetch(&c->early, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->runs[phase][task], 1, __ATOMIC_RELEASE);
}

static void job_free(struct job *j)
{
	free(j->a), free(j->b), free(j->c), free(j->s_a), free(j->s_b), free(j->want), free(j->got);
}

#define HAMMER_ROUNDS 8
static struct mxe_engine *shared_eng;
static struct job jobs[4];
static int thread_bad[4];

static void *hammer(void *p)
{
	int id = (int)(intptr_t)p;
	struct job *j = &jobs[id];
	uint8_t *mine = malloc(j->dbytes);
	struct mxe_gemm_desc d = j->d;

	d.d = mine;
	d.nthreads = (unsigned)(id % 3);
	d.sched = id & 1;
	for (int r = 0; r < 8; r++) {
		memset(mine, 0, j->dbytes);
		if (mxe_gemm(shared_eng, &d) || memcmp(mine, j->want, j->dbytes))
			thread_bad[id]++;
	}
	free(mine);
	return NULL;
}

int main(void)
{
	static const struct {
		enum mxa_isa_dtype a, b, d;
		int mx, accum;
		unsigned m, n, k;
	} cases[] = {
		{ MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 0, MXE_ACCUM_FAST, 150, 70, 600 },
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 1, MXE_ACCUM_FAST, 97, 131, 512 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F32, 0, MXE_ACCUM_FAST, 64, 64, 1024 },
		{ MXA_DTYPE_S8, MXA_DTYPE_S8, MXA_DTYPE_S32, 0, MXE_ACCUM_FAST, 130, 66, 700 },
		/* FAST kernel edges: K below one 32-k sub-block; two K blocks, the
		 * last one with a partial sub-block, over 2 x 2 tiles (the tile
		 * buffer of the running sums) with edge panels */
		{ MXA_DTYPE_F32, MXA_DTYPE_BF16, MXA_DTYPE_F32, 0, MXE_ACCUM_FAST, 13, 40, 20 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F32, 0, MXE_ACCUM_FAST, 157, 261, 300 },
		/* AVX-512 strips of two B panels: the last pair's second panel
		 * partial (120 = 7.5 x 16), a lone last panel (70, 131) */
		{ MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_F32, 1, MXE_ACCUM_FAST, 100, 120, 320 },
		{ MXA_DTYPE_E5M2, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1, MXE_ACCUM_EXACT, 40, 33, 256 },
		/* EXACT on the float kernels and the int8 panels (VNNI), FAST on the latter */
		{ MXA_DTYPE_MXINT8, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1, MXE_ACCUM_EXACT, 100, 120, 320 },
		{ MXA_DTYPE_E3M2, MXA_DTYPE_E2M3, MXA_DTYPE_F32, 1, MXE_ACCUM_EXACT, 157, 70, 608 },
		{ MXA_DTYPE_E2M1, MXA_DTYPE_E2M1, MXA_DTYPE_F32, 1, MXE_ACCUM_FAST, 97, 131, 512 },
		{ MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F16, 0, MXE_ACCUM_EXACT, 30, 20, 96 },
		{ MXA_DTYPE_F64, MXA_DTYPE_F64, MXA_DTYPE_F64, 0, MXE_ACCUM_EXACT, 20, 20, 64 },
	};
	struct mxe_engine *engs[3];
	unsigned nt[3] = { 1, 2, 4 };
	char paths[64] = "";

	ksft_print_header();
	for (unsigned l = 0; mxe_engine_simd_name(l); l++)
		if (!mxe_engine_set_simd(mxe_engine_simd_name(l)))
			snprintf(paths + strlen(paths), sizeof(paths) - strlen(paths), "%s%s",
				 l ? "/" : "", mxe_engine_simd_name(l));
	mxe_engine_set_simd(NULL);
	host_diag("SIMD paths on this CPU: %s (the best one runs by default: %s)", paths,
		 mxe_engine_simd());
	for (int e = 0; e < 3; e++)
		engs[e] = mxe_engine_create(nt[e]);
	host_check(mxe_engine_nthreads(engs[2]) == 4 && mxe_engine_nthreads(NULL) == 1,
	       "engine thread counts");

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct job j;
		int runs = 0, same = 0;

		job_init(&j, cases[c].a, cases[c].b, cases[c].d, cases[c].m, cases[c].n, cases[c].k,
			 cases[c].mx, cases[c].accum);
		j.d.d = j.want;
		mxe_gemm(NULL, &j.d);
		j.d.d = j.got;
		for (int e = 0; e < 3; e++) {
			for (unsigned t = 0; t <= nt[e]; t++) {
				for (int sched = 0; sched < 2; sched++) {
					for (unsigned l = 0; mxe_engine_simd_name(l); l++) {
						if (mxe_engine_set_simd(mxe_engine_simd_name(l)))
							continue;	/* not on this CPU */
						j.d.nthreads = t;
						j.d.sched = sched;
						memset(j.got, 0xAA, j.dbytes);
						runs++;
						same += !mxe_gemm(engs[e], &j.d) &&
							!memcmp(j.got, j.want, j.dbytes);
					}
				}
			}
		}
		mxe_engine_set_simd(NULL);
		host_check(same == runs, "%s %s x %s -> %s %ux%ux%u: %d/%d runs bit-identical "
		       "(1..4 threads, intra/interwave, SIMD paths %s)",
		       cases[c].accum ? "fast" : "exact", mxe_dtype_name(cases[c].a),
		       mxe_dtype_name(cases[c].b), mxe_dtype_name(cases[c].d), cases[c].m, cases[c].n,
		       cases[c].k, same, runs, paths);
		job_free(&j);
	}

	/* several device threads sharing one engine */
	shared_eng = engs[1];
	for (int i = 0; i < 4; i++) {
		/* job 2 (EXACT BF16 on the general path) 256 wide: many tiles a band of rows */
		job_init(&jobs[i], i & 1 ? MXA_DTYPE_E4M3 : MXA_DTYPE_BF16, i & 1 ? MXA_DTYPE_E4M3 : MXA_DTYPE_BF16,
			 MXA_DTYPE_F32, 64 + 16 * i, i == 2 ? 256 : 96, 320, i & 1,
			 i < 2 ? MXE_ACCUM_FAST : MXE_ACCUM_EXACT);
		jobs[i].d.k = i & 1 ? 320 : 320;
		jobs[i].d.d = jobs[i].want;
		mxe_gemm(NULL, &jobs[i].d);
	}
	/*
	 * Rounds, since the workers interleave the four jobs' tasks differently each time:
	 * a kept band of A rows that another job's task had overwritten between two tiles
	 * of job 2 (mxe_exact.c, band_uses) gave 8-12 wrong results in 8 rounds.
	 */
	{
		int bad = 0;

		for (int round = 0; round < HAMMER_ROUNDS; round++) {
			pthread_t th[4];

			for (int i = 0; i < 4; i++)
				pthread_create(&th[i], NULL, hammer, (void *)(intptr_t)i);
			for (int i = 0; i < 4; i++)
				pthread_join(th[i], NULL);
		}
		for (int i = 0; i < 4; i++)
			bad += thread_bad[i];
		host_check(!bad, "%d rounds of 4 threads x 8 operations on one engine concurrently: "
			   "%d wrong", HAMMER_ROUNDS, bad);
	}
	for (int i = 0; i < 4; i++)
		job_free(&jobs[i]);
	for (int e = 0; e < 3; e++)
		mxe_engine_destroy(engs[e]);
	mxe_engine_destroy(NULL);
	{
		/* cancellation (mxe_engine_cancel_on): a reset stops the device's long math */
		static const enum mxe_accum modes[] = { MXE_ACCUM_EXACT, MXE_ACCUM_FAST,
							MXE_ACCUM_HOPPER };
		struct mxe_engine *e2 = mxe_engine_create(2);
		int flag = 1;

		for (unsigned i = 0; i < 3; i++) {
			struct job j;
			int untouched = 1, same;

			job_init(&j, MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, MXA_DTYPE_F32, 256, 192, 512, 0, modes[i]);
			j.d.d = j.want;
			mxe_gemm(e2, &j.d);
			memset(j.got, 0xab, j.dbytes);
			j.d.d = j.got;
			mxe_engine_cancel_on(&flag);
			flag = 1;
			mxe_gemm(e2, &j.d);
			for (size_t b = 0; b < j.dbytes; b++)
				untouched &= j.got[b] == 0xab;
			host_check(untouched && mxe_engine_cancelled(),
			       "accum %u: a call whose cancel flag is set runs no task (D untouched)",
			       modes[i]);
			flag = 0;
			mxe_gemm(e2, &j.d);
			same = !memcmp(j.got, j.want, j.dbytes);
			host_check(same && !mxe_engine_cancelled(),
			       "accum %u: with the flag clear the next call gives the reference bits",
			       modes[i]);
			mxe_engine_cancel_on(NULL);
			job_free(&j);
		}
		mxe_engine_destroy(e2);
	}
	{
		/*
		 * mxe_engine_park(): a worker spinning for the next task sleeps at once. The
		 * spin set to 60 s (mxe_engine_set_spin_ns()) so that only the park can end it: the
		 * worker still spins 20 ms after its last task, and sleeps soon after the park.
		 */
		struct mxe_engine *e2;
		struct job j;
		unsigned spinning = 0, sleeping = 0, still, asleep;
		struct timespec ms = { 0, 1000000 };

		e2 = mxe_engine_create(2);
		mxe_engine_set_spin_ns(e2, 60000000000ull);
		job_init(&j, MXA_DTYPE_BF16, MXA_DTYPE_BF16, MXA_DTYPE_F32, 256, 192, 512, 0,
			 MXE_ACCUM_FAST);
		j.d.d = j.want;
		mxe_gemm(NULL, &j.d);
		j.d.d = j.got;
		j.d.nthreads = 2;
		mxe_gemm(e2, &j.d);
		for (int i = 0; i < 2000 && !spinning && !sleeping; i++) {	/* the worker's last task */
			mxe_engine_idle_threads(e2, &spinning, &sleeping);
			nanosleep(&ms, NULL);
		}
		for (int i = 0; i < 20; i++)
			nanosleep(&ms, NULL);
		mxe_engine_idle_threads(e2, &still, &asleep);
		host_check(spinning == 1 && still == 1 && !asleep, "with a 60 s spin the worker "
			   "still spins 20 ms after its last task (%u/%u spinning, %u asleep)",
			   spinning, still, asleep);
		mxe_engine_park(e2);
		for (int i = 0; i < 2000 && !asleep; i++) {
			nanosleep(&ms, NULL);
			mxe_engine_idle_threads(e2, &still, &asleep);
		}
		host_check(!still && asleep == 1, "mxe_engine_park(): it sleeps (%u spinning, %u "
			   "asleep)", still, asleep);
		memset(j.got, 0xAA, j.dbytes);
		host_check(!mxe_gemm(e2, &j.d) && !memcmp(j.got, j.want, j.dbytes),
			   "the next 2-thread call after a park gives the reference bits");
		mxe_engine_destroy(e2);
		job_free(&j);
	}
	{
		static const struct mxe_pool_job_ops ops = { pool_count_tasks, pool_count_task };
		static struct pool_count c;
		struct mxe_engine *e4 = mxe_engine_create(4);
		/* a NULL engine would run every task on this thread: no claim would race */
		unsigned wrong = 0, threads = e4 ? mxe_engine_nthreads(e4) : 0;

		for (c.job = 0; e4 && c.job < 20; c.job++)
			mxe_pool_run(e4, 4, &ops, &c);
		mxe_engine_destroy(e4);
		for (unsigned p = 0; p < POOL_PHASES; p++)
			for (unsigned t = 0; t < pool_tasks[p]; t++)
				wrong += c.runs[p][t] != 20;
		host_check(threads == 4 && !wrong && !c.early, "20 pool jobs of 1000, 37 and 1 tasks "
			   "on 4 threads (%u): every task ran once a job (%u did not), none before its "
			   "phase (%u did)", threads, wrong, c.early);
	}
	{
		struct mxe_engine *e0 = mxe_engine_create(0);

		host_check(e0 && mxe_engine_nthreads(e0) >= 1, "mxe_engine_create(0) uses the online CPUs (%u)",
		       mxe_engine_nthreads(e0));
		mxe_engine_destroy(e0);
	}
	return host_check_end();
}
