/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA jobs: submission to a user queue, a hardware fence per job, completion, WAIT.
 */
#ifndef MXA_JOB_H
#define MXA_JOB_H

#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/spinlock.h>

#include <drm/gpu_scheduler.h>

#include "drm/mxa_accel.h"

struct drm_device;
struct drm_file;
struct io_uring_cmd;
struct mxa_bo;
struct mxa_file;
struct mxa_completion;
struct mxa_queue;
struct mxa_uqueue;
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
 * @fence: the hardware fence (a struct mxa_hw_fence, reference): initialised when the
 *         job enters its hardware queue (mxa_queue_run_job(), mxa_queue_run_direct()),
 *         signalled when the device ends it.
 * @refcount: the job's references: its creator (handed on to the file's job table or
 *            to the io_uring command), the scheduler (until free_job; not for a
 *            direct job), and a ring slot or backlog entry while on the hardware queue.
 * @uq: the user queue (reference).
 * @queue: the hardware queue (@uq's).
 * @done: what userspace waits for (reference): the scheduler's finished fence, or
 *        @fence for a job that went straight to the ring.
 * @vm: the submitting file's VM (reference): the job runs in its context.
 * @bo: the program's BO (reference), so it stays mapped while the job runs.
 * @id: job id, unique per file; also the descriptor's job_id.
 * @prog_va: device VA of the program.
 * @prog_size: program size in bytes.
 * @grid_x: grid and cluster shape (drm_mxa_submit), copied into the descriptor.
 * @grid_y: see @grid_x.
 * @cluster_x: see @grid_x.
 * @cluster_y: see @grid_x.
 * @result: how the job ended; valid once @done is signalled (mxa_job_result()).
 * @ran: @fence is initialised (the job reached its hardware queue).
 * @direct: the job went straight to the ring (mxa_queue_run_direct()), not through
 *          the scheduler: @done is @fence, and its end counts it out of @uq's pending.
 * @sched_waiting: the job is counted in its hardware queue's sched_waiting.
 * @sched_init: @base is initialised: at creation for a job with sync operations (its
 *              input fences are @base's dependencies), else only when it cannot go
 *              straight to the ring (mxa_job_queue()).
 * @file: the submitting file, for @base's initialisation; valid until queued.
 * @ended: @result was filled by the hardware path (completion, abort, run failure).
 * @ucmd_lock: protects @ucmd.
 * @ucmd: the io_uring command waiting for this job, NULL when none or once its
 *        completion has been claimed (by the fence callback or a cancel).
 * @ucb: callback on @done that completes @ucmd.
 * @uarmed: @ucb is on @done's list (or ran): a cancel may claim @ucmd (under
 *          @ucmd_lock; mxa_uring.c).
 * @signals: output syncobjs, attached and released by mxa_job_attach_signals().
 * @num_signals: entries of @signals.
 * @backlog_node: entry of the hardware queue's backlog while waiting for the ring.
 * @free_node: entry of the deferred free list.
 * @base: the scheduler job; armed and pushed to @uq's entity at submission, or
 *        cleaned up unarmed when the job goes straight to the ring. Initialised only
 *        when needed (@sched_init), and zeroed then: the rest of the job is zeroed at
 *        creation, @base not (mxa_job_create()).
 */
struct mxa_job {
	struct dma_fence *fence;
	struct kref refcount;
	struct mxa_uqueue *uq;
	struct mxa_queue *queue;
	struct dma_fence *done;
	struct mxa_vm *vm;
	struct mxa_bo *bo;
	u64 id;
	u64 prog_va;
	u32 prog_size;
	u16 grid_x, grid_y;
	u8 cluster_x, cluster_y;
	struct drm_mxa_job_result result;
	bool ran;
	bool ended;
	bool direct;
	bool sched_waiting;
	bool sched_init;
	struct drm_file *file;

	spinlock_t ucmd_lock;	/* protects ucmd */
	struct io_uring_cmd *ucmd;
	struct dma_fence_cb ucb;
	bool uarmed;

	struct mxa_job_signal *signals;
	u32 num_signals;

	struct list_head backlog_node;
	struct llist_node free_node;

	/* Last: zeroed and set up only for a job that goes through the scheduler. */
	struct drm_sched_job base;
};

int mxa_job_cache_init(void);
void mxa_job_cache_fini(void);
int mxa_job_create(struct drm_file *file, const struct drm_mxa_submit *args, bool ioctl,
		   struct mxa_job **jobp);
int mxa_job_queue(struct mxa_job *job, bool may_wait, bool batch);
void mxa_job_destroy(struct mxa_job *job);
void mxa_job_sched_release(struct mxa_job *job);
const struct drm_mxa_job_result *mxa_job_result(struct mxa_job *job);

static inline struct mxa_job *mxa_job_get(struct mxa_job *job)
{
	kref_get(&job->refcount);
	return job;
}

void mxa_job_put(struct mxa_job *job);
void mxa_job_arm(struct mxa_queue *q, struct mxa_job *job);
void mxa_job_complete(struct mxa_queue *q, struct mxa_job *job,
		      const struct mxa_completion *comp);
void mxa_job_abort(struct mxa_job *job, int status, u32 error);

void mxa_job_file_close(struct mxa_file *mf);
void mxa_job_flush_free(void);

int mxa_fence_wait_ns(struct dma_fence *fence, s64 timeout_ns);

int mxa_ioctl_submit(struct drm_device *dev, void *data, struct drm_file *file);
int mxa_ioctl_wait(struct drm_device *dev, void *data, struct drm_file *file);

#endif /* MXA_JOB_H */
