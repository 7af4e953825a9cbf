/* SPDX-License-Identifier: MIT */
/*
 * mxa_pool.h - the engine context: worker threads running phased jobs, and
 * per-thread scratch memory.
 */
#ifndef MXA_POOL_H
#define MXA_POOL_H

#include <stddef.h>

struct mxa_engine;

/**
 * struct mxa_job_ops - a job is a sequence of phases; each phase is a set of
 * independent tasks, and phase p+1 starts only when every task of phase p
 * has finished (a barrier). Tasks of one phase may run in any order on any
 * thread, so a task must compute the same bits wherever it runs.
 * @phase_tasks: number of tasks of phase @phase, 0 ends the job. Called
 *	under the pool lock, keep it trivial.
 * @task: run task @task of phase @phase.
 */
struct mxa_job_ops {
	unsigned (*phase_tasks)(void *arg, unsigned phase);
	void (*task)(void *arg, unsigned phase, unsigned task);
};

/**
 * mxa_pool_run() - run a job on the calling thread plus at most
 * @nthreads - 1 of @eng's workers (@eng may be NULL: caller only).
 * Returns when the job is complete.
 */
void mxa_pool_run(struct mxa_engine *eng, unsigned nthreads,
		  const struct mxa_job_ops *ops, void *arg);

/**
 * mxa_scratch() - thread-local scratch buffer @slot (0..5) of at least
 * @bytes bytes, 64-byte aligned; valid until the next call with the same
 * slot on this thread. Returns NULL when out of memory.
 */
void *mxa_scratch(unsigned slot, size_t bytes);

/** mxa_scratch_trim() - free slot @slot of this thread if above @keep bytes. */
void mxa_scratch_trim(unsigned slot, size_t keep);

#endif /* MXA_POOL_H */
