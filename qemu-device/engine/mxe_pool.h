/* SPDX-License-Identifier: MIT */
/*
 * mxe_pool.h - the engine context: worker threads running phased jobs, and
 * per-thread scratch memory.
 */
#ifndef MXE_POOL_H
#define MXE_POOL_H

#include <stddef.h>

struct mxe_engine;

/**
 * struct mxe_pool_job_ops - a job is a sequence of phases; each phase is a set of
 * independent tasks, and phase p+1 starts only when every task of phase p
 * has finished (a barrier). Tasks of one phase may run in any order on any
 * thread, so a task must compute the same bits wherever it runs.
 * @phase_tasks: number of tasks of phase @phase, 0 ends the job. Called
 *	under the pool lock, keep it trivial.
 * @task: run task @task of phase @phase.
 */
struct mxe_pool_job_ops {
	unsigned (*phase_tasks)(void *arg, unsigned phase);
	void (*task)(void *arg, unsigned phase, unsigned task);
};

/**
 * mxe_pool_run() - run a job on the calling thread plus at most
 * @nthreads - 1 of @eng's workers (@eng may be NULL: caller only).
 * Returns when the job is complete.
 */
void mxe_pool_run(struct mxe_engine *eng, unsigned nthreads,
		  const struct mxe_pool_job_ops *ops, void *arg);

/**
 * mxe_scratch() - thread-local scratch buffer @slot (0..5) of at least
 * @bytes bytes, 64-byte aligned; valid until the next call with the same
 * slot on this thread. Returns NULL when out of memory.
 */
void *mxe_scratch(unsigned slot, size_t bytes);

/**
 * mxe_scratch_uses() - how many times this thread has called mxe_scratch(@slot): what
 * a task keeps in a slot for its next task survives only while this stays the same
 * (a worker may run other jobs' tasks in between, and they use the slots too).
 */
unsigned mxe_scratch_uses(unsigned slot);

/** mxe_scratch_trim() - free slot @slot of this thread if above @keep bytes. */
void mxe_scratch_trim(unsigned slot, size_t keep);

/**
 * mxe_alloc64() - @bytes of heap memory (zeroed when @zero) starting on a cache line,
 * for free(); NULL when out of memory. For buffers whose rows the kernels load as
 * vectors: malloc() hands large blocks out 16 bytes into an mmap()ed page, where half
 * of the 32-byte loads a Zen 4 makes of a 64-byte vector straddle two lines.
 */
void *mxe_alloc64(size_t bytes, int zero);

#endif /* MXE_POOL_H */
