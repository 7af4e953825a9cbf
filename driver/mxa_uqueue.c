// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA user queues.
 *
 * DOC: User queues
 *
 * A user queue belongs to one open file and runs its jobs, in submission order, on one
 * hardware queue. It is a drm_sched entity of that hardware queue's scheduler
 * (mxa_sched.c) at one of three priorities, so the jobs of every file's queues share a
 * hardware queue by priority and age, and a job waiting for an input fence holds back
 * only its own queue.
 *
 * Ids: 0 .. num_queues - 1 are the file's default queues, one per hardware queue at
 * normal priority, made on first use (so the uAPI 0.1-0.3 meaning of "queue" as a
 * hardware queue index still holds); DRM_IOCTL_MXA_QUEUE_CREATE hands out ids from
 * DRM_MXA_USER_QUEUE_ID_BASE up, never reused within the file.
 *
 * Lifetime: the file's table holds a reference, and so does every job of the queue.
 * Destroying a queue (ioctl or file close) marks it dead under its submit lock, so no
 * job is pushed after that, then destroys the entity, which waits until the queue's
 * jobs have been handed to the hardware (drm_sched_entity_destroy()); they run to
 * their end and release the structure last.
 */
#include <linux/capability.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "drm/mxa_accel.h"
#include "mxa_args.h"
#include "mxa_drv.h"
#include "mxa_uqueue.h"

static const enum drm_sched_priority mxa_uqueue_sched_prio[] = {
	[DRM_MXA_QUEUE_PRIORITY_LOW] = DRM_SCHED_PRIORITY_LOW,
	[DRM_MXA_QUEUE_PRIORITY_NORMAL] = DRM_SCHED_PRIORITY_NORMAL,
	[DRM_MXA_QUEUE_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
};

static void mxa_uqueue_release(struct kref *kref)
{
	struct mxa_uqueue *uq = container_of(kref, struct mxa_uqueue, refcount);

	mxa_group_fini(&uq->groups);
	mutex_destroy(&uq->submit_lock);
	kfree(uq);
}

/**
 * mxa_uqueue_put() - drop a reference to a user queue.
 * @uq: the queue, or NULL.
 */
void mxa_uqueue_put(struct mxa_uqueue *uq)
{
	if (uq)
		kref_put(&uq->refcount, mxa_uqueue_release);
}

static struct mxa_uqueue *mxa_uqueue_new(struct mxa_file *mf, u32 hw, u32 priority, u32 id)
{
	struct drm_gpu_scheduler *sched = &mf->mdev->queues[hw].sched;
	struct mxa_uqueue *uq;
	int ret;

	uq = kzalloc(sizeof(*uq), GFP_KERNEL_ACCOUNT);
	if (!uq)
		return ERR_PTR(-ENOMEM);
	kref_init(&uq->refcount);
	uq->hw = &mf->mdev->queues[hw];
	uq->id = id;
	uq->priority = priority;
	mutex_init(&uq->submit_lock);
	atomic_set(&uq->pending, 0);
	init_waitqueue_head(&uq->space_wq);
	mxa_group_init(&uq->groups, &mf->mdev->live_groups);
	ret = drm_sched_entity_init(&uq->entity, mxa_uqueue_sched_prio[priority], &sched, 1,
				    NULL);
	if (ret) {
		mutex_destroy(&uq->submit_lock);
		kfree(uq);
		return ERR_PTR(ret);
	}
	return uq;
}

/* Take a queue out of use (it is out of the file's table already). */
static void mxa_uqueue_destroy(struct mxa_uqueue *uq)
{
	mutex_lock(&uq->submit_lock);
	uq->dead = true;
	mutex_unlock(&uq->submit_lock);
	wake_up_all(&uq->space_wq);
	drm_sched_entity_destroy(&uq->entity);
	mxa_uqueue_put(uq);
}

/**
 * mxa_uqueue_file_init() - set up the user queue table of a new file.
 * @mf: the file.
 */
void mxa_uqueue_file_init(struct mxa_file *mf)
{
	mutex_init(&mf->uq_lock);
	xa_init(&mf->uqueues);
	mf->uq_next_id = DRM_MXA_USER_QUEUE_ID_BASE;
}

/**
 * mxa_uqueue_file_fini() - destroy every queue of a closing file.
 * @mf: the file; no ioctl or io_uring issue of it runs any more.
 */
void mxa_uqueue_file_fini(struct mxa_file *mf)
{
	struct mxa_uqueue *uq;
	unsigned long id;

	xa_for_each(&mf->uqueues, id, uq) {
		xa_erase(&mf->uqueues, id);
		mxa_uqueue_destroy(uq);
	}
	xa_destroy(&mf->uqueues);
	mutex_destroy(&mf->uq_lock);
}

/**
 * mxa_uqueue_get() - look up a user queue by id, making a default queue on first use.
 * @mf: the file.
 * @id: the id from userspace.
 *
 * Return: a reference to the queue; ERR_PTR(-EINVAL) for an unknown id, or
 * ERR_PTR(-ENOMEM).
 */
struct mxa_uqueue *mxa_uqueue_get(struct mxa_file *mf, u32 id)
{
	u32 num_queues = mf->mdev->num_queues;
	struct mxa_uqueue *uq;
	int ret;

	xa_lock(&mf->uqueues);
	uq = xa_load(&mf->uqueues, id);
	if (uq)
		kref_get(&uq->refcount);
	xa_unlock(&mf->uqueues);
	if (uq)
		return uq;
	if (id >= num_queues)
		return ERR_PTR(-EINVAL);

	mutex_lock(&mf->uq_lock);
	uq = xa_load(&mf->uqueues, id);
	if (!uq) {
		id = array_index_nospec(id, num_queues);
		uq = mxa_uqueue_new(mf, id, DRM_MXA_QUEUE_PRIORITY_NORMAL, id);
		if (IS_ERR(uq))
			goto out;
		ret = xa_insert(&mf->uqueues, id, uq, GFP_KERNEL);
		if (ret) {
			mxa_uqueue_destroy(uq);
			uq = ERR_PTR(ret);
			goto out;
		}
	}
	kref_get(&uq->refcount);
out:
	mutex_unlock(&mf->uq_lock);
	return uq;
}

int mxa_ioctl_queue_create(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct mxa_file *mf = to_mxa_file(file);
	struct drm_mxa_queue_create *args = data;
	struct mxa_uqueue *uq;
	int ret;

	ret = mxa_args_queue_create(args, mf->mdev->num_queues);
	if (ret)
		return ret;
	if (args->priority == DRM_MXA_QUEUE_PRIORITY_HIGH && !capable(CAP_SYS_NICE))
		return -EACCES;

	mutex_lock(&mf->uq_lock);
	if (mf->uq_created >= DRM_MXA_MAX_USER_QUEUES || mf->uq_next_id == U32_MAX) {
		ret = -ENOSPC;
		goto out;
	}
	uq = mxa_uqueue_new(mf, array_index_nospec(args->hw_queue, mf->mdev->num_queues),
			    array_index_nospec(args->priority, DRM_MXA_QUEUE_PRIORITY_HIGH + 1),
			    mf->uq_next_id);
	if (IS_ERR(uq)) {
		ret = PTR_ERR(uq);
		goto out;
	}
	ret = xa_insert(&mf->uqueues, uq->id, uq, GFP_KERNEL);
	if (ret) {
		mxa_uqueue_destroy(uq);
		goto out;
	}
	mf->uq_next_id++;
	mf->uq_created++;
	args->queue_id = uq->id;
out:
	mutex_unlock(&mf->uq_lock);
	return ret;
}

int mxa_ioctl_queue_destroy(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct mxa_file *mf = to_mxa_file(file);
	struct drm_mxa_queue_destroy *args = data;
	struct mxa_uqueue *uq;
	int ret;

	ret = mxa_args_queue_destroy(args);
	if (ret)
		return ret;
	mutex_lock(&mf->uq_lock);
	uq = xa_erase(&mf->uqueues, args->queue_id);
	if (uq)
		mf->uq_created--;
	mutex_unlock(&mf->uq_lock);
	if (!uq)
		return -EINVAL;
	mxa_uqueue_destroy(uq);
	return 0;
}
