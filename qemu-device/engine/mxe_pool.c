// SPDX-License-Identifier: MIT
/*
 * mxe_pool.c - engine context and thread pool.
 *
 * DOC: phased jobs on a shared pool
 *
 * An engine owns N-1 worker threads; the thread that submits a job always
 * works on it too, so a job makes progress even when every worker is busy
 * with other jobs (several device threads may submit at once) and a job
 * with nthreads = 1 never touches the workers. A job is a sequence of
 * phases separated by barriers (see mxe_pool_job_ops): the intrawave policy is a
 * single phase of output tiles, the interwave policy alternates "pack this
 * K chunk" and "multiply this K chunk" phases. Because the barrier is the
 * phase boundary and not a fixed team of threads, a job never waits for a
 * particular thread, and the number of threads changes only the speed.
 *
 * One mutex protects the job list and every job's counters. A thread takes
 * a run of a phase's tasks at once (job_claim(): a share of what is left that
 * shrinks to one task at the phase's end), so a phase of many small tasks (a
 * GEMV's columns) takes the mutex a few times per thread, not once a task.
 *
 * Cancellation: a job takes the cancel flag of the thread that runs it
 * (mxe_engine_cancel_on()); once the flag is set, its remaining tasks are
 * skipped, so a call returns within one task's time (its results are then
 * partial, for the caller to discard).
 */
#define _DEFAULT_SOURCE		/* madvise(MADV_HUGEPAGE) */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mxe_engine.h"
#include "mxe_pool.h"

struct mxe_pool_job {
	const struct mxe_pool_job_ops *ops;
	void *arg;
	unsigned phase;		/* current phase */
	unsigned ntasks;	/* tasks in the current phase */
	unsigned next;		/* next task to hand out */
	unsigned done;		/* tasks of the phase finished */
	unsigned helpers;	/* workers running one of its tasks now */
	unsigned max_helpers;	/* nthreads - 1 */
	int finished;
	const int *cancel;	/* the submitting thread's cancel flag, or NULL */
	struct mxe_pool_job *next_job;
};

static __thread const int *thread_cancel;

void mxe_engine_cancel_on(const int *flag)
{
	thread_cancel = flag;
}

int mxe_engine_cancelled(void)
{
	return thread_cancel && __atomic_load_n(thread_cancel, __ATOMIC_RELAXED);
}

/* Run a task unless the job was cancelled (then it only counts as done). */
static void job_run_task(struct mxe_pool_job *job, unsigned phase, unsigned task)
{
	if (!job->cancel || !__atomic_load_n(job->cancel, __ATOMIC_RELAXED))
		job->ops->task(job->arg, phase, task);
}

struct mxe_engine {
	pthread_mutex_t lock;	/* protects everything below and all jobs */
	pthread_cond_t cond;	/* new job, new phase, job finished */
	unsigned gen;		/* counts those events (pool_signal()); read unlocked */
	unsigned park;		/* counts mxe_engine_park() calls; read unlocked */
	uint64_t spin_ns;	/* how long an idle thread spins (MXE_POOL_SPIN_NS; atomic) */
	unsigned spinning, sleeping;	/* threads in pool_wait() doing so (atomic) */
	struct mxe_pool_job *jobs;	/* jobs that may want helpers */
	int stop;
	unsigned nworkers;
	pthread_t *workers;
};

/*
 * A thread with nothing to do spins up to MXE_POOL_SPIN_NS for the next event before it
 * sleeps: a phase of a mid-sized GEMM lasts a few hundred microseconds, and a wake-up
 * through the condition variable cost so much of that on a VM that two threads ran a
 * 512^3 GEMM slower than one. mxe_engine_park() ends the spinning at once;
 * mxe_engine_set_spin_ns() sets the time (the device's engine-spin-ns).
 */
#define MXE_POOL_SPIN_NS 50000

static inline void pool_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static uint64_t pool_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* With eng->lock held: an event (new job, task done, stop); wake whoever waits. */
static void pool_signal(struct mxe_engine *eng)
{
	__atomic_store_n(&eng->gen, eng->gen + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&eng->cond);
}

/* With eng->lock held: wait for the next event, spinning first; returns with it held. */
static void pool_wait(struct mxe_engine *eng)
{
	unsigned seen = eng->gen, park = __atomic_load_n(&eng->park, __ATOMIC_RELAXED);
	uint64_t t0;

	pthread_mutex_unlock(&eng->lock);
	__atomic_add_fetch(&eng->spinning, 1, __ATOMIC_RELAXED);
	t0 = pool_now_ns();
	while (__atomic_load_n(&eng->gen, __ATOMIC_ACQUIRE) == seen &&
	       __atomic_load_n(&eng->park, __ATOMIC_RELAXED) == park &&
	       pool_now_ns() - t0 < __atomic_load_n(&eng->spin_ns, __ATOMIC_RELAXED))
		pool_relax();
	__atomic_sub_fetch(&eng->spinning, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&eng->lock);
	if (eng->gen == seen) {	/* signals come with the lock held: none is lost */
		__atomic_add_fetch(&eng->sleeping, 1, __ATOMIC_RELAXED);
		pthread_cond_wait(&eng->cond, &eng->lock);
		__atomic_sub_fetch(&eng->sleeping, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Called with eng->lock held: how many of the phase's tasks from job->next the caller
 * takes (and job->next moves past): a quarter of those left per thread that may run
 * them, at least one. A GEMV of 4096 columns in 256 tasks on two threads: 38
 * takes, not 256, each of which bounced the mutex's line between the CPUs (its lock
 * and unlock were 7-9 % of a short GEMV's samples).
 */
static unsigned job_claim(struct mxe_pool_job *job)
{
	unsigned left = job->ntasks - job->next;
	unsigned n = left / (4 * (job->max_helpers + 1));

	n = n ? n : 1;
	job->next += n;
	return n;
}

/* Run tasks @task .. @task + @n - 1 of @phase (job_claim()'s run). */
static void job_run_tasks(struct mxe_pool_job *job, unsigned phase, unsigned task, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		job_run_task(job, phase, task + i);
}

/* Called with eng->lock held (or on a private job, @eng NULL): @n tasks just finished. */
static void job_task_done(struct mxe_pool_job *job, struct mxe_engine *eng, unsigned n)
{
	job->done += n;
	if (job->done < job->ntasks)
		return;
	do {
		job->phase++;
		job->ntasks = job->ops->phase_tasks(job->arg, job->phase);
		job->next = 0;
		job->done = 0;
	} while (0);
	if (job->ntasks == 0)
		job->finished = 1;
	if (eng)
		pool_signal(eng);
}

static void job_start(struct mxe_pool_job *job, const struct mxe_pool_job_ops *ops,
		      void *arg, unsigned max_helpers)
{
	memset(job, 0, sizeof(*job));
	job->ops = ops;
	job->arg = arg;
	job->max_helpers = max_helpers;
	job->cancel = thread_cancel;
	job->ntasks = ops->phase_tasks(arg, 0);
	job->finished = job->ntasks == 0;
}

static void *worker_main(void *p)
{
	struct mxe_engine *eng = p;

	pthread_mutex_lock(&eng->lock);
	while (!eng->stop) {
		struct mxe_pool_job *job;

		for (job = eng->jobs; job; job = job->next_job)
			if (!job->finished && job->helpers < job->max_helpers &&
			    job->next < job->ntasks)
				break;
		if (!job) {
			pool_wait(eng);
			continue;
		}
		unsigned phase = job->phase, task = job->next, n = job_claim(job);

		job->helpers++;
		pthread_mutex_unlock(&eng->lock);
		job_run_tasks(job, phase, task, n);
		pthread_mutex_lock(&eng->lock);
		job->helpers--;
		job_task_done(job, eng, n);
		if (!job->helpers)
			pool_signal(eng);	/* the owner may wait for us */
	}
	pthread_mutex_unlock(&eng->lock);
	return NULL;
}

void mxe_pool_run(struct mxe_engine *eng, unsigned nthreads,
		  const struct mxe_pool_job_ops *ops, void *arg)
{
	struct mxe_pool_job job;
	struct mxe_pool_job **pp;
	unsigned helpers = 0;

	if (eng && eng->nworkers) {
		helpers = nthreads ? nthreads - 1 : eng->nworkers;
		if (helpers > eng->nworkers)
			helpers = eng->nworkers;
	}
	job_start(&job, ops, arg, helpers);
	/* Phases of a single task (a small MMA) run here without waking anyone. */
	while (!job.finished && (!helpers || job.ntasks - job.next <= 1)) {
		unsigned phase = job.phase, task = job.next++;

		job_run_task(&job, phase, task);
		job_task_done(&job, NULL, 1);
	}
	if (job.finished)
		return;

	pthread_mutex_lock(&eng->lock);
	job.next_job = eng->jobs;
	eng->jobs = &job;
	pool_signal(eng);
	while (!job.finished) {
		if (job.next < job.ntasks) {
			unsigned phase = job.phase, task = job.next, n = job_claim(&job);

			pthread_mutex_unlock(&eng->lock);
			job_run_tasks(&job, phase, task, n);
			pthread_mutex_lock(&eng->lock);
			job_task_done(&job, eng, n);
		} else {
			pool_wait(eng);
		}
	}
	/* Workers may still be returning from our last task's bookkeeping. */
	while (job.helpers)
		pool_wait(eng);
	for (pp = &eng->jobs; *pp; pp = &(*pp)->next_job) {
		if (*pp == &job) {
			*pp = job.next_job;
			break;
		}
	}
	pthread_mutex_unlock(&eng->lock);
}

void mxe_engine_park(struct mxe_engine *eng)
{
	if (eng)
		__atomic_add_fetch(&eng->park, 1, __ATOMIC_RELAXED);
}

void mxe_engine_idle_threads(const struct mxe_engine *eng, unsigned *spinning,
			     unsigned *sleeping)
{
	*spinning = eng ? __atomic_load_n(&eng->spinning, __ATOMIC_RELAXED) : 0;
	*sleeping = eng ? __atomic_load_n(&eng->sleeping, __ATOMIC_RELAXED) : 0;
}

void mxe_engine_set_spin_ns(struct mxe_engine *eng, uint64_t ns)
{
	if (eng)	/* the workers may be waiting already */
		__atomic_store_n(&eng->spin_ns, ns, __ATOMIC_RELAXED);
}

struct mxe_engine *mxe_engine_create(unsigned nthreads)
{
	struct mxe_engine *eng;
	unsigned i;

	if (!nthreads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		nthreads = n > 0 ? (unsigned)n : 1;
	}
	if (nthreads > 256)
		nthreads = 256;
	eng = calloc(1, sizeof(*eng));
	if (!eng)
		return NULL;
	pthread_mutex_init(&eng->lock, NULL);
	pthread_cond_init(&eng->cond, NULL);
	eng->spin_ns = MXE_POOL_SPIN_NS;
	eng->workers = calloc(nthreads, sizeof(pthread_t));
	if (!eng->workers) {
		free(eng);
		return NULL;
	}
	for (i = 0; i + 1 < nthreads; i++) {
		if (pthread_create(&eng->workers[i], NULL, worker_main, eng))
			break;
		eng->nworkers++;
	}
	return eng;
}

void mxe_engine_destroy(struct mxe_engine *eng)
{
	unsigned i;

	if (!eng)
		return;
	pthread_mutex_lock(&eng->lock);
	eng->stop = 1;
	pool_signal(eng);
	pthread_mutex_unlock(&eng->lock);
	for (i = 0; i < eng->nworkers; i++)
		pthread_join(eng->workers[i], NULL);
	pthread_cond_destroy(&eng->cond);
	pthread_mutex_destroy(&eng->lock);
	free(eng->workers);
	free(eng);
}

unsigned mxe_engine_nthreads(const struct mxe_engine *eng)
{
	return eng ? eng->nworkers + 1 : 1;
}

/* ---- per-thread scratch --------------------------------------------------- */

#define SCRATCH_SLOTS 6
#define HUGE_BYTES	(2u << 20)

struct scratch {
	void *buf[SCRATCH_SLOTS];
	size_t size[SCRATCH_SLOTS];
	unsigned uses[SCRATCH_SLOTS];	/* calls of mxe_scratch() (mxe_scratch_uses()) */
};

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
	struct scratch *s = p;

	for (int i = 0; i < SCRATCH_SLOTS; i++)
		free(s->buf[i]);
	free(s);
}

static void scratch_key_init(void)
{
	pthread_key_create(&scratch_key, scratch_free);
}

void *mxe_scratch(unsigned slot, size_t bytes)
{
	struct scratch *s;

	if (slot >= SCRATCH_SLOTS)
		return NULL;
	pthread_once(&scratch_once, scratch_key_init);
	s = pthread_getspecific(scratch_key);
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		pthread_setspecific(scratch_key, s);
	}
	if (s->size[slot] < bytes) {
		void *nb = NULL;
		size_t sz = (bytes + 4095) & ~(size_t)4095;

		if (sz >= HUGE_BYTES) {
			/* whole huge pages: the first touch faults once per 2 MiB, not 512 times */
			sz = (sz + HUGE_BYTES - 1) & ~(size_t)(HUGE_BYTES - 1);
			if (posix_memalign(&nb, HUGE_BYTES, sz))
				return NULL;
#ifdef MADV_HUGEPAGE
			madvise(nb, sz, MADV_HUGEPAGE);
#endif
		} else if (!(nb = mxe_alloc64(sz, 0))) {
			return NULL;
		}
		free(s->buf[slot]);
		s->buf[slot] = nb;
		s->size[slot] = sz;
	}
	s->uses[slot]++;
	return s->buf[slot];
}

unsigned mxe_scratch_uses(unsigned slot)
{
	struct scratch *s;

	if (slot >= SCRATCH_SLOTS)
		return 0;
	pthread_once(&scratch_once, scratch_key_init);
	s = pthread_getspecific(scratch_key);
	return s ? s->uses[slot] : 0;
}

void mxe_scratch_trim(unsigned slot, size_t keep)
{
	struct scratch *s;

	if (slot >= SCRATCH_SLOTS)
		return;
	pthread_once(&scratch_once, scratch_key_init);
	s = pthread_getspecific(scratch_key);
	if (s && s->size[slot] > keep) {
		free(s->buf[slot]);
		s->buf[slot] = NULL;
		s->size[slot] = 0;
	}
}

void *mxe_alloc64(size_t bytes, int zero)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, bytes ? bytes : 64))
		return NULL;
	if (zero)
		memset(p, 0, bytes);
	return p;
}
