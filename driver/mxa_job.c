// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA jobs.
 *
 * DOC: Jobs, fences and completion
 *
 * A job is a program (a range of a BO) run in the submitting file's context on one
 * hardware queue. Jobs go straight to the queue's ring (mxa_job_push()). When the
 * ring is full an ioctl submitter sleeps until slots free up; an io_uring submitter,
 * which must not sleep, puts the job in the queue's backlog instead, and the
 * completion path moves backlogged jobs into the ring as slots free up.
 *
 * Each job embeds a dma_fence, whose refcount is the job's. Fences of a queue share
 * one fence context and their seqnos are assigned under the queue lock in ring order,
 * which is also completion order. References are held by:
 *  - the ring slot or the backlog, from push until the job completes (dropped in the
 *    IRQ handler);
 *  - the file's job table (@mxa_file.jobs) for ioctl jobs, until a WAIT returns 0 or
 *    the file closes;
 *  - the io_uring command for uring jobs, until its CQE is posted or it is cancelled.
 *
 * Input fences (drm_mxa_submit.syncs WAIT operations) hold a job back in the backlog:
 * it is armed (gets its seqno) at push like any job, but the refill stops at a backlog
 * head whose input fences have not all signalled, keeping ring order = seqno order. A
 * callback on the first unsignalled input fence queues the queue's deps_work (a fence
 * callback may run under another queue's, or this queue's, lock), which refills the
 * ring. A job pushed while the backlog is not empty joins it (an ioctl submitter too,
 * rather than sleeping until the head's fences signal). Output syncobjs get the job's
 * fence right after the push. Aborted jobs (reset, removal) remove their callback
 * before they are released.
 *
 * Completion runs in the queue's hard interrupt handler: read MXA_QREG_COMPLETED, and
 * for every job up to it, in ring order, turn its completion record into a
 * struct drm_mxa_job_result and signal the fence. Because the last reference may be
 * dropped there, freeing a job (which drops BO and VM references and may sleep) is
 * deferred to a work item.
 */
#include <linux/blkdev.h>
#include <linux/dma-fence-chain.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>

#include "mxa_isa.h"
#include "mxa_drv.h"
#include "mxa_gem.h"
#include "mxa_group.h"
#include "mxa_reset.h"
#include "mxa_trace.h"
#include "mxa_job.h"
#include "mxa_vm.h"

static LLIST_HEAD(mxa_job_free_list);

static void mxa_job_free_signals(struct mxa_job *job)
{
	u32 i;

	for (i = 0; i < job->num_signals; i++) {
		kfree(job->signals[i].chain);
		drm_syncobj_put(job->signals[i].syncobj);
	}
	kfree(job->signals);
	job->signals = NULL;
	job->num_signals = 0;
}

static void mxa_job_release_refs(struct mxa_job *job)
{
	u32 i;

	for (i = 0; i < job->num_deps; i++)
		dma_fence_put(job->deps[i]);
	kfree(job->deps);
	mxa_job_free_signals(job);
	/* The VM reference (dropped last) keeps the device alive up to here. */
	atomic_dec(&job->vm->mdev->live_jobs);
	if (job->bo)
		drm_gem_object_put(&job->bo->base.base);
	mxa_vm_put(job->vm);
}

static void mxa_job_free_work_fn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&mxa_job_free_list);
	struct mxa_job *job, *next;

	llist_for_each_entry_safe(job, next, list, free_node) {
		mxa_job_release_refs(job);
		/* RCU-deferred: fences may be looked at under rcu_read_lock(). */
		dma_fence_free(&job->fence);
	}
}

static DECLARE_WORK(mxa_job_free_work, mxa_job_free_work_fn);

/**
 * mxa_job_flush_free() - wait until every released job is freed (module exit).
 */
void mxa_job_flush_free(void)
{
	flush_work(&mxa_job_free_work);
}

static struct mxa_job *to_mxa_job(struct dma_fence *fence)
{
	return container_of(fence, struct mxa_job, fence);
}

static const char *mxa_fence_get_driver_name(struct dma_fence *fence)
{
	return MXA_DRIVER_NAME;
}

static const char *mxa_fence_get_timeline_name(struct dma_fence *fence)
{
	return to_mxa_job(fence)->queue->name;
}

/* The last reference may go in any context: free from process context. */
static void mxa_fence_release(struct dma_fence *fence)
{
	struct mxa_job *job = to_mxa_job(fence);

	if (llist_add(&job->free_node, &mxa_job_free_list))
		schedule_work(&mxa_job_free_work);
}

static const struct dma_fence_ops mxa_fence_ops = {
	.get_driver_name = mxa_fence_get_driver_name,
	.get_timeline_name = mxa_fence_get_timeline_name,
	.release = mxa_fence_release,
};

/*
 * Look up the syncobjs of drm_mxa_submit.syncs: input fences into job->deps, output
 * syncobjs (with a chain node for timeline points) into job->signals.
 */
static int mxa_job_parse_syncs(struct mxa_job *job, struct drm_file *file,
			       const struct drm_mxa_obj_array *syncs, gfp_t gfp)
{
	const u8 __user *ptr = u64_to_user_ptr(syncs->array);
	struct drm_mxa_sync_op op;
	u32 i;
	int ret;

	if (syncs->count > DRM_MXA_MAX_SYNCS || syncs->stride < sizeof(op))
		return -EINVAL;
	job->deps = kcalloc(syncs->count, sizeof(*job->deps), gfp);
	job->signals = kcalloc(syncs->count, sizeof(*job->signals), gfp);
	if (!job->deps || !job->signals)
		return -ENOMEM;

	for (i = 0; i < syncs->count; i++, ptr += syncs->stride) {
		bool timeline;

		ret = copy_struct_from_user(&op, sizeof(op), ptr, syncs->stride);
		if (ret)
			return ret;
		if (op.flags & ~(DRM_MXA_SYNC_OP_SIGNAL | DRM_MXA_SYNC_OP_TIMELINE))
			return -EINVAL;
		timeline = op.flags & DRM_MXA_SYNC_OP_TIMELINE;
		if (timeline != !!op.timeline_value)
			return -EINVAL;

		if (!(op.flags & DRM_MXA_SYNC_OP_SIGNAL)) {
			struct dma_fence *fence;

			ret = drm_syncobj_find_fence(file, op.handle, op.timeline_value, 0,
						     &fence);
			if (ret)
				return ret;
			if (!fence)	/* a timeline point not there yet */
				return -EINVAL;
			job->deps[job->num_deps++] = fence;
		} else {
			struct mxa_job_signal *s = &job->signals[job->num_signals];

			s->syncobj = drm_syncobj_find(file, op.handle);
			if (!s->syncobj)
				return -ENOENT;
			job->num_signals++;
			s->point = op.timeline_value;
			if (timeline) {
				s->chain = kmalloc(sizeof(*s->chain), gfp);
				if (!s->chain)
					return -ENOMEM;
			}
		}
	}
	return 0;
}

/**
 * mxa_job_attach_signals() - give the job's output syncobjs its fence, and drop them.
 * @job: a job just pushed (its fence is initialised).
 */
void mxa_job_attach_signals(struct mxa_job *job)
{
	u32 i;

	for (i = 0; i < job->num_signals; i++) {
		struct mxa_job_signal *s = &job->signals[i];

		if (s->chain) {
			drm_syncobj_add_point(s->syncobj, s->chain, &job->fence, s->point);
			s->chain = NULL;
		} else {
			drm_syncobj_replace_fence(s->syncobj, &job->fence);
		}
	}
	mxa_job_free_signals(job);
}

/**
 * mxa_job_create() - validate a submission and build its job.
 * @file: the submitting file.
 * @args: the submission (already copied from userspace).
 * @gfp: allocation flags (GFP_NOWAIT where the caller may not sleep).
 * @jobp: out: the job, not yet pushed.
 *
 * Return: 0; -EINVAL for non-zero flags or padding, a bad queue, or a program that is
 * empty, misaligned, too large or outside its BO, or bad sync operations; -ENOENT for
 * an unknown handle or syncobj; -EFAULT; -E2BIG; -ENOMEM.
 */
int mxa_job_create(struct drm_file *file, const struct drm_mxa_submit *args, gfp_t gfp,
		   struct mxa_job **jobp)
{
	struct mxa_file *mf = to_mxa_file(file);
	struct mxa_device *mdev = mf->mdev;
	struct drm_gem_object *obj;
	struct mxa_job *job;
	struct mxa_bo *bo;
	u32 queue;

	/* dma_fence_free() frees the fence's address: the fence must start the job. */
	BUILD_BUG_ON(offsetof(struct mxa_job, fence) != 0);

	if (args->flags)
		return -EINVAL;
	if (args->result_size && (args->result_size < DRM_MXA_JOB_RESULT_SIZE_V1 ||
				  !args->result_ptr))
		return -EINVAL;
	if (args->queue >= mdev->num_queues)
		return -EINVAL;
	queue = array_index_nospec(args->queue, mdev->num_queues);
	if (!args->prog_size || args->prog_size > MXA_PROG_MAX_SIZE ||
	    !IS_ALIGNED(args->prog_size, 4) || !IS_ALIGNED(args->prog_offset, 4))
		return -EINVAL;

	/* A banned context runs nothing more (mxa_reset.c). */
	if (READ_ONCE(mf->vm->banned))
		return -ECANCELED;

	obj = drm_gem_object_lookup(file, args->prog_handle);
	if (!obj)
		return -ENOENT;
	bo = to_mxa_bo(obj);
	if (bo->vm != mf->vm || (u64)args->prog_offset + args->prog_size > obj->size) {
		drm_gem_object_put(obj);
		return -EINVAL;
	}

	job = kzalloc(sizeof(*job), gfp);
	if (!job) {
		drm_gem_object_put(obj);
		return -ENOMEM;
	}
	atomic_inc(&mdev->live_jobs);
	atomic64_inc(&mdev->jobs_total);
	job->queue = &mdev->queues[queue];
	job->vm = mxa_vm_get(mf->vm);
	atomic_inc(&job->vm->jobs);
	job->bo = bo;
	job->id = atomic64_inc_return(&mf->next_job_id);
	job->prog_va = mxa_bo_va(bo) + args->prog_offset;
	job->prog_size = args->prog_size;
	spin_lock_init(&job->ucmd_lock);
	INIT_LIST_HEAD(&job->backlog_node);
	if (args->syncs.count) {
		int ret = mxa_job_parse_syncs(job, file, &args->syncs, gfp);

		if (ret) {
			mxa_job_destroy(job);
			return ret;
		}
	}
	*jobp = job;
	return 0;
}

/**
 * mxa_job_destroy() - free a job that was never pushed.
 * @job: the job.
 */
void mxa_job_destroy(struct mxa_job *job)
{
	atomic_dec(&job->vm->jobs);
	mxa_job_release_refs(job);
	kfree(job);
}

/* Give the job its fence: under the queue lock, so seqnos follow ring order. */
static void mxa_job_arm(struct mxa_queue *q, struct mxa_job *job)
{
	lockdep_assert_held(&q->lock);
	dma_fence_init(&job->fence, &mxa_fence_ops, &q->fence_lock, q->fence_context,
		       ++q->seqno);
}

/* Fill the slot at @tail with @job, which hands its reference to the slot. */
static void mxa_queue_place(struct mxa_queue *q, struct mxa_job *job)
{
	u32 slot = q->tail;
	struct mxa_job_desc *desc = &q->ring[slot];
	struct mxa_completion *comp = &q->comps[slot];

	lockdep_assert_held(&q->lock);

	q->jobs[slot] = job;
	memset(comp, 0, sizeof(*comp));		/* status = MXA_JOB_STATUS_PENDING */
	memset(desc, 0, sizeof(*desc));
	desc->flags = MXA_JOB_F_IRQ;
	desc->ctx = job->vm->ctx;
	desc->prog_va = job->prog_va;
	desc->prog_size = job->prog_size;
	desc->completion = q->comps_dma + slot * sizeof(*comp);
	desc->job_id = job->id;
	q->tail = (slot + 1) & (q->size - 1);
	trace_mxa_job_run(q->idx, slot, job->id, job->fence.seqno);
}

static void mxa_queue_doorbell(struct mxa_queue *q)
{
	/* writel() orders the descriptor and record stores before the doorbell. */
	mxa_qwrite(q, MXA_QREG_TAIL, q->tail);
	q->doorbell_deferred = 0;
}

static unsigned int mxa_doorbell_batch;
module_param_named(doorbell_batch, mxa_doorbell_batch, uint, 0644);
MODULE_PARM_DESC(doorbell_batch,
		 "io_uring batches: ring the doorbell every this many jobs (0: once per batch)");

/*
 * The doorbell of jobs issued in one io_uring_enter() is rung once, when io_uring
 * finishes its submission plug (it plugs URING_CMD batches of more than two SQEs): the
 * callback runs in the submitting task before io_uring_enter() returns, or when the
 * task sleeps (@from_schedule; this issue path never sleeps). One MMIO write instead of
 * one per job, and the device's command processor is woken once per batch.
 */
static void mxa_queue_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct mxa_queue *q = cb->data;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	if (q->accepting && !q->recovering)
		mxa_queue_doorbell(q);
	spin_unlock_irqrestore(&q->lock, flags);
	kfree(cb);
}

/* Ring now, or at the end of the submitter's plug when @defer and there is one. */
static void mxa_queue_kick(struct mxa_queue *q, bool defer)
{
	unsigned int batch = READ_ONCE(mxa_doorbell_batch);

	lockdep_assert_held(&q->lock);
	/* Every few jobs anyway, so that the device runs while the batch is issued. */
	if (!defer || (batch && ++q->doorbell_deferred >= batch) ||
	    !blk_check_plugged(mxa_queue_unplug, q, sizeof(struct blk_plug_cb)))
		mxa_queue_doorbell(q);
}

static void mxa_job_dep_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct mxa_job *job = container_of(cb, struct mxa_job, dep_cb);

	/* Under @fence's lock, maybe under a queue lock: refill from process context. */
	queue_work(system_highpri_wq, &job->queue->deps_work);
}

/*
 * Whether every input fence of @job has signalled. With @arm, install a callback on
 * the first one that has not. The callback is removed (under the fence's lock, so it
 * is not running either) before the job moves on.
 */
static bool mxa_job_deps_ready(struct mxa_job *job, bool arm)
{
	while (job->dep_next < job->num_deps) {
		struct dma_fence *f = job->deps[job->dep_next];

		if (job->dep_armed) {
			if (!dma_fence_is_signaled(f))
				return false;
			dma_fence_remove_callback(f, &job->dep_cb);
			job->dep_armed = false;
		} else if (!dma_fence_is_signaled(f)) {
			if (!arm)
				return false;
			if (!dma_fence_add_callback(f, &job->dep_cb, mxa_job_dep_cb)) {
				job->dep_armed = true;
				return false;
			}
		}
		job->dep_next++;
	}
	return true;
}

static void mxa_job_dep_disarm(struct mxa_job *job)
{
	if (job->dep_armed) {
		dma_fence_remove_callback(job->deps[job->dep_next], &job->dep_cb);
		job->dep_armed = false;
	}
}

/* Move backlogged jobs into free ring slots. */
static void mxa_queue_refill(struct mxa_queue *q)
{
	u32 moved = 0;

	lockdep_assert_held(&q->lock);
	if (!q->accepting || q->recovering)
		return;
	while (!list_empty(&q->backlog) && !mxa_queue_full(q)) {
		struct mxa_job *job = list_first_entry(&q->backlog, struct mxa_job,
						       backlog_node);

		/* In order: nothing overtakes a job whose input fences are pending. */
		if (!mxa_job_deps_ready(job, true))
			break;
		list_del_init(&job->backlog_node);
		q->backlog_len--;
		mxa_queue_place(q, job);
		moved++;
	}
	if (moved)
		mxa_queue_doorbell(q);
	mxa_reset_watch(q);
}

static void mxa_queue_deps_work(struct work_struct *work)
{
	struct mxa_queue *q = container_of(work, struct mxa_queue, deps_work);

	spin_lock_irq(&q->lock);
	mxa_queue_refill(q);
	spin_unlock_irq(&q->lock);
	wake_up_all(&q->space_wq);
}

/**
 * mxa_job_queue_init() - set up the job state of a queue.
 * @q: the queue.
 */
void mxa_job_queue_init(struct mxa_queue *q)
{
	INIT_WORK(&q->deps_work, mxa_queue_deps_work);
}

static bool mxa_queue_can_push(struct mxa_queue *q, bool deps)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&q->lock, flags);
	ret = !q->accepting ||
	      ((deps || !list_empty(&q->backlog)) && q->backlog_len < MXA_BACKLOG_MAX) ||
	      (!q->recovering && !mxa_queue_full(q) && list_empty(&q->backlog));
	spin_unlock_irqrestore(&q->lock, flags);
	return ret;
}

/**
 * mxa_job_push() - put a job on its hardware queue.
 * @job: a job from mxa_job_create().
 * @may_wait: when the ring is full, sleep (interruptibly) until a slot is free;
 *            otherwise queue the job in the queue's backlog, which the completion
 *            path feeds into the ring (io_uring issue never sleeps and never
 *            returns -EAGAIN, see mxa_uring.c).
 * @defer_doorbell: inside a block plug (io_uring issuing a batch), ring the doorbell
 *                  when the plug is flushed rather than now (mxa_queue_unplug()).
 *
 * Jobs enter the ring in the order they are pushed; a job never overtakes the
 * backlog. On success the job's fence is initialised and the caller keeps the
 * reference mxa_job_create() gave; the ring (or backlog) holds another until the
 * job completes. On failure the job is untouched and the caller frees it with
 * mxa_job_destroy().
 *
 * Return: 0; -ERESTARTSYS; -EAGAIN when the backlog is full (MXA_BACKLOG_MAX);
 * -ENODEV once the device is gone.
 */
int mxa_job_push(struct mxa_job *job, bool may_wait, bool defer_doorbell)
{
	struct mxa_queue *q = job->queue;
	unsigned long flags;
	int ret;

	for (;;) {
		bool deps, backlog;

		spin_lock_irqsave(&q->lock, flags);
		if (!q->accepting) {
			ret = -ENODEV;
			break;
		}
		deps = !mxa_job_deps_ready(job, false);
		backlog = !list_empty(&q->backlog);
		if (!deps && !q->recovering && !mxa_queue_full(q) && !backlog) {
			mxa_job_arm(q, job);
			trace_mxa_job_submit(q->idx, job->vm->ctx, job->id, job->fence.seqno, false);
			mxa_queue_place(q, mxa_job_get(job));
			mxa_queue_kick(q, defer_doorbell);
			mxa_reset_watch(q);
			ret = 0;
			break;
		}
		/*
		 * Jobs waiting for input fences wait in the backlog, also for ioctls; so
		 * does any job behind a non-empty backlog, whose head may be waiting for
		 * an input fence (an ioctl submitter must not sleep until it signals).
		 */
		deps = deps || backlog;
		if (!may_wait || deps) {
			if (q->backlog_len >= MXA_BACKLOG_MAX) {
				ret = -EAGAIN;
				if (!may_wait)
					break;
				goto wait;
			}
			mxa_job_arm(q, job);
			trace_mxa_job_submit(q->idx, job->vm->ctx, job->id, job->fence.seqno, true);
			list_add_tail(&mxa_job_get(job)->backlog_node, &q->backlog);
			q->backlog_len++;
			/* Arms the input fence callback if the job is at the head. */
			mxa_queue_refill(q);
			ret = 0;
			break;
		}
wait:
		spin_unlock_irqrestore(&q->lock, flags);

		ret = wait_event_interruptible(q->space_wq, mxa_queue_can_push(q, deps));
		if (ret)
			return ret;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return ret;
}

static void mxa_job_signal(struct mxa_job *job)
{
	if (job->result.status)
		dma_fence_set_error(&job->fence, job->result.status);
	dma_fence_signal(&job->fence);
	/* The device is done with the job: its VM's page tables may go (mxa_vm.c). */
	atomic_dec(&job->vm->jobs);
}

static void mxa_job_complete(struct mxa_queue *q, struct mxa_job *job,
			     const struct mxa_completion *comp)
{
	struct drm_mxa_job_result *r = &job->result;
	u32 status = READ_ONCE(comp->status);

	switch (status) {
	case MXA_JOB_STATUS_OK:
		r->status = 0;
		break;
	case MXA_JOB_STATUS_ERROR:
		r->status = comp->error == MXA_ERR_MMU_FAULT ? -EFAULT : -EIO;
		break;
	case MXA_JOB_STATUS_ABORTED:
		r->status = -ECANCELED;
		break;
	default:
		drm_err_ratelimited(&q->mdev->drm,
				    "queue %u: job %llu counted complete with status %u\n",
				    q->idx, job->id, status);
		r->status = -EIO;
		break;
	}
	if (status != MXA_JOB_STATUS_OK) {
		r->error = comp->error;
		r->err_offset = comp->err_offset;
		r->err_opcode = comp->err_opcode;
		r->err_addr = comp->err_addr;
		r->err_info = comp->err_info;
	}
	r->start_ns = comp->start_ns;
	r->end_ns = comp->end_ns;
	r->cycles = comp->cycles;
	r->commands = comp->commands;
	if (r->status == -EFAULT)
		trace_mxa_job_fault(q->idx, job->vm->ctx, job->id, r->err_addr, r->err_info,
				    r->err_offset);
	trace_mxa_job_complete(q->idx, job->id, job->fence.seqno, r->status, r->error,
			       r->cycles);
	if (r->end_ns > r->start_ns)
		atomic64_add(r->end_ns - r->start_ns, &job->vm->engine_ns[q->idx]);
	mxa_reset_note_result(job->vm, r->status);
	mxa_job_signal(job);
}

/* Complete the jobs the device has counted in MXA_QREG_COMPLETED; returns how many. */
static u32 mxa_queue_harvest(struct mxa_queue *q)
{
	u32 hw, n, in_flight, done;

	lockdep_assert_held(&q->lock);

	hw = mxa_qread(q, MXA_QREG_COMPLETED);
	n = hw - q->hw_completed;
	in_flight = mxa_queue_in_flight(q);
	if (n > in_flight) {
		drm_err_ratelimited(&q->mdev->drm,
				    "queue %u: device completed %u jobs, %u were in flight\n",
				    q->idx, n, in_flight);
		n = in_flight;
	}
	/* The records of the counted jobs were written before COMPLETED moved. */
	dma_rmb();
	for (done = 0; done < n; done++) {
		u32 slot = q->head;
		struct mxa_job *job = q->jobs[slot];

		q->jobs[slot] = NULL;
		q->head = (slot + 1) & (q->size - 1);
		mxa_job_complete(q, job, &q->comps[slot]);
		mxa_job_put(job);
	}
	q->hw_completed = hw;
	if (done)
		mxa_reset_watch(q);
	return done;
}

/**
 * mxa_job_queue_complete() - complete every job the device has finished on a queue
 * and refill the ring from the backlog. Called from the queue's interrupt handler.
 * @q: the queue.
 */
void mxa_job_queue_complete(struct mxa_queue *q)
{
	unsigned long flags;
	u32 done = 0;

	spin_lock_irqsave(&q->lock, flags);
	if (!q->recovering) {
		done = mxa_queue_harvest(q);
		mxa_queue_refill(q);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	if (done)
		wake_up(&q->space_wq);
}

/**
 * mxa_job_queue_halt() - stop feeding a queue before it is reset.
 * @q: the queue.
 * @for_good: also stop taking new jobs (device removal): submitters get -ENODEV.
 *
 * Jobs the device has completed are completed with their real results; the rest
 * stay in the ring until mxa_job_queue_abort().
 */
void mxa_job_queue_halt(struct mxa_queue *q, bool for_good)
{
	spin_lock_irq(&q->lock);
	q->recovering = true;
	if (for_good)
		q->accepting = false;
	mxa_queue_harvest(q);
	spin_unlock_irq(&q->lock);
	wake_up_all(&q->space_wq);
}

static void mxa_job_abort(struct mxa_job *job, int status, u32 error)
{
	mxa_job_dep_disarm(job);
	job->result.status = status;
	job->result.error = error;
	mxa_job_signal(job);
	mxa_job_put(job);
}

/**
 * mxa_job_queue_abort() - fail the jobs left in a halted queue's ring (and backlog);
 * the ring is left empty at slot 0, as the device has it after a queue reset.
 * @q: the queue, halted with mxa_job_queue_halt() and reset on the device side.
 * @status: drm_mxa_job_result.status for the jobs (negative errno).
 * @error: drm_mxa_job_result.error for the jobs (MXA_ERR_*).
 * @backlog: fail the backlog too; otherwise it is kept for mxa_job_queue_resume().
 */
void mxa_job_queue_abort(struct mxa_queue *q, int status, u32 error, bool backlog)
{
	struct mxa_job *job, *next;

	spin_lock_irq(&q->lock);
	/* Ring first, then backlog: fences signal in seqno order. */
	while (q->head != q->tail) {
		u32 slot = q->head;

		job = q->jobs[slot];
		q->jobs[slot] = NULL;
		q->head = (slot + 1) & (q->size - 1);
		mxa_job_abort(job, status, error);
	}
	q->head = 0;
	q->tail = 0;
	q->hw_completed = 0;
	if (backlog) {
		list_for_each_entry_safe(job, next, &q->backlog, backlog_node) {
			list_del_init(&job->backlog_node);
			mxa_job_abort(job, status, error);
		}
		q->backlog_len = 0;
	}
	spin_unlock_irq(&q->lock);
	wake_up_all(&q->space_wq);
}

/**
 * mxa_job_queue_requeue() - after a queue reset, fail the job at the ring's head and
 * put the jobs behind it, which never started, back in front of the backlog.
 * @q: the queue, halted (mxa_job_queue_halt()) and reset on the device side.
 * @status: drm_mxa_job_result.status for the head job (negative errno).
 * @error: drm_mxa_job_result.error for it (MXA_ERR_*).
 *
 * Fences keep signalling in seqno order: the requeued jobs are older than the backlog.
 * The ring is left empty at slot 0; mxa_job_queue_resume() refills it.
 */
void mxa_job_queue_requeue(struct mxa_queue *q, int status, u32 error)
{
	LIST_HEAD(requeue);
	struct mxa_job *job;

	spin_lock_irq(&q->lock);
	if (q->head != q->tail) {
		u32 slot = q->head;

		job = q->jobs[slot];
		q->jobs[slot] = NULL;
		q->head = (slot + 1) & (q->size - 1);
		job->result.start_ns = q->comps[slot].start_ns;
		mxa_job_abort(job, status, error);
	}
	while (q->head != q->tail) {
		u32 slot = q->head;

		job = q->jobs[slot];
		q->jobs[slot] = NULL;
		q->head = (slot + 1) & (q->size - 1);
		/* The ring's reference becomes the backlog's. */
		list_add_tail(&job->backlog_node, &requeue);
		q->backlog_len++;
	}
	list_splice(&requeue, &q->backlog);
	q->head = 0;
	q->tail = 0;
	q->hw_completed = 0;
	spin_unlock_irq(&q->lock);
}

/**
 * mxa_job_queue_resume() - feed a queue again after its reset.
 * @q: the queue, enabled again on the device side with an empty ring.
 */
void mxa_job_queue_resume(struct mxa_queue *q)
{
	spin_lock_irq(&q->lock);
	q->recovering = false;
	mxa_queue_refill(q);
	spin_unlock_irq(&q->lock);
	wake_up_all(&q->space_wq);
}

/**
 * mxa_job_file_close() - drop the file's references to its ioctl jobs.
 * @mf: the file.
 *
 * Jobs still running keep going; their ring slot holds them until they complete.
 */
void mxa_job_file_close(struct mxa_file *mf)
{
	struct mxa_job *job;
	unsigned long id;

	xa_for_each(&mf->jobs, id, job) {
		xa_erase(&mf->jobs, id);
		mxa_job_put(job);
	}
	xa_destroy(&mf->jobs);
}

int mxa_ioctl_submit(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct mxa_file *mf = to_mxa_file(file);
	struct drm_mxa_submit *args = data;
	struct mxa_job *job;
	int ret;

	/* The result of an ioctl job comes from DRM_IOCTL_MXA_WAIT. */
	if (args->result_ptr || args->result_size)
		return -EINVAL;
	ret = mxa_job_create(file, args, GFP_KERNEL, &job);
	if (ret)
		return ret;

	/* Reserve the table entry first so that nothing can fail after the push. */
	ret = xa_reserve(&mf->jobs, job->id, GFP_KERNEL);
	if (ret)
		goto err_destroy;
	ret = mxa_job_push(job, true, false);
	if (ret) {
		xa_release(&mf->jobs, job->id);
		goto err_destroy;
	}
	mxa_job_attach_signals(job);
	mxa_group_job_pushed(mf, job->queue->idx, &job->fence);
	args->job_id = job->id;
	/* The table takes over the creation reference. */
	xa_store(&mf->jobs, job->id, job, GFP_KERNEL);
	return 0;

err_destroy:
	mxa_job_destroy(job);
	return ret;
}

/**
 * mxa_fence_wait_ns() - wait for a fence with a relative uAPI timeout.
 * @fence: the fence.
 * @timeout_ns: the timeout (ns, >= 0); 0 polls.
 *
 * The deadline is a ktime: dma_fence_wait_timeout() counts jiffies, and a guest's
 * jiffies may advance in bursts (a 20 ms wait was seen to end after 16 ms), so the
 * wait is repeated until the fence signals or the deadline has really passed.
 *
 * Return: 0 once signalled; -ETIME at the deadline; -ERESTARTSYS.
 */
int mxa_fence_wait_ns(struct dma_fence *fence, s64 timeout_ns)
{
	ktime_t deadline = ktime_add_ns(ktime_get(), timeout_ns);

	for (;;) {
		s64 left = ktime_to_ns(ktime_sub(deadline, ktime_get()));
		long j, t;

		if (left <= 0) {
			j = 0;
		} else {
			/* Round up: a non-zero timeout waits at least one tick. */
			u64 jj = nsecs_to_jiffies64(left) + 1;

			j = jj >= MAX_SCHEDULE_TIMEOUT ? MAX_SCHEDULE_TIMEOUT : (long)jj;
		}
		t = dma_fence_wait_timeout(fence, true, j);
		if (t < 0)
			return t;
		if (t > 0)
			return 0;
		if (!j || ktime_compare(ktime_get(), deadline) >= 0)
			return -ETIME;
	}
}

int mxa_ioctl_wait(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct mxa_file *mf = to_mxa_file(file);
	struct drm_mxa_wait *args = data;
	struct mxa_job *job;
	int ret;

	if (args->flags || args->pad || args->timeout_ns < 0)
		return -EINVAL;

	xa_lock(&mf->jobs);
	job = xa_load(&mf->jobs, args->job_id);
	if (job)
		mxa_job_get(job);
	xa_unlock(&mf->jobs);
	if (!job)
		return -ENOENT;

	ret = mxa_fence_wait_ns(&job->fence, args->timeout_ns);
	if (!ret) {
		args->result = job->result;
		/* Release the id; a concurrent WAIT on it may have done so already. */
		if (xa_cmpxchg(&mf->jobs, args->job_id, job, NULL, 0) == job)
			mxa_job_put(job);
	}
	mxa_job_put(job);
	return ret;
}
