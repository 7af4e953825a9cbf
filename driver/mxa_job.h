/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA jobs: submission to a hardware queue, a dma_fence per job, completion, WAIT.
 */
#ifndef MXA_JOB_H
#define MXA_JOB_H

#include <linux/dma-fence.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/spinlock.h>

#include "drm/mxa_accel.h"

struct drm_device;
struct drm_file;
struct io_uring_cmd;
struct mxa_bo;
struct mxa_file;
struct mxa_queue;
struct mxa_vm;
struct drm_syncobj;
struct dma_fence_chain;

/**
 * struct mxa_job_signal - an output syncobj of a job, until the job is queued.
 * @syncobj: the syncobj (reference).
 * @chain: timeline: the preallocated chain node for @point; NULL for binary.
 * @point: timeline point.
 */
struct mxa_job_signal {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point;
};

/**
 * struct mxa_job - one program run on a hardware queue.
 * @fence: signalled when the job ends; its refcount is the job's. Initialised when the
 *         job is pushed to its ring (mxa_job_push()); before that the job is freed with
 *         mxa_job_destroy().
 * @queue: the hardware queue.
 * @vm: the submitting file's VM (reference): the job runs in its context.
 * @bo: the program's BO (reference), so it stays mapped while the job runs.
 * @id: job id, unique per file; also the descriptor's job_id.
 * @prog_va: device VA of the program.
 * @prog_size: program size in bytes.
 * @result: how the job ended; valid once @fence is signalled.
 * @ucmd_lock: protects @ucmd.
 * @ucmd: the io_uring command waiting for this job, NULL when none or once its
 *        completion has been claimed (by the fence callback or a cancel).
 * @ucb: fence callback that completes @ucmd.
 * @deps: input fences (references, dropped when the job is freed), @num_deps of them.
 * @dep_next: index of the first input fence not yet seen signalled (under the queue lock).
 * @dep_cb: callback on @deps[@dep_next] while @dep_armed.
 * @dep_armed: @dep_cb is installed (under the queue lock).
 * @signals: output syncobjs, attached and released by mxa_job_attach_signals().
 * @num_signals: entries of @signals.
 * @backlog_node: entry of the queue's backlog while waiting for a ring slot.
 * @free_node: entry of the deferred free list.
 */
struct mxa_job {
	struct dma_fence fence;
	struct mxa_queue *queue;
	struct mxa_vm *vm;
	struct mxa_bo *bo;
	u64 id;
	u64 prog_va;
	u32 prog_size;
	struct drm_mxa_job_result result;

	spinlock_t ucmd_lock;	/* protects ucmd */
	struct io_uring_cmd *ucmd;
	struct dma_fence_cb ucb;

	struct dma_fence **deps;
	u32 num_deps;
	u32 dep_next;
	struct dma_fence_cb dep_cb;
	bool dep_armed;
	struct mxa_job_signal *signals;
	u32 num_signals;

	struct list_head backlog_node;
	struct llist_node free_node;
};

int mxa_job_create(struct drm_file *file, const struct drm_mxa_submit *args, gfp_t gfp,
		   struct mxa_job **jobp);
int mxa_job_push(struct mxa_job *job, bool may_wait, bool defer_doorbell);
void mxa_job_destroy(struct mxa_job *job);
void mxa_job_attach_signals(struct mxa_job *job);

static inline struct mxa_job *mxa_job_get(struct mxa_job *job)
{
	dma_fence_get(&job->fence);
	return job;
}

static inline void mxa_job_put(struct mxa_job *job)
{
	dma_fence_put(&job->fence);
}

void mxa_job_queue_init(struct mxa_queue *q);
void mxa_job_queue_complete(struct mxa_queue *q);
void mxa_job_queue_halt(struct mxa_queue *q, bool for_good);
void mxa_job_queue_abort(struct mxa_queue *q, int status, u32 error, bool backlog);
void mxa_job_queue_requeue(struct mxa_queue *q, int status, u32 error);
void mxa_job_queue_resume(struct mxa_queue *q);
void mxa_job_file_close(struct mxa_file *mf);
void mxa_job_flush_free(void);

int mxa_fence_wait_ns(struct dma_fence *fence, s64 timeout_ns);

int mxa_ioctl_submit(struct drm_device *dev, void *data, struct drm_file *file);
int mxa_ioctl_wait(struct drm_device *dev, void *data, struct drm_file *file);

#endif /* MXA_JOB_H */
