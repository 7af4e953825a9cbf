// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA commit and wait groups.
 *
 * DOC: Commit and wait groups
 *
 * The device's COMMIT_GROUP/WAIT_GROUP commands (PTX cp.async.commit_group and
 * wait_group) lifted to jobs: per user queue (mxa_uqueue.c), COMMIT_GROUP closes every
 * job pushed to the queue since its previous commit into a group with the next id of
 * a per-queue timeline (1, 2, ...); WAIT_GROUP n returns once at most n of the
 * committed groups are pending.
 *
 * A user queue's jobs reach their hardware queue in order, and a hardware queue's
 * jobs complete in ring order (harvest, abort and the reset path all walk the ring,
 * then the backlog, in seqno order), so the queue's finished fences signal in order
 * too. So a group has
 * completed exactly when the newest job pushed before its commit has, and a group is
 * represented by that job's fence alone (no fence at all for a group committed before
 * any job, or whose last job had already ended). "At most n pending" is "group
 * committed - n has completed", and because groups also complete in order, that is the
 * fence of the newest listed group whose id is <= committed - n.
 *
 * Everything here runs under a spinlock and allocates with the caller's gfp, so the
 * io_uring issue path (which must not sleep) uses the same code as the ioctls.
 */
#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/nospec.h>
#include <linux/slab.h>

#include "drm/mxa_accel.h"
#include "mxa_args.h"
#include "mxa_drv.h"
#include "mxa_group.h"
#include "mxa_job.h"
#include "mxa_uqueue.h"

/**
 * struct mxa_group - a committed group that may still be pending.
 * @node: entry of mxa_group_queue.pending.
 * @id: group id.
 * @fence: fence of the group's newest job (reference).
 */
struct mxa_group {
	struct list_head node;
	u64 id;
	struct dma_fence *fence;
};

static void mxa_group_free(struct mxa_group_queue *gq, struct mxa_group *g)
{
	atomic_dec(gq->live);
	dma_fence_put(g->fence);
	kfree(g);
}

/* Drop completed groups from the head of the list. */
static void mxa_group_prune(struct mxa_group_queue *gq)
{
	struct mxa_group *g, *next;

	lockdep_assert_held(&gq->lock);
	list_for_each_entry_safe(g, next, &gq->pending, node) {
		if (!dma_fence_is_signaled(g->fence))
			break;
		list_del(&g->node);
		mxa_group_free(gq, g);
	}
}

/**
 * mxa_group_init() - set up the group state of a new user queue.
 * @gq: the state.
 * @live: the device's counter of listed groups.
 */
void mxa_group_init(struct mxa_group_queue *gq, atomic_t *live)
{
	spin_lock_init(&gq->lock);
	INIT_LIST_HEAD(&gq->pending);
	gq->live = live;
}

/**
 * mxa_group_fini() - drop the group state of a user queue being freed.
 * @gq: the state; nothing uses the queue any more.
 */
void mxa_group_fini(struct mxa_group_queue *gq)
{
	struct mxa_group *g, *next;

	list_for_each_entry_safe(g, next, &gq->pending, node) {
		list_del(&g->node);
		mxa_group_free(gq, g);
	}
	dma_fence_put(gq->last);
	gq->last = NULL;
}

/**
 * mxa_group_job_pushed() - note a job pushed to a user queue (it joins the next group
 * committed there).
 * @gq: the queue's group state.
 * @fence: the job's fence (@mxa_job.done).
 */
void mxa_group_job_pushed(struct mxa_group_queue *gq, struct dma_fence *fence)
{
	unsigned long flags;

	spin_lock_irqsave(&gq->lock, flags);
	/*
	 * Called in submission order (under the user queue's submit lock), with fences of
	 * two contexts (the scheduler's finished fences, direct jobs' hardware fences), so
	 * the newest is the one pushed last.
	 */
	dma_fence_put(gq->last);
	gq->last = dma_fence_get(fence);
	spin_unlock_irqrestore(&gq->lock, flags);
}

/**
 * mxa_group_commit() - close the uncommitted jobs of a user queue into a group.
 * @gq: the queue's group state.
 * @gfp: allocation flags (GFP_NOWAIT on the io_uring issue path).
 * @group_id: out: the new group's id.
 *
 * Return: 0 or -ENOMEM.
 */
int mxa_group_commit(struct mxa_group_queue *gq, gfp_t gfp, u64 *group_id)
{
	struct mxa_group *g = kmalloc(sizeof(*g), gfp | __GFP_ACCOUNT), *tail;
	unsigned long flags;

	if (!g)
		return -ENOMEM;
	spin_lock_irqsave(&gq->lock, flags);
	mxa_group_prune(gq);
	g->id = ++gq->committed;
	*group_id = g->id;
	tail = list_empty(&gq->pending) ? NULL :
	       list_last_entry(&gq->pending, struct mxa_group, node);
	/*
	 * A group needs an entry only if it has a job that is still pending and is not
	 * the newest listed group's job: otherwise it completes with that group (or has),
	 * and mxa_group_wait_target() finds that group's fence for it.
	 */
	if (gq->last && !dma_fence_is_signaled(gq->last) && (!tail || tail->fence != gq->last)) {
		g->fence = dma_fence_get(gq->last);
		list_add_tail(&g->node, &gq->pending);
		atomic_inc(gq->live);
		g = NULL;
	}
	spin_unlock_irqrestore(&gq->lock, flags);
	kfree(g);
	return 0;
}

/**
 * mxa_group_wait_target() - what WAIT_GROUP @n has to wait for.
 * @gq: the user queue's group state.
 * @n: groups that may stay pending.
 * @group_id: out: the group that must complete (committed - n), 0 if none.
 *
 * Return: a reference to the fence to wait for, or NULL when at most @n groups are
 * pending already.
 */
struct dma_fence *mxa_group_wait_target(struct mxa_group_queue *gq, u32 n, u64 *group_id)
{
	struct dma_fence *fence = NULL;
	struct mxa_group *g;
	unsigned long flags;
	u64 target;

	spin_lock_irqsave(&gq->lock, flags);
	mxa_group_prune(gq);
	target = gq->committed > n ? gq->committed - n : 0;
	*group_id = target;
	list_for_each_entry(g, &gq->pending, node) {
		if (g->id > target)
			break;
		fence = g->fence;
	}
	if (fence)
		dma_fence_get(fence);
	spin_unlock_irqrestore(&gq->lock, flags);
	return fence;
}

int mxa_ioctl_commit_group(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_mxa_commit_group *args = data;
	struct mxa_uqueue *uq;
	int ret;

	ret = mxa_args_commit_group(args);
	if (ret)
		return ret;
	uq = mxa_uqueue_get(to_mxa_file(file), args->queue);
	if (IS_ERR(uq))
		return PTR_ERR(uq);
	ret = mxa_group_commit(&uq->groups, GFP_KERNEL, &args->group_id);
	mxa_uqueue_put(uq);
	return ret;
}

int mxa_ioctl_wait_group(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_mxa_wait_group *args = data;
	struct dma_fence *fence;
	struct mxa_uqueue *uq;
	int ret;

	ret = mxa_args_wait_group(args);
	if (ret)
		return ret;
	uq = mxa_uqueue_get(to_mxa_file(file), args->queue);
	if (IS_ERR(uq))
		return PTR_ERR(uq);
	fence = mxa_group_wait_target(&uq->groups, args->n, &args->group_id);
	mxa_uqueue_put(uq);
	if (!fence)
		return 0;
	ret = mxa_fence_wait_ns(fence, args->timeout_ns);
	dma_fence_put(fence);
	return ret;
}
