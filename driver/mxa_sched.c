// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA scheduling.
 *
 * DOC: Scheduling user queues onto hardware queues
 *
 * Every hardware queue has a drm_gpu_scheduler; every user queue (mxa_uqueue.c) is a
 * drm_sched_entity of the scheduler of its hardware queue, at its priority. A job is
 * armed and pushed to its entity at submission; drm_sched waits for its input fences,
 * picks among the entities with a ready job (higher priority first, then the oldest
 * job), and calls run_job, which gives the job its hardware fence and puts it on the
 * ring (mxa_queue_run_job()). The job's scheduler "finished" fence is what userspace sees
 * (syncobjs, WAIT, io_uring completions, groups); it signals, with the job's error,
 * when the hardware fence does.
 *
 * Each job costs one credit and a scheduler has as many credits as its ring has slots
 * beyond the MXA_RING_DIRECT_MAX that jobs put straight on the ring may hold
 * (mxa_queue_run_direct()), so run_job never finds the ring full; jobs wait in their
 * entities instead, where priorities apply. drm_sched's own timeout is not used: the queue watchdog
 * (mxa_queue.c) extends a job's time while the queue makes progress and resets only
 * the hung queue, below the scheduler, which sees the aborted jobs' fences signal
 * with their errors.
 *
 * The schedulers live as long as the DRM device (drm_sched_fini() at its release):
 * user queues of files still open after a hot-unplug keep their entities, and their
 * jobs end with -ECANCELED from run_job.
 */
#include <drm/drm_file.h>
#include <drm/drm_managed.h>
#include <drm/gpu_scheduler.h>

#include "mxa_drv.h"
#include "mxa_job.h"
#include "mxa_queue.h"
#include "mxa_sched.h"

static struct dma_fence *mxa_sched_run_job(struct drm_sched_job *sched_job)
{
	return mxa_queue_run_job(container_of(sched_job, struct mxa_job, base));
}

static void mxa_sched_free_job(struct drm_sched_job *sched_job)
{
	struct mxa_job *job = container_of(sched_job, struct mxa_job, base);

	drm_sched_job_cleanup(sched_job);
	mxa_job_sched_release(job);
}

/* Not armed (timeout MAX_SCHEDULE_TIMEOUT): the queue watchdog handles hangs. */
static enum drm_gpu_sched_stat mxa_sched_timedout_job(struct drm_sched_job *sched_job)
{
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static const struct drm_sched_backend_ops mxa_sched_ops = {
	.run_job = mxa_sched_run_job,
	.free_job = mxa_sched_free_job,
	.timedout_job = mxa_sched_timedout_job,
};

static void mxa_sched_fini(struct drm_device *drm, void *arg)
{
	struct mxa_device *mdev = arg;
	u32 i;

	for (i = 0; i < mdev->num_queues; i++)
		if (mdev->queues[i].sched_ready)
			drm_sched_fini(&mdev->queues[i].sched);
	if (mdev->sched_wq)
		destroy_workqueue(mdev->sched_wq);
}

/**
 * mxa_sched_init() - create the scheduler of every hardware queue.
 * @mdev: the device, its queues initialised.
 *
 * Return: 0 or a negative errno; the schedulers are torn down with the DRM device.
 */
int mxa_sched_init(struct mxa_device *mdev)
{
	u32 i;
	int ret;

	ret = drmm_add_action(&mdev->drm, mxa_sched_fini, mdev);
	if (ret)
		return ret;
	/*
	 * One per-CPU high-priority workqueue for the device's schedulers instead of an
	 * ordered one each: run_job runs on the submitter's CPU and free_job on the
	 * interrupt's, with no cross-CPU wake-up (Documentation/performance.rst,
	 * "Submission": +20-30 % jobs/s at batch 1 on the quiet host). drm_sched takes a
	 * non-ordered queue (a work item never runs on two CPUs at once).
	 */
	mdev->sched_wq = alloc_workqueue("mxa-sched-%s", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0,
					 dev_name(mdev->drm.dev));
	if (!mdev->sched_wq)
		return -ENOMEM;
	for (i = 0; i < mdev->num_queues; i++) {
		struct mxa_queue *q = &mdev->queues[i];
#ifdef MXA_HAVE_SCHED_INIT_ARGS
		const struct drm_sched_init_args args = {
			.ops = &mxa_sched_ops,
			.submit_wq = mdev->sched_wq,
			.num_rqs = DRM_SCHED_PRIORITY_COUNT,
			.credit_limit = q->size - 1 - MXA_RING_DIRECT_MAX,
			.timeout = MAX_SCHEDULE_TIMEOUT,
			.name = q->name,
			.dev = mdev->drm.dev,
		};

		ret = drm_sched_init(&q->sched, &args);
#else
		ret = drm_sched_init(&q->sched, &mxa_sched_ops, mdev->sched_wq,
				     DRM_SCHED_PRIORITY_COUNT,
				     q->size - 1 - MXA_RING_DIRECT_MAX, 0, MAX_SCHEDULE_TIMEOUT,
				     NULL, NULL, q->name, mdev->drm.dev);
#endif
		if (ret) {
			mxa_err(mdev, "queue %u: cannot create its scheduler: %d\n", i, ret);
			return ret;
		}
		q->sched_ready = true;
	}
	return 0;
}

/**
 * mxa_sched_job_init() - drm_sched_job_init() for a job of @file on @entity.
 * @job: the scheduler part of the job.
 * @entity: the user queue's entity.
 * @file: the submitting file (fdinfo client id where the API has it).
 *
 * Return: 0 or a negative errno.
 */
int mxa_sched_job_init(struct drm_sched_job *job, struct drm_sched_entity *entity,
		       struct drm_file *file)
{
#ifdef MXA_HAVE_SCHED_JOB_CLIENT_ID
	return drm_sched_job_init(job, entity, 1, file, file->client_id);
#else
	return drm_sched_job_init(job, entity, 1, file);
#endif
}
